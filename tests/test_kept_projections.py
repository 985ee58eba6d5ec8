"""Kept projections: the gateway's open alerts and standings and the flag check's games,
kept in the store's own database with the position they hold (``adapters.store.kept``).

A state and its position are written in one transaction; a save whose position does not
advance is refused and changes nothing (two gateways of one store may both try); a
restart reads only the events after the position; and across a real crash (``candidates
serve`` killed with SIGKILL while events stream in) every event is folded exactly once:
the counters kept with the state equal the number of events in the log up to its
position, and the open alerts and standings equal those computed from the whole log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from psycopg.sql import SQL, Identifier

from adapters.gateway.follower import Follower, Resumed
from adapters.gateway.kept_state import FORMAT, NAME, GatewayState
from adapters.gateway.server import Gateway
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from adapters.store.kept import (
    KEPT_TABLE,
    KeptProjection,
    PostgresKeptRecorder,
    SQLiteKeptRecorder,
    kept_recorder,
)
from adapters.watch.flags import FlagWatch
from engine.timefmt import format_instant
from tests.cli import candidates
from tests.conftest import PG_URL, _pg_schema_url
from tests.gateway_support import ARBITER_TOKEN, TOKENS, RunningGateway
from tests.helpers import at, ok, paired_tournament, play
from tests.reliability_support import MOVES

GAMES = ("1.1", "1.2", "1.3", "1.4")
DEADLINE_S = 60.0


# --- helpers --------------------------------------------------------------------


def wait_for(condition: Callable[[], Any], what: str, timeout: float = DEADLINE_S) -> Any:
    """Poll ``condition`` until it is truthy (a deadline, not a timed assertion)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def kept_gateway(url: str) -> GatewayState | None:
    with Store(url) as store:
        loaded = KeptProjection(store, NAME, FORMAT).load()
    return None if loaded is None else GatewayState.from_state(*loaded)


def kept_positions(url: str) -> dict[str, int]:
    with Store(url) as store:
        return {r.name: r.position for r in kept_recorder(store).records()}


def log_counts(url: str, upto: int) -> tuple[int, int]:
    """(events, AlertRaised events) in the log up to ``upto``."""
    events = alerts = 0
    with Store(url) as store:
        for notification in store.cache.notifications():
            if notification.id > upto:
                break
            events += 1
            alerts += notification.topic.endswith(":AlertRaised")
    return events, alerts


def from_scratch(url: str) -> tuple[int, dict[str, dict[str, Any]], dict[str, Any]]:
    """What a gateway keeping nothing computes from the whole log at start: (position,
    open alerts by key, standings by tournament)."""

    async def read() -> tuple[int, dict[str, dict[str, Any]], dict[str, Any]]:
        gateway = Gateway(url, public_delay_s=0, keep=False)
        try:
            await gateway.open()
            follower = gateway.reading.follower
            assert follower is not None
            alerts = {key: frame.body for key, frame in gateway.alerts.frames.items()}
            return follower.seq, alerts, dict(follower.standings)
        finally:
            await gateway.close()

    return asyncio.run(read())


def assert_kept_gateway_is_the_whole_log(url: str) -> GatewayState:
    """The kept state's counters count every event of the log up to its position once,
    and its alerts and standings are those computed from scratch at that position."""
    kept = kept_gateway(url)
    assert kept is not None, "no kept state"
    events, alerts = log_counts(url, kept.position)
    assert (kept.events, kept.alerts_raised) == (events, alerts), "an event folded twice or never"
    position, scratch_alerts, scratch_standings = from_scratch(url)
    assert position == kept.position, "the log moved on after the kept state was saved"
    assert {a.body["key"]: a.body for a in kept.alerts} == scratch_alerts
    assert kept.standings == scratch_standings
    return kept


def status(gateway_http: str) -> dict[str, Any]:
    url = f"{gateway_http}/status?token={ARBITER_TOKEN}"
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)  # type: ignore[no-any-return]


def now_at() -> str:
    return format_instant(wall_clock_ms())


def live_event(store: Store) -> None:
    """The 2013 field, round 1 under way: four games started a minute ago."""
    paired_tournament(store)
    started = format_instant(wall_clock_ms() - 60_000)
    for game in GAMES:
        ok(store, {"cmd": "start_game", "game": game, "at": started})


class Writer(threading.Thread):
    """Another process's writes, live: moves, clock readings (far off: alerts), a board
    alert, draw claims (one ruled, one left pending), two resignations (the standings
    change, their games' alerts close), then clock readings until stopped."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.step = 0
        self.error: BaseException | None = None

    def commands(self, step: int, game: str) -> list[dict[str, Any]]:
        ply = step + 1
        now = now_at()
        out: list[dict[str, Any]] = []
        if ply <= len(MOVES):
            out.append({"cmd": "play_move", "game": game, "move": MOVES[ply - 1], "at": now})
        far_off = 1_000 if ply % 3 == 0 else 7_140_000
        out.append(
            {
                "cmd": "clock_reading",
                "game": game,
                "at": now,
                "white_ms": far_off,
                "black_ms": 7_140_000,
                "running": "white" if ply % 2 == 0 else "black",
            }
        )
        if ply == 6:
            out.append(
                {
                    "cmd": "raise_alert",
                    "board": f"board-{game}",
                    "kind": "board_disconnected",
                    "message": f"the board of game {game} stopped answering",
                    "game": game,
                    "at": now,
                }
            )
        if ply == 10 and game in ("1.3", "1.4"):
            out.append(
                {"cmd": "claim_draw", "game": game, "by": "white", "kind": "fifty_moves", "at": now}
            )
        if ply == 21 and game in ("1.1", "1.2"):
            out.append({"cmd": "resign", "game": game, "by": "black", "at": now})
        return out

    def run(self) -> None:
        try:
            with Store(self.url) as store:
                while not self.stop.is_set():
                    for game in GAMES:
                        for command in self.commands(self.step, game):
                            answer = store.handle(command)
                            claim = [e for e in answer.get("events", []) if "claim" in e]
                            if game == "1.3" and command["cmd"] == "claim_draw" and claim:
                                store.handle(
                                    {
                                        "cmd": "rule_claim",
                                        "game": game,
                                        "claim": claim[0]["claim"],
                                        "decision": "rejected",
                                        "arbiter": "chief",
                                        "at": now_at(),
                                    }
                                )
                    self.step += 1
                    time.sleep(0.03)
        except BaseException as exc:  # reported to the test
            self.error = exc


class Serve:
    """``candidates serve`` in its own process, on a free port, with the arbiters' tokens."""

    def __init__(self, url: str, tokens: Path, flag_check_s: float = 0.5) -> None:
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "adapters.cli", "--store", url, "serve"),
                *("--port", "0", "--public-delay-s", "0", "--tokens", str(tokens)),
                *("--flag-check", str(flag_check_s)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.search(r":(\d+)/ \(websocket", line)
        assert match, line + (self.proc.stderr.read() if self.proc.stderr else "")
        self.http = f"http://127.0.0.1:{match.group(1)}"

    def status(self) -> dict[str, Any]:
        return status(self.http)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(10) == -signal.SIGKILL

    def stop(self) -> str:
        """SIGTERM, a clean stop; its stderr."""
        if self.proc.poll() is None:
            self.proc.terminate()
            assert self.proc.wait(15) == 0
        return self.proc.stderr.read() if self.proc.stderr else ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def tokens_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps(TOKENS), encoding="utf-8")
    return path


@pytest.fixture
def pg_url() -> Iterator[str]:
    if not PG_URL:
        pytest.skip("CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped")
    yield from _pg_schema_url(PG_URL)


# --- the recorder: state and position in one transaction ---------------------------


class TestTheRecorder:
    def test_state_and_position_are_committed_together(self, store: Store) -> None:
        recorder = kept_recorder(store)
        assert isinstance(recorder, SQLiteKeptRecorder | PostgresKeptRecorder)
        assert recorder.load("view") is None
        assert recorder.save("view", 5, b"five")
        found = recorder.load("view")
        assert found is not None and (found.position, found.state) == (5, b"five")
        # the state's write fails after the tracking record's: neither is kept
        if isinstance(recorder, SQLiteKeptRecorder):
            recorder.upsert_state = "INSERT INTO no_such_table VALUES (?, ?)"
        else:
            recorder.upsert_state = SQL("INSERT INTO {0}.no_such_table VALUES (%s, %s)").format(
                Identifier(recorder.datastore.schema)
            )
        with pytest.raises(Exception, match="no_such_table"):
            recorder.save("view", 9, b"nine")
        assert recorder.max_tracking_id("view") == 5
        fresh = kept_recorder(store)
        again = fresh.load("view")
        assert again is not None and (again.position, again.state) == (5, b"five")

    def test_a_save_that_does_not_advance_is_refused_and_changes_nothing(
        self, store: Store
    ) -> None:
        recorder = kept_recorder(store)
        assert recorder.save("view", 7, b"seven")
        assert not recorder.save("view", 7, b"other seven")
        assert not recorder.save("view", 3, b"three")
        found = recorder.load("view")
        assert found is not None and (found.position, found.state) == (7, b"seven")
        assert recorder.save("view", 8, b"eight")
        assert [(r.name, r.position) for r in recorder.records()] == [("view", 8)]
        assert recorder.drop("view") and recorder.load("view") is None
        assert recorder.save("view", 1, b"one")  # a dropped projection starts again

    def test_the_tables_live_in_the_stores_own_database(self, store: Store) -> None:
        kept_recorder(store).save("view", 1, b"x")
        if store.is_postgres:
            with store.app.recorder.datastore.get_connection() as conn:
                schema = store.app.recorder.datastore.schema
                row = conn.execute(
                    "SELECT to_regclass(%s) IS NOT NULL AS there", (f"{schema}.{KEPT_TABLE}",)
                ).fetchone()
                assert row is not None and row["there"]
        else:
            import sqlite3

            with sqlite3.connect(store.url) as conn:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            assert {"tracking", KEPT_TABLE, "stored_events"} <= tables

    def test_two_processes_saving_one_store_win_each_position_once(self, store_url: str) -> None:
        """Two writers of one store (PostgreSQL: two gateways) save the same positions,
        each in increasing order: each position is won by at most one of them, and the
        store ends at the last position with the state saved there."""
        stores = [Store(store_url), Store(store_url)]
        try:
            recorders = [kept_recorder(s) for s in stores]
            wins: list[list[int]] = [[], []]
            start = threading.Barrier(2)

            def saving(n: int) -> None:
                start.wait()
                for position in range(1, 121):
                    if recorders[n].save("gateway", position, str(position).encode()):
                        wins[n].append(position)

            threads = [threading.Thread(target=saving, args=(n,)) for n in (0, 1)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            assert not set(wins[0]) & set(wins[1]), "a position saved twice"
            assert max(wins[0] + wins[1]) == 120
            found = recorders[0].load("gateway")
            assert found is not None and (found.position, found.state) == (120, b"120")
        finally:
            for s in stores:
                s.close()


class TestUnusableStates:
    def test_a_state_of_another_format_or_program_is_ignored_dropped_and_rebuilt(
        self, sqlite_store: Store, caplog: pytest.LogCaptureFixture
    ) -> None:
        paired_tournament(sqlite_store)
        old = msgpack.packb({"format": "gateway/0/an-older-program", "state": {}})
        kept_recorder(sqlite_store).save(NAME, sqlite_store.last_seq(), old)
        with caplog.at_level(logging.WARNING):
            assert KeptProjection(sqlite_store, NAME, FORMAT).load() is None
        assert "another format or program" in caplog.text
        assert kept_recorder(sqlite_store).load(NAME) is None  # dropped: the next save lands

    @pytest.mark.parametrize(
        "garbage",
        [b"\xc1\xc1 not msgpack", msgpack.packb([1, 2, 3]), msgpack.packb({"state": "x"})],
    )
    def test_a_corrupt_state_makes_the_gateway_fold_the_whole_log(
        self, sqlite_store: Store, garbage: bytes, caplog: pytest.LogCaptureFixture
    ) -> None:
        paired_tournament(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        kept_recorder(sqlite_store).save(NAME, sqlite_store.last_seq(), garbage)
        with caplog.at_level(logging.WARNING), RunningGateway(sqlite_store.url) as gw:
            shown = status(gw.http)["kept"]
        assert (shown["resumed_from"], shown["folded_at_start"]) == (0, sqlite_store.last_seq())
        assert "kept state 'gateway'" in caplog.text
        assert_kept_gateway_is_the_whole_log(sqlite_store.url)

    def test_a_state_of_the_right_format_but_wrong_layout_is_rebuilt(
        self, sqlite_store: Store, caplog: pytest.LogCaptureFixture
    ) -> None:
        paired_tournament(sqlite_store)
        KeptProjection(sqlite_store, NAME, FORMAT).save(sqlite_store.last_seq(), {"games": 7})
        with caplog.at_level(logging.WARNING), RunningGateway(sqlite_store.url) as gw:
            assert status(gw.http)["kept"]["resumed_from"] == 0
        assert "not of its layout" in caplog.text
        assert_kept_gateway_is_the_whole_log(sqlite_store.url)

    def test_a_state_ahead_of_the_log_is_not_used(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        KeptProjection(sqlite_store, NAME, FORMAT).save(sqlite_store.last_seq() + 50, {})
        assert KeptProjection(sqlite_store, NAME, FORMAT).load() is None


# --- resuming from the kept position --------------------------------------------------


class TestTheFollowerResumes:
    def test_a_follower_resumed_at_p_reads_only_the_events_after_p(self, store: Store) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(store, "1.1", "e4 e5 Nf3")
        first = Follower(store)
        at_p = first.start()
        assert at_p.folded == log_counts(store.url, at_p.seq)[0]  # nothing kept: the whole log
        resumed = Resumed(at_p.seq, dict(first.game_ids), dict(first.standings))
        ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        play(store, "1.2", "d4 d5", start_s=100)
        ok(store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(200)})
        again = Follower(Store(store.url)).start(resumed)
        scratch = Follower(Store(store.url)).start()
        assert again.folded == 4  # a game started, two moves, a resignation
        assert again.seq == scratch.seq
        assert again.games == scratch.games and again.standings == scratch.standings

    def test_standings_of_a_tournament_untouched_after_p_are_taken_as_kept(
        self, store: Store
    ) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        first = Follower(store)
        at_p = first.start()
        marked = {tid: {"kept": True} for tid in first.standings}
        play(store, "1.1", "e4 e5")  # moves cannot change the standings
        again = Follower(Store(store.url)).start(Resumed(at_p.seq, first.game_ids, marked))
        assert again.standings == marked
        ok(store, {"cmd": "resign", "game": "1.1", "by": "white", "at": at(100)})
        third = Follower(Store(store.url)).start(Resumed(at_p.seq, first.game_ids, marked))
        assert third.standings == Follower(Store(store.url)).start().standings


class TestTheGatewayKeeps:
    def test_a_store_with_no_kept_state_is_folded_from_the_start_and_saved(
        self, store: Store
    ) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        ok(store, {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "fifty_moves",
                   "at": at(5)})  # fmt: skip
        assert kept_gateway(store.url) is None
        with RunningGateway(store.url) as gw:
            shown = status(gw.http)["kept"]
            everything = log_counts(store.url, store.last_seq())[0]
            assert (shown["resumed_from"], shown["folded_at_start"]) == (0, everything)
            wait_for(lambda: status(gw.http)["kept"]["seq"] == store.last_seq(), "the first save")
        kept = assert_kept_gateway_is_the_whole_log(store.url)
        assert [a.body["kind"] for a in kept.alerts] == ["claim_pending"]

    def test_a_restart_folds_only_the_events_after_the_kept_position(self, store: Store) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(store, "1.1", "e4 e5")
        with RunningGateway(store.url):
            pass  # a clean stop keeps the state
        kept = kept_gateway(store.url)
        assert kept is not None and kept.position == store.last_seq()
        ok(store, {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "fifty_moves",
                   "at": at(30)})  # fmt: skip
        ok(store, {"cmd": "raise_alert", "board": "b1", "kind": "board_disconnected",
                   "message": "no answer", "game": "1.1", "at": at(31)})  # fmt: skip
        ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        ok(store, {"cmd": "resign", "game": "1.2", "by": "white", "at": at(40)})
        after = store.last_seq() - kept.position
        with RunningGateway(store.url) as gw:
            shown = status(gw.http)["kept"]
            assert (shown["resumed_from"], shown["folded_at_start"]) == (kept.position, after)
        again = assert_kept_gateway_is_the_whole_log(store.url)
        assert again.events == kept.events + after
        assert sorted(a.body["kind"] for a in again.alerts) == [
            "board_disconnected",
            "claim_pending",
        ]

    def test_two_gateways_of_one_postgresql_store_both_save(self, pg_url: str) -> None:
        with Store(pg_url) as store:
            live_event(store)
        writer = Writer(pg_url)
        with RunningGateway(pg_url) as one, RunningGateway(pg_url) as two:
            writer.start()
            wait_for(lambda: writer.step >= 25, "the writer's events")
            writer.stop.set()
            writer.join(30)
            assert writer.error is None, writer.error
            with Store(pg_url) as store:
                last = store.last_seq()

            def both_tried_the_last_position() -> bool:
                a, b = status(one.http)["kept"], status(two.http)["kept"]
                return (
                    kept_positions(pg_url).get(NAME) == last
                    and a["saves"] >= 1
                    and b["saves"] >= 1
                    and a["refused"] + b["refused"] >= 1  # the last position: one of two won
                )

            wait_for(both_tried_the_last_position, "both gateways saving")
        assert_kept_gateway_is_the_whole_log(pg_url)


class TestTheFlagCheckKeeps:
    def test_the_flag_check_resumes_from_its_kept_position(self, store: Store) -> None:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        watch = FlagWatch(store)
        watch.fold()
        assert watch.resumed_from == 0 and watch.folded == log_counts(store.url, watch.seq)[0]
        assert watch.save(force=True)
        position = store.last_seq()
        ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        ok(store, {"cmd": "start_game", "tournament": "london-2013", "game": "1.3", "at": at(0)})
        again = FlagWatch(Store(store.url))
        again.fold()
        assert (again.resumed_from, again.folded) == (position, 2)
        scratch = FlagWatch(Store(store.url), keep=False)
        scratch.fold()
        assert again.game_ids == scratch.game_ids == {(None, "1.1"), (None, "1.2"), (None, "1.3")}
        assert again.events == scratch.events == log_counts(store.url, again.seq)[0]
        assert not FlagWatch(Store(store.url)).save(force=True)  # nothing new folded


class TestTheResetCommand:
    def test_candidates_kept_lists_and_drops_the_kept_projections(self, store_url: str) -> None:
        with Store(store_url) as store:
            paired_tournament(store)
            ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        with RunningGateway(store_url):
            pass
        with Store(store_url) as store:
            watch = FlagWatch(store)
            watch.fold()
            watch.save(force=True)
            ok(store, {"cmd": "start_game", "game": "1.2", "at": at(0)})
            last = store.last_seq()
        shown = candidates("kept", "--format", "json", store=store_url)
        assert shown.returncode == 0, shown.stderr
        listed = json.loads(shown.stdout)
        assert listed["log_position"] == last
        rows = {row["name"]: row for row in listed["kept"]}
        assert set(rows) == {NAME, "flag-watch"}
        assert rows[NAME]["behind"] == 1 and rows[NAME]["this_program"] is True
        table = candidates("kept", store=store_url).stdout
        assert "gateway: at " in table and "1 events behind" in table
        dropped = candidates("kept", "--drop", store=store_url)
        assert dropped.returncode == 0 and "Dropped 2" in dropped.stdout
        assert (
            json.loads(candidates("kept", "--format", "json", store=store_url).stdout)["kept"] == []
        )
        with RunningGateway(store_url) as gw:  # rebuilt from the whole log
            assert status(gw.http)["kept"]["folded_at_start"] == log_counts(store_url, last)[0]
        assert_kept_gateway_is_the_whole_log(store_url)


# --- exactly once across a real crash ---------------------------------------------------


def test_exactly_once_across_a_sigkill_of_candidates_serve(
    store_url: str, tokens_file: Path
) -> None:
    """``candidates serve`` is killed with SIGKILL while another process writes; it is
    restarted, resumes from the position kept before the crash, and when the writes
    stop its kept state counts every event of the log once, with the open alerts and
    standings the whole log gives."""
    with Store(store_url) as store:
        live_event(store)
        initial = store.last_seq()
    writer = Writer(store_url)
    server = Serve(store_url, tokens_file)
    try:
        writer.start()
        wait_for(
            lambda: (
                min(kept_positions(store_url).get(n, 0) for n in (NAME, "flag-watch"))
                > initial + 40
            ),
            "kept states saved while the events stream in",
        )
        # killed while it holds events folded since its last save
        wait_for(lambda: server.status()["seq"] > kept_positions(store_url)[NAME], "unsaved events")
        server.kill()
        crashed_at = kept_positions(store_url)
        with Store(store_url) as store:
            at_kill = store.last_seq()
            wait_for(lambda: store.last_seq() > at_kill + 30, "events while no gateway runs")
        server = Serve(store_url, tokens_file)
        shown = server.status()["kept"]
        assert shown["resumed_from"] == crashed_at[NAME] > initial
        assert shown["folded_at_start"] > 0
        with Store(store_url) as store:
            restarted = store.last_seq()
            wait_for(lambda: store.last_seq() > restarted + 30, "events after the restart")
        writer.stop.set()
        writer.join(30)
        assert writer.error is None, writer.error
        assert writer.step > 21, "the writer did not get to the resignations"
        with Store(store_url) as store:
            last = store.last_seq()
        wait_for(
            lambda: kept_positions(store_url) == {NAME: last, "flag-watch": last},
            "the kept states at the end of the log",
        )
        errors = server.stop()
        assert "Traceback" not in errors, errors
    finally:
        writer.stop.set()
        server.close()
    kept = assert_kept_gateway_is_the_whole_log(store_url)
    kinds = {a.body["kind"] for a in kept.alerts}
    assert {"claim_pending", "clock_mismatch", "board_disconnected"} <= kinds
    (standings,) = kept.standings.values()
    assert sum(row["games"] for row in standings["rows"]) == 4  # the two resignations
    with Store(store_url) as store:
        watch = FlagWatch(store, keep=False)
        watch.fold()
        flagged = KeptProjection(store, "flag-watch", 1).load()
    assert flagged is not None
    position, state = flagged
    assert position == watch.seq
    assert state["events"] == watch.events == log_counts(store_url, position)[0]
    assert {tuple(g) for g in state["games"]} == watch.game_ids
