"""``candidates serve``: the websockets gateway and the live page, following the store.

With ``--dgt``/``--dgt-file`` the DGT boards' sources run in the same event
loop (``adapters.dgt.service.run_sources``) and write their moves and clock
readings into the same store, which the gateway then follows like any other
writer.

The flag check runs in the same loop (``adapters.watch.flags``): every second a
``check_flags`` for every game in progress, so a regulation clock at zero
reaches the arbiters' desk as a ``flag_fall`` alert within a second (6.8).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from adapters.analysis.service import run_in_thread
from adapters.cli.cmd_analyse import add_budget_options, budget_of
from adapters.cli.common import (
    add_public_delay_option,
    add_store_option,
    is_sqlite_path,
    readable_file,
    require_existing_store,
)
from adapters.cli.hall_config import setting
from adapters.gateway.hub import DEFAULT_CONNECTIONS_PER_ADDRESS, Limits
from adapters.gateway.server import serve_forever
from adapters.gateway.tokens import TokenFileError, load_tokens
from adapters.host import public_delay
from adapters.store import store_url
from adapters.store.store_file import writable
from adapters.watch.flags import DEFAULT_INTERVAL_S, watch_flags


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "serve",
        help="serve live games over websockets and the live web page",
        description="Follow the store and serve every board, clock and the standings over "
        "websockets (docs/protocol.md) and as a web page at http://HOST:PORT/.",
    )
    parser.add_argument(
        "--host", default=None, help="address to listen on (default: gateway.host, else 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="port (0: any free port; default: gateway.port, else 8765)",
    )
    parser.add_argument(
        "--tokens",
        metavar="FILE",
        help='JSON object {"<token>": {"role": "arbiter"|"commentator", "name": ...}}; '
        "default: the configuration's [tokens]; without either every client is public",
    )
    add_public_delay_option(
        parser,
        "delay of the public feed and of the boards' automatic corrections (fair play; "
        "default: the configuration's public_delay_s)",
    )
    parser.set_defaults(public_delay_s=None)  # unless given: the configuration's, else 900
    parser.add_argument(
        "--dgt",
        action="append",
        default=[],
        metavar="SPEC",
        help="a DGT board source, e.g. /dev/ttyUSB0=1.1 or tcp://127.0.0.1:7001=1.2 (repeatable)",
    )
    parser.add_argument(
        "--dgt-file",
        action="append",
        default=[],
        metavar="FILE=GAME",
        help="a recorded DGT byte stream played as a board of GAME (repeatable)",
    )
    parser.add_argument(
        "--flag-check",
        type=float,
        default=None,
        metavar="SECONDS",
        help="send check_flags for every game in progress this often (default: "
        "gateway.flag_check_s, else 1; 0: never), "
        "so a regulation clock at zero reaches the arbiters' desk (Laws 2009 6.8)",
    )
    parser.add_argument(
        "--analysis",
        action="store_true",
        help="run the engine's analysis in this process too (one laptop; in a hall, run "
        "`candidates analyse` on a machine of its own); the budget flags below apply",
    )
    parser.add_argument(
        "--analysis-to-arbiters",
        action="store_true",
        help="also send the analysis to arbiters' tokens (never by default: the desk is in "
        "the playing hall)",
    )
    parser.add_argument(
        "--max-connections-per-address",
        type=_positive,
        default=None,
        metavar="N",
        help="connections open at once from one IP address; one more is answered 503 "
        f"(default: gateway.max_connections_per_address, else {DEFAULT_CONNECTIONS_PER_ADDRESS})",
    )
    add_budget_options(parser)
    add_store_option(parser)
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 0 < value <= 10**6 or len(text) > 8:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 1000000, got {text!r}")
    return value


def dgt_specs(args: argparse.Namespace) -> list[str]:
    """``--dgt`` specs as given, ``--dgt-file F=G`` as ``file:F=G``."""
    specs = list(args.dgt)
    for item in args.dgt_file:
        if "=" not in item:
            raise ValueError(f"--dgt-file needs FILE=GAME, got {item!r}")
        readable_file(item.removeprefix("file:").rsplit("=", 1)[0], "--dgt-file")
        specs.append(item if item.startswith("file:") else f"file:{item}")
    return specs


def resolve(args: argparse.Namespace) -> None:
    """Fill what the command line left out from the hall's configuration, else the defaults."""
    args.host = setting(args, "host", "host", "127.0.0.1")
    args.port = setting(args, "port", "port", 8765)
    args.public_delay_s = setting(args, "public_delay_s", "public_delay_s", public_delay.DEFAULT_S)
    args.flag_check = setting(args, "flag_check", "flag_check_s", DEFAULT_INTERVAL_S)
    args.max_connections_per_address = setting(
        args,
        "max_connections_per_address",
        "max_connections_per_address",
        DEFAULT_CONNECTIONS_PER_ADDRESS,
    )


def run(args: argparse.Namespace) -> int:
    resolve(args)
    if args.flag_check < 0:
        print("candidates serve: --flag-check must be 0 or more seconds", file=sys.stderr)
        return 2
    if args.tokens is not None:
        readable_file(args.tokens, "--tokens")
    hall = getattr(args, "hall", None)
    try:
        if args.tokens is None and hall is not None and hall.tokens is not None:
            tokens = hall.tokens
        else:
            tokens = load_tokens(args.tokens)
    except TokenFileError as error:
        print(f"candidates serve: {error}", file=sys.stderr)
        return 2
    try:
        specs = dgt_specs(args)
    except ValueError as error:
        print(f"candidates serve: {error}", file=sys.stderr)
        return 2
    try:
        budget = budget_of(args)
    except ValueError as error:
        print(f"candidates serve: {error}", file=sys.stderr)
        return 2
    url = store_url(getattr(args, "store", None))
    require_existing_store(url)  # a mistyped --store is said, never served as a new store
    if is_sqlite_path(url) and not writable(Path(url).resolve()):
        print(
            f"candidates serve: cannot write the store {url} (a read-only file, folder or "
            "filesystem): the gateway writes the arbiters' commands and its kept state; "
            "read a copy with `candidates audit`, `standings` or `pgn`, which only read",
            file=sys.stderr,
        )
        return 2
    boards: Callable[[asyncio.Event], Coroutine[Any, Any, None]] | None = None
    if specs:
        try:
            from adapters.cli.cmd_dgt import correction_policy
            from adapters.dgt.service import run_sources
        except ImportError as error:
            print(
                f"candidates serve: DGT boards are not available in this installation "
                f"(adapters.dgt.service: {error}); run without --dgt/--dgt-file",
                file=sys.stderr,
            )
            return 2
        # the boards' automatic corrections wait for the same public delay as the gateway
        policy = correction_policy(args)
        tournament = getattr(args, "tournament", None)

        def boards(stop: asyncio.Event) -> Coroutine[Any, Any, None]:
            return run_sources(specs, url, stop, policy=policy, tournament=tournament)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)

        def ready(server: Any) -> None:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                print(f"candidates: serving {url} at http://{host}:{port}/ (websocket /ws)")
            delay = f"{args.public_delay_s:g} s" if args.public_delay_s else "none"
            print(f"candidates: {len(tokens)} token(s); public delay {delay}", flush=True)

        tasks = [
            asyncio.create_task(
                serve_forever(
                    url,
                    args.host,
                    args.port,
                    tokens,
                    args.public_delay_s,
                    stop,
                    ready=ready,
                    analysis_to_arbiters=args.analysis_to_arbiters,
                    limits=Limits(max_connections_per_address=args.max_connections_per_address),
                )
            )
        ]
        if boards is not None:
            tasks.append(asyncio.create_task(boards(stop)))
        if args.flag_check > 0:
            tasks.append(asyncio.create_task(watch_flags(url, stop, args.flag_check)))
        analysis_stop = threading.Event()
        if args.analysis:
            run_in_thread(url, budget, analysis_stop, args.engine)
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            stop.set()
            analysis_stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)

    try:
        asyncio.run(main())
    except OSError as error:
        print(f"candidates serve: {error}", file=sys.stderr)
        return 1
    return 0
