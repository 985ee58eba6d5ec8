"""The event store on every backend: append, refuse, reopen, conflict."""

from __future__ import annotations

from adapters.store import Store
from tests.helpers import at, ok, paired_tournament, play, refused


def test_events_survive_reopening_the_store(store_url: str) -> None:
    with Store(store_url) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(store, "1.1", "d4 Nf6 c4 e6")
        before = store.reads.game("1.1")
        count = store.cache.count()
    with Store(store_url) as again:
        assert again.cache.count() == count
        assert again.reads.game("1.1") == before
        assert again.reads.tournament() is not None


def test_refused_command_appends_nothing(store: Store) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    message = refused(
        store, {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(1)}, "illegal_move"
    )
    assert (
        "'e5'" in message and "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" in message
    )


def test_second_writer_on_a_stale_state_gets_a_conflict(store_url: str) -> None:
    with Store(store_url) as first, Store(store_url) as second:
        paired_tournament(first)
        ok(first, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        assert second.reads.game("1.1") is not None  # both now hold version 1
        ok(first, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(1)})
        # ``second`` decides on its cached state only if it does not catch up:
        # simulate the race by deciding from the stale state directly.
        from engine.commands import parse_command
        from engine.game.moves import play_move

        stale = second.cache._cache["game/1.1"].state
        events = play_move(
            stale, parse_command({"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(1)})
        )
        before = second.cache.count()
        try:
            second.append(events)
        except Exception as exc:
            assert type(exc).__name__ == "Conflict"
        else:
            raise AssertionError("a stale write was accepted")
        assert second.cache.count() == before


def test_another_writers_events_are_folded_into_the_cached_states(store_url: str) -> None:
    """One look at the store takes in what another writer appended: the next decision
    uses it without reading the game's stream again."""
    with Store(store_url) as writer, Store(store_url) as other:
        paired_tournament(writer)
        ok(writer, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        ok(other, {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(1)})
        play(writer, "1.1", "Nf6 c4", start_s=10)
        reads = other.cache.stream_reads
        ok(other, {"cmd": "play_move", "game": "1.1", "move": "e6", "at": at(100)})
        assert other.cache.stream_reads == reads
        assert other.reads.game("1.1") == writer.reads.game("1.1")
        with Store(store_url) as fresh:
            assert fresh.reads.game("1.1") == other.reads.game("1.1")


def test_a_followers_read_leaves_the_objects_at_its_last_event(store_url: str) -> None:
    """``take_in``: the events a follower read are folded in, so the objects it reads next
    stand at the last of them, with no query, even when writers appended meanwhile."""
    with Store(store_url) as writer, Store(store_url) as follower:
        paired_tournament(writer)
        ok(writer, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        seq = follower.last_seq()
        assert follower.reads.game("1.1") is not None
        play(writer, "1.1", "e4 e5")
        read = list(follower.cache.events_since(seq))
        at_read = writer.reads.game("1.1")
        play(writer, "1.1", "Nf3", start_s=100)  # appended after the follower's read
        follower.cache.take_in(seq, read)
        reads = follower.cache.stream_reads
        with follower.cache.session(look=False):
            assert follower.reads.game("1.1") == at_read
        assert follower.cache.stream_reads == reads
        assert follower.reads.game("1.1") == writer.reads.game(
            "1.1"
        )  # a look at the store catches up


def test_take_in_takes_nothing_across_a_gap(store_url: str) -> None:
    """Events read after a position the cached states have not reached are not folded
    in (what lies between was never read): the next look reads the stream again."""
    with Store(store_url) as writer, Store(store_url) as follower:
        paired_tournament(writer)
        ok(writer, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        assert follower.reads.game("1.1") is not None
        play(writer, "1.1", "e4")
        seq = writer.last_seq()
        play(writer, "1.1", "e5", start_s=100)
        follower.cache.take_in(seq, list(follower.cache.events_since(seq)))
        with follower.cache.session(look=False):
            assert follower.reads.game("1.1").moves == ()  # type: ignore[union-attr]
        assert follower.reads.game("1.1") == writer.reads.game("1.1")
