"""Points (3.6.1) and the tie-breaks of 3.7 a-c over the round-robin games.

3.6.1: 1 point for a win, 1/2 for a draw, 0 for a loss, as ``fractions.Fraction``,
never float. 3.7 orders players level on points by a) their games among themselves,
b) their wins, c) Sonneborn-Berger, applied to the whole level group in order with no
restart; how games lost by default and withdrawals count is said in docs/tournament.md
("Interpretations", "Withdrawals")."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from engine.game.state import FINISHED, Game
from engine.scores import POINTS, game_points
from engine.termination import Termination
from engine.tournament.pairing import table_size
from engine.tournament.tournament import Tournament

ANNULLED = "annulled"
DEFAULTS = "defaults"
FIRST_ROUND_DEFAULT = "first_round_default"
DEFAULT_TERMINATION = Termination.DEFAULT
"""The termination of a game lost by default (3.1, 3.3.3)."""

CRITERIA = ("points", "h2h", "wins", "sb")
"""The order of 3.6.1 and 3.7 a-c, by the names of the standings object."""


@dataclass(frozen=True)
class ScoredGame:
    """One finished round-robin game as the standings count it."""

    game: str
    round: int
    white: str
    black: str
    result: str
    by_default: bool = False
    scores: str | None = None
    """The players' own scores where a ruling gave each his own (``engine.scores``:
    0 - 1/2 under Laws 2009 12.3 b, 0 - 0 for a double default)."""


@dataclass(frozen=True)
class Line:
    """One player's totals over the counted games."""

    player: str
    points: Fraction
    games: int
    wins: int
    sb: Fraction
    koya: Fraction = Fraction(0)
    """Koya: points scored against the opponents who scored 50% or more of their games
    (FIDE's round-robin tie-break; the ``round-robin`` profile)."""


def annulled_players(tournament: Tournament, after_round: int | None = None) -> set[str]:
    """Players whose results are annulled (3.1, under 50%) as of the end of ``after_round``."""
    return {
        w.player
        for w in tournament.withdrawals
        if w.rule == ANNULLED and (after_round is None or after_round >= w.effective_round)
    }


def round_robin_games(
    tournament: Tournament, games: Iterable[Game], after_round: int | None = None
) -> list[ScoredGame]:
    """The finished round-robin games that count after ``after_round`` (all when None)."""
    players = {p.id for p in tournament.players}
    annulled = annulled_players(tournament, after_round)
    out: list[ScoredGame] = []
    for g in games:
        if g.stage != "tournament" or g.status != FINISHED:
            continue
        if game_points(g.result, g.scores) is None:
            continue
        if g.white not in players or g.black not in players:
            continue
        if after_round is not None and g.round > after_round:
            continue
        if g.white in annulled or g.black in annulled:
            continue
        out.append(
            ScoredGame(
                g.game_id,
                g.round,
                g.white,
                g.black,
                g.result,
                g.termination == DEFAULT_TERMINATION,
                g.scores,
            )
        )
    return sorted(out, key=lambda s: (s.round, s.game))


HALF_POINTS = {result: (int(2 * w), int(2 * b)) for result, (w, b) in POINTS.items()}
"""Each result's score in half points, White's then Black's (3.6.1: 1, 1/2, 0)."""


def half_points_of(game: ScoredGame) -> tuple[int, int]:
    """White's and Black's own scores in the game, in half points (the ruling's where it
    gave each player his own, Laws 2009 12.3 b; else the result's)."""
    if game.scores is None and game.result in HALF_POINTS:
        return HALF_POINTS[game.result]
    points = game_points(game.result, game.scores)
    assert points is not None, f"game {game.game} has no result"
    return int(2 * points[0]), int(2 * points[1])


@dataclass(frozen=True)
class Tally:
    """What 3.6.1 and 3.7 a-c read from the games, added up once: each player's score
    against each opponent (in half points), wins and games played.

    Everything the criteria need follows from it: points are the sum of the scores,
    (a) the scores against the members of a group, (b) the wins, (c) each score times
    that opponent's points. A tally of the games so far can be extended by a few more
    games (``with_games``) without adding the others up again: what the scenarios of
    ``projections.scenarios`` do thousands of times."""

    players: tuple[str, ...]
    against: Mapping[str, Mapping[str, int]]
    """player -> opponent -> half points the player scored against him."""
    wins: Mapping[str, int]
    games: Mapping[str, int]

    def with_games(self, games: Iterable[ScoredGame]) -> Tally:
        """This tally plus ``games`` (a new tally; this one is unchanged)."""
        against = {p: dict(row) for p, row in self.against.items()}
        wins, played = dict(self.wins), dict(self.games)
        _add(against, wins, played, games)
        return Tally(self.players, against, wins, played)

    def half_points(self) -> dict[str, int]:
        """Each player's points (3.6.1) in half points."""
        return {p: sum(self.against[p].values()) for p in self.players}


def _add(
    against: dict[str, dict[str, int]],
    wins: dict[str, int],
    played: dict[str, int],
    games: Iterable[ScoredGame],
) -> None:
    for g in games:
        white, black = half_points_of(g)
        for me, other, score in ((g.white, g.black, white), (g.black, g.white, black)):
            row = against.get(me)
            if row is None:
                continue
            row[other] = row.get(other, 0) + score
            played[me] += 1
            wins[me] += score == 2


def tally(players: Sequence[str], games: Iterable[ScoredGame]) -> Tally:
    """The tally of ``games`` for ``players`` (games against others count for the player
    in points and wins; an opponent outside ``players`` has no points for 3.7 c)."""
    against: dict[str, dict[str, int]] = {p: {} for p in players}
    wins, played = dict.fromkeys(players, 0), dict.fromkeys(players, 0)
    _add(against, wins, played, games)
    return Tally(tuple(players), against, wins, played)


def lines_of(counted: Tally) -> dict[str, Line]:
    """Points (3.6.1), games, wins (3.7 b) and Sonneborn-Berger (3.7 c) of every player."""
    points = counted.half_points()
    # Koya: the opponents who scored 50% or more of their games
    strong = {p for p in counted.players if counted.games[p] and points[p] >= counted.games[p]}
    out: dict[str, Line] = {}
    for p in counted.players:
        row = counted.against[p]
        # (c): the score against each opponent times his points (halves times halves)
        sb = sum(score * points.get(q, 0) for q, score in row.items())
        koya = sum(score for q, score in row.items() if q in strong)
        out[p] = Line(
            p,
            Fraction(points[p], 2),
            counted.games[p],
            counted.wins[p],
            Fraction(sb, 4),
            Fraction(koya, 2),
        )
    return out


def lines(players: Sequence[str], games: Sequence[ScoredGame]) -> dict[str, Line]:
    """Points (3.6.1), games, wins (3.7 b) and Sonneborn-Berger (3.7 c) of every player."""
    return lines_of(tally(players, games))


def group_scores(group: Iterable[str], counted: Tally) -> dict[str, Fraction]:
    """3.7 a: each player's points in the games between the players of the group."""
    members = set(group)
    return {
        p: Fraction(sum(s for q, s in counted.against.get(p, {}).items() if q in members), 2)
        for p in members
    }


def head_to_head(group: Iterable[str], games: Sequence[ScoredGame]) -> dict[str, Fraction]:
    """3.7 a: each player's points in the games between the players of the group."""
    members = list(dict.fromkeys(group))
    return group_scores(members, tally(members, games))


@dataclass(frozen=True)
class Ranking:
    """The order after points and the tie-break criteria: tiers of players still level."""

    tiers: tuple[tuple[str, ...], ...]
    lines: Mapping[str, Line]
    h2h: Mapping[str, Fraction | None]
    """3.7 a value over the player's points group; None when alone on his points."""
    chain: tuple[str, ...] = CRITERIA[1:]
    """The criteria after points, in order (the rules profile's ``tiebreaks``)."""

    def value(self, player: str, criterion: str) -> Fraction:
        line = self.lines[player]
        if criterion == "points":
            return line.points
        if criterion == "h2h":
            return self.h2h[player] or Fraction(0)
        if criterion == "wins":
            return Fraction(line.wins)
        if criterion == "sb":
            return line.sb
        if criterion == "koya":
            return line.koya
        raise ValueError(f"unknown tie-break criterion {criterion!r}")

    def key(self, player: str) -> tuple[Fraction, ...]:
        return tuple(self.value(player, c) for c in ("points", *self.chain))

    def separating_criterion(self, ahead: str, behind: str) -> str | None:
        """The first criterion (points, then the chain) on which ``ahead`` is before ``behind``."""
        for name, a, b in zip(
            ("points", *self.chain), self.key(ahead), self.key(behind), strict=True
        ):
            if a != b:
                return name
        return None


def rank(
    players: Sequence[str],
    games: Sequence[ScoredGame],
    chain: Sequence[str] = CRITERIA[1:],
    first_place_by_games: bool = False,
    reductions: Mapping[str, Fraction] | None = None,
    counted: Tally | None = None,
) -> Ranking:
    """Order the players by points, then each points group by the chain's criteria in turn
    (2012 3.7 a, b, c by default). With ``first_place_by_games`` (2022, 2024) the players
    level on points for first place stay one tier: tie-break games decide among them.

    ``reductions``: points taken from players by the arbiter (Laws 2009 13.4 e); they
    lower the points of 3.6.1 only, the tie-breaks are those of the games as played.

    ``counted``: the tally of ``games`` when the caller has it already (the scenarios
    extend one tally of the games so far); ``games`` is then not read."""
    if counted is None:
        counted = tally(players, games)
    table = lines_of(counted)
    if reductions:
        table = {
            p: replace(line, points=line.points - reductions.get(p, Fraction(0)))
            for p, line in table.items()
        }
    h2h: dict[str, Fraction | None] = dict.fromkeys(players)
    for value in {line.points for line in table.values()}:
        group = [p for p in players if table[p].points == value]
        if len(group) > 1:
            h2h.update(group_scores(group, counted))
    ranking = Ranking((), table, h2h, tuple(chain))
    ordered = sorted(players, key=lambda p: (tuple(-x for x in ranking.key(p)), p))
    top = max((line.points for line in table.values()), default=Fraction(0))
    tiers: list[tuple[str, ...]] = []
    for p in ordered:
        level = ranking.key(tiers[-1][0]) == ranking.key(p) if tiers else False
        if tiers and first_place_by_games and table[p].points == top:
            level = table[tiers[-1][0]].points == top
        if level:
            tiers[-1] = (*tiers[-1], p)
        else:
            tiers.append((p,))
    return Ranking(tuple(tiers), table, h2h, tuple(chain))


def withdrawn_behind(
    tiers: Sequence[tuple[str, ...]], withdrawn: Iterable[str]
) -> list[tuple[str, ...]]:
    """A withdrawn player cannot play tie-break games (3.1: the rest of his games are lost
    by default): in a tie that survives 3.7 a-c he is placed behind the others."""
    gone = set(withdrawn)
    out: list[tuple[str, ...]] = []
    for tier in tiers:
        staying = tuple(p for p in tier if p not in gone)
        leaving = tuple(p for p in tier if p in gone)
        out.extend(t for t in (staying, leaving) if t)
    return out


def ranked_players(tournament: Tournament, after_round: int | None = None) -> list[str]:
    """The players the standings rank: everyone but those whose results are annulled."""
    gone = annulled_players(tournament, after_round)
    return [p.id for p in tournament.players if p.id not in gone]


def expected_pairings(
    tournament: Tournament, after_round: int | None = None
) -> list[tuple[int, str, str]]:
    """(round, white, black) of every round-robin game that must be finished to complete
    the rounds up to ``after_round`` (all rounds when None), given the withdrawals."""
    withdrawn = {w.player: w for w in tournament.withdrawals}
    out: list[tuple[int, str, str]] = []
    for game_id, (white, black) in tournament.round_robin_pairings().items():
        round_no = int(game_id.split(".")[0])
        if after_round is not None and round_no > after_round:
            continue
        excused = False
        for pid in (white, black):
            w = withdrawn.get(pid)
            if w is None:
                continue
            if w.rule == ANNULLED and (after_round is None or after_round >= w.effective_round):
                excused = True
            if w.rule == FIRST_ROUND_DEFAULT and round_no != w.effective_round:
                excused = True
        if not excused:
            out.append((round_no, white, black))
    return out


def is_complete(
    tournament: Tournament, scored: Sequence[ScoredGame], after_round: int | None = None
) -> bool:
    """Every round-robin game up to ``after_round`` has a counted result.

    Completion follows the results, not the table: with pairing numbers, every pairing
    of the table is played; and whatever table produced the games (organisers' own
    tables, colours other than Berger's, no lots recorded), the event is complete when
    every pair of players still counted has played its ``cycles`` games (3.1) and every
    round up to ``after_round`` has its games.
    """
    if tournament.numbers is not None:
        done = {(g.round, frozenset((g.white, g.black))) for g in scored}
        if all(
            (r, frozenset((w, b))) in done for r, w, b in expected_pairings(tournament, after_round)
        ):
            return True
    return _complete_by_results(tournament, scored, after_round)


def _complete_by_results(
    tournament: Tournament, scored: Sequence[ScoredGame], after_round: int | None
) -> bool:
    """Every pair of the players still counted met ``cycles`` times (all rounds), or every
    round up to ``after_round`` has a game for each pair of the players then playing."""
    players = ranked_players(tournament, after_round)
    excused = {w.player for w in tournament.withdrawals if w.rule == FIRST_ROUND_DEFAULT}
    active = [p for p in players if p not in excused]
    last = tournament.rounds if after_round is None else min(after_round, tournament.rounds)
    counted = [g for g in scored if g.round <= last]
    if last >= tournament.rounds:
        met: dict[frozenset[str], int] = {}
        for g in counted:
            pair = frozenset((g.white, g.black))
            met[pair] = met.get(pair, 0) + 1
        return all(
            met.get(frozenset((a, b)), 0) >= tournament.cycles
            for i, a in enumerate(active)
            for b in active[i + 1 :]
        )
    per_round = len(active) // 2
    games_in = {r: 0 for r in range(1, last + 1)}
    for g in counted:
        games_in[g.round] = games_in.get(g.round, 0) + 1
    return all(n >= per_round for n in games_in.values())


Lookup = Callable[[str], Game | None]


def round_robin_states(tournament: Tournament, lookup: Lookup) -> dict[str, Game]:
    """Every round-robin game that has a stream, by its pairing's game id.

    A game imported from a score sheet keeps the board number of its source,
    which need not be the Berger board: a pairing is matched to the game of
    its round with the same two players, whatever the board. Without pairing
    numbers (an imported event whose games fit no Berger table) every
    round-robin game found is returned by its own id: the results, not the
    table, say what was played.
    """
    pairings = tournament.round_robin_pairings()
    boards = table_size(len(tournament.players)) // 2
    by_players: dict[tuple[int, frozenset[str]], Game] = {}
    found_games: dict[str, Game] = {}
    for round_no in range(1, tournament.rounds + 1):
        for board in range(1, boards + 1):
            game = lookup(f"{round_no}.{board}")
            if game is not None and game.stage == "tournament":
                by_players[(round_no, frozenset((game.white, game.black)))] = game
                found_games[game.game_id] = game
    if tournament.numbers is None:
        return found_games
    out: dict[str, Game] = {}
    for game_id, (white, black) in pairings.items():
        found = by_players.get((int(game_id.split(".")[0]), frozenset((white, black))))
        if found is not None:
            out[game_id] = found
    return out
