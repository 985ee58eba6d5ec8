"""A game's opening: its name and ECO code, by the positions its moves reach.

The table is the Lichess openings table (CC0; ``adapters/store/openings_table/``, its
source and licence in the README there): about 3,800 named lines, each a
sequence of moves from the initial position. A line is known here by the
position it reaches (its EPD: FEN without the move counters), so a game that
transposes into a named position gets that name. A game's opening is the
named position reached latest along its moves (the longest known), walked no
further than the deepest named line; a game from a set-up position
(``initial_fen``) has none.

The walk of a game is remembered by its first moves (as far as the deepest
line), so the gateway, which rebuilds a game object on every move, walks each
game once per move of its opening and not at all after it.
"""

from __future__ import annotations

import csv
import functools
import io
import logging
from dataclasses import dataclass
from pathlib import Path

import chess

from engine.game.fen import epd as epd_text

log = logging.getLogger(__name__)

TABLE = Path(__file__).with_name("openings_table")
FILES = ("a.tsv", "b.tsv", "c.tsv", "d.tsv", "e.tsv")


@dataclass(frozen=True)
class Opening:
    """A named opening: its ECO code, its name, and the ply at which the game reached it."""

    eco: str
    name: str
    ply: int


@dataclass(frozen=True)
class OpeningsTable:
    """EPD -> (ECO, name); ``depth``: the most plies of any named line."""

    positions: dict[str, tuple[str, str]]
    depth: int
    occupied: frozenset[int] = frozenset()
    """The occupied squares (``Board.occupied``) of every named position: a position
    whose squares are none of these is not named, and its EPD is not written."""


def epd(board: chess.Board) -> str:
    """The position as the table keys it (an en passant square only when a capture is legal)."""
    return epd_text(board)


def parse_table(texts: list[str]) -> OpeningsTable:
    """The table from the TSV files' texts (``eco``, ``name``, ``pgn`` columns).

    Lines share their first moves: each line starts from the position of the longest
    line already read that begins it, so each move of the table is read once."""
    positions: dict[str, tuple[str, str]] = {}
    occupied: set[int] = set()
    depth = 0
    known: dict[tuple[str, ...], chess.Board] = {(): chess.Board()}
    for text in texts:
        for row in csv.DictReader(io.StringIO(text), delimiter="\t"):
            sans = tuple(t for t in row["pgn"].split() if not t[0].isdigit())  # no "1." "12..."
            start = len(sans)
            while sans[:start] not in known:
                start -= 1
            board = known[sans[:start]].copy(stack=False)
            try:
                for index in range(start, len(sans)):
                    board.push_san(sans[index])
                    known[sans[: index + 1]] = board.copy(stack=False)
            except ValueError:
                log.warning(
                    "openings table: %s %r has an illegal line; left out", row["eco"], row["name"]
                )
                continue
            depth = max(depth, board.ply())
            # the first line naming a position keeps it (the table lists the main name first)
            positions.setdefault(epd(board), (row["eco"], row["name"]))
            occupied.add(board.occupied)
    return OpeningsTable(positions, depth, frozenset(occupied))


@functools.cache
def table() -> OpeningsTable:
    """The shipped table, read once; an empty one (said once in a warning) if it is missing."""
    try:
        texts = [(TABLE / name).read_text(encoding="utf-8") for name in FILES]
    except OSError as exc:
        log.warning("the openings table cannot be read (%s): games are shown without one", exc)
        return OpeningsTable({}, 0)
    return parse_table(texts)


def opening_of(initial_fen: str | None, uci_moves: tuple[str, ...] | list[str]) -> Opening | None:
    """The opening of a game: the latest named position along its moves, or None."""
    if initial_fen:
        return None
    known = table()
    return _walk(tuple(uci_moves[: known.depth]))


@functools.lru_cache(maxsize=4096)
def _walk(moves: tuple[str, ...]) -> Opening | None:
    known = table()
    if not moves:
        return None
    before = _walk(moves[:-1])
    board = _board_after(moves)
    if board is None or board.occupied not in known.occupied:
        return before
    found = known.positions.get(epd(board))
    return Opening(found[0], found[1], len(moves)) if found is not None else before


@functools.lru_cache(maxsize=4096)
def _board_after(moves: tuple[str, ...]) -> chess.Board | None:
    """The position after these moves (None if one is not legal); never changed once made."""
    if not moves:
        return chess.Board()
    before = _board_after(moves[:-1])
    if before is None:
        return None
    board = before.copy(stack=False)
    try:
        board.push_uci(moves[-1])
    except ValueError:
        return None
    return board
