"""What a board's observations become in the event store.

The board proposes; the store is the record. A confirmed move becomes ``PlayMove``
(moves the store lacks are played in order; a board behind the record or on another
line raises an alert), a clock reading ``ClockReading`` (under its ``command_id``), a
recovered misread a ``correction_proposed`` alert (or, under the automatic policy, a
correction applied before the public saw the plies), and everything the arbiters must
see ``RaiseAlert`` on ``board/<serial>``: typed commands, sent through
``Store.execute``. Whether a game still takes moves and readings is the engine's
decision; the sink never asks first and takes the refusal of a game not in progress
quietly. Refusals never stop the feed; the sink runs in the store's thread
(``adapters.dgt.writer``). The mapping is in docs/dgt.md, section 6."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.dgt import protocol as p
from adapters.dgt.clocksides import ColouredReading
from adapters.dgt.observations import (
    BoardAlert,
    LineRecovered,
    MoveConfirmed,
    MoveCorrected,
    MoveSeen,
    Observation,
    TakebackSeen,
)
from adapters.dgt.session import BoardIdentified, BoardSession, ClockMapped
from adapters.host import public_delay
from adapters.store import Store
from engine.arbiter.board_alerts import RaiseAlert
from engine.arbiter.corrections import CorrectMoves
from engine.commands import Command
from engine.errors import AlreadyRecorded, CommandRefused, GameNotInProgress, UnknownGame
from engine.events import AlertRaised
from engine.game.moves import PlayMove
from engine.game.reconciliation import ClockReading
from engine.side import Side

log = logging.getLogger(__name__)

REFUSALS_KEPT = 1000
"""The refusals a sink keeps for its caller (the last ones; each is also logged)."""

SessionCall = Callable[[Callable[[], None]], None]


@dataclass(frozen=True)
class Identified:
    """A command sent under a ``command_id`` (a clock reading, ``reading_id``): the
    store answers it sent again, after a restart, as it did the first time."""

    command: Command
    command_id: str

    @property
    def cmd(self) -> str:
        return self.command.cmd


Sent = Command | Identified
"""What the sink sends the store: a typed command, or one under its ``command_id``."""


def raw_of(sent: Sent) -> object:
    """What the store's door is given for ``sent``: the command itself, or, under a
    ``command_id`` (which only the JSON form carries), its JSON form with the id."""
    if isinstance(sent, Identified):
        return {**sent.command.to_wire(), "command_id": sent.command_id}
    return sent


@dataclass(frozen=True)
class Refused:
    """A command the store refused, with the refusal."""

    command: Sent
    error: CommandRefused


@dataclass(frozen=True)
class Proposal:
    """A ``correct_moves`` the board proposes to the arbiters: the command but for its
    ``arbiter``, who confirms it by sending it in their name (``signed``)."""

    game: str
    reason: str
    at_ms: int
    from_ply: int
    """The plies kept (the moves after it are replaced)."""
    moves: tuple[str, ...]

    cmd = "correct_moves"

    def signed(self, arbiter: str) -> CorrectMoves:
        return CorrectMoves(
            game=self.game,
            arbiter=arbiter,
            reason=self.reason,
            at_ms=self.at_ms,
            from_ply=self.from_ply,
            moves=list(self.moves),
        )

    def body(self) -> object:
        """The proposal as the alert carries it: ``correct_moves`` without ``arbiter``."""
        wire = self.signed("").to_wire()
        del wire["arbiter"]
        return wire


EXPECTED = (GameNotInProgress, UnknownGame)
"""Refusals a board's feed meets in the normal course (moves and readings of a game
not started yet, or already over): logged, neither kept nor alerted."""


def at_once(call: Callable[[], None]) -> None:
    """``on_session`` of a sink that runs where its session lives."""
    call()


@dataclass
class StoreSink:
    store: Store
    game_id: str
    session: BoardSession
    label: str = "unknown"
    """Names the board until it tells its serial number (the source, e.g. the port)."""
    commands_sent: list[Sent] = field(default_factory=list)
    """With ``keep_log``: every command sent to the store."""
    refusals: deque[Refused] = field(default_factory=lambda: deque(maxlen=REFUSALS_KEPT))
    """The last ``REFUSALS_KEPT`` refusals (command and error), expected ones apart."""
    readings: list[Sent] = field(default_factory=list)
    """With ``keep_log``: every clock reading mapped to colours, as ``clock_reading``."""
    alerts: list[AlertRaised] = field(default_factory=list)
    """With ``keep_log``: every alert stored."""
    command_ids: bool = True
    """Clock readings carry a ``command_id`` naming the reading (``reading_id``), so a
    feed restarted after a crash that sends a reading again stores it once; moves
    always carry their ``ply``. The bundled sample turns ids off: a replay log
    records play, not transport retries."""
    keep_log: bool = False
    """Keep every command, reading and alert in the lists above (a test, the simulator's
    check); off in a hall, where a board sends about 25,000 readings in a 7-hour game."""
    on_session: SessionCall = at_once
    """Runs what the sink does to the board's session where the session lives."""
    line: tuple[str, ...] | None = None
    """The board's confirmed line at the start, when the session is resumed elsewhere
    (else read from the session)."""
    _move_at: dict[int, int] = field(default_factory=dict)
    _line: list[str] = field(default_factory=list)
    _confirmed: int = 0
    _alerted: set[tuple[Any, ...]] = field(default_factory=set)
    _lost: bool = False
    """An ``impossible_position`` alert is open (no ``position_restored`` since)."""
    _recovery: LineRecovered | None = None
    """The last line the board corrected itself (rule 7), until the record follows it."""
    proposals: list[Proposal] = field(default_factory=list)
    """Every ``correct_moves`` proposed to the arbiters."""
    auto_correct_arbiter: str | None = None
    """The automatic policy: the Chief Arbiter or Deputy in whose name the board's
    corrections are applied at once when the plies they replace are not yet public
    (None: every correction is proposed, none applied)."""
    public_delay_ms: int = public_delay.DEFAULT_MS
    """How long after a move the public sees it (``adapters.host.public_delay``)."""
    _appended_at: dict[int, int] = field(default_factory=dict)
    _stored: int = 0
    """How many plies of the board's line the store holds, as the last look found."""
    _finished: bool = False
    """The store refused the board's last move as the game is over (a move it accepts,
    the record reopened, clears it)."""

    @property
    def serial(self) -> str:
        return self.session.serial or self.label

    @property
    def by(self) -> str:
        return f"dgt:{self.serial}"

    # --- observations -------------------------------------------------------

    def __post_init__(self) -> None:
        # The board's line as the observations tell it (the session may be ahead).
        if self.line is not None:
            self._line = list(self.line)
        else:
            self._line = list(self.session.reconstructor.confirmed_moves)
        self._confirmed = len(self._line)
        self._stored = len(self._line)

    @property
    def level(self) -> bool:
        """Whether the board's line holds nothing the store lacks (every move seen is
        confirmed and stored, or the game is over): what the sink was given up to now
        need not be given again after a restart (``adapters.dgt.outbox``)."""
        return self._finished or len(self._line) <= self._stored

    def board_line(self, observations: list[Observation]) -> tuple[str, ...]:
        """The board's confirmed line once ``observations`` are delivered (the sink is
        left as it is): where a reader restarted with them unsent follows its board."""
        line = list(self._line)
        confirmed = self._confirmed
        for obs in observations:
            confirmed = follow_line(line, confirmed, obs)
        return tuple(line[:confirmed])

    def deliver(self, observations: list[Observation]) -> None:
        for obs in observations:
            self._confirmed = follow_line(self._line, self._confirmed, obs)
            match obs:
                case MoveSeen() | MoveCorrected():
                    self._move_at[obs.ply] = obs.at_ms
                case LineRecovered():
                    self._recovery = obs
                    log.warning("board %s, game %s: %s", self.serial, self.game_id, obs.message)
                case MoveConfirmed():
                    self.sync(obs.at_ms)
                case TakebackSeen():
                    self.alert(
                        "takeback",
                        f"the board went back from ply {obs.from_ply} to ply {obs.to_ply} "
                        f"(taking back {' '.join(obs.undone)}): nothing is changed in the record",
                        {
                            "from_ply": obs.from_ply,
                            "to_ply": obs.to_ply,
                            "undone": list(obs.undone),
                        },
                        obs.at_ms,
                        once=("takeback", obs.to_ply, obs.undone),
                    )
                case BoardAlert():
                    if obs.kind == "new_game":
                        self._finished = False
                    if obs.kind in ("impossible_position", "position_restored"):
                        self._lost = obs.kind == "impossible_position"
                    details = dict(obs.details)
                    self.alert(obs.kind, obs.message, details, obs.at_ms, once=None)
                    if obs.kind == "impossible_position":
                        self.sync(obs.at_ms)
                case ClockMapped():
                    self.clock(obs)
                case BoardIdentified():
                    log.info("board %s on game %s", obs.serial, self.game_id)

    def sync(self, at_ms: int) -> None:
        """Play the confirmed moves the store does not have yet; alert on divergence."""
        board_moves = self._line[: self._confirmed]
        game = self.store.reads.game(self.game_id)
        if game is None:
            self.alert(
                "game_not_started",
                f"moves arrive from the board for game {self.game_id}, which has not been "
                "started: they are kept and played once it is",
                {"ply": len(board_moves)},
                at_ms,
                once=("game_not_started",),
            )
            return
        stored = list(game.moves)
        self._stored = common_prefix(stored, self._line)
        if board_moves[: len(stored)] == stored:
            if self._recovery is not None and len(stored) >= self._recovery.from_ply:
                self._recovery = None  # the record follows the corrected line
            # The board's host clock and the arbiter's commands are separate sources: a move
            # seen a moment before the game's last recorded event (its start, typically) is
            # dated at that event, since the engine keeps a game's events in time order.
            floor_ms = game.last_at_ms
            for ply in range(len(stored) + 1, len(board_moves) + 1):
                move_at_ms = max(self._move_at.get(ply, at_ms), floor_ms)
                if not self.play(board_moves[ply - 1], ply, move_at_ms):
                    break
                self._stored = ply
                floor_ms = move_at_ms
            return
        first = common_prefix(stored, board_moves)
        recovery = self._recovery
        if recovery is not None and recovery.from_ply <= first + 1 < len(board_moves) + 1:
            self.propose(recovery, first + 1, board_moves, stored, at_ms)
            return
        if stored[: len(board_moves)] == board_moves and self._lost:
            self.follow_record(stored, game.initial_fen, at_ms)
            return
        if stored[: len(board_moves)] == board_moves:
            kind, what = "board_behind_record", "is behind the record"
            # The record went on (the arbiter entered moves the board missed):
            # the board may catch up along them.
            continuation = stored[len(board_moves) :]
            self.on_session(lambda: self.session.reconstructor.offer_continuation(continuation))
        else:
            kind, what = "board_diverged", "differs from the record"
        self.alert(
            kind,
            f"the board of game {self.game_id} {what} from ply {first + 1} "
            f"(board {len(board_moves)} plies, record {len(stored)}): nothing appended",
            {"board_moves": board_moves, "record_moves": stored, "first_ply": first + 1},
            at_ms,
            once=(kind, tuple(board_moves), len(stored)),
        )

    def follow_record(self, stored: list[str], initial_fen: str | None, at_ms: int) -> None:
        """The board is lost (a position no line from its moves explains: more plies were
        played while its reader was down than a dump reconciles) and the record went on
        past it: an arbiter entered the moves from the score sheets. The board is followed
        from the record, as a reader started now would follow it: the reconstructor
        resumes at the record's last move and the board's position is asked for again,
        to be reconciled from there."""
        session, line = self.session, tuple(stored)

        def follow() -> None:
            session.reconstructor.resume(initial_fen, line)
            session.reconnected()
            session.request(p.SEND_BRD)

        self.on_session(follow)
        self._line, self._confirmed, self._lost = list(stored), len(stored), False
        self.alert(
            "board_follows_record",
            f"the board of game {self.game_id} is followed from the record's ply "
            f"{len(stored)} (moves entered by the arbiter); its position is read again",
            {"ply": len(stored)},
            at_ms,
            once=("board_follows_record", len(stored)),
        )

    def propose(
        self,
        recovery: LineRecovered,
        from_ply: int,
        board_moves: list[str],
        stored: list[str],
        at_ms: int,
    ) -> None:
        """The board recovered from a move it took wrongly that the record already holds
        (``from_ply``: the first ply that differs, 1-based). Once per recovery: under
        the automatic policy, for plies not yet shown to the public, ``correct_moves``
        is applied in the name of the arbiter who set the policy; otherwise (or if it
        is refused) it is proposed to the arbiters. Nothing else is appended."""
        key = ("correction", recovery.from_ply, recovery.replaced, recovery.at_ms)
        if key in self._alerted:
            return
        moves = board_moves[from_ply - 1 :]
        replaced = stored[from_ply - 1 :]
        proposal = Proposal(
            game=self.game_id,
            reason=f"board {self.serial}: {recovery.message}",
            at_ms=at_ms,
            from_ply=from_ply - 1,
            moves=tuple(moves),
        )
        what = f"{recovery.message}; the record has {' '.join(replaced)} from ply {from_ply}"
        if self.auto_correct_arbiter is not None and self._unpublished(
            from_ply, len(stored), at_ms
        ):
            command = proposal.signed(self.auto_correct_arbiter)
            refused = self._send(command)
            if refused is None:
                self.alert(
                    "correction_applied",
                    f"{what}: corrected automatically ({' '.join(moves)}), not yet shown to "
                    f"the public, under the policy of {self.auto_correct_arbiter}",
                    {
                        "from_ply": from_ply,
                        "record_moves": replaced,
                        "board_moves": moves,
                        "command": command.to_wire(),
                    },
                    at_ms,
                    once=key,
                )
                self.sync(at_ms)
                return
            what += f" (automatic correction refused: {refused.message})"
        self.proposals.append(proposal)
        self.alert(
            "correction_proposed",
            f"{what}: correct_moves proposed to the arbiter ({' '.join(moves)})",
            {
                "from_ply": from_ply,
                "record_moves": replaced,
                "board_moves": moves,
                "proposal": proposal.body(),
            },
            at_ms,
            once=key,
        )

    def _unpublished(self, first_ply: int, last_ply: int, at_ms: int) -> bool:
        """Were plies ``first_ply``..``last_ply`` all appended by this board less than the
        public delay ago (so the public has not seen them)?"""
        return all(
            ply in self._appended_at and at_ms - self._appended_at[ply] < self.public_delay_ms
            for ply in range(first_ply, last_ply + 1)
        )

    def play(self, uci: str, ply: int, at_ms: int) -> bool:
        # with its ply, a move sent again is answered as a duplicate, never played twice
        command = PlayMove(game=self.game_id, move=uci, at_ms=at_ms, by=self.by, ply=ply)
        refused = self._send(command)
        if refused is None:
            self._appended_at[ply] = at_ms
            self._finished = False
            return True
        if isinstance(refused, GameNotInProgress):
            self._finished = True  # the engine says the game is over: later moves wait
        elif refused.code != "conflict":
            # (a conflict: the record went on meanwhile, another writer or an arbiter's
            # entry; the next sync compares the board with it again and says what differs)
            self.alert(
                "move_refused",
                f"the board's move {uci} at ply {ply} of game {self.game_id} was refused: "
                f"{refused.message}",
                {"ply": ply, "uci": uci, "error": refused.as_error()},
                at_ms,
                once=("move_refused", ply, uci),
            )
        return False

    def clock(self, obs: ClockMapped) -> None:
        reading = obs.reading
        command = ClockReading(
            game=self.game_id,
            at_ms=reading.at_ms,
            white_ms=reading.white_ms,
            black_ms=reading.black_ms,
            running=side_of(reading.running),
            by=self.by,
            flag=side_of(reading.flag),  # evidence for the arbiter (Laws 6.10 a)
        )
        sent: Sent = command
        if self.command_ids:
            sent = Identified(command, reading_id(self.by, self.game_id, reading))
        if self.keep_log:
            self.readings.append(sent)
        self._send(sent)

    # --- writing --------------------------------------------------------------

    def _send(self, command: Sent) -> CommandRefused | None:
        """Send ``command``; the refusal, or None when the store holds it (a repeat
        answered as a duplicate included)."""
        refused: CommandRefused | None = None
        try:
            self.store.execute(raw_of(command))
        except AlreadyRecorded:
            pass  # a repeat: the store holds it
        except CommandRefused as error:
            refused = error
        if self.keep_log:
            self.commands_sent.append(command)
        if refused is not None:
            if isinstance(refused, EXPECTED):
                log.debug("refused %s: %s", command.cmd, refused.message)
            else:
                self.refusals.append(Refused(command, refused))
                log.info("refused %s: %s", command.cmd, refused.message)
        return refused

    def alert(
        self,
        kind: str,
        message: str,
        details: dict[str, Any],
        at_ms: int,
        *,
        once: tuple[Any, ...] | None,
    ) -> AlertRaised | None:
        """Raise an alert on ``board/<serial>`` (``raise_alert``; ``once``: skip a repeat)."""
        if once is not None and once in self._alerted:
            return None
        command = RaiseAlert(
            board=self.serial,
            game=self.game_id,
            kind=kind,
            message=message,
            details=details,
            at_ms=at_ms,
            by=self.by,
        )
        try:  # a store out of reach: raised, sent again
            _, events = self.store.execute(command)
        except CommandRefused as refused:
            if once is not None:
                self._alerted.add(once)
            log.error("alert %s not stored: %s", kind, refused.message)
            return None
        if once is not None:
            self._alerted.add(once)
        [event] = events
        assert isinstance(event, AlertRaised)
        if self.keep_log:
            self.alerts.append(event)
        log.warning("board %s, game %s: %s", self.serial, self.game_id, message)
        return event


def common_prefix(a: list[str], b: list[str]) -> int:
    """How many moves two lines share from their start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def follow_line(line: list[str], confirmed: int, obs: Observation) -> int:
    """The board's line (``line``, changed in place) and its confirmed plies (returned)
    after ``obs``: what the sink keeps of the board, store or no store."""
    match obs:
        case MoveSeen():
            del line[obs.ply - 1 :]
            line.append(obs.uci)
        case MoveCorrected():
            del line[obs.ply - 1 :]
            if obs.uci is not None:
                line.append(obs.uci)
        case LineRecovered():
            del line[obs.from_ply - 1 :]
            confirmed = min(confirmed, obs.from_ply - 1)
        case MoveConfirmed():
            confirmed = max(confirmed, obs.ply)
        case TakebackSeen():
            del line[obs.to_ply :]
            confirmed = min(confirmed, obs.to_ply)
        case BoardAlert() if obs.kind == "new_game":
            line.clear()
            confirmed = 0
    return confirmed


def side_of(colour: str | None) -> Side | None:
    """A reading's ``white``/``black`` as a side (None: no side)."""
    return None if colour is None else Side(colour)


def reading_id(by: str, game_id: str, reading: ColouredReading) -> str:
    """``<by>/<game>/clock/<at_ms>/<white_ms>/<black_ms>/<running>``: the same reading
    sent again has the same id; two readings the board gave within one millisecond
    (a reconnection re-reading the clock) are two readings."""
    flag = f"/flag:{reading.flag}" if getattr(reading, "flag", None) else ""
    return (
        f"{by}/{game_id}/clock/{reading.at_ms}/{reading.white_ms}/{reading.black_ms}/"
        f"{reading.running or '-'}{flag}"
    )
