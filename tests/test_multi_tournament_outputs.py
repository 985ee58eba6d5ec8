"""Every output of the gateway per tournament, in a store of two (an Open and a Women's
event, one team of arbiters): the HTTP outputs (JSON and PGN, chosen with
``?tournament=``, each with its own cache slot and ETag, the public delay honoured),
the arbiters' incident book and their open alerts, each kept to its tournament."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import chess.pgn
import pytest

from adapters.gateway.alerts import OpenAlerts
from adapters.gateway.frames import Frame
from adapters.gateway.outputs import output_paths
from adapters.store import Store
from engine.timefmt import format_instant
from tests.cli import candidates
from tests.gateway_support import (
    ARBITER_TOKEN,
    CHIEF_TOKEN,
    COMMENTATOR_TOKEN,
    Peer,
    RunningGateway,
)
from tests.helpers import ARBITERS, PLAYERS_2013, at, ok
from tests.test_gateway_http import get
from tests.test_multi_tournament import WOMENS, create, two_events

DELAY_S = 250


def get_json(gw: RunningGateway, path: str) -> Any:
    status, _, body = get(gw, path)
    assert status == 200, (path, status, body)
    return json.loads(body)


def parse_all(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def sans(pgn: bytes) -> list[list[str]]:
    return [[n.san() for n in g.mainline()] for g in parse_all(pgn.decode())]


@pytest.fixture
def side_by_side(sqlite_store: Store) -> Store:
    """Both events' game 1.1 started five minutes ago: in the Open 1. d4 Nf6 long ago and
    2. c4 within the public delay; in the Women's 1. e4 long ago and 1... e5 within it."""
    base = time.time_ns() // 1_000_000 // 1000 * 1000 - 300_000

    def when(seconds: int) -> str:
        return format_instant(base + seconds * 1000)

    two_events(sqlite_store)
    moves = {"open": [(10, "d4"), (20, "Nf6"), (200, "c4")], "womens": [(10, "e4"), (200, "e5")]}
    for tid, played in moves.items():
        game = {"tournament": tid, "game": "1.1"}
        ok(sqlite_store, {"cmd": "start_game", **game, "at": when(0)})
        for seconds, san in played:
            ok(sqlite_store, {"cmd": "play_move", **game, "move": san, "at": when(seconds)})
    return sqlite_store


class TestHttpOutputsPerTournament:
    def test_every_json_route_answers_for_the_tournament_asked(self, side_by_side: Store) -> None:
        with RunningGateway(side_by_side.url, public_delay_s=DELAY_S) as gw:
            womens = get_json(gw, "/api/tournament?tournament=womens")
            assert (womens["tournament"], womens["name"]) == ("womens", "Candidates womens")
            assert [p["id"] for p in womens["players"]] == [p["id"] for p in WOMENS]
            assert [a["id"] for a in womens["arbiters"]] == [a["id"] for a in ARBITERS]
            standings = get_json(gw, "/api/standings?tournament=womens")
            assert standings["tournament"] == "womens"
            assert {r["player"] for r in standings["rows"]} == {p["id"] for p in WOMENS}
            games = get_json(gw, "/api/games?tournament=womens")
            assert len(games) == 56 and {g["tournament"] for g in games} == {"womens"}
            one = get_json(gw, "/api/games/1.1?tournament=womens")
            assert (one["tournament"], one["game"], one["white"]) == ("womens", "1.1", "w1")
            pairings = get_json(gw, "/api/pairings?tournament=womens")
            first = pairings["rounds"][0]
            assert first["round"] == 1 and {g["white"] for g in first["games"]} <= {
                p["id"] for p in WOMENS
            }
            # without the parameter: the store's first tournament, as in a store of one
            assert get_json(gw, "/api/tournament")["tournament"] == "open"
            plain = get_json(gw, "/api/games")
            assert len(plain) == 56 and not any("tournament" in g for g in plain)
            assert get_json(gw, "/api/games/1.1")["white"] == PLAYERS_2013[0]["id"]
            assert get_json(gw, "/api/standings")["tournament"] == "open"
            # every tournament's games at once
            every = get_json(gw, "/api/games?tournament=*")
            assert len(every) == 112
            assert [g.get("tournament", "open") for g in every[55:57]] == ["open", "womens"]

    def test_the_pgn_of_each_tournament_is_its_own(self, side_by_side: Store) -> None:
        with RunningGateway(side_by_side.url, public_delay_s=DELAY_S) as gw:
            _, headers, womens = get(gw, "/pgn/games/1.1.pgn?tournament=womens")
            assert headers["Content-Type"].startswith("application/x-chess-pgn")
            game = parse_all(womens.decode())[0]
            assert game.headers["Event"] == "Candidates womens" and "W1" in game.headers["White"]
            assert sans(womens) == [["e4"]]  # 1... e5 is within the public delay
            _, _, opened = get(gw, "/pgn/games/1.1.pgn")
            assert sans(opened) == [["d4", "Nf6"]]
            assert parse_all(opened.decode())[0].headers["Event"] != "Candidates womens"
            for path in ("/pgn/round/1.pgn", "/pgn/all.pgn"):
                _, _, body = get(gw, f"{path}?tournament=womens")
                assert sans(body) == [["e4"]], path
                _, _, body = get(gw, f"{path}?tournament=open")
                assert sans(body) == [["d4", "Nf6"]], path
            # a token reads the live state of the tournament asked, at once
            live = f"/pgn/games/1.1.pgn?tournament=womens&token={COMMENTATOR_TOKEN}"
            _, headers, body = get(gw, live)
            assert sans(body) == [["e4", "e5"]] and headers["Cache-Control"] == "private, no-cache"
            _, _, public = get(gw, "/api/games/1.1?tournament=womens")
            assert json.loads(public)["moves"] == ["e4"]
            studio = get_json(gw, f"/api/games/1.1?tournament=womens&token={COMMENTATOR_TOKEN}")
            assert studio["moves"] == ["e4", "e5"]

    def test_each_tournament_has_its_own_etag_and_a_move_changes_only_its_own(
        self, side_by_side: Store
    ) -> None:
        with RunningGateway(side_by_side.url, public_delay_s=0) as gw:
            tags: dict[str, str] = {}
            for tid in ("open", "womens"):
                status, headers, _ = get(gw, f"/pgn/round/1.pgn?tournament={tid}")
                assert status == 200
                tags[tid] = headers["ETag"]
            assert tags["open"] != tags["womens"]
            # the plain URL is the first tournament's: the same answer, the same ETag
            status, headers, _ = get(gw, "/pgn/round/1.pgn", {"If-None-Match": tags["open"]})
            assert status == 304 and headers["ETag"] == tags["open"]
            # another tournament's ETag does not validate this one's answer
            status, _, _ = get(gw, "/pgn/round/1.pgn", {"If-None-Match": tags["womens"]})
            assert status == 200
            # two rounds not started yet: alike bodies, still apart
            empty = [get(gw, f"/pgn/round/9.pgn?tournament={t}") for t in ("open", "womens")]
            assert empty[0][2] == empty[1][2] and empty[0][1]["ETag"] != empty[1][1]["ETag"]
            move = {"cmd": "play_move", "tournament": "womens", "game": "1.1", "move": "Nf3"}
            ok(side_by_side, {**move, "at": format_instant(time.time_ns() // 1_000_000)})
            deadline = time.monotonic() + 5
            while True:
                status, headers, body = get(
                    gw, "/pgn/round/1.pgn?tournament=womens", {"If-None-Match": tags["womens"]}
                )
                if status == 200:
                    break
                assert time.monotonic() < deadline, "the move never reached the women's PGN"
                time.sleep(0.05)
            assert headers["ETag"] != tags["womens"] and sans(body) == [["e4", "e5", "Nf3"]]
            status, _, _ = get(
                gw, "/pgn/round/1.pgn?tournament=open", {"If-None-Match": tags["open"]}
            )
            assert status == 304, "a move of the Women's event changed the Open's PGN"

    def test_the_list_of_tournaments_names_each_ones_outputs(self, side_by_side: Store) -> None:
        with RunningGateway(side_by_side.url, public_delay_s=DELAY_S) as gw:
            listed = get_json(gw, "/api/tournaments")
            assert listed["default"] == "open"
            assert [(t["id"], t["name"]) for t in listed["tournaments"]] == [
                ("open", "Candidates open"),
                ("womens", "Candidates womens"),
            ]
            outputs = listed["tournaments"][1]["outputs"]
            assert outputs["pgn_round"] == "/pgn/round/{n}.pgn?tournament=womens"
            for name, path in outputs.items():
                path = path.replace("{n}", "1").replace("{id}", "1.1")
                status, _, body = get(gw, path)
                assert status == 200, (name, path, body)
            assert get_json(gw, outputs["tournament"])["tournament"] == "womens"

    def test_an_unknown_tournament_and_every_tournament_where_one_is_meant_are_refused(
        self, side_by_side: Store
    ) -> None:
        with RunningGateway(side_by_side.url, public_delay_s=DELAY_S) as gw:
            for path in ("/api/standings", "/pgn/all.pgn", "/api/games/1.1", "/api/tournament"):
                status, headers, body = get(gw, f"{path}?tournament=blitz")
                error = json.loads(body)["error"]
                assert (status, error["code"]) == (404, "unknown_tournament"), path
                assert "'blitz'" in error["message"] and "'open', 'womens'" in error["message"]
                assert headers["Content-Type"] == "application/json"
            for path in ("/api/standings", "/pgn/round/1.pgn", "/api/tournament"):
                status, _, body = get(gw, f"{path}?tournament=*")
                error = json.loads(body)["error"]
                assert (status, error["code"]) == (400, "malformed_request"), path
                assert "'open', 'womens'" in error["message"]
            status, _, body = get(gw, "/api/games/9.9?tournament=womens")
            assert status == 404 and "'womens'" in json.loads(body)["error"]["message"]
            status, _, body = get(gw, "/pgn/games/1.2.pgn?tournament=womens")
            assert status == 404  # paired, not started
            status, _, _ = get(gw, "/api/games?tournament=womens&token=not-a-token")
            assert status == 401

    def test_a_store_of_one_answers_the_same_with_or_without_its_id(
        self, sqlite_store: Store
    ) -> None:
        create(sqlite_store, "open", PLAYERS_2013)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        with RunningGateway(sqlite_store.url, public_delay_s=0) as gw:
            for path in ("/api/games", "/api/standings", "/pgn/all.pgn", "/api/tournament"):
                plain = get(gw, path)
                named = get(gw, f"{path}?tournament=open")
                assert plain[0] == named[0] == 200
                assert plain[2] == named[2] and plain[1]["ETag"] == named[1]["ETag"], path
            listed = get_json(gw, "/api/tournaments")
            assert listed["default"] == "open" and len(listed["tournaments"]) == 1
            assert get(gw, "/api/games?tournament=*")[2] == get(gw, "/api/games")[2]


def leave(tid: str, player: str) -> dict[str, Any]:
    return {
        "cmd": "permit_leave",
        "tournament": tid,
        "player": player,
        "arbiter": "chief",  # one team of arbiters for both events
        "accompanied_by": "deputy",
        "at": at(30),
    }


def books(peer: Peer, seconds: float = 0.5) -> dict[str, dict[str, Any]]:
    """The incidents frames received so far and within ``seconds``, by tournament."""
    peer.quiet(seconds)
    return {f["tournament"]: f["book"] for f in peer.frames if f.get("op") == "incidents"}


class TestIncidentBookPerTournament:
    def test_each_arbiter_gets_the_book_of_the_tournaments_subscribed(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        ok(store, leave("open", PLAYERS_2013[0]["id"]))
        ok(store, leave("womens", "w1"))
        with (
            RunningGateway(store.url) as gw,
            Peer(gw) as womens_desk,
            Peer(gw) as whole_desk,
            Peer(gw) as studio,
        ):
            womens_desk.subscribe(token=ARBITER_TOKEN, tournament="womens")
            whole_desk.subscribe(token=CHIEF_TOKEN)
            studio.subscribe(token=COMMENTATOR_TOKEN, tournament="womens")
            womens_desk.next("snapshot")
            book = womens_desk.next("incidents")
            assert book["tournament"] == "womens" and book["book"]["tournament"] == "womens"
            assert [o["player"] for o in book["book"]["out"]] == ["w1"]
            whole_desk.next("snapshot")
            both = [whole_desk.next("incidents"), whole_desk.next("incidents")]
            assert [(b["tournament"], [o["player"] for o in b["book"]["out"]]) for b in both] == [
                ("open", [PLAYERS_2013[0]["id"]]),
                ("womens", ["w1"]),
            ]
            assert list(books(womens_desk, 0.2)) == ["womens"]
            # the Open's book changes: the desk of all gets it, the Women's desk does not
            returned = {"cmd": "returned", "tournament": "open", "player": PLAYERS_2013[0]["id"]}
            ok(store, {**returned, "at": at(40)})
            changed = whole_desk.next("incidents")
            assert changed["tournament"] == "open" and changed["book"]["out"] == []
            assert [f for f in womens_desk.quiet(0.5) if f.get("op") == "incidents"] == []
            studio.next("snapshot")
            assert not any(f.get("op") == "incidents" for f in studio.quiet(0.2))

    def test_a_desk_that_resumes_gets_its_tournaments_book_again(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        with RunningGateway(store.url) as gw:
            with Peer(gw) as desk:
                desk.subscribe(token=ARBITER_TOKEN, tournament="womens")
                since = desk.next("snapshot")["seq"]
                assert desk.next("incidents")["book"]["out"] == []
            ok(store, leave("womens", "w1"))
            ok(store, leave("open", PLAYERS_2013[0]["id"]))
            with Peer(gw) as desk:
                for _ in range(100):  # the gateway reads the store within a moment
                    desk.subscribe(token=ARBITER_TOKEN, tournament="womens", since=since)
                    hello = desk.next("subscribed")
                    if hello["seq"] >= since + 2:
                        break
                    time.sleep(0.05)
                assert hello["resumed"] is True
                book = desk.next(lambda f: f.get("op") == "incidents" and f["book"]["out"])
                assert book["tournament"] == "womens"
                assert [o["player"] for o in book["book"]["out"]] == ["w1"]
                assert set(books(desk, 0.3)) == {"womens"}

    def test_the_command_line_shows_the_book_and_report_of_the_tournament_named(
        self, tmp_path
    ) -> None:
        path = str(tmp_path / "two.sqlite")
        aronian = PLAYERS_2013[0]["id"]
        with Store(path) as store:
            two_events(store)
            for tid in ("open", "womens"):
                ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
            ok(store, leave("womens", "w1"))
            ok(store, leave("open", aronian))
            ok(store, {"cmd": "returned", "tournament": "open", "player": aronian, "at": at(40)})
        shown = candidates("--tournament", "womens", "incidents", "--format", "json", store=path)
        assert shown.returncode == 0, shown.stderr
        book = json.loads(shown.stdout)
        assert book["tournament"] == "womens" and [o["player"] for o in book["out"]] == ["w1"]
        assert all(e["player"] == "w1" for e in book["entries"])
        after = candidates("incidents", "--tournament", "open", "--format", "json", store=path)
        assert after.returncode == 0 and json.loads(after.stdout)["out"] == []
        unnamed = candidates("incidents", store=path)
        assert unnamed.returncode == 2 and "open, womens" in unnamed.stderr
        # the Chief Arbiter's report of each event holds its own entries only
        for tid, player, count in (("womens", "w1", 1), ("open", aronian, 2)):
            done = candidates("--tournament", tid, "report", "--format", "json", store=path)
            assert done.returncode == 0, done.stderr
            entries = json.loads(done.stdout)["entries"]
            assert len(entries) == count and all(e["player"] == player for e in entries), tid


def claim(tid: str, game: str = "1.1") -> dict[str, Any]:
    return {
        "cmd": "claim_draw",
        "tournament": tid,
        "game": game,
        "by": "white",
        "kind": "threefold_repetition",
        "at": at(5),
    }


def open_alerts(peer: Peer) -> list[dict[str, Any]]:
    """The alerts sent after the last ``subscribed`` (every one still open), by key."""
    peer.quiet(0.5)
    last = max(i for i, f in enumerate(peer.frames) if f.get("op") == "subscribed")
    return sorted(
        (f for f in peer.frames[last:] if f.get("op") == "alert" and not f.get("closed")),
        key=lambda f: f["key"],
    )


class TestOpenAlertsPerTournament:
    """Both events' game 1.1 has a claim waiting for a ruling (3.9.2 b): the same game id,
    two alerts, each kept to its tournament."""

    def test_an_arbiter_gets_the_open_alerts_of_the_tournaments_subscribed(
        self, store: Store
    ) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
            ok(store, claim(tid))
        with RunningGateway(store.url) as gw, Peer(gw) as womens_desk, Peer(gw) as whole_desk:
            womens_desk.subscribe(token=ARBITER_TOKEN, tournament="womens")
            whole_desk.subscribe(token=CHIEF_TOKEN)
            mine = open_alerts(womens_desk)
            assert [(a["key"], a["game"], a.get("tournament")) for a in mine] == [
                ("womens/1.1/claim:1", "1.1", "womens")
            ]
            assert mine[0]["kind"] == "claim_pending"
            assert mine[0]["claim"]["by"] == "white"
            every = open_alerts(whole_desk)
            assert [(a["key"], a["game"], a.get("tournament")) for a in every] == [
                ("1.1/claim:1", "1.1", None),
                ("womens/1.1/claim:1", "1.1", "womens"),
            ]
            # the Open's claim is ruled: its alert closes, the Women's stays open
            rule = {
                "cmd": "rule_claim",
                "tournament": "open",
                "game": "1.1",
                "claim": 1,
                "decision": "rejected",
                "at": at(20),
            }
            whole_desk.send({"op": "command", "id": "r1", "command": rule})
            assert whole_desk.next("result")["ok"] is True
            closed = whole_desk.next(lambda f: f.get("op") == "alert" and f.get("closed"))
            assert (closed["key"], closed["game"], closed.get("tournament")) == (
                "1.1/claim:1",
                "1.1",
                None,
            )
            assert not any(f.get("op") == "alert" for f in womens_desk.quiet(0.5))
            whole_desk.subscribe(token=CHIEF_TOKEN)  # a reload: only the Women's is open
            assert [a["key"] for a in open_alerts(whole_desk)] == ["womens/1.1/claim:1"]
            womens_desk.subscribe(token=ARBITER_TOKEN, tournament="womens")
            assert [a["key"] for a in open_alerts(womens_desk)] == ["womens/1.1/claim:1"]

    def test_alerts_raised_while_connected_reach_only_their_tournaments_desks(
        self, store: Store
    ) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        with RunningGateway(store.url) as gw, Peer(gw) as open_desk, Peer(gw) as whole_desk:
            open_desk.subscribe(token=ARBITER_TOKEN, tournament="open")
            whole_desk.subscribe(token=CHIEF_TOKEN)
            open_desk.next("snapshot")
            whole_desk.next("snapshot")
            ok(store, claim("womens"))
            raised = whole_desk.next("alert")
            assert (raised["key"], raised["tournament"]) == ("womens/1.1/claim:1", "womens")
            ok(store, claim("open"))
            raised = whole_desk.next("alert")
            assert raised["key"] == "1.1/claim:1" and "tournament" not in raised
            seen = [f for f in open_desk.quiet(0.5) if f.get("op") == "alert"]
            assert [f["key"] for f in seen] == ["1.1/claim:1"]
            # the Women's claim is ruled: only its alert closes, only for its desks
            rule = {"cmd": "rule_claim", "tournament": "womens", "game": "1.1", "claim": 1}
            ok(store, {**rule, "decision": "rejected", "arbiter": "deputy", "at": at(20)})
            closed = whole_desk.next(lambda f: f.get("op") == "alert" and f.get("closed"))
            assert (closed["key"], closed["tournament"]) == ("womens/1.1/claim:1", "womens")
            assert not any(f.get("op") == "alert" for f in open_desk.quiet(0.5))
            open_desk.subscribe(token=ARBITER_TOKEN, tournament="open")
            assert [a["key"] for a in open_alerts(open_desk)] == ["1.1/claim:1"]


def board_alert(tid: str, serial: str) -> dict[str, Any]:
    return {
        "cmd": "raise_alert",
        "tournament": tid,
        "board": serial,
        "game": "1.1",
        "kind": "impossible_position",
        "message": f"board {serial} sent a position no legal move reaches",
        "at": at(30),
    }


class TestBoardAlertsPerTournament:
    """A board's alerts are stored on the store's shared ``board/<serial>`` stream: a
    further tournament's board names its tournament, so the alert reaches that
    tournament's desks (and is about its game 1.1, not the Open's)."""

    def test_a_further_tournaments_board_alert_names_it_and_reaches_its_desks(
        self, store: Store
    ) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        ok(store, board_alert("open", "1001"))
        ok(store, board_alert("womens", "2001"))
        stored = {
            e.originator_id: e.details
            for _, e in store.cache.events_since(0)
            if type(e).__name__ == "AlertRaised"
        }
        assert stored["board/1001"] == {}  # the first tournament's: as in a store of one
        assert stored["board/2001"] == {"tournament": "womens"}
        with RunningGateway(store.url) as gw, Peer(gw) as womens_desk, Peer(gw) as open_desk:
            womens_desk.subscribe(token=ARBITER_TOKEN, tournament="womens")
            open_desk.subscribe(token=ARBITER_TOKEN, tournament="open")
            assert [
                (a["key"], a["game"], a.get("tournament")) for a in open_alerts(womens_desk)
            ] == [("womens/1.1/impossible_position", "1.1", "womens")]
            assert [a["key"] for a in open_alerts(open_desk)] == ["1.1/impossible_position"]
            ok(store, {**board_alert("womens", "2002"), "kind": "board_disconnected"})
            raised = womens_desk.next("alert")
            assert (raised["key"], raised["tournament"]) == (
                "womens/1.1/board_disconnected",
                "womens",
            )
            assert not any(f.get("op") == "alert" for f in open_desk.quiet(0.5))


class TestOpenAlertsKeys:
    """``OpenAlerts`` (pure): the same game id in two tournaments, a clock alert each."""

    @staticmethod
    def alert(tid: str | None, seq: int) -> Frame:
        key = "1.1" if tid is None else f"{tid}/1.1"
        body: dict[str, Any] = {
            "op": "alert",
            "seq": seq,
            "kind": "clock_mismatch",
            "game": "1.1",
            "details": {"side": "white"},
        }
        if tid is not None:
            body["tournament"] = tid
        return Frame(body, seq, key, audience="arbiter", tournament=tid or "open")

    @staticmethod
    def game(tid: str | None, open_alerts: list[str]) -> dict[str, Any]:
        obj: dict[str, Any] = {
            "game": "1.1",
            "status": "in_progress",
            "clock": {"device": {"open_alerts": open_alerts}},
        }
        if tid is not None:
            obj["tournament"] = tid
        return obj

    def test_two_tournaments_alerts_on_game_1_1_neither_collide_nor_close_each_other(
        self,
    ) -> None:
        alerts = OpenAlerts()
        still = ["clock_mismatch:white"]
        objects = {"1.1": self.game(None, still), "womens/1.1": self.game("womens", still)}
        closed = alerts.update([self.alert(None, 1), self.alert("womens", 2)], objects, 2)
        assert closed == []
        assert [a.body["key"] for a in alerts.now()] == [
            "1.1/clock_mismatch:white",
            "womens/1.1/clock_mismatch:white",
        ]
        # the Women's clock agrees again: only its alert closes, and says whose it is
        closed = alerts.update([], {"womens/1.1": self.game("womens", [])}, 3)
        assert [(c.body["key"], c.body["game"], c.body["tournament"]) for c in closed] == [
            ("womens/1.1/clock_mismatch:white", "1.1", "womens")
        ]
        assert closed[0].tournament == "womens" and closed[0].game == "womens/1.1"
        assert [a.body["key"] for a in alerts.now()] == ["1.1/clock_mismatch:white"]
        # the Open's object, still listing its alert, keeps it open
        assert alerts.update([], {"1.1": self.game(None, still)}, 4) == []
        assert len(alerts.now()) == 1

    def test_pending_claims_at_start_name_their_tournament(self) -> None:
        pending = [{"id": 1, "by": "white", "kind": "fifty_moves", "status": "pending"}]
        objects = {
            "1.1": {"game": "1.1", "status": "in_progress", "claims": pending},
            "womens/1.1": {
                "game": "1.1",
                "tournament": "womens",
                "status": "in_progress",
                "claims": pending,
            },
        }
        alerts = OpenAlerts()
        alerts.start([], objects, 9, first="open")
        found = {a.body["key"]: a for a in alerts.now()}
        assert set(found) == {"1.1/claim:1", "womens/1.1/claim:1"}
        assert found["1.1/claim:1"].tournament == "open"
        assert found["womens/1.1/claim:1"].tournament == "womens"
        assert found["womens/1.1/claim:1"].body["tournament"] == "womens"


def test_the_paths_of_a_tournament_id_are_quoted() -> None:
    paths = output_paths("women's 2024")
    assert paths["standings"] == "/api/standings?tournament=" + urllib.parse.quote(
        "women's 2024", safe=""
    )
