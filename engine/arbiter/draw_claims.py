"""The Sofia rule: draws only by a claim through the arbiter (3.9.2 b).

Regulations 3.9.2 b: "The players cannot draw a game by agreement. A claim
for a draw is permitted only through the Chief Arbiter (or his Deputy) in
the cases of perpetual check, stalemate, threefold repetition, the 50-move
rule or insufficient material. Other kinds of theoretical drawn positions
are allowed to be claimed by one or both players through the Chief Arbiter
(or his Deputy). The Chief Arbiter can then declare it, or not, as a drawn
game after consulting his/her Technical Advisor."

The flow, one command each:

1. ``claim_draw`` {game, by, kind, intended_move?, claim?, at}: a player
   (or both, for a theoretical draw) claims. The claim is verified at once
   (``engine.arbiter.claim_verification``) and recorded, verification attached
   (``DrawClaimed``), with an ``AlertRaised`` (``claim_pending``) for the
   arbiters. Threefold repetition and fifty moves are claimed by the player
   having the move (Laws 9.2, 9.3), who may write the intended move instead
   of playing it (9.2 a, 9.3 a); no other claim takes a written move (8.1).
2. While the claim is pending the game is paused: no move is accepted and
   no other claim is taken until the ruling (``engine.game.record``).
   The clocks are stopped at the claim's instant (9.5, 6.12 b): the regulation
   clock pauses with the ``DrawClaimed`` and the side that was running starts again
   at the ``ClaimRuled`` (``engine.clock.regulation.Clock.pause`` / ``resume``); the
   physical clock's stop is recorded on the clock stream like any other reading.
3. ``advise_claim`` {game, claim, opinion: draw|not_draw, advisor, at,
   reason?}: the Technical Advisor's opinion; required before a ruling on a
   theoretical draw, allowed on any pending claim.
4. ``rule_claim`` {game, claim, decision: accepted|rejected, arbiter, at,
   reason?}: the Chief Arbiter or a Deputy rules (``ClaimRuled``).
   - accepted: the game ends as a draw, termination = the claim kind; an
     intended move is recorded with the claim but not played.
   - rejected: the claim counts as incorrect (all kinds but a theoretical
     draw, which the Chief Arbiter simply declares "or not"); the opponent
     gets the profile's time (``ClockAdjusted``: Laws 2009 9.5 +3 min, 2023
     9.5.3 +2 min, 3.7.1.b.3 +3 min in tie-break games), the claimant loses
     nothing; then the intended move is played (9.5; 3.7.1.b.3 "the game
     continues with the intended move"). The incorrect claim that the
     profile makes losing (3.7.1.b.3: the third, in tie-break games) loses
     the game instead.
   The arbiter is sovereign: a ruling against the verification (or, with no
   verdict, against the advisor's opinion) is recorded with ``override``
   and needs a reason.

``offer_draw`` and ``agree_draw`` exist only to be refused (3.9.2 b), as is
a ``declare_result`` draw by agreement (``engine.game.state``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from engine.arbiter.claim_verification import (
    CLAIM_KINDS,
    FIFTY,
    THEORETICAL,
    THREEFOLD,
    ClaimKind,
    verify,
)
from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    IllegalMove,
    MalformedCommand,
    NotAnArbiter,
    RuleViolation,
    UnknownClaim,
    UnknownGame,
)
from engine.events import (
    AlertRaised,
    ClaimAdvised,
    ClaimRuled,
    ClockAdjusted,
    DrawClaimed,
    Event,
    MovePlayed,
    ResultRecorded,
)
from engine.fields import Identifier, Instant
from engine.game import moves
from engine.game import state as games
from engine.game.flags import flag_check
from engine.game.record import ACCEPTED, REJECTED, Claim, require_no_pending_claim
from engine.game.state import IN_PROGRESS, WIN_BY_SIDE, Game, parse_move, position
from engine.rules import profile
from engine.side import SIDES, Side
from engine.termination import Termination
from engine.tournament.tournament import RULING_ROLES, Tournament, require_ruling_arbiter
from engine.world import World

DECISIONS = (ACCEPTED, REJECTED)
OPINIONS = ("draw", "not_draw")
BOTH = "both"

ON_MOVE_KINDS = {THREEFOLD: "9.2", FIFTY: "9.3"}
"""Claimed only by the player having the move, who may write the intended move."""

COUNTED_KINDS = tuple(kind for kind in CLAIM_KINDS if kind != THEORETICAL)
"""Kinds whose rejection is an incorrect claim (Laws 9.5, 3.7.1.b.3): the five
cases 3.9.2 b names. A theoretical draw the Chief Arbiter declines to declare
after consulting the advisor is not an incorrect claim."""


@command(
    "claim_draw",
    summary="A player claims a draw through the arbiter; the engine verifies it (3.9.2 b, Laws 9).",
    events=(DrawClaimed, AlertRaised, ResultRecorded),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (GameNotInProgress, "", "the game has ended (3.7.1.b.4 in a playoff game)"),
        (
            MalformedCommand,
            "",
            "an unknown kind, a claimant who is not white, black or a player of the game, or a "
            "claim id already used",
        ),
        (RuleViolation, "9.5", "another claim is pending"),
        (
            RuleViolation,
            "9.2",
            "a threefold-repetition claim by the player not having the move (9.3 for fifty moves)",
        ),
        (RuleViolation, "8.1", "an intended move with a claim other than 9.2 or 9.3"),
        (IllegalMove, "", "the intended move is not legal"),
    ),
    notes={
        "by": "the claimant: `white`, `black` (`both` for a theoretical draw) or the player's id",
        "kind": "`threefold_repetition`, `fifty_moves`, `perpetual_check`, `stalemate`, "
        "`insufficient_material` or `theoretical_draw`",
        "intended_move": "the move written but not played (9.2 a, 9.3 a)",
        "claim": "the claim's id (numbered 1, 2 ... in the game)",
    },
)
@dataclass(frozen=True, kw_only=True)
class ClaimDraw(Command):
    game: str
    by: str
    """The side (``white``, ``black``, ``both`` for a theoretical draw) or the player."""
    kind: str
    intended_move: str | None = None
    claim: Identifier | None = None
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return claim_draw(world.tournament(), world.game(self.game), self)


@command(
    "advise_claim",
    summary="The Technical Advisor gives an opinion on a claimed theoretical draw (3.9.2 b).",
    roles=("advisor",),
    events=(ClaimAdvised,),
    in_time_order=True,
    refusals=(
        (UnknownGame, "", "the game has not been started"),
        (NotAnArbiter, "3.9.2 b", "the advisor is not the event's Technical Advisor"),
        (UnknownClaim, "", "the game has no claim of that id"),
        (RuleViolation, "3.9.2 b", "the claim has already been ruled: a ruling is final"),
        (GameNotInProgress, "", "the claim lapsed: the game ended before a ruling"),
        (MalformedCommand, "", "an opinion other than draw or not_draw"),
    ),
    notes={
        "claim": "the claim's id (numbered 1, 2 ... in the game)",
        "opinion": "`draw` or `not_draw`",
        "advisor": "the id of the Technical Advisor (an arbiter of `create_tournament` with "
        "role `advisor`)",
        "reason": "why, in words, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class AdviseClaim(Command):
    game: str
    claim: Identifier
    opinion: str
    advisor: str
    reason: str | None = None
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return advise_claim(world.tournament(), world.game(self.game), self)


@command(
    "rule_claim",
    summary="The Chief Arbiter or a Deputy rules on a draw claim (3.9.2 b, Laws 9.5, 3.7.1.b.3).",
    roles=RULING_ROLES,
    events=(ClaimRuled, ClockAdjusted, MovePlayed, ResultRecorded),
    in_time_order=True,
    refusals=(
        (NotAnArbiter, "3.9.2 b", "the arbiter is not the Chief Arbiter or a Deputy"),
        (UnknownGame, "", "the game has not been started"),
        (UnknownClaim, "", "the game has no claim of that id"),
        (
            RuleViolation,
            "3.9.2 b",
            "the claim has already been ruled (a ruling is final), or a theoretical-draw claim "
            "has no opinion of the Technical Advisor yet",
        ),
        (GameNotInProgress, "", "the claim lapsed: the game ended before a ruling"),
        (
            MalformedCommand,
            "",
            "a decision other than accepted or rejected, or one that contradicts the verification "
            "without a reason",
        ),
    ),
    notes={
        "claim": "the claim's id (numbered 1, 2 ... in the game)",
        "decision": "`accepted` (the game is drawn) or `rejected` (play goes on)",
        "reason": "why, in words, for the record",
    },
)
@dataclass(frozen=True, kw_only=True)
class RuleClaim(Command):
    game: str
    claim: Identifier
    decision: str
    arbiter: str
    reason: str | None = None
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return rule_claim(world.tournament(), world.game(self.game), self)


@command(
    "offer_draw",
    summary="Always refused: the players cannot draw a game by agreement (3.9.2 b).",
    refusals=((RuleViolation, "3.9.2 b", "always: the players cannot draw a game by agreement"),),
    notes={
        "by": "the side who offers: `white` or `black` (always refused, 3.9.2 b)",
    },
)
@dataclass(frozen=True, kw_only=True)
class OfferDraw(Command):
    game: str
    by: str | None = None
    at_ms: Instant | None = None

    def decide(self, world: World) -> list[Event]:
        return refuse_draw_by_agreement(self)


@command(
    "agree_draw",
    summary="Always refused: the players cannot draw a game by agreement (3.9.2 b).",
    refusals=((RuleViolation, "3.9.2 b", "always: the players cannot draw a game by agreement"),),
    notes={"by": "the side who agrees: `white` or `black` (always refused, 3.9.2 b)"},
)
@dataclass(frozen=True, kw_only=True)
class AgreeDraw(OfferDraw):
    """The same fields and the same refusal as ``offer_draw``, under its own name."""


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def require_advisor(tournament: Tournament | None, advisor_id: str) -> None:
    """3.9.2 b: the opinion on a claimed theoretical draw is the Technical Advisor's."""
    if tournament is None:
        return
    arbiter = tournament.arbiter(advisor_id)
    if arbiter is None or arbiter.role != "advisor":
        raise NotAnArbiter(
            f"{advisor_id!r} is not the Technical Advisor of {tournament.id!r} and cannot "
            "give an opinion on a claim (article 3.9.2 b)"
        )


def require_claim(game: Game, claim_id: str) -> Claim:
    claim = game.record.claim(claim_id)
    if claim is None:
        known = ", ".join(c.id for c in game.record.claims) or "none yet"
        raise UnknownClaim(f"game {game.game_id} has no claim {claim_id!r} (claims: {known})")
    return claim


def require_pending(game: Game, claim: Claim) -> None:
    """A ruling is final, and a claim lapses when the game ends before the ruling."""
    if claim.ruling is not None:
        raise RuleViolation(
            "3.9.2 b",
            f"{claim.describe()} in game {game.game_id} has already been ruled "
            f"{claim.ruling.decision} by {claim.ruling.arbiter}; a ruling is final",
        )
    if not claim.is_pending:
        raise GameNotInProgress(
            f"{claim.describe()} in game {game.game_id} lapsed: the game ended "
            f"({game.result}, {game.termination}) before a ruling"
        )


def _claim_side(game: Game, by: str, kind: str) -> str:
    if by == BOTH and kind == THEORETICAL:
        return BOTH
    side = game.player_side(by)
    if side is None:
        both = " or both (a theoretical draw only)" if kind == THEORETICAL else ""
        raise MalformedCommand(
            f"claim_draw: 'by' must be white, black or a player of game {game.game_id} "
            f"({game.white} - {game.black}){both}; got {by!r}"
        )
    return side


def _claimants(tournament: Tournament | None, game: Game, side: str) -> str:
    """``Svidler (White) claims``, ``both players claim``: the claimant by his name."""
    if side == BOTH:
        return "both players claim"
    player = game.white if side == "white" else game.black
    name = tournament.known_as(player) if tournament is not None else player
    return f"{name} ({side.capitalize()}) claims"


def claim_draw(tournament: Tournament | None, game: Game | None, cmd: ClaimDraw) -> list[Event]:
    """A draw claim through the arbiter (3.9.2 b), verified as it is made."""
    g = games.require_game(game, cmd.game)
    if cmd.kind not in CLAIM_KINDS:
        raise MalformedCommand(
            f"claim_draw: kind must be one of {', '.join(CLAIM_KINDS)}; got {cmd.kind!r}"
        )
    kind = ClaimKind(cmd.kind)
    if g.status != IN_PROGRESS:
        raise GameNotInProgress(
            f"game {g.game_id} has ended ({g.result}, {g.termination}): no claim can be "
            "made once a game is over" + (" (article 3.7.1.b.4)" if g.is_playoff else "")
        )
    late, g = flag_check(g, cmd.at_ms, cmd.by)
    if g.status != IN_PROGRESS:  # 6.9: the flag fell before the claim; the game had ended
        return late
    side = _claim_side(g, cmd.by, kind)
    require_no_pending_claim(g.record, g.game_id, "no other claim can be made")
    claim_id = cmd.claim or g.record.next_claim_id()
    if g.record.claim(claim_id) is not None:
        raise MalformedCommand(f"claim_draw: game {g.game_id} already has a claim {claim_id!r}")
    article = ON_MOVE_KINDS.get(kind)
    to_move = g.side_to_move()
    if article is not None and side != to_move:
        raise RuleViolation(
            article,
            f"only the player having the move may claim {kind}: {to_move} is to move "
            f"in game {g.game_id}, not {side}",
        )
    intended: chess.Move | None = None
    intended_san: str | None = None
    text = cmd.intended_move
    if text is not None:
        if article is None:
            raise RuleViolation(
                "8.1",
                f"a move may be written before it is played only to claim a draw under 9.2 "
                f"or 9.3; play the move instead (a {kind} claim takes no intended move)",
            )
        board = position(g)
        intended = parse_move(board, text, g.game_id)
        intended_san = board.san(intended)
    verification = verify(g, kind, intended)
    claimant = g.white if side == Side.WHITE else g.black if side == Side.BLACK else BOTH
    drawn = DrawClaimed(
        originator_id=g.stream,
        originator_version=g.version + 1,
        at_ms=cmd.at_ms,
        by=claimant,
        game=g.game_id,
        claim=claim_id,
        side=side,
        grounds=kind,
        ply=g.ply,
        intended_uci=intended.uci() if intended else None,
        intended_san=intended_san,
        verified=verification.verified,
        evidence=verification.evidence,
    )
    verdict = {True: "verified", False: "not verified", None: "for the arbiter's judgement"}
    alert = AlertRaised(
        originator_id=g.stream,
        originator_version=g.version + 2,
        at_ms=cmd.at_ms,
        by=claimant,
        game=g.game_id,
        kind="claim_pending",
        message=(
            f"game {g.game_id}: {_claimants(tournament, g, side)} "
            f"a draw ({kind.replace('_', ' ')}), "
            f"{verdict[verification.verified]}; the game is paused until a ruling"
        ),
        details={"claim": claim_id, "kind": kind, "side": side, "verified": verification.verified},
    )
    return [*late, drawn, alert]


def advise_claim(tournament: Tournament | None, game: Game | None, cmd: AdviseClaim) -> list[Event]:
    """The Technical Advisor's opinion on a pending claim (3.9.2 b)."""
    g = games.require_game(game, cmd.game)
    require_advisor(tournament, cmd.advisor)
    claim = require_claim(g, cmd.claim)
    require_pending(g, claim)
    opinion = cmd.opinion
    if opinion not in OPINIONS:
        raise MalformedCommand(
            f"advise_claim: opinion must be one of {', '.join(OPINIONS)}; got {opinion!r}"
        )
    return [
        ClaimAdvised(
            originator_id=g.stream,
            originator_version=g.version + 1,
            at_ms=cmd.at_ms,
            by=cmd.advisor,
            game=g.game_id,
            claim=claim.id,
            opinion=opinion,
            advisor=cmd.advisor,
            reason=cmd.reason or "",
        )
    ]


def expected_verdict(claim: Claim) -> bool | None:
    """What a ruling is measured against: the verification, else the advisor's opinion."""
    if claim.verified is not None:
        return claim.verified
    if claim.advice is not None:
        return claim.advice.opinion == "draw"
    return None


@dataclass
class _Batch:
    """Events of one decision, folded as they are added so versions follow."""

    state: Game
    events: list[Event] = field(default_factory=list)

    @property
    def next_version(self) -> int:
        return self.state.version + 1

    def add(self, *events: Event) -> None:
        for event in events:
            folded = games.evolve(self.state, event)
            assert folded is not None
            self.state = folded
            self.events.append(event)


def rule_claim(tournament: Tournament | None, game: Game | None, cmd: RuleClaim) -> list[Event]:
    """The Chief Arbiter or Deputy rules on a claim (3.9.2 b; Laws 9.5; 3.7.1.b.3)."""
    g = games.require_game(game, cmd.game)
    arbiter = cmd.arbiter
    require_ruling_arbiter(tournament, arbiter, "rule on a draw claim", "3.9.2 b")
    claim = require_claim(g, cmd.claim)
    require_pending(g, claim)
    decision = cmd.decision
    if decision not in DECISIONS:
        raise MalformedCommand(
            f"rule_claim: decision must be one of {', '.join(DECISIONS)}; got {decision!r}"
        )
    if claim.kind == THEORETICAL and claim.advice is None:
        raise RuleViolation(
            "3.9.2 b",
            f"the Chief Arbiter declares a theoretical draw, or not, after consulting the "
            f"Technical Advisor: {claim.describe()} has no opinion yet (advise_claim)",
        )
    reason = cmd.reason or ""
    expected = expected_verdict(claim)
    override = expected is not None and (decision == ACCEPTED) != expected
    if override and not reason:
        basis = "verification" if claim.verified is not None else "Technical Advisor's opinion"
        found = "a draw" if expected else "no draw"
        raise MalformedCommand(
            f"rule_claim: {decision} contradicts the {basis} of {claim.describe()} "
            f"({found}); the arbiter may overrule it, with a 'reason' for the record"
        )
    counted = decision == REJECTED and claim.kind in COUNTED_KINDS and claim.side in SIDES
    incorrect = g.record.incorrect_claims.of(claim.side) + 1 if counted else 0
    at_ms = cmd.at_ms
    batch = _Batch(g)
    batch.add(
        ClaimRuled(
            originator_id=g.stream,
            originator_version=batch.next_version,
            at_ms=at_ms,
            by=arbiter,
            game=g.game_id,
            claim=claim.id,
            decision=decision,
            arbiter=arbiter,
            verified=expected,
            override=override,
            reason=reason,
            incorrect_claims=incorrect,
        )
    )
    if decision == ACCEPTED:
        batch.add(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=batch.next_version,
                at_ms=at_ms,
                by=arbiter,
                result="1/2-1/2",
                termination=Termination(claim.kind),
                reason=f"{claim.describe()} accepted (3.9.2 b)" + (f": {reason}" if reason else ""),
                arbiter=arbiter,
            )
        )
        return batch.events
    if counted:
        _penalise_incorrect_claim(batch, claim, incorrect, arbiter, at_ms)
    if batch.state.status == IN_PROGRESS and claim.intended_uci is not None:
        _play_intended_move(batch, claim.intended_uci, arbiter, at_ms)
    return batch.events


def _penalise_incorrect_claim(
    batch: _Batch, claim: Claim, incorrect: int, arbiter: str, at_ms: int
) -> None:
    """Laws 9.5 (2009: +3 min to the opponent; 2023 9.5.3: +2 min) and 3.7.1.b.3
    (tie-break games: +3 min, a third incorrect claim loses)."""
    g = batch.state
    penalties = profile(g.rules).penalties_for(g.stage)
    opponent = Side.of(claim.side).opponent
    article = penalties.incorrect_claim_article
    limit = penalties.incorrect_claim_loses_at
    if limit is not None and incorrect >= limit:
        batch.add(
            ResultRecorded(
                originator_id=g.stream,
                originator_version=batch.next_version,
                at_ms=at_ms,
                by=arbiter,
                result=WIN_BY_SIDE[opponent],
                termination=Termination.INCORRECT_CLAIMS,
                reason=f"{ordinal(incorrect)} incorrect claim by {claim.side} ({article})",
                arbiter=arbiter,
            )
        )
        return
    if penalties.incorrect_claim_ms:
        batch.add(
            ClockAdjusted(
                originator_id=g.stream,
                originator_version=batch.next_version,
                at_ms=at_ms,
                by=arbiter,
                side=opponent,
                delta_ms=penalties.incorrect_claim_ms,
                reason=f"incorrect {claim.describe()}: {claim.side}'s {ordinal(incorrect)} "
                f"incorrect claim ({article})",
                arbiter=arbiter,
            )
        )


def _play_intended_move(batch: _Batch, uci: str, arbiter: str, at_ms: int) -> None:
    """9.5 / 3.7.1.b.3: after an incorrect claim "the game continues with the
    intended move", played as any move (it may itself end the game)."""
    move = moves.PlayMove(game=batch.state.game_id, move=uci, at_ms=at_ms, by=arbiter)
    batch.add(*moves.play_move(batch.state, move))


def refuse_draw_by_agreement(cmd: OfferDraw | AgreeDraw) -> list[Event]:
    """3.9.2 b: "The players cannot draw a game by agreement." An offer and an
    acceptance are both refused; nothing is recorded."""
    raise RuleViolation(
        "3.9.2 b",
        f"{cmd.cmd}: the players cannot draw a game by agreement (game {cmd.game}); "
        "a draw is claimed through the Chief Arbiter or his Deputy (claim_draw)",
    )
