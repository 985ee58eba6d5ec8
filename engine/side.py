"""The two sides of a game (Laws of Chess 2.1: "White" and "Black")."""

from __future__ import annotations

from enum import StrEnum

import chess


class Side(StrEnum):
    """A side; its value is what events, logs and the wire have always stored."""

    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Side:
        return Side.BLACK if self is Side.WHITE else Side.WHITE

    @property
    def colour(self) -> chess.Color:
        """The python-chess colour of the side."""
        return chess.WHITE if self is Side.WHITE else chess.BLACK

    @property
    def win(self) -> str:
        """The result of a game this side wins (``1-0`` or ``0-1``)."""
        return "1-0" if self is Side.WHITE else "0-1"

    @staticmethod
    def of(value: object) -> Side:
        """The side named ``value``; ValueError for anything that is not a side."""
        if value == Side.WHITE:
            return Side.WHITE
        if value == Side.BLACK:
            return Side.BLACK
        raise ValueError(f"{value!r} is not a side (white or black)")

    @staticmethod
    def to_move(turn: chess.Color) -> Side:
        """The side whose turn it is on a python-chess board."""
        return Side.WHITE if turn == chess.WHITE else Side.BLACK


SIDES = (Side.WHITE, Side.BLACK)
