"""The two sides of a game (Laws of Chess 2.1: "White" and "Black")."""

from __future__ import annotations

from enum import StrEnum


class Side(StrEnum):
    """A side; its value is what events, logs and the wire have always stored."""

    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Side:
        return Side.BLACK if self is Side.WHITE else Side.WHITE


SIDES = (Side.WHITE, Side.BLACK)
