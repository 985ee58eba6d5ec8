"""The real stack: a simulated board on one end of a pseudo-terminal, the adapter on
the other end through pyserial; a TCP bridge; a recording replayed; LiveChess.

The whole of Kramnik - Ivanchuk (round 6, 2013: castling both sides and an en
passant capture) is reconstructed move for move into the store, with its
clock readings, through knocked pieces, transients and a dropped link. The
choreography runs ``SCALE`` times real speed (timers scaled alike).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import chess
import pytest

from adapters.dgt.clocksides import ClockSides
from adapters.dgt.feed import StoreSink, raw_of
from adapters.dgt.link import BoardLink, SerialTransport, TcpTransport
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.recording import parse_recording, write_recording
from adapters.dgt.service import run_sources
from adapters.dgt.session import BoardSession
from adapters.dgt.simulated_links import PtyLink, TcpLink
from adapters.dgt.simulator import BoardSimulator, Noise, load_game
from adapters.host.clock import wall_clock_ms
from adapters.store import Store
from engine.commands import REGISTRY
from engine.events import board_stream
from engine.timefmt import format_instant

PGN = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
SCALE = 0.15


def kramnik_ivanchuk() -> chess.pgn.Game:
    return load_game(PGN, round_="6.3")


def start_game(store: Store, game_id: str = "6.3") -> None:
    # The boards play now: the game starts now (its regulation clock runs from here).
    answer = store.handle(
        {
            "cmd": "start_game",
            "game": game_id,
            "at": format_instant(wall_clock_ms() - 1000),
            "white": "kramnik",
            "black": "ivanchuk",
        }
    )
    assert answer["ok"], answer


def scaled_session(white_side: str | None = None) -> BoardSession:
    return BoardSession(
        reconstructor=MoveReconstructor(
            alert_after_ms=int(2000 * SCALE), confirm_ms=int(3000 * SCALE)
        ),
        clock_sides=ClockSides.of(white_side),
        debounce_ms=int(300 * SCALE),
    )


def script_readings(sim: BoardSimulator) -> set[tuple[int, int]]:
    """(white_ms, black_ms) of every clock reading the simulated clock shows."""
    out = set()
    for step in sim.script():
        if step.kind == "clock":
            white_left = sim.white_side == "left"
            white = step.left_ms if white_left else step.right_ms
            black = step.right_ms if white_left else step.left_ms
            out.add((white // 1000 * 1000, black // 1000 * 1000))
    return out


async def settle(
    done: Callable[[], bool], at_least_s: float = 1.0, at_most_s: float = 180.0
) -> None:
    """Wait for the board's last move to be confirmed (a quiet period that a loaded
    machine stretches): at least ``at_least_s``, then until ``done()`` or ``at_most_s``.
    The ceiling costs nothing when the moves arrive; it is long because ``make test``
    runs this next to other tests on a shared machine, where the store's writes lag."""
    await asyncio.sleep(at_least_s)
    deadline = asyncio.get_running_loop().time() + at_most_s
    while not done() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


def plies_stored(url_or_store: str | Store, plies: int, game_id: str = "6.3") -> Callable[[], bool]:
    """True once the store holds ``plies`` moves of the game."""

    def done() -> bool:
        if isinstance(url_or_store, Store):
            game = url_or_store.reads.game(game_id)
        else:
            with Store(url_or_store) as store:
                game = store.reads.game(game_id)
        return game is not None and game.ply >= plies

    return done


async def play_through(sim: BoardSimulator, link, transport, sink_of, session, done) -> BoardLink:  # type: ignore[no-untyped-def]
    stop = asyncio.Event()
    board = asyncio.create_task(link.play(sim))
    await asyncio.sleep(0.05)
    deliver = sink_of(session)
    adapter = BoardLink(transport, session, deliver, backoff_s=0.05, max_backoff_s=0.2)
    running = asyncio.create_task(adapter.run(stop))
    await asyncio.wait_for(board, timeout=120)
    await settle(done)
    stop.set()
    await asyncio.wait_for(running, timeout=10)
    await link.close()
    return adapter


def over_a_pty(
    tmp_path: Path, sim: BoardSimulator, store: Store, session: BoardSession | None = None
) -> tuple[StoreSink, BoardSession, BoardLink]:
    """``sim`` on a pseudo-terminal, the adapter (``session``, by default
    ``scaled_session()``) on the other end through pyserial, its moves into ``store``
    (game 6.3, started now): the sink, the session, the link."""
    path = tmp_path / "ttyDGT"
    start_game(store)
    session = session or scaled_session()
    sink = StoreSink(store, "6.3", session, label="ttyDGT", keep_log=True)
    adapter = asyncio.run(
        play_through(
            sim,
            PtyLink(path),
            SerialTransport(str(path)),
            lambda s: sink.deliver,
            session,
            plies_stored(store, len(sim.moves)),
        )
    )
    return sink, session, adapter


def check_game(store: Store, sink: StoreSink, sim: BoardSimulator, game: chess.pgn.Game) -> None:
    expected = [m.uci() for m in game.mainline_moves()][: len(sim.moves)]
    stored = store.reads.game("6.3")
    assert stored is not None
    assert list(stored.moves) == expected
    moves = [e for e in store.cache.stream("game/6.3") if e.kind == "MovePlayed"]
    assert {e.by for e in moves} == {"dgt:31337"}
    # Clock readings: White's side inferred (never assumed), every reading mapped right.
    readings = [raw_of(r) for r in sink.readings]
    assert readings, "no clock reading was sent"
    shown = script_readings(sim)
    assert {(c["white_ms"], c["black_ms"]) for c in readings} <= shown
    assert len(readings) >= len(shown) * 0.8
    assert all(c["by"] == "dgt:31337" for c in readings)
    if "clock_reading" in REGISTRY:
        refused = [r for r in sink.refusals if r.command.cmd == "clock_reading"]
        assert not refused, refused[:3]
        recorded = [e for e in store.cache.stream("clock/6.3") if e.kind == "ClockReadingRecorded"]
        assert len(recorded) == len(readings)
        assert {e.by for e in recorded} == {"dgt:31337"}


@pytest.mark.parametrize(("white_side", "plies"), [("left", None), ("right", 24)])
def test_a_whole_game_over_a_pseudo_terminal_through_pyserial(
    tmp_path: Path, white_side: str, plies: int | None
) -> None:
    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(
        game,
        white_side=white_side,
        noise=Noise(knocks=0.15, drop_at_ply=30 if plies is None else 12, drop_ms=300),
        time_scale=SCALE,
        think_ms=300,
        seed=7,
    )
    if plies is not None:
        sim.moves = sim.moves[:plies]
    with Store(str(tmp_path / "store.sqlite")) as store:
        sink, session, adapter = over_a_pty(tmp_path, sim, store)
        check_game(store, sink, sim, game)
        assert session.clock_sides.white_side == white_side
        assert adapter.disconnects >= 1 and adapter.connects >= 2
        kinds = [a.kind for a in store.cache.stream(board_stream("31337"))]
        assert "board_disconnected" in kinds and "board_reconnected" in kinds
        assert "impossible_position" in kinds  # a knocked piece stood too long
        assert session.parser.errors == 0


def test_a_whole_game_over_a_tcp_bridge_with_a_dropped_connection(tmp_path: Path) -> None:
    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(
        game,
        noise=Noise(knocks=0.1, drop_at_ply=41, drop_ms=300),
        time_scale=SCALE,
        think_ms=300,
        rotated=True,
        seed=11,
    )

    async def main() -> tuple[StoreSink, BoardSession]:
        link = TcpLink(port=0)
        board = asyncio.create_task(link.play(sim))
        await link.bound.wait()
        session = scaled_session()
        with Store(str(tmp_path / "store.sqlite")) as store:
            start_game(store)
            sink = StoreSink(store, "6.3", session, label="bridge", keep_log=True)
            stop = asyncio.Event()
            adapter = BoardLink(
                TcpTransport("127.0.0.1", link.port), session, sink.deliver, backoff_s=0.05
            )
            running = asyncio.create_task(adapter.run(stop))
            # The bridge comes back on the same port after the drop.
            while not board.done():
                await asyncio.sleep(0.05)
            await settle(plies_stored(store, len(sim.moves)))
            stop.set()
            await running
            check_game(store, sink, sim, game)
            assert adapter.connects >= 2
        return sink, session

    _, session = asyncio.run(main())
    assert session.reconstructor.rotated is True


def replay_recording(tmp_path: Path, chunks: list[tuple[int, bytes]]) -> tuple[str, int]:
    """``chunks`` (instants from 0) kept as a ``.dgt`` recording starting now, replayed
    through ``run_sources`` as fast as it goes into a store where game 6.3 started:
    the store's URL and the recording's start."""
    start = wall_clock_ms()
    recording = tmp_path / "board.dgt"
    write_recording(recording, [(start + at, d) for at, d in chunks], start)
    assert parse_recording(recording.read_bytes()).records
    url = str(tmp_path / "store.sqlite")
    with Store(url) as store:
        start_game(store)

    async def main() -> None:
        await run_sources([f"file:{recording}=6.3"], url, asyncio.Event(), file_speed=0)

    asyncio.run(main())
    return url, start


def test_a_recording_replayed_through_run_sources(tmp_path: Path) -> None:
    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(game, noise=Noise(knocks=0.1), seed=3)
    url, start = replay_recording(tmp_path, sim.raw_stream())
    with Store(url) as store:
        stored = store.reads.game("6.3")
        assert stored is not None
        assert list(stored.moves) == [m.uci() for m in game.mainline_moves()]
        first = store.cache.stream("game/6.3")[1]
        assert first.at_ms >= start  # the moves keep the recording's instants


def test_livechess_boards_followed_by_serial_number(tmp_path: Path) -> None:
    from adapters.dgt.simulated_links import serve_livechess

    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(game, serial="24680", time_scale=SCALE, think_ms=200, seed=5)
    sim.moves = sim.moves[:20]
    url = str(tmp_path / "store.sqlite")
    with Store(url) as store:
        start_game(store)

    async def main() -> None:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(
            serve_livechess({"24680": sim}, ready=ready, drop_after_ms=1500)
        )
        port = await ready
        stop = asyncio.Event()
        runner = asyncio.create_task(
            run_sources(
                [f"livechess:ws://127.0.0.1:{port}/api/v1.0=24680:6.3"],
                url,
                stop,
                debounce_ms=int(300 * SCALE),
            )
        )
        last = sim.script()[-1].at_ms / 1000
        for _ in range(int(last * 2 / 0.1) + 100):
            await asyncio.sleep(0.1)
            with Store(url) as store:
                g = store.reads.game("6.3")
                if g is not None and len(g.moves) == 20:
                    break
        stop.set()
        await runner
        server.cancel()

    asyncio.run(main())
    with Store(url) as store:
        stored = store.reads.game("6.3")
        assert stored is not None
        assert list(stored.moves) == [m.uci() for m in game.mainline_moves()][:20]
        kinds = [a.kind for a in store.cache.stream(board_stream("24680"))]
        assert "board_disconnected" in kinds and "board_reconnected" in kinds


def test_run_sources_maps_a_board_by_its_serial_number_and_records_it(tmp_path: Path) -> None:
    from adapters.cli.cmd_dgt import reconstruct_lines

    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(game, time_scale=SCALE, think_ms=300, seed=13)
    sim.moves = sim.moves[:16]
    url = str(tmp_path / "store.sqlite")
    with Store(url) as store:
        start_game(store)

    async def main() -> None:
        link = TcpLink(port=0)
        board = asyncio.create_task(link.play(sim))
        await link.bound.wait()
        stop = asyncio.Event()
        runner = asyncio.create_task(
            run_sources(
                [f"tcp://127.0.0.1:{link.port}"],  # no game: the serial number decides
                url,
                stop,
                serial_games={"31337": "6.3"},
                record_dir=tmp_path / "rec",
                debounce_ms=int(300 * SCALE),
            )
        )
        await asyncio.wait_for(board, timeout=60)
        await settle(plies_stored(url, len(sim.moves)))
        stop.set()
        await runner
        await link.close()

    asyncio.run(main())
    expected = [m.uci() for m in sim.moves]
    with Store(url) as store:
        stored = store.reads.game("6.3")
        assert stored is not None and list(stored.moves) == expected
    [recording] = list((tmp_path / "rec").glob("*.dgt"))
    lines = reconstruct_lines(recording.read_bytes(), chess.STARTING_FEN, debounce_ms=45)
    assert lines[-1] == {"moves": expected}
