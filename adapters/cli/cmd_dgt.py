"""``candidates dgt ...``: DGT boards, for the arbiters' technicians.

``decode`` (bytes to messages), ``moves`` (bytes to reconstructed moves), ``simulate``
(a board playing a game), ``record`` (every byte of a live board) and ``run`` (boards
feeding the store, or a group of the hall's configuration). The options are in
docs/dgt.md, section 10."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import chess

from adapters.cli.common import (
    add_public_delay_option,
    add_store_option,
    print_json,
    readable_file,
    require_existing_store,
)
from adapters.cli.hall_config import setting
from adapters.dgt import protocol as p
from adapters.dgt.observations import Line
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.recording import is_recording, parse_recording
from adapters.dgt.session import BoardSession
from adapters.host import public_delay
from engine.errors import MalformedCommand
from engine.timefmt import format_instant

if TYPE_CHECKING:
    from adapters.dgt.service import CorrectionPolicy


def register(sub: Any) -> None:
    dgt = sub.add_parser(
        "dgt", help="DGT electronic boards: decode, reconstruct, simulate, record, run"
    )
    cmds = dgt.add_subparsers(dest="dgt_command", metavar="DGT_COMMAND", required=True)

    decode = cmds.add_parser("decode", help="decode raw board bytes to one JSON line per message")
    decode.add_argument("file", help="raw bytes or a .dgt recording; - for standard input")
    decode.set_defaults(func=run_decode)

    moves = cmds.add_parser("moves", help="reconstruct moves from raw bytes or a recording")
    moves.add_argument("file", help="raw bytes or a .dgt recording; - for standard input")
    moves.add_argument("--start", default=chess.STARTING_FEN, help="FEN of the game's position")
    moves.add_argument("--orientation", choices=("auto", "normal", "rotated"), default="auto")
    moves.add_argument("--debounce-ms", type=int, default=300, help="recordings: settle time")
    moves.add_argument(
        "--alert-after-ms", type=int, default=2000, help="recordings: how long before an alert"
    )
    moves.add_argument("--clocks", action="store_true", help="also print clock readings")
    moves.set_defaults(func=run_moves)

    sim = cmds.add_parser("simulate", help="a simulated board playing a PGN game")
    sim.add_argument("--pgn", required=True, help="a PGN file")
    which = sim.add_mutually_exclusive_group()
    which.add_argument("--round", help="the game whose Round tag is this (e.g. 6.3)")
    which.add_argument("--index", type=int, default=0, help="the game's index in the file")
    sim.add_argument("--serial", default="31337")
    sim.add_argument("--white-side", choices=("left", "right"), default="right")
    sim.add_argument("--rotated", action="store_true", help="White sits on the far side")
    sim.add_argument("--knocks", type=float, default=0.0, help="probability of a knock per ply")
    sim.add_argument("--no-transients", action="store_true")
    sim.add_argument("--drop-at-ply", type=int, default=None)
    sim.add_argument("--result-signal", action="store_true", help="kings to the centre at the end")
    sim.add_argument(
        "--misread-at-ply",
        type=int,
        default=None,
        help="from this ply, hold the first pawn double push or slide on its way long enough "
        "to be confirmed",
    )
    sim.add_argument(
        "--clock-every-ms", type=int, default=None, help="a clock that speaks only this often"
    )
    sim.add_argument("--seed", type=int, default=2013)
    sim.add_argument("--time-scale", type=float, default=1.0, help="0.1 = ten times faster")
    sim.add_argument(
        "--real-time", action="store_true", help="think as long as the clock says (hours a game)"
    )
    sim.add_argument(
        "--stay-on",
        action="store_true",
        help="--pty/--tcp: after the last move keep answering until interrupted, as a board "
        "left on does (a host that reconnects reads the final position)",
    )
    out = sim.add_mutually_exclusive_group(required=True)
    out.add_argument("--out", help="write a .dgt recording")
    out.add_argument("--raw", help="write raw bytes (- for standard output)")
    out.add_argument("--pty", help="serve on a pseudo-terminal; this path becomes its symlink")
    out.add_argument("--tcp", type=int, help="serve on this TCP port (127.0.0.1)")
    out.add_argument("--livechess", type=int, help="serve a LiveChess-like websocket on this port")
    sim.set_defaults(func=run_simulate)

    rec = cmds.add_parser("record", help="record every byte of a live board to a .dgt file")
    rec.add_argument("--dgt", required=True, help="/dev/ttyUSB0 or tcp://HOST:PORT")
    rec.add_argument("--out", required=True, help="the .dgt file to write")
    rec.add_argument("--seconds", type=float, default=None, help="stop after this long")
    rec.set_defaults(func=run_record)

    run = cmds.add_parser("run", help="boards feeding the store (until interrupted)")
    run.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="NAME",
        help="the boards of this group of the configuration's [dgt.groups] (repeatable)",
    )
    run.add_argument("--dgt", action="append", default=[], help="PORT[=GAME[@left|@right]]")
    run.add_argument("--dgt-file", action="append", default=[], help="FILE.dgt=GAME (replayed)")
    run.add_argument(
        "--livechess", action="append", default=[], help="ws://HOST:PORT/api/v1.0=SERIAL:GAME,..."
    )
    run.add_argument("--serial-game", action="append", default=[], help="SERIAL=GAME mapping")
    run.add_argument(
        "--record-dir",
        default=None,
        help="keep a .dgt recording of each session, and each board's outbox (what it read "
        "that the store does not hold yet), there (default: dgt.record_dir)",
    )
    run.add_argument(
        "--debounce-ms", type=int, default=None, help="default: dgt.debounce_ms, else 300"
    )
    run.add_argument("--speed", type=float, default=1.0, help="replay speed of --dgt-file (0: max)")
    run.add_argument(
        "--auto-correct-arbiter",
        default=None,
        help="apply the boards' corrections of their own misreads at once in this arbiter's "
        "name while the public has not seen the plies (default: dgt.auto_correct_arbiter, "
        "else propose them only)",
    )
    add_public_delay_option(
        run,
        "how late the public sees the moves (the gateway's delay), for the policy "
        "(default: the configuration's public_delay_s)",
    )
    run.set_defaults(public_delay_s=None)  # unless given: the configuration's, else 900
    add_store_option(run)
    run.set_defaults(func=run_run)


def _read(path: str) -> bytes:
    """The bytes of a DGT input; MalformedCommand for a recording whose header is wrong
    or input that holds no DGT message at all (garbage, a text file)."""
    data = sys.stdin.buffer.read() if path == "-" else readable_file(path).read_bytes()
    if is_recording(data):
        try:
            parse_recording(data)
        except ValueError as exc:
            raise MalformedCommand(f"{path}: {exc}") from None
        return data
    parser = p.DgtParser()
    parser.receive_data(data)
    messages = [*parser.events_received(), *parser.flush()]
    if data and not any(not isinstance(m, p.ProtocolError) for m in messages):
        raise MalformedCommand(
            f"{path}: no DGT message in its {len(data)} bytes: not a board's byte stream "
            "nor a .dgt recording"
        )
    return data


def run_decode(args: argparse.Namespace) -> int:
    data = _read(args.file)
    parser = p.DgtParser()
    if is_recording(data):
        recording = parse_recording(data)
        for record in recording.records:
            if record.kind != 1:
                continue
            parser.receive_data(record.data)
            for message in parser.events_received():
                print_json({**p.describe(message), "at": format_instant(record.at_ms)})
        for message in parser.flush():
            print_json(p.describe(message))
        return 0
    parser.receive_data(data)
    for message in [*parser.events_received(), *parser.flush()]:
        print_json(p.describe(message))
    return 0


class InputLine(TypedDict, total=False):
    """The first line of ``dgt moves``: what it read (a recording, or raw bytes)."""

    input: str
    """``recording`` or ``raw``."""
    timed: bool
    records: int
    truncated: bool
    source: str | None
    """The recording's ``source`` (the port or bridge it was read from)."""
    bytes: int


class MovesLine(TypedDict):
    """The last line of ``dgt moves``: the line the reconstructor ended with (UCI)."""

    moves: list[str]


def reconstruct_lines(
    data: bytes,
    start_fen: str,
    orientation: str = "auto",
    debounce_ms: int = 300,
    alert_after_ms: int = 2000,
    clocks: bool = False,
) -> list[InputLine | Line | MovesLine]:
    """The lines of ``dgt moves`` for an input (raw bytes or a recording)."""
    from adapters.dgt.link import FileSource

    timed = is_recording(data)
    fen = None if start_fen == chess.STARTING_FEN else start_fen
    reconstructor = MoveReconstructor(
        start_fen=fen,
        orientation=orientation,
        alert_after_ms=alert_after_ms if timed else 0,
    )
    session = BoardSession(reconstructor=reconstructor, debounce_ms=debounce_ms, timed=timed)
    lines: list[InputLine | Line | MovesLine] = [_input_line(data)]
    shown = {"move", "correction", "recovery", "takeback", "alert"} | (
        {"clock"} if clocks else set()
    )

    def deliver(observations: list[Any]) -> None:
        for obs in observations:
            if obs.type in shown:
                line = obs.to_json()
                if timed:
                    line["at"] = format_instant(obs.at_ms)
                lines.append(line)

    source = FileSource(None, session, deliver, speed=0, data=data)
    asyncio.run(source.run(asyncio.Event()))
    lines.append(MovesLine(moves=session.reconstructor.uci_moves))
    return lines


def _input_line(data: bytes) -> InputLine:
    """What ``dgt moves`` read: a ``.dgt`` recording (timed) or raw bytes (order only)."""
    if is_recording(data):
        recording = parse_recording(data)
        return InputLine(
            input="recording",
            timed=True,
            records=len(recording.records),
            truncated=recording.truncated,
            source=recording.header.get("source"),
        )
    return InputLine(input="raw", timed=False, bytes=len(data))


def run_moves(args: argparse.Namespace) -> int:
    try:
        chess.Board(args.start)
    except ValueError as exc:
        print(f"candidates: --start is not a FEN: {exc}", file=sys.stderr)
        return 2
    try:
        lines = reconstruct_lines(
            _read(args.file),
            args.start,
            args.orientation,
            args.debounce_ms,
            args.alert_after_ms,
            args.clocks,
        )
    except (OSError, ValueError) as exc:
        print(f"candidates: {args.file}: {exc}", file=sys.stderr)
        return 2
    for line in lines:
        print_json(line)
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from adapters.dgt import simulated_links as links
    from adapters.dgt import simulator as s
    from adapters.dgt.recording import write_recording
    from adapters.host.clock import wall_clock_ms

    readable_file(args.pgn, "--pgn")
    try:
        game = s.load_game(args.pgn, index=args.index, round_=args.round)
    except LookupError as exc:
        raise MalformedCommand(str(exc)) from None
    if game.next() is None:
        raise MalformedCommand(f"{args.pgn}: the game has no moves to simulate")
    noise = s.Noise(
        transients=not args.no_transients,
        knocks=args.knocks,
        drop_at_ply=args.drop_at_ply,
        result_signal=args.result_signal,
        misread_at_ply=args.misread_at_ply,
    )
    sim = s.BoardSimulator.from_pgn(
        game,
        serial=args.serial,
        white_side=args.white_side,
        rotated=args.rotated,
        noise=noise,
        seed=args.seed,
        time_scale=args.time_scale,
        real_time=args.real_time,
        clock_every_ms=args.clock_every_ms,
    )
    if args.out:
        start = wall_clock_ms()
        chunks = [(start + at, data) for at, data in sim.raw_stream(drops=True)]
        write_recording(
            args.out,
            chunks,
            start,
            source="simulator",
            serial=args.serial,
            game=game.headers.get("Round", ""),
        )
        print(f"wrote {args.out}: {len(chunks)} chunks, {len(sim.moves)} plies", file=sys.stderr)
        return 0
    if args.raw:
        data = sim.raw_bytes(drops=True)
        if args.raw == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            Path(args.raw).write_bytes(data)
        return 0

    async def serve() -> None:
        if args.livechess is not None:
            ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(
                links.serve_livechess({args.serial: sim}, port=args.livechess, ready=ready)
            )
            port = await ready
            print(f"LiveChess-like feed on ws://127.0.0.1:{port}/api/v1.0", file=sys.stderr)
            await task
            return
        link: links.SimulatedLink
        if args.pty:
            link = links.PtyLink(args.pty)
            print(f"board on {args.pty} (a pseudo-terminal)", file=sys.stderr)
        else:
            link = links.TcpLink(port=args.tcp)
            print(f"board on tcp://127.0.0.1:{args.tcp}", file=sys.stderr)
        try:
            await link.play(sim, float("inf") if args.stay_on else 0.3)
        finally:
            await link.close()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0


def _stop_on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)


def run_record(args: argparse.Namespace) -> int:
    from urllib.parse import urlparse

    from adapters.dgt.link import BoardLink, SerialTransport, TcpTransport, Transport
    from adapters.dgt.recording import Recorder
    from adapters.host.clock import wall_clock_ms

    transport: Transport
    if args.dgt.startswith("tcp://"):
        parts = urlparse(args.dgt)
        transport = TcpTransport(parts.hostname or "127.0.0.1", parts.port or 0)
    else:
        transport = SerialTransport(args.dgt)

    async def main() -> None:
        stop = asyncio.Event()
        _stop_on_signals(stop)
        if args.seconds is not None:
            asyncio.get_running_loop().call_later(args.seconds, stop.set)
        session = BoardSession()
        with Recorder(args.out, wall_clock_ms(), source=args.dgt) as recorder:

            def deliver(observations: list[Any]) -> None:
                for obs in observations:
                    if obs.type in ("move", "correction", "takeback", "alert", "serial_number"):
                        print(json.dumps(obs.to_json()), file=sys.stderr)

            await BoardLink(transport, session, deliver, recorder=recorder).run(stop)

    asyncio.run(main())
    return 0


def correction_policy(args: argparse.Namespace) -> CorrectionPolicy:
    """The boards' correction policy of ``dgt run`` and ``serve --dgt`` alike: the arbiter
    of ``--auto-correct-arbiter`` (else the configuration's ``dgt.auto_correct_arbiter``)
    and the one public delay (``--public-delay-s``, else the configuration's
    ``public_delay_s``, else the default): the delay ``serve`` gives its public feed."""
    from adapters.dgt.service import CorrectionPolicy

    return CorrectionPolicy(
        setting(args, "auto_correct_arbiter", "auto_correct_arbiter", None),
        public_delay.delay_ms(
            setting(args, "public_delay_s", "public_delay_s", public_delay.DEFAULT_S)
        ),
    )


def run_run(args: argparse.Namespace) -> int:
    from adapters.dgt.service import parse_spec, run_sources
    from adapters.store import store_url

    hall = getattr(args, "hall", None)
    specs: list[str] = []
    for group in args.group:
        if hall is None or group not in hall.groups:
            known = ", ".join(sorted(hall.groups)) if hall is not None else ""
            where = f"{hall.path} has {known or 'none'}" if hall else "give --config FILE"
            print(f"candidates: no board group {group!r} ({where})", file=sys.stderr)
            return 2
        specs += hall.groups[group]
    specs += list(args.dgt) + [f"file:{f}" for f in args.dgt_file]
    specs += [f"livechess:{url}" for url in args.livechess]
    if not specs:
        print(
            "candidates: give at least one --group, --dgt, --dgt-file or --livechess",
            file=sys.stderr,
        )
        return 2
    serial_games = dict(hall.serial_games) if hall is not None else {}
    try:
        for spec in specs:
            parse_spec(spec)
        for item in args.serial_game:
            serial, sep, game = item.partition("=")
            if not sep:
                raise ValueError(f"--serial-game is SERIAL=GAME, not {item!r}")
            serial_games[serial] = game
    except ValueError as exc:
        print(f"candidates: {exc}", file=sys.stderr)
        return 2
    for spec in specs:  # a file that cannot be read is said now, not logged later
        source = parse_spec(spec)
        if source.kind == "file":
            _read(source.target)
    url = store_url(getattr(args, "store", None))
    require_existing_store(url)  # the boards' games are in a store that is there

    async def main() -> None:
        stop = asyncio.Event()
        _stop_on_signals(stop)
        await run_sources(
            specs,
            url,
            stop,
            serial_games=serial_games,
            record_dir=setting(args, "record_dir", "record_dir", None),
            debounce_ms=setting(args, "debounce_ms", "debounce_ms", 300),
            file_speed=args.speed,
            policy=correction_policy(args),
            tournament=getattr(args, "tournament", None),
        )

    asyncio.run(main())
    return 0
