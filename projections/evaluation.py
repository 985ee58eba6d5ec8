"""An engine's evaluation of a position, as commentators and broadcast PGN read it.

Pure: the analysis service gives the numbers, this module says what they mean: the
``[%eval]`` text broadcast platforms read (pawns from White's view, or ``#n``), a
side's expected score from the win/draw/loss chances, and the moves that dropped it
enough to be a mistake or a blunder (docs/analysis.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired, TypedDict

from msgspec import Meta

from engine.timefmt import format_instant
from projections.shapes import Count

MISTAKE_DROP = 0.10
"""A drop of the mover's expected score (win + half the draws) that makes a move a mistake."""
BLUNDER_DROP = 0.20
"""A drop that makes it a blunder."""


class Score(TypedDict):
    """White's point of view: ``cp`` centipawns, or ``mate`` in moves (negative: Black
    mates); the other null."""

    cp: int | None
    mate: int | None


class Swing(TypedDict):
    """A move as a mistake or a blunder of its mover: the fall of his expected score."""

    kind: Literal["mistake", "blunder"]
    side: Literal["white", "black"]
    drop: float


PerMille = Annotated[int, Meta(ge=0, le=1000)]


class AnalysisFrame(TypedDict):
    """The engine's evaluation of one position of a game (docs/analysis.md): commentators
    at once, the public after the delay, arbiters only when configured."""

    op: Literal["analysis"]
    game: str
    tournament: NotRequired[str]
    ply: Count
    fen: str
    at: str | None
    score: Score
    eval: Annotated[str, Meta(description="as PGN's `[%eval]` writes it")]
    wdl: Annotated[
        list[PerMille],
        Meta(
            min_length=3,
            max_length=3,
            description="White's win, draw and loss chances, per mille",
        ),
    ]
    pv: list[str]
    pv_uci: list[str]
    depth: Count
    nodes: Count
    swing: Swing | None


@dataclass(frozen=True)
class Evaluation:
    """The engine's verdict on the position after ``ply`` plies of a game (White's view)."""

    ply: int
    fen: str
    cp: int | None
    """Centipawns for White; None when a mate is announced."""
    mate: int | None
    """Moves to mate: positive, White mates; negative, Black mates; None without one."""
    wdl: tuple[int, int, int]
    """White's win, draw and loss chances, per mille (they add up to 1000)."""
    pv: tuple[str, ...]
    """The best line, UCI."""
    pv_san: tuple[str, ...]
    """The best line, SAN (from the position)."""
    depth: int
    nodes: int
    at_ms: int = 0
    """The instant of the event that made this position the game's (a move, a correction)."""


def eval_text(cp: int | None, mate: int | None) -> str:
    """``[%eval]``'s form: ``0.35``, ``-1.20``, ``#-3``."""
    if mate is not None:
        return f"#{mate}"
    return f"{(cp or 0) / 100:.2f}"


def expected_score(wdl: tuple[int, int, int], white: bool) -> float:
    """The expected score of White (``white``) or Black from White's win/draw/loss chances."""
    win, draw, loss = wdl
    total = (win + draw + loss) or 1
    own = win if white else loss
    return (own + draw / 2) / total


def swing(before: Evaluation, after: Evaluation) -> Swing | None:
    """The move from ``before`` to ``after`` (one ply later) as a mistake or a blunder of
    its mover, or None: ``{kind, side, drop}`` (``drop``: the fall of the mover's
    expected score, 0 to 1)."""
    if after.ply != before.ply + 1:
        return None
    white_moved = before.fen.split(" ")[1] == "w"
    drop = expected_score(before.wdl, white_moved) - expected_score(after.wdl, white_moved)
    drop = round(drop, 6)  # per mille chances: no float dust at a threshold
    if drop < MISTAKE_DROP:
        return None
    return {
        "kind": "blunder" if drop >= BLUNDER_DROP else "mistake",
        "side": "white" if white_moved else "black",
        "drop": round(drop, 3),
    }


def analysis_frame(
    evaluation: Evaluation, game: str, tournament: str | None, previous: Evaluation | None
) -> AnalysisFrame:
    """The ``analysis`` frame of the gateway (docs/protocol.md) for one evaluation;
    ``previous`` is the evaluation of the position before it (for ``swing``), if known."""
    body: AnalysisFrame = {
        "op": "analysis",
        "game": game,
        "ply": evaluation.ply,
        "fen": evaluation.fen,
        "at": format_instant(evaluation.at_ms) if evaluation.at_ms else None,
        "score": {"cp": evaluation.cp, "mate": evaluation.mate},
        "eval": eval_text(evaluation.cp, evaluation.mate),
        "wdl": list(evaluation.wdl),
        "pv": list(evaluation.pv_san),
        "pv_uci": list(evaluation.pv),
        "depth": evaluation.depth,
        "nodes": evaluation.nodes,
        "swing": swing(previous, evaluation) if previous is not None else None,
    }
    if tournament is not None:
        body["tournament"] = tournament
    return body
