"""The DGT board's fields and piece codes: how a board's 64 codes read as a placement.

Field 0 is a8 in normal orientation (the board's own numbering, ``dgtbrd.h``); a
board turned 180 degrees maps field i to 63 - i. The result ("magic") pieces are
the codes a board sends for a result set on it.
"""

from __future__ import annotations

from collections.abc import Iterable

PIECE_LETTERS = {
    0x01: "P",
    0x02: "R",
    0x03: "N",
    0x04: "B",
    0x05: "K",
    0x06: "Q",
    0x07: "p",
    0x08: "r",
    0x09: "n",
    0x0A: "b",
    0x0B: "k",
    0x0C: "q",
}
"""Piece codes (note the order: rook, knight, bishop, king, queen). 0 = empty."""
PIECE_CODES = {letter: code for code, letter in PIECE_LETTERS.items()}
MAGIC_PIECES = {0x0D: "1/2-1/2", 0x0E: "1-0", 0x0F: "0-1"}
"""The result ("magic") pieces of 2012+ boards: never part of a placement."""


def field_square_name(field_index: int) -> str:
    """Field 0 = a8 ... 63 = h1, as seen with White on the connector's side (normal)."""
    return "abcdefgh"[field_index % 8] + str(8 - field_index // 8)


def field_to_square(field_index: int, rotated: bool = False) -> int:
    """python-chess square of a field; a board turned 180 degrees maps field i to 63 - i."""
    return (field_index ^ 7) if rotated else (field_index ^ 56)


def placement_of(codes: Iterable[int]) -> str:
    """The FEN piece placement of 64 field codes in normal orientation (field 0 = a8).

    Magic pieces and unknown codes count as empty squares (they are never pieces
    of the game); the caller decides what to do about them.
    """
    rows = []
    row = []
    empty = 0
    for i, code in enumerate(codes):
        letter = PIECE_LETTERS.get(code)
        if letter is None:
            empty += 1
        else:
            if empty:
                row.append(str(empty))
                empty = 0
            row.append(letter)
        if i % 8 == 7:
            if empty:
                row.append(str(empty))
                empty = 0
            rows.append("".join(row))
            row = []
    return "/".join(rows)


def codes_of(placement: str) -> list[int]:
    """64 field codes (normal orientation) of a FEN piece placement."""
    codes: list[int] = []
    for char in placement:
        if char == "/":
            continue
        if char.isdigit():
            codes.extend([0] * int(char))
        else:
            codes.append(PIECE_CODES[char])
    if len(codes) != 64:
        raise ValueError(f"not a piece placement of 64 squares: {placement!r}")
    return codes


def rotate_placement(placement: str) -> str:
    """The same physical board read with the connector on the other side (180 degrees)."""
    return "/".join(row[::-1] for row in placement.split("/")[::-1])
