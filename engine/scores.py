"""Each player's score in a game, as the Laws give it (Laws 2009 11; 6.6 a; 12.3 b; 13.4).

A game's ``result`` is one of the PGN results (``1-0``, ``0-1``, ``1/2-1/2``, ``*``), or
``0-0`` for a game both players lost by default (Laws 2009 6.6 a, both absent). Some
rulings give the two players scores that are not a pair summing to one:

- Laws 2009 12.3 b: a player whose mobile phone sounds loses; "if the opponent cannot
  win the game by any series of legal moves, his score shall be a draw": 0 - 1/2;
- 6.6 a (and 12.9): a double default, both lose: 0 - 0;
- 13.4 e / f: the arbiter reduces the offender's points or raises the opponent's.

Such a game keeps the nearest legal PGN result (``0-1`` for a White who lost while
Black scored a draw) and records the players' own scores beside it as ``scores``
(``"0-1/2"``, White's first). Scores are ``fractions.Fraction``, never float.
"""

from __future__ import annotations

from fractions import Fraction

POINTS: dict[str, tuple[Fraction, Fraction]] = {
    "1-0": (Fraction(1), Fraction(0)),
    "0-1": (Fraction(0), Fraction(1)),
    "1/2-1/2": (Fraction(1, 2), Fraction(1, 2)),
    "0-0": (Fraction(0), Fraction(0)),
}
"""(White's points, Black's points) of each result a game may end with (Laws 2009 11)."""

SCORE_VALUES = {"0": Fraction(0), "1/2": Fraction(1, 2), "1": Fraction(1)}
"""The score one player may get in one game."""

SCORES: dict[str, tuple[Fraction, Fraction]] = {
    f"{w}-{b}": (SCORE_VALUES[w], SCORE_VALUES[b]) for w in SCORE_VALUES for b in SCORE_VALUES
}
"""Every pair of individual scores, ``"0-1/2"`` included; the results are among them."""


def read_scores(text: str) -> tuple[Fraction, Fraction]:
    """``"0-1/2"`` as (White's, Black's) points; ValueError for anything else."""
    try:
        return SCORES[text]
    except KeyError:
        known = ", ".join(sorted(SCORES))
        raise ValueError(f"scores must be one of {known} (White's first), got {text!r}") from None


def game_points(result: str, scores: str | None = None) -> tuple[Fraction, Fraction] | None:
    """(White's, Black's) points of a finished game: its own scores when the ruling gave
    them, else its result's; None while the game has no result (``*``)."""
    if scores:
        return SCORES.get(scores)
    return POINTS.get(result)


def score_text(value: Fraction) -> str:
    """``1``, ``1/2`` or ``0``."""
    return {Fraction(1): "1", Fraction(1, 2): "1/2"}.get(value, "0")


def nearest_pgn_result(result: str, scores: str | None = None) -> str:
    """The PGN ``Result`` closest to what the players scored: a win where one scored more
    than the other, a draw where both scored a half, ``*`` where neither won nor drew
    (0 - 0: the PGN standard has no double loss)."""
    points = game_points(result, scores)
    if points is None:
        return result if result in ("1-0", "0-1", "1/2-1/2") else "*"
    white, black = points
    if white > black:
        return "1-0"
    if black > white:
        return "0-1"
    return "1/2-1/2" if white == Fraction(1, 2) else "*"


def is_individual(result: str, scores: str | None = None) -> bool:
    """The players' scores are not the pair a PGN result gives (0 - 1/2, 0 - 0, 1 - 1 ...)."""
    points = game_points(result, scores)
    return points is not None and sum(points) != 1
