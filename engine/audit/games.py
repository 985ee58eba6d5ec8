"""Every game judged again from its events, under its own rules profile.

For each ``game/<id>`` stream, in order: every move legal in the position and
recorded as the position names it (Laws 3, 4; SAN and ply), nothing after a
result or after the position ended the game (5.1 a, 5.2, and from the 2014 Laws
9.6: fivefold repetition and 75 moves, automatic only in a profile that says
so), every ending the position must show really shown, and the rule findings:
each arbiter override, each draw with no accepted claim behind it (3.9.2 b:
"The players cannot draw a game by agreement"), each draw declared for a dead
position (Laws 2009 5.2 b) judged by the engine's search (its recorded evidence, or
the search run here for a draw recorded without it: ``engine.game.dead_position``),
each result imported from a score sheet with nothing behind it, each correction of the record
(``arbiter_correction``: ``MovesCorrected``, ``ResultCorrected``; the moves of a
corrected line are checked from the position where it starts).

The rules are the game's own (``GameStarted.rules``): a ``candidates-2012``
game is judged under the Laws of 2009, where a fivefold repetition does not end
the game by itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import chess

from engine.audit.findings import INFO, INTEGRITY, RULE, Finding, Severity
from engine.audit.incidents import BOOK_TERMINATIONS, INCIDENT_REASON
from engine.events import (
    ClaimRuled,
    ClockAdjusted,
    Event,
    FlagRuled,
    GameStarted,
    IllegalMoveRecorded,
    MovePlayed,
    MovesCorrected,
    ResultCorrected,
    ResultRecorded,
    stream_game_id,
)
from engine.game import state as games
from engine.game.dead_position import Verdict, search
from engine.game.state import Game, outcome_of
from engine.rules import DEFAULT_PROFILE, PROFILES, RulesProfile
from engine.side import Side
from engine.termination import Termination
from engine.timefmt import format_instant

POSITION_ENDINGS = frozenset(
    {
        "checkmate",
        "stalemate",
        "insufficient_material",
        "seventyfive_moves",
        "fivefold_repetition",
    }
)
"""Terminations the final position itself must show (Laws 5.1, 5.2, 9.6)."""
SIDE_VALUES = frozenset(side.value for side in Side)


@dataclass
class GamesAudit:
    """What judging the game streams gave."""

    findings: list[Finding] = field(default_factory=list)
    games: dict[str, Game] = field(default_factory=dict)
    """Each game folded from its events, as the engine folds it."""
    unsound: set[str] = field(default_factory=set)
    """Games whose events the engine could not have recorded (an illegal move, an
    event that cannot be folded): their positions cannot be rebuilt from the moves."""


def game_streams(events: Iterable[Event]) -> dict[str, list[Event]]:
    """The events of each ``game/<id>`` stream, in the order given."""
    out: dict[str, list[Event]] = {}
    for event in events:
        if event.originator_id.startswith("game/"):
            game_id = stream_game_id(event.originator_id)
            if game_id is not None:
                out.setdefault(game_id, []).append(event)
    return out


def judge_games(events: Iterable[Event]) -> GamesAudit:
    """Judge every game stream among ``events`` (each already checked well formed)."""
    audit = GamesAudit()
    for game_id, stream in game_streams(events).items():
        _GameJudge(game_id, audit).judge(stream)
    return audit


class _GameJudge:
    def __init__(self, game_id: str, audit: GamesAudit) -> None:
        self.game_id = game_id
        self.audit = audit
        self.state: Game | None = None
        self.board: chess.Board | None = None
        self.rules: RulesProfile = PROFILES[DEFAULT_PROFILE]
        self.finished: ResultRecorded | None = None
        self.ended_by_position: tuple[str, str] | None = None
        self.previous: Event | None = None
        self.accepted_claim = False

    def add(self, severity: Severity, kind: str, message: str, event: Event) -> None:
        self.audit.findings.append(Finding(severity, kind, message, event))

    def unsound(self, kind: str, message: str, event: Event) -> None:
        self.audit.unsound.add(self.game_id)
        self.add(INTEGRITY, kind, message, event)

    def judge(self, stream: list[Event]) -> None:
        for event in stream:
            try:
                self.judge_event(event)
                self.state = games.evolve(self.state, event)
            except Exception as exc:  # the audit names what it cannot judge, and goes on
                self.unsound(
                    "unjudgeable_event",
                    f"game {self.game_id}: {type(event).__name__} cannot be judged "
                    f"({type(exc).__name__}: {exc})",
                    event,
                )
            self.previous = event
        if self.state is not None:
            self.audit.games[self.game_id] = self.state

    def judge_event(self, event: Event) -> None:
        game_id = self.game_id
        if self.finished is not None and isinstance(event, MovePlayed | ResultRecorded):
            self.add(
                INTEGRITY,
                "after_result",
                f"game {game_id} goes on after its result ({format_instant(self.finished.at_ms)})",
                event,
            )
        elif self.ended_by_position is not None and isinstance(event, MovePlayed):
            result, termination = self.ended_by_position
            self.add(
                INTEGRITY,
                "after_result",
                f"game {game_id} goes on after the position ended it ({result}, "
                f"{termination}, under {self.rules.name})",
                event,
            )
        match event:
            case GameStarted():
                self.start(event)
            case MovePlayed():
                self.move(event)
            case ResultRecorded():
                self.finished = event
                self.result(event)
            case MovesCorrected():
                self.correction(event)
            case ResultCorrected():
                self.result_correction(event)
            case FlagRuled() if event.override:
                self.add(RULE, "arbiter_override", flag_override_text(event, game_id), event)
            case ClockAdjusted():
                self.adjustment(event)
            case ClaimRuled():
                if event.decision == "accepted":
                    self.accepted_claim = True
                if event.override:
                    self.add(
                        RULE,
                        "arbiter_override",
                        f"{event.arbiter} ruled against the verification in game {game_id} "
                        f"({type(event).__name__}): {event.reason or 'no reason'}",
                        event,
                    )

    def start(self, event: GameStarted) -> None:
        rules = PROFILES.get(event.rules)
        if rules is None:
            self.add(
                INTEGRITY,
                "unknown_rules",
                f"game {self.game_id} names the rules profile {event.rules!r}, which this "
                f"engine does not know; judged under {DEFAULT_PROFILE}",
                event,
            )
        self.rules = rules or PROFILES[DEFAULT_PROFILE]
        try:
            self.board = chess.Board(event.initial_fen) if event.initial_fen else chess.Board()
        except ValueError:
            self.unsound("bad_position", f"invalid FEN {event.initial_fen}", event)
            self.board = chess.Board()

    def move(self, event: MovePlayed, named: Event | None = None) -> None:
        """Judge a move; the finding names ``named`` (the correction that carried the
        move) or the move itself."""
        board = self.board
        where = named or event
        if board is None:
            self.unsound("illegal_move", "a move before the game started", where)
            return
        try:
            move: chess.Move | None = chess.Move.from_uci(event.uci)
        except ValueError:
            move = None
        if move is None or move not in board.legal_moves:
            self.unsound(
                "illegal_move",
                f"{event.uci} ({event.san}) is not legal in game {self.game_id} at ply "
                f"{len(board.move_stack) + 1} (position {board.fen()})",
                where,
            )
            # carry on as the engine recorded it, so later moves are judged where they were played
            if move is not None and board.piece_at(move.from_square) is not None:
                board.push(move)
            return
        san = board.san(move)
        if san != event.san or event.ply != len(board.move_stack) + 1:
            self.add(
                INTEGRITY,
                "illegal_move",
                f"move {event.uci} is recorded as {event.san!r} at ply {event.ply}; "
                f"the position makes it {san!r} at ply {len(board.move_stack) + 1}",
                where,
            )
        board.push(move)
        if self.ended_by_position is None:
            self.ended_by_position = outcome_of(board, self.rules.name)

    def correction(self, event: MovesCorrected) -> None:
        """List the correction (Laws 2009 7.4 a, 6.13), and check its moves from the
        position where it starts."""
        self.add(
            RULE,
            "arbiter_correction",
            f"{event.arbiter} corrected the moves of game {self.game_id} after ply "
            f"{event.from_ply}: {' '.join(event.replaced_san) or '(none)'} -> "
            f"{' '.join(event.san) or '(none)'}: {event.reason}",
            event,
        )
        board = self.board = self.board or chess.Board()
        if not 0 <= event.from_ply <= len(board.move_stack):
            self.unsound(
                "illegal_move",
                f"game {self.game_id}: a correction from ply {event.from_ply}, but "
                f"{len(board.move_stack)} move(s) were recorded",
                event,
            )
            return
        while len(board.move_stack) > event.from_ply:
            board.pop()
        self.ended_by_position = None
        for uci, san in zip(event.uci, event.san, strict=False):
            self.move(
                MovePlayed(
                    originator_id=event.originator_id,
                    originator_version=event.originator_version,
                    at_ms=event.at_ms,
                    by=event.by,
                    uci=uci,
                    san=san,
                    ply=len(board.move_stack) + 1,
                ),
                named=event,
            )

    def result_correction(self, event: ResultCorrected) -> None:
        """The arbiter corrected a result, or withdrew it (the game goes on)."""
        if event.result is None:
            self.finished = None
        now = f"{event.result} ({event.termination})" if event.result else "withdrawn"
        self.add(
            RULE,
            "arbiter_correction",
            f"{event.arbiter} corrected the result of game {self.game_id}: "
            f"{event.replaced_result} ({event.replaced_termination}) -> {now}: {event.reason}",
            event,
        )

    def adjustment(self, event: ClockAdjusted) -> None:
        if self._is_penalty(event):
            return  # a penalty the rules fix (Laws 7.4 b, 9.5), recorded with its cause
        if INCIDENT_REASON.match(event.reason):
            return  # 13.4 b, c: the incident book's ruling (engine.audit.incidents checks it)
        self.add(
            RULE,
            "arbiter_override",
            f"{event.arbiter} adjusted {event.side}'s clock by {event.delta_ms / 1000:+.1f} s "
            f"in game {self.game_id}: {event.reason}",
            event,
        )

    def _is_penalty(self, event: ClockAdjusted) -> bool:
        """The adjustment the rules fix for the event just before it, at the same instant:
        an illegal move (2009 7.4 b; 2023 7.5.5) or an incorrect claim (9.5; 3.7.1.b.3),
        of the amount the game's profile sets for its stage, to the penalised side's
        opponent."""
        cause = self.previous
        if cause is None or cause.at_ms != event.at_ms or self.state is None:
            return False
        penalties = self.rules.penalties_for(self.state.stage)
        if isinstance(cause, IllegalMoveRecorded):
            return (
                event.delta_ms == penalties.illegal_move_ms
                and cause.side in SIDE_VALUES
                and event.side == Side(cause.side).opponent
            )
        if isinstance(cause, ClaimRuled):
            return (
                cause.decision == "rejected"
                and cause.incorrect_claims > 0
                and event.delta_ms == penalties.incorrect_claim_ms
            )
        return False

    def result(self, event: ResultRecorded) -> None:
        game_id = self.game_id
        board = self.board or chess.Board()
        by_claim = isinstance(self.previous, ClaimRuled) and self.previous.decision == "accepted"
        # 6.9 under a supervised profile: the arbiter ruled the flag fallen, the result follows
        # 6.11: both flags down in the last period, their order unknown: the ruling's draw
        by_flag = isinstance(self.previous, FlagRuled) and self.previous.decision in (
            "fallen",
            "both_fallen",
        )
        backed = self.accepted_claim or by_flag
        if event.termination in POSITION_ENDINGS and not by_claim:
            shown = outcome_of(board, self.rules.name)
            if shown is None or shown != (event.result, event.termination):
                self.add(
                    INTEGRITY,
                    "impossible_result",
                    f"game {game_id} is recorded as {event.result} by {event.termination}, "
                    f"but under {self.rules.name} the final position ({board.fen()}) does "
                    "not show it",
                    event,
                )
            return
        if event.termination in BOOK_TERMINATIONS:
            return  # 13.4 d, f, 6.6 a, 3.1: the ruling's own finding (engine.audit.incidents)
        if event.termination.lower() == Termination.DEAD_POSITION and not backed:
            self.dead_position(event, board)
            return
        if event.termination == "imported":
            self.add(
                RULE,
                "imported_result",
                f"game {game_id}: {event.result} comes from a score sheet with no event "
                "behind it (no resignation, flag fall or claim recorded)",
                event,
            )
            return
        if event.termination == "arbiter_decision" or (event.arbiter is not None and not backed):
            self.add(
                RULE,
                "arbiter_override",
                f"{event.arbiter or event.by} declared {event.result} in game {game_id} "
                f"({event.termination}): {event.reason or 'no reason given'}",
                event,
            )
        if event.result == "1/2-1/2" and not backed:
            self.add(
                RULE,
                "draw_without_reason",
                f"game {game_id} was drawn ({event.termination}) without an accepted claim "
                "or a drawn position: 3.9.2 b forbids draws by agreement",
                event,
            )

    def dead_position(self, event: ResultRecorded, board: chess.Board) -> None:
        """A draw declared for a dead position (Laws 2009 5.2 b): the engine's evidence
        recorded with it, or, for a draw recorded without it (before the search existed,
        or on another position), the same search run here on the position."""
        game_id, who = self.game_id, event.arbiter or event.by
        recorded = event.evidence
        if recorded and recorded["fen"] == board.fen() and recorded["verdict"] in SEARCH_VERDICTS:
            verdict, summary = recorded["verdict"], recorded["summary"]
        else:
            found = search(board)
            verdict, summary = found.verdict.value, found.describe()
        if event.result != "1/2-1/2" or event.scores is not None:
            self.add(
                RULE,
                "draw_without_reason",
                f"game {game_id}: {who} recorded {event.scores or event.result} for a dead "
                "position, which is a draw (Laws 2009 5.2 b)",
                event,
            )
        elif verdict == Verdict.NOT_DEAD:
            self.add(
                RULE,
                "draw_without_reason",
                f"game {game_id} was drawn by {who} as a dead position, but it is not one: "
                f"{summary}; 3.9.2 b forbids draws by agreement",
                event,
            )
        elif verdict == Verdict.UNPROVEN:
            self.add(
                INFO,
                "dead_position_unproven",
                f"{who} ruled game {game_id} a dead position (Laws 2009 5.2 b), which the "
                f"engine could not verify ({summary}): the arbiter's ruling: "
                f"{event.reason or 'no reason given'}",
                event,
            )


SEARCH_VERDICTS = frozenset(verdict.value for verdict in Verdict)


def flag_override_text(event: FlagRuled, game_id: str) -> str:
    """What a flag ruling against the engine's evidence overruled (Laws 2009 6.8, 6.9,
    6.10 a, 6.11)."""
    if event.decision == "not_fallen":
        return (
            f"{event.arbiter} dismissed {event.side}'s flag in game {game_id}, which the "
            f"regulation clock showed fallen (Laws 2009 6.10 a): {event.reason}"
        )
    if event.decision == "both_fallen":
        return (
            f"{event.arbiter} ruled both flags down in an order that cannot be established in "
            f"game {game_id}, where the evidence does not show both falls or shows their order "
            f"(Laws 2009 6.11): {event.reason}"
        )
    return (
        f"{event.arbiter} ruled {event.side}'s flag fallen in game {game_id} where the "
        "evidence shows no fall of it, or shows the opponent's flag fell first "
        f"(Laws 2009 6.8, 6.9): {event.reason}"
    )
