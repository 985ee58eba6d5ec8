"""Held pieces are not alerts, and a slow clock confirms nothing wrong (docs/dgt.md,
section 4, "Hands holding pieces" and "Provisional and confirmed moves").

A hand holds pieces: a piece hovers over the board before it is put down, is
put down a moment on a wrong square and moved on, a captured man is held while
the capturing piece is thought over, a promotion's piece is fetched. The board
shows placements no legal move explains, or legal moves the hand is still
making. The reconstructor waits for the evidence that a placement stands (the
press, Laws 2009 6.7 a; the next move; quiet the instants prove) before it
confirms a move or reports an impossible position, at any clock rate.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from adapters.dgt.board_codes import PIECE_CODES
from adapters.dgt.observations import LineRecovered, MoveConfirmed
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.session import BoardSession
from adapters.dgt.simulator import BoardSimulator, Noise
from adapters.store import Store
from engine.events import board_stream
from tests.dgt_hands import Hands
from tests.test_dgt_order_and_recovery import games, replay, truth
from tests.test_dgt_serial import SCALE, kramnik_ivanchuk, over_a_pty, replay_recording


class TestHeldPiecesAreNotAlerts:
    def test_a_piece_held_in_the_hand_raises_no_alert_however_long(self) -> None:
        hands = Hands(moves=("e2e4", "e7e5"), alert_after_ms=2000)
        hands.lift("g1").wait(30_000)  # the knight hovers while its player thinks
        assert hands.alerts() == []
        hands.put("f3", "N").settle().wait(1500)
        assert hands.moves == ["e2e4", "e7e5", "g1f3"]
        assert hands.alerts() == []

    def test_a_captured_man_held_while_the_capturing_piece_is_thought_over(self) -> None:
        hands = Hands(moves=("e2e4", "d7d5"), alert_after_ms=2000)
        hands.lift("d5").wait(8000).lift("e4").wait(5000).put("d5", "P").settle()
        assert hands.moves == ["e2e4", "d7d5", "e4d5"]
        assert hands.alerts() == []

    def test_two_pieces_in_the_hand_are_not_an_exchange_of_two_plies(self) -> None:
        # The rook on b6 and the pawn on b7 both in the hand look like Rxa6 bxa6 (a
        # black pawn on a6 either way): pieces in a hand are never read as plies.
        hands = Hands("4k3/1p6/pR6/8/8/8/8/4K3 w - - 0 1", alert_after_ms=2000)
        hands.lift("b6").lift("b7").wait(6000)
        assert hands.moves == []
        assert hands.alerts() == []
        hands.put("b7", "R").settle().wait(1500)
        assert hands.moves == ["b6b7"]
        assert hands.seen("confirmed") == [
            {"type": "confirmed", "ply": 1, "uci": "b6b7", "reason": "quiet"}
        ]

    def test_a_promotion_piece_fetched_for_seconds(self) -> None:
        hands = Hands("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", alert_after_ms=2000)
        hands.lift("a7").wait(6000).put("a8", "Q").settle()
        assert hands.moves == ["a7a8q"]
        assert hands.alerts() == []

    def test_a_placement_that_stands_impossible_raises_exactly_one_alert(self) -> None:
        # A knocked piece left lying: the host reads the board again every 2 s; the
        # alert is raised once, when the placement has stood, and closed once.
        hands = Hands(moves=("e2e4",), alert_after_ms=2000)
        hands.lift("f2").put("g3", "P", gap_ms=30)
        for _ in range(6):
            hands.wait(2000).dump()
        assert len(hands.alerts("impossible_position")) == 1
        hands.lift("g3").put("f2", "P").settle()
        assert len(hands.alerts("position_restored")) == 1
        assert len(hands.alerts("impossible_position")) == 1

    def test_a_piece_put_down_a_moment_on_an_impossible_square_is_no_alert(self) -> None:
        hands = Hands(moves=("e2e4", "e7e5"), alert_after_ms=2000)
        hands.lift("f1").put("e2", "B").wait(1200)  # Be2 is legal: a move still being made
        hands.lift("e2").put("d4", "B").wait(900)  # not a bishop's move from f1
        hands.lift("d4").put("c4", "B").settle().wait(1500)
        assert hands.moves == ["e2e4", "e7e5", "f1c4"]
        assert hands.alerts() == []
        assert [o["uci"] for o in hands.seen("confirmed")][-1] == "f1c4"

    def test_the_end_of_the_input_makes_a_held_placement_stand(self) -> None:
        hands = Hands(moves=("e2e4",), alert_after_ms=2000)
        hands.lift("e7").wait(10_000)
        assert hands.alerts() == []
        hands.session.finish(hands.t)
        hands.log += hands.session.observations()
        [alert] = hands.alerts("impossible_position")
        assert alert["diff"] == [{"square": "e7", "expected": "p", "found": None}]


class TestNoMoveIsCompleteByItsKind:
    def test_a_knight_put_down_a_square_off_and_moved_on_is_corrected_not_recovered(
        self,
    ) -> None:
        # Ne2 is legal: the hand put the knight down there a moment on its way to f3.
        hands = Hands(moves=("e2e4", "e7e5"))
        hands.lift("g1").put("e2", "N").settle().wait(900)
        assert hands.seen("confirmed") == []
        hands.lift("e2").put("f3", "N").settle().wait(1500)
        assert hands.moves == ["e2e4", "e7e5", "g1f3"]
        assert [o["uci"] for o in hands.seen("correction")] == ["g1f3"]
        assert hands.seen("recovery") == []
        assert [o["uci"] for o in hands.seen("confirmed")] == ["g1f3"]

    def test_the_press_completes_a_capture_at_once_laws_6_7_a(self) -> None:
        hands = Hands(moves=("e2e4", "d7d5"), white_side="right", confirm_ms=10_000)
        hands.clock(7_200_000, 7_200_000, "right")
        hands.move("e4", "d5").settle()
        assert hands.seen("confirmed") == []
        hands.clock(7_190_000, 7_200_000, "left")
        assert hands.seen("confirmed")[-1] == {
            "type": "confirmed",
            "ply": 3,
            "uci": "e4d5",
            "reason": "clock",
        }


class ClockTimed:
    """A capture whose only time source is a clock speaking every ``every_ms``: every
    field change carries the instant of the last clock message before it."""

    def __init__(self, every_ms: int, **kwargs: object) -> None:
        self.every_ms = every_ms
        self.hands = Hands(**kwargs)  # type: ignore[arg-type]
        self.clock_ms = 7_200_000
        self.message()
        self.message()  # two messages: the resolution is known

    def message(self) -> ClockTimed:
        """The clock's next message, ``every_ms`` after the last one."""
        self.hands.wait(self.every_ms)
        self.clock_ms -= self.every_ms
        self.hands.clock(self.clock_ms, 7_200_000, "right")
        return self

    def lift(self, square: str) -> ClockTimed:
        self.hands.lift(square, gap_ms=0)
        return self

    def put(self, square: str, symbol: str) -> ClockTimed:
        self.hands.put(square, symbol, gap_ms=0)
        return self


class TestSlowClock:
    @pytest.mark.parametrize("every_ms", [2000, 5000])
    def test_a_knight_a_square_off_across_a_message_is_not_confirmed(self, every_ms: int) -> None:
        capture = ClockTimed(every_ms, moves=("e2e4", "e7e5"))
        capture.lift("g1").put("e2", "N").message()  # Ne2 stood until this message
        capture.lift("e2").put("f3", "N").message().message().message()
        hands = capture.hands
        assert hands.moves == ["e2e4", "e7e5", "g1f3"]
        confirmed = [(o["ply"], o["uci"]) for o in hands.seen("confirmed")]
        assert (3, "g1e2") not in confirmed and (3, "g1f3") in confirmed
        assert hands.seen("recovery") == [] and hands.alerts() == []

    @pytest.mark.parametrize("every_ms", [2000, 5000])
    def test_quiet_is_counted_beyond_the_clock_s_resolution(self, every_ms: int) -> None:
        # A bishop put a square short at the end of one interval and moved on at the
        # start of the next: the instants show a whole interval of quiet, the hand
        # rested it a moment. Quiet confirms only once confirm_ms of it is certain.
        capture = ClockTimed(every_ms, moves=("e2e4", "e7e5"))
        reconstructor = capture.hands.session.reconstructor
        assert reconstructor.quiet_ms == reconstructor.confirm_ms + every_ms
        capture.lift("f1").put("d3", "B").message()
        capture.lift("d3").put("c4", "B").message().message().message()
        hands = capture.hands
        confirmed = [(o["ply"], o["uci"]) for o in hands.seen("confirmed")]
        assert (3, "f1d3") not in confirmed and (3, "f1c4") in confirmed

    @pytest.mark.parametrize("every_ms", [2000, 5000])
    def test_a_piece_held_across_messages_raises_no_alert(self, every_ms: int) -> None:
        capture = ClockTimed(every_ms, moves=("e2e4", "e7e5"))
        capture.lift("d1").message().message().message()
        capture.put("h5", "Q").message().message().message()
        assert capture.hands.moves == ["e2e4", "e7e5", "d1h5"]
        assert capture.hands.alerts() == []

    @pytest.mark.parametrize("every_ms", [1000, 2000, 5000])
    def test_a_game_with_held_pieces_confirms_nothing_wrong_and_alerts_nothing(
        self, every_ms: int
    ) -> None:
        sim = BoardSimulator.from_pgn(
            games()[9], noise=Noise(held=0.6), seed=9, clock_every_ms=every_ms
        )
        session = BoardSession(reconstructor=MoveReconstructor(), timed=True)
        seen = replay(session, sim.clock_timed_stream())
        moves = truth(sim)
        assert session.reconstructor.uci_moves == moves
        wrong = [o for o in seen if isinstance(o, MoveConfirmed) and moves[o.ply - 1] != o.uci]
        assert wrong == []
        assert not [o for o in seen if isinstance(o, LineRecovered)]
        assert not [o for o in seen if o.type == "alert" and o.to_json()["kind"] != "new_game"]


def test_held_pieces_over_a_pseudo_terminal_through_pyserial(tmp_path: Path) -> None:
    """The real stack: hands holding pieces on a simulated board behind a pseudo-terminal;
    every move reaches the store, no alert, no correction to propose."""
    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(
        game, noise=Noise(held=0.6), time_scale=SCALE, think_ms=300, seed=21
    )
    sim.moves = sim.moves[:30]
    # Thresholds well above the scaled holds (a piece put down a moment: at most
    # 1.2 s, 180 ms here), so that a loaded machine's late reads cannot stretch one.
    session = BoardSession(
        reconstructor=MoveReconstructor(
            alert_after_ms=int(4000 * SCALE), confirm_ms=int(4000 * SCALE)
        ),
        debounce_ms=int(300 * SCALE),
    )
    with Store(str(tmp_path / "store.sqlite")) as store:
        sink, _, _ = over_a_pty(tmp_path, sim, store, session)
        stored = store.reads.game("6.3")
        assert stored is not None and list(stored.moves) == truth(sim)
        kinds = [a.kind for a in store.cache.stream(board_stream("31337"))]
        assert "impossible_position" not in kinds
        assert "correction_proposed" not in kinds
        assert sink.proposals == []


@pytest.mark.parametrize("every_ms", [2000, 5000])
def test_a_capture_timed_by_a_slow_clock_with_held_pieces_into_the_store(
    tmp_path: Path, every_ms: int
) -> None:
    """Another driver's capture (only its clock gives instants) replayed through
    ``run_sources``: every move stored, nothing to correct, no alert."""
    game = kramnik_ivanchuk()
    sim = BoardSimulator.from_pgn(game, noise=Noise(held=0.6), seed=5, clock_every_ms=every_ms)
    url, _ = replay_recording(tmp_path, sim.clock_timed_stream())
    with Store(url) as store:
        stored = store.reads.game("6.3")
        assert stored is not None
        assert list(stored.moves) == [m.uci() for m in game.mainline_moves()]
        kinds = [a.kind for a in store.cache.stream(board_stream("31337"))]
        assert kinds == []
        corrected = [e for e in store.cache.stream("game/6.3") if e.kind == "MovesCorrected"]
        assert corrected == []


def test_the_simulated_hands_hold_pieces_and_each_ply_ends_on_the_game_s_placement() -> None:
    """The simulator's hands (``Noise.held``): pieces held for seconds, and the board
    shows the game's placement at the end of every ply."""
    sim = BoardSimulator.from_pgn(games()[0], noise=Noise(held=1.0), seed=0)
    symbols = {code: symbol for symbol, code in PIECE_CODES.items()}
    board = chess.BaseBoard()
    game = chess.Board()
    moves = iter(sim.moves)
    lifted_at = 0
    held_ms = []
    for step in sim.script():
        if step.kind == "field":
            square = step.field ^ 56
            if step.code == 0:
                board.remove_piece_at(square)
                lifted_at = step.at_ms
            else:
                board.set_piece_at(square, chess.Piece.from_symbol(symbols[step.code]))
                held_ms.append(step.at_ms - lifted_at)
        elif step.kind == "ply":
            game.push(next(moves))
            assert board.board_fen() == game.board_fen()
    assert game.move_stack == list(sim.moves)
    assert max(held_ms) > 3000  # some pieces hover for seconds
