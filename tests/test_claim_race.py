"""3.9.2 b: two arbiters ruling on the same claim at once, on every backend.

Each arbiter works through a ``Store`` of its own on the same database (two
processes in real life). Both decide on the same state (the claim pending),
then both insert: the store lets exactly one ruling land; the other's insert
finds the log moved on the game it read, appends nothing, and its command is
decided again on the new state, where the claim is ruled: refused, a ruling is
final. Events appended as they are (``Store.append``) on a taken stream
position get ``conflict``.
"""

from __future__ import annotations

import threading
from typing import Any

from adapters.store import Store
from engine.events import Event
from tests.helpers import at, ok, paired_tournament, play


class RacingStore(Store):
    """A real store whose first insert waits until every racer has decided, so the
    race is the same on every run (the decisions and inserts are the real ones)."""

    def __init__(self, url: str, barrier: threading.Barrier) -> None:
        super().__init__(url)
        insert = self.writer.log.insert
        waited: list[bool] = []

        def racing_insert(records: Any, after: Any, *positions: Any) -> Any:
            if not waited:
                waited.append(True)
                barrier.wait(timeout=30)
            return insert(records, after, *positions)

        self.writer.log.insert = racing_insert  # type: ignore[method-assign]


def _claimed(url: str) -> None:
    with Store(url) as setup:
        paired_tournament(setup)
        ok(setup, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(setup, "1.1", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8")
        ok(
            setup,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "threefold_repetition",
                "at": at(100),
            },
        )


def _ruling(arbiter: str, decision: str, reason: str = "") -> dict[str, Any]:
    cmd = {
        "cmd": "rule_claim",
        "game": "1.1",
        "claim": 1,
        "decision": decision,
        "arbiter": arbiter,
        "at": at(120),
    }
    if reason:
        cmd["reason"] = reason
    return cmd


def test_3_9_2_b_two_arbiters_ruling_at_once_exactly_one_lands(store_url: str) -> None:
    _claimed(store_url)
    barrier = threading.Barrier(2)
    answers: dict[str, dict[str, Any]] = {}
    with RacingStore(store_url, barrier) as chief, RacingStore(store_url, barrier) as deputy:
        chief.reads.game("1.1")
        deputy.reads.game("1.1")  # both hold the claim pending
        before = chief.cache.count()

        def rule(store: Store, name: str, cmd: dict[str, Any]) -> None:
            answers[name] = store.handle(cmd)

        threads = [
            threading.Thread(target=rule, args=(chief, "chief", _ruling("chief", "accepted"))),
            threading.Thread(
                target=rule,
                args=(deputy, "deputy", _ruling("deputy", "rejected", "misread the sheet")),
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        landed = [name for name, answer in answers.items() if answer["ok"]]
        lost = [name for name, answer in answers.items() if not answer["ok"]]
        assert len(landed) == 1 and len(lost) == 1, answers
        assert answers[lost[0]]["error"]["code"] == "rule_violation"
        assert "a ruling is final" in answers[lost[0]]["error"]["message"]
        winner_events = answers[landed[0]]["events"]
        assert chief.cache.count() == before + len(winner_events)

    with Store(store_url) as reader:
        game = reader.reads.game("1.1")
        assert game is not None
        rulings = [e for e in reader.cache.stream("game/1.1") if e.kind == "ClaimRuled"]
        assert len(rulings) == 1
        assert rulings[0].by == landed[0]
        claim = game.record.claim("1")
        assert claim is not None and claim.ruling is not None
        assert claim.ruling.arbiter == landed[0]


def test_3_9_2_b_loser_of_the_race_then_finds_the_claim_ruled(store_url: str) -> None:
    _claimed(store_url)
    with Store(store_url) as chief, Store(store_url) as deputy:
        # Both hold the state with the claim pending, and both decide on it.
        from engine.dispatch import decide

        _, chief_events = decide(_ruling("chief", "accepted"), chief.reads)
        _, deputy_events = decide(_ruling("deputy", "rejected", "misread the sheet"), deputy.reads)
        chief.append(chief_events)
        before = deputy.cache.count()
        try:
            deputy.append(deputy_events)
        except Exception as exc:
            assert type(exc).__name__ == "Conflict"
        else:
            raise AssertionError("a second ruling on the same claim was appended")
        assert deputy.cache.count() == before
        again = deputy.handle(_ruling("deputy", "rejected", "misread the sheet"))
        assert again.pop("seq") == deputy.last_seq()  # refused on the log as it is now
        assert again == {
            "ok": False,
            "error": {
                "code": "rule_violation",
                "message": "claim 1 (threefold_repetition by white) in game 1.1 has already "
                "been ruled accepted by chief; a ruling is final (article 3.9.2 b)",
            },
        }
        assert all(isinstance(e, Event) for e in chief_events)
