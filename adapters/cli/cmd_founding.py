"""``candidates founding``: the event's founding file, from the organisers' list or a PGN.

Writes the commands that create the tournament (``create_tournament``, ``draw_lots``,
``reorder_rounds`` when needed), one JSON object a line, for ``candidates apply``
(docs/operations.md, "The tournament"; ``adapters.formats.founding_file``). Nothing is
written to a store; the commands are checked by applying them to a store in memory.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from adapters.cli.common import readable_file
from adapters.formats.founding_file import (
    founding_commands,
    from_pgn,
    parse_arbiter,
    players_csv,
)
from adapters.formats.pgn_import import ImportOptions
from engine.errors import MalformedCommand


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "founding",
        help="write the event's founding commands (from the organisers' list or a PGN)",
        description="Write the commands that found the tournament, one JSON object a line "
        "(create_tournament, draw_lots, reorder_rounds when the rounds are played in "
        "another order), for `candidates apply`. From the organisers' list of players "
        "(--players FILE.csv: id,name,federation,rating[,fide_id,title,number]; the numbers "
        "are the number column, else the rows' order) or from a PGN file of the event "
        "(--pgn: players, numbers and round order inferred as import-pgn infers them).",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--players", metavar="FILE.csv", help="the organisers' list of players")
    source.add_argument("--pgn", metavar="FILE.pgn", help="a PGN file of the event's games")
    parser.add_argument("--id", dest="tournament_id", metavar="ID", help="the tournament's id")
    parser.add_argument("--name", help="the tournament's name")
    parser.add_argument("--rules", help="the rules profile (default: candidates-2012)")
    parser.add_argument("--start-date", metavar="DATE", help="day 1 of the event (3.2)")
    parser.add_argument("--cycles", type=int, help="1 or 2 (3.1: a double round robin)")
    parser.add_argument(
        "--arbiter",
        action="append",
        default=[],
        metavar="ID:ROLE:NAME",
        help="an arbiter (repeatable): chief:chief:Jane Doe, deputy:deputy:John Roe",
    )
    parser.add_argument("--out", required=True, metavar="FILE.jsonl", help="the file to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    arbiters = [parse_arbiter(text) for text in args.arbiter]
    round_order: tuple[int, ...] | None = None
    numbers: dict[str, int] | None
    if args.players is not None:
        readable_file(args.players, "--players")
        players, numbers = players_csv(args.players)
        if not args.tournament_id or not args.name:
            raise MalformedCommand("--players needs --id and --name (the list has neither)")
        tournament_id, name = args.tournament_id, args.name
        rules, start_date, cycles = args.rules, args.start_date, args.cycles
    else:
        readable_file(args.pgn, "--pgn")
        options = ImportOptions(cycles=args.cycles, start_date=args.start_date, rules=args.rules)
        tournament, players = from_pgn(args.pgn, options)
        numbers = tournament.numbers
        round_order = tournament.round_order
        tournament_id = args.tournament_id or tournament.id
        name = args.name or tournament.name
        rules, start_date, cycles = tournament.rules, tournament.start_date, tournament.cycles
    commands = founding_commands(
        tournament_id,
        name,
        players,
        numbers,
        arbiters,
        rules=rules,
        start_date=start_date,
        cycles=cycles,
        round_order=round_order,
    )
    out = Path(args.out)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(
        "".join(json.dumps(c.to_wire(), ensure_ascii=False) + "\n" for c in commands)
    )
    partial.replace(out)
    print(
        f"candidates: {out}: {len(commands)} founding command(s) of {tournament_id!r}, "
        f"{len(players)} players, {len(arbiters)} arbiter(s); run `candidates apply {out}`"
    )
    return 0
