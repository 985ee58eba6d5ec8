"""``candidates watch``: live moves and clocks in the terminal, for commentators.

Connects to a running gateway (``candidates serve``), prints the position of
each game it follows, then one line per move, result, claim and (for
arbiters) alert. On a dropped connection it reconnects and resumes with
``since``, so no move is lost or printed twice.

The clocks count down between moves: every ``--clock-every`` seconds (each
second on a terminal, where one status line is redrawn in place) the running
clock of every game in progress is shown as it stands now, run on from the
last clock the gateway sent (at the feed's own instant: a public feed's
``now`` is ``delay`` behind).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any, TextIO

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from adapters.gateway.frames import (
    MSGPACK,
    DeltaFrame,
    FrameError,
    GamesChosen,
    ServerFrame,
    SnapshotFrame,
    SubscribeFrame,
    encode,
    messages,
    server_frame,
)
from adapters.host.clock import wall_clock_ms
from engine.errors import CommandRefused
from engine.timefmt import parse_instant
from projections.clock import ClockObject
from projections.game_view import GameObject
from projections.names import display_name
from projections.standings import Standings


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
    parser.add_argument(
        "--clock-every",
        type=float,
        default=None,
        metavar="S",
        help="show the running clocks every S seconds (default: 1 on a terminal, where the "
        "line is redrawn in place; else off; 0 turns it off)",
    )
    parser.set_defaults(func=run)


def clock_text(ms: object) -> str:
    if not isinstance(ms, int):
        return "-:--"
    seconds = max(0, (ms + 999) // 1000)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def clocks(game: GameObject, now_ms: int | None = None) -> str:
    """Both clocks and which one runs; with ``now_ms``, the running one run on to then."""
    clock = game["clock"]
    running = clock["running"]
    white, black = clock["white_ms"], clock["black_ms"]
    if now_ms is not None and running == "white":
        white = counted_down(clock, now_ms)
    elif now_ms is not None and running == "black":
        black = counted_down(clock, now_ms)
    marks = {side: "*" if running == side else " " for side in ("white", "black")}
    return f"W {clock_text(white)}{marks['white']} B {clock_text(black)}{marks['black']}"


def counted_down(clock: ClockObject, now_ms: int) -> int | None:
    """The running side's clock at ``now_ms``, from the clock object's value at its ``at``."""
    running, at = clock["running"], clock["at"]
    left = (
        clock["white_ms"]
        if running == "white"
        else clock["black_ms"]
        if running == "black"
        else None
    )
    if left is None or at is None:
        return left
    try:
        since = parse_instant(at, "at")
    except CommandRefused:
        return left
    return max(0, left - max(0, now_ms - since))


def numbered(ply: int, san: str) -> str:
    """``12. Nf3`` for White's move, ``12... Nf6`` for Black's."""
    number = (ply + 1) // 2
    return f"{number}. {san}" if ply % 2 else f"{number}... {san}"


def move_text(game: GameObject) -> str:
    moves = game["moves"]
    return numbered(len(moves), moves[-1]) if moves else "(no move yet)"


def pairing(game: GameObject, names: dict[str, str] | None = None) -> str:
    """``1.1 Svidler-Grischuk``: the game's players by their names where known."""
    known = names or {}
    white, black = game["white"], game["black"]
    return f"{game['game']} {known.get(white, white)}-{known.get(black, black)}"


def names_of(frame: SnapshotFrame | DeltaFrame) -> dict[str, str]:
    """Player id -> surname, from the standings a snapshot or a delta carries."""
    tables: list[Standings | None] = [frame.get("standings")]
    if frame["op"] == "snapshot":
        tables += [t["standings"] for t in frame["tournaments"]]
    found: dict[str, str] = {}
    for table in tables:
        for row in table["rows"] if table is not None else []:
            found[row["player"]] = display_name(row["name"])
    return found


def game_line(game: GameObject, names: dict[str, str] | None = None) -> str:
    head = pairing(game, names)
    status = game["status"]
    tail = f"  {game['result']} ({game['termination']})" if status == "finished" else ""
    return f"{head:<28} {move_text(game):<14} {clocks(game)}{tail}"


class Printer:
    """Turns frames into lines; remembers the last sequence number for a resume."""

    def __init__(self, out: TextIO, redraw: bool = False) -> None:
        self.out = out
        self.redraw = redraw
        """On a terminal: the clocks are one status line redrawn in place."""
        self.seq: int | None = None
        self.deltas = 0
        self.games: dict[str, GameObject] = {}
        self.names: dict[str, str] = {}
        """Player id -> surname (from the standings the feed sends)."""
        self.offset_ms = 0
        """The feed's instant minus this machine's (a public feed is ``delay`` behind)."""
        self._status = False

    def feed_now_ms(self) -> int:
        return wall_clock_ms() + self.offset_ms

    def keep(self, game: GameObject | None) -> None:
        if game is not None:
            self.games[game["game"]] = game

    def tick(self) -> None:
        """The running clocks as they stand now (a line, or the status line redrawn)."""
        now = self.feed_now_ms()
        parts = [
            f"{gid} {clocks(game, now)}"
            for gid, game in self.games.items()
            if game["status"] == "in_progress" and game["clock"]["running"] is not None
        ]
        if not parts:
            return
        line = "~~ " + "  |  ".join(parts)
        if self.redraw:
            self.out.write("\r\x1b[K" + line)
            self.out.flush()
            self._status = True
        else:
            self.say(line)

    def frame(self, f: ServerFrame) -> None:
        if f["op"] == "subscribed":
            delay = f["delay_ms"]
            late = f", {delay / 60000:g} min behind" if delay else ""
            self.say(f"-- {f['role']} feed{late}; at seq {f['seq']}")
        elif f["op"] == "snapshot":
            self.seq = f["seq"]
            with contextlib.suppress(CommandRefused):
                self.offset_ms = parse_instant(f["now"], "now") - wall_clock_ms()
            self.names.update(names_of(f))
            for game in f["games"]:
                self.keep(game)
                if game["status"] != "not_started":
                    self.say(game_line(game, self.names))
        elif f["op"] == "delta":
            self.delta(f)
        elif f["op"] == "alert":
            self.say(f"!! {f.get('game') or '-'} {f['kind']}: {f.get('message')}")
        elif f["op"] == "error":
            self.say(f"!! error {f['code']}: {f['message']}")

    def delta(self, f: DeltaFrame) -> None:
        """Every move gets a line; other changes of a game print the game's line."""
        self.seq = f["seq"]
        self.deltas += 1
        game, event = f.get("object"), f["event"]
        self.names.update(names_of(f))
        self.keep(game)
        for other in f.get("games", []):
            self.keep(other)
        if f["kind"] == "MovePlayed":
            ply, san = event.get("ply"), event.get("san")
            move = numbered(ply if isinstance(ply, int) else 0, str(san))
            if game is not None:
                self.say(f"{pairing(game, self.names):<28} {move:<14} {clocks(game)}")
            else:
                self.say(f"{f['game']} {'':<{len('aronian-carlsen') + 8}}{move}")
        elif game is not None and not event["stream"].startswith("clock/"):
            self.say(game_line(game, self.names))
        elif f["game"] is None:
            self.say(f"-- {f['kind']}")

    def say(self, line: str) -> None:
        if self._status:  # the status line gives way, and is redrawn at the next tick
            self.out.write("\r\x1b[K")
            self._status = False
        self.out.write(line + "\n")
        self.out.flush()


async def ticking(printer: Printer, every_s: float) -> None:
    while True:
        await asyncio.sleep(every_s)
        printer.tick()


async def watch(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    terminal = out.isatty()
    every = args.clock_every if args.clock_every is not None else (1.0 if terminal else 0.0)
    printer = Printer(out, redraw=terminal)
    ticker = asyncio.create_task(ticking(printer, every)) if every > 0 else None
    try:
        return await follow(args, printer)
    finally:
        if ticker is not None:
            ticker.cancel()
        if printer._status:
            out.write("\n")


async def follow(args: argparse.Namespace, printer: Printer) -> int:
    games: GamesChosen = args.game or "*"
    while True:
        try:
            async with connect(args.url, compression=None) as ws:
                subscribe: SubscribeFrame = {"op": "subscribe", "games": games}
                if printer.seq is not None:
                    subscribe["since"] = printer.seq
                if args.token:
                    subscribe["token"] = args.token
                await ws.send(encode(subscribe, MSGPACK))
                async for message in ws:
                    for raw in messages(message, MSGPACK):
                        try:
                            frame = server_frame(raw)
                        except FrameError as error:
                            printer.say(f"!! a frame outside the contract, skipped: {error}")
                            continue
                        printer.frame(frame)
                        if frame["op"] == "error" and frame["code"] == "invalid_token":
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
