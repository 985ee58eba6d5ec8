"""The game's decisions: start a paired game, a move, a resignation, a declared result.

Each takes the folded state (``engine.game.state``) and the command and returns
the events to append, or raises with nothing appended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from engine.clock.time_control import parse_time_control
from engine.commands import Command, command
from engine.errors import (
    AlreadyRecorded,
    CommandRefused,
    Conflict,
    GameNotInProgress,
    IllegalMove,
    MalformedCommand,
    RuleViolation,
    UnknownGame,
)
from engine.events import (
    AlertRaised,
    ClockReadingRecorded,
    Event,
    GameStarted,
    MovePlayed,
    PresenceRecorded,
    ResultRecorded,
    game_stream,
)
from engine.fields import Instant, ResultText
from engine.game import reconciliation
from engine.game.dead_position import DEFAULT_BUDGET, declared_dead_position
from engine.game.flags import flag_check
from engine.game.record import require_no_pending_claim
from engine.game.state import (
    IN_PROGRESS,
    OTHER_SIDE,
    WIN_BY_SIDE,
    Game,
    outcome_of,
    parse_move,
    position,
    remember,
    require_in_progress,
)
from engine.rules import DEFAULT_PROFILE, profile
from engine.scores import is_individual, nearest_pgn_result, read_scores
from engine.side import Side
from engine.termination import DRAW_TERMINATIONS, Termination
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World


@command(
    "start_game",
    summary="A game begins: a paired game (<round>.<board>) or one between named players; "
    "who is at the board may be recorded (Laws 2009 6.6 a); a starting position that ends "
    "the game (a dead position, 5.2 b) ends it at once.",
    events=(GameStarted, PresenceRecorded, AlertRaised, ResultRecorded),
    refusals=(
        (MalformedCommand, "", "the game has already been started (a game starts once)"),
        (RuleViolation, "3.3.7", "the game was lost by default: no postponement"),
        (
            RuleViolation,
            "3.1",
            "a player of the pairing has withdrawn and the game is not played (3.3.3 for a "
            "first-round default)",
        ),
        (
            RuleViolation,
            "3.7.3.a",
            "a sudden-death game whose colours the lot winner has not chosen yet",
        ),
        (UnknownGame, "", "not a paired game and no white and black given"),
        (
            MalformedCommand,
            "",
            "white and black other than the pairing's, a player not of the tournament, the wrong "
            "stage or an invalid FEN",
        ),
    ),
    notes={
        "by": "who sent it, for the record (an arbiter, `dgt:<serial>` ...)",
        "white": "the White player's id, for a game that is not paired (with `black`)",
        "black": "the Black player's id, for a game that is not paired (with `white`)",
        "time_control": "the time control (`40/7200:20/3600:900+30`); default the profile's",
        "fen": "a starting position other than the initial one",
        "stage": "`tournament`, `rapid`, `blitz` or `sudden_death`; default the pairing's",
        "present": "the players at the board at the start (ids, or `white` / `black`; Laws 2009 "
        "6.6 a): an absent one may be defaulted after the default time (`rule_default`)",
    },
)
@dataclass(frozen=True, kw_only=True)
class StartGame(Command):
    game: str
    at_ms: Instant
    by: str = "arbiter"
    white: str | None = None
    black: str | None = None
    time_control: str | None = None
    fen: str | None = None
    stage: str | None = None
    present: list[str] | None = None
    """The players at the board at the start (ids, or ``white``/``black``), Laws 2009 6.6 a."""

    def decide(self, world: World) -> list[Event]:
        return start_game(world.tournament(), world.game(self.game), self)


@command(
    "play_move",
    summary="A move completed on the board, with the clock's two displays if known (Laws 4, 6).",
    events=(MovePlayed, ResultRecorded, ClockReadingRecorded, AlertRaised),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (RuleViolation, "9.5", "a draw claim is pending: the game is paused until the ruling"),
        (
            IllegalMove,
            "",
            "the move cannot be read (UCI or SAN), is ambiguous or is not legal in the position",
        ),
        (MalformedCommand, "", "only one of white_ms and black_ms, or a negative time"),
        (
            Conflict,
            "",
            "its `ply` is beyond the next one, or already holds another move: the sender's "
            "game is not the record's",
        ),
    ),
    notes={
        "move": "the move, SAN (`Nf3`) or UCI (`g1f3`); a check or mate mark given must be "
        "true (`Nf3+` for a move that gives no check is refused; a missing one is no fault) "
        "and a hyphen only castles (`N-f3`, `e2-e4` are refused); the canonical SAN, marks "
        "included, is what is stored (`MovePlayed.san`)",
        "white_ms": "White's clock display after the move, milliseconds (with `black_ms`)",
        "black_ms": "Black's clock display after the move, milliseconds (with `white_ms`)",
        "by": "who sent it, for the record (an arbiter, `dgt:<serial>` ...)",
        "ply": "the ply the move becomes (1 = White's first move): a move sent again with its "
        "ply is answered as a duplicate, never played as the next move",
    },
)
@dataclass(frozen=True, kw_only=True)
class PlayMove(Command):
    game: str
    move: str
    at_ms: Instant
    white_ms: int | None = None
    black_ms: int | None = None
    by: str = "arbiter"
    ply: int | None = None
    """The ply the move becomes (1 = White's first): a move sent again is answered as a
    duplicate, never played as the next move (``check_ply``)."""

    def decide(self, world: World) -> list[Event]:
        game = world.game(self.game)
        return reconciliation.with_move_reading(
            play_move(game, self),
            game,
            lambda: world.clock_log(self.game),
            at_ms=self.at_ms,
            by=self.by,
            white=self.white_ms,
            black=self.black_ms,
        )


@command(
    "resign",
    summary="A player resigns; the opponent wins (Laws 5.1 b).",
    events=(ResultRecorded, AlertRaised),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
    ),
    notes={
        "by": "the side who resigns: `white` or `black`",
    },
)
@dataclass(frozen=True, kw_only=True)
class Resign(Command):
    game: str
    by: Side
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return resign(world.game(self.game), self)


@command(
    "declare_result",
    summary="The Chief Arbiter or a Deputy records a result with its reason (3.9.2 b).",
    roles=RULING_ROLES,
    events=(ResultRecorded,),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game is finished"),
        (MalformedCommand, "", "the result is '*'"),
        (
            RuleViolation,
            "3.9.2 b",
            "a draw by a termination outside the closed list (stalemate, insufficient material, "
            "dead_position, a claim's kind, flag_fall_draw, both_flags_fallen, arbiter_decision "
            "whose reason cites the article applied), or whose reason or termination is an "
            "agreement, whatever the words",
        ),
        (
            RuleViolation,
            "5.2 b",
            "a `dead_position` draw where the engine's search finds a series of legal moves "
            "to a checkmate (the line is in the message), or a `dead_position` result other "
            "than a draw",
        ),
    ),
    notes={
        "result": "`1-0`, `0-1` or `1/2-1/2` (`*` is refused, but with `scores` `0-0`)",
        "reason": "why, in words, for the record",
        "termination": "how the game ended (`time_forfeit`, `default` ...); a draw only by one "
        "of `stalemate`, `insufficient_material`, `dead_position`, `threefold_repetition`, "
        "`fifty_moves`, `perpetual_check`, `theoretical_draw`, `flag_fall_draw`, "
        "`both_flags_fallen`, or `arbiter_decision` (the default) with a reason citing the "
        "article applied (`... (Laws 2009 5.2 b)`; not 9.1, the draw offer). With "
        "`dead_position` the engine searches the positions reachable by legal moves (at "
        f"most {DEFAULT_BUDGET:,}): a line to a checkmate refuses the draw; the draw is "
        "recorded with the search's `evidence`, `dead` or, when the budget ran out first, "
        "`unproven` (the arbiter's ruling, which the engine could not verify)",
        "scores": "each player's own score, White's first, where the Laws give them apart from "
        "the result: `0-1/2` (Laws 2009 12.3 b, 13.4 e), `0-0` (a double default, 6.6 a; with "
        "result `*`), `1/2-1` (13.4 f); `result` must be the nearest PGN result",
    },
)
@dataclass(frozen=True, kw_only=True)
class DeclareResult(Command):
    game: str
    result: ResultText
    reason: str
    arbiter: str
    at_ms: Instant
    termination: str | None = None
    scores: str | None = None
    """Each player's own score, White's first, where the Laws give them apart from the
    result (``0-1/2``: Laws 2009 12.3 b, 13.4 e; ``0-0``: a double default, 6.6 a;
    ``1/2-1``: 13.4 f): ``result`` is then the nearest PGN result (``*`` for ``0-0``)."""

    def decide(self, world: World) -> list[Event]:
        return declare_result(world.tournament(), world.game(self.game), self)


def start_game(tournament: Tournament | None, existing: Game | None, cmd: StartGame) -> list[Event]:
    """Open a paired game (``<round>.<board>``), or a game with named players."""
    game_id = cmd.game
    if existing is not None:
        if existing.termination == "default":
            raise RuleViolation(
                "3.3.7",
                f"game {game_id} was lost by default: no postponement of any game is allowed, "
                "it is not played later",
            )
        raise MalformedCommand(f"game {game_id} has already been started: a game starts once")
    if tournament is not None:
        tournament.check_can_start(game_id)
    pairing = tournament.pairings().get(game_id) if tournament else None
    white, black = cmd.white, cmd.black
    if pairing is not None:
        if (white, black) not in ((None, None), pairing):
            raise MalformedCommand(
                f"game {game_id} is paired {pairing[0]} - {pairing[1]}, not {white} - {black}"
            )
        white, black = pairing
    elif white is None or black is None:
        hint = (
            "the lots have not been drawn yet"
            if tournament is not None and tournament.numbers is None
            else "it is not a paired game id (<round>.<board>)"
        )
        raise UnknownGame(f"game {game_id!r} has no players: {hint}; or give white and black")
    _check_players_and_stage(tournament, game_id, white, black, pairing, cmd.stage)
    rules = tournament.rules if tournament else DEFAULT_PROFILE
    planned = tournament.planned_game(game_id) if tournament else None
    round_no, _, board_no = game_id.partition(".")
    fen = cmd.fen
    if fen is not None:
        try:
            chess.Board(fen)
        except ValueError as exc:
            raise MalformedCommand(f"start_game: invalid FEN {fen!r}: {exc}") from None
    stage = cmd.stage or (planned.stage if planned else "tournament")
    time_control = (
        cmd.time_control
        or (planned.time_control if planned else None)
        or profile(rules).time_control_for(stage)
    )
    parse_time_control(time_control)  # a clear error for a control the clock cannot read
    present = _present(cmd.present, white, black, game_id)
    started: list[Event] = [
        GameStarted(
            originator_id=game_stream(game_id),
            originator_version=1,
            at_ms=cmd.at_ms,
            by=cmd.by,
            game=game_id,
            round=int(round_no) if round_no.isdigit() else 0,
            board=int(board_no) if board_no.isdigit() else 0,
            white=white,
            black=black,
            time_control=time_control,
            rules=rules,
            initial_fen=fen,
            stage=stage,
        )
    ]
    if present is None:
        return started + _ended_at_the_start(started, fen, rules, cmd.at_ms, cmd.by)
    absent = tuple(p for p in (white, black) if p not in present)
    started.append(
        PresenceRecorded(
            originator_id=game_stream(game_id),
            originator_version=2,
            at_ms=cmd.at_ms,
            by=cmd.by,
            game=game_id,
            present=present,
            absent=absent,
        )
    )
    if absent:
        default_ms = profile(rules).default_time_ms
        started.append(
            AlertRaised(
                originator_id=game_stream(game_id),
                originator_version=3,
                at_ms=cmd.at_ms,
                by=cmd.by,
                game=game_id,
                kind=ABSENT_AT_START,
                message=f"game {game_id} started without "
                f"{' and '.join(_known_as(tournament, a) for a in absent)} at the board: "
                f"the default time is {default_ms // 60_000} min (Laws 2009 6.6 a); the "
                "arbiter may rule the game lost (rule_default)",
                details={"absent": list(absent), "default_time_ms": default_ms},
            )
        )
    return started + _ended_at_the_start(started, fen, rules, cmd.at_ms, cmd.by)


def _ended_at_the_start(
    started: list[Event], fen: str | None, rules: str, at_ms: int, by: str
) -> list[Event]:
    """A starting position that ends the game (a dead position: neither player can
    checkmate, as K v K+B; a mate or stalemate set up): the game ends at once (Laws 2009
    5.1 a, 5.2 a, 5.2 b), recorded with the start."""
    if fen is None:
        return []
    ended = outcome_of(chess.Board(fen), rules)
    if ended is None:
        return []
    result, termination = ended
    return [
        ResultRecorded(
            originator_id=started[0].originator_id,
            originator_version=len(started) + 1,
            at_ms=at_ms,
            by=by,
            result=result,
            termination=termination,
            reason=f"the starting position ends the game ({termination.replace('_', ' ')}): "
            "the game ends at once (Laws 2009 5.1 a, 5.2)",
        )
    ]


def _known_as(tournament: Tournament | None, player: str) -> str:
    return tournament.known_as(player) if tournament is not None else player


ABSENT_AT_START = "absent_at_start"
"""The alert raised when a game starts without both players at the board (Laws 2009 6.6 a)."""


def _present(
    raw: Sequence[object] | None, white: str, black: str, game_id: str
) -> tuple[str, ...] | None:
    """The players at the board at the start (ids, or ``white``/``black``); None if not given."""
    if raw is None:
        return None
    out: list[str] = []
    for item in raw:
        if item in ("white", "black"):
            item = white if item == "white" else black
        if item not in (white, black):
            raise MalformedCommand(
                f"start_game: 'present' lists {item!r}, who does not play game {game_id} "
                f"({white} - {black})"
            )
        if item not in out:
            out.append(str(item))
    return tuple(out)


def _check_players_and_stage(
    tournament: Tournament | None,
    game_id: str,
    white: str,
    black: str,
    pairing: tuple[str, str] | None,
    stage: str | None,
) -> None:
    """Two different players of the tournament; a paired game keeps its own stage (its
    stage decides the time control, 3.5.1 / 3.7.1-3.7.3, and the penalties)."""
    if white == black:
        raise MalformedCommand(f"start_game: {white!r} cannot play both sides of game {game_id}")
    if tournament is None:
        return
    if pairing is None:
        known = {p.id for p in tournament.players}
        unknown = [pid for pid in (white, black) if pid not in known]
        if unknown:
            raise MalformedCommand(
                f"start_game: {', '.join(map(repr, unknown))} not a player of "
                f"{tournament.id!r} (players: {', '.join(sorted(known))})"
            )
        return
    planned = tournament.planned_game(game_id)
    own = planned.stage if planned else "tournament"
    if stage is not None and stage != own:
        raise MalformedCommand(
            f"start_game: game {game_id} is a {own} game of {tournament.id!r}, not {stage!r}; "
            "leave 'stage' out"
        )


def check_ply(game: Game | None, cmd: PlayMove) -> None:
    """``play_move`` with ``ply`` (the ply the move becomes): makes a retried move safe.

    The next ply goes on to the decision. A ply already recorded with the same move
    raises ``AlreadyRecorded`` (answered as a duplicate, nothing appended); with
    another move, or a ply beyond the next one, ``Conflict``: the sender's idea of
    the game is not the record's, and a move must never land on the wrong ply (a
    repeated ``Qg6`` would be read as the opponent's ``Qxg6``)."""
    ply = cmd.ply
    if ply is None or game is None:
        return
    if ply < 1:
        raise MalformedCommand(f"play_move: field 'ply' must be >= 1, got {ply}")
    if ply == game.ply + 1:
        return
    if ply > game.ply + 1:
        raise Conflict(
            f"play_move for ply {ply} of game {game.game_id}, which has {game.ply} plies "
            f"recorded: the next move is ply {game.ply + 1}; nothing was appended"
        )
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    for uci in game.moves[: ply - 1]:
        board.push(chess.Move.from_uci(uci))
    recorded = game.moves[ply - 1]
    try:
        same = parse_move(board, cmd.move, game.game_id).uci() == recorded
    except CommandRefused:
        same = False
    if same:
        raise AlreadyRecorded(
            f"ply {ply} of game {game.game_id} is already recorded as {game.sans[ply - 1]}: "
            "a repeat, nothing appended"
        )
    raise Conflict(
        f"ply {ply} of game {game.game_id} is recorded as {game.sans[ply - 1]}, not "
        f"{cmd.move}; nothing was appended"
    )


def play_move(game: Game | None, cmd: PlayMove) -> list[Event]:
    """A move completed on the board: legal, or refused with nothing appended."""
    g = require_in_progress(game, cmd.game)
    require_no_pending_claim(g.record, g.game_id)
    late, g = flag_check(g, cmd.at_ms, cmd.by)
    if g.status != IN_PROGRESS:  # 6.9: the flag fell before the move; it does not count
        return late
    board = position(g)
    move = parse_move(board, cmd.move, g.game_id)
    san = board.san(move)
    board.push(move)
    events: list[Event] = [
        *late,
        MovePlayed(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd.at_ms,
            by=cmd.by,
            uci=move.uci(),
            san=san,
            ply=g.ply + 1,
        ),
    ]
    ended = outcome_of(board, g.rules)
    remember(g.initial_fen, (*g.moves, move.uci()), board)
    if ended is not None:
        events.append(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=g.version + 2,
                at_ms=cmd.at_ms,
                by=cmd.by,
                result=ended[0],
                termination=ended[1],
            )
        )
    return events


def resign(game: Game | None, cmd: Resign) -> list[Event]:
    """A player resigned (Laws 5.1 b): the opponent wins."""
    g = require_in_progress(game, cmd.game)
    side = cmd.by
    late, g = flag_check(g, cmd.at_ms, side)
    if g.status != IN_PROGRESS:  # the flag fell before the resignation: already ended (6.9)
        return late
    return [
        *late,
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd.at_ms,
            by=side,
            result=WIN_BY_SIDE[OTHER_SIDE[side]],
            termination=Termination.RESIGNATION,
            reason=f"{side} resigned",
        ),
    ]


def declare_result(
    tournament: Tournament | None, game: Game | None, cmd: DeclareResult
) -> list[Event]:
    """The Chief Arbiter (or Deputy) records a result with a reason.

    3.9.2 b: "The players cannot draw a game by agreement." A declared draw is taken
    only for a reason of the closed list ``DRAW_TERMINATIONS``, whatever the words: an
    arbiter's decision must cite the article it applies (not 9.1, the draw offer), and a
    reason or termination that speaks of an agreement is refused.
    """
    g = require_in_progress(game, cmd.game)
    result, reason = cmd.result, cmd.reason
    require_ruling_arbiter(tournament, cmd.arbiter, "declare a result")
    scores = _declared_scores(cmd)
    if scores == "0-0":
        result, scores = "0-0", None  # the result the double default has always had
    elif result == "*":
        raise MalformedCommand("declare_result needs a final result (1-0, 0-1, 1/2-1/2)")
    termination = (cmd.termination or "").lower()
    if result == "1/2-1/2" and ("agree" in reason.lower() or "agree" in termination):
        raise RuleViolation("3.9.2 b", "the players cannot draw a game by agreement")
    if result == "1/2-1/2" and scores is None:
        _require_a_reason_of_the_laws(termination or Termination.ARBITER_DECISION, reason)
    evidence = None
    if termination == Termination.DEAD_POSITION:  # 5.2 b: the engine's search, or refused
        evidence = declared_dead_position(position(g), g.game_id, result, scores)
    return [
        ResultRecorded(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd.at_ms,
            by=cmd.arbiter,
            result=result,
            termination=cmd.termination or Termination.ARBITER_DECISION,
            reason=reason,
            arbiter=cmd.arbiter,
            scores=scores,
            evidence=evidence,
        )
    ]


CITED_ARTICLE = re.compile(r"\b(\d+(?:\.\d+)+)(?:\s?[a-g]\b)?")
"""An article number in a reason: ``5.2 b``, ``9.2``, ``3.9.2 b``, ``6.9``."""


def _require_a_reason_of_the_laws(termination: str, reason: str) -> None:
    """A declared draw names a way the Laws draw a game (``DRAW_TERMINATIONS``); the
    arbiter's own decision cites the article it applies. 3.9.2 b forbids a draw by
    agreement whatever the words ("both players asked for a draw" is one)."""
    listed = ", ".join(sorted(DRAW_TERMINATIONS))
    if termination not in DRAW_TERMINATIONS:
        raise RuleViolation(
            "3.9.2 b",
            f"a draw is declared only for a reason the Laws give (termination one of {listed}); "
            f"{termination!r} is not one: the players cannot draw a game by agreement",
        )
    if termination != Termination.ARBITER_DECISION:
        return
    cited = [m[1] for m in CITED_ARTICLE.finditer(reason)]
    if not [a for a in cited if a != "9.1"]:
        raise RuleViolation(
            "3.9.2 b",
            "a draw by the arbiter's decision cites the article it applies in its reason (e.g. "
            "'a dead position (Laws 2009 5.2 b)'), or names its termination (one of "
            f"{listed}); the players cannot draw a game by agreement, whatever the words",
        )


def _declared_scores(cmd: DeclareResult) -> str | None:
    """The players' own scores of a declaration, checked against its result: None when
    they are the result's own."""
    if cmd.scores is None:
        return None
    try:
        read_scores(cmd.scores)
    except ValueError as error:
        raise MalformedCommand(f"declare_result: {error}") from None
    if cmd.scores == "1-1":
        raise MalformedCommand("declare_result: no ruling of the Laws gives both players a win")
    nearest = nearest_pgn_result("*", cmd.scores)
    if cmd.result != nearest:
        raise MalformedCommand(
            f"declare_result: scores {cmd.scores} go with the result {nearest} (the nearest "
            f"PGN result), not {cmd.result}"
        )
    return None if not is_individual("*", cmd.scores) else cmd.scores
