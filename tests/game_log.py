"""One game's events built as the engine records them, version after version, for the
audit's pure rulebook (``engine.audit``) to judge without a store."""

from __future__ import annotations

from typing import Any, Self

import chess

from engine.events import Event, GameStarted, MovePlayed
from tests.helpers import T0_MS


class GameLog:
    """Game 1.1 (Aronian - Carlsen) under ``rules``, from the start or from ``fen``."""

    def __init__(
        self, rules: str = "candidates-2012", stage: str = "tournament", fen: str | None = None
    ) -> None:
        self.board = chess.Board(fen) if fen is not None else chess.Board()
        self.events: list[Event] = []
        self.add(
            GameStarted,
            game="1.1",
            round=1,
            board=1,
            white="aronian",
            black="carlsen",
            time_control="40/7200:20/3600:900+30",
            rules=rules,
            initial_fen=fen,
            stage=stage,
        )

    def add(self, cls: type[Event], **fields: Any) -> Event:
        event = cls(
            originator_id="game/1.1",
            originator_version=len(self.events) + 1,
            at_ms=T0_MS + 1000 * len(self.events),
            by=fields.pop("by", "chief"),
            **fields,
        )
        self.events.append(event)
        return event

    def play(self, sans: str) -> Self:
        """The moves in SAN; the first move of the game is ply 1 whatever the FEN says."""
        for san in sans.split():
            move = self.board.parse_san(san)
            self.add(MovePlayed, uci=move.uci(), san=san, ply=len(self.board.move_stack) + 1)
            self.board.push(move)
        return self
