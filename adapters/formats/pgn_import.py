"""Score sheets in, events out: ``candidates import-pgn FILE...``.

Each game becomes one all-or-nothing batch of events (``engine.game.importing``),
appended in one transaction with its clock readings, and the tournament a file
creates is one transaction too: a refusal, a crash or a kill never leaves half a
game. The whole file is read and checked before anything is appended, and the door
is strict (players, rounds and pairings must fit the stored event), because an
append-only store cannot be repaired afterwards. What is inferred, overridden and
refused is in docs/import.md."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TextIO, TypedDict

import chess
import chess.pgn

from adapters.formats.import_profile import check_format, choose_profile
from adapters.formats.pgn_players import Identity, Known, Seen, player_id, resolve
from adapters.formats.sheet_clocks import (
    ClockSummary,
    clock_summary,
    control_for,
    recorded_clocks,
)
from adapters.formats.staging import Staged
from adapters.store import Store
from engine.clock.move_instants import glitched_readings
from engine.clock.time_control import read_time_control_text
from engine.commands import checked
from engine.errors import CommandRefused, MalformedCommand
from engine.events import ClockReadingRecorded, GameStarted, ResultRecorded
from engine.game.importing import RecordScoreSheet, require_tournament_game
from engine.rules import DEFAULT_PROFILE, PROFILES, profile
from engine.side import Side
from engine.timefmt import clock_text
from engine.tournament.berger_inference import cycles_for, infer_numbers
from engine.tournament.founding import CreateTournament, DrawLots, ReorderRounds
from engine.tournament.pairing import rounds_per_cycle
from projections.clock import clock_report

__all__ = ["ImportOptions", "ImportReport", "import_pgn", "player_id", "read_games"]


def tag_instant(date_tag: str, time: str | None = None) -> int:
    """Epoch ms of a PGN Date (and optional UTCTime/Time) tag; 0 when unknown."""
    try:
        day = datetime.strptime(date_tag, "%Y.%m.%d").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return 0
    if time:
        try:
            clock = datetime.strptime(time, "%H:%M:%S")
            day = day.replace(hour=clock.hour, minute=clock.minute, second=clock.second)
        except ValueError:
            pass
    return int(day.timestamp() * 1000)


@dataclass(frozen=True)
class ImportOptions:
    """What the user says about the event, instead of what the file lets us infer."""

    cycles: int | None = None
    """1 or 2 (3.1: double round robin); inferred from the last round when None."""
    rounds: int | None = None
    """The number of rounds of the whole event (gives the cycles)."""
    start_date: str | None = None
    """ISO date of day 1 (3.2)."""
    time_control: str | None = None
    """A TimeControl for every game, overriding the tags."""
    rules: str | None = None
    """The rules profile (``engine.rules``): laws, time control and tie-break chain."""
    players: Mapping[str, str] | None = None
    """Name as written -> player id (``--players FILE``)."""
    round_from_order: bool = False
    """Number the rounds from the order of the games when Round tags are missing."""


def players_file(path: str | Path) -> dict[str, str]:
    """A ``--players FILE``: a JSON object mapping each name as written to a player id."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as error:
        raise MalformedCommand(f"--players {path}: cannot read it as JSON ({error})") from None
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in raw.items()
    ):
        raise MalformedCommand(
            f'--players {path}: expected a JSON object of "name as written": "player id"'
        )
    return dict(raw)


class ImportReportJson(TypedDict, total=False):
    """An import report as ``candidates import-pgn`` prints it (``ImportReport``)."""

    game: str
    status: str
    events: int
    message: str
    clock: ClockSummary
    warnings: list[str]


@dataclass
class ImportReport:
    game: str
    status: str
    """``imported``, ``already_imported``, ``scheduled`` (no moves and ``*``: nothing
    recorded), ``refused`` (a game or the whole file) or ``created`` (the tournament)."""
    message: str = ""
    events: int = 0
    clock: ClockSummary | None = None
    """For games with recorded clocks: plies compared with the regulation clock,
    how many agree, and the known artefacts and mismatches by kind (the per-ply
    detail is ``candidates clocks GAME_ID``)."""
    warnings: list[str] = field(default_factory=list)
    """What was inferred or set aside, for the user to check (and fix with an option)."""

    def as_dict(self) -> ImportReportJson:
        out = ImportReportJson(game=self.game, status=self.status, events=self.events)
        if self.message:
            out["message"] = self.message
        if self.clock is not None:
            out["clock"] = self.clock
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def read_games(handle: TextIO) -> Iterator[chess.pgn.Game]:
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return
        yield game


def read_text(path: str | Path) -> tuple[str, list[str]]:
    """The file's text: UTF-8 (a BOM allowed), else Latin-1 with a warning; line ends
    as newlines (a Windows file's ``[%clk\\r\\n01:02:55]``, a comment broken across
    lines, is then read like any other)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise MalformedCommand(f"{path}: cannot read the file ({error.strerror})") from None
    try:
        text, warnings = data.decode("utf-8-sig"), []
    except UnicodeDecodeError:
        text, warnings = data.decode("latin-1"), [f"{path} is not UTF-8: read as Latin-1"]
    return text.replace("\r\n", "\n").replace("\r", "\n"), warnings


@dataclass
class Parsed:
    """One game of the file, read but not yet checked."""

    index: int
    pgn: chess.pgn.Game
    round: int | None
    board: int | None

    def header(self, name: str, default: str = "") -> str:
        return str(self.pgn.headers.get(name, default) or default).strip()

    def label(self) -> str:
        return f"#{self.index} ({self.header('White', '?')} - {self.header('Black', '?')})"


_ROUND = re.compile(r"(\d{1,6})(?:\.(\d{1,6}))?")
"""A Round tag: the round, and the board after a point (``6.3``), six digits each at most
(a longer number is no round: it is not converted, and the game is refused as one
without a round)."""


def parse_file(text: str) -> list[Parsed]:
    """The games of a file; MalformedCommand when none has a legal move or a result
    (python-chess reads any text as games of unknown players with no moves: a README
    gives dozens, and importing those would create games that cannot be removed)."""
    handle = io.StringIO(text)
    out: list[Parsed] = []
    read = 0
    usable = False
    while True:
        try:
            pgn = chess.pgn.read_game(handle)
        except (ValueError, KeyError, IndexError) as error:  # a tag or move text no parser reads
            raise MalformedCommand(
                f"game #{len(out) + 1}: the PGN cannot be read ({error})"
            ) from None
        if pgn is None:
            if not usable:
                raise MalformedCommand(
                    f"the file is not PGN: none of the {read} game(s) read from it has a legal "
                    "move or a result (1-0, 0-1, 1/2-1/2); nothing was imported"
                )
            return out
        read += 1
        has_moves = any(bool(move) for move in pgn.mainline_moves())  # a null move is not
        usable = usable or (has_moves and not pgn.errors)
        usable = usable or pgn.headers.get("Result") in FINAL_RESULTS
        if not pgn.headers.get("White") and not pgn.headers.get("Black") and pgn.errors:
            continue  # garbage between games, not a game
        match = _ROUND.fullmatch(str(pgn.headers.get("Round", "")).strip())
        round_no = int(match[1]) if match and int(match[1]) > 0 else None
        board_no = int(match[2]) if match and match[2] else None
        board_tag = str(pgn.headers.get("Board", "")).strip()
        if board_no is None and board_tag.isdigit() and len(board_tag) <= 6 and int(board_tag) > 0:
            board_no = int(board_tag)  # Round and Board apart, as federations write them
        out.append(Parsed(len(out) + 1, pgn, round_no, board_no))


def _side_key(game: Parsed, side: str) -> tuple[str, str]:
    fide = game.header(f"{side}FideId")
    return game.header(side, "?") or "?", fide if fide.isdigit() and int(fide) > 0 else ""


def identities(
    games: Sequence[Parsed], options: ImportOptions, store: Store
) -> dict[tuple[str, str], Identity]:
    """Every (name, FIDE ID) of the file -> its player (``adapters.formats.pgn_players``)."""
    seen: dict[tuple[str, str], Seen] = {}
    for game in games:
        for side in ("White", "Black"):
            key = _side_key(game, side)
            entry = seen.setdefault(key, Seen(key[0], key[1]))
            elo = game.header(f"{side}Elo")
            if elo.isdigit() and 0 < int(elo) <= 10_000:
                entry.rating = int(elo)
            entry.title = game.header(f"{side}Title") or entry.title
            entry.federation = game.header(f"{side}Fed") or entry.federation
    tournament = store.reads.tournament()
    known = [Known(p.id, p.name, p.fide_id) for p in tournament.players] if tournament else []
    return resolve(list(seen.values()), options.players, known)


def number_rounds(games: Sequence[Parsed], players: int, options: ImportOptions) -> None:
    """Every game has a round, or the file is refused naming the games without one."""
    missing = [g for g in games if g.round is None]
    if not missing:
        return
    if not options.round_from_order:
        listed = ", ".join(g.label() for g in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise MalformedCommand(
            f"{len(missing)} game(s) without a readable Round tag: {listed}{more}. Nothing was "
            "imported: add the Round tags, or pass --round-from-order to number the rounds "
            f"from the order of the games ({max(1, players // 2)} games a round)"
        )
    per_round = max(1, players // 2)
    for position, game in enumerate(games):
        game.round, game.board = position // per_round + 1, position % per_round + 1


def import_pgn(
    store: Store,
    path: str | Path,
    by: str = "import",
    created: list[ImportReport] | None = None,
    options: ImportOptions | None = None,
) -> list[ImportReport]:
    """Import every game of one PGN file; one report per game. When the file creates the
    tournament, its report (game ``tournament``, with the warnings of what was inferred)
    is appended to ``created``. A file refused as a whole (ambiguous players, games
    without rounds, a file no parser reads) gives one report ``file`` and appends nothing."""
    options = options or ImportOptions()
    try:
        if options.rules is not None:
            profile(options.rules)
        text, file_warnings = read_text(path)
        games = parse_file(text)
        who = identities(games, options, store)
        number_rounds(games, len({i.id for i in who.values()}), options)
        chosen = None
        if store.reads.tournament() is None:
            entrants = len({i.id for i in who.values()})
            chosen = choose_profile(options.rules, _event_name(games), entrants, _year(games))
            check_format(profile(chosen[0]), options.cycles, options.rounds)
    except CommandRefused as refused:
        return [ImportReport("file", "refused", f"{path}: {refused.message}")]
    made = _create_tournament(store, path, games, who, options, by, chosen)
    if made is not None:
        made.warnings[:0] = file_warnings
        if created is not None:
            created.append(made)
    tournament = store.reads.tournament()
    rules = tournament.rules if tournament else options.rules or DEFAULT_PROFILE
    boards_used: dict[int, int] = {}
    reports: list[ImportReport] = []
    for game in games:
        name = game.header("Round", "?")
        warnings: list[str] = []
        try:
            if game.pgn.errors:
                raise MalformedCommand(
                    f"game {name} {game.label()} of {path}: {game.pgn.errors[0]}"
                )
            sheet = _score_sheet(game, who, boards_used, options, rules, warnings)
            name = sheet.game
            if tournament is not None:
                require_tournament_game(tournament, sheet)
            if not sheet.moves and sheet.result == "*" and sheet.initial_fen is None:
                # a round's game published before it began: scheduled, not started
                reports.append(
                    ImportReport(
                        sheet.game,
                        "scheduled",
                        f"game {sheet.game}: no moves and no result (*): scheduled, not "
                        "started; nothing is recorded for it",
                        warnings=warnings,
                    )
                )
                continue
            existing = store.reads.game(sheet.game)
            if existing is not None:
                same = list(existing.moves) == list(sheet.moves) and existing.result in (
                    sheet.result,
                    "*",
                )
                status = "already_imported" if same else "refused"
                message = "" if same else f"game {sheet.game} exists with other moves/result"
                reports.append(ImportReport(sheet.game, status, message))
                continue
            _, events = store.execute(replace(sheet, rules=rules, by=by))
            readings = [e for e in events if isinstance(e, ClockReadingRecorded)]
            summary = clock_summary(clock_report(events, readings)) if readings else None
            started = next((e for e in events if isinstance(e, GameStarted)), None)
            if summary is not None and started is not None and started.increment_on_control_move:
                summary["device_rule"] = "increment_on_control_move"
                warnings.append(
                    f"game {sheet.game}: the clock on the table credits the next period's "
                    "increment on the move completing a period (its readings show it); the "
                    "regulation clock follows that device's rule (docs/clocks.md)"
                )
            ended = next((e for e in events if isinstance(e, ResultRecorded)), None)
            if ended is not None and ended.reason and ended.termination != "imported":
                warnings.append(f"game {sheet.game}: {ended.reason}")
            reports.append(
                ImportReport(
                    sheet.game, "imported", events=len(events), clock=summary, warnings=warnings
                )
            )
        except CommandRefused as refused:
            reports.append(ImportReport(name, "refused", refused.message, warnings=warnings))
    return reports


def _score_sheet(
    game: Parsed,
    who: Mapping[tuple[str, str], Identity],
    boards_used: dict[int, int],
    options: ImportOptions,
    rules: str,
    warnings: list[str],
) -> RecordScoreSheet:
    """One PGN game as a score sheet (moves as UCI from the mainline)."""
    assert game.round is not None
    round_no = game.round
    board_no = game.board if game.board is not None else boards_used.get(round_no, 0) + 1
    boards_used[round_no] = max(boards_used.get(round_no, 0), board_no)
    game_id = f"{round_no}.{board_no}"
    headers = game.pgn.headers
    fen = headers.get("FEN") if headers.get("SetUp") == "1" else None
    if fen is not None:
        try:
            chess.Board(fen)
        except ValueError:
            raise MalformedCommand(
                f"game {game_id} {game.label()}: FEN {fen!r} is not a position"
            ) from None
    clocks = recorded_clocks(game.pgn)
    time_control, assumed = control_for(
        game, game_id, clocks, options.time_control, rules, warnings
    )
    glitches: list[int] = []
    if clocks and time_control not in ("?", "-") and not assumed:
        control = read_time_control_text(time_control)
        assert control is not None
        first = Side.BLACK if fen and chess.Board(fen).turn == chess.BLACK else Side.WHITE
        for ply in glitched_readings(control, first, clocks):
            value = clocks[ply]
            assert value is not None
            warnings.append(
                f"game {game_id}: [%clk {clock_text(value)}] after ply {ply + 1} contradicts "
                "the same player's readings before and after it (a broadcast glitch): kept "
                "as read and exported marked as a glitch, not judged, not used for the move "
                "instants"
            )
            glitches.append(ply + 1)
    return RecordScoreSheet(
        game=game_id,
        round=round_no,
        board=board_no,
        white=who[_side_key(game, "White")].id,
        black=who[_side_key(game, "Black")].id,
        result=game.header("Result", "*") or "*",
        moves=[move.uci() for move in game.pgn.mainline_moves()],
        clocks_ms=clocks or None,
        at_ms=tag_instant(game.header("Date"), game.header("UTCTime") or None),
        time_control=time_control,
        time_control_assumed=assumed,
        glitch_plies=glitches or None,
        initial_fen=fen,
        tags={str(k): str(v) for k, v in headers.items()},
        date_known=_date(game.header("Date")) is not None,
    )


FINAL_RESULTS = ("1-0", "0-1", "1/2-1/2")


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-") or "tournament"


def _create_tournament(
    store: Store,
    path: str | Path,
    games: Sequence[Parsed],
    who: Mapping[tuple[str, str], Identity],
    options: ImportOptions,
    by: str,
    chosen: tuple[str, str] | None = None,
) -> ImportReport | None:
    """Create the tournament of the file in an empty store (None when the store already
    holds one or the file has fewer than two players). ``chosen``: the rules profile and
    why it applies (``choose_profile``)."""
    if store.reads.tournament() is not None:
        return None
    players = list({i.id: i for i in who.values()}.values())
    if len(players) < 2:
        return None
    warnings: list[str] = []
    pairings = [
        (g.round or 0, who[_side_key(g, "White")].id, who[_side_key(g, "Black")].id) for g in games
    ]
    last_round = max((r for r, _, _ in pairings), default=0)
    ring = rounds_per_cycle(len(players))
    event_name = _event_name(games)
    rules, why = chosen or choose_profile(options.rules, event_name, len(players), _year(games))
    rp = profile(rules)
    if rp.cycles is not None:
        # The format is part of the rules (3.1): a Candidates is a double round robin of
        # 14 rounds whatever part of it the file holds; a part of it is in progress.
        cycles = rp.cycles
        if rp.players is not None and len(players) != rp.players:
            warnings.append(
                f"{rules} is a {rp.format_text()}; the file has {len(players)} players "
                "(pass --rules round-robin for another event)"
            )
    elif options.cycles is not None:
        cycles = options.cycles
    elif options.rounds is not None:
        cycles = cycles_for(len(players), options.rounds)
        if options.rounds != cycles * ring:
            warnings.append(
                f"--rounds {options.rounds} is not a whole number of cycles of {ring} rounds "
                f"for {len(players)} players: {cycles} cycle(s) assumed"
            )
    else:
        cycles = cycles_for(len(players), last_round) if last_round else 2
        warnings.append(
            f"{cycles} cycle{'s' if cycles > 1 else ''} inferred from the rounds present "
            f"(last round {last_round}, {ring} rounds a cycle for {len(players)} players)"
            + (
                "; pass --cycles 2 if the event is a double round robin"
                if cycles == 1
                else "; pass --cycles to say otherwise"
            )
        )
    dates = [day for day in (_date(g.header("Date")) for g in games) if day is not None]
    start_date: str | None
    if options.start_date is not None:
        start_date = options.start_date
    elif dates:
        start_date = (min(dates) - timedelta(days=2)).date().isoformat()
        warnings.append(
            f"start date {start_date} inferred (two days before the first round, 3.2); "
            "pass --start-date to say otherwise"
        )
    else:
        # unknown is unknown: no day is invented, and no schedule is claimed from one
        start_date = None
        warnings.append(
            "the games carry no date (Date ????.??.??): the start date is unknown and no "
            "schedule (3.2) is given; pass --start-date to state it"
        )
    name = event_name or Path(path).stem
    year = min(dates).year if dates else ""
    tournament_id = _slug(name if str(year) in name else f"{name} {year}")
    staged = Staged(store)
    try:
        staged.decide(
            checked(
                CreateTournament(
                    tournament=tournament_id,
                    name=name,
                    rules=rules,
                    start_date=start_date or None,
                    cycles=cycles,
                    players=[p.as_player() for p in players],
                    by=by,
                )
            )
        )
    except CommandRefused as refused:
        return ImportReport("tournament", "refused", refused.message, warnings=warnings)
    known = ", ".join(sorted(PROFILES))
    message = (
        f"{len(players)} players, {cycles} cycle(s) ({cycles * ring} rounds), start "
        f"{start_date or 'unknown'}, rules {rules} ({why}: {rp.tiebreak_source}; pass --rules "
        f"PROFILE to choose another: {known})"
    )
    inferred = None
    if all(r > 0 for r, _, _ in pairings):
        inferred = infer_numbers(sorted(p.id for p in players), pairings, cycles)
    if inferred is None:
        message += (
            "; the games do not follow a Berger table (no lots recorded): the standings "
            "follow the results"
        )
    else:
        try:
            staged.decide(
                checked(DrawLots(tournament=tournament_id, numbers=dict(inferred.numbers), by=by))
            )
        except CommandRefused as refused:
            warnings.append(refused.message)
            inferred = None
    if inferred is not None:
        message += "; numbers " + ", ".join(
            f"{p} {n}" for p, n in sorted(inferred.numbers.items(), key=lambda x: x[1])
        )
        if inferred.round_order != tuple(range(1, len(inferred.round_order) + 1)):
            try:
                staged.decide(
                    checked(
                        ReorderRounds(
                            tournament=tournament_id,
                            order=list(inferred.round_order),
                            reason=f"the rounds of {Path(path).name} follow the table in "
                            "this order",
                            by=by,
                        )
                    )
                )
            except CommandRefused as refused:
                warnings.append(f"the rounds could not be reordered: {refused.message}")
            else:
                moved = [f"{r}<-{t}" for r, t in enumerate(inferred.round_order, start=1) if r != t]
                message += "; rounds played in another order than the table's: " + ", ".join(moved)
    try:  # the tournament, its lots and round order: one transaction, or nothing
        decided = store.execute_all(staged.commands)
    except CommandRefused as refused:
        return ImportReport("tournament", "refused", refused.message, warnings=warnings)
    events = sum(len(events) for _, events in decided)
    return ImportReport("tournament", "created", message, events=events, warnings=warnings)


def _date(text: str) -> datetime | None:
    """A PGN Date tag as a day, None when it is not one (``2013.02.30``, ``????.??.??``)."""
    try:
        return datetime.strptime(text, "%Y.%m.%d")
    except ValueError:
        return None


def _event_name(games: Sequence[Parsed]) -> str:
    return next((g.header("Event") for g in games if g.header("Event")), "")


def _year(games: Sequence[Parsed]) -> int | None:
    """The year the file's first dated game was played (``2024.04.04``, ``2024.??.??``)."""
    for game in games:
        found = re.match(r"^(\d{4})\.", game.header("Date") or "")
        if found:
            return int(found[1])
    return None


def check_start_date(text: str) -> str:
    """``--start-date``: an ISO date."""
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise MalformedCommand(
            f"--start-date {text!r} is not an ISO date (e.g. 2018-03-09)"
        ) from None
