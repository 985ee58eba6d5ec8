"""The arbiters' channel: roles by token, commands over the socket, alerts, bad frames.

3.9.2 b: claims and results go through the Chief Arbiter or the Deputy; a
command from anyone else over the gateway is refused and appends nothing.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request

import msgpack
import pytest

from adapters.gateway.deltas import frames_for, pending_claims
from adapters.gateway.tokens import TokenFileError, load_tokens, parse_tokens
from adapters.store import Store
from engine.events import AlertRaised
from tests.gateway_support import (
    ARBITER_TOKEN,
    CHIEF_TOKEN,
    COMMENTATOR_TOKEN,
    Peer,
    RunningGateway,
)
from tests.helpers import T0_MS, at, ok, paired_tournament


@pytest.fixture
def started(store: Store) -> Store:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return store


def command(cid: str, cmd: dict) -> dict:
    return {"op": "command", "id": cid, "command": cmd}


E4 = {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(1)}


class TestRoles:
    def test_an_arbiter_command_is_decided_by_the_engine_and_streamed(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN)
            assert desk.next("subscribed")["role"] == "arbiter"
            desk.next("snapshot")
            desk.send(command("m1", E4))
            result = desk.next("result")
            assert result["id"] == "m1" and result["ok"] is True
            assert [e["type"] for e in result["events"]] == ["MovePlayed"]
            assert desk.next("delta")["event"]["san"] == "e4"

    def test_an_engine_refusal_comes_back_as_the_contracts_error(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN)
            desk.next("snapshot")
            before = started.cache.count()
            desk.send(command("m1", {**E4, "move": "e5"}))
            result = desk.next("result")
            assert result["ok"] is False and result["error"]["code"] == "illegal_move"
            assert started.cache.count() == before

    def test_3_9_2_b_a_draw_by_agreement_is_refused_over_the_socket_too(
        self, started: Store
    ) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk:
            desk.subscribe(token=CHIEF_TOKEN)
            desk.next("snapshot")
            draw = {
                "cmd": "declare_result",
                "game": "1.1",
                "result": "1/2-1/2",
                "reason": "players agreed",
                "at": at(9),
            }
            desk.send(command("d1", draw))  # the chief's token fills in the arbiter
            result = desk.next("result")
            assert result["ok"] is False and result["error"]["code"] == "rule_violation"
            assert "3.9.2 b" in result["error"]["message"]

    @pytest.mark.parametrize("token", [COMMENTATOR_TOKEN, None])
    def test_a_command_from_a_non_arbiter_is_refused_and_appends_nothing(
        self, started: Store, token: str | None
    ) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe(**({"token": token} if token else {}))
            peer.next("snapshot")
            before = started.cache.count()
            peer.send(command("m1", E4))
            error = peer.next("error")
            assert error["code"] == "forbidden" and error["id"] == "m1"
            assert "only an arbiter may send commands" in error["message"]
            time.sleep(0.2)
            assert started.cache.count() == before
            assert [f for f in peer.quiet(0.2) if f["op"] == "delta"] == []

    def test_a_command_before_subscribing_is_refused(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            before = started.cache.count()
            peer.send(command("m1", E4))
            assert (error := peer.next("error"))["code"] == "not_subscribed"
            assert "subscribe first" in error["message"]
            assert started.cache.count() == before

    def test_an_unknown_token_is_refused(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.subscribe(token=ARBITER_TOKEN[:-1] + "X")
            error = peer.next("error")
            assert error["code"] == "invalid_token"
            assert ARBITER_TOKEN[:-1] not in error["message"]
            assert [f for f in peer.quiet(0.2) if f["op"] == "snapshot"] == []
            peer.send(command("m1", E4))
            assert peer.next("error")["code"] == "not_subscribed"

    def test_a_token_bound_to_an_arbiter_cannot_act_as_another(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk:
            desk.subscribe(token=CHIEF_TOKEN)
            desk.next("snapshot")
            before = started.cache.count()
            resign_as_deputy = {
                "cmd": "declare_result",
                "game": "1.1",
                "result": "1-0",
                "reason": "forfeit",
                "arbiter": "deputy",
                "at": at(9),
            }
            desk.send(command("r1", resign_as_deputy))
            error = desk.next("error")
            assert error["code"] == "forbidden" and "'chief'" in error["message"]
            assert started.cache.count() == before


class TestAlerts:
    def test_alerts_go_to_arbiters_only(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk, Peer(gw) as studio:
            desk.subscribe(token=ARBITER_TOKEN)
            studio.subscribe(token=COMMENTATOR_TOKEN)
            desk.next("snapshot")
            studio.next("snapshot")
            alert = AlertRaised(
                originator_id="clock/1.1",
                originator_version=1,
                at_ms=T0_MS + 5000,
                by="dgt:3",
                game="1.1",
                kind="clock_mismatch",
                message="board 1: the clock shows 1:59:10 for White, the regulation clock 1:59:40",
                details={"white_ms": 7150000, "expected_white_ms": 7180000},
            )
            started.append([alert])
            ok(started, E4)
            got = desk.next("alert")
            assert (got["kind"], got["game"], got["by"]) == ("clock_mismatch", "1.1", "dgt:3")
            assert got["details"]["expected_white_ms"] == 7180000
            assert studio.next(lambda f: f["op"] in ("alert", "delta"))["op"] == "delta"

    def test_a_claim_that_becomes_pending_alerts_the_arbiters(self) -> None:
        """Pure: the frames of an update whose game object gained a pending claim."""
        claim = {"id": "1", "by": "white", "kind": "threefold_repetition", "status": "pending"}
        before = {"game": "1.1", "claims": []}
        after = {"game": "1.1", "claims": [claim]}
        frames = frames_for([], {"1.1": after}, before={"1.1": before})
        alerts = [f.body for f in frames if f.body["op"] == "alert"]
        assert alerts and alerts[0]["kind"] == "claim_pending"
        assert alerts[0]["claim"] == claim and "3.9.2 b" in alerts[0]["message"]
        assert all(f.audience == "arbiter" for f in frames if f.body["op"] == "alert")
        # already pending before: no second alert
        assert frames_for([], {"1.1": after}, before={"1.1": after}) == []
        ruled = {**claim, "status": "rejected"}
        assert pending_claims({"claims": [ruled]}) == {}


class TestMalformedFrames:
    """Garbage in gets an error frame, never a crash; the connection goes on."""

    @pytest.mark.parametrize(
        ("data", "code"),
        [
            (b"\xc1\xff\x00garbage", "malformed_frame"),
            # random bytes, the same in every pytest-xdist worker (they collect alike)
            (random.Random("garbage").randbytes(64), "malformed_frame"),
            ("{not json", "malformed_frame"),
            (msgpack.packb([1, 2, 3]), "malformed_frame"),
            (msgpack.packb({"op": "dance"}), "unknown_op"),
            (msgpack.packb({"no": "op"}), "unknown_op"),
            (msgpack.packb({"op": "subscribe", "games": 7}), "malformed_frame"),
            (msgpack.packb({"op": "subscribe", "since": "yesterday"}), "malformed_frame"),
            (msgpack.packb({"op": "subscribe", "token": 12345678}), "malformed_frame"),
            (msgpack.packb({"op": "command", "command": {}}), "malformed_frame"),
        ],
    )
    def test_garbage_gets_an_error_frame(
        self, started: Store, data: bytes | str, code: str
    ) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as peer:
            peer.send_raw(data)
            error = peer.next("error")
            if error["code"] == "unknown_op" and code == "malformed_frame":
                pass  # random bytes may decode to a map without an op
            else:
                assert error["code"] == code, error
            peer.subscribe()
            assert peer.next("snapshot")["seq"] == started.last_seq()

    def test_json_connection_answers_garbage_in_json(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw, json_text=True) as peer:
            peer.send_raw("]]]")
            assert peer.next("error")["code"] == "malformed_frame"
            assert isinstance(peer.raw[-1], str)
            peer.send_raw(b"\xff\xfe")
            assert peer.next("error")["code"] == "malformed_frame"
            peer.send({"op": "command", "id": "x", "command": "play e4"}, valid=False)
            assert peer.next("error")["code"] == "not_subscribed"

    def test_a_command_that_is_not_a_map_is_refused(self, started: Store) -> None:
        with RunningGateway(started.url) as gw, Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN)
            desk.next("snapshot")
            desk.send({"op": "command", "id": "x", "command": "play e4"}, valid=False)
            assert desk.next("error")["code"] == "malformed_frame"
            desk.send({"op": "command", "id": "y", "command": {"cmd": "fly"}})
            result = desk.next("result")
            assert result["error"]["code"] == "malformed_command"


class TestTokenFile:
    def test_token_file_roles(self, tmp_path) -> None:
        path = tmp_path / "tokens.json"
        path.write_text(json.dumps({"s3cret-token": {"role": "commentator", "name": "BBC"}}))
        tokens = load_tokens(path)
        found = tokens.identify("s3cret-token")
        assert found is not None and (found.role, found.name) == ("commentator", "BBC")
        assert tokens.identify("s3cret-tokeN") is None and tokens.identify("") is None

    @pytest.mark.parametrize(
        ("raw", "message"),
        [
            ([], "expected a JSON object"),
            ({"short": {"role": "arbiter"}}, "shorter than 8"),
            ({"long-enough": {"role": "king"}}, "has role 'king'"),
            ({"long-enough": "arbiter"}, "must map to an object"),
            ({"long-enough": {"role": "commentator", "arbiter": "chief"}}, "arbiter tokens only"),
        ],
    )
    def test_a_bad_token_file_is_refused_with_a_reason(self, raw: object, message: str) -> None:
        with pytest.raises(TokenFileError, match=message):
            parse_tokens(raw)

    def test_a_missing_token_file_is_named(self, tmp_path) -> None:
        with pytest.raises(TokenFileError, match="cannot read the token file"):
            load_tokens(tmp_path / "nope.json")


class TestPages:
    def test_the_page_its_assets_and_status_are_served_over_http(self, started: Store) -> None:
        with RunningGateway(started.url) as gw:

            def get(path: str) -> tuple[int, str, bytes]:
                try:
                    with urllib.request.urlopen(gw.http + path) as answer:
                        return answer.status, answer.headers["Content-Type"], answer.read()
                except urllib.error.HTTPError as error:
                    return error.code, error.headers["Content-Type"], error.read()

            status, kind, body = get("/")
            assert status == 200 and kind.startswith("text/html") and b"app.js" in body
            assert get("/game/1.1")[0] == 200 and get("/arbiter")[0] == 200
            assert get("/static/app.js")[1].startswith("text/javascript")
            assert get("/static/style.css")[1].startswith("text/css")
            status, kind, body = get("/pieces/wN.svg")
            assert status == 200 and kind == "image/svg+xml" and b"<svg" in body
            status, _, body = get("/status")
            assert status == 200 and json.loads(body)["seq"] == started.last_seq()
            assert get("/static/../server.py")[0] == 404
            assert get("/nothing")[0] == 404


class TestClocksAreNotSentEverySecond:
    """A clock object carries remaining times, the running side and the instant; a
    reading that only confirms the countdown is not pushed."""

    def game(self, **clock) -> dict:
        start = {"white_ms": 7_200_000, "black_ms": 7_200_000, "running": "white"}
        return {"game": "1.1", "moves": [], "clock": {**start, **clock}}

    def test_a_reading_that_agrees_with_the_countdown_is_no_news(self) -> None:
        from adapters.gateway.deltas import predictable

        before = self.game(at="2013-03-15T14:00:00.000Z")
        after = self.game(white_ms=7_190_400, at="2013-03-15T14:00:10.000Z")
        assert predictable(before, after)

    @pytest.mark.parametrize(
        "change",
        [
            {"white_ms": 7_150_000, "at": "2013-03-15T14:00:10.000Z"},  # 40 s off: a mismatch
            {"running": "black", "at": "2013-03-15T14:00:10.000Z"},  # the move was pressed
            {"black_ms": 7_198_000, "at": "2013-03-15T14:00:10.000Z"},  # the idle side moved
        ],
    )
    def test_a_reading_that_differs_is_news(self, change: dict) -> None:
        from adapters.gateway.deltas import predictable

        before = self.game(at="2013-03-15T14:00:00.000Z")
        after = self.game(**{"white_ms": 7_190_000, **change})
        assert not predictable(before, after)

    def test_anything_else_that_changed_is_news(self) -> None:
        from adapters.gateway.deltas import predictable

        before = self.game(at="2013-03-15T14:00:00.000Z")
        after = {**self.game(at="2013-03-15T14:00:00.000Z"), "moves": ["e4"]}
        assert not predictable(before, after)
        device = {
            "white_ms": 1,
            "black_ms": 2,
            "running": None,
            "read_at": "2013-03-15T14:00:00.000Z",
            "open_alerts": [],
            "stream_version": 8,
        }
        alerted = {**device, "open_alerts": ["clock_mismatch:white"]}
        assert not predictable({"device": device}, {"device": alerted})
        assert predictable({"device": device}, {"device": {**device, "stream_version": 9}})


class TestArt3_9_2_bClaimsReachTheArbiters:
    """3.9.2 b: a draw claim goes to the Chief Arbiter or the Deputy, who rules on it."""

    def test_a_claim_alerts_the_arbiters_and_a_ruling_over_the_socket_settles_it(
        self, started: Store
    ) -> None:
        with (
            RunningGateway(started.url) as gw,
            Peer(gw) as desk,
            Peer(gw) as studio,
        ):
            desk.subscribe(token=CHIEF_TOKEN)
            studio.subscribe(token=COMMENTATOR_TOKEN)
            desk.next("snapshot")
            studio.next("snapshot")
            claim = {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "threefold_repetition",
                "at": at(5),
            }
            ok(started, claim)
            alert = desk.next("alert")  # the engine's own alert, once
            assert alert["kind"] == "claim_pending" and alert["game"] == "1.1"
            assert alert["details"]["kind"] == "threefold_repetition"
            assert "claims a draw" in alert["message"]
            assert [f for f in desk.quiet(0.3) if f["op"] == "alert"] == []
            delta = studio.next(lambda f: f.get("kind") == "DrawClaimed")
            assert delta["object"]["claims"][0]["status"] == "pending"
            rule = {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": alert["details"]["claim"],
                "decision": "rejected",
                "at": at(20),
            }
            desk.send(command("r1", rule))  # the chief's token names the arbiter
            assert desk.next("result")["ok"] is True
            # the batch's last delta of the game carries the object: ClaimRuled, or
            # the clock restarting after it (6.12 b)
            ruled = studio.next(lambda f: "object" in f and f["seq"] > delta["seq"])
            assert ruled["object"]["claims"][0]["status"] == "rejected"

    def test_an_arbiter_who_connects_later_is_told_of_the_pending_claim(
        self, started: Store
    ) -> None:
        ok(
            started,
            {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "fifty_moves", "at": at(5)},
        )
        with RunningGateway(started.url) as gw, Peer(gw) as desk, Peer(gw) as studio:
            desk.subscribe(token=ARBITER_TOKEN)
            studio.subscribe(token=COMMENTATOR_TOKEN)
            desk.next("snapshot")
            alert = desk.next("alert")
            assert (alert["kind"], alert["claim"]["kind"]) == ("claim_pending", "fifty_moves")
            studio.next("snapshot")
            assert [f for f in studio.quiet(0.3) if f["op"] == "alert"] == []
