"""Boards read by order first, at any clock rate, and back in step after a misread.

Real-length games of the 2013 Candidates (``replay_logs/sources/candidates-2013.pgn``,
as published by FIDE) are played through the board simulator with realistic hands:
pieces lifted, held over the squares on their way and put down, captured pieces
taken first or last, castling king first or rook first, pawns paused on the
middle square. No captures from another driver could be found to ship, so these
byte streams stand for them.
"""

from __future__ import annotations

from functools import cache

import chess
import chess.pgn
import pytest

from adapters.cli.cmd_dgt import reconstruct_lines
from adapters.dgt import protocol as p
from adapters.dgt.board_codes import PIECE_CODES
from adapters.dgt.feed import StoreSink
from adapters.dgt.observations import LineRecovered, Observation
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.session import BoardSession
from adapters.dgt.simulator import BoardSimulator, Noise
from adapters.store import Store
from engine.events import board_stream
from engine.timefmt import format_instant
from tests.dgt_hands import T0_MS, Hands
from tests.test_dgt_serial import PGN

GAMES = (0, 9, 27, 44)
"""Four games: 61 to 88 plies, with castling both ways, captures and en passant."""


@cache
def games() -> tuple[chess.pgn.Game, ...]:
    out = []
    with open(PGN, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            out.append(game)
    return tuple(out)


def truth(sim: BoardSimulator) -> list[str]:
    return [m.uci() for m in sim.moves]


def replay(session: BoardSession, chunks: list[tuple[int, bytes]]) -> list[Observation]:
    """Chunks through a session as ``FileSource`` does, timers at their own instants."""
    seen: list[Observation] = []
    for at_ms, data in chunks:
        session.run_timers_until(at_ms)
        session.receive_data(data, at_ms)
        session.poll(at_ms)
        seen += session.observations()
    session.finish(chunks[-1][0])
    return seen + session.observations()


class TestUntimed:
    @pytest.mark.parametrize("index", GAMES)
    def test_a_raw_byte_stream_without_dumps_gives_the_whole_game(self, index: int) -> None:
        sim = BoardSimulator.from_pgn(games()[index], noise=Noise(knocks=0.1), seed=index)
        lines = reconstruct_lines(sim.raw_bytes(dumps=False), chess.STARTING_FEN)
        assert lines[0]["input"] == "raw" and lines[0]["timed"] is False
        assert lines[-1] == {"moves": truth(sim)}
        assert not [line for line in lines if line.get("type") == "alert"]

    def test_castling_either_order_and_a_pawn_paused_on_the_way_in_order(self) -> None:
        # Rook first (a legal Rf1 on the way), then a pawn paused on e6 (a legal e6):
        # order alone corrects both, nothing but the field updates is given.
        fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        hands = Hands(fen)
        hands.session.use_timing(False)
        hands.move("h1", "f1").move("e1", "g1")
        hands.move("e7", "e6").move("e6", "e5")
        hands.move("a2", "a3")
        hands.session.finish(hands.t)  # the end of the input settles what the board shows
        hands.log += hands.session.observations()
        assert hands.moves == ["e1g1", "e7e5", "a2a3"]
        kinds = [o["type"] for o in hands.seen("move", "correction")]
        assert "correction" in kinds

    def test_a_lifted_piece_is_never_an_alert_without_timing(self) -> None:
        hands = Hands(moves=("e2e4",))
        hands.session.use_timing(False)
        hands.lift("e7").wait(60_000)
        assert hands.alerts() == []
        hands.put("e5", "p")
        hands.session.finish(hands.t)
        hands.log += hands.session.observations()
        assert hands.alerts() == []
        assert hands.moves == ["e2e4", "e7e5"]


class TestClockRates:
    @pytest.mark.parametrize("rate_ms", [300, 1000, 2000, 5000])
    @pytest.mark.parametrize("index", GAMES[:2])
    def test_a_capture_timed_by_its_clock_gives_the_whole_game(
        self, rate_ms: int, index: int
    ) -> None:
        sim = BoardSimulator.from_pgn(games()[index], seed=index, clock_every_ms=rate_ms)
        session = BoardSession(reconstructor=MoveReconstructor(), timed=True)
        seen = replay(session, sim.clock_timed_stream())
        assert session.reconstructor.uci_moves == truth(sim)
        assert not [o for o in seen if o.type in ("alert", "recovery")]

    def test_a_pawn_held_between_two_messages_of_a_slow_clock_is_not_confirmed(self) -> None:
        # The case: with a clock every 2 s, d2-d3 held on the way to d4.
        hands = Hands()
        hands.clock(7_200_000, 7_200_000, "right").wait(2000)
        hands.clock(7_200_000, 7_200_000, "right")
        # Every change carries the instant of the last message (all such a capture knows).
        hands.lift("d2", gap_ms=0).put("d3", "P", gap_ms=0)
        hands.wait(2000).clock(7_198_000, 7_200_000, "right")
        hands.lift("d3", gap_ms=0).put("d4", "P", gap_ms=0).wait(2000)
        assert hands.moves == ["d2d4"]
        assert not [o for o in hands.seen("confirmed") if o["uci"] == "d2d3"]


def misread_run(
    index: int, store: Store, **sink_options: object
) -> tuple[BoardSimulator, StoreSink, list[Observation]]:
    game_id = "1.1"
    answer = store.handle(
        {
            "cmd": "start_game",
            "game": game_id,
            "at": format_instant(T0_MS),
            "white": "w",
            "black": "b",
        }
    )
    assert answer["ok"], answer
    sim = BoardSimulator.from_pgn(
        games()[index], noise=Noise(misread_at_ply=20, misread_hold_ms=4000), seed=index
    )
    session = BoardSession(reconstructor=MoveReconstructor(), timed=True)
    sink = StoreSink(store, game_id, session, label="31337", **sink_options)  # type: ignore[arg-type]
    seen: list[Observation] = []
    for at_ms, data in sim.raw_stream(dumps=False):
        at_ms += T0_MS
        while (deadline := session.next_deadline_ms()) is not None and deadline <= at_ms:
            session.poll(deadline)
            batch = session.observations()
            sink.deliver(batch)
            seen += batch
        session.receive_data(data, at_ms)
        session.poll(at_ms)
        batch = session.observations()
        sink.deliver(batch)
        seen += batch
    return sim, sink, seen


class TestRecovery:
    @pytest.mark.parametrize("index", GAMES[:2])
    def test_a_misread_is_recovered_within_a_ply_with_a_proposed_correction_and_an_alert(
        self, index: int, sqlite_store: Store
    ) -> None:
        sim, sink, seen = misread_run(index, sqlite_store)
        ply = sim.misread_ply()
        assert ply is not None
        moves = truth(sim)
        # The board took the intermediate square for the move (quiet time), the store got it.
        wrong = [
            o
            for o in seen
            if o.type == "confirmed"
            and o.to_json()["ply"] == ply
            and o.to_json()["uci"] != moves[ply - 1]
        ]
        assert wrong and wrong[0].to_json()["reason"] == "quiet"
        # Then the board showed the real move: recovered at once, within a ply.
        [recovery] = [o for o in seen if isinstance(o, LineRecovered)]
        assert recovery.from_ply == ply
        assert recovery.moves[0] == moves[ply - 1]
        assert len(recovery.moves) <= 2
        assert sink.session.reconstructor.uci_moves == moves
        # The record is never rewritten by the board: the arbiter gets a proposal.
        game = sqlite_store.reads.game("1.1")
        assert game is not None and game.moves[ply - 1] != moves[ply - 1]
        [proposal] = sink.proposals
        assert proposal.cmd == "correct_moves"
        assert proposal.from_ply == ply - 1  # the plies kept
        assert proposal.moves[0] == moves[ply - 1]
        alerts = [
            a
            for a in sqlite_store.cache.stream(board_stream("31337"))
            if a.kind == "correction_proposed"
        ]
        [alert] = alerts
        assert alert.by == "dgt:31337"
        assert "\n" not in alert.message
        assert f"at ply {ply} where" in alert.message
        assert dict(alert.details)["proposal"]["moves"] == proposal.moves
        # The arbiter confirms (Laws 7.4 a): the record takes the board's line, keeping
        # what it replaces, and the board's later moves follow.
        answer = sqlite_store.handle({**proposal.body(), "arbiter": "chief"})
        assert answer["ok"], answer
        sink.sync(proposal.at_ms)
        game = sqlite_store.reads.game("1.1")
        assert game is not None and list(game.moves) == moves
        corrected = [e for e in sqlite_store.cache.stream("game/1.1") if e.kind == "MovesCorrected"]
        assert [e.replaced_uci[0] for e in corrected] == [wrong[0].to_json()["uci"]]
        assert not [
            a
            for a in sqlite_store.cache.stream(board_stream("31337"))
            if a.kind == "impossible_position"
        ]

    def test_under_the_automatic_policy_an_unpublished_misread_is_corrected_at_once(
        self, sqlite_store: Store
    ) -> None:
        sim, sink, _ = misread_run(GAMES[0], sqlite_store, auto_correct_arbiter="chief")
        game = sqlite_store.reads.game("1.1")
        assert game is not None and list(game.moves) == truth(sim)
        kinds = [a.kind for a in sqlite_store.cache.stream(board_stream("31337"))]
        assert "correction_applied" in kinds and "correction_proposed" not in kinds
        [event] = [e for e in sqlite_store.cache.stream("game/1.1") if e.kind == "MovesCorrected"]
        assert event.arbiter == "chief" and event.from_ply == sim.misread_ply() - 1  # type: ignore[operator]
        assert sink.proposals == []

    def test_a_misread_the_public_has_seen_is_only_proposed(self, sqlite_store: Store) -> None:
        _, sink, _ = misread_run(
            GAMES[0], sqlite_store, auto_correct_arbiter="chief", public_delay_ms=1000
        )
        kinds = [a.kind for a in sqlite_store.cache.stream(board_stream("31337"))]
        assert "correction_proposed" in kinds and "correction_applied" not in kinds
        assert len(sink.proposals) == 1

    def test_a_move_held_on_its_way_and_confirmed_by_quiet_time_is_recovered(self) -> None:
        hands = Hands(confirm_ms=1500)
        hands.lift("d2").put("d3", "P").wait(2000)
        assert [o["reason"] for o in hands.seen("confirmed")] == ["quiet"]
        hands.lift("d3").put("d4", "P").settle()
        # The board waits (a knock would be put back): the reply shows the way.
        hands.move("g8", "f6").settle()
        [recovery] = hands.seen("recovery")
        assert recovery["from_ply"] == 1
        assert recovery["replaced"] == ["d2d3"]
        assert recovery["moves"] == ["d2d4", "g8f6"]
        assert recovery["message"] == (
            "the board shows 1. d4 Nf6 at ply 1 where 1. d3 was confirmed: "
            "the line is corrected from ply 1"
        )
        assert hands.moves == ["d2d4", "g8f6"]

    def test_a_recovery_standing_long_enough_is_taken_without_a_reply(self) -> None:
        hands = Hands(confirm_ms=1500, alert_after_ms=2000)
        hands.lift("d2").put("d3", "P").wait(2000)
        hands.lift("d3").put("d4", "P").wait(2500)
        [recovery] = hands.seen("recovery")
        assert recovery["moves"] == ["d2d4"]
        assert hands.alerts("impossible_position") == []

    def test_a_move_completed_by_the_lever_is_never_rewritten(self) -> None:
        # Laws 6.7 a: the press completes the move. A piece moved afterwards (a knock)
        # is an impossible position for the arbiter, not a misreading.
        hands = Hands(white_side="right", alert_after_ms=2000)
        hands.clock(7_200_000, 7_200_000, "right")
        hands.move("d2", "d3").settle().clock(7_199_000, 7_200_000, "left")
        assert hands.seen("confirmed")[-1]["reason"] == "clock"
        hands.lift("d3").put("d4", "P").wait(2500)
        assert hands.seen("recovery") == []
        assert hands.alerts("impossible_position")
        assert hands.moves == ["d2d3"]

    def test_a_knock_put_back_is_no_recovery(self) -> None:
        # Bc4 confirmed by quiet time, then knocked to b5 (Bb5 would have been legal)
        # and put back before it stood: no recovery, no alert.
        hands = Hands(moves=("e2e4", "e7e5"), confirm_ms=1500, alert_after_ms=2000)
        hands.move("f1", "c4").wait(2000)
        hands.lift("c4").put("b5", "B").wait(800).lift("b5").put("c4", "B").settle()
        assert hands.seen("recovery") == []
        assert hands.alerts() == []
        assert hands.moves == ["e2e4", "e7e5", "f1c4"]


class TestClockFlags:
    def test_a_flag_shown_by_the_device_is_passed_on_in_colours_laws_6_10_a(self) -> None:
        hands = Hands(white_side="right")
        hands.session.receive_data(
            p.encode_clock(5_000, 0, "right", right_flags=0x10), hands.t
        )  # White's clock (right) at 0:00, its flag fallen
        mapped = [o.to_json() for o in hands.session.observations() if o.type == "clock_reading"]
        assert mapped[-1]["flag"] == "white"
        assert mapped[-1]["white_ms"] == 0

    def test_no_flag_no_field(self) -> None:
        hands = Hands(white_side="left")
        hands.session.receive_data(p.encode_clock(60_000, 5_000, "left"), hands.t)
        mapped = [o.to_json() for o in hands.session.observations() if o.type == "clock_reading"]
        assert "flag" not in mapped[-1]


def test_two_games_in_one_raw_capture_are_told_apart_by_the_start_array() -> None:
    first = BoardSimulator.from_pgn(games()[0], seed=0)
    first.moves = first.moves[:10]
    second = BoardSimulator.from_pgn(games()[9], seed=9)
    second.moves = second.moves[:12]
    # Between the games the pieces are set up again, square by square, no dump.
    board = chess.Board()
    for move in first.moves:
        board.push(move)
    reset = b""
    for square in chess.SQUARES:
        if board.piece_at(square) is not None:
            reset += p.encode_field_update(square ^ 56, 0)
    for square, piece in chess.Board().piece_map().items():
        reset += p.encode_field_update(square ^ 56, PIECE_CODES[piece.symbol()])
    # The second game's bytes without its opening serial number and dump.
    rest = b"".join(data for _, data in second.raw_stream(dumps=False)[2:])
    data = first.raw_bytes(dumps=False) + reset + rest
    lines = reconstruct_lines(data, chess.STARTING_FEN)
    assert [line["kind"] for line in lines if line.get("type") == "alert"] == ["new_game"]
    assert lines[-1] == {"moves": truth(second)}
