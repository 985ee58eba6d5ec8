"""What a board's observations become in the event store.

The board proposes; the store is the record. A confirmed move becomes ``play_move``
(moves the store lacks are played in order; a board behind the record or on another
line raises an alert), a clock reading ``clock_reading``, a recovered misread a
``correction_proposed`` alert (or, under the automatic policy, a correction applied
before the public saw the plies), and everything the arbiters must see
``raise_alert`` on ``board/<serial>``. Refusals never stop the feed; the sink runs in
the store's thread (``adapters.dgt.writer``). The mapping is in docs/dgt.md,
section 6."""

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
from engine.game.state import FINISHED
from engine.timefmt import format_instant

log = logging.getLogger(__name__)

REFUSALS_KEPT = 1000
"""The refusals a sink keeps for its caller (the last ones; each is also logged)."""

SessionCall = Callable[[Callable[[], None]], None]


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
    commands_sent: list[dict[str, Any]] = field(default_factory=list)
    """With ``keep_log``: every command sent to the store."""
    refusals: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=REFUSALS_KEPT))
    """The last ``REFUSALS_KEPT`` refusals (command and error)."""
    readings: list[dict[str, Any]] = field(default_factory=list)
    """With ``keep_log``: every clock reading mapped to colours, as ``clock_reading``."""
    alerts: list[dict[str, Any]] = field(default_factory=list)
    """With ``keep_log``: every alert stored, as the ``AlertRaised`` events' wire form."""
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
    proposals: list[dict[str, Any]] = field(default_factory=list)
    """Every ``correct_moves`` body proposed to the arbiters (without ``arbiter``)."""
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
    """The game is over in the store (the board's later moves are not sent)."""

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
        game = self.store.game(self.game_id)
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
        if game.status == FINISHED:
            self._finished = True
            return
        self._finished = False
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
        body: dict[str, Any] = {
            "cmd": "correct_moves",
            "game": self.game_id,
            "reason": f"board {self.serial}: {recovery.message}",
            "at": format_instant(at_ms),
            "from_ply": from_ply - 1,
            "moves": moves,
        }
        what = f"{recovery.message}; the record has {' '.join(replaced)} from ply {from_ply}"
        if self.auto_correct_arbiter is not None and self._unpublished(
            from_ply, len(stored), at_ms
        ):
            command = {**body, "arbiter": self.auto_correct_arbiter}
            answer = self._send(command)
            if answer["ok"]:
                self.alert(
                    "correction_applied",
                    f"{what}: corrected automatically ({' '.join(moves)}), not yet shown to "
                    f"the public, under the policy of {self.auto_correct_arbiter}",
                    {
                        "from_ply": from_ply,
                        "record_moves": replaced,
                        "board_moves": moves,
                        "command": command,
                    },
                    at_ms,
                    once=key,
                )
                self.sync(at_ms)
                return
            what += f" (automatic correction refused: {answer['error']['message']})"
        self.proposals.append(body)
        self.alert(
            "correction_proposed",
            f"{what}: correct_moves proposed to the arbiter ({' '.join(moves)})",
            {
                "from_ply": from_ply,
                "record_moves": replaced,
                "board_moves": moves,
                "proposal": body,
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
        command = {
            "cmd": "play_move",
            "game": self.game_id,
            "move": uci,
            "at": format_instant(at_ms),
            "by": self.by,
            "ply": ply,  # a move sent again is answered as a duplicate, never played twice
        }
        answer = self._send(command)
        if answer["ok"]:
            self._appended_at[ply] = at_ms
        else:
            if answer["error"]["code"] == "conflict":
                # the record went on meanwhile (another writer, an arbiter's entry): the
                # next sync compares the board with it again and says what differs
                return False
            self.alert(
                "move_refused",
                f"the board's move {uci} at ply {ply} of game {self.game_id} was refused: "
                f"{answer['error']['message']}",
                {"ply": ply, "uci": uci, "error": answer["error"]},
                at_ms,
                once=("move_refused", ply, uci),
            )
        return bool(answer["ok"])

    def clock(self, obs: ClockMapped) -> None:
        reading = obs.reading
        command = {
            "cmd": "clock_reading",
            "game": self.game_id,
            "at": format_instant(reading.at_ms),
            "white_ms": reading.white_ms,
            "black_ms": reading.black_ms,
            "running": reading.running,
            "by": self.by,
        }
        if reading.flag is not None:
            command["flag"] = reading.flag  # evidence for the arbiter (Laws 6.10 a)
        if self.command_ids:
            command["command_id"] = reading_id(self.by, self.game_id, reading)
        if self.keep_log:
            self.readings.append(command)
        game = self.store.game(self.game_id)
        if game is None or game.status == FINISHED:
            return
        self._send(command)

    # --- writing --------------------------------------------------------------

    def _send(self, command: dict[str, Any]) -> dict[str, Any]:
        answer = self.store.handle(command)
        if self.keep_log:
            self.commands_sent.append(command)
        if not answer["ok"]:
            self.refusals.append({"command": command, "error": answer["error"]})
            log.info("refused %s: %s", command["cmd"], answer["error"]["message"])
        return answer

    def alert(
        self,
        kind: str,
        message: str,
        details: dict[str, Any],
        at_ms: int,
        *,
        once: tuple[Any, ...] | None,
    ) -> dict[str, Any] | None:
        """Raise an alert on ``board/<serial>`` (``raise_alert``; ``once``: skip a repeat)."""
        if once is not None and once in self._alerted:
            return None
        command: dict[str, Any] = {
            "cmd": "raise_alert",
            "board": self.serial,
            "game": self.game_id,
            "kind": kind,
            "message": message,
            "details": details,
            "at": format_instant(at_ms),
            "by": self.by,
        }
        answer = self.store.handle(command)  # a store out of reach: raised, sent again
        if once is not None:
            self._alerted.add(once)
        if not answer["ok"]:
            log.error("alert %s not stored: %s", kind, answer["error"]["message"])
            return None
        events: list[dict[str, Any]] = answer["events"]
        [event] = events
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


def reading_id(by: str, game_id: str, reading: ColouredReading) -> str:
    """``<by>/<game>/clock/<at_ms>/<white_ms>/<black_ms>/<running>``: the same reading
    sent again has the same id; two readings the board gave within one millisecond
    (a reconnection re-reading the clock) are two readings."""
    flag = f"/flag:{reading.flag}" if getattr(reading, "flag", None) else ""
    return (
        f"{by}/{game_id}/clock/{reading.at_ms}/{reading.white_ms}/{reading.black_ms}/"
        f"{reading.running or '-'}{flag}"
    )
