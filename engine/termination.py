"""How a game ended: the ``termination`` a ``ResultRecorded`` carries.

The values are those stores and replay logs have always held. A draw by an
accepted claim ends with the claim's kind (``engine.arbiter.claim_verification.ClaimKind``),
so every kind is a termination too. The arbiter's ``declare_result`` may name a
termination of his own words (the arbiter is sovereign); a game's
``termination`` is therefore read as text, and compared with these members.
"""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    # The position ends the game (Laws 5.1, 5.2, 9.6; the 2014+ automatic rules).
    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    INSUFFICIENT_MATERIAL = "insufficient_material"
    SEVENTYFIVE_MOVES = "seventyfive_moves"
    FIVEFOLD_REPETITION = "fivefold_repetition"
    # A player ends it (Laws 5.1 b), or the clock does (6.9).
    RESIGNATION = "resignation"
    TIME_FORFEIT = "time_forfeit"
    FLAG_FALL_DRAW = "flag_fall_draw"
    BOTH_FLAGS_FALLEN = "both_flags_fallen"
    """Laws 2009 6.11: both flags down in the last period, which fell first unknown: drawn."""
    # A draw claim accepted (3.9.2 b; Laws 9.2, 9.3): the claim's kind.
    THREEFOLD_REPETITION = "threefold_repetition"
    FIFTY_MOVES = "fifty_moves"
    PERPETUAL_CHECK = "perpetual_check"
    THEORETICAL_DRAW = "theoretical_draw"
    DEAD_POSITION = "dead_position"
    """Laws 2009 5.2 b: a position in which neither player can checkmate by any series of
    legal moves, ruled by the arbiter (with the engine's evidence) where the material alone
    does not show it (insufficient material is drawn at once)."""
    # Penalties (Laws 7.4; 9.5 and 3.7.1.b.3) and the arbiter's rulings.
    ILLEGAL_MOVES = "illegal_moves"
    INCORRECT_CLAIMS = "incorrect_claims"
    ARBITER_DECISION = "arbiter_decision"
    DEFAULT = "default"
    """Lost by default after a withdrawal (3.1, 3.3.3), or by a player absent at the start
    (Laws 2009 6.6 a, ``rule_default``)."""
    PENALTY = "penalty"
    """Ended by an arbiter's penalty (Laws 2009 13.4 d, f; 12.3 b): the incident book."""
    IMPORTED = "imported"
    """The result of an imported score sheet, taken as recorded."""


DRAW_TERMINATIONS = frozenset(
    {
        Termination.STALEMATE,
        Termination.INSUFFICIENT_MATERIAL,
        Termination.DEAD_POSITION,
        Termination.THREEFOLD_REPETITION,
        Termination.FIFTY_MOVES,
        Termination.PERPETUAL_CHECK,
        Termination.THEORETICAL_DRAW,
        Termination.FLAG_FALL_DRAW,
        Termination.BOTH_FLAGS_FALLEN,
        Termination.ARBITER_DECISION,
    }
)
"""The closed list of the ways a game is drawn other than by the position on the board
or a claim's ruling that a draw may be *declared* with (3.9.2 b: never by agreement):
stalemate and a dead position (Laws 2009 5.2 a, b), a claim upheld (9.2, 9.3, the 2012
regulations' 3.9.2 b claims), a flag fall against a lone king or both flags in the last
period (6.9, 6.11), and the arbiter's decision citing the article it applies."""

ON_TIME = (Termination.TIME_FORFEIT, Termination.FLAG_FALL_DRAW, Termination.BOTH_FLAGS_FALLEN)
"""The game ended when a flag fell (Laws 6.9): lost, or drawn against a lone king; or
both flags fell in the last period in an unknown order (6.11): drawn."""
