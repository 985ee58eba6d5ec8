"""``candidates replay FILE [--speed X] [--until T|--round N] [--serve]``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.cli.common import print_json
from adapters.formats.replay import (
    Pace,
    Progress,
    parse_speed,
    render_state,
    replay,
    round_end_ms,
    state_at,
    until,
)
from adapters.formats.replay_log import Log, LogError, event_classes, read_log, verify_links
from adapters.store import Store, open_store
from engine.errors import MalformedCommand
from engine.timefmt import parse_instant


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "replay",
        help="re-run a replay log through the projections (and the gateway with --serve)",
        description="Append a replay log's events to a fresh store, paced by their recorded "
        "instants, then print the state (boards, clocks, standings, pending claims) at the "
        "end or at --until/--round.",
    )
    parser.add_argument("file")
    parser.add_argument(
        "--speed",
        default=None,
        help="times real time (e.g. 300), or 'max' (default: max; 60 with --serve)",
    )
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--until", metavar="T", help="stop at this instant (ISO-8601 UTC)")
    when.add_argument("--round", type=int, metavar="N", help="stop when round N has ended")
    parser.add_argument("--serve", action="store_true", help="serve the replay on the gateway")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--into",
        default=None,
        metavar="PATH",
        help="the SQLite store to replay into (must be new; default: a temporary file)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=run)


def selected(
    log: Log, until_text: str | None, round_no: int | None
) -> tuple[list[Any], int | None]:
    """The records up to the instant asked for, and that instant."""
    at_ms: int | None = None
    if until_text is not None:
        at_ms = parse_instant(until_text, "--until")
    elif round_no is not None:
        at_ms = round_end_ms(log.records, round_no)
    return list(until(log.records, at_ms)), at_ms


def checked_log(path: str) -> Log:
    log = read_log(path)
    problems = [p for p in verify_links(log.records, event_classes()) if p.record.link is not None]
    if problems:
        raise LogError(
            f"{path}: {len(problems)} hash link(s) do not hold (first: {problems[0].message}); "
            "`candidates audit FILE` gives the full report"
        )
    return log


def fresh_store_path(into: str | None) -> tuple[Path, tempfile.TemporaryDirectory[str] | None]:
    if into is None:
        tmp = tempfile.TemporaryDirectory(prefix="candidates-replay-")
        return Path(tmp.name) / "replay.sqlite", tmp
    path = Path(into)
    if path.exists() and path.stat().st_size > 0:
        with open_store(str(path)) as probe:
            if probe.last_seq():
                raise MalformedCommand(f"--into {into!r} is not empty: replay needs a new store")
    return path, None


def run(args: argparse.Namespace) -> int:
    log = checked_log(args.file)
    records, at_ms = selected(log, args.until, args.round)
    speed = parse_speed(args.speed) if args.speed else (60.0 if args.serve else None)
    path, tmp = fresh_store_path(args.into)
    try:
        with open_store(str(path)) as store:
            if args.serve:
                serve_replay(store, records, Pace(speed), args.host, args.port, keep_serving=True)
            else:
                replay(store, records, Pace(speed))
            state = state_at(store, at_ms)
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.format == "json":
        print_json(state, pretty=True)
    else:
        print(render_state(state))
    return 0


def gateway_entry() -> Callable[..., Any]:
    """The gateway's ``serve_forever``; a clear refusal when this build has no gateway."""
    try:
        from adapters.gateway.server import serve_forever
    except ImportError as exc:
        raise MalformedCommand(
            f"--serve needs the websockets gateway (adapters.gateway.server): {exc}"
        ) from None
    return serve_forever


def serve_replay(
    store: Store,
    records: list[Any],
    pace: Pace,
    host: str,
    port: int,
    *,
    keep_serving: bool,
    progress: Progress | None = None,
    announce: Callable[[str], None] = print,
    on_end: Callable[[], None] | None = None,
    tokens: Any = None,
    on_serving: Callable[[str], None] | None = None,
) -> None:
    """Serve the store on the gateway while the replay fills it; Ctrl-C stops both.
    ``on_end`` runs once the replay has reached the end of the log (not on Ctrl-C);
    ``tokens`` (a ``Tokens``) lets commentators and arbiters in; ``on_serving`` is told the
    page's base URL once it can be opened."""
    serve_forever = gateway_entry()

    halt = threading.Event()

    interrupted = threading.Event()

    async def main() -> None:
        stop = asyncio.Event()

        def on_interrupt() -> None:
            # Ctrl-C stops the replay thread and the gateway in order, instead of a
            # KeyboardInterrupt raised inside whichever task happens to be running.
            interrupted.set()
            halt.set()
            stop.set()

        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_interrupt)

        serving = asyncio.Event()

        def ready(server: Any) -> None:
            sockets = getattr(server, "sockets", None) or []
            bound = sockets[0].getsockname()[1] if sockets else port
            announce(f"Serving the replay on http://{host}:{bound}/")
            if on_serving is not None:
                on_serving(f"http://{host}:{bound}")
            serving.set()

        gateway = asyncio.create_task(
            serve_forever(store.url, host, port, tokens, public_delay_s=0, stop=stop, ready=ready)
        )
        # the replay starts once the page can be opened (a viewer sees it from its first
        # event; on a slow machine a fast replay could end before the gateway served)
        opened = asyncio.create_task(serving.wait())
        await asyncio.wait({gateway, opened}, return_when=asyncio.FIRST_COMPLETED)
        if not opened.done():  # the gateway ended first: stopped, or its error (a port in use)
            opened.cancel()
            gateway.result()
            return
        try:
            await asyncio.to_thread(
                replay, store, records, pace, progress, halt.wait, stopped=halt.is_set
            )
            if on_end is not None and not interrupted.is_set():
                on_end()
            if keep_serving and not interrupted.is_set():
                announce("Replay finished; still serving (Ctrl-C to stop).")
                await gateway
        finally:
            halt.set()
            stop.set()
            try:
                await asyncio.wait_for(gateway, timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                gateway.cancel()

    try:
        asyncio.run(main())
    finally:
        halt.set()
    if interrupted.is_set():
        raise KeyboardInterrupt
