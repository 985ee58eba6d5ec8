"""Score sheets in, events out: ``candidates import-pgn FILE...``.

Each game becomes one all-or-nothing batch of events (see
``engine.game.importing``). A game whose moves are illegal is refused as a whole,
naming the game and the move, and the rest of the file still imports.
Importing a file twice adds nothing: a game already in the store with the
same moves and result is reported as already imported.

Game ids come from the Round tag when it reads ``<round>.<board>`` (as in
the 2013 file); a bare round number gets the next free board of that round.
Player ids are the surnames in lower case (``"Aronian,L"`` -> ``aronian``).

When the store holds no tournament, a file of a whole round robin creates
it first (``create_tournament_from_pgn``): the players from the White/Black
tags (ratings from WhiteElo/BlackElo, federations from WhiteFed/BlackFed
when present), the number of cycles from the last round, the start date two
days before the first round (3.2: arrivals, then the opening ceremony), the
Berger numbers and the order of the rounds inferred from who played whom
with which colour in which round (``engine.tournament.berger_inference``), recorded as
a ``LotsDrawn`` and, when the rounds were played in another order than the
table's, a ``RoundsReordered``. The standings then work on the file directly.

The door is strict, because an append-only store cannot be repaired afterwards:

- a file in which no game has a legal move or a result is not PGN (a README, a
  log): it is refused whole, nothing appended, with a message saying so;
- into a store that holds a tournament, a game whose players are not that
  tournament's, whose round is not one of its rounds, or whose round does not
  pair those players with those colours is refused, naming them (the rest of the file imports);
- a null move (``--``, ``Z0``: a pass) is refused like any illegal move.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import chess.pgn

from adapters.store import Store
from engine.errors import CommandRefused, MalformedCommand
from engine.events import TOURNAMENT_STREAM, ClockReadingRecorded, RoundsReordered
from engine.game.importing import ScoreSheet, import_score_sheet
from engine.rules import DEFAULT_PROFILE
from engine.tournament.berger_inference import cycles_for, infer_numbers
from engine.tournament.tournament import Tournament
from projections.clock import clock_report


def player_id(name: str) -> str:
    """A stable id from a PGN name: the surname, lower case, ASCII, no spaces."""
    surname = name.split(",")[0].strip() or name.strip() or "unknown"
    ascii_name = unicodedata.normalize("NFKD", surname).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-") or "unknown"


def tag_instant(date: str, time: str | None = None) -> int:
    """Epoch ms of a PGN Date (and optional UTCTime/Time) tag; 0 when unknown."""
    try:
        day = datetime.strptime(date, "%Y.%m.%d").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return 0
    if time:
        try:
            clock = datetime.strptime(time, "%H:%M:%S")
            day = day.replace(hour=clock.hour, minute=clock.minute, second=clock.second)
        except ValueError:
            pass
    return int(day.timestamp() * 1000)


@dataclass
class ImportReport:
    game: str
    status: str
    """``imported``, ``already_imported`` or ``refused``."""
    message: str = ""
    events: int = 0
    clock: dict[str, Any] | None = None
    """For games with recorded clocks: plies compared with the regulation clock,
    how many agree, and the known artefacts and mismatches by kind (the per-ply
    detail is ``candidates clocks GAME_ID``)."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game, "status": self.status, "events": self.events}
        if self.message:
            out["message"] = self.message
        if self.clock is not None:
            out["clock"] = self.clock
        return out


def clock_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts of a clock report (``projections.clock.clock_report``)."""
    summary: dict[str, Any] = {"plies": len(rows), "agree": 0, "artefacts": {}, "mismatches": 0}
    for row in rows:
        if row["status"] == "agrees":
            summary["agree"] += 1
        elif row["status"] == "artefact":
            summary["artefacts"][row["kind"]] = summary["artefacts"].get(row["kind"], 0) + 1
        else:
            summary["mismatches"] += 1
    return summary


def read_games(handle: TextIO) -> Iterator[chess.pgn.Game]:
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return
        yield game


def score_sheet(pgn: chess.pgn.Game, boards_used: dict[int, int]) -> ScoreSheet:
    """One PGN game as a score sheet (moves as UCI from the mainline)."""
    headers = pgn.headers
    round_tag = headers.get("Round", "?")
    match = re.fullmatch(r"(\d+)\.(\d+)", round_tag)
    if match:
        round_no, board_no = int(match[1]), int(match[2])
    else:
        round_no = int(round_tag) if round_tag.isdigit() else 0
        board_no = boards_used.get(round_no, 0) + 1
    boards_used[round_no] = max(boards_used.get(round_no, 0), board_no)
    fen = headers.get("FEN") if headers.get("SetUp") == "1" else None
    return ScoreSheet(
        game=f"{round_no}.{board_no}",
        round=round_no,
        board=board_no,
        white=player_id(headers.get("White", "?")),
        black=player_id(headers.get("Black", "?")),
        result=headers.get("Result", "*"),
        moves=[move.uci() for move in pgn.mainline_moves()],
        clocks_ms=recorded_clocks(pgn),
        at_ms=tag_instant(headers.get("Date", ""), headers.get("UTCTime")),
        time_control=headers.get("TimeControl"),
        initial_fen=fen,
    )


def recorded_clocks(pgn: chess.pgn.Game) -> list[int | None]:
    """The ``[%clk]`` after each move, in ms (None where a move has none)."""
    clocks: list[int | None] = []
    for node in pgn.mainline():
        seconds = node.clock()
        clocks.append(None if seconds is None else round(seconds * 1000))
    return clocks


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "tournament"


FINAL_RESULTS = ("1-0", "0-1", "1/2-1/2")


def require_pgn(path: str | Path) -> None:
    """Refuse a file in which no game has a legal move or a result: it is not PGN.

    python-chess reads any text as games of unknown players with no moves (a README
    gives dozens); importing those would create games that cannot be removed."""
    read = 0
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for pgn in read_games(handle):
            read += 1
            has_moves = any(bool(move) for move in pgn.mainline_moves())  # a null move is not
            if (has_moves and not pgn.errors) or pgn.headers.get("Result") in FINAL_RESULTS:
                return
    raise MalformedCommand(
        f"{path} is not PGN: none of the {read} game(s) read from it has a legal move or a "
        "result (1-0, 0-1, 1/2-1/2); nothing was imported"
    )


def require_tournament_game(tournament: Tournament, sheet: ScoreSheet) -> None:
    """A game imported into a tournament's store must be one of its games: its players,
    one of its rounds, and a pairing of that round when the lots are drawn."""
    known = {p.id for p in tournament.players}
    strangers = [pid for pid in (sheet.white, sheet.black) if pid not in known]
    if strangers:
        raise MalformedCommand(
            f"game {sheet.game} ({sheet.white} - {sheet.black}): "
            f"{', '.join(map(repr, strangers))} not a player of {tournament.id!r} "
            f"(players: {', '.join(sorted(known))})"
        )
    planned = tournament.planned_game(sheet.game)
    if planned is not None:
        if (planned.white, planned.black) != (sheet.white, sheet.black):
            raise MalformedCommand(
                f"game {sheet.game} ({sheet.white} - {sheet.black}): the playoff game "
                f"{sheet.game} of {tournament.id!r} is {planned.white} - {planned.black}"
            )
        return
    if not 1 <= sheet.round <= tournament.rounds:
        raise MalformedCommand(
            f"game {sheet.game} ({sheet.white} - {sheet.black}): round {sheet.round} is "
            f"not a round of {tournament.id!r} (rounds 1-{tournament.rounds})"
        )
    if tournament.numbers is None:
        return
    # Boards are numbered differently by different files: the pair must play in that round
    # with those colours, on whichever board.
    in_round = {
        pair
        for game_id, pair in tournament.round_robin_pairings().items()
        if game_id.partition(".")[0] == str(sheet.round)
    }
    if (sheet.white, sheet.black) not in in_round:
        listed = ", ".join(f"{w} - {b}" for w, b in sorted(in_round))
        raise MalformedCommand(
            f"game {sheet.game} ({sheet.white} - {sheet.black}): round {sheet.round} of "
            f"{tournament.id!r} does not pair them so (its games: {listed})"
        )


def create_tournament_from_pgn(
    store: Store, path: str | Path, by: str = "import"
) -> ImportReport | None:
    """Create the tournament of a PGN file of a whole round robin in an empty store.

    Returns a report (``created``), or None when the store already holds a
    tournament or the file has fewer than two players.
    """
    if store.tournament() is not None:
        return None
    players: dict[str, dict[str, object]] = {}
    games: list[tuple[int, str, str]] = []
    dates: list[str] = []
    event_name = ""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while True:
            headers = chess.pgn.read_headers(handle)
            if headers is None:
                break
            event_name = event_name or headers.get("Event", "")
            for side in ("White", "Black"):
                name = headers.get(side, "?")
                entry = players.setdefault(
                    player_id(name), {"id": player_id(name), "name": name, "federation": ""}
                )
                elo = headers.get(f"{side}Elo", "")
                if elo.isdigit() and int(elo) > 0:
                    entry["rating"] = int(elo)
                fed = headers.get(f"{side}Fed", "")
                if fed:
                    entry["federation"] = fed
            round_tag = headers.get("Round", "")
            round_no = round_tag.split(".")[0]
            games.append(
                (
                    int(round_no) if round_no.isdigit() else 0,
                    player_id(headers.get("White", "?")),
                    player_id(headers.get("Black", "?")),
                )
            )
            date = headers.get("Date", "")
            if re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", date):
                dates.append(date)
    if len(players) < 2:
        return None
    first_round = datetime.strptime(min(dates), "%Y.%m.%d") if dates else datetime(1970, 1, 3)
    start_date = (first_round - timedelta(days=2)).date().isoformat()
    last_round = max((r for r, _, _ in games), default=0)
    cycles = cycles_for(len(players), last_round) if last_round else 2
    name = event_name or Path(path).stem
    year = first_round.year if dates else ""
    tournament_id = _slug(f"{name} {year}")
    created = store.handle(
        {
            "cmd": "create_tournament",
            "tournament": tournament_id,
            "name": name,
            "rules": DEFAULT_PROFILE,
            "start_date": start_date,
            "cycles": cycles,
            "players": list(players.values()),
            "by": by,
        }
    )
    if not created["ok"]:
        return ImportReport("tournament", "refused", created["error"]["message"])
    message = f"{len(players)} players, {cycles} cycle(s), start {start_date}"
    inferred = None
    if all(r > 0 for r, _, _ in games):
        inferred = infer_numbers(sorted(players), games, cycles)
    if inferred is None:
        message += "; the pairing numbers could not be inferred from the file (no lots drawn)"
        return ImportReport("tournament", "created", message, events=1)
    drawn = store.handle(
        {
            "cmd": "draw_lots",
            "tournament": tournament_id,
            "numbers": inferred.numbers,
            "by": by,
        }
    )
    if not drawn["ok"]:
        return ImportReport("tournament", "created", drawn["error"]["message"], events=1)
    events = 2
    message += "; numbers " + ", ".join(
        f"{p} {n}" for p, n in sorted(inferred.numbers.items(), key=lambda x: x[1])
    )
    if inferred.round_order != tuple(range(1, len(inferred.round_order) + 1)):
        tournament = store.tournament()
        assert tournament is not None
        store.append(
            [
                RoundsReordered(
                    originator_id=TOURNAMENT_STREAM,
                    originator_version=tournament.version + 1,
                    at_ms=0,
                    by=by,
                    order=inferred.round_order,
                    reason=f"the rounds of {Path(path).name} follow the table in this order",
                )
            ]
        )
        events += 1
        moved = [f"{r}<-{t}" for r, t in enumerate(inferred.round_order, start=1) if r != t]
        message += "; rounds played in another order than the table's: " + ", ".join(moved)
    return ImportReport("tournament", "created", message, events=events)


def import_pgn(
    store: Store,
    path: str | Path,
    by: str = "import",
    created: list[ImportReport] | None = None,
) -> list[ImportReport]:
    """Import every game of one PGN file; one report per game. When the file creates
    the tournament, its report (game ``tournament``) is appended to ``created``."""
    reports: list[ImportReport] = []
    require_pgn(path)
    made = create_tournament_from_pgn(store, path, by)
    if made is not None and created is not None:
        created.append(made)
    tournament = store.tournament()
    rules = tournament.rules if tournament else DEFAULT_PROFILE
    boards_used: dict[int, int] = {}
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for index, pgn in enumerate(read_games(handle), start=1):
            name = pgn.headers.get("Round", "?")
            try:
                if pgn.errors:
                    players = f"{pgn.headers.get('White', '?')} - {pgn.headers.get('Black', '?')}"
                    raise CommandRefused(
                        f"game {name} ({players}), #{index} of {path}: {pgn.errors[0]}"
                    )
                sheet = score_sheet(pgn, boards_used)
                name = sheet.game
                if tournament is not None:
                    require_tournament_game(tournament, sheet)
                existing = store.game(sheet.game)
                if existing is not None:
                    same = list(existing.moves) == list(sheet.moves) and existing.result in (
                        sheet.result,
                        "*",
                    )
                    status = "already_imported" if same else "refused"
                    message = "" if same else f"game {sheet.game} exists with other moves/result"
                    reports.append(ImportReport(sheet.game, status, message))
                    continue
                events = import_score_sheet(sheet, rules, by)
                store.append(events)
                readings = [e for e in events if isinstance(e, ClockReadingRecorded)]
                summary = None
                if readings:
                    summary = clock_summary(clock_report(events, readings))
                reports.append(
                    ImportReport(sheet.game, "imported", events=len(events), clock=summary)
                )
            except CommandRefused as refused:
                reports.append(ImportReport(name, "refused", refused.message))
    return reports
