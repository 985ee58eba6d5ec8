"""Every fact the engine records: immutable, past tense, self-describing.

Each event belongs to one stream at one position in it, carries the instant it
happened (``at_ms``) and who caused it (``by``), and holds values only, so the store
encodes it and decodes it back equal. A stored field never changes meaning; a new
meaning gets a new event class. The streams (``tournament``, ``game/<id>``,
``clock/<id>``, ``incidents``, ``board/<serial>``) and the names of a store's further
tournaments are described in docs/architecture.md, "The events and their streams"."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, NotRequired, TypedDict

from engine.timefmt import format_instant

TOURNAMENT_STREAM = "tournament"
INCIDENTS_STREAM = "incidents"
"""The Chief Arbiter's incident book (``engine.arbiter.incident_book``)."""


def game_stream(game_id: str) -> str:
    """The stream of one game's decisions (moves, claims, result)."""
    return f"game/{game_id}"


def clock_stream(game_id: str) -> str:
    """The stream of one game's physical clock readings."""
    return f"clock/{game_id}"


def board_stream(serial: str) -> str:
    """The stream of the alerts one electronic board raised."""
    return f"board/{serial}"


def stream_game_id(stream: str) -> str | None:
    """The game id of a ``game/...`` or ``clock/...`` stream, else None; for a further
    tournament's stream ``<tid>/<id>``, which keeps games of several tournaments apart
    (``split_stream`` gives the tournament and the plain id)."""
    kind, _, rest = stream.partition("/")
    return rest if kind in ("game", "clock") and rest else None


TOURNAMENTS_STREAM = "tournaments"
"""The store's list of its tournaments after the first (``TournamentListed``)."""


def physical_stream(stream: str, namespace: str | None) -> str:
    """Where a tournament's stream is stored: ``namespace`` None (the store's first
    tournament) keeps the name; else ``tournament/<ns>``, ``game/<ns>/<id>``..."""
    kind, _, rest = stream.partition("/")
    if namespace is None or kind not in (TOURNAMENT_STREAM, INCIDENTS_STREAM, "game", "clock"):
        return stream  # the store's own streams (``board/<serial>``...) are shared
    return f"{kind}/{namespace}/{rest}" if rest else f"{kind}/{namespace}"


def split_stream(stream: str) -> tuple[str | None, str]:
    """(namespace, name) of a stored stream: the inverse of ``physical_stream``;
    None for the first tournament's streams and the store's own (``tournaments``)."""
    kind, _, rest = stream.partition("/")
    if kind in (TOURNAMENT_STREAM, INCIDENTS_STREAM):
        return (rest or None), kind
    if kind in ("game", "clock"):
        namespace, slash, game_id = rest.rpartition("/")
        if slash:
            return namespace, f"{kind}/{game_id}"
    return None, stream


class TypeName:
    """``Event.kind``: the event's type name. A non-data descriptor, so that an
    event with a field of its own named ``kind`` (``AlertRaised``) can still be
    built and keeps its field; ``to_wire`` names the type from the class."""

    def __get__(self, obj: object, owner: type) -> str:
        return owner.__name__


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every recorded event."""

    originator_id: str
    """The stream the event belongs to."""
    originator_version: int
    """Position in the stream, from 1."""
    at_ms: int
    """When it happened, UTC epoch milliseconds."""
    by: str
    """Who caused it: an arbiter id, ``dgt:<serial>``, ``import``, a player id."""

    kind = TypeName()
    """The event's type name, as stored and streamed (see ``TypeName``)."""

    def payload(self) -> dict[str, Any]:
        """The event's own fields (without stream and version)."""
        return {name: getattr(self, name) for name in _payload_names(type(self))}

    def to_wire(self) -> dict[str, Any]:
        """The contract's form: type, stream, version, ``at`` as ISO text, then the fields.
        ``at`` is null for an event whose command gave no instant (``create_tournament`` or
        ``draw_lots`` without ``at``: ``at_ms`` 0), never shown as 1970-01-01."""
        wire = {
            "type": type(self).__name__,
            "stream": self.originator_id,
            "version": self.originator_version,
            "at": format_instant(self.at_ms) if self.at_ms else None,
        }
        for name in _wire_names(type(self)):
            wire[name] = getattr(self, name)
        return wire


_PAYLOAD_NAMES: dict[type, tuple[str, ...]] = {}
_WIRE_NAMES: dict[type, tuple[str, ...]] = {}


def _payload_names(cls: type) -> tuple[str, ...]:
    """An event class's own fields, in declaration order (``Event.payload``)."""
    names = _PAYLOAD_NAMES.get(cls)
    if names is None:
        skip = ("originator_id", "originator_version")
        names = _PAYLOAD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.name not in skip)
    return names


def _wire_names(cls: type) -> tuple[str, ...]:
    """The fields ``Event.to_wire`` writes after ``at``, in declaration order."""
    names = _WIRE_NAMES.get(cls)
    if names is None:
        names = _WIRE_NAMES[cls] = tuple(n for n in _payload_names(cls) if n != "at_ms")
    return names


# --- tournament stream -------------------------------------------------------


class PlayerNamed(TypedDict):
    """What every player of ``TournamentCreated`` has (``PlayerEntry``)."""

    id: str
    name: str
    federation: str
    """A FIDE federation code (``ENG``); empty when not known."""
    rating: int | float
    """May be fractional (2.3: an average of the ratings lists)."""


class PlayerEntry(PlayerNamed, total=False):
    """A player as ``TournamentCreated`` records him (``create_tournament``'s ``players``):
    his id, name, federation and rating, and these when given. (Declared apart, not
    ``NotRequired``: the audit reads which keys are required at run time.)"""

    fide_id: str
    """The FIDE id's digits (older events lack them)."""
    title: str
    """``GM``, ``IM`` ..."""


class ArbiterEntry(TypedDict):
    """An arbiter as ``TournamentCreated`` records him."""

    id: str
    name: str
    role: str
    """``chief``, ``deputy`` or ``advisor``."""


class PlayoffPairing(TypedDict):
    """A game of a rapid or blitz playoff stage (``PlayoffStageStarted.games``)."""

    game: str
    round: int
    board: int
    white: str
    black: str


@dataclass(frozen=True, kw_only=True)
class TournamentCreated(Event):
    """The event was created with its players, arbiters and rules profile."""

    tournament: str
    name: str
    rules: str
    """Rules profile name (``candidates-2012``, ``fide-2023``)."""
    start_date: str
    """ISO date of the arrival day (3.2: day 1 of 22); empty when not known."""
    cycles: int
    players: tuple[PlayerEntry, ...]
    arbiters: tuple[ArbiterEntry, ...]
    site: str = ""
    """Where the event is played, as the PGN ``Site`` tag gives it (empty: not given)."""
    city: str = ""
    country: str = ""
    """The host city and country (a FIDE federation code, e.g. ``ENG``)."""


@dataclass(frozen=True, kw_only=True)
class TournamentListed(Event):
    """A further tournament was created in the store (on ``tournaments``): its streams
    are namespaced by its id (``tournament/<id>``, ``game/<id>/<round>.<board>``)."""

    tournament: str
    name: str


@dataclass(frozen=True, kw_only=True)
class LotsDrawn(Event):
    """Pairing numbers were drawn (3.4.1): player id -> Berger number, 1-based."""

    numbers: dict[str, int]
    seed: str | None
    """The seed the numbers were drawn from, or None when they were given."""


# --- game stream -------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GameStarted(Event):
    """The arbiter started the game (or an import opened it)."""

    game: str
    round: int
    board: int
    white: str
    black: str
    time_control: str
    """PGN TimeControl form of the time control in force (3.5.1, 3.7.1.a ...)."""
    rules: str
    initial_fen: str | None = None
    """None for the standard starting position."""
    stage: str = "tournament"
    """``tournament`` for the 14 rounds; playoff games name their stage (``rapid``,
    ``blitz``, ``sudden_death``: 3.7.1.a, 3.7.2, 3.7.3), whose rules differ (3.7.1.b)."""
    move_times_known: bool = True
    """False when the moves' ``at_ms`` are not the instants they were completed (a
    score sheet imported without clock comments): the clock is then unknown and
    the engine never flags the game."""
    tags: dict[str, str] | None = None
    """The tags of the score sheet the game was imported from (``Site``, ``ECO``,
    ``Opening``, ``Date`` as the file wrote it, ``????.??.??`` included), kept as read and
    written back on export; None for a game played here."""
    date_known: bool = True
    """False when the score sheet gave no day (``????.??.??`` or no Date): ``at_ms`` is
    then not a fact (nothing is dated from it)."""
    increment_on_control_move: bool = False
    """True when the game's readings show a clock on the table that credits the next
    period's increment on the move completing a period (move 40 under
    ``40/7200:1800+30``): that device's rule, which the regulation clock follows
    (``engine.clock.regulation.Clock``)."""


@dataclass(frozen=True, kw_only=True)
class PresenceRecorded(Event):
    """Who was at the board when the game started (Laws 2009 6.6 a, the default time),
    recorded with the start when ``start_game`` names the players present."""

    game: str
    present: tuple[str, ...]
    absent: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class MovePlayed(Event):
    """A legal move was completed on the board."""

    uci: str
    san: str
    ply: int
    """1 for White's first move."""


class DeadPositionRecord(TypedDict):
    """The engine's search on a position declared dead (Laws 2009 5.2 b), as a result
    holds it (``engine.game.dead_position``)."""

    verdict: str
    """``dead`` or ``unproven`` (a position from which a side can mate is refused)."""
    fen: str
    positions: int
    """Distinct positions reached."""
    budget: int
    summary: str
    mating_line: NotRequired[list[str]]
    mating_side: NotRequired[str | None]


@dataclass(frozen=True, kw_only=True)
class ResultRecorded(Event):
    """The game ended: by the position (mate, stalemate, dead position), resignation,
    time, a ruling, default, or a result imported from a score sheet."""

    result: str
    """``1-0``, ``0-1``, ``1/2-1/2`` (or ``0-0`` for a double default)."""
    termination: str
    """Stable name: checkmate, stalemate, insufficient_material, resignation,
    time_forfeit, arbiter_decision, imported, a claim kind, ..."""
    reason: str = ""
    arbiter: str | None = None
    scores: str | None = None
    """The players' own scores, White's first, where the ruling gives each his own
    (``0-1/2``: Laws 2009 12.3 b, the opponent could not win); ``result`` is then the
    nearest PGN result (``engine.scores``). None: the result's scores."""
    evidence: DeadPositionRecord | None = None
    """A draw declared for a dead position (Laws 2009 5.2 b): the engine's search on the
    position (``engine.game.dead_position``: ``verdict`` ``dead`` or ``unproven``, the
    positions searched, the budget, a summary). None for every other result, and for a
    result stored before the search existed."""

    def __post_init__(self) -> None:
        # Held (so stored, hashed and exported) only when there is evidence: every other
        # result keeps exactly the fields a result had before ``evidence`` existed, and
        # its stored bytes and hash link are the same (adapters/store/chain.py reads an
        # event's own attributes; the class default answers for the missing one).
        if self.evidence is None:
            del vars(self)["evidence"]


# --- draw claims and irregularities (game stream; engine/arbiter/draw_claims.py) -----


@dataclass(frozen=True, kw_only=True)
class DrawClaimed(Event):
    """A player claimed a draw through the arbiter (3.9.2 b; Laws 9.2, 9.3, 9.5),
    with the engine's verification attached for the arbiter to see. ``by`` is the
    claimant's player id (or ``both`` for a joint theoretical-draw claim)."""

    game: str
    claim: str
    """The claim's id in this game: ``1``, ``2``, ... unless the command named one."""
    side: str
    """``white``, ``black``, or ``both`` (3.9.2 b: a theoretical draw may be
    claimed by one or both players)."""
    grounds: str
    """The claim's kind (``claim_draw``'s ``kind``): threefold_repetition,
    fifty_moves, perpetual_check, stalemate, insufficient_material,
    theoretical_draw."""
    ply: int
    """Moves played when the claim was made (the position claimed on)."""
    intended_uci: str | None
    """9.2 a / 9.3 a: the move written on the score sheet and not played."""
    intended_san: str | None
    verified: bool | None
    """True / False when the position decides the claim; None when it is the
    arbiter's judgement (perpetual check, theoretical draw)."""
    evidence: dict[str, Any]
    """What the verification found (plies of each occurrence, move counts ...)."""


@dataclass(frozen=True, kw_only=True)
class ClaimAdvised(Event):
    """The Technical Advisor gave the Chief Arbiter an opinion on a claim (3.9.2 b)."""

    game: str
    claim: str
    opinion: str
    """``draw`` or ``not_draw``."""
    advisor: str
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class ClaimRuled(Event):
    """The Chief Arbiter or Deputy ruled on a claim (3.9.2 b). The arbiter is
    sovereign: a ruling that contradicts the verification (or, for a theoretical
    draw, the advisor's opinion) is recorded with ``override`` set and the reason."""

    game: str
    claim: str
    decision: str
    """``accepted`` (the game is drawn) or ``rejected`` (the game goes on)."""
    arbiter: str
    verified: bool | None
    """The verification (or the advisor's opinion) the ruling was made against."""
    override: bool
    reason: str = ""
    incorrect_claims: int = 0
    """After a rejected claim: the claimant's incorrect claims in this game so far."""


@dataclass(frozen=True, kw_only=True)
class IllegalMoveRecorded(Event):
    """The arbiter recorded a completed illegal move (Laws 2009 7.4; 2023 7.5).
    The position before it stands (the engine never played it)."""

    game: str
    side: str
    player: str
    arbiter: str
    count: int
    """This player's illegal moves in this game, this one included."""
    ply: int
    """Moves played when it was recorded."""
    move: str | None = None
    """The illegal move as reported, for the record."""


@dataclass(frozen=True, kw_only=True)
class ClockAdjusted(Event):
    """The arbiter added (or took) time on one side's clock: a penalty (illegal
    move, incorrect claim) or a correction. ``delta_ms`` > 0 adds time."""

    side: str
    delta_ms: int
    reason: str
    arbiter: str


# --- corrections and flag rulings (game stream; engine/arbiter/corrections.py, flag_rulings.py)


@dataclass(frozen=True, kw_only=True)
class MovesCorrected(Event):
    """The Chief Arbiter or a Deputy corrected the moves recorded after ``from_ply``
    (Laws 2009 7.4 a: an irregularity found later, the position before it is
    reinstated and the game goes on from there; 6.13: the arbiter adjusts the clock
    and the move counter). Nothing is erased: the event keeps the moves and the
    regulation clock it replaces."""

    game: str
    arbiter: str
    reason: str
    from_ply: int
    """The plies up to this one stand; every later one is replaced."""
    uci: tuple[str, ...]
    """The moves that replace them, in order (possibly none)."""
    san: tuple[str, ...]
    replaced_uci: tuple[str, ...]
    """The moves recorded after ``from_ply`` before the correction."""
    replaced_san: tuple[str, ...]
    white_ms: int | None = None
    """The clock the arbiter set in the same act (6.13), or None: the regulation clock
    recomputed for the corrected move counter."""
    black_ms: int | None = None
    replaced_white_ms: int | None = None
    """The regulation clock at ``at_ms`` before the correction (None: unknown clock)."""
    replaced_black_ms: int | None = None


@dataclass(frozen=True, kw_only=True)
class ResultCorrected(Event):
    """The Chief Arbiter or a Deputy corrected a result recorded by mistake: another
    result, or none (``result`` None: the game is in progress again, its clock as it
    was when the result was recorded). Keeps the result it replaces."""

    game: str
    arbiter: str
    reason: str
    result: str | None
    termination: str | None
    replaced_result: str
    replaced_termination: str | None
    replaced_at_ms: int
    """When the replaced result had been recorded."""


@dataclass(frozen=True, kw_only=True)
class FlagRuled(Event):
    """The Chief Arbiter or a Deputy ruled on a flag (Laws 2009 6.8: a flag is fallen
    when the arbiter observes it; 6.10 a: the clock's indication is conclusive unless
    it is evidently defective). ``fallen``: a ``ResultRecorded`` follows (6.9);
    ``not_fallen``: the game goes on. Dismissing a flag the regulation clock shows is
    an ``override`` and needs a reason."""

    game: str
    side: str
    arbiter: str
    decision: str
    """``fallen`` or ``not_fallen``."""
    reason: str
    evidence: dict[str, Any]
    """What the engine had seen when the arbiter ruled: the regulation clock, the last
    device reading and its flag, the moves completed, the control."""
    override: bool


# --- clock stream --------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ClockReadingRecorded(Event):
    """The physical clock showed these times at ``at_ms`` (a DGT clock, an arbiter,
    a score sheet's clock comment). Stored as observed, never corrected; the
    regulation clock's values at the same instant are kept beside it."""

    game: str
    white_ms: int
    black_ms: int
    running: str | None
    """The side whose clock the device showed running, or None (stopped/unknown)."""
    model_white_ms: int | None = None
    """The regulation clock at the same instant; None when the clock is unknown."""
    model_black_ms: int | None = None
    ply: int | None = None
    """The ply after which the reading was taken, when known (imports, moves with times)."""
    open_alerts: tuple[str, ...] = ()
    """Clock alerts in force after this reading (``kind:side``), so a persisting
    mismatch is reported once, not on every reading."""
    glitch: bool = False
    """True for a score sheet's reading of the mover's clock that contradicts the same
    player's readings before and after it (a broadcast glitch): kept as read, never
    judged, never used to place the moves in time, exported marked as a glitch."""


# --- alerts (on the stream of whatever raised them) ---------------------------


@dataclass(frozen=True, kw_only=True)
class AlertRaised(Event):
    """Something the arbiters must look at: a clock that disagrees with the
    regulation clock, a board that sent an impossible position, a pending
    claim, a disconnected board. Alerts never change a game by themselves."""

    game: str | None
    kind: str
    """Stable name, e.g. ``clock_mismatch``, ``bonus_not_credited``, ``board_disconnected``."""
    message: str
    details: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class RoundsReordered(Event):
    """The rounds of the pairing table are played in another order (3.2: a change of
    the playing schedule): round r of the event plays the table's round ``order[r-1]``.
    Recorded by an import whose games follow the table in another order."""

    order: tuple[int, ...]
    reason: str


@dataclass(frozen=True, kw_only=True)
class BoardsRenumbered(Event):
    """The boards of some rounds are numbered as the organisers published them, not in
    the pairing table's order (3.2: the playing schedule is the organisers'): in round
    ``r`` (as played), the table's board ``b`` is played as board ``boards[str(r)][b-1]``.
    Game ids (``<round>.<board>``) follow the published numbers."""

    boards: dict[str, tuple[int, ...]]
    reason: str


# --- tournament stream: withdrawals and playoffs (3.1, 3.3.3, 3.7.1-3.7.4) ---


@dataclass(frozen=True, kw_only=True)
class PlayerWithdrew(Event):
    """A player withdrew from the event (3.1, 3.3.3).

    ``rule`` says how his games are treated: ``defaults`` (3.1: 50% or more of
    his games completed, the rest lost by default), ``annulled`` (3.1: under
    50%, all his results annulled) or ``first_round_default`` (3.3.3: less than
    3 months before the start, his first-round opponent is declared the winner).
    """

    player: str
    reason: str
    rule: str
    games_completed: int
    games_total: int
    effective_round: int
    """The first round with a game of his not completed when he withdrew."""
    arbiter: str


@dataclass(frozen=True, kw_only=True)
class PlayoffStageStarted(Event):
    """A stage of tie-break games began for a place (3.7.1.a rapid, 3.7.2 blitz,
    3.7.3 sudden death; 3.7.4 for a place other than the first).

    For rapid and blitz, ``numbers`` is the new drawing of colours (3.4.2) and
    ``games`` every pairing of the stage (``{"game", "round", "board", "white",
    "black"}``). For sudden death, ``players`` is the initial ranking by
    rating (3.7.3.b-e) and the games are paired later (``SuddenDeathPaired``).
    """

    place: int
    stage: str
    """``rapid``, ``blitz`` or ``sudden_death``."""
    series: int
    """1 for rapid and sudden death; 1, 2 or 3 for blitz (3.7.2: at most two repeats)."""
    players: tuple[str, ...]
    seed: str | None
    numbers: dict[str, int]
    games: tuple[PlayoffPairing, ...]
    time_control: str
    arbiter: str


@dataclass(frozen=True, kw_only=True)
class SuddenDeathPaired(Event):
    """A sudden-death game of the bracket was paired and its lot drawn (3.7.3.a):
    the lot winner chooses the colour (``SuddenDeathColourChosen``)."""

    place: int
    match: int
    """1-based, in bracket order (first bracket round first)."""
    game: str
    players: tuple[str, ...]
    seed: str | None
    lot_winner: str
    arbiter: str


@dataclass(frozen=True, kw_only=True)
class SuddenDeathColourChosen(Event):
    """The winner of the lot chose his colour for a sudden-death game (3.7.3.a)."""

    place: int
    game: str
    player: str
    colour: str
    white: str
    black: str
    arbiter: str


# --- tamper evidence (on the tournament stream) -------------------------------


@dataclass(frozen=True, kw_only=True)
class ChainSealed(Event):
    """The store sealed the hash chains: a digest of the first ``events_before``
    stored events in their global order (see docs/audit.md). The engine never
    decides on it; the store appends it and ``candidates audit`` checks it."""

    events_before: int
    """The seal covers the first ``events_before`` events of the log, in global order."""
    order_digest: str
    """Hex SHA-256 running digest of those events' hash links, in global order."""
    order: str
    """8 hex digits (the first 4 bytes of each link) for every event this seal adds to
    the previous one, in global order: lets an audit name a moved or missing event."""
    heads: dict[str, int]
    """Stream -> version of its last event among those covered, for every stream this
    seal adds events of: names a stream's deleted last event."""
    through_seq: int
    """Where the store that sealed read up to (its notification id); a hint only."""


# --- the incident book (``incidents`` stream; engine/arbiter/incidents.py) ----------


@dataclass(frozen=True, kw_only=True)
class IncidentRecorded(Event):
    """An arbiter recorded an incident of the playing conditions or the players'
    conduct, with the penalty he imposed, if any (3.9.1, 3.9.2 a, 3.9.2 c; Laws
    2009 12.3 b, 12.6, 13.4). The penalty's consequences (time, result, a
    withdrawal) are recorded in the same transaction on their own streams."""

    incident: str
    """The incident's number in the book: ``1``, ``2``, ..."""
    kind: str
    """``device_sounded``, ``extraneous_equipment``, ``left_playing_area``,
    ``unauthorised_person``, ``disturbance`` or ``other``."""
    article: str
    """The rule breached, e.g. ``Laws 2009 12.3 b``."""
    arbiter: str
    player: str | None
    """The player concerned; None for a person who is not a player (3.9.1)."""
    game: str | None
    side: str | None
    """The player's side in ``game``, when there is one."""
    round: int | None
    """The round of ``game``; None for an incident outside a game."""
    details: str
    penalty: str | None
    """13.4: ``warning`` (a), ``time_added`` (b), ``time_deducted`` (c),
    ``game_lost`` (d), ``points_reduced`` (e), ``opponent_points_raised`` (f),
    ``expelled`` (g); None when no penalty was imposed."""
    penalty_side: str | None = None
    """The clock the time penalty applies to (the opponent's for b, the offender's for c)."""
    penalty_ms: int | None = None
    """Time added (b) or deducted (c)."""
    points: str | None = None
    """Points taken from the offender (e), as a fraction (``1/2``, ``1``)."""
    result: str | None = None
    """The game's result when the penalty ended it (d, f)."""
    scores: str | None = None
    """Each player's own score when the ruling gave them (12.3 b: ``0-1/2``)."""


@dataclass(frozen=True, kw_only=True)
class LeavePermitted(Event):
    """The Chief Arbiter allowed a player to leave the playing area during the session,
    accompanied by an arbiter (3.9.2 c)."""

    player: str
    arbiter: str
    accompanied_by: str
    game: str | None
    """The player's game in progress."""


@dataclass(frozen=True, kw_only=True)
class PlayerReturned(Event):
    """A player who left the playing area with permission came back (3.9.2 c)."""

    player: str
    left_at_ms: int
    accompanied_by: str
    game: str | None


@dataclass(frozen=True, kw_only=True)
class DefaultRuled(Event):
    """The arbiter declared a game lost by a player absent at its start (Laws 2009 6.6 a:
    the default time; 3.3.7: no game is postponed). The result is recorded on the game's
    stream in the same transaction."""

    game: str
    player: str
    side: str
    arbiter: str
    default_time_ms: int
    """The event's default time (0 under the 2009 Laws unless the event says otherwise)."""
    result: str
    """``1-0`` / ``0-1``, or ``0-0`` when both players were absent."""


@dataclass(frozen=True, kw_only=True)
class WithdrawalReasonRuled(Event):
    """The Chief Arbiter ruled on a withdrawn player's reason (3.3.4: without a
    satisfactory reason he is excluded from the next World Championship cycle)."""

    player: str
    satisfactory: bool
    arbiter: str
    reason: str


# --- command identities (``command/<command_id>`` streams) ---------------------


def command_stream(command_id: str) -> str:
    """The stream that records which command a ``command_id`` was applied to."""
    return f"command/{command_id}"


@dataclass(frozen=True, kw_only=True)
class CommandApplied(Event):
    """A command carrying a ``command_id`` was applied: appended in the same
    transaction as the events it decided, at version 1 of ``command/<command_id>``,
    so a stream position written once makes the id apply once, whoever sends it
    again (the retry of a client that never saw the answer)."""

    command_id: str
    command: str
    """The command's name (``play_move``, ...)."""
    digest: str
    """Hex SHA-256 of the command's body without ``command_id`` (canonical JSON): the
    same id with another body is refused."""
    events: tuple[tuple[str, int], ...]
    """(stream, version) of every event the command appended, in order: the answer
    a repeat gets is read back from them."""
