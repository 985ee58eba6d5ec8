"""``candidates game ID``, ``candidates pgn ID|--all``, ``candidates import-pgn FILE...``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adapters.cli.common import (
    add_create_option,
    add_store_option,
    print_json,
    readable_file,
    store_of,
)
from adapters.formats.event_export import game_pgn_text
from adapters.formats.pgn_import import (
    ImportOptions,
    ImportReport,
    check_start_date,
    import_pgn,
    players_file,
)
from adapters.host.clock import wall_clock_ms
from adapters.store.queries import game_clock_report, game_object, standings_object
from engine.clock.time_control import read_time_control_text
from engine.errors import MalformedCommand, UnknownGame
from engine.rules import PROFILES
from engine.timefmt import clock_text, parse_instant
from projections.claims_view import ClaimShown
from projections.game_view import GameObject
from projections.standings import Standings


def register(sub: Any) -> None:
    game = sub.add_parser("game", help="show one game (board, clocks, claims)")
    game.add_argument("game_id")
    game.add_argument("--format", choices=("table", "json"), default="table")
    game.add_argument(
        "--at",
        metavar="INSTANT",
        help="show the game and its clocks as they stood at this ISO-8601 UTC instant, "
        "'now' (the clocks run on to the present; a fallen flag shows), or 'last' (at the "
        "game's last event). Default: now for a game in progress here, else its last event "
        "(a finished game, a game recorded from a score sheet)",
    )
    add_store_option(game)
    game.set_defaults(func=run_game)

    pgn = sub.add_parser("pgn", help="export games as PGN")
    which = pgn.add_mutually_exclusive_group(required=True)
    which.add_argument("game_id", nargs="?")
    which.add_argument("--all", action="store_true", help="every game of the store")
    add_store_option(pgn)
    pgn.set_defaults(func=run_pgn)

    clocks = sub.add_parser(
        "clocks", help="per ply: the recorded clock next to the regulation clock"
    )
    clocks.add_argument("game_id")
    clocks.add_argument("--format", choices=("table", "json"), default="table")
    add_store_option(clocks)
    clocks.set_defaults(func=run_clocks)

    imp = sub.add_parser(
        "import-pgn",
        help="import finished games from PGN files",
        description="Import the games of PGN files; the first file of an empty store creates "
        "the tournament. What is inferred (cycles, start date) is printed as a warning; the "
        "options below say it instead.",
    )
    imp.add_argument("files", nargs="+")
    imp.add_argument(
        "--cycles",
        type=int,
        choices=(1, 2),
        help="1 (single) or 2 (double round robin, 3.1); default: inferred from the last round",
    )
    imp.add_argument("--rounds", type=int, help="the number of rounds of the whole event")
    imp.add_argument("--start-date", metavar="DATE", help="day 1 of the event (ISO date, 3.2)")
    imp.add_argument(
        "--time-control",
        metavar="TAG",
        help='the control of every game, overriding the TimeControl tags (e.g. "40/7200:1800+30")',
    )
    imp.add_argument(
        "--rules",
        choices=sorted(PROFILES),
        help="the rules profile: laws, time control and the tie-break chain of the standings",
    )
    imp.add_argument(
        "--players",
        metavar="FILE",
        help='JSON object {"name as written": "player id"}: names mapped to one id are one '
        "player (resolves names that may be one player written two ways)",
    )
    imp.add_argument(
        "--round-from-order",
        action="store_true",
        help="number the rounds from the order of the games when Round tags are missing",
    )
    add_create_option(imp)
    add_store_option(imp)
    imp.set_defaults(func=run_import)


def words(code: object) -> str:
    """A code as a person reads it: ``theoretical_draw`` -> ``theoretical draw``."""
    return str(code).replace("_", " ")


def render_table(view: GameObject, names: dict[str, str] | None = None) -> str:
    """The game for a person: players by name (``names``: id -> name), words not codes."""
    names = names or {}
    white, black = (names.get(view[s], view[s]) for s in ("white", "black"))
    lines = [
        f"Game {view['game']}  round {view['round']} board {view['board']}",
        f"White: {white}   Black: {black}   ({view['time_control']})",
        f"Status: {words(view['status'])}  result {view['result']}"
        + (f" ({words(view['termination'])})" if view["termination"] else ""),
        f"FEN: {view['fen']}",
    ]
    moves = view["moves"]
    text = " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + san for i, san in enumerate(moves))
    lines.append(f"Moves ({view['ply']} plies): {text}")
    clock = view["clock"]
    if clock.get("white_ms") is not None:
        lines.append(
            f"Clock at {clock['at']}: white {clock_text(clock['white_ms'])}, "
            f"black {clock_text(clock['black_ms'])}, "
            + (f"running {clock['running']}" if clock["running"] else "both clocks stopped")
        )
        if clock.get("period"):
            lines.append(
                f"  period white {clock['period']['white']} / black {clock['period']['black']}"
                f", moves to the control: white {clock['moves_to_control']['white']}, "
                f"black {clock['moves_to_control']['black']}"
            )
        flag = clock.get("flag")
        if flag:
            state = "recorded" if flag["recorded"] else "not yet recorded"
            lines.append(
                f"  FLAG: {flag['side']}'s flag fell at {flag['fell_at']} -> {flag['result']} "
                f"({flag['termination']}, {state})"
            )
        later = (clock.get("falls") or [])[1:]
        for fall in later:  # 6.9 decides on the first; the later ones stay on the record
            lines.append(f"  then {fall['side']}'s flag fell at {fall['fell_at']}")
    elif clock.get("known") is False:
        lines.append("Clock: unknown (no clock times for this game)")
    device = clock.get("device")
    if device:
        lines.append(
            f"Device clock (read {device['read_at']} by {device['by']}): white "
            f"{clock_text(device['white_ms'])}, black {clock_text(device['black_ms'])}"
            + (f"; alerts: {', '.join(device['open_alerts'])}" if device["open_alerts"] else "")
        )
    for claim in view["claims"]:
        claimant = names.get(claim["by"], claim["by"])
        lines.append(
            f"Claim {claim['id']}: {claimant} {words(claim['kind'])} {words(claim['status'])}"
        )
        lines[-1] += claim_details(claim)
    if view["claims"] or any(view["illegal_moves"].values()):
        incorrect, illegal = view["incorrect_claims"], view["illegal_moves"]
        lines.append(
            f"Incorrect claims: white {incorrect['white']}, black {incorrect['black']}; "
            f"illegal moves: white {illegal['white']}, black {illegal['black']}"
        )
    return "\n".join(lines)


def claim_details(claim: ClaimShown) -> str:
    """`` (verified: true, intended Ng8; accepted by chief, override: ...)``."""
    verified = {True: "true", False: "false", None: "arbiter's judgement"}[claim["verified"]]
    parts = [f"verified: {verified}"]
    if claim.get("intended_move"):
        parts.append(f"intended {claim['intended_move']}")
    advice = claim.get("advice")
    if advice:
        parts.append(f"advisor: {advice['opinion']}")
    ruling = claim.get("ruling")
    if ruling:
        parts.append(f"{ruling['decision']} by {ruling['arbiter']}")
        if ruling["override"]:
            parts.append(f"override: {ruling['reason']}")
    return " (" + "; ".join(parts) + ")"


def run_clocks(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        rows = game_clock_report(store.reads, args.game_id)
    if args.format == "json":
        print_json({"game": args.game_id, "plies": rows})
        return 0
    if not rows:
        print(f"Game {args.game_id}: no clock reading recorded yet")
        return 0
    print(
        f"{'ply':>4} {'move':>4} {'side':<5} {'san':<8} {'recorded':>9} {'regulation':>10}  status"
    )
    for row in rows:
        note = f"  {row['kind']}" if row["kind"] else ""
        print(
            f"{row['ply']:>4} {row['move']:>4} {row['side']:<5} {row['san']:<8} "
            f"{clock_text(row['recorded_ms']):>9} {clock_text(row['regulation_ms']):>10}  "
            f"{row['status']}{note}"
        )
    explained = {row["kind"]: row["explanation"] for row in rows if row["kind"]}
    for kind, text in explained.items():
        print(f"\n{kind}: {text}")
    return 0


def run_game(args: argparse.Namespace) -> int:
    at_ms = None
    if args.at == "now":
        at_ms = wall_clock_ms()
    elif args.at and args.at != "last":
        at_ms = parse_instant(args.at, "--at")
    with store_of(args) as store:
        view = game_object(store.reads, args.game_id, at_ms)
        game = store.reads.game(args.game_id)
        from_sheet = game is not None and game.tags is not None
        if args.at is None and view["status"] == "in_progress" and not from_sheet:
            # a game in progress here: its clocks now, as the players see them (a game
            # recorded from a score sheet is shown at its last event: its clock was not
            # running here, and today's instant would only flag it)
            view = game_object(store.reads, args.game_id, wall_clock_ms())
        tournament = store.reads.tournament()
    if args.format == "json":
        print_json(view)
    else:
        names = {p.id: p.name for p in tournament.players} if tournament else {}
        print(render_table(view, names))
    return 0


def run_pgn(args: argparse.Namespace) -> int:
    with store_of(args) as store:
        ids = store.reads.game_ids() if args.all else [args.game_id]
        if not ids:
            raise UnknownGame("the store holds no games")
        for game_id in ids:
            sys.stdout.write(game_pgn_text(store.reads, game_id) + "\n\n")
    return 0


def import_options(args: argparse.Namespace) -> ImportOptions:
    """The ``import-pgn`` options (checked before any file is read)."""
    if args.rounds is not None and args.rounds < 1:
        raise MalformedCommand(f"--rounds must be 1 or more, got {args.rounds}")
    if args.time_control is not None and read_time_control_text(args.time_control) is None:
        raise MalformedCommand(f"--time-control {args.time_control!r} cannot be read")
    return ImportOptions(
        cycles=args.cycles,
        rounds=args.rounds,
        start_date=check_start_date(args.start_date) if args.start_date else None,
        time_control=args.time_control,
        rules=args.rules,
        players=players_file(readable_file(args.players, "--players")) if args.players else None,
        round_from_order=args.round_from_order,
    )


def run_import(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.files:  # every file readable before the store is created or touched
        readable_file(path)
    options = import_options(args)
    with store_of(args) as store:
        for path in args.files:
            created: list[ImportReport] = []
            reports = import_pgn(store, path, created=created, options=options)
            for made in created:  # the tournament the file created (a note, not a game)
                print(
                    f"candidates: {path}: tournament {made.status}: {made.message}", file=sys.stderr
                )
                for warning in made.warnings:
                    print(f"candidates: {path}: warning: {warning}", file=sys.stderr)
            for report in reports:
                failed += report.status == "refused"
                if report.game == "file":
                    print(f"candidates: {report.message}", file=sys.stderr)
                for warning in report.warnings:
                    print(f"candidates: {path}: warning: {warning}", file=sys.stderr)
                print_json({"file": path, **report.as_dict()})
        if store.reads.tournament() is not None:
            print(f"candidates: {event_status(standings_object(store.reads))}", file=sys.stderr)
    return 1 if failed else 0


CRITERION_WORDS = {
    "points": "points",
    "h2h": "direct encounter (the games between the tied players)",
    "wins": "wins",
    "sb": "Sonneborn-Berger",
    "koya": "Koya",
}
"""The standings' criteria in words."""


def event_status(table: Standings) -> str:
    """One line: final with its winner (or first place level for the organiser), incomplete,
    or in progress after round r of n; with the profile that judged it and its tie-breaks."""
    chain = table["tiebreaks"]
    names = {r["player"]: r.get("name") or r["player"] for r in table["rows"]}
    judged = f"rules {chain['rules']} ({table.get('format', '')}); tie-breaks: " + ", ".join(
        CRITERION_WORDS.get(c, c) for c in chain["criteria"]
    )
    if table["final"]:
        winner = table["winner"]
        level = table.get("first_place_level") or []
        if winner:
            criterion = CRITERION_WORDS.get(str(winner["decided_by"]), str(winner["decided_by"]))
            who = f"winner {names.get(winner['player'], winner['player'])} (decided by {criterion})"
        elif level:
            who = (
                "first place level on points: "
                + ", ".join(names.get(p, p) for p in level)
                + " (in that order by the tie-breaks); a playoff, if the event's regulations "
                "hold one, is the organiser's"
            )
        else:
            who = (
                "first place still tied: "
                + ", ".join(names.get(p, p) for p in table["playoff"]["players"])
                + " go to tie-break games"
            )
        return (
            f"event final after round {table['after_round']} of {table['rounds']}: {who}; {judged}"
        )
    most = max((row["games"] for row in table["rows"]), default=0)
    short = [f"{r['player']} ({r['games']})" for r in table["rows"] if r["games"] < most]
    if table["after_round"] >= table["rounds"] and short:
        return (
            f"event incomplete after round {table['after_round']} of {table['rounds']}: "
            f"games missing for {', '.join(short)} against {most} for the others; no winner "
            f"and no prize yet; {judged}"
        )
    return (
        f"event in progress after round {table['after_round']} of {table['rounds']}: no "
        f"winner and no prize before the last round; {judged}"
    )
