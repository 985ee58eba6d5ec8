"""``candidates qualify FILE.json`` and ``candidates bid-check FILE.json``.

``qualify`` decides the field of eight (articles 2.1-2.7), the reserves and
the replacements after withdrawals (3.3.1-3.3.3); with ``--create-tournament``
it creates the tournament in the store from the field (ratings = the 2.3
averages), with ``--emit-command`` it prints that ``create_tournament`` for
``candidates apply``. ``bid-check`` reports each particular of a bid (the
bidding procedure) as met or not. Exit status: 0 when all is well, 1 when a
bid fails, the nominee is refused or the tournament cannot be created, 2 for
malformed input (the message says where).
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from adapters.cli.common import add_create_option, add_store_option, print_json, store_of
from adapters.formats.founding_file import qualified_field_command
from adapters.formats.jsontext import TextError, loads
from engine.errors import MalformedCommand
from engine.events import ArbiterEntry
from engine.qualification.bidding import BidReport, check_bid
from engine.qualification.inputs import QualificationInput, parse_qualification
from engine.qualification.qualification import qualify
from engine.qualification.result import QualificationResult
from engine.tournament.founding import CreateTournament
from engine.tournament.tournament import ARBITER_ROLES


def register(sub: Any) -> None:
    q = sub.add_parser(
        "qualify",
        help="decide the eight qualifiers, reserves and replacements (articles 2.1-2.7, 3.3)",
        description="Decide the qualifiers from a qualification file (World Cup 2011, the 2012 "
        "match, the July 2011 / January 2012 / March 2012 rating lists, the organiser's "
        "nominee, withdrawals). See docs/qualification.md for the file's form.",
    )
    q.add_argument("file", help="the qualification file (JSON)")
    q.add_argument("--format", choices=("table", "json"), default="table")
    make = q.add_argument_group("creating the tournament from the field")
    make.add_argument(
        "--create-tournament",
        action="store_true",
        help="create the tournament in the store (players rated by their 2.3 averages)",
    )
    add_create_option(make)
    make.add_argument(
        "--emit-command",
        action="store_true",
        help="print the create_tournament command (one JSON line) for `candidates apply`",
    )
    make.add_argument("--tournament", help="tournament id")
    make.add_argument("--name", help="tournament name")
    make.add_argument("--start-date", help="ISO date (default: the file's start_date)")
    make.add_argument("--rules", help="rules profile (default: candidates-2012)")
    make.add_argument(
        "--arbiter",
        action="append",
        default=[],
        metavar="ID:NAME:ROLE",
        help=f"an arbiter (role: {', '.join(ARBITER_ROLES)}); repeat for each",
    )
    add_store_option(q)
    q.set_defaults(func=run_qualify)

    b = sub.add_parser(
        "bid-check",
        help="check an organiser's bid against the bidding procedure",
        description="Check a bid's particulars (bidding procedure 2 a-j, 3, 4, 5, 7); "
        "exits 1 if any required item is not met.",
    )
    b.add_argument("file", help="the bid (JSON)")
    b.add_argument("--format", choices=("table", "json"), default="table")
    b.set_defaults(func=run_bid_check)


def load_json(path: str) -> Any:
    """Read a JSON file; numbers with a fraction become exact Decimals."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise MalformedCommand(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return loads(data, parse_float=Decimal)
    except TextError as exc:
        raise MalformedCommand(f"{path}: {exc}") from None


# --- qualify -------------------------------------------------------------------


def _arbiters(specs: list[str]) -> list[ArbiterEntry]:
    arbiters: list[ArbiterEntry] = []
    for spec in specs:
        parts = spec.split(":")
        if len(parts) != 3 or not all(parts) or parts[2] not in ARBITER_ROLES:
            raise MalformedCommand(
                f"--arbiter {spec!r}: expected ID:NAME:ROLE with ROLE one of "
                f"{', '.join(ARBITER_ROLES)}"
            )
        arbiters.append(ArbiterEntry(id=parts[0], name=parts[1], role=parts[2]))
    return arbiters


def _command(
    args: argparse.Namespace, inp: QualificationInput, result: QualificationResult
) -> CreateTournament:
    missing = [f"--{n}" for n in ("tournament", "name") if not getattr(args, n)]
    if missing:
        raise MalformedCommand(f"creating the tournament needs {' and '.join(missing)}")
    start = args.start_date
    if start is None:
        if inp.start_date is None:
            raise MalformedCommand(
                "creating the tournament needs --start-date (the file has no start_date)"
            )
        start = inp.start_date.isoformat()
    elif inp.start_date is not None and start != inp.start_date.isoformat():
        raise MalformedCommand(
            f"--start-date {start} differs from the file's start_date "
            f"{inp.start_date.isoformat()}, against which 3.3.2 / 3.3.3 were judged"
        )
    return qualified_field_command(
        inp,
        result,
        tournament=args.tournament,
        name=args.name,
        start_date=start,
        rules=args.rules,
        arbiters=_arbiters(args.arbiter),
    )


def run_qualify(args: argparse.Namespace) -> int:
    inp = parse_qualification(load_json(args.file))
    result = qualify(inp)
    status = 1 if result.nominee_refused else 0
    if args.create_tournament or args.emit_command:
        cmd = _command(args, inp, result)
        for place in result.field:
            if place.withdrawn:
                print(
                    f"candidates: note: {place.player} withdrew too late to be replaced "
                    "(3.3.3) and stays in the field; his first-round opponent is declared the "
                    "winner: record the withdrawal in the tournament once it is created",
                    file=sys.stderr,
                )
        if args.emit_command:
            print_json(cmd.to_wire())
        if args.create_tournament:
            with store_of(args) as store:
                answer = store.handle(cmd)
            if not answer["ok"]:
                print_json(answer)
                return 1
            if args.format == "json":
                print_json(answer)
            else:
                print(render_qualification(inp, result))
                print()
                print(f"Tournament {args.tournament!r} created with the field above.")
        return status
    if args.format == "json":
        print_json(result.as_dict(inp), pretty=True)
    else:
        print(render_qualification(inp, result))
    return status


def render_qualification(inp: QualificationInput, result: QualificationResult) -> str:
    data = result.as_dict(inp)
    lines = ["Qualifiers (articles 2.1-2.7)"]
    for q in data["qualifiers"]:
        lines.append(
            f"  {q['place']}. {q['name']:<24} {q['federation']:<4} {q['article']:<4} "
            f"{q['reason']}" + (f"  [avg {q['average_rating']}]" if q["average_rating"] else "")
        )
    nominee = data["nominee"]
    lines.append(
        f"Nominee (2.6): {nominee['player'] or '-'}: {nominee['status']}: {nominee['reason']}"
    )
    if data["withdrawals"]:
        lines.append("Withdrawals (3.3)")
        for w in data["withdrawals"]:
            by = f" -> {w['replaced_by']}" if w["replaced_by"] else " (not replaced)"
            lines.append(f"  {w['player']} {w['on']} {w['article']}{by}: {w['reason']}")
        lines.append("Field after withdrawals")
        for q in data["field"]:
            mark = " (withdrawn, 3.3.3)" if q["withdrawn"] else ""
            lines.append(f"  {q['place']}. {q['name']:<24} {q['article']:<4} {q['reason']}{mark}")
    lines.append("Average rating list, July 2011 & January 2012 (2.3)")
    for r in data["rating_list"]:
        level = f"  level with {', '.join(r['level_with'])}" if r["level_with"] else ""
        decided = r["decided_by"]
        by = f"  (below the line above by {decided})" if decided not in (None, "average") else ""
        line = f"  {r['rank']:>3}. {r['player']:<16} {r['average']:>8}  {r['status']:<28}"
        lines.append((line + by + level).rstrip())
    for n in data["not_ranked"]:
        lines.append(f"    -  {n['player']:<16} not ranked: {n['reason']}")
    lines.append(f"Reserves (2.7): {', '.join(data['reserves']) or '-'}")
    if data["pending"]:
        lines.append("Pending: " + "; ".join(data["pending"]))
    lines.append("Complete: " + ("yes" if data["complete"] else "no"))
    return "\n".join(lines)


# --- bid-check -----------------------------------------------------------------


def run_bid_check(args: argparse.Namespace) -> int:
    report = check_bid(load_json(args.file))
    if args.format == "json":
        print_json(report.as_dict(), pretty=True)
    else:
        print(render_bid(report))
    return 0 if report.valid else 1


def render_bid(report: BidReport) -> str:
    lines = [f"Bid of {report.bidder}"]
    for item in report.items:
        mark = "met    " if item.met else ("NOT MET" if item.required else "advice ")
        lines.append(f"  [{mark}] {item.article:<18} {item.item}: {item.detail}")
    data = report.as_dict()
    lines.append(("VALID" if report.valid else "NOT VALID") + f": {data['summary']}")
    return "\n".join(lines)
