"""``candidates replay``: the state at an instant, replayed, is the state that was live then."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli import main
from adapters.formats.replay import Pace, replay, round_end_ms, schedule, state_at, until
from adapters.formats.replay_log import export_log, read_log
from adapters.store import Store
from engine.errors import MalformedCommand
from engine.timefmt import parse_instant
from tests.helpers import at, ok, paired_tournament, play


def live_event(store: Store) -> dict[str, dict]:
    """Play two rounds' worth of moves; record the live state at two instants."""
    snapshots: dict[str, dict] = {}
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "start_game", "game": "1.2", "at": at(1)})
    play(store, "1.1", "e4 e5 Nf3", start_s=10, step_s=30)
    play(store, "1.2", "d4 Nf6", start_s=20, step_s=30)
    snapshots[at(75)] = state_at(store, parse_instant(at(75)))
    play(store, "1.1", "Nc6 Bb5", start_s=100, step_s=30)
    ok(store, {"cmd": "resign", "game": "1.2", "by": "white", "at": at(200)})
    snapshots[at(200)] = state_at(store, parse_instant(at(200)))
    ok(store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(300)})
    ok(store, {"cmd": "start_game", "game": "2.1", "at": at(86400)})
    play(store, "2.1", "c4 c5", start_s=86410)
    return snapshots


@pytest.fixture
def recorded(store: Store, tmp_path: Path):
    snapshots = live_event(store)
    path = tmp_path / "event.msgpack"
    export_log(store, path)
    return path, snapshots


class TestStateAtAnInstant:
    def test_replay_to_an_instant_matches_the_live_state_then(self, recorded, tmp_path) -> None:
        path, snapshots = recorded
        log = read_log(path)
        for index, (instant, live) in enumerate(snapshots.items()):
            at_ms = parse_instant(instant)
            with Store(str(tmp_path / f"replay{index}.sqlite")) as copy:
                replay(copy, until(log.records, at_ms), Pace(None))
                assert state_at(copy, at_ms) == live

    def test_round_n_is_the_end_of_its_last_game(self, recorded) -> None:
        path, _ = recorded
        log = read_log(path)
        assert round_end_ms(log.records, 1) == parse_instant(at(300))
        with pytest.raises(MalformedCommand, match="no game of round 9"):
            round_end_ms(log.records, 9)

    def test_cli_until_prints_the_boards(self, recorded, capsys) -> None:
        path, _ = recorded
        assert main(["replay", str(path), "--until", at(75)]) == 0
        out = capsys.readouterr().out
        assert "1.1" in out and "Nf3" in out and "2.1" not in out
        assert main(["replay", str(path), "--round", "1", "--format", "json"]) == 0
        assert '"result": "0-1"' in capsys.readouterr().out


class TestPace:
    def test_waits_follow_the_recorded_instants_divided_by_the_speed(self, recorded) -> None:
        path, _ = recorded
        log = read_log(path)
        waits = [w for w, _ in schedule(log.records, Pace(speed=10.0, max_gap_ms=3_600_000))]
        # 30 s of moves at speed 10 are 3 s; the night before round 2 is cut to 1 s
        assert 3.0 in [round(w, 3) for w in waits]
        assert max(waits) <= 10.0
        assert sum(1 for w in waits if w == 1.0) >= 1

    def test_a_paced_replay_sleeps_the_timetable(self, recorded, tmp_path) -> None:
        path, _ = recorded
        log = read_log(path)
        slept: list[float] = []
        now = [0.0]

        def sleep(seconds: float) -> None:
            slept.append(seconds)
            now[0] += seconds

        with Store(str(tmp_path / "paced.sqlite")) as copy:
            count = replay(copy, log.records, Pace(speed=100.0), sleep=sleep, clock=lambda: now[0])
            assert count == len(log.records)
        assert (
            slept and abs(sum(slept) - sum(w for w, _ in schedule(log.records, Pace(100.0)))) < 1e-6
        )


class TestServe:
    def test_serve_shows_the_replay_on_the_gateway_as_if_live(self, tmp_path) -> None:
        """A browser's websocket gets the snapshot, then the replayed moves as deltas."""
        import threading
        import types

        from adapters.cli.cmd_replay import serve_replay
        from tests.gateway_support import Peer
        from tools.sample import SAMPLE_LOG

        log = read_log(SAMPLE_LOG)
        records = list(until(log.records, round_end_ms(log.records, 1)))
        announced: list[str] = []
        ready = threading.Event()

        def announce(text: str) -> None:
            announced.append(text)
            ready.set()

        with Store(str(tmp_path / "served.sqlite")) as store:
            worker = threading.Thread(
                target=serve_replay,
                args=(store, records, Pace(speed=4000.0, gap_s=0.1), "127.0.0.1", 0),
                kwargs={"keep_serving": False, "announce": announce},
                daemon=True,
            )
            worker.start()
            assert ready.wait(20), "the gateway did not start"
            port = int(announced[0].rsplit(":", 1)[1].strip("/"))
            peer = Peer(types.SimpleNamespace(url=f"ws://127.0.0.1:{port}/ws"))
            peer.subscribe()
            snapshot = peer.next("snapshot", timeout=10)
            assert "games" in snapshot
            delta = peer.next(lambda f: f.get("op") == "delta", timeout=10)
            assert delta["seq"] > snapshot["seq"]
            worker.join(60)
            assert not worker.is_alive()
        assert announced[0].startswith("Serving the replay on http://127.0.0.1:")
