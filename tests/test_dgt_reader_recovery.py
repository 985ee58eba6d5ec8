"""A board reader keeps going through what an event day breaks (docs/operations.md):

- a board source that fails (the store out of reach longer than its retries) is
  started again from the store's record, the process's other boards untouched;
- a board that is lost after its reader was down (an ``impossible_position``:
  more plies were played than a dump reconciles) is followed from the record once
  an arbiter entered the score sheet's moves up to it: the reconstructor resumes at
  the record's last move and the board's position is asked for again.
"""

from __future__ import annotations

import asyncio

from adapters.dgt import protocol as p
from adapters.dgt.feed import StoreSink
from adapters.dgt.observations import BoardAlert
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.service import kept_running
from adapters.dgt.session import BoardSession
from adapters.store import Store
from tests.helpers import T0_MS, at, ok, paired_tournament, play


def test_a_failing_board_source_is_started_again_until_it_runs() -> None:
    starts: list[int] = []

    async def start() -> None:
        starts.append(len(starts))
        if len(starts) < 3:
            raise RuntimeError("couldn't get a connection after 30.00 sec\nmore")

    async def main() -> None:
        stop = asyncio.Event()
        await asyncio.wait_for(kept_running(start, "ttyDGT1", stop), 30)

    asyncio.run(main())
    assert starts == [0, 1, 2]


def test_a_board_source_is_not_started_again_once_stopped() -> None:
    starts: list[int] = []

    async def main() -> None:
        stop = asyncio.Event()

        async def start() -> None:
            starts.append(1)
            stop.set()
            raise RuntimeError("the store went away")

        await asyncio.wait_for(kept_running(start, "ttyDGT1", stop), 30)

    asyncio.run(main())
    assert starts == [1]


def test_a_lost_board_is_followed_from_the_moves_the_arbiter_entered(
    sqlite_store: Store,
) -> None:
    store = sqlite_store
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    play(store, "1.1", "e4 e5")
    session = BoardSession(reconstructor=MoveReconstructor(moves=("e2e4", "e7e5")))
    sink = StoreSink(store, "1.1", session, label="ttyDGT1")
    lost = {"ply": 2, "board_fen": "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R"}
    sink.deliver([BoardAlert(T0_MS + 60_000, "impossible_position", "lost", lost)])
    assert session.reconstructor.ply == 2
    # the arbiter enters the score sheet's moves up to the position the board shows
    for ply, move in enumerate(("Nf3", "Nc6", "Bc4"), start=3):
        ok(store, {"cmd": "play_move", "game": "1.1", "move": move, "ply": ply, "at": at(60)})
    session.data_to_send()
    sink.deliver([BoardAlert(T0_MS + 70_000, "impossible_position", "still lost", lost)])
    assert session.reconstructor.ply == 5
    assert session.reconstructor.uci_moves[-1] == "f1c4"
    assert bytes([p.SEND_BRD]) in session.data_to_send()
    kinds = [e.kind for e in store.cache.stream("board/ttyDGT1")]
    assert kinds[-1] == "board_follows_record"
    game = store.reads.game("1.1")
    assert game is not None and game.ply == 5  # nothing appended by the board itself
