"""The public's delayed copy keeps what the public view is made of: of each clock's
readings only the last few, once the public channel has read past them, so a long
event's copy grows with its moves, not with the readings boards send every second."""

from __future__ import annotations

import pytest

from adapters.formats.event_export import game_pgn_text
from adapters.gateway import public
from adapters.gateway.follower import Follower
from adapters.gateway.hub import Channel
from adapters.gateway.public import KEEP_READINGS, DelayedLog, PublicView
from adapters.store import Store
from engine.events import ClockReadingRecorded
from tests.helpers import T0_MS, at, ok, paired_tournament, play

DAY_MS = 86_400_000


def read(store: Store, upto_s: int, first_s: int = 1) -> None:
    """A reading a second of game 1.1's clock, White's running down."""
    for seconds in range(first_s, upto_s + 1):
        white_ms = 7_200_000 - seconds * 1000
        reading = {"cmd": "clock_reading", "game": "1.1", "at": at(seconds + 30)}
        ok(store, {**reading, "white_ms": white_ms, "black_ms": 7_200_000, "running": "white"})


def readings_in(store: Store) -> int:
    return sum(isinstance(e, ClockReadingRecorded) for _, e in store.cache.events_since(0))


def test_the_copy_keeps_each_clocks_last_readings_and_shows_the_same_game(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(public, "PRUNE_EVERY", 20)
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    play(sqlite_store, "1.1", "e4 e5")
    read(sqlite_store, 60)
    delayed = DelayedLog(1000)
    try:
        delayed.take(sqlite_store.cache.events_since(0), None)
        assert delayed.release(T0_MS + DAY_MS) > 60
        follower = Follower(delayed.copy)
        before = follower.start().games["1.1"]
        assert readings_in(delayed.copy) == 60
        # the first reading after e5 is that move's [%clk]: kept with the last ones
        assert delayed.prune(follower.seq) == 60 - KEEP_READINGS - 1
        assert readings_in(delayed.copy) == KEEP_READINGS + 1
        assert Follower(delayed.copy).start().games["1.1"] == before
        # more readings and a move come in after the pruning: the copy takes them on
        read(sqlite_store, 70, first_s=61)
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "Nf3", "at": at(101)})
        seq = sqlite_store.last_seq()
        delayed.take(sqlite_store.cache.events_since(seq - 11), T0_MS)
        delayed.release(T0_MS + DAY_MS)
        update = follower.poll()
        assert update is not None
        game = update.games["1.1"]
        assert game["moves"] == ["e4", "e5", "Nf3"]
        assert game["clock"]["device"]["white_ms"] == 7_200_000 - 70 * 1000
        assert game == Follower(delayed.copy).start().games["1.1"]
    finally:
        delayed.close()


def test_nothing_the_public_channel_has_not_read_is_dropped(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(public, "PRUNE_EVERY", 1)
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    read(sqlite_store, 30)
    delayed = DelayedLog(1000)
    try:
        delayed.take(sqlite_store.cache.events_since(0), None)
        delayed.release(T0_MS + DAY_MS)
        assert delayed.prune(read_upto=0) == 0  # the channel has read nothing yet
        assert readings_in(delayed.copy) == 30
        assert delayed.prune(read_upto=0) == 0  # and not again before PRUNE_EVERY more
    finally:
        delayed.close()


def test_the_copy_stays_bounded_over_many_readings_on_a_log_of_its_own(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two clocks read every second for five minutes, followed poll by poll: after each
    poll the copy holds its other events and, of each clock's readings, at most the last
    ``KEEP_READINGS`` and those released since the last pruning; the library's tables
    are never touched (the copy is a log of our own), and the public still sees each
    clock's last reading."""
    monkeypatch.setattr(public, "PRUNE_EVERY", 20)
    paired_tournament(sqlite_store)
    for game in ("1.1", "1.2"):
        ok(sqlite_store, {"cmd": "start_game", "game": game, "at": at(0)})
    live = Follower(sqlite_store)
    view = PublicView(1000)
    try:
        view.start(live, live.start().seq, T0_MS + DAY_MS)
        delayed = view.delayed
        assert delayed.copy.app.recorder is delayed.log
        for seconds in range(1, 301):
            for game in ("1.1", "1.2"):
                reading = {"cmd": "clock_reading", "game": game, "at": at(seconds + 30)}
                white_ms = 7_200_000 - seconds * 1000
                clocks = {"white_ms": white_ms, "black_ms": 7_200_000, "running": "white"}
                ok(sqlite_store, {**reading, **clocks})
            if seconds % 7 == 0 or seconds == 300:
                view.poll(live.poll(), T0_MS + DAY_MS)
                assert readings_in(delayed.copy) <= 2 * KEEP_READINGS + public.PRUNE_EVERY
        assert readings_in(sqlite_store) == 600 and delayed.released == sqlite_store.cache.count()
        others = sqlite_store.cache.count() - 600
        kept = readings_in(delayed.copy)
        assert delayed.pruned == 600 - kept and kept <= 2 * KEEP_READINGS + public.PRUNE_EVERY
        assert delayed.log.held() == kept + others  # nothing but readings was let go
        assert view.follower is not None and view.follower.seq == delayed.copy.last_seq()
        shown = Follower(delayed.copy).start().games
        for game in ("1.1", "1.2"):
            assert shown[game]["clock"]["device"]["white_ms"] == 7_200_000 - 300 * 1000
    finally:
        view.close()


def test_fair_play_a_public_snapshot_is_never_dated_after_an_event_it_does_not_show(
    sqlite_store: Store,
) -> None:
    """A release that runs late (a busy machine): the public channel's ``now`` stops just
    before the first event held back, until what was due is released and folded in."""
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(10)})
    move_ms = T0_MS + 10_000
    delay_ms = 2_000
    live = Follower(sqlite_store)
    view = PublicView(delay_ms)
    channel = Channel("public", delay_ms)
    try:
        start = view.start(live, sqlite_store.last_seq(), move_ms + delay_ms - 1)
        assert start.games["1.1"]["moves"] == []  # the move is held back
        channel.held_from_ms = view.next_release_ms
        assert view.next_release_ms == move_ms + delay_ms
        # its time has come, the release has not run yet: the view is just before it
        assert channel.view_ms(move_ms + delay_ms + 5_000) == move_ms - 1
        assert channel.view_ms(move_ms + delay_ms - 500) == move_ms - 500  # earlier: now - delay
        update = view.poll(None, move_ms + delay_ms + 5_000)  # the release, late
        assert update is not None and update.games["1.1"]["moves"] == ["e4"]
        channel.held_from_ms = view.next_release_ms
        assert view.next_release_ms is None
        assert channel.view_ms(move_ms + delay_ms + 5_000) == move_ms + 5_000
    finally:
        view.close()


def test_one_clk_rule_the_public_pgn_of_a_finished_game_is_the_commentators(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DGT board reads the clock every few seconds: after the pruning the public's copy
    still holds each move's reading, so the public PGN (after the delay) writes the
    device's [%clk], the same bytes as the live PGN commentators and arbiters read,
    never the regulation clock in milliseconds."""
    monkeypatch.setattr(public, "PRUNE_EVERY", 20)
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    shown = {"white": 7_200_000, "black": 7_200_000}
    seconds = 0
    for ply, san in enumerate(["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"], start=1):
        side = "white" if ply % 2 else "black"
        for _ in range(6):  # the mover thinks; the board reads the clock every 5 s
            seconds += 5
            shown[side] -= 5_000
            reading = {"white_ms": shown["white"], "black_ms": shown["black"], "running": side}
            ok(sqlite_store, {"cmd": "clock_reading", "game": "1.1", "at": at(seconds), **reading})
        seconds += 1
        ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": san, "at": at(seconds)})
        shown[side] -= 1_000 - 7  # the device's own rounding: a few ms off the model
        stopped = {"white_ms": shown["white"], "black_ms": shown["black"]}
        ok(
            sqlite_store,
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": at(seconds),
                **stopped,
                "running": "black" if side == "white" else "white",
            },
        )
    ok(sqlite_store, {"cmd": "resign", "game": "1.1", "by": "white", "at": at(seconds + 1)})
    live_pgn = game_pgn_text(sqlite_store.reads, "1.1")
    assert "1. e4 { [%clk 1:59:29.007] }" in live_pgn  # the device, not the model (1:59:29)
    delayed = DelayedLog(1000)
    try:
        delayed.take(sqlite_store.cache.events_since(0), None)
        delayed.release(T0_MS + DAY_MS)
        follower = Follower(delayed.copy)
        follower.start()
        assert delayed.prune(follower.seq) > 0
        assert game_pgn_text(delayed.copy.reads, "1.1") == live_pgn
    finally:
        delayed.close()
