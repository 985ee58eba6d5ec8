"""``candidates incidents|report``: the incident book and the Chief Arbiter's report.

- ``incidents [--format table|json]``: the incident book (3.9.1, 3.9.2 a,
  3.9.2 c, 3.3.4; Laws 2009 6.6 a, 12.3 b, 12.6, 13.4) in time order, and who
  is out of the playing area now, with whom.
- ``report [--format table|json]``: every incident, ruling, penalty, claim,
  flag, clock adjustment and withdrawal of the event in time order, with the
  article of each (``projections.arbiter_report``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of
from adapters.store.queries import incidents_object, report_object
from projections.arbiter_report import Entry


def register(sub: Any) -> None:
    incidents = sub.add_parser(
        "incidents", help="the incident book: incidents, penalties (13.4), who is out (3.9.2 c)"
    )
    incidents.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(incidents)
    incidents.set_defaults(func=run_incidents)

    report = sub.add_parser(
        "report", help="the Chief Arbiter's report: every ruling in time order, with articles"
    )
    report.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(report)
    report.set_defaults(func=run_report)


def render_entries(entries: Sequence[Entry]) -> list[str]:
    lines = []
    for item in entries:
        game = f" [{item['game']}]" if item.get("game") else ""
        lines.append(
            f"{item['at']}  {item['category']:<10} {item['article']:<24}{game} {item['summary']}"
        )
    return lines


def run_incidents(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        book = incidents_object(store.reads)
    if args.format == "json":
        print_json(book)
        return 0
    lines = [f"{book['tournament']}: incident book ({len(book['incidents'])} incident(s))"]
    lines += render_entries(book["entries"]) or ["(nothing recorded)"]
    if book["out"]:
        lines.append("Out of the playing area now (3.9.2 c):")
        lines += [
            f"  {o.get('name') or o['player']} since {o['since']}, with "
            f"{o.get('accompanied_by_name') or o['accompanied_by']} (game {o['game']})"
            for o in book["out"]
        ]
    print("\n".join(lines))
    return 0


def run_report(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        report = report_object(store.reads)
    if args.format == "json":
        print_json(report)
        return 0
    arbiters = ", ".join(f"{a['name']} ({a['role']})" for a in report["arbiters"]) or "none named"
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(report["counts"].items()))
    lines = [
        f"Chief Arbiter's report: {report['name']} ({report['tournament']})",
        f"Rules: {report['rules']} ({report['laws']})",
        f"Arbiters: {arbiters}",
        f"Entries: {counts or 'none'}",
        "",
        *(render_entries(report["entries"]) or ["(nothing to report)"]),
    ]
    print("\n".join(lines))
    return 0
