"""Idempotent commands: ``command_id`` on any command, ``ply`` on ``play_move``.

A client that never saw an answer (the process died between the commit and the
printed line, a connection dropped) sends the command again: with the same
``command_id`` it gets the first answer and nothing is appended; a ``play_move``
with ``ply`` is answered as a duplicate, never played as the opponent's move.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from adapters.dgt.feed import StoreSink, raw_of
from adapters.store import Store
from engine.events import CommandApplied
from tests.dgt_hands import Hands
from tests.helpers import at, ok, paired_tournament, play, refused
from tests.reliability_support import event_commands
from tests.test_dgt_feed import START


def started(store: Store) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})


def test_a_repeated_command_id_answers_the_first_answer_and_appends_nothing(
    store: Store,
) -> None:
    started(store)
    move = {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5), "command_id": "m1"}
    first = store.handle(move)
    assert first["ok"] and [e["type"] for e in first["events"]] == ["MovePlayed"]
    count = store.cache.count()
    again = store.handle(dict(reversed(list(move.items()))))  # key order does not matter
    assert again == first
    assert store.cache.count() == count
    assert store.reads.game("1.1").ply == 1  # type: ignore[union-attr]
    # the record names the id, the command and the events it appended
    records = [e for _, e in store.cache.events_since(0) if isinstance(e, CommandApplied)]
    assert [(r.command_id, r.command, r.events) for r in records] == [
        ("m1", "play_move", (("game/1.1", 2),))
    ]


def test_the_same_command_id_with_another_body_is_refused(store: Store) -> None:
    started(store)
    ok(store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5), "command_id": "x"})
    message = refused(
        store,
        {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(9), "command_id": "x"},
        "command_id_reused",
    )
    assert "'x'" in message and "play_move" in message


def test_a_refused_command_records_no_id_and_may_be_sent_again(store: Store) -> None:
    started(store)
    bad = {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5), "command_id": "r"}
    refused(store, {**bad, "move": "Ke2"}, "illegal_move")
    first = store.handle(bad)
    assert first["ok"]
    assert store.handle(bad) == first


def test_command_id_form_is_checked(store: Store) -> None:
    started(store)
    base = {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(5)}
    for bad in ("", 7, None, "x" * 201, "a\nb", "\ud800"):
        refused(store, {**base, "command_id": bad}, "malformed_command")


def test_laws_6_7_a_a_duplicated_move_with_ply_is_never_the_opponents_move(
    store: Store,
) -> None:
    """The issue's case: a repeated ``Qg6`` must not be stored as black's ``Qxg6``."""
    paired_tournament(store)
    ok(
        store,
        {
            "cmd": "start_game",
            "game": "1.1",
            "at": at(0),
            # white Qg6 is answered by black's queen taking on g6 with the same SAN target
            "fen": "6k1/5pp1/7q/8/8/8/5PPP/3Q2K1 w - - 0 1",
        },
    )
    move = {"cmd": "play_move", "game": "1.1", "move": "Qg4", "at": at(5), "ply": 1}
    assert store.handle(move)["ok"]
    count = store.cache.count()
    repeat = store.handle(move)
    assert repeat["ok"] and repeat["duplicate"] and repeat["events"] == []
    assert store.cache.count() == count
    # a different move at a recorded ply, or a ply beyond the next, is a conflict
    refused(store, {**move, "move": "Qd2"}, "conflict")
    refused(store, {**move, "move": "Qg5", "ply": 3}, "conflict")
    refused(store, {**move, "ply": 0}, "malformed_command")
    # black's answer at ply 2 goes on
    assert store.handle(
        {"cmd": "play_move", "game": "1.1", "move": "Qxh2+", "at": at(9), "ply": 2}
    )["ok"]


def test_a_repeated_mating_move_with_ply_is_a_duplicate_not_game_over(store: Store) -> None:
    started(store)
    play(store, "1.1", "f3 e5 g4")
    mate = {"cmd": "play_move", "game": "1.1", "move": "Qh4#", "at": at(100), "ply": 4}
    assert store.handle(mate)["ok"]
    assert store.handle(mate)["duplicate"]
    assert store.reads.game("1.1").result == "0-1"  # type: ignore[union-attr]


def test_laws_7_4_b_illegal_move_sent_three_times_by_two_writers_counts_once(
    store_url: str,
) -> None:
    """Laws 7.4 b: the third illegal move loses; three copies of one record must not."""
    with Store(store_url) as one, Store(store_url) as two:
        started(one)
        command = {
            "cmd": "record_illegal_move",
            "game": "1.1",
            "by": "white",
            "arbiter": "chief",
            "at": at(5),
            "command_id": "illegal-1",
        }
        answers = [one.handle(command), two.handle(command), one.handle(command)]
        assert answers[0]["ok"] and answers[1] == answers[0] == answers[2]
        game = two.reads.game("1.1")
        assert game is not None and game.status == "in_progress"
        assert game.record.illegal_moves.white == 1


def test_two_writers_racing_with_one_id_have_one_winner(store_url: str) -> None:
    """Both decide before either appends: the loser reads the winner's record."""
    with Store(store_url) as one, Store(store_url) as two:
        started(one)
        reading = {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(3),
            "white_ms": 7_199_000,
            "black_ms": 7_200_000,
            "running": "white",
            "command_id": "dgt:1/1.1/clock/3000",
        }
        two.reads.game("1.1")
        two.reads.clock_log("1.1")  # both caches are current before either appends
        first = one.handle(reading)
        second = two.handle(reading)
        assert first["ok"] and second == first
        assert len(two.reads.readings("1.1")) == 1


def test_execute_many_answers_repeats_in_the_store_and_in_the_batch(store: Store) -> None:
    started(store)
    readings: list[dict[str, Any]] = [
        {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(s),
            "white_ms": 7_200_000 - 1000 * s,
            "black_ms": 7_200_000,
            "running": "white",
            "command_id": f"r{s}",
        }
        for s in (1, 2, 3)
    ]
    first = store.execute_many(readings[:2])
    count = store.cache.count()
    answers = store.execute_many([readings[1], readings[2], readings[2]])
    assert answers[0] == first[1] and answers[1] == answers[2]
    assert store.cache.count() == count + 2  # one reading, one record
    conflict = {**readings[2], "white_ms": 1}
    assert store.execute_many([conflict])[0]["error"]["code"] == "command_id_reused"


def test_a_restarted_dgt_feed_sending_everything_again_stores_it_once(
    sqlite_store: Store,
) -> None:
    """A feed that crashed after storing, then replays its board's observations from
    the start, sends the same moves (with ``ply``) and readings (with ids) again."""
    store = sqlite_store
    ok(store, {"cmd": "start_game", "game": "1.1", "at": START, "white": "a", "black": "b"})
    hands = Hands(white_side="right")
    hands.session.serial = "31337"
    hands.move("e2", "e4").settle().clock(7_200_000, 7_195_000, "left")
    hands.move("e7", "e5").settle().clock(7_190_000, 7_195_000, "right")
    observations = list(hands.log)
    StoreSink(store, "1.1", hands.session).deliver(observations)

    def recorded() -> list[Any]:  # what the game and its clock hold (alerts apart)
        return [
            e for _, e in store.cache.events_since(0) if not e.originator_id.startswith("board/")
        ]

    before = recorded()
    game = store.reads.game("1.1")
    assert game is not None and game.moves == ("e2e4", "e7e5")
    assert len(store.reads.readings("1.1")) == 2
    again = StoreSink(store, "1.1", hands.session, keep_log=True)
    again.deliver(observations)
    for sent in again.commands_sent:
        # and sent once more by hand: still nothing appended
        assert store.handle(raw_of(sent))["ok"]
    assert recorded() == before


def test_command_id_works_for_every_command_of_the_registry(store: Store) -> None:
    """The id lives in the store, not in the commands: a command declared by another
    chapter (here the arbiter's correction of a result) is idempotent as well."""
    started(store)
    ok(store, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(5)})
    correction = {
        "cmd": "correct_result",
        "game": "1.1",
        "arbiter": "chief",
        "reason": "the score sheets show white resigned",
        "at": at(60),
        "result": "0-1",
        "command_id": "fix-1.1",
    }
    first = store.handle(correction)
    assert first["ok"], first
    count = store.cache.count()
    assert store.handle(correction) == first
    assert store.cache.count() == count
    other = {**correction, "result": "1/2-1/2"}
    assert store.handle(other)["error"]["code"] == "command_id_reused"


FOUNDING = [{**line, "command_id": f"race-{i}"} for i, line in enumerate(event_commands()[:3])]
"""create_tournament, draw_lots and start_game of game 1.1, each with a command id."""


def test_a_copy_applied_in_the_window_before_the_decision_answers_the_first_answer(
    store_url: str,
) -> None:
    """The window of a race: the command id is not yet recorded when this writer looks,
    another writer applies the same command before this one decides (which then refuses
    what the other copy did). The answer is the first one, not that refusal."""
    with Store(store_url) as one, Store(store_url) as two:
        for line in FOUNDING[:2]:
            assert one.handle(line)["ok"]
        first: list[dict[str, Any]] = []
        looked_up = two.decider.applied

        def other_writer_commits_in_the_window(command_id: str, digest: str) -> Any:
            found = looked_up(command_id, digest)
            if not first:
                first.append(one.handle(FOUNDING[2]))
            return found

        two.decider.applied = other_writer_commits_in_the_window  # type: ignore[method-assign]
        second = two.handle(FOUNDING[2])
        assert first[0]["ok"] and second == first[0]
        assert sum(isinstance(e, CommandApplied) for _, e in two.cache.events_since(0)) == 3


def test_eight_processes_applying_the_same_lines_to_a_new_store_all_get_the_first_answers(
    store_url: str, tmp_path: Path
) -> None:
    """README: a repeat answers exactly what the first time answered, also when the
    copies race (8 real ``candidates apply`` processes started together)."""
    path = tmp_path / "founding.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in FOUNDING))
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "adapters.cli",
                "--store",
                store_url,
                "apply",
                "--create",
                str(path),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outputs = [run.communicate(timeout=300) for run in runs]
    codes = [run.returncode for run in runs]
    refused = [
        f"process {n}: exit {code}; refused: "
        + "; ".join(line for line in out.splitlines() if '"ok": false' in line)
        + (f"; stderr: {err}" if err else "")
        for n, (code, (out, err)) in enumerate(zip(codes, outputs, strict=True))
        if code != 0
    ]
    assert codes == [0] * 8, "\n".join(refused)  # what was refused, whole
    answers = [[json.loads(line) for line in out.splitlines()] for out, _ in outputs]
    assert all(a == answers[0] for a in answers), answers
    with Store(store_url) as store:
        assert sum(isinstance(e, CommandApplied) for _, e in store.cache.events_since(0)) == 3
