"""Several writers on one store, on every backend: each decides on its cached states,
and its insert lands only while the log is where those states stand.

A writer does not look at the store before deciding: another writer may have appended
to the game it decides on since its cache last saw the log. Its insert reads the
log's position in the same transaction and appends nothing when the log moved on a
stream the decision read or writes; the writer takes in what moved and decides again,
so the answer is the one the current state gives. The windows are forced, not timed:
a second ``Store`` appends between the first one's steps (``in_the_window``).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import pytest

from adapters.store import Store
from adapters.store import decisions as decisions_module
from engine.dispatch import decide
from engine.events import ClockReadingRecorded, CommandApplied, MovePlayed
from tests.helpers import at, ok, paired_tournament, refused

GAMES = ("1.1", "1.2", "1.3", "1.4")
LINES = {
    "1.1": ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"],
    "1.2": ["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7"],
    "1.3": ["c4", "e5", "Nc3", "Nf6", "Nf3", "Nc6", "g3", "d5"],
    "1.4": ["Nf3", "d5", "g3", "Nf6", "Bg2", "c6", "O-O", "Bg4"],
}
LOOSE = 86_400_000
"""The largest tolerance (a day): every reading agrees with the regulation clock (no
alerts on the game's stream)."""


def started(url: str) -> None:
    with Store(url) as setup:
        paired_tournament(setup)
        for game in GAMES:
            ok(setup, {"cmd": "start_game", "game": game, "at": at(0)})


def reading(game: str, seconds: float, by: str = "dgt:1", **extra: Any) -> dict[str, Any]:
    return {
        "cmd": "clock_reading",
        "game": game,
        "at": at(seconds),
        "white_ms": 7_200_000,
        "black_ms": 7_200_000,
        "running": "white",
        "by": by,
        "tolerance_ms": LOOSE,
        **extra,
    }


def move(game: str, san: str, seconds: float, **extra: Any) -> dict[str, Any]:
    return {"cmd": "play_move", "game": game, "move": san, "at": at(seconds), **extra}


def in_the_window(store: Store, other: Callable[[], object]) -> list[object]:
    """Run ``other`` once, between ``store``'s next decision and its insert."""
    insert = store.writer.log.insert
    done: list[object] = []

    def insert_after_the_other(records: Any, after: Any, *positions: Any) -> Any:
        if not done:
            done.append(other())
        return insert(records, after, *positions)

    store.writer.log.insert = insert_after_the_other  # type: ignore[method-assign]
    return done


def current(store: Store, url: str) -> None:
    """Every cached game and clock log of ``store`` equals a fresh store's."""
    with Store(url) as fresh:
        for game in GAMES:
            assert store.reads.game(game) == fresh.reads.game(game), game
            assert store.reads.clock_log(game) == fresh.reads.clock_log(game), game


def test_a_move_decided_on_a_stale_cache_is_decided_again_on_the_new_state(
    store_url: str,
) -> None:
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        assert (
            one.reads.game("1.1") is not None and two.reads.game("1.1") is not None
        )  # both at ply 0
        ok(two, move("1.1", "e4", 1))
        # ``one`` still holds ply 0, where White's d4 is legal; on the stored state it is
        # Black's turn, and a black pawn cannot reach d4: refused, nothing appended.
        message = refused(one, move("1.1", "d4", 2), "illegal_move")
        assert "d4" in message
        # Black's reply, which the stale state would refuse (a white move), is played.
        assert ok(one, move("1.1", "e5", 3))[0]["san"] == "e5"
        game = one.reads.game("1.1")
        assert game is not None and game.sans == ("e4", "e5")
        current(one, store_url)
        current(two, store_url)


def test_a_game_another_writer_started_and_played_in_is_folded_whole(store_url: str) -> None:
    """Writer ``one`` holds game 1.1; ``two`` starts 1.2 and plays in it; ``one``'s next
    command looks at the log and meets 1.2's stream for the first time in the middle of
    that read: its start and its move are folded together, so ``one`` accepts Black's
    reply in 1.2, as a fresh process does (a cache that kept only the stream's first
    event refused it as illegal at ply 1)."""
    with Store(store_url) as setup:
        paired_tournament(setup)
        ok(setup, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    with Store(store_url) as one, Store(store_url) as two:
        ok(one, move("1.1", "e4", 60))
        ok(two, {"cmd": "start_game", "game": "1.2", "at": at(0)})
        ok(two, move("1.2", "e4", 60))
        ok(one, move("1.1", "e5", 120))
        assert ok(one, move("1.2", "e5", 120))[0]["ply"] == 2
        game = one.reads.game("1.2")
        assert game is not None and game.sans == ("e4", "e5")
        current(one, store_url)


def test_a_refusal_is_answered_only_on_the_log_as_it_is(store_url: str) -> None:
    """A refusal decided on a cached state is confirmed against the log's position
    before it is answered: another writer's move lands between ``one``'s decision and
    its answer; the command, refused on the old state, is decided again and accepted."""
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        one.reads.game("1.1")  # cached at ply 0: Black's e5 is refused there (White to move)
        confirm = one.writer.confirm

        def with_the_other_first(batch: Any) -> None:
            if not done:
                done.append(ok(two, move("1.1", "e4", 1)))
            confirm(batch)

        done: list[object] = []
        one.writer.confirm = with_the_other_first  # type: ignore[method-assign]
        assert ok(one, move("1.1", "e5", 2))[0]["san"] == "e5"
        assert done  # the other's move landed in the window
        game = one.reads.game("1.1")
        assert game is not None and game.sans == ("e4", "e5")
        current(one, store_url)


def test_a_reading_overtaken_between_decision_and_insert_is_stored_after_the_other(
    store_url: str,
) -> None:
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        one.reads.clock_log("1.1")
        answers = in_the_window(one, lambda: two.handle(reading("1.1", 5, by="dgt:2")))
        events = ok(one, reading("1.1", 6))
        assert answers[0]["ok"]  # type: ignore[index]
        # decided first at version 1, refused by the log's position, decided again: 2
        assert [(e["type"], e["version"]) for e in events] == [("ClockReadingRecorded", 2)]
        stored = one.reads.readings("1.1")
        assert [r.by for r in stored] == ["dgt:2", "dgt:1"]
        current(one, store_url)


def test_a_move_with_ply_overtaken_by_the_same_move_is_a_duplicate(store_url: str) -> None:
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        one.reads.game("1.1")
        in_the_window(one, lambda: ok(two, move("1.1", "e4", 1, ply=1)))
        before = one.cache.count()
        answer = one.handle(move("1.1", "e4", 1, ply=1))
        assert answer["ok"] and answer["events"] == [] and answer["duplicate"], answer
        assert one.cache.count() == before + 1  # the other writer's move alone
        game = one.reads.game("1.1")
        assert game is not None and game.sans == ("e4",)
        current(one, store_url)


def test_a_move_with_ply_overtaken_by_another_move_is_a_conflict(store_url: str) -> None:
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        one.reads.game("1.1")
        in_the_window(one, lambda: ok(two, move("1.1", "d4", 1, ply=1)))
        answer = one.handle(move("1.1", "e4", 1, ply=1))
        assert not answer["ok"] and answer["error"]["code"] == "conflict", answer
        game = one.reads.game("1.1")
        assert game is not None and game.sans == ("d4",)
        current(one, store_url)


def test_a_command_id_applied_by_another_writer_in_the_window_answers_the_first_answer(
    store_url: str,
) -> None:
    started(store_url)
    command = reading("1.1", 7, command_id="dgt:1/1.1/7000")
    with Store(store_url) as one, Store(store_url) as two:
        one.reads.clock_log("1.1")
        first = in_the_window(one, lambda: two.handle(command))
        second = one.handle(command)
        assert first[0] == second and second["ok"]
        records = [e for _, e in one.cache.events_since(0) if isinstance(e, CommandApplied)]
        assert len(records) == 1
        assert len(one.reads.readings("1.1")) == 1


def test_a_batch_keeps_each_answer_when_the_window_moves_what_it_read(store_url: str) -> None:
    """Another writer's reading of game 1.2 lands in the window: the batch is decided
    again, its reading of 1.2 (now earlier than the stored one) refused alone."""
    started(store_url)
    with Store(store_url) as one, Store(store_url) as two:
        for game in GAMES:
            one.reads.clock_log(game)
        in_the_window(one, lambda: ok(two, reading("1.2", 20, by="dgt:2")))
        answers = one.execute_many([reading(g, 10) for g in GAMES])
        codes = [a["ok"] or a["error"]["code"] for a in answers]
        assert codes == [True, "out_of_order", True, True], answers
        assert [len(one.reads.readings(g)) for g in GAMES] == [1, 1, 1, 1]
        current(one, store_url)


def test_a_batch_is_not_decided_again_when_the_window_moves_only_other_streams(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer's move on a game the batch does not read: the batch's decisions
    stand (each command decided once), and its insert follows the other's records."""
    started(store_url)
    decisions: list[str] = []

    def counted(cmd: Any, *args: Any) -> Any:
        decisions.append(type(cmd).__name__)
        return decide(cmd, *args)

    with Store(store_url) as one, Store(store_url) as two:
        in_the_window(one, lambda: ok(two, move("1.4", "Nf3", 1)))
        monkeypatch.setattr(decisions_module, "decide", counted)
        answers = one.execute_many([reading(g, 10) for g in GAMES[:2]])
        assert all(a["ok"] for a in answers), answers
        assert decisions.count("ClockReading") == 2  # (the other's move is its PlayMove)
        game = one.reads.game("1.4")
        assert game is not None and game.sans == ("Nf3",)
        current(one, store_url)


def _writer(url: str, index: int, rounds: int, done: Any, out: Any) -> None:
    """One process: the moves of its own game, and readings of every game, in turns;
    once every writer is done, its cached states are compared with a fresh store's."""
    game = GAMES[index]
    answers: list[tuple[str, dict[str, Any]]] = []
    with Store(url) as store:
        for turn in range(rounds):
            if turn < len(LINES[game]):
                command = move(game, LINES[game][turn], 10 * (turn + 1))
                answers.append((f"move {game} {turn}", store.handle(command)))
            batch = [reading(g, 10 * (turn + 1) + 1 + index, by=f"dgt:{index}") for g in GAMES]
            for g, answer in zip(GAMES, store.execute_many(batch), strict=True):
                answers.append((f"reading {g} {turn} by {index}", answer))
        done.wait(timeout=300)  # every writer is done: nothing is appended from here on
        cached = {g: (store.reads.game(g), store.reads.clock_log(g)) for g in GAMES}
    with Store(url) as fresh:
        stale = [g for g in GAMES if cached[g] != (fresh.reads.game(g), fresh.reads.clock_log(g))]
    out.put((index, answers, stale))


def test_four_processes_interleaving_moves_and_readings_lose_and_double_nothing(
    store_url: str,
) -> None:
    """Four writer processes at once, each playing its own game's moves and sending a
    reading of every game each turn: every move is played (never refused for another
    writer's append), every reading is stored once or refused for its time alone, the
    stored readings of each game are in time order, and each writer's cached states
    end equal to the store's."""
    started(store_url)
    rounds = 10
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    done = context.Barrier(len(GAMES))
    workers = [
        context.Process(target=_writer, args=(store_url, i, rounds, done, out))
        for i in range(len(GAMES))
    ]
    for worker in workers:
        worker.start()
    results = [out.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(60)
    assert all(worker.exitcode == 0 for worker in workers)
    stored_readings = 0
    for _, answers, stale in results:
        assert stale == []
        for what, answer in answers:
            if what.startswith("move"):
                assert answer["ok"] and len(answer["events"]) == 1, (what, answer)
            elif answer["ok"]:
                stored_readings += 1
            else:
                assert answer["error"]["code"] == "out_of_order", (what, answer)
    with Store(store_url) as store:
        events = [e for _, e in store.cache.events_since(0)]
        for game in GAMES:
            game_state = store.reads.game(game)
            assert game_state is not None and list(game_state.sans) == LINES[game]
            times = [r.at_ms for r in store.reads.readings(game)]
            assert times == sorted(times) and len(set(times)) == len(times)
        assert sum(isinstance(e, ClockReadingRecorded) for e in events) == stored_readings
        assert sum(isinstance(e, MovePlayed) for e in events) == sum(map(len, LINES.values()))
        keys = [(e.originator_id, e.originator_version) for e in events]
        assert len(keys) == len(set(keys))
