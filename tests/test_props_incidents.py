"""The incident book as a state machine (3.9.1, 3.9.2 a, 3.9.2 c; Laws 2009 12.3 b, 12.6, 13.4).

Hypothesis drives round 1 of the 2013 field on the pure engine through random
commands: moves in 1.1, incidents of every kind with every penalty (or none),
from the Chief Arbiter, the Deputy, the Technical Advisor or a player, leave
permits and returns, resignations. Each command is decided against the folded
state; a refusal must change nothing. After every step:

- every incident in the book carries a penalty that fits its kind, from an
  arbiter allowed to give it (3.9.2 a: the Chief Arbiter);
- incidents are numbered 1, 2, 3 ... and the book's versions run 1, 2, 3 ...;
- a game ended by a penalty scores two half-points between its players (a
  win or, under 12.3 b, a draw);
- the players out of the playing area are those with a permit not yet
  followed by a return, each with a game in progress when he left;
- folding the log whole equals the state built step by step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from hypothesis import event as note
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine.arbiter import incident_book
from engine.arbiter.incident_book import IncidentBook
from engine.arbiter.incidents import CHIEF_ONLY, KINDS, PENALTIES_FITTING
from engine.arbiter.penalties import PENALTIES
from engine.clock.regulation import Clock
from engine.commands import parse_command
from engine.dispatch import decide
from engine.errors import CommandRefused
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    Event,
    IncidentRecorded,
    LeavePermitted,
    PlayerReturned,
    ResultRecorded,
)
from engine.game import state as games
from engine.game.reconciliation import ClockLog
from engine.game.state import FINISHED, IN_PROGRESS, Game, position
from engine.tournament import tournament as tournaments
from engine.tournament.tournament import Tournament
from tests.helpers import ARBITERS, PLAYERS_2013, at

ROUND_1 = {"1.1": ("aronian", "carlsen"), "1.2": ("gelfand", "grischuk")}
ARBITER_IDS = ["chief", "chief", "deputy", "deputy", "advisor", "aronian"]
PLAYERS = ["aronian", "carlsen", "gelfand", "grischuk", "kramnik"]
PENALTY_SHAPES: list[Any] = [
    None,
    "warning",
    {"kind": "time_added", "ms": 120_000},
    {"kind": "time_deducted", "ms": 300_000},
    {"kind": "time_deducted", "side": "white", "ms": 60_000},
    "game_lost",
    {"kind": "points_reduced", "points": "1/2"},
    "opponent_points_raised",
    "expelled",
    "fine",
]


def penalty_kind(shape: Any) -> str | None:
    if shape is None:
        return None
    return str(shape if isinstance(shape, str) else shape["kind"])


class World:
    """Pure stand-in for the store: every stream folded, the log kept, nothing stored."""

    EVOLVE: ClassVar[dict[str, Callable[[Any, Event], Any]]] = {
        TOURNAMENT_STREAM: tournaments.evolve,
        INCIDENTS_STREAM: incident_book.evolve,
        "game": games.evolve,
    }

    def __init__(self) -> None:
        self.states: dict[str, Any] = {}
        self.log: list[Event] = []

    def tournament(self) -> Tournament | None:
        state: Tournament | None = self.states.get(TOURNAMENT_STREAM)
        return state

    def game(self, game_id: str) -> Game | None:
        state: Game | None = self.states.get(f"game/{game_id}")
        return state

    def clock_log(self, game_id: str) -> ClockLog | None:
        return None

    def incident_book(self) -> IncidentBook | None:
        state: IncidentBook | None = self.states.get(INCIDENTS_STREAM)
        return state

    @classmethod
    def fold(cls, states: dict[str, Any], event: Event) -> None:
        stream = event.originator_id
        evolve = cls.EVOLVE[stream.partition("/")[0] if "/" in stream else stream]
        previous = states.get(stream)
        version = getattr(previous, "version", 0)
        assert event.originator_version == version + 1, (stream, event)
        states[stream] = evolve(previous, event)

    def apply(self, raw: dict[str, Any]) -> list[Event] | None:
        before = (dict(self.states), len(self.log))
        try:
            _, events = decide(parse_command(raw), self)
        except CommandRefused as refused:
            assert (self.states, len(self.log)) == before
            note(f"{raw['cmd']}: {refused.code}")
            return None
        note(f"{raw['cmd']}: " + ", ".join(type(e).__name__ for e in events))
        for event in events:
            self.fold(self.states, event)
            self.log.append(event)
        return events


class IncidentBookMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.world = World()
        self.step = 0

    def at(self) -> str:
        self.step += 1
        return at(self.step * 30)

    @initialize()
    def start(self) -> None:
        for cmd in (
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "t",
                "start_date": "2013-03-13",
                "players": PLAYERS_2013,
                "arbiters": ARBITERS,
            },
            {
                "cmd": "draw_lots",
                "tournament": "t",
                "numbers": {p["id"]: i for i, p in enumerate(PLAYERS_2013, start=1)},
            },
            {"cmd": "start_game", "game": "1.1", "at": self.at()},
            {"cmd": "start_game", "game": "1.2", "at": self.at()},
        ):
            assert self.world.apply(cmd) is not None

    @rule(data=st.data())
    def play_a_move(self, data: st.DataObject) -> None:
        game = self.world.game("1.1")
        assert game is not None
        if game.status == FINISHED:
            return
        legal = sorted(m.uci() for m in position(game).legal_moves)
        if legal:
            move = data.draw(st.sampled_from(legal))
            self.world.apply({"cmd": "play_move", "game": "1.1", "move": move, "at": self.at()})

    @rule(
        game=st.sampled_from([None, "1.1", "1.2"]),
        player=st.sampled_from([None, *PLAYERS]),
        kind=st.sampled_from([*KINDS, "theft"]),
        arbiter=st.sampled_from(ARBITER_IDS),
        penalty=st.sampled_from(PENALTY_SHAPES),
    )
    def record_incident(
        self, game: str | None, player: str | None, kind: str, arbiter: str, penalty: Any
    ) -> None:
        cmd: dict[str, Any] = {
            "cmd": "record_incident",
            "kind": kind,
            "arbiter": arbiter,
            "details": "seen by the arbiter",
            "at": self.at(),
        }
        for field, value in (("game", game), ("player", player), ("penalty", penalty)):
            if value is not None:
                cmd[field] = value
        events = self.world.apply(cmd)
        if events is None:
            return
        recorded = events[0]
        assert isinstance(recorded, IncidentRecorded)
        assert recorded.penalty == penalty_kind(penalty)

    @rule(
        player=st.sampled_from(PLAYERS),
        arbiter=st.sampled_from(ARBITER_IDS),
        escort=st.sampled_from(ARBITER_IDS),
    )
    def permit_leave(self, player: str, arbiter: str, escort: str) -> None:
        self.world.apply(
            {
                "cmd": "permit_leave",
                "player": player,
                "arbiter": arbiter,
                "accompanied_by": escort,
                "at": self.at(),
            }
        )

    @rule(player=st.sampled_from(PLAYERS))
    def come_back(self, player: str) -> None:
        self.world.apply({"cmd": "returned", "player": player, "at": self.at()})

    @rule(game=st.sampled_from(list(ROUND_1)), side=st.sampled_from(["white", "black"]))
    def resign(self, game: str, side: str) -> None:
        self.world.apply({"cmd": "resign", "game": game, "by": side, "at": self.at()})

    # --- invariants ---------------------------------------------------------------

    @property
    def book(self) -> IncidentBook:
        return self.world.incident_book() or IncidentBook()

    @invariant()
    def penalties_fit_their_kinds_and_arbiters(self) -> None:
        t = self.world.tournament()
        for incident in self.book.incidents:
            assert incident.penalty is None or incident.penalty in PENALTIES
            if incident.penalty is not None:
                assert incident.penalty in PENALTIES_FITTING[incident.kind]
            assert incident.penalty is not None or incident.kind != "device_sounded"
            role = t.arbiter(incident.arbiter).role if t and t.arbiter(incident.arbiter) else None
            allowed = ("chief",) if incident.kind in CHIEF_ONLY else ("chief", "deputy")
            assert role in allowed

    @invariant()
    def incidents_are_numbered_in_order(self) -> None:
        numbers = [int(i.incident) for i in self.book.incidents]
        assert numbers == list(range(1, len(numbers) + 1))
        book_events = [e for e in self.world.log if e.originator_id == INCIDENTS_STREAM]
        assert [e.originator_version for e in book_events] == list(range(1, len(book_events) + 1))

    @invariant()
    def a_penalty_result_shares_the_point(self) -> None:
        for event in self.world.log:
            if isinstance(event, ResultRecorded) and event.termination == "penalty":
                assert event.result in ("1-0", "0-1", "1/2-1/2")

    @invariant()
    def out_is_permits_minus_returns(self) -> None:
        out: dict[str, LeavePermitted] = {}
        for event in self.world.log:
            if isinstance(event, LeavePermitted):
                assert event.player not in out
                out[event.player] = event
            elif isinstance(event, PlayerReturned):
                assert out.pop(event.player).at_ms <= event.at_ms
        assert [leave.player for leave in self.book.out] == list(out)

    @invariant()
    def clocks_never_run_below_zero(self) -> None:
        for game_id in ROUND_1:
            game = self.world.game(game_id)
            clock: Clock | None = game.clock if game is not None else None
            if clock is not None and game is not None and game.status == IN_PROGRESS:
                for side in ("white", "black"):
                    assert clock.remaining_ms(side, game.last_at_ms) >= 0

    @invariant()
    def folding_the_whole_log_gives_the_same_state(self) -> None:
        states: dict[str, Any] = {}
        for event in self.world.log:
            World.fold(states, event)
        for stream, state in states.items():
            if stream != TOURNAMENT_STREAM:
                assert state == self.world.states[stream], stream


IncidentBookMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=25, deadline=None
)
TestIncidentBook = IncidentBookMachine.TestCase
