"""``candidates watch``: live moves and clocks in the terminal, for commentators.

Connects to a running gateway (``candidates serve``), prints the position of
each game it follows, then one line per move, result, claim and (for
arbiters) alert. On a dropped connection it reconnects and resumes with
``since``, so no move is lost or printed twice.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any, TextIO

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from adapters.gateway.frames import MSGPACK, encode, messages


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "watch",
        help="print live moves and clocks from a running gateway",
        description="Follow a gateway (candidates serve) and print moves, clocks and results.",
    )
    parser.add_argument("--game", action="append", metavar="ID", help="a game id (repeatable)")
    parser.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="the gateway's websocket")
    parser.add_argument("--token", help="a commentator's or arbiter's token (else: public feed)")
    parser.add_argument(
        "--deltas", type=int, default=None, metavar="N", help="stop after N deltas (scripts)"
    )
    parser.set_defaults(func=run)


def clock_text(ms: object) -> str:
    if not isinstance(ms, int):
        return "-:--"
    seconds = max(0, (ms + 999) // 1000)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def clocks(game: dict[str, Any]) -> str:
    clock = game.get("clock") or {}
    running = clock.get("running")
    marks = {side: "*" if running == side else " " for side in ("white", "black")}
    return (
        f"W {clock_text(clock.get('white_ms'))}{marks['white']} "
        f"B {clock_text(clock.get('black_ms'))}{marks['black']}"
    )


def numbered(ply: int, san: str) -> str:
    """``12. Nf3`` for White's move, ``12... Nf6`` for Black's."""
    number = (ply + 1) // 2
    return f"{number}. {san}" if ply % 2 else f"{number}... {san}"


def move_text(game: dict[str, Any]) -> str:
    moves = game.get("moves") or []
    return numbered(len(moves), moves[-1]) if moves else "(no move yet)"


def game_line(game: dict[str, Any]) -> str:
    head = f"{game.get('game')} {game.get('white')}-{game.get('black')}"
    status = game.get("status")
    tail = f"  {game.get('result')} ({game.get('termination')})" if status == "finished" else ""
    return f"{head:<28} {move_text(game):<14} {clocks(game)}{tail}"


class Printer:
    """Turns frames into lines; remembers the last sequence number for a resume."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.seq: int | None = None
        self.deltas = 0

    def frame(self, f: dict[str, Any]) -> None:
        op = f.get("op")
        if op == "subscribed":
            delay = f.get("delay_ms") or 0
            late = f", {delay / 60000:g} min behind" if delay else ""
            self.say(f"-- {f.get('role')} feed{late}; at seq {f.get('seq')}")
        elif op == "snapshot":
            self.seq = f.get("seq")
            for game in f.get("games") or []:
                if game.get("status") != "not_started":
                    self.say(game_line(game))
        elif op == "delta":
            self.delta(f)
        elif op == "alert":
            self.say(f"!! {f.get('game') or '-'} {f.get('kind')}: {f.get('message')}")
        elif op == "error":
            self.say(f"!! error {f.get('code')}: {f.get('message')}")

    def delta(self, f: dict[str, Any]) -> None:
        """Every move gets a line; other changes of a game print the game's line."""
        self.seq = f.get("seq")
        self.deltas += 1
        game, event = f.get("object"), f.get("event") or {}
        if f.get("kind") == "MovePlayed":
            if game is not None:
                head = f"{game.get('game')} {game.get('white')}-{game.get('black')}"
                move = numbered(int(event.get("ply") or 0), str(event.get("san")))
                self.say(f"{head:<28} {move:<14} {clocks(game)}")
            else:
                move = numbered(int(event.get("ply") or 0), str(event.get("san")))
                self.say(f"{f.get('game')} {'':<{len('aronian-carlsen') + 8}}{move}")
        elif game is not None and not str(event.get("stream", "")).startswith("clock/"):
            self.say(game_line(game))
        elif f.get("game") is None:
            self.say(f"-- {f.get('kind')}")

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()


async def watch(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    printer = Printer(out)
    games: Any = args.game or "*"
    while True:
        try:
            async with connect(args.url, compression=None) as ws:
                subscribe: dict[str, Any] = {"op": "subscribe", "games": games}
                if printer.seq is not None:
                    subscribe["since"] = printer.seq
                if args.token:
                    subscribe["token"] = args.token
                await ws.send(encode(subscribe, MSGPACK))
                async for message in ws:
                    for frame in messages(message, MSGPACK):
                        printer.frame(frame)
                        if frame.get("op") == "error" and frame.get("code") == "invalid_token":
                            return 2
                    if args.deltas is not None and printer.deltas >= args.deltas:
                        return 0
        except (OSError, InvalidHandshake, InvalidURI) as error:
            if printer.seq is None:
                print(f"candidates watch: cannot connect to {args.url}: {error}", file=sys.stderr)
                return 1
        except ConnectionClosed:
            pass
        printer.say("-- connection lost; reconnecting")
        await asyncio.sleep(1)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(watch(args))
