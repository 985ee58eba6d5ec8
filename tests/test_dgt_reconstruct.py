"""Move reconstruction from board placements (docs/dgt.md, "Reconstruction rules").

Hands move pieces one field update at a time, about one scan apart, as a real
board reports them; the session settles after its debounce.
"""

from __future__ import annotations

import chess

from adapters.dgt import protocol as p
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.result_signals import result_signal
from tests.dgt_hands import Hands


class TestDebounce:
    def test_a_piece_in_the_air_is_not_a_move_until_the_board_settles(self) -> None:
        hands = Hands().lift("g1")
        assert hands.moves == []
        hands.put("f3", "N")
        assert hands.moves == []  # still inside the debounce
        hands.settle()
        assert hands.moves == ["g1f3"]
        assert hands.seen("move") == [{"type": "move", "ply": 1, "uci": "g1f3", "san": "Nf3"}]

    def test_a_transient_shorter_than_the_debounce_is_never_seen(self) -> None:
        # The pawn crosses e3 on its way to e4 within one scan or two.
        hands = Hands().lift("e2").put("e3", "P").lift("e3").put("e4", "P").settle()
        assert hands.moves == ["e2e4"]
        assert hands.seen("correction") == []

    def test_a_slide_through_legal_squares_held_too_long_is_corrected(self) -> None:
        # A pawn paused on e3 longer than the debounce: e3 first, then corrected.
        hands = Hands().lift("e2").put("e3", "P").settle()
        assert hands.moves == ["e2e3"]
        hands.lift("e3").put("e4", "P").settle()
        assert hands.moves == ["e2e4"]
        assert hands.seen("correction") == [
            {"type": "correction", "ply": 1, "replaced": "e2e3", "uci": "e2e4", "san": "e4"}
        ]

    def test_the_header_scan_example_queen_slides_and_captures(self) -> None:
        # Qc1xc4 as the protocol header describes the scan: c4 empty, Q c2, Q c3,
        # c1 empty, c2 empty, Q c4, c3 empty.
        fen = "4k3/8/8/8/2p5/8/8/2Q1K3 w - - 0 1"
        hands = Hands(fen)
        hands.lift("c4").put("c2", "Q").put("c3", "Q").lift("c1").lift("c2").put("c4", "Q")
        hands.lift("c3").settle()
        assert hands.moves == ["c1c4"]


class TestCastling:
    def test_kingside_rook_first_passes_through_the_legal_rook_move(self) -> None:
        fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
        hands = Hands(fen).lift("h1").put("f1", "R").settle()
        assert hands.moves == ["h1f1"]  # a legal move, provisional
        hands.lift("e1").put("g1", "K").settle()
        assert hands.moves == ["e1g1"]
        assert hands.seen("correction")[0]["uci"] == "e1g1"

    def test_kingside_king_first(self) -> None:
        fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
        hands = Hands(fen).lift("e1").put("g1", "K").lift("h1").put("f1", "R").settle()
        assert hands.moves == ["e1g1"]

    def test_black_castles_long_king_first_and_rook_first(self) -> None:
        fen = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"
        king_first = Hands(fen).lift("e8").put("c8", "k").lift("a8").put("d8", "r").settle()
        rook_first = Hands(fen).lift("a8").put("d8", "r").settle()
        rook_first.lift("e8").put("c8", "k").settle()
        assert king_first.moves == rook_first.moves == ["e8c8"]


class TestEnPassant:
    FEN = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"

    def test_captured_pawn_lifted_last(self) -> None:
        hands = Hands(self.FEN).lift("e5").put("d6", "P").settle()
        assert hands.moves == []  # no legal move leaves the d5 pawn standing
        hands.lift("d5").settle()
        assert hands.moves == ["e5d6"]

    def test_captured_pawn_lifted_first(self) -> None:
        hands = Hands(self.FEN).lift("d5").lift("e5").put("d6", "P").settle()
        assert hands.moves == ["e5d6"]


class TestCapturesAndPromotion:
    def test_capture_either_order(self) -> None:
        start = ("e2e4", "d7d5")
        taken_first = Hands(moves=start).lift("d5").lift("e4").put("d5", "P").settle()
        mover_first = Hands(moves=start).lift("e4").lift("d5").put("d5", "P").settle()
        assert taken_first.moves[-1] == mover_first.moves[-1] == "e4d5"

    def test_promotion_the_pawn_replaced_by_the_piece_put_down(self) -> None:
        fen = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1"
        for symbol, uci in (("Q", "a7b8q"), ("N", "a7b8n"), ("R", "a7b8r"), ("B", "a7b8b")):
            hands = Hands(fen).lift("b8").lift("a7").put("b8", symbol).settle()
            assert hands.moves == [uci]

    def test_a_pawn_put_on_the_last_rank_is_not_a_move(self) -> None:
        hands = Hands("4k3/P7/8/8/8/8/8/4K3 w - - 0 1").lift("a7").put("a8", "P").settle()
        assert hands.moves == []
        hands.lift("a8").put("a8", "Q").settle()
        assert hands.moves == ["a7a8q"]


class TestKnocksTakebacksImpossiblePositions:
    def test_knocked_piece_put_back_is_no_move(self) -> None:
        hands = Hands(moves=("e2e4",)).lift("b8").put("c6", "n", gap_ms=40)
        # A black knight falling on c6 with Black to move IS a legal move: the
        # danger case. Put back quickly, within the debounce, it is nothing.
        hands.lift("c6", gap_ms=60).put("b8", "n", gap_ms=60).settle()
        assert hands.moves == ["e2e4"]

    def test_knocked_piece_of_the_player_not_on_move_standing_long_raises_an_alert(self) -> None:
        hands = Hands(moves=("e2e4",), alert_after_ms=2000)
        hands.lift("f2").put("g3", "P", gap_ms=30).wait(2500)
        [alert] = hands.alerts("impossible_position")
        assert alert["diff"] == [
            {"square": "f2", "expected": "P", "found": None},
            {"square": "g3", "expected": None, "found": "P"},
        ]
        assert alert["message"] == (
            "the board follows from no legal move at ply 1: f2 P->-, g3 -->P"
        )
        hands.lift("g3").put("f2", "P").settle()
        assert hands.alerts("position_restored")
        hands.move("e7", "e5").settle()
        assert hands.moves == ["e2e4", "e7e5"]

    def test_impossible_position_appends_nothing(self) -> None:
        hands = Hands().lift("e2").lift("d2").put("e4", "P").put("d4", "P").wait(2500)
        assert hands.moves == []
        assert hands.alerts("impossible_position")[0]["ply"] == 0

    def test_takeback_to_an_earlier_position_is_reported_not_rewritten_silently(self) -> None:
        hands = Hands().move("e2", "e4").settle().move("e7", "e5").settle()
        hands.move("g1", "f3").settle().wait(1500)  # Nf3 stood: complete (quiet)
        hands.move("f3", "g1").settle()
        assert hands.seen("takeback") == [
            {"type": "takeback", "from_ply": 3, "to_ply": 2, "undone": ["g1f3"]}
        ]
        hands.move("b1", "c3").settle()
        assert hands.moves == ["e2e4", "e7e5", "b1c3"]

    def test_a_move_taken_back_and_played_again_is_redone(self) -> None:
        hands = Hands().move("g1", "f3").settle().move("g8", "f6").settle()
        hands.move("f6", "g8").settle().move("f3", "g1").settle()
        assert hands.moves == []
        hands.move("g1", "f3").settle().move("g8", "f6").settle()
        assert hands.moves == ["g1f3", "g8f6"]


class TestRotatedBoard:
    def test_a_board_turned_180_degrees_is_detected_and_read_turned(self) -> None:
        hands = Hands(rotated=True).move("e2", "e4").settle().move("c7", "c5").settle()
        assert hands.moves == ["e2e4", "c7c5"]
        assert hands.session.reconstructor.rotated is True

    def test_configured_orientation_is_kept(self) -> None:
        hands = Hands(rotated=True, orientation="rotated").move("d2", "d4").settle()
        assert hands.moves == ["d2d4"]


class TestSkippedPosition:
    def test_two_plies_at_once_are_found_by_a_two_ply_search(self) -> None:
        hands = Hands()
        # Both moves made while nothing was read (a link down, a very fast reply).
        hands.physical.remove_piece_at(chess.E2)
        hands.physical.set_piece_at(chess.E4, chess.Piece.from_symbol("P"))
        hands.physical.remove_piece_at(chess.C7)
        hands.physical.set_piece_at(chess.C5, chess.Piece.from_symbol("p"))
        hands.dump()
        assert hands.moves == ["e2e4", "c7c5"]

    def test_three_plies_are_not_guessed(self) -> None:
        rec = MoveReconstructor(alert_after_ms=0)
        board = chess.Board()
        for uci in ("e2e4", "c7c5", "g1f3"):
            board.push_uci(uci)
        out = rec.settle(board.board_fen(), 0)
        assert rec.uci_moves == []
        assert [o.to_json()["kind"] for o in out] == ["impossible_position"]


class TestResultSignal:
    """Kings on the centre squares: a broadcast convention, never a move."""

    def test_kings_on_the_light_centre_squares_signal_white_won(self) -> None:
        hands = Hands("8/8/4k3/8/8/3K4/8/8 w - - 0 60")
        hands.lift("d3").put("e4", "K").lift("e6").put("d5", "k").settle()
        [alert] = hands.alerts("result_signalled")
        assert alert["result"] == "1-0"
        assert "awaiting the arbiter's confirmation" in alert["message"]
        assert hands.moves == []

    def test_dark_squares_black_won_side_by_side_a_draw(self) -> None:
        assert result_signal("8/8/8/4k3/3K4/8/8/8") == "0-1"
        assert result_signal("8/8/8/8/3Kk3/8/8/8") == "1/2-1/2"
        assert result_signal("8/8/8/3kK3/8/8/8/8") == "1/2-1/2"
        assert result_signal("8/8/8/8/4K3/8/8/3k4") is None  # one king only in the centre

    def test_a_king_next_to_the_centre_by_a_legal_move_is_a_move(self) -> None:
        hands = Hands("8/8/8/8/8/3K4/8/4k3 w - - 0 60").move("d3", "e4").settle()
        assert hands.moves == ["d3e4"]
        assert hands.alerts("result_signalled") == []

    def test_a_result_piece_is_a_signal_too(self) -> None:
        hands = Hands(moves=("e2e4",))
        # The "magic" draw piece (code 0x0d) put on d5 (field 27).
        hands.session.receive_data(p.encode_field_update(27, 0x0D), hands.t)
        hands.settle()
        assert hands.alerts("result_signalled")[0]["result"] == "1/2-1/2"


class TestNewGame:
    def test_the_start_position_is_a_new_game_not_a_takeback(self) -> None:
        hands = Hands().move("e2", "e4").settle().move("e7", "e5").settle()
        for frm, to in (("e4", "e2"), ("e5", "e7")):
            hands.move(frm, to)
        hands.settle()
        assert hands.seen("takeback") == []
        assert hands.alerts("new_game")
        assert hands.moves == []
        hands.move("d2", "d4").settle()
        assert hands.moves == ["d2d4"]

    def test_a_knight_returning_home_by_a_legal_move_is_a_move(self) -> None:
        hands = Hands(moves=("g1f3", "g8f6", "f3g1")).move("f6", "g8").settle()
        assert hands.moves == ["g1f3", "g8f6", "f3g1", "f6g8"]
        assert hands.alerts("new_game") == []


class TestProvisionalMoves:
    def test_no_move_is_confirmed_by_its_kind_the_next_move_confirms_it(self) -> None:
        # A knight move, a capture, a double push: each could still be a hand's
        # moment (a piece put down a square off); only evidence completes it.
        hands = Hands(confirm_ms=10_000).move("g1", "f3").settle()
        assert hands.seen("confirmed") == []
        hands.move("d7", "d5").settle()
        assert hands.seen("confirmed") == [
            {"type": "confirmed", "ply": 1, "uci": "g1f3", "reason": "next_move"}
        ]

    def test_the_lever_press_confirms_the_movers_move(self) -> None:
        hands = Hands(white_side="left", confirm_ms=10_000)
        hands.clock(7_200_000, 7_200_000, "left")
        hands.move("e2", "e3").settle()
        assert hands.seen("confirmed") == []
        hands.clock(7_190_000, 7_200_000, "right")
        assert hands.seen("confirmed") == [
            {"type": "confirmed", "ply": 1, "uci": "e2e3", "reason": "clock"}
        ]

    def test_quiet_time_confirms(self) -> None:
        hands = Hands(confirm_ms=1500).move("e2", "e3").settle().wait(1500)
        assert hands.seen("confirmed")[0]["reason"] == "quiet"


class TestReconciliationAfterAReconnection:
    """Rule 5b: after a link was down, a placement several plies ahead is followed
    when exactly one line of moves leads there; otherwise the arbiter decides."""

    @staticmethod
    def after(*moves: str) -> str:
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        return board.board_fen()

    def test_three_plies_missed_with_one_possible_order_are_recovered(self) -> None:
        # Qxd5 needs exd5 first, and Nc3 cannot come before both: one order only.
        rec = MoveReconstructor(moves=("e2e4", "d7d5"), alert_after_ms=0)
        rec.link_restored()
        rec.settle(self.after("e2e4", "d7d5", "e4d5", "d8d5", "b1c3"), 0)
        assert rec.uci_moves == ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3"]

    def test_two_possible_orders_are_not_guessed(self) -> None:
        rec = MoveReconstructor(moves=("e2e4", "d7d5"), alert_after_ms=0)
        rec.link_restored()
        out = rec.settle(self.after("e2e4", "d7d5", "g1f3", "b8c6", "b1c3"), 0)
        assert rec.uci_moves == ["e2e4", "d7d5"]
        [alert] = [o.to_json() for o in out]
        assert alert["kind"] == "impossible_position"
        assert sorted(alert["candidate_lines"]) == [
            ["b1c3", "b8c6", "g1f3"],
            ["g1f3", "b8c6", "b1c3"],
        ]
        assert "the arbiter decides" in alert["message"]

    def test_without_a_reconnection_three_plies_are_not_searched(self) -> None:
        rec = MoveReconstructor(moves=("e2e4", "d7d5"), alert_after_ms=0)
        out = rec.settle(self.after("e2e4", "d7d5", "e4d5", "d8d5", "b1c3"), 0)
        assert rec.uci_moves == ["e2e4", "d7d5"]
        assert out[0].to_json()["kind"] == "impossible_position"
