"""Rules profiles: every choice of the regulations and Laws that can change.

A profile names the laws edition in force and carries its values, so a later
edition is a new profile, not an edit. ``candidates-2012`` is the 2012
Candidates regulations with the FIDE Laws of Chess in force in 2012 (the
2009 edition, effective 1 July 2009); ``fide-2023`` applies the Laws effective
1 January 2023 to the same event format, for comparison. Both are supervised
play: a flag is fallen when the arbiter observes it (6.8), so the engine raises
an alert and the arbiter rules. ``candidates-2012-unsupervised`` is
``candidates-2012`` for play without an arbiter at the board: the engine records
a flag fall itself when the regulation clock reaches zero. Score sheets imported
with ``import-pgn`` keep their results as facts under every profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.errors import MalformedCommand


@dataclass(frozen=True)
class Penalties:
    """What an irregularity costs in one class of game (standard, rapid, blitz).

    All durations are integer milliseconds, added to the opponent's clock.
    """

    illegal_move_ms: int
    """Laws 2009 7.4 b / 2023 7.5.5: time added to the opponent for an illegal move."""
    illegal_move_loses_at: int
    """The illegal move (counted per player per game) that loses: 3 in 2009, 2 from 2014."""
    incorrect_claim_ms: int
    """Laws 9.5 (3.7.1.b.3 in tie-break games): time added to the opponent for an
    incorrect draw claim; the claimant's own time is never reduced (2009 onward)."""
    incorrect_claim_loses_at: int | None
    """The incorrect claim that loses (3.7.1.b.3: the third, in tie-break games);
    None where the Laws set no limit."""
    illegal_move_article: str
    """Where the illegal-move penalty comes from, for messages and the record."""
    incorrect_claim_article: str
    """Where the incorrect-claim penalty comes from."""


def _penalties_2009() -> Penalties:
    """Laws 2009: 7.4 b +2 min, third illegal move loses; 9.5 +3 min to the opponent."""
    return Penalties(
        illegal_move_ms=120_000,
        illegal_move_loses_at=3,
        incorrect_claim_ms=180_000,
        incorrect_claim_loses_at=None,
        illegal_move_article="Laws 2009 7.4 b",
        incorrect_claim_article="Laws 2009 9.5",
    )


PRIZES_2012_EUR: tuple[int, ...] = (95_000, 88_000, 75_000, 55_000, 40_000, 28_000, 22_000, 17_000)
"""3.8.1: minimum prizes by place, 1st to 8th."""


@dataclass(frozen=True)
class RulesProfile:
    """The values one edition of the rules fixes."""

    name: str
    laws_edition: str
    time_control: str
    """3.5.1 in PGN TimeControl form: 120 min/40, 60 min/20, 15 min + 30 s from move 61."""
    rapid_time_control: str
    """3.7.1.a: 25 min + 10 s a move."""
    blitz_time_control: str
    """3.7.2: 5 min + 3 s a move from move 1."""
    automatic_fivefold_repetition: bool
    """Laws 2014+ 9.6.1: fivefold repetition ends the game without a claim."""
    automatic_seventyfive_moves: bool
    """Laws 2014+ 9.6.2: 75 moves without capture or pawn move end the game."""
    automatic_flag_results: bool = False
    """False (supervised play, Laws 2009 and 2023 6.8: a flag is fallen when the arbiter
    observes it): the engine raises a ``flag_fall`` alert and the arbiter rules
    (``rule_flag``). True (play without an arbiter at the board): the engine records
    the result as soon as the regulation clock reaches zero (6.9)."""
    penalties: Penalties = field(default_factory=_penalties_2009)
    """Standard games (the 14 rounds, 3.5.1)."""
    rapid_penalties: Penalties = field(default_factory=_penalties_2009)
    """Rapid tie-break games (3.7.1.a), under 3.7.1.b."""
    blitz_penalties: Penalties = field(default_factory=_penalties_2009)
    """Blitz and sudden-death tie-break games (3.7.2, 3.7.3), under 3.7.1.b."""
    default_time_ms: int = 0
    """Laws 2009 6.6 a: a player who arrives at the chessboard after the start of the
    session loses; the default time is 0 unless the event's rules say otherwise (2017+
    6.7.1: the event sets it, 0 if it does not). Another event is another profile."""

    def penalties_for(self, stage: str) -> Penalties:
        """The penalties of a game's stage (``tournament``, ``rapid``, ``blitz``,
        ``sudden_death`` ...). A playoff stage whose name says neither blitz nor
        sudden death / Armageddon is taken as rapid (3.7.1.a, the first tie-break)."""
        if stage == "tournament":
            return self.penalties
        name = stage.lower()
        if any(word in name for word in ("blitz", "sudden", "armageddon")):
            return self.blitz_penalties
        return self.rapid_penalties

    sudden_death_time_control: str = "60/300|240:0+3"
    """3.7.3.a: White 5 min, Black 4 min, 3 s a move from move 61
    (written as ``engine.clock.time_control`` reads it)."""

    def time_control_for(self, stage: str) -> str:
        """The control of a game of that stage: ``tournament`` 3.5.1; a playoff stage
        naming sudden death / Armageddon 3.7.3.a, naming blitz 3.7.2, any other 3.7.1.a
        rapid (the same reading of stage names as ``penalties_for``)."""
        if stage == "tournament":
            return self.time_control
        name = stage.lower()
        if any(word in name for word in ("sudden", "armageddon")):
            return self.sudden_death_time_control
        if "blitz" in name:
            return self.blitz_time_control
        return self.rapid_time_control

    tiebreaks: tuple[str, ...] = ("h2h", "wins", "sb")
    """The criteria after points (3.6.1) that order players level on points, in order of
    priority, by the names of the standings object: ``h2h`` (results of the games between
    the players involved), ``wins`` (number of wins), ``sb`` (Sonneborn-Berger)."""
    first_place_by_games: bool = False
    """True where a tie for first place goes straight to tie-break games and the criteria
    order only the places after first; False where the criteria decide first place too and
    only a tie they leave goes to tie-break games (2012 3.7, 3.7.1)."""
    tiebreak_source: str = "2012 regulations 3.7 a-c, then 3.7.1 tie-break games"
    """Where the chain comes from, shown with the standings."""
    cycles: int | None = 2
    """The format (3.1: "The 8 players shall play a double round robin tournament (14
    rounds)"): the cycles of the round robin; None where the profile leaves them to the
    event (``round-robin``: single or double, as created or imported)."""
    players: int | None = 8
    """The number of players the format is for (3.1, 1.1: eight); None for any."""
    prize_table_eur: tuple[int, ...] | None = PRIZES_2012_EUR
    """3.8.1: the minimum prizes by place; None where the profile knows no prize fund (an
    organiser's own round robin): no prize is computed."""
    playoff_by: str = "regulations"
    """Who settles a tie for first place left after the criteria: ``regulations`` (the
    profile's tie-break games, 3.7.1-3.7.3) or ``organiser`` (FIDE Tie-Break Regulations
    2.1, 3.1: a playoff, if any, is set by the event's own regulations; the engine names
    no winner while first place is level on points)."""

    @property
    def rounds(self) -> int | None:
        """The rounds of the whole event when the format fixes them (14 for 8 players in
        two cycles), else None."""
        if self.cycles is None or self.players is None:
            return None
        return self.cycles * (self.players - 1 if self.players % 2 == 0 else self.players)

    def format_text(self) -> str:
        """The format in words: ``double round robin of 8 players (14 rounds)``."""
        if self.cycles is None or self.players is None:
            return "single or double round robin of any number of players"
        kind = {1: "single", 2: "double"}.get(self.cycles, f"{self.cycles}-cycle")
        return f"{kind} round robin of {self.players} players ({self.rounds} rounds)"

    @property
    def is_candidates(self) -> bool:
        """A Candidates profile: its format, finality and prize fund are the regulations'."""
        return self.cycles is not None


_CHAIN_2012 = ("h2h", "wins", "sb")
"""2012 3.7: a) the games between the players involved, b) wins, c) Sonneborn-Berger.
The 2016 regulations keep the same order (3.7 a-c, tie-break games 3.7.1.a), and so does
the 2018 edition (head-to-head, wins, Sonneborn-Berger, then tie-break games)."""
_CHAIN_2022 = ("sb", "wins", "h2h")
"""2022 and 2024 regulations: first place by tie-break games; the other places by
Sonneborn-Berger, then the number of wins, then the games between the players involved,
then the drawing of lots (left here as a shared place for the arbiter to draw)."""


PROFILES: dict[str, RulesProfile] = {
    "candidates-2012": RulesProfile(
        name="candidates-2012",
        laws_edition="FIDE Laws of Chess, effective 1 July 2009",
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=False,
        automatic_seventyfive_moves=False,
        # Laws 2009 7.4 b and 9.5 in the 14 rounds.
        penalties=Penalties(
            illegal_move_ms=120_000,
            illegal_move_loses_at=3,
            incorrect_claim_ms=180_000,
            incorrect_claim_loses_at=None,
            illegal_move_article="Laws 2009 7.4 b",
            incorrect_claim_article="Laws 2009 9.5",
        ),
        # Tie-break games are supervised (an arbiter records every game,
        # 3.7.1.b.2), so Appendix A3 / B2 keep 7.4 b; 3.7.1.b.3 replaces 9.5:
        # +3 min to the opponent and the third incorrect claim loses.
        rapid_penalties=Penalties(
            illegal_move_ms=120_000,
            illegal_move_loses_at=3,
            incorrect_claim_ms=180_000,
            incorrect_claim_loses_at=3,
            illegal_move_article="Laws 2009 7.4 b (Appendix A3)",
            incorrect_claim_article="3.7.1.b.3",
        ),
        blitz_penalties=Penalties(
            illegal_move_ms=120_000,
            illegal_move_loses_at=3,
            incorrect_claim_ms=180_000,
            incorrect_claim_loses_at=3,
            illegal_move_article="Laws 2009 7.4 b (Appendix B2)",
            incorrect_claim_article="3.7.1.b.3",
        ),
    ),
    "fide-2023": RulesProfile(
        name="fide-2023",
        laws_edition="FIDE Laws of Chess, effective 1 January 2023",
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
        # Laws 2023 7.5.5 (second illegal move loses) and 9.5.3 (+2 min).
        penalties=Penalties(
            illegal_move_ms=120_000,
            illegal_move_loses_at=2,
            incorrect_claim_ms=120_000,
            incorrect_claim_loses_at=None,
            illegal_move_article="Laws 2023 7.5.5",
            incorrect_claim_article="Laws 2023 9.5.3",
        ),
        # Appendix A.3: penalties of Articles 7 and 9 are 1 minute in rapid (and,
        # in FIDE arbiters' practice, blitz); the event's own 3.7.1.b.3 still
        # governs claims in tie-break games: +3 min, the third incorrect claim loses.
        rapid_penalties=Penalties(
            illegal_move_ms=60_000,
            illegal_move_loses_at=2,
            incorrect_claim_ms=180_000,
            incorrect_claim_loses_at=3,
            illegal_move_article="Laws 2023 7.5.5, A.3",
            incorrect_claim_article="3.7.1.b.3",
        ),
        blitz_penalties=Penalties(
            illegal_move_ms=60_000,
            illegal_move_loses_at=2,
            incorrect_claim_ms=180_000,
            incorrect_claim_loses_at=3,
            illegal_move_article="Laws 2023 7.5.5, A.3 (B.3)",
            incorrect_claim_article="3.7.1.b.3",
        ),
    ),
    "candidates-2016": RulesProfile(
        name="candidates-2016",
        laws_edition="FIDE Laws of Chess, effective 1 July 2014",
        # 2016: 120 min for 40 moves, 60 min for 20, 15 min + 30 s from move 61.
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
        tiebreaks=_CHAIN_2012,
        tiebreak_source="2016 regulations 3.7 a-c, then 3.7.1.a tie-break games",
    ),
    "candidates-2018": RulesProfile(
        name="candidates-2018",
        laws_edition="FIDE Laws of Chess, effective 1 January 2018",
        # 2018: 100 min for 40 moves, 50 min for 20, 15 min, 30 s a move from move 1.
        time_control="40/6000+30:20/3000+30:900+30",
        rapid_time_control="1500+10",
        blitz_time_control="300+3",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
        tiebreaks=_CHAIN_2012,
        tiebreak_source="2018 regulations: head-to-head, wins, Sonneborn-Berger, "
        "then tie-break games (the 2016 3.7 order)",
    ),
    "candidates-2022": RulesProfile(
        name="candidates-2022",
        laws_edition="FIDE Laws of Chess, effective 1 January 2018",
        # 2022: 120 min for 40 moves, 60 min for 20, 15 min + 30 s from move 61.
        time_control="40/7200:20/3600:900+30",
        rapid_time_control="900+10",
        blitz_time_control="180+2",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
        tiebreaks=_CHAIN_2022,
        first_place_by_games=True,
        tiebreak_source="2022 regulations: first place by tie-break games; other places "
        "Sonneborn-Berger, wins, head-to-head, drawing of lots",
    ),
    "candidates-2024": RulesProfile(
        name="candidates-2024",
        laws_edition="FIDE Laws of Chess, effective 1 January 2023",
        # 2024: 120 min for 40 moves, 30 min for the rest, 30 s a move from move 41.
        time_control="40/7200:1800+30",
        rapid_time_control="900+10",
        blitz_time_control="180+2",
        automatic_fivefold_repetition=True,
        automatic_seventyfive_moves=True,
        tiebreaks=_CHAIN_2022,
        first_place_by_games=True,
        tiebreak_source="2024 regulations: first place by tie-break games; other places "
        "Sonneborn-Berger, wins, head-to-head, drawing of lots",
    ),
}

# From the 2014 Laws on, the second illegal move loses (7.5.5 in 2023): the later Candidates
# profiles take the penalties of ``fide-2023`` (Laws 2014 7.5.2 and 9.5 had the same values).
for _name in ("candidates-2016", "candidates-2018", "candidates-2022", "candidates-2024"):
    _later = PROFILES["fide-2023"]
    PROFILES[_name] = replace(
        PROFILES[_name],
        penalties=_later.penalties,
        rapid_penalties=_later.rapid_penalties,
        blitz_penalties=_later.blitz_penalties,
    )

PROFILES["candidates-2012-unsupervised"] = replace(
    PROFILES["candidates-2012"], name="candidates-2012-unsupervised", automatic_flag_results=True
)
"""The same event played without an arbiter at every board (simulations, training, the
demo): flag falls are recorded from the regulation clock, as 6.9 reads."""

_CHAIN_ROUND_ROBIN = ("h2h", "wins", "sb", "koya")
"""FIDE's tie-breaks for individual round robins (Handbook C.02, Standards of chess
equipment ... and tie-break regulations, 2017, Article 13: "Individual round-robin
tournaments": direct encounter, the greater number of wins, Sonneborn-Berger, Koya
system); the Tie-Break Regulations of 2023 (Handbook C.07) keep them as the round-robin
choices and leave the list, and any playoff, to the event's regulations (2.1, 3.1, 4.1)."""

PROFILES["round-robin"] = replace(
    PROFILES["candidates-2012"],
    name="round-robin",
    time_control="?",
    tiebreaks=_CHAIN_ROUND_ROBIN,
    first_place_by_games=False,
    tiebreak_source="FIDE Handbook C.02 (2017) 13, individual round robins: direct "
    "encounter, wins, Sonneborn-Berger, Koya; a playoff is the organiser's (C.07 2023, 3.1)",
    cycles=None,
    players=None,
    prize_table_eur=None,
    playoff_by="organiser",
)
"""A round robin that is not a Candidates (an invitational, a Grand Chess Tour event): the
2009 Laws' play rules (no automatic fivefold or 75-move draw, which would rewrite older
score sheets; another edition is another profile), points, then FIDE's round-robin
tie-breaks; any number of players
and cycles; no prize fund; a tie for first place left on points is settled by the
organiser's own regulations (a playoff, or the tie-breaks), so no winner is named then.
The time control is unknown (``?``) unless the games give theirs."""

DEFAULT_PROFILE = "candidates-2012"


def profile(name: str) -> RulesProfile:
    """The profile of that name; a clear error naming the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise MalformedCommand(f"unknown rules profile {name!r}; known: {known}") from None
