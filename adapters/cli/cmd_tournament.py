"""``candidates standings|crosstable|pairings|schedule|prizes``: the arbiter's and organiser's view.

- ``standings [--after-round N] [--format table|json]``: points, tie-breaks
  (3.7 a-c), the winner and what decided it, the playoff still needed.
- ``crosstable [--after-round N] [--format table|json]``: every result against
  every opponent (in drawn-number order until there are results).
- ``pairings [--round N] [--format table|json|text]``: each round's boards with
  colours, players, federations, ratings and results so far; ``text`` is the
  sheet organisers post, one block per round.
- ``trf [--out FILE]``: the FIDE Tournament Report File (TRF16) for rating officers.
- ``schedule [--ical FILE] [--format table|json]``: the days of 3.2.
- ``prizes [--format table|json]``: 3.8.1 shares after the last round.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from adapters.cli.common import add_store_option, print_json, store_of
from adapters.store.queries import (
    crosstable_object,
    pairings_object,
    schedule_object,
    standings_object,
    trf_report,
)
from engine.errors import MalformedCommand
from engine.tournament.schedule import schedule, to_ical
from projections.names import Names, display_name
from projections.pairings import Board, Pairings
from projections.standings import Crosstable, Standings


def register(sub: Any) -> None:
    standings = sub.add_parser(
        "standings", help="points, tie-breaks (3.7), winner and playoff needs"
    )
    standings.add_argument("--after-round", type=int, default=None, metavar="N")
    standings.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(standings)
    standings.set_defaults(func=run_standings)

    cross = sub.add_parser("crosstable", help="every result against every opponent")
    cross.add_argument("--after-round", type=int, default=None, metavar="N")
    cross.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(cross)
    cross.set_defaults(func=run_crosstable)

    pairs = sub.add_parser(
        "pairings", help="each round's boards, colours, players and results so far"
    )
    pairs.add_argument("--round", type=int, default=None, metavar="N")
    pairs.add_argument("--format", choices=("table", "json", "text"), default="table")
    add_store_option(pairs)
    pairs.set_defaults(func=run_pairings)

    trf = sub.add_parser("trf", help="the FIDE Tournament Report File (TRF16)")
    trf.add_argument("--out", metavar="FILE", help="write it to FILE instead of printing it")
    add_store_option(trf)
    trf.set_defaults(func=run_trf)

    sched = sub.add_parser("schedule", help="the days of the event (3.2)")
    sched.add_argument("--ical", metavar="FILE", help="also write an iCalendar file")
    sched.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(sched)
    sched.set_defaults(func=run_schedule)

    prizes = sub.add_parser("prizes", help="prize money after the last round (3.8)")
    prizes.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(prizes)
    prizes.set_defaults(func=run_prizes)


def _num(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def render_standings(table: Standings, people: dict[str, str] | None = None) -> str:
    """The standings as text; ``people``: player id -> display name
    (``Names.displayed``), for a player the rows do not list (results annulled, 3.1)."""
    state = "final" if table["final"] else "in progress"
    lines = [
        f"{table['tournament']}: after round {table['after_round']} of {table['rounds']} ({state})",
        f"{'Rank':>4}  {'Player':<24} {'Pts':>5} {'G':>3} {'W':>3} {'H2H':>5} {'SB':>7}",
    ]
    for row in table["rows"]:
        mark = f"  (withdrew: {row['withdrawn']})" if row.get("withdrawn") else ""
        lines.append(
            f"{row['rank']:>4}  {row['name']:<24} {_num(row['points']):>5} {row['games']:>3} "
            f"{row['wins']:>3} {_num(row['h2h']):>5} {_num(row['sb']):>7}{mark}"
        )
    names = {row["player"]: row["name"] for row in table["rows"]}
    shown = {r: display_name(n) for r, n in names.items()} | (people or {})
    for gone in table["withdrawn"]:
        if gone["annulled"]:
            lines.append(
                f"      {shown.get(gone['player'], gone['player'])}: withdrew after "
                f"{gone['games_completed']} of {gone['games_total']} games; results annulled "
                "(3.1)"
            )
    for note in table.get("notes", ()):
        who = shown.get(note["player"], note["player"])
        lines.append(f"      {who}: {note['note']} ({note['article']})")

    def named(players: list[str]) -> str:
        return ", ".join(names.get(p, p) for p in players)

    winner = table["winner"] or table["leader"]
    chain = table.get("tiebreaks") or {}
    organiser = chain.get("first_place") == "organiser"
    level = table.get("first_place_level") or []
    if level:
        lines.append(
            f"First place level on points: {named(level)} (in that order by the tie-breaks); "
            "a playoff, if the event's regulations hold one, is the organiser's"
        )
    elif winner:
        label = "Winner" if table["winner"] else "Leader"
        decided = DECIDED_BY.get(str(winner["decided_by"]), str(winner["decided_by"]))
        if organiser:  # not a Candidates: the regulations' articles are not this event's
            decided = decided.split(" (")[0]
        lines.append(f"{label}: {names.get(winner['player'], winner['player'])} ({decided})")
    playoff = table["playoff"]
    if playoff["needed"]:
        games = ", ".join(playoff.get("pending") or playoff["games"]) or "to be paired"
        stage = str(playoff["stage"] or "").replace("_", " ")
        action = str(playoff.get("action") or "").replace("_", " ")
        lines.append(
            f"Playoff for place {playoff.get('place', 1)}: {stage} ({action}) among "
            f"{named(playoff['players'])}; games: {games}"
        )
    for shared in table["shared_places"]:
        low, high = shared["places"]
        lines.append(f"Places {low}-{high} shared: {named(shared['players'])}")
    if chain:
        first = {
            "criteria": "the criteria",
            "organiser": "the organiser's regulations (a playoff, or the criteria)",
        }.get(chain["first_place"], "tie-break games")
        lines.append(
            f"Tie-breaks ({chain['rules']}): {', '.join(chain['criteria'])}; "
            f"first place by {first} ({chain['source']})"
        )
    return "\n".join(lines)


DECIDED_BY = {
    "points": "ahead on points (3.6.1)",
    "h2h": "decided by the games between the tied players (3.7 a)",
    "wins": "decided by the number of wins (3.7 b)",
    "sb": "decided by Sonneborn-Berger (3.7 c)",
    "koya": "decided by the Koya system",
    "playoff": "decided by the playoff (3.7.1-3.7.3)",
}
"""What put a player first, in words (the standings object's ``decided_by``)."""


def run_standings(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        table = standings_object(store.reads, args.after_round)
        people = Names.of(store.reads.tournament()).displayed()
    if args.format == "json":
        print_json(table)
    else:
        print(render_standings(table, people))
    return 0


CELL = {"1": "1", "1/2": "½", "0": "0"}


def render_crosstable(table: Crosstable) -> str:
    players = table["players"]
    index = {p["player"]: i for i, p in enumerate(players, start=1)}
    width = max(3, *(len(p["name"]) for p in players))
    cell_width = max(
        [2]
        + [
            len(games)
            for p in players
            for games in p["results"].values()
            if isinstance(games, list)
        ]
    )
    header = f"{'#':>2} {'Player':<{width}} " + " ".join(
        f"{i:>{cell_width}}" for i in range(1, len(players) + 1)
    )
    lines = [f"{table['tournament']}: crosstable after round {table['after_round']}", header]
    for p in players:
        cells = []
        for q in players:
            if q["player"] == p["player"]:
                cells.append("X" * cell_width)
                continue
            games = p["results"].get(q["player"], [])
            text = "".join(
                ("+" if g["score"] == "1" else "-")
                if g["default"]
                else ("(" + CELL[g["score"]] + ")" if g["annulled"] else CELL[g["score"]])
                for g in games
            )
            cells.append(f"{text or '.':>{cell_width}}")
        lines.append(
            f"{index[p['player']]:>2} {p['name']:<{width}} "
            + " ".join(cells)
            + f"  {_num(p['points'])}"
        )
    return "\n".join(lines)


def run_crosstable(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        table = crosstable_object(store.reads, args.after_round)
    if args.format == "json":
        print_json(table)
    else:
        print(render_crosstable(table))
    return 0


RESULT_WORDS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "½-½"}
STATUS_WORDS = {"not_started": "", "in_progress": "playing", "not_played": "not played"}


def _board_result(board: Board) -> str:
    if board["result"] is not None:
        return str(RESULT_WORDS.get(board["result"], board["result"]))
    return str(STATUS_WORDS.get(board["status"], board["status"]))


def render_pairings(view: Pairings) -> str:
    """One line per board: round, board, White, result, Black (the ``table`` format)."""
    if not view["numbers_drawn"]:
        return f"{view['name']}: the lots have not been drawn yet (draw_lots, article 3.4.1)"
    width = max(
        len(e["name"])
        for r in view["rounds"]
        for b in r["boards"]
        for e in (b["white"], b["black"])
    )
    lines = [
        f"{view['name']}: pairings",
        f"{'Game':<6} {'No':>2} {'White':<{width}} {'Fed':<3} {'Rtg':>4}  {'Result':^10}  "
        f"{'No':>2} {'Black':<{width}} {'Fed':<3} {'Rtg':>4}",
    ]
    for rnd in view["rounds"]:
        for b in rnd["boards"]:
            w, k = b["white"], b["black"]
            lines.append(
                f"{b['game']:<6} {w['number']:>2} {w['name']:<{width}} {w['federation']:<3} "
                f"{_num(w['rating']):>4}  {_board_result(b):^10}  {k['number']:>2} "
                f"{k['name']:<{width}} {k['federation']:<3} {_num(k['rating']):>4}"
            )
        if rnd["bye"]:
            lines.append(f"{'':<6} {rnd['bye']['number']:>2} {rnd['bye']['name']} has a bye")
    return "\n".join(lines)


def render_pairings_text(view: Pairings) -> str:
    """The sheet posted at the venue: a block per round with its date, boards numbered."""
    if not view["numbers_drawn"]:
        return render_pairings(view)
    blocks = []
    for rnd in view["rounds"]:
        lines = [
            view["name"],
            f"Round {rnd['round']}" + (f", {rnd['date']}" if rnd["date"] else ""),
        ]
        lines.append("")
        for b in rnd["boards"]:
            w, k = b["white"], b["black"]
            white = f"{w['name']} ({w['federation']}, {_num(w['rating'])})"
            black = f"{k['name']} ({k['federation']}, {_num(k['rating'])})"
            result = _board_result(b) or "-"
            lines.append(f"Board {b['board']}:  {white}  {result}  {black}")
        if rnd["bye"]:
            lines.append(f"Bye: {rnd['bye']['name']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def run_pairings(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        view = pairings_object(store.reads, args.round)
    if args.format == "json":
        print_json(view)
    elif args.format == "text":
        print(render_pairings_text(view))
    else:
        print(render_pairings(view))
    return 0


def run_trf(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        text = trf_report(store.reads)
    if not args.out:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise MalformedCommand(f"cannot write {args.out!r}: {exc.strerror}") from None
    print(f"TRF written to {args.out} ({text.count(chr(10))} lines)")
    return 0


def run_schedule(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        view = schedule_object(store.reads)
        tournament = store.reads.tournament()
    assert tournament is not None
    if args.ical:
        days = schedule(tournament.start_date, tournament.rounds)
        try:
            Path(args.ical).write_text(to_ical(tournament, days), encoding="utf-8", newline="")
        except OSError as exc:
            raise MalformedCommand(f"cannot write {args.ical!r}: {exc.strerror}") from None
    if args.format == "json":
        print_json(view)
    else:
        lines = [f"{view['name']} ({view['total_days']} days, article 3.2)"]
        lines += [f"Day {d['day']:>2}  {d['date']}  {d['title']}" for d in view["days"]]
        if args.ical:
            lines.append(f"iCalendar written to {args.ical}")
        print("\n".join(lines))
    return 0


def run_prizes(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        table = standings_object(store.reads)
    if not table["final"]:
        raise MalformedCommand(
            f"prizes are shared after the last round (3.8.1); the standings are after round "
            f"{table['after_round']} of {table['rounds']}, not complete: no prize is paid "
            "before the event is final"
        )
    if table["prize_fund"] is None:
        raise MalformedCommand(
            f"the rules profile {table['tiebreaks']['rules']} has no prize table (3.8.1 is the "
            "Candidates'): the organiser's prize fund is not known to the engine"
        )
    points = {r["player"]: r["points"] for r in table["rows"]}
    names = {r["player"]: display_name(r["name"]) for r in table["rows"]}
    prizes = [
        {"player": p["player"], "eur": p["eur"], "name": names.get(p["player"], p["player"])}
        for p in table["prizes"]
    ]
    if args.format == "json":
        print_json({"tournament": table["tournament"], **table["prize_fund"], "prizes": prizes})
        return 0
    lines = [f"{table['tournament']}: prizes (3.8.1), euros"]
    width = max((len(str(p["name"])) for p in prizes), default=16)
    for prize in prizes:
        lines.append(
            f"{prize['name']:<{width}} {_num(points[str(prize['player'])]):>5}  {prize['eur']:>10,}"
        )
    lines.append(f"Remaining with FIDE (3.8.2): {table['prize_fund']['retained_by_fide_eur']:,}")
    print("\n".join(lines))
    return 0
