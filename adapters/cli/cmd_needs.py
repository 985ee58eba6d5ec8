"""``candidates needs [--after-round N] [--format table|json] [--wdl FILE]``: what each
player needs to finish first, and the chances of each (docs/needs.md).

Every combination of the remaining games' results (at most two rounds' worth; beyond,
a seeded sample) scored through the event's tie-break chain (3.6.1, 3.7 a-c, the
playoff of 3.7.1-3.7.3); per player the scenarios he wins outright, those where he
plays the playoff, those where he cannot finish first, the shortest condition in
words and the chance of finishing first. ``--wdl FILE``: a JSON object ``{game id:
[white wins, draw, black wins]}`` for games in progress (an analysis' estimate).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of
from adapters.store.queries import needs_object
from engine.errors import MalformedCommand
from projections.needs import Needs


def register(sub: Any) -> None:
    needs = sub.add_parser(
        "needs", help="what each player needs to finish first (3.7), and the chances of each"
    )
    needs.add_argument("--after-round", type=int, default=None, metavar="N")
    needs.add_argument("--format", choices=("table", "json"), default="table")
    needs.add_argument(
        "--wdl",
        metavar="FILE",
        help="JSON {game: [white wins, draw, black wins]} for games in progress",
    )
    add_store_option(needs)
    needs.set_defaults(func=run_needs)


def read_wdl(path: str) -> dict[str, list[float]]:
    """The ``--wdl`` file: ``{game id: [w, d, l]}``, non-negative numbers, not all 0."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MalformedCommand(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise MalformedCommand(f"{path}: a JSON object {{game: [w, d, l]}} is expected")
    out: dict[str, list[float]] = {}
    for game, value in data.items():
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
            or any(v < 0 for v in value)
            or sum(value) <= 0
        ):
            raise MalformedCommand(
                f"{path}: game {game!r} needs [white wins, draw, black wins], three "
                f"non-negative numbers not all 0; got {value!r}"
            )
        out[str(game)] = [float(v) for v in value]
    return out


def render_needs(needs: Needs) -> str:
    method = needs["method"]
    if method["kind"] == "every combination":
        how = (
            f"every combination of the {len(needs['games'])} remaining games "
            f"({method['scenarios']:,})"
        )
    else:
        how = (
            f"a sample of {method['scenarios']:,} of the {method['combinations']:,} combinations "
            f"of the {len(needs['games'])} remaining games (seed {method['seed']})"
        )
    lines = [
        f"{needs['tournament']}: after round {needs['after_round']} of {needs['rounds']}; {how}",
    ]
    if needs.get("warning"):
        lines.append(f"Warning: {needs['warning']}")
    lines.append(
        f"{'Player':<24} {'Chance':>7}   {'Scenarios: first':>16} {'playoff':>8} {'not 1st':>8}"
    )
    rows = sorted(needs["players"].items(), key=lambda kv: (-kv[1]["chance"], kv[0]))
    for _, p in rows:
        lines.append(
            f"{p['name']:<24} {100 * p['chance']:>6.1f}%   {p['outright']:>16,} "
            f"{p['playoff']:>8,} {p['not_first']:>8,}"
        )
    lines.append("")
    for _, p in rows:
        lines.append(p["needs"])
    lines.append(needs["tiebreak"])
    chances = needs["chances"]
    lines.append("")
    how_chances = (
        "exact over the scenarios" if chances["exact"] else f"{chances['simulations']} simulations"
    )
    lines.append(
        f"Chances: {how_chances} (seed {chances['seed']}); {chances['expectancy']}; draw rate "
        f"{chances['draw_rate']:.2f} ({chances['draw_rate_source']}); playoff: {chances['playoff']}"
    )
    return "\n".join(lines)


def run_needs(args: argparse.Namespace) -> int:
    wdl = read_wdl(args.wdl) if args.wdl else None
    with store_of(args) as store:
        needs, _ = needs_object(store.reads, args.after_round, wdl)
    if args.format == "json":
        print_json(needs)
    else:
        print(render_needs(needs))
    return 0
