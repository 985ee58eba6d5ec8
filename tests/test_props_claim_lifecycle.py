"""The claim lifecycle as a state machine (3.9.2 b, 3.7.1.b.3, Laws 7.4, 9.5).

Hypothesis drives one game through random commands (moves, claims of every
kind with or without an intended move, advice, rulings with or without a
reason, illegal moves, resignations) on the pure engine: each command is
decided against the folded state; a refusal must change nothing, an answer
is folded in. After every step the record must hold together:

- at most one claim is pending, and none once the game is over;
- each side's incorrect-claim count is the number of its rejected claims of
  the five kinds 3.9.2 b names; each side's illegal-move count is the number
  of ``IllegalMoveRecorded`` for it;
- a playoff game never sees a fourth incorrect claim (3.7.1.b.3), and the
  third ends it; the third illegal move (2009 7.4 b) ends any game;
- stream versions run 1, 2, 3 ...; folding the log whole equals the state
  built step by step.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event as note
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine.arbiter.claim_verification import CLAIM_KINDS
from engine.arbiter.draw_claims import COUNTED_KINDS
from engine.events import Event, IllegalMoveRecorded
from engine.game.state import FINISHED, Game, evolve, position
from tests.helpers import ARBITERS, PLAYERS_2013, at
from tests.world import World

PEOPLE = ["white", "black", "white", "black", "aronian", "carlsen", "both", "gelfand"]
RULERS = ["chief", "deputy", "chief", "deputy", "advisor", "carlsen"]
ADVISORS = ["advisor", "advisor", "advisor", "chief"]


class GameWorld(World):
    """The shared in-memory World (tests/world.py), watching the one game ``g``."""

    @property
    def state(self) -> Game | None:
        return self.game("g")

    @property
    def game_log(self) -> list[Event]:
        return self.stream("game/g")

    def apply(self, raw: dict[str, Any]) -> bool:
        before = (self.state, self.count())
        answer = self.handle(raw)
        if not answer["ok"]:
            assert (self.state, self.count()) == before
            note(f"{raw['cmd']}: {answer['error']['code']}")
            return False
        note(f"{raw['cmd']}: " + ", ".join(e["type"] for e in answer["events"]))
        return True


class ClaimLifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.world = GameWorld()
        self.step = 0

    def at(self) -> str:
        self.step += 1
        return at(self.step)

    @initialize(
        rules=st.sampled_from(["candidates-2012", "fide-2023"]),
        stage=st.sampled_from(["tournament", "rapid", "blitz"]),
    )
    def start(self, rules: str, stage: str) -> None:
        self.rules, self.stage = rules, stage
        assert self.world.apply(
            {
                "cmd": "create_tournament",
                "tournament": "t",
                "name": "t",
                "rules": rules,
                "start_date": "2013-03-13",
                "players": PLAYERS_2013,
                "arbiters": ARBITERS,
            }
        )
        assert self.world.apply(
            {
                "cmd": "start_game",
                "game": "g",
                "white": "aronian",
                "black": "carlsen",
                "stage": stage,
                "at": self.at(),
            }
        )

    @property
    def game(self) -> Game:
        assert self.world.state is not None
        return self.world.state

    @rule(data=st.data())
    def play_a_move(self, data: st.DataObject) -> None:
        if self.game.status == FINISHED:
            return
        legal = sorted(m.uci() for m in position(self.game).legal_moves)
        if legal:
            move = data.draw(st.sampled_from(legal))
            self.world.apply({"cmd": "play_move", "game": "g", "move": move, "at": self.at()})

    @rule(
        data=st.data(),
        by=st.sampled_from(PEOPLE),
        kind=st.sampled_from(CLAIM_KINDS),
        with_move=st.booleans(),
    )
    def claim(self, data: st.DataObject, by: str, kind: str, with_move: bool) -> None:
        cmd: dict[str, Any] = {"cmd": "claim_draw", "game": "g", "by": by, "kind": kind}
        legal = sorted(m.uci() for m in position(self.game).legal_moves)
        if with_move and legal:
            cmd["intended_move"] = data.draw(st.sampled_from([*legal, "e2e5"]))
        self.world.apply({**cmd, "at": self.at()})

    def some_claim(self, data: st.DataObject) -> int:
        """Mostly a claim that exists (the last one), sometimes one that does not."""
        known = len(self.game.record.claims)
        return data.draw(st.sampled_from([known, known, known + 1, 1]))

    @rule(
        data=st.data(),
        opinion=st.sampled_from(["draw", "not_draw"]),
        advisor=st.sampled_from(ADVISORS),
    )
    def advise(self, data: st.DataObject, opinion: str, advisor: str) -> None:
        claim_id = self.some_claim(data)
        self.world.apply(
            {
                "cmd": "advise_claim",
                "game": "g",
                "claim": claim_id,
                "opinion": opinion,
                "advisor": advisor,
                "at": self.at(),
            }
        )

    @rule(
        data=st.data(),
        decision=st.sampled_from(["accepted", "rejected", "rejected"]),
        arbiter=st.sampled_from(RULERS),
        reason=st.sampled_from(["", "seen on the arbiter's sheet"]),
    )
    def rule_on_a_claim(
        self, data: st.DataObject, decision: str, arbiter: str, reason: str
    ) -> None:
        claim_id = self.some_claim(data)
        cmd = {
            "cmd": "rule_claim",
            "game": "g",
            "claim": claim_id,
            "decision": decision,
            "arbiter": arbiter,
            "at": self.at(),
        }
        if reason:
            cmd["reason"] = reason
        self.world.apply(cmd)

    @rule(
        by=st.sampled_from(PEOPLE),
        arbiter=st.sampled_from(RULERS),
        now=st.integers(min_value=0, max_value=3),
    )
    def illegal_move(self, by: str, arbiter: str, now: int) -> None:
        if now:  # a rare event
            return
        self.world.apply(
            {
                "cmd": "record_illegal_move",
                "game": "g",
                "by": by,
                "arbiter": arbiter,
                "at": self.at(),
            }
        )

    @rule(side=st.sampled_from(["white", "black"]))
    def resign(self, side: str) -> None:
        if self.step % 17 == 0:  # now and then, so most games run long
            self.world.apply({"cmd": "resign", "game": "g", "by": side, "at": self.at()})

    @invariant()
    def at_most_one_pending_claim(self) -> None:
        if self.world.state is None:
            return
        pending = [c for c in self.game.record.claims if c.is_pending]
        assert len(pending) <= 1
        if self.game.status == FINISHED:
            assert not pending

    @invariant()
    def counters_match_the_log(self) -> None:
        if self.world.state is None:
            return
        record = self.game.record
        for side in ("white", "black"):
            rejected = [
                c
                for c in record.claims
                if c.side == side and c.status == "rejected" and c.kind in COUNTED_KINDS
            ]
            assert record.incorrect_claims.of(side) == len(rejected)
            illegal = [
                e
                for e in self.world.game_log
                if isinstance(e, IllegalMoveRecorded) and e.side == side
            ]
            assert record.illegal_moves.of(side) == len(illegal)
            assert record.illegal_moves.of(side) <= 3
            if self.stage != "tournament":
                assert record.incorrect_claims.of(side) <= 3
                if record.incorrect_claims.of(side) == 3:
                    assert self.game.status == FINISHED

    @invariant()
    def the_log_folds_to_the_state(self) -> None:
        if self.world.state is None:
            return
        versions = [e.originator_version for e in self.world.game_log]
        assert versions == list(range(1, len(versions) + 1))
        whole: Game | None = None
        for event in self.world.game_log:
            whole = evolve(whole, event)
        assert whole == self.world.state


ClaimLifecycle.TestCase.settings = settings(max_examples=60, stateful_step_count=50, deadline=None)
test_claim_lifecycle = ClaimLifecycle.TestCase
