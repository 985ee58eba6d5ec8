"""Board input never crashes the adapter and never yields an illegal move.

Random byte streams, and the byte stream of a real game with random damage
(bytes flipped, dropped, inserted, chunks repeated), go through the parser
and the whole session; any split of a stream into reads decodes the same.
"""

from __future__ import annotations

from functools import cache

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.dgt import protocol as p
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.session import BoardSession
from adapters.dgt.simulator import BoardSimulator, Noise, load_game
from tests.test_dgt_serial import PGN


@cache
def game_stream() -> tuple[tuple[int, bytes], ...]:
    game = load_game(PGN, round_="6.3")
    sim = BoardSimulator.from_pgn(game, noise=Noise(knocks=0.2))
    sim.moves = sim.moves[:24]
    return tuple(sim.raw_stream())


def assert_legal_from_start(session: BoardSession) -> None:
    rec = session.reconstructor
    board = chess.Board(rec.start_fen) if rec.start_fen else chess.Board()
    if rec.board.move_stack and rec.board.root().board_fen() != board.board_fen():
        board = rec.board.root()  # a new game was set up on the board
    for move in rec.board.move_stack:
        assert move in board.legal_moves, (move, board.fen())
        board.push(move)


@given(st.binary(max_size=2000))
@settings(max_examples=300, deadline=None)
def test_random_bytes_never_raise(data: bytes) -> None:
    parser = p.DgtParser()
    messages = parser.feed(data) + parser.flush()
    assert parser.pending() == 0
    assert parser.errors == sum(isinstance(m, p.ProtocolError) for m in messages)


@given(st.binary(max_size=600), st.lists(st.integers(1, 40), max_size=30))
@settings(max_examples=200, deadline=None)
def test_any_split_into_reads_decodes_the_same(data: bytes, cuts: list[int]) -> None:
    whole = p.DgtParser()
    expected = whole.feed(data) + whole.flush()
    parser = p.DgtParser()
    out: list[p.Message] = []
    pos = 0
    for cut in cuts:
        out += parser.feed(data[pos : pos + cut])
        pos += cut
    out += parser.feed(data[pos:]) + parser.flush()
    assert out == expected


@given(st.binary(max_size=3000), st.booleans())
@settings(max_examples=150, deadline=None)
def test_random_bytes_through_a_session_never_raise_nor_move_illegally(
    data: bytes, timed: bool
) -> None:
    session = BoardSession(reconstructor=MoveReconstructor(alert_after_ms=0), timed=timed)
    session.connected(0)
    for i in range(0, len(data), 50):
        session.receive_data(data[i : i + 50], i * 10)
        session.poll(i * 10)
    session.finish(len(data) * 10 + 1000)
    session.observations()
    assert_legal_from_start(session)


mutation = st.tuples(
    st.sampled_from(("flip", "drop", "insert", "repeat")),
    st.integers(0, 10_000),
    st.integers(0, 255),
)


@given(st.lists(mutation, min_size=1, max_size=12), st.booleans())
@settings(max_examples=60, deadline=None)
def test_a_damaged_real_game_never_raises_nor_moves_illegally(
    mutations: list[tuple[str, int, int]], timed: bool
) -> None:
    chunks = [bytearray(data) for _, data in game_stream()]
    times = [at for at, _ in game_stream()]
    for kind, where, value in mutations:
        i = where % len(chunks)
        chunk = chunks[i]
        j = where % max(len(chunk), 1)
        if kind == "flip" and chunk:
            chunk[j] ^= value or 1
        elif kind == "drop" and chunk:
            del chunk[j]
        elif kind == "insert":
            chunk.insert(j, value)
        elif kind == "repeat":
            chunks.insert(i, bytearray(chunk))
            times.insert(i, times[i])
    session = BoardSession(reconstructor=MoveReconstructor(alert_after_ms=500), timed=timed)
    for at, chunk in zip(times, chunks, strict=True):
        while (deadline := session.next_deadline_ms()) is not None and deadline <= at:
            session.poll(deadline)
        session.receive_data(bytes(chunk), at)
        session.poll(at)
    session.finish(times[-1] + 5000)
    session.observations()
    assert_legal_from_start(session)
