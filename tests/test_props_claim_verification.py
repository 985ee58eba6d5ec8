"""Properties of the claim verification (Laws 9.2, 9.3) over random games.

Games are random legal move sequences biased to knight and king moves, so
positions repeat often. The verification must agree with python-chess's own
reading of the same rules (``is_repetition(3)``, ``halfmove_clock``), now and
after any intended move, and the plies it lists must be exactly those where
the position stood.
"""

from __future__ import annotations

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.arbiter.claim_verification import verify
from engine.game.state import Game
from engine.position_keys import position_key


def game_of(moves: list[str], fen: str | None = None) -> Game:
    return Game(
        version=1 + len(moves),
        game_id="p.1",
        round=0,
        board=0,
        white="w",
        black="b",
        time_control="-",
        rules="candidates-2012",
        initial_fen=fen,
        started_at_ms=0,
        moves=tuple(moves),
    )


@st.composite
def shuffling_games(draw: st.DrawFn) -> tuple[list[str], chess.Move]:
    """A random legal game and a legal next move, mostly knights and kings shuffling."""
    board = chess.Board()
    moves: list[str] = []
    for _ in range(draw(st.integers(min_value=0, max_value=40))):
        legal = list(board.legal_moves)
        if not legal or board.is_game_over():
            break
        quiet = [
            m
            for m in legal
            if board.piece_type_at(m.from_square) in (chess.KNIGHT, chess.KING)
            and not board.is_capture(m)
        ]
        pool = quiet if quiet and draw(st.integers(0, 9)) else legal
        move = pool[draw(st.integers(min_value=0, max_value=len(pool) - 1))]
        board.push(move)
        moves.append(move.uci())
    # Then shuffle a piece out and back for both sides a few times, so
    # positions recur (a third time, or a third time after the next move).
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        outs: list[chess.Move] = []
        for _side in range(2):
            quiet = _quiet(board)
            if not quiet:
                break
            out = quiet[draw(st.integers(min_value=0, max_value=len(quiet) - 1))]
            board.push(out)
            moves.append(out.uci())
            outs.append(out)
        for out in outs:
            back = chess.Move(out.to_square, out.from_square)
            if back not in board.legal_moves:
                break
            board.push(back)
            moves.append(back.uci())
    if moves and draw(st.booleans()):
        board.pop()  # stop one move short: the intended move may complete it
        moves.pop()
    legal = list(board.legal_moves)
    if not legal:
        board.pop()
        moves.pop()
        legal = list(board.legal_moves)
    # The intended move: often one that would bring back a position seen twice.
    seen = chess.Board()
    counts = {position_key(seen): 1}
    for uci in moves:
        seen.push_uci(uci)
        counts[position_key(seen)] = counts.get(position_key(seen), 0) + 1
    repeating = []
    for move in legal:
        board.push(move)
        if counts.get(position_key(board), 0) >= 2:
            repeating.append(move)
        board.pop()
    pool = repeating if repeating and draw(st.booleans()) else legal
    return moves, pool[draw(st.integers(min_value=0, max_value=len(pool) - 1))]


def _quiet(board: chess.Board) -> list[chess.Move]:
    return [
        m
        for m in board.legal_moves
        if board.piece_type_at(m.from_square) in (chess.KNIGHT, chess.KING)
        and not board.is_capture(m)
        and not board.gives_check(m)
    ]


@settings(max_examples=150, deadline=None)
@given(shuffling_games())
def test_9_2_verification_agrees_with_the_position_history(
    case: tuple[list[str], chess.Move],
) -> None:
    moves, intended = case
    game = game_of(moves)
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    now = verify(game, "threefold_repetition")
    assert now.verified == board.is_repetition(3)
    # Every listed ply is one where the same position stood, and no other.
    replay = chess.Board()
    stood = [0] if position_key(replay) == position_key(board) else []
    for number, uci in enumerate(moves, start=1):
        replay.push_uci(uci)
        if position_key(replay) == position_key(board):
            stood.append(number)
    assert list(now.evidence["now"]["plies"]) == stood

    written = verify(game, "threefold_repetition", intended)
    board.push(intended)
    assert written.verified == (now.verified or board.is_repetition(3))


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=0, max_value=120),
    st.sampled_from(["Rd1", "Rd8", "Kf2", "Ke2"]),
)
def test_9_3_verification_counts_plies_without_pawn_move_or_capture(
    clock: int, intended_san: str
) -> None:
    fen = f"8/8/4k3/8/8/3RK3/8/8 w - - {clock} 80"
    game = game_of([], fen)
    board = chess.Board(fen)
    intended = board.parse_san(intended_san)
    result = verify(game, "fifty_moves", intended)
    assert result.verified == (clock + 1 >= 100)
    assert result.evidence["now"]["plies_without_pawn_move_or_capture"] == clock
    assert verify(game, "fifty_moves").verified == (clock >= 100)
