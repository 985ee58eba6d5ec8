"""Incidents of the playing conditions and the players' conduct, and leave permits.

``record_incident``, ``permit_leave`` and ``returned``: the 2012 regulations 3.9.1 (who
may be in the playing area), 3.9.2 a (extraneous equipment) and 3.9.2 c (leaving
with permission, accompanied), and where they are silent the Laws of 2009 (12.3 b,
12.6, 12.8, 13.4). The incident goes to the ``incidents`` stream and its penalty's
consequences to their own streams, in one transaction, so the book and the games
never disagree. The kinds, the penalties that fit them and the refusals are in
docs/incidents.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.arbiter.incident_book import IncidentBook
from engine.arbiter.penalties import (
    PENALTIES,
    Penalty,
    PenaltyForm,
    consequences,
    parse_penalty,
)
from engine.commands import Command, command
from engine.errors import (
    GameNotInProgress,
    MalformedCommand,
    NotAnArbiter,
    OutOfOrder,
    RuleViolation,
    UnknownGame,
    UnknownTournament,
)
from engine.events import (
    INCIDENTS_STREAM,
    ClockAdjusted,
    Event,
    GameStarted,
    IncidentRecorded,
    LeavePermitted,
    PlayerReturned,
    PlayerWithdrew,
    ResultRecorded,
)
from engine.fields import Instant
from engine.game import state as games
from engine.game.state import IN_PROGRESS, Game
from engine.scores import nearest_pgn_result
from engine.side import Side
from engine.timefmt import format_instant
from engine.tournament.tournament import RULING_ROLES, Tournament
from engine.world import World

KINDS: dict[str, str] = {
    "device_sounded": "Laws 2009 12.3 b",
    "extraneous_equipment": "3.9.2 a",
    "left_playing_area": "3.9.2 c",
    "unauthorised_person": "3.9.1",
    "disturbance": "Laws 2009 12.6",
    "persistent_refusal": "Laws 2009 12.8",
    "other": "Laws 2009 13.4",
}
"""Incident kinds and the rule each one breaches."""

ALL_PENALTIES = frozenset(PENALTIES)
PENALTIES_FITTING: dict[str, frozenset[str]] = {
    # 12.3 b fixes the penalty: the game is lost (a draw if the opponent could not win).
    "device_sounded": frozenset({"game_lost"}),
    # 3.9.2 a: "The Chief Arbiter shall decide"; 12.7: breaches are penalised under 13.4.
    "extraneous_equipment": ALL_PENALTIES,
    "left_playing_area": ALL_PENALTIES,
    "disturbance": ALL_PENALTIES,
    # 12.8: persistent refusal to comply with the Laws is penalised by loss of the game.
    "persistent_refusal": frozenset({"game_lost"}),
    "other": ALL_PENALTIES,
    # 3.9.1: the person is not a player; the player who brought him may be warned.
    "unauthorised_person": frozenset({"warning"}),
}
"""The penalties of 13.4 each kind may carry; any other is refused."""

PENALTY_REQUIRED = frozenset({"device_sounded", "persistent_refusal"})
"""Kinds whose penalty the Laws fix (12.3 b, 12.8): recording one without it is refused."""

NEEDS_GAME_KINDS = frozenset({"device_sounded", "persistent_refusal"})
"""12.3 b, 12.8: the offence loses *the game*: there must be one in progress."""

DRAW_TEST = frozenset({"device_sounded"})
"""Kinds where the Laws give the draw test for a game declared lost (12.3 b)."""

CHIEF_ONLY = frozenset({"extraneous_equipment"})
"""Kinds whose article names the Chief Arbiter alone (3.9.2 a)."""

ACCOMPANYING_ROLES = ("chief", "deputy")
"""3.9.2 c: "accompanied by one of the arbiters" (the Technical Advisor is not one)."""

Lookup = Callable[[str], Game | None]

OPPONENT_SCORES = ("1", "1/2", "0")
"""The scores the arbiter may give the opponent of a player who loses under 12.8."""
SCORED_BY_THE_ARBITER = frozenset({"persistent_refusal"})
"""Kinds whose article lets the arbiter decide the opponent's score (Laws 2009 12.8)."""


@command(
    "record_incident",
    summary="An arbiter records an incident (3.9.1, 3.9.2 a, 3.9.2 c; Laws 2009 12.3 b, 12.6) "
    "and the penalty of Laws 2009 13.4 it carries is applied.",
    roles=RULING_ROLES,
    events=(IncidentRecorded, ClockAdjusted, ResultRecorded, PlayerWithdrew, GameStarted),
    refusals=(
        (UnknownTournament, "", "no tournament in this store"),
        (UnknownGame, "", "the incident's game has not been started"),
        (OutOfOrder, "", "dated before its game's last recorded event"),
        (
            NotAnArbiter,
            "Laws 2009 13.1",
            "the arbiter may not record it (the Chief Arbiter alone for extraneous "
            "equipment, 3.9.2 a)",
        ),
        (GameNotInProgress, "12.5", "the game has ended: record the incident without it"),
        (RuleViolation, "13.4", "a penalty the incident's kind does not carry, or lacks"),
        (RuleViolation, "3.9.2 c", "the player left the playing area with permission"),
        (MalformedCommand, "", "an unknown kind or player, no details, no game where needed"),
    ),
    notes={
        "game": "the game in progress the incident concerns, if any (required for "
        "`device_sounded` and `persistent_refusal`)",
        "player": "the player concerned: a player's id, or `white` / `black` with `game`; may "
        "be left out only for `unauthorised_person` (3.9.1: the person is not a player)",
        "kind": "`device_sounded` (Laws 2009 12.3 b), `extraneous_equipment` (3.9.2 a), "
        "`left_playing_area` (3.9.2 c), `unauthorised_person` (3.9.1), `disturbance` (Laws "
        "2009 12.6), `persistent_refusal` (Laws 2009 12.8: persistent refusal to comply with "
        "the Laws) or `other` (Laws 2009 13.4)",
        "details": "what happened, in words, for the record",
        "penalty": "the penalty of Laws 2009 13.4: `warning`, `time_added`, `time_deducted`, "
        "`game_lost`, `points_reduced`, `opponent_points_raised` or `expelled`, or an object "
        '`{kind, ...}` with its amounts (`{"kind": "time_added", "ms": 120000}`); '
        "`device_sounded` and `persistent_refusal` require `game_lost`",
        "opponent_score": "`persistent_refusal` only: the score the arbiter gives the opponent "
        'of the player who loses the game (Laws 2009 12.8: "The arbiter shall decide the '
        'score of the opponent"): `1` (the default), `1/2` or `0`; recorded as each '
        "player's own score (`scores`, `0-1/2`) beside the nearest PGN result, `0` as `0-0`",
    },
)
@dataclass(frozen=True, kw_only=True)
class RecordIncident(Command):
    game: str | None = None
    """The game in progress the incident concerns, if any."""
    player: str | None = None
    """The player concerned (id, or ``white``/``black`` with ``game``); may be left out
    only for ``unauthorised_person`` (3.9.1: the person is not a player)."""
    kind: str
    arbiter: str
    at_ms: Instant
    details: str
    penalty: PenaltyForm | None = None
    opponent_score: str | None = None
    """Laws 2009 12.8: the score the arbiter gives the offender's opponent (``1`` when not
    given, ``1/2`` or ``0``); ``persistent_refusal`` only."""

    def decide(self, world: World) -> list[Event]:
        game = world.game(self.game) if self.game is not None else None
        return record_incident(world.tournament(), world.incident_book(), game, world.game, self)


@command(
    "permit_leave",
    summary="The Chief Arbiter lets a player leave the playing area during the session, "
    "accompanied by an arbiter (3.9.2 c).",
    roles=("chief",),
    events=(LeavePermitted,),
    refusals=(
        (MalformedCommand, "", "not a player of the tournament"),
        (
            RuleViolation,
            "3.9.2 c",
            "the escort is not the Chief Arbiter or a Deputy, the player "
            "is already out, or has no game in progress",
        ),
    ),
    notes={
        "player": "the player who leaves the playing area: a player's id",
        "accompanied_by": "the arbiter who goes with the player (the Chief Arbiter or a Deputy)",
    },
)
@dataclass(frozen=True, kw_only=True)
class PermitLeave(Command):
    player: str
    arbiter: str
    accompanied_by: str
    at_ms: Instant

    def decide(self, world: World) -> list[Event]:
        return permit_leave(world.tournament(), world.incident_book(), world.game, self)


@command(
    "returned",
    summary="A player out of the playing area with permission is back (3.9.2 c).",
    events=(PlayerReturned,),
    refusals=(
        (RuleViolation, "3.9.2 c", "the player is not out with the Chief Arbiter's permission"),
        (MalformedCommand, "", "dated before the player left"),
    ),
    notes={
        "player": "the player who is back: a player's id",
        "by": "who saw the player back; default the arbiter who went with the player",
    },
)
@dataclass(frozen=True, kw_only=True)
class Returned(Command):
    player: str
    at_ms: Instant
    by: str | None = None
    """Who saw him back; the arbiter who accompanied him when left out."""

    def decide(self, world: World) -> list[Event]:
        return returned(world.tournament(), world.incident_book(), self)


def require_event(tournament: Tournament | None) -> Tournament:
    if tournament is None:
        raise UnknownTournament(
            "no tournament in this store: the incident book belongs to an event (create_tournament)"
        )
    return tournament


def require_arbiter(
    tournament: Tournament, arbiter_id: str, roles: tuple[str, ...], action: str, article: str
) -> None:
    """Only an arbiter of the event in one of ``roles`` may do this."""
    arbiter = tournament.arbiter(arbiter_id)
    if arbiter is None or arbiter.role not in roles:
        who = "the Chief Arbiter" if roles == ("chief",) else "the Chief Arbiter or a Deputy"
        raise NotAnArbiter(
            f"{arbiter_id!r} is not {who} of {tournament.id!r} and cannot {action} "
            f"(article {article})"
        )


def game_in_progress_of(tournament: Tournament, player: str, lookup: Lookup) -> Game | None:
    """The player's game being played now, if any."""
    found: Game | None = None
    for game_id, pair in tournament.pairings().items():
        if player in pair:
            game = lookup(game_id)
            if game is not None and game.status == IN_PROGRESS:
                found = game
    return found


def _incident_game(game: Game | None, cmd: RecordIncident) -> Game | None:
    """The named game, which must be in progress; None when no game is named."""
    game_id = cmd.game
    if game_id is None:
        return None
    g = games.require_game(game, game_id)
    if g.status != IN_PROGRESS:
        raise GameNotInProgress(
            f"game {game_id} has ended ({g.result}, {g.termination}): an incident of the game "
            "is recorded while it is played; after it, the players are spectators (Laws 2009 "
            "12.5): record the incident without the game"
        )
    games.require_in_time_order(g, cmd.cmd, cmd.at_ms)
    return g


def _offender(
    tournament: Tournament, game: Game | None, kind: str, cmd: RecordIncident
) -> str | None:
    who = cmd.player
    if who is None:
        if kind != "unauthorised_person":
            raise MalformedCommand(f"record_incident: a {kind} incident needs the 'player'")
        return None
    if game is not None:
        side = game.player_side(who)
        if side is None:
            raise MalformedCommand(
                f"record_incident: {who!r} does not play game {game.game_id} "
                f"({game.white} - {game.black})"
            )
        return game.white if side == "white" else game.black
    if tournament.player(who) is None:
        raise MalformedCommand(f"record_incident: {who!r} is not a player of {tournament.id!r}")
    return str(who)


def _check_fit(kind: str, penalty: Penalty | None, player: str | None) -> None:
    article = KINDS[kind].removeprefix("Laws 2009 ")
    if penalty is None:
        if kind in PENALTY_REQUIRED:
            raise RuleViolation(
                article,
                f"a {kind} incident loses the game: give the penalty game_lost"
                + (" (the draw test is applied)" if kind in DRAW_TEST else ""),
            )
        return
    fitting = PENALTIES_FITTING[kind]
    if penalty.kind not in fitting:
        raise RuleViolation(
            article,
            f"the penalty {penalty.kind} ({penalty.article}) does not fit a {kind} incident; "
            f"it may carry: {', '.join(sorted(fitting))}",
        )
    if player is None:
        raise MalformedCommand(f"the penalty {penalty.kind} needs the 'player' it is given to")


def _check_opponent_score(kind: str, score: str | None) -> None:
    """Only 12.8 lets the arbiter decide the opponent's score; elsewhere the penalty
    says it (13.4 d: the opponent wins; 12.3 b: a draw for one who could not win)."""
    if score is None:
        return
    if score not in OPPONENT_SCORES:
        raise MalformedCommand(
            f"record_incident: 'opponent_score' must be one of "
            f"{', '.join(map(repr, OPPONENT_SCORES))} (Laws 2009 12.8), got {score!r}"
        )
    if kind not in SCORED_BY_THE_ARBITER:
        raise MalformedCommand(
            f"record_incident: 'opponent_score' is for a persistent_refusal incident (Laws 2009 "
            f"12.8: the arbiter decides the opponent's score), not {kind}"
        )


def _opponent_scored(follow: list[Event], side: Side, score: str) -> tuple[list[Event], str | None]:
    """The game lost under 12.8 with the opponent's score the arbiter decided: the
    offender scores 0, the opponent ``score``; 1/2 is recorded as each player's own score
    beside the nearest PGN result (as 12.3 b's draw), 0 as the result ``0-0``."""
    offender = "0"
    scores = f"{offender}-{score}" if side == Side.WHITE else f"{score}-{offender}"
    out: list[Event] = []
    result: str | None = None
    for event in follow:
        if isinstance(event, ResultRecorded):
            result = "0-0" if score == "0" else nearest_pgn_result("*", scores)
            event = replace(
                event,
                result=result,
                scores=None if score == "0" else scores,
                reason=f"{event.reason}; the arbiter decided the opponent's score: {score} "
                f"(each player's own score {scores}; Laws 2009 12.8)",
            )
        out.append(event)
    return out, result


def record_incident(
    tournament: Tournament | None,
    book: IncidentBook | None,
    game: Game | None,
    lookup: Lookup,
    cmd: RecordIncident,
) -> list[Event]:
    """Record an incident and apply its penalty (see the module docstring)."""
    t = require_event(tournament)
    kind = cmd.kind
    if kind not in KINDS:
        raise MalformedCommand(f"incident kind must be one of {', '.join(KINDS)}, got {kind!r}")
    arbiter = cmd.arbiter
    if kind in CHIEF_ONLY:
        require_arbiter(t, arbiter, ("chief",), f"rule on a {kind} incident", KINDS[kind])
    else:
        require_arbiter(t, arbiter, RULING_ROLES, "record an incident", "Laws 2009 13.1")
    details = cmd.details.strip()
    if not details:
        raise MalformedCommand("record_incident needs 'details': what the arbiter saw")
    g = _incident_game(game, cmd)
    player = _offender(t, g, kind, cmd)
    penalty = parse_penalty(cmd.penalty)
    _check_fit(kind, penalty, player)
    _check_opponent_score(kind, cmd.opponent_score)
    if kind in NEEDS_GAME_KINDS and g is None:
        raise MalformedCommand(f"a {kind} incident ({KINDS[kind]}) needs the game in progress")
    current = book or IncidentBook()
    if kind == "left_playing_area" and player is not None:
        leave = current.leave_of(player)
        if leave is not None:
            raise RuleViolation(
                "3.9.2 c",
                f"{player} left the playing area with the Chief Arbiter's permission at "
                f"{format_instant(leave.left_at_ms)}, accompanied by {leave.accompanied_by}",
            )
    at_ms = cmd.at_ms
    side = g.player_side(player) if g is not None and player is not None else None
    incident = current.next_incident_id()
    cause = f"incident {incident}: {kind} ({KINDS[kind]})"
    follow: list[Event] = []
    result: str | None = None
    if penalty is not None and player is not None:
        follow, result = consequences(
            penalty,
            tournament=t,
            game=g,
            player=player,
            side=side,
            arbiter=arbiter,
            at_ms=at_ms,
            cause=cause,
            draw_test=kind in DRAW_TEST,
            lookup=lookup,
        )
        if cmd.opponent_score not in (None, "1") and side is not None:
            follow, result = _opponent_scored(follow, side, cmd.opponent_score)
    penalty_side = None
    if penalty is not None and penalty.kind in ("time_added", "time_deducted") and side:
        penalty_side = games.OTHER_SIDE[side] if penalty.kind == "time_added" else side
    recorded = IncidentRecorded(
        originator_id=INCIDENTS_STREAM,
        originator_version=current.version + 1,
        at_ms=at_ms,
        by=arbiter,
        incident=incident,
        kind=kind,
        article=KINDS[kind],
        arbiter=arbiter,
        player=player,
        game=g.game_id if g is not None else None,
        side=side,
        round=g.round if g is not None else None,
        details=details,
        penalty=penalty.kind if penalty is not None else None,
        penalty_side=penalty_side,
        penalty_ms=penalty.ms if penalty is not None else None,
        points=str(penalty.points) if penalty is not None and penalty.points else None,
        result=result,
        scores=next((e.scores for e in follow if isinstance(e, ResultRecorded) and e.scores), None),
    )
    return [recorded, *follow]


def permit_leave(
    tournament: Tournament | None, book: IncidentBook | None, lookup: Lookup, cmd: PermitLeave
) -> list[Event]:
    """3.9.2 c: the Chief Arbiter lets a player leave, accompanied by an arbiter."""
    t = require_event(tournament)
    arbiter = cmd.arbiter
    require_arbiter(t, arbiter, ("chief",), "let a player leave the playing area", "3.9.2 c")
    player = cmd.player
    if t.player(player) is None:
        raise MalformedCommand(f"permit_leave: {player!r} is not a player of {t.id!r}")
    escort = cmd.accompanied_by
    escort_arbiter = t.arbiter(escort)
    if escort_arbiter is None or escort_arbiter.role not in ACCOMPANYING_ROLES:
        raise RuleViolation(
            "3.9.2 c",
            f"{escort!r} is not an arbiter of {t.id!r}: a player leaves the playing area "
            "only accompanied by one of the arbiters",
        )
    current = book or IncidentBook()
    already = current.leave_of(player)
    if already is not None:
        raise RuleViolation(
            "3.9.2 c",
            f"{player} is already out of the playing area (since "
            f"{format_instant(already.left_at_ms)}, with {already.accompanied_by})",
        )
    game = game_in_progress_of(t, player, lookup)
    if game is None:
        raise RuleViolation(
            "3.9.2 c",
            f"{player} has no game in progress: the permission is for leaving during the "
            "playing session",
        )
    return [
        LeavePermitted(
            originator_id=INCIDENTS_STREAM,
            originator_version=current.version + 1,
            at_ms=cmd.at_ms,
            by=arbiter,
            player=player,
            arbiter=arbiter,
            accompanied_by=escort,
            game=game.game_id,
        )
    ]


def returned(
    tournament: Tournament | None, book: IncidentBook | None, cmd: Returned
) -> list[Event]:
    """3.9.2 c: a player out with permission is back in the playing area."""
    require_event(tournament)
    player = cmd.player
    current = book or IncidentBook()
    leave = current.leave_of(player)
    if leave is None:
        raise RuleViolation(
            "3.9.2 c",
            f"{player} is not out of the playing area with the Chief Arbiter's permission",
        )
    at_ms = cmd.at_ms
    if at_ms < leave.left_at_ms:
        raise MalformedCommand(
            f"returned at {format_instant(at_ms)} is before {player} left "
            f"({format_instant(leave.left_at_ms)})"
        )
    return [
        PlayerReturned(
            originator_id=INCIDENTS_STREAM,
            originator_version=current.version + 1,
            at_ms=at_ms,
            by=cmd.by or leave.accompanied_by,
            player=player,
            left_at_ms=leave.left_at_ms,
            accompanied_by=leave.accompanied_by,
            game=leave.game,
        )
    ]
