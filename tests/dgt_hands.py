"""Hands on a simulated DGT board: pieces lifted and put down, bytes to a session."""

from __future__ import annotations

from typing import Any

import chess

from adapters.dgt import protocol as p
from adapters.dgt.board_codes import PIECE_CODES
from adapters.dgt.clocksides import ClockSides
from adapters.dgt.observations import Observation
from adapters.dgt.reconstruct import MoveReconstructor
from adapters.dgt.session import BoardSession

SCAN_MS = 120  # between two field updates of one hand movement (about one scan)
T0_MS = 1_363_356_060_000
"""2013-03-15T14:01:00Z: a minute after the games of ``tests.test_dgt_feed`` start."""


class Hands:
    """Moves pieces on a physical board and feeds a timed session field update by field
    update (``rotated``: White sits on the far side, fields are reported turned)."""

    def __init__(
        self,
        fen: str | None = None,
        *,
        rotated: bool = False,
        debounce_ms: int = 300,
        orientation: str = "auto",
        white_side: str | None = None,
        confirm_ms: int = 1500,
        alert_after_ms: int = 2000,
        moves: tuple[str, ...] = (),
    ) -> None:
        board = chess.Board(fen) if fen else chess.Board()
        for uci in moves:
            board.push_uci(uci)
        self.rotated = rotated
        self.session = BoardSession(
            reconstructor=MoveReconstructor(
                start_fen=fen,
                moves=moves,
                orientation=orientation,
                confirm_ms=confirm_ms,
                alert_after_ms=alert_after_ms,
            ),
            clock_sides=ClockSides.of(white_side),
            debounce_ms=debounce_ms,
        )
        self.physical = chess.BaseBoard(board.board_fen())
        self.t = T0_MS
        self.log: list[Observation] = []
        self.session.receive_data(self._dump(), self.t)
        self._collect()

    def _field(self, square: chess.Square) -> int:
        return (square ^ 7) if self.rotated else (square ^ 56)

    def _dump(self) -> bytes:
        placement = self.physical.board_fen()
        return p.encode_placement(placement, rotated=self.rotated)

    def _collect(self) -> None:
        self.session.poll(self.t)
        self.log.extend(self.session.observations())
        self.session.data_to_send()

    def _report(self, square: chess.Square) -> None:
        piece = self.physical.piece_at(square)
        code = PIECE_CODES[piece.symbol()] if piece else 0
        self.session.receive_data(p.encode_field_update(self._field(square), code), self.t)
        self._collect()

    def wait(self, ms: int) -> Hands:
        """Time passes; timers fire at their own instants."""
        end = self.t + ms
        while (deadline := self.session.next_deadline_ms()) is not None and deadline <= end:
            self.t = max(self.t, deadline)
            self._collect()
        self.t = end
        self._collect()
        return self

    def lift(self, name: str, gap_ms: int = SCAN_MS) -> Hands:
        self.wait(gap_ms)
        square = chess.parse_square(name)
        self.physical.remove_piece_at(square)
        self._report(square)
        return self

    def put(self, name: str, symbol: str, gap_ms: int = SCAN_MS) -> Hands:
        self.wait(gap_ms)
        square = chess.parse_square(name)
        self.physical.set_piece_at(square, chess.Piece.from_symbol(symbol))
        self._report(square)
        return self

    def move(self, frm: str, to: str) -> Hands:
        """Lift a piece and put it down (capturing whatever stood there)."""
        piece = self.physical.piece_at(chess.parse_square(frm))
        assert piece is not None, frm
        if self.physical.piece_at(chess.parse_square(to)) is not None:
            self.lift(to)
        self.lift(frm)
        return self.put(to, piece.symbol())

    def dump(self) -> Hands:
        """The host asked for a full dump and got it."""
        self.session.receive_data(self._dump(), self.t)
        self._collect()
        return self

    def clock(self, left_ms: int, right_ms: int, running: str | None) -> Hands:
        self.session.receive_data(p.encode_clock(left_ms, right_ms, running), self.t)
        self._collect()
        return self

    def settle(self) -> Hands:
        return self.wait(self.session.debounce_ms + 50)

    # --- reading --------------------------------------------------------------

    @property
    def moves(self) -> list[str]:
        return self.session.reconstructor.uci_moves

    def seen(self, *types: str) -> list[dict[str, Any]]:
        return [o.to_json() for o in self.log if not types or o.type in types]

    def alerts(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [a for a in self.seen("alert") if kind is None or a["kind"] == kind]
