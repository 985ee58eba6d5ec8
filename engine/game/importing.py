"""Games from score sheets (PGN) become events, as one all-or-nothing batch.

A score sheet's result is a fact to import, not to re-derive (games of the 2013
Candidates were lost on time with the score ending before the flag fell); only where
the final position itself ends the game (5.1 a, 5.2) does the position's result
stand, the sheet's difference said in the reason. ``record_score_sheet`` records
one sheet after the fact, refused for a game already recorded or not one of the
tournament's (docs/import.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

from engine.clock.move_instants import (
    derive_move_instants,
    increment_credited_on_control_move,
)
from engine.clock.time_control import TimeControl, parse_time_control
from engine.commands import Command, command
from engine.errors import IllegalMove, MalformedCommand
from engine.events import (
    ClockReadingRecorded,
    Event,
    GameStarted,
    MovePlayed,
    ResultRecorded,
    clock_stream,
    game_stream,
)
from engine.fields import Instant
from engine.game.state import Game, evolve, mover, outcome_of
from engine.rules import DEFAULT_PROFILE, profile
from engine.side import SIDES, Side
from engine.termination import Termination
from engine.tournament.tournament import Tournament
from engine.world import World


@command(
    "record_score_sheet",
    summary="A finished (or adjourned) game recorded after the fact from its score sheet: "
    "its moves, result and, if known, clocks (the PGN import sends one per game).",
    events=(GameStarted, MovePlayed, ResultRecorded, ClockReadingRecorded),
    refusals=(
        (MalformedCommand, "", "the game is already recorded"),
        (
            IllegalMove,
            "",
            "a move cannot be read, is not legal where it stands, or is a null move",
        ),
        (
            MalformedCommand,
            "",
            "a player not of the tournament, a round not of it, a pairing other than the "
            "round's (or the playoff game's), an unknown result, rules or position, or a "
            "list holding other than moves, times or instants, or not one entry a move",
        ),
    ),
    notes={
        "game": "the game's id: `<round>.<board>` for a paired game, a playoff game's id, or "
        "any id for a game outside a tournament",
        "round": "the round the game belongs to (a playoff game: its stage's)",
        "board": "the board it was played on, in its round",
        "white": "the White player's id",
        "black": "the Black player's id",
        "result": "`1-0`, `0-1`, `1/2-1/2`, or `*` for a game not finished",
        "moves": "every move of the sheet, SAN or UCI, in order",
        "at": "when the game started, ISO-8601 with its zone",
        "move_at_ms": "when each move was completed (epoch ms), if known",
        "clocks_ms": "the mover's clock after each ply (ms, null where the sheet has none), "
        "e.g. PGN `[%clk]`: each is recorded as a clock reading and, without `move_at_ms`, "
        "gives the move instants",
        "time_control": "the game's time control (PGN `TimeControl` form, "
        "`40/7200:20/3600:900+30`); default the rules profile's",
        "time_control_assumed": "true when the sheet named no control (or one that cannot be "
        "read) and `time_control` is assumed: the clocks are stored as read, never judged "
        "against it, and the regulation clock of the game is unknown",
        "glitch_plies": "the plies (1-based) whose clock in `clocks_ms` is a broadcast glitch "
        "(it contradicts the same player's readings before and after it): stored as read and "
        "marked, never judged, not used for the move instants",
        "initial_fen": "a starting position other than the initial one",
        "rules": "the rules profile of a game outside a tournament: `candidates-2012` (default) "
        "or another profile; a tournament's game follows its rules",
        "tags": "the score sheet's PGN tags as read (`Site`, `ECO`, `Date` ...): kept with the "
        "game and written back on export",
        "date_known": "false when the sheet gives no day (`????.??.??`): `at` is then a "
        "placeholder and nothing is dated from it",
        "by": "who sent it, for the record (an arbiter, `dgt:<serial>` ...)",
    },
)
@dataclass(frozen=True, kw_only=True)
class RecordScoreSheet(Command):
    game: str
    round: int
    board: int
    white: str
    black: str
    result: str
    """``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` (not finished)."""
    moves: list[str]
    """SAN or UCI, in order."""
    at_ms: Instant
    """When the game started."""
    move_at_ms: list[int] | None = None
    """When each move was completed (epoch ms), if known."""
    clocks_ms: list[int | None] | None = None
    """The mover's clock after each ply (ms; null where the sheet has none), if recorded."""
    time_control: str | None = None
    """The game's control (PGN ``TimeControl`` form); the rules' control if absent."""
    time_control_assumed: bool = False
    """The sheet named no control and ``time_control`` (or the rules') is assumed: the
    recorded clocks are stored as read, never judged against it."""
    glitch_plies: list[int] | None = None
    """Plies (1-based) whose recorded clock is a broadcast glitch: kept as read, marked."""
    initial_fen: str | None = None
    rules: str | None = None
    """The rules profile of a game outside a tournament (a tournament's own rules otherwise)."""
    tags: dict[str, str] | None = None
    """The score sheet's PGN tags as read (``Site``, ``ECO``, ``Date`` ...): kept with the
    game and written back on export."""
    date_known: bool = True
    """False when the score sheet gives no day (``????.??.??``): ``at`` is then a
    placeholder, and nothing is dated from it."""
    by: str = "import"

    def decide(self, world: World) -> list[Event]:
        self.check()
        tournament = world.tournament()
        if tournament is not None:
            require_tournament_game(tournament, self)
        if world.game(self.game) is not None:
            raise MalformedCommand(
                f"game {self.game} is already recorded: a score sheet records a new game"
            )
        rules = tournament.rules if tournament else self.rules or DEFAULT_PROFILE
        return import_score_sheet(self, rules, self.by)

    def check(self) -> None:
        """Its lists hold what they must, one entry a move; its FEN is a position."""
        where = f"record_score_sheet: game {self.game}"
        if not all(isinstance(m, str) for m in self.moves):
            raise MalformedCommand(f"{where}: 'moves' must be a list of moves (SAN or UCI)")
        if self.move_at_ms is not None and not all(_whole(t) for t in self.move_at_ms):
            raise MalformedCommand(f"{where}: 'move_at_ms' must be a list of instants in ms")
        if self.clocks_ms is not None and not all(c is None or _whole(c) for c in self.clocks_ms):
            raise MalformedCommand(f"{where}: 'clocks_ms' must be a list of times in ms or null")
        if self.glitch_plies is not None and not all(
            _whole(p) and 1 <= p <= len(self.moves) and self.clocks_ms is not None
            for p in self.glitch_plies
        ):
            raise MalformedCommand(
                f"{where}: 'glitch_plies' must be plies of the game (1 to {len(self.moves)}) "
                "with a clock in 'clocks_ms'"
            )
        for name, values in (("move_at_ms", self.move_at_ms), ("clocks_ms", self.clocks_ms)):
            if values is not None and len(values) != len(self.moves):
                raise MalformedCommand(
                    f"{where}: {len(values)} entries in {name!r} for {len(self.moves)} moves "
                    "(one a move)"
                )
        if self.tags is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.tags.items()
        ):
            raise MalformedCommand(f"{where}: 'tags' must map tag names to texts")
        if self.initial_fen is not None:
            try:
                chess.Board(self.initial_fen)
            except ValueError:
                raise MalformedCommand(
                    f"{where}: FEN {self.initial_fen!r} is not a position"
                ) from None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def require_tournament_game(tournament: Tournament, sheet: RecordScoreSheet) -> None:
    """A game recorded in a tournament's store must be one of its games: its players,
    one of its rounds, and a pairing of that round when the lots are drawn,
    or the pairing of its playoff game."""
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


def import_score_sheet(sheet: RecordScoreSheet, rules: str, by: str = "import") -> list[Event]:
    """Every event of the game, or IllegalMove naming the game and the move."""
    if sheet.result not in ("1-0", "0-1", "1/2-1/2", "*"):
        raise MalformedCommand(f"game {sheet.game}: unknown result {sheet.result!r}")
    stream = game_stream(sheet.game)
    board = chess.Board(sheet.initial_fen) if sheet.initial_fen else chess.Board()
    time_control = sheet.time_control or profile(rules).time_control
    move_at_ms = sheet.move_at_ms
    clocks = (
        sheet.clocks_ms if sheet.clocks_ms and any(c is not None for c in sheet.clocks_ms) else None
    )
    device_rule = False
    control = _control_or_none(time_control)
    if (
        move_at_ms is None
        and clocks is not None
        and control is not None
        and not sheet.time_control_assumed
    ):
        # The readings place the moves in time under a stated control; a glitch does not
        # (3.5.1; Laws 2009 6.10 a: the clock on the table, its own rule recognised).
        glitches = set(sheet.glitch_plies or ())
        usable = [None if ply in glitches else c for ply, c in enumerate(clocks, start=1)]
        first = Side.to_move(board.turn)
        device_rule = increment_credited_on_control_move(control, first, usable)
        move_at_ms = derive_move_instants(
            control, sheet.at_ms, first, usable, increment_on_control_move=device_rule
        )
    events: list[Event] = [
        GameStarted(
            originator_id=stream,
            originator_version=1,
            at_ms=sheet.at_ms,
            by=by,
            game=sheet.game,
            round=sheet.round,
            board=sheet.board,
            white=sheet.white,
            black=sheet.black,
            time_control=time_control,
            rules=rules,
            initial_fen=sheet.initial_fen,
            move_times_known=move_at_ms is not None,
            tags=dict(sheet.tags) if sheet.tags else None,
            date_known=sheet.date_known,
            increment_on_control_move=device_rule,
        )
    ]
    # a starting position that ends the game (a dead position: Laws 2009 5.2 b) ends it
    # before any move
    ended: tuple[str, str] | None = outcome_of(board, rules)
    trailing: list[str] = []
    for index, text in enumerate(sheet.moves):
        if ended is not None:
            # Laws 5.1 a / 5.2: the position ended the game; what the sheet records after
            # it was not a move of the game. Kept as recorded, never played.
            trailing = _as_written(board, sheet.moves[index:])
            break
        try:
            move = chess.Move.from_uci(text)
            if move not in board.legal_moves:
                raise ValueError
        except ValueError:
            try:
                move = board.parse_san(text)
            except ValueError:
                raise IllegalMove(
                    f"game {sheet.game} ({sheet.white} - {sheet.black}): illegal move {text!r} "
                    f"at ply {index + 1} (position {board.fen()})"
                ) from None
        if not move:
            raise IllegalMove(
                f"game {sheet.game} ({sheet.white} - {sheet.black}): null move {text!r} at ply "
                f"{index + 1}: a pass is not a move of chess (Laws 1.1, 3)"
            )
        san = board.san(move)
        board.push(move)
        at = move_at_ms[index] if move_at_ms else sheet.at_ms
        events.append(
            MovePlayed(
                originator_id=stream,
                originator_version=len(events) + 1,
                at_ms=at,
                by=by,
                uci=move.uci(),
                san=san,
                ply=index + 1,
            )
        )
        ended = outcome_of(board, rules)
    last_at = events[-1].at_ms
    readings = _readings(sheet, events, clocks, by) if clocks is not None else []
    if ended is not None:
        result, termination = ended
        notes = []
        if sheet.result not in (result, "*"):
            # Laws 5.1 a, 5.2 a-b: mate, stalemate and a dead position end the game at once;
            # the position is decisive over the header.
            notes.append(
                f"the score sheet says {sheet.result}; the position ended the game "
                f"({termination.replace('_', ' ')}, {result}), which decides (Laws 5.1 a, 5.2)"
            )
        if trailing:
            notes.append(
                f"recorded after the end: {' '.join(trailing)} "
                f"({len(trailing)} trailing move{'s' if len(trailing) > 1 else ''}, not played)"
            )
        reason = "; ".join(notes)
    elif sheet.result == "*":
        return events + readings
    else:
        result, termination, reason = (
            sheet.result,
            Termination.IMPORTED,
            "result from the score sheet",
        )
    events.append(
        ResultRecorded(
            originator_id=stream,
            originator_version=len(events) + 1,
            at_ms=last_at,
            by=by,
            result=result,
            termination=termination,
            reason=reason,
        )
    )
    return events + readings


def _as_written(board: chess.Board, moves: Sequence[str]) -> list[str]:
    """Trailing moves in SAN where the position allows them, else as the sheet has them."""
    after = board.copy(stack=False)
    out: list[str] = []
    for text in moves:
        try:
            move = chess.Move.from_uci(text)
            if move not in after.legal_moves:
                move = after.parse_san(text)
        except ValueError:
            try:
                move = after.parse_san(text)
            except ValueError:
                out.append(str(text))
                continue
        out.append(after.san(move))
        after.push(move)
    return out


def _control_or_none(tag: str) -> TimeControl | None:
    try:
        control = parse_time_control(tag)
    except MalformedCommand:
        return None
    return control if control.known else None


def _readings(
    sheet: RecordScoreSheet, events: list[Event], clocks: Sequence[int | None], by: str
) -> list[Event]:
    """Each recorded clock as a reading on the clock stream, as read, beside the regulation
    clock where a control was applied (none beside it when the control was assumed or is
    unknown, nor beside a glitch: nothing to judge the reading by)."""
    readings: list[Event] = []
    state: Game | None = None
    glitches = set(sheet.glitch_plies or ())
    first_read: dict[Side, int] = {}
    for ply, recorded in enumerate(clocks, start=1):
        if recorded is not None and ply not in glitches:
            first_read.setdefault(mover(sheet.initial_fen, ply), recorded)
    shown: dict[Side, int] = {}
    assumed = sheet.time_control_assumed
    for event in events:
        state = evolve(state, event)
        if not isinstance(event, MovePlayed) or state is None:
            continue
        side = mover(state.initial_fen, event.ply)
        recorded = clocks[event.ply - 1] if event.ply - 1 < len(clocks) else None
        if recorded is None:
            continue
        glitch = event.ply in glitches
        clock = state.clock
        if not glitch:
            shown[side] = recorded
        values = {**shown, side: recorded}
        for s in SIDES:
            if s not in values:  # not read yet: its first period's time, or its first reading
                known = clock.control.initial_ms(s) if clock is not None else None
                values[s] = known if known is not None else first_read.get(s, recorded)
        judged = clock is not None and not assumed and not glitch
        readings.append(
            ClockReadingRecorded(
                originator_id=clock_stream(sheet.game),
                originator_version=len(readings) + 1,
                at_ms=event.at_ms,
                by=by,
                game=sheet.game,
                white_ms=values[Side.WHITE],
                black_ms=values[Side.BLACK],
                running=clock.running if clock is not None else side.opponent,
                model_white_ms=clock.remaining_ms(Side.WHITE) if judged and clock else None,
                model_black_ms=clock.remaining_ms(Side.BLACK) if judged and clock else None,
                ply=event.ply,
                glitch=glitch,
            )
        )
    return readings
