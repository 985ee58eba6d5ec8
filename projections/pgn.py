"""PGN export of a game: the seven standard tags, TimeControl, the moves, the result.

The arbiter's corrections (``correct_moves``, ``correct_result``) are written as
comments at the point of correction: after the last move that stood (before the
first move when the whole line was replaced), and after the last move for a
result, each naming the arbiter, the instant, what was replaced and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import chess
import chess.pgn

from engine.events import MovesCorrected, ResultCorrected
from engine.game.state import Game
from engine.timefmt import clock_text, format_instant

PGN_TERMINATION = {
    "time_forfeit": "time forfeit",
    "flag_fall_draw": "time forfeit",
    "arbiter_decision": "adjudication",
    "default": "abandoned",
    "illegal_moves": "rules infraction",
    "incorrect_claims": "rules infraction",
    "penalty": "rules infraction",
    "imported": "normal",
}
"""Our termination names -> the PGN standard's Termination values (8.1.1.7); else normal."""


def correction_comment(event: MovesCorrected | ResultCorrected) -> str:
    """A correction in words, for a PGN comment (no braces inside)."""
    who = f"{event.arbiter}, {format_instant(event.at_ms)}"
    if isinstance(event, MovesCorrected):
        was = " ".join(event.replaced_san) or "no move"
        now = " ".join(event.san) or "no move"
        text = (
            f"Corrected by the arbiter ({who}): the moves after ply {event.from_ply} were "
            f"{was}, now {now}"
        )
        if event.white_ms is not None or event.black_ms is not None:
            shown = [
                f"{side} {clock_text(ms)}"
                for side, ms in (("white", event.white_ms), ("black", event.black_ms))
                if ms is not None
            ]
            text += "; clock set to " + ", ".join(shown)
    else:
        was = f"{event.replaced_result} ({event.replaced_termination})"
        now = f"{event.result} ({event.termination})" if event.result else "withdrawn, play resumed"
        text = f"Result corrected by the arbiter ({who}): {was}, now {now}"
    reason = event.reason.replace("{", "(").replace("}", ")").rstrip(". ")
    return f"{text}. Reason: {reason}."


def pgn_date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y.%m.%d")


def game_pgn(
    game: Game,
    *,
    event: str = "?",
    site: str = "?",
    names: dict[str, str] | None = None,
    clocks_ms: Sequence[int | None] | None = None,
) -> str:
    """The game as PGN text (export format).

    ``clocks_ms``: the mover's clock after each ply (``projections.clock.move_clocks``),
    written as ``[%clk h:mm:ss]`` after every move (PGN supplement, 2001).
    """
    names = names or {}
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    pgn = chess.pgn.Game()
    pgn.headers["Event"] = event
    pgn.headers["Site"] = site
    pgn.headers["Date"] = pgn_date(game.started_at_ms) if game.started_at_ms else "????.??.??"
    pgn.headers["Round"] = game.game_id
    pgn.headers["White"] = names.get(game.white, game.white)
    pgn.headers["Black"] = names.get(game.black, game.black)
    pgn.headers["Result"] = game.result
    pgn.headers["TimeControl"] = game.time_control
    if game.initial_fen:
        pgn.setup(board)
    if game.termination:
        pgn.headers["Termination"] = PGN_TERMINATION.get(game.termination, "normal")
    notes: dict[int, list[str]] = {}
    for correction in game.corrections:
        if isinstance(correction, MovesCorrected):
            ply = min(correction.from_ply, len(game.moves))
        else:
            ply = len(game.moves)
        notes.setdefault(ply, []).append(correction_comment(correction))
    node: chess.pgn.GameNode = pgn
    pgn.comment = " ".join(notes.get(0, []))
    for index, uci in enumerate(game.moves):
        node = node.add_variation(chess.Move.from_uci(uci))
        clock_ms = clocks_ms[index] if clocks_ms and index < len(clocks_ms) else None
        parts = [f"[%clk {clock_text(clock_ms)}]"] if clock_ms is not None else []
        parts.extend(notes.get(index + 1, []))
        node.comment = " ".join(parts)
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)
