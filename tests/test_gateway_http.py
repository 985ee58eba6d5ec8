"""The read-only HTTP outputs of a real gateway, with a real HTTP client: JSON queries and the
live PGN a broadcast platform polls (``[%clk]``, ETag and 304, the public delay)."""

from __future__ import annotations

import io
import json
import time
import urllib.error
import urllib.request
from typing import Any

import chess.pgn
import pytest

from adapters.store import Store, queries
from engine.timefmt import format_instant
from tests.gateway_support import COMMENTATOR_TOKEN, RunningGateway, now_at
from tests.helpers import ok, paired_tournament


@pytest.fixture
def live(sqlite_store: Store) -> Store:
    """Games 1.1 and 1.2 started five minutes ago, in whole seconds from then."""
    base = time.time_ns() // 1_000_000 // 1000 * 1000 - 300_000

    def at(seconds: int) -> str:
        return format_instant(base + seconds * 1000)

    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(sqlite_store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
    for seconds, san in ((10, "d4"), (20, "Nf6"), (30, "c4")):
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": san, "at": at(seconds)})
    ok(sqlite_store, {"cmd": "play_move", "game": "1.2", "move": "e4", "at": at(100)})
    return sqlite_store


def get(
    gw: RunningGateway, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(gw.http + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def parse_all(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


class TestLivePgnForBroadcasts:
    def test_a_round_parses_with_python_chess_and_carries_clk_after_every_move(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url, public_delay_s=60) as gw:
            status, headers, body = get(gw, "/pgn/round/1.pgn")
        assert status == 200 and headers["Content-Type"].startswith("application/x-chess-pgn")
        games = parse_all(body.decode())
        assert [g.headers["Board"] for g in games] == ["1", "2"]
        first = games[0]
        assert not first.errors
        assert (first.headers["Round"], first.headers["Result"]) == ("1", "*")
        assert first.headers["White"] == "Aronian, Levon" and first.headers["WhiteElo"] == "2809"
        assert first.headers["TimeControl"] == "40/7200:20/3600:900+30"
        moves = list(first.mainline())
        assert [n.san() for n in moves] == ["d4", "Nf6", "c4"]
        assert [n.clock() for n in moves] == [7190.0, 7190.0, 7180.0]

    def test_one_game_and_the_whole_event(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=60) as gw:
            _, _, one = get(gw, "/pgn/games/1.2.pgn")
            _, _, every = get(gw, "/pgn/all.pgn")
        assert [n.san() for n in parse_all(one.decode())[0].mainline()] == ["e4"]
        assert len(parse_all(every.decode())) == 2

    def test_304_when_the_etag_is_unchanged_and_200_once_a_move_changes_it(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url, public_delay_s=0) as gw:
            status, headers, body = get(gw, "/pgn/games/1.1.pgn")
            etag = headers["ETag"]
            assert status == 200 and headers["Last-Modified"].endswith("GMT")
            assert headers["Cache-Control"] == "public, max-age=1"
            status, again, empty = get(gw, "/pgn/games/1.1.pgn", {"If-None-Match": etag})
            assert (status, empty, again["ETag"]) == (304, b"", etag)
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "e6", "at": now_at(0)})
            deadline = time.monotonic() + 30  # a bound that holds under load
            while (result := get(gw, "/pgn/games/1.1.pgn", {"If-None-Match": etag}))[0] == 304:
                assert time.monotonic() < deadline, "the move never reached the PGN"
                time.sleep(0.05)
            status, changed, body = result
            assert status == 200 and changed["ETag"] != etag
            assert "3... e6" not in body.decode() and "2... e6" in body.decode()

    def test_clock_readings_after_a_move_rebuild_the_pgn_once(self, live: Store) -> None:
        """The first reading after a move is that move's ``[%clk]`` (the clock on the table,
        Laws 2009 6.10 a); the readings after it, a DGT board's every second, change nothing
        the PGN shows and rebuild nothing."""

        def reading(white_ms: int) -> dict[str, Any]:
            return {
                "cmd": "clock_reading",
                "game": "1.2",
                "at": now_at(0),
                "white_ms": white_ms,
                "black_ms": 7_000_000,
                "running": "black",
            }

        with RunningGateway(live.url, public_delay_s=0) as gw:
            ok(live, reading(7_000_000))
            deadline = time.monotonic() + 3
            while "[%clk 1:56:40]" not in get(gw, "/pgn/games/1.2.pgn")[2].decode():
                assert time.monotonic() < deadline, "the reading never reached the PGN"
                time.sleep(0.05)
            _, headers, _ = get(gw, "/pgn/all.pgn")
            ok(live, reading(6_999_000))
            time.sleep(0.3)
            status, again, _ = get(gw, "/pgn/all.pgn", {"If-None-Match": headers["ETag"]})
            assert status == 304 and again["Last-Modified"] == headers["Last-Modified"]

    def test_a_public_pgn_request_never_shows_a_move_before_its_delay(self, live: Store) -> None:
        """Bounds from the move's own instant (taken before it is appended), not from a timer
        started after the append: an answer that shows the move came after ``at + delay``,
        and one does, however late the gateway follows the log."""
        delay = 1.0
        with RunningGateway(live.url, public_delay_s=delay) as gw:
            at_s = time.time()
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "g6", "at": _instant(at_s)})
            patience = time.monotonic() + 60  # the gateway follows the log: it may lag
            while True:
                _, _, body = get(gw, "/pgn/games/1.1.pgn")
                answered = time.time()
                if "g6" in [n.san() for n in parse_all(body.decode())[0].mainline()]:
                    assert answered >= at_s + delay, "shown before its delay"
                    break
                assert time.monotonic() < patience, "never shown"
                time.sleep(0.05)
            # a commentator's token reads the live state at once; the public, after the delay
            at_s = time.time()
            ok(live, {"cmd": "play_move", "game": "1.1", "move": "Nc3", "at": _instant(at_s)})
            url = f"/pgn/games/1.1.pgn?token={COMMENTATOR_TOKEN}"
            headers = _until(lambda: "Nc3" in get(gw, url)[2].decode(), lambda: get(gw, url)[1])
            assert headers["Cache-Control"] == "private, no-cache"
            _, _, public = get(gw, "/pgn/games/1.1.pgn")
            if time.time() < at_s + delay:  # answered before its release
                assert "Nc3" not in public.decode()

    def test_a_bad_token_is_refused_and_an_unknown_round_is_not_found(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=60) as gw:
            status, _, body = get(gw, "/pgn/all.pgn", {"Authorization": "Bearer not-a-token"})
            assert status == 401 and json.loads(body)["error"]["code"] == "invalid_token"
            status, _, body = get(gw, "/pgn/round/15.pgn")
            assert status == 404 and "no round 15" in json.loads(body)["error"]["message"]
            status, _, body = get(gw, "/pgn/games/9.9.pgn")
            assert status == 404
            status, _, body = get(gw, "/api/nothing")
            assert status == 404 and "/pgn/round/{n}.pgn" in json.loads(body)["error"]["message"]


class TestJsonQueries:
    def test_the_query_objects_of_the_contract(self, live: Store) -> None:
        with RunningGateway(live.url, public_delay_s=0) as gw:
            answers: dict[str, Any] = {}
            for path in ("tournament", "standings", "games", "games/1.1", "pairings"):
                status, headers, body = get(gw, f"/api/{path}")
                assert status == 200 and headers["Content-Type"] == "application/json"
                answers[path] = json.loads(body)
        assert answers["tournament"]["players"][0]["number"] == 1
        assert answers["tournament"]["rounds"] == 14
        assert answers["standings"]["rows"][0]["points"] == 0
        assert len(answers["games"]) == 56
        assert answers["games/1.1"]["moves"] == ["d4", "Nf6", "c4"]
        first = answers["pairings"]["rounds"][0]
        assert first["round"] == 1 and [g["board"] for g in first["games"]] == [1, 2, 3, 4]

    def test_pairings_serves_the_contracts_pairings_object_with_the_rounds_games(
        self, live: Store
    ) -> None:
        """One pairings object: ``/api/pairings`` is the contract's (as ``candidates
        pairings``), each round also listing ``games`` with the players' ids."""
        with RunningGateway(live.url, public_delay_s=0) as gw:
            _, _, body = get(gw, "/api/pairings")
        served = json.loads(body)
        contract = queries.pairings_object(live.reads)
        assert {k: v for k, v in served.items() if k != "rounds"} == {
            k: v for k, v in contract.items() if k != "rounds"
        }
        assert [{k: v for k, v in r.items() if k != "games"} for r in served["rounds"]] == (
            contract["rounds"]
        )
        first = served["rounds"][0]
        assert first["games"][0] == {
            "game": "1.1",
            "board": 1,
            "white": first["boards"][0]["white"]["player"],
            "black": first["boards"][0]["black"]["player"],
            "status": "in_progress",
            "result": None,
        }

    def test_the_public_pairings_are_as_late_as_the_public_feed(self, live: Store) -> None:
        ok(live, {"cmd": "resign", "game": "1.2", "by": "black", "at": now_at(-1)})
        with RunningGateway(live.url, public_delay_s=250) as gw:
            _, _, public = get(gw, "/api/pairings")
            _, _, studio = get(gw, f"/api/pairings?token={COMMENTATOR_TOKEN}")
        board = {
            p: json.loads(b)["rounds"][0]["boards"][1]
            for p, b in (("public", public), ("studio", studio))
        }
        assert (board["public"]["status"], board["public"]["result"]) == ("in_progress", None)
        assert (board["studio"]["status"], board["studio"]["result"]) == ("finished", "1-0")

    def test_json_is_delayed_like_the_public_feed_unless_a_token_says_otherwise(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url, public_delay_s=250) as gw:
            _, _, public = get(gw, "/api/games/1.2")
            _, _, studio = get(gw, f"/api/games/1.2?token={COMMENTATOR_TOKEN}")
        # 1.2's only move (200 s ago) is within the 250 s delay; 1.1's are older
        assert json.loads(public)["moves"] == []
        assert json.loads(studio)["moves"] == ["e4"]


def _instant(epoch_s: float) -> str:
    return format_instant(int(epoch_s * 1000))


def _until(condition: Any, then: Any, patience_s: float = 30.0) -> Any:
    """``then()`` once ``condition()`` holds: a wait that ends on the state, not a time."""
    deadline = time.monotonic() + patience_s
    while not condition():
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.02)
    return then()


def raw_request(gw: RunningGateway, lines: list[str]) -> tuple[int, dict[str, str]]:
    """Send a raw HTTP/1.1 request; the status code and the headers of the answer."""
    import socket

    with socket.create_connection(("127.0.0.1", gw.port), timeout=5) as sock:
        sock.sendall(("\r\n".join([*lines, "Connection: close", "", ""])).encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
    return int(head[0].split()[1]), headers


class TestMethodsAndAuthorization:
    def test_rfc_9110_15_5_6_other_methods_get_405_with_allow(self, live: Store) -> None:
        with RunningGateway(live.url) as gw:
            for method in ("DELETE", "TRACE", "FOO", "OPTIONS"):
                status, headers = raw_request(gw, [f"{method} /status HTTP/1.1", "Host: x"])
                assert status == 405, method
                assert headers["Allow"] == "GET, HEAD"
            assert raw_request(gw, ["GET /status HTTP/1.1", "Host: x"])[0] == 200

    def test_rfc_9110_11_6_2_an_authorization_not_accepted_is_401_not_public(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url) as gw:
            for value in ("Basic dXNlcjpwYXNz", "Bearer not-a-token", "Digest x"):
                for path in ("/status", "/api/standings", "/"):
                    status, headers, _ = get(gw, path, {"Authorization": value})
                    assert status == 401, (value, path)
                    assert headers["WWW-Authenticate"].startswith("Bearer")
            status, _, body = get(gw, "/status", {"Authorization": f"Bearer {COMMENTATOR_TOKEN}"})
            assert status == 200 and "delivered_frames" in json.loads(body)

    def test_rfc_9110_13_1_2_if_none_match_star_is_304_for_a_resource_that_exists(
        self, live: Store
    ) -> None:
        with RunningGateway(live.url) as gw:
            status, headers, _ = get(gw, "/pgn/games/1.1.pgn", {"If-None-Match": "*"})
            assert status == 304 and headers["ETag"]
            assert get(gw, "/pgn/games/9.9.pgn", {"If-None-Match": "*"})[0] == 404


def raw_exchange(gw: RunningGateway, request: bytes) -> tuple[int, dict[str, str], str]:
    """Send bytes as they are; the status, headers and body of the answer (read to its end:
    the gateway closes the connection after an error)."""
    import socket

    with socket.create_connection(("127.0.0.1", gw.port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body.decode()


class TestRequestsRefusedBeforeTheRoutes:
    """What the websocket library refuses while reading the request is answered in HTTP's
    words (adapters/gateway/opening.py), with the connection closed after the answer."""

    @pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
    def test_rfc_9110_15_5_6_a_method_with_a_body_gets_405_with_allow(
        self, live: Store, method: str
    ) -> None:
        with RunningGateway(live.url) as gw:
            body = b'{"cmd": "resign", "game": "1.1"}'
            request = (
                f"{method} /status HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode() + body
            status, headers, text = raw_exchange(gw, request)
            assert status == 405 and headers["Allow"] == "GET, HEAD", (status, headers)
            assert text == f"method '{method}' not allowed: only GET, HEAD\n"
            chunked = (
                f"{method} /api/standings HTTP/1.1\r\nHost: x\r\n"
                "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            ).encode()
            status, headers, _ = raw_exchange(gw, chunked)
            assert status == 405 and headers["Allow"] == "GET, HEAD", (status, headers)
            assert raw_request(gw, ["GET /status HTTP/1.1", "Host: x"])[0] == 200

    def test_a_get_with_a_body_gets_400(self, live: Store) -> None:
        with RunningGateway(live.url) as gw:
            request = b"GET /status HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            status, _, text = raw_exchange(gw, request)
            assert (
                status == 400
                and text == "bad request: a GET request to this server carries no body\n"
            )

    def test_rfc_9110_15_5_15_a_65_kb_url_gets_414_in_http_words(self, live: Store) -> None:
        with RunningGateway(live.url) as gw:
            path = "/api/standings?x=" + "a" * 65_000
            status, headers, text = raw_exchange(
                gw, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            )
            assert status == 414 and headers["Connection"] == "close"
            assert text == "URI too long: the request line is longer than 8192 bytes\n"
            assert "websocket" not in text.lower()

    def test_rfc_6585_5_header_fields_too_large_get_431_in_http_words(self, live: Store) -> None:
        with RunningGateway(live.url) as gw:
            long_line = f"GET /status HTTP/1.1\r\nHost: x\r\nX-Long: {'b' * 9000}\r\n\r\n"
            many = "GET /status HTTP/1.1\r\n" + "".join(f"X-{i}: y\r\n" for i in range(200))
            for request in (long_line, many + "\r\n"):
                status, _, text = raw_exchange(gw, request.encode())
                assert status == 431, text
                assert text.startswith("request header fields too large")
                assert "websocket" not in text.lower()

    @pytest.mark.parametrize(
        "request_bytes",
        [
            b"GARBAGE\r\n\r\n",
            b"GET /status HTTP/2.0\r\n\r\n",
            b"GET /status HTTP/1.1\r\nno colon\r\n\r\n",
        ],
    )
    def test_a_request_that_is_not_http_1_1_gets_400(
        self, live: Store, request_bytes: bytes
    ) -> None:
        with RunningGateway(live.url) as gw:
            status, _, text = raw_exchange(gw, request_bytes)
            assert status == 400 and text == "bad request: not an HTTP/1.1 request\n"
