"""The standings object of the contract, after any round (3.6.1, 3.7, 3.7.1-3.7.4, 3.8).

Points of the round-robin games, the rows ordered by the profile's tie-break chain
over each whole points group and, once every round is over, by the playoffs; the
winner, what a playoff needs next, the prizes, and the arbiters' rulings that changed
anything (``notes``). Ranks are shared by players still level; fractions internally,
numbers on the wire. The object and how it is computed are in docs/tournament.md,
"Standings"; the interpretations in ``engine.standings.tiebreaks``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Annotated, Literal, NotRequired, TypedDict, overload

from msgspec import Meta

from engine.arbiter.incident_book import IncidentBook
from engine.game.state import FINISHED, Game
from engine.rules import profile
from engine.scores import game_points, score_text
from engine.standings.tiebreaks import (
    ANNULLED,
    Ranking,
    is_complete,
    rank,
    ranked_players,
    round_robin_games,
    withdrawn_behind,
)
from engine.termination import Termination
from engine.tournament.playoff import DECIDED, RAPID, START_STAGE, Progress, refine
from engine.tournament.tournament import Tournament, Withdrawal
from projections.prizes import Prize, PrizeFund, prizes_object
from projections.shapes import Count, Number, Ordinal

DecidedBy = Literal["points", "h2h", "wins", "sb", "koya", "withdrawal", "playoff"]


class StandingsRow(TypedDict):
    """One player's line: rank, points, games, wins and tie-break scores (3.7)."""

    rank: Ordinal
    player: str
    name: str
    points: Number
    games: int
    wins: int
    h2h: Number | None
    sb: Number | None
    koya: NotRequired[Number | None]
    withdrawn: str | None


class FirstPlace(TypedDict):
    """First place and the criterion that put him there."""

    player: str
    decided_by: str | None


class Playoff(TypedDict):
    """What a place needs next: the stage, the players in contention, its games."""

    needed: bool
    place: NotRequired[int]
    stage: str | None
    series: NotRequired[int]
    action: NotRequired[str]
    players: list[str]
    games: list[str]
    pending: NotRequired[list[str]]


class TiebreakChain(TypedDict):
    """The chain that ordered the rows: the rules profile, its criteria, who decides first
    place, and the regulation it comes from."""

    rules: str
    criteria: list[str]
    first_place: Literal["organiser", "tie-break games", "criteria"]
    source: str


class SharedPlaces(TypedDict):
    places: list[int]
    players: list[str]


class WithdrawnEntry(TypedDict):
    """A withdrawal (3.1) and, once ruled, whether its reason was satisfactory (3.3.4)."""

    player: str
    rule: str
    games_completed: int
    games_total: int
    effective_round: int
    annulled: bool
    reason_satisfactory: NotRequired[bool]


class Note(TypedDict):
    """What an arbiter's ruling changed in the table, with its article."""

    player: str
    article: str
    note: str


class Standings(TypedDict):
    """The standings after a round: points, tie-breaks (3.7), winner or leader, playoffs,
    prizes (`candidates standings --format json`)."""

    tournament: str
    after_round: Count
    rounds: Count
    final: bool
    rows: list[StandingsRow]
    winner: FirstPlace | None
    tiebreaks: TiebreakChain
    format: str
    leader: FirstPlace | None
    playoff: Playoff
    playoffs: list[Playoff]
    shared_places: list[SharedPlaces]
    prizes: list[Prize]
    prize_fund: PrizeFund | None
    withdrawn: list[WithdrawnEntry]
    first_place_level: NotRequired[
        Annotated[
            list[str],
            Meta(description="the players level on points for first place (organiser's call)"),
        ]
    ]
    notes: NotRequired[list[Note]]


class CrosstableCell(TypedDict):
    """One game against one opponent."""

    round: int
    game: str
    colour: Literal["white", "black"]
    score: str
    default: bool
    annulled: bool


class CrosstableLine(TypedDict):
    """One player's results, against each opponent in round order."""

    rank: int | None
    number: int | None
    player: str
    name: str
    federation: str
    rating: Number
    points: Number | None
    results: dict[str, list[CrosstableCell]]


class Crosstable(TypedDict):
    """Every result against every opponent, players in drawn-number order until there are
    results, then by rank (`candidates crosstable --format json`)."""

    tournament: str
    after_round: int
    players: list[CrosstableLine]


@overload
def number(value: Fraction) -> int | float: ...
@overload
def number(value: Fraction | None) -> int | float | None: ...
def number(value: Fraction | None) -> int | float | None:
    """A fraction on the wire: int when whole, else float (8.5)."""
    if value is None:
        return None
    return int(value) if value.denominator == 1 else float(value)


def playoff_summary(prog: Progress) -> Playoff:
    """The contract's ``playoff`` object for one playoff's progress."""
    return {
        "needed": prog.action != DECIDED,
        "place": prog.place,
        "stage": prog.stage,
        "series": prog.series,
        "action": prog.action,
        "players": list(prog.players),
        "games": list(prog.games),
        "pending": list(prog.pending),
    }


NO_PLAYOFF: Playoff = {"needed": False, "stage": None, "players": [], "games": []}


def _decided_by(ranking: Ranking, order: Sequence[tuple[str, ...]]) -> FirstPlace | None:
    """The first place and the criterion that put him there, or None while tied."""
    if not order or len(order[0]) != 1:
        return None
    first = order[0][0]
    if len(ranking.tiers[0]) > 1:
        return {"player": first, "decided_by": "playoff"}
    if len(order) == 1:
        return {"player": first, "decided_by": "points"}
    return {"player": first, "decided_by": ranking.separating_criterion(first, order[1][0])}


def _level_on_points_for_first(ranking: Ranking, order: Sequence[tuple[str, ...]]) -> list[str]:
    """The players level on points for first place (two or more), in table order."""
    flat = [p for tier in order for p in tier]
    if not flat:
        return []
    top = ranking.lines[flat[0]].points
    level = [p for p in flat if ranking.lines[p].points == top]
    return level if len(level) > 1 else []


def playoff_results(tournament: Tournament, games: Iterable[Game]) -> dict[str, str]:
    ids = {gid for p in tournament.playoffs for gid in p.game_ids()}
    return {g.game_id: g.result for g in games if g.game_id in ids and g.status == FINISHED}


def standings(
    tournament: Tournament,
    games: Iterable[Game],
    after_round: int | None = None,
    prize_table: Sequence[int] | None = None,
    book: IncidentBook | None = None,
) -> Standings:
    """The standings object after ``after_round``; when None, after the latest round
    with a game played (its finished games, and every earlier result). ``book``: the
    incident book, for the points the arbiters took (13.4 e) and the notes."""
    all_games = list(games)
    scored = round_robin_games(tournament, all_games, after_round)
    if after_round is not None:
        shown_round = after_round
    elif is_complete(tournament, scored):
        shown_round = tournament.rounds
    else:
        # the latest round with a game actually played: defaults recorded ahead for a
        # withdrawn player's later rounds count when their round comes
        played = [g.round for g in scored if not g.by_default]
        shown_round = max(played or [g.round for g in scored] or [0])
        scored = [g for g in scored if g.round <= shown_round]
    players = ranked_players(tournament, after_round)
    reductions = book.points_reduced(shown_round) if book is not None else {}
    rules = profile(tournament.rules)
    ranking = rank(players, scored, rules.tiebreaks, rules.first_place_by_games, reductions)
    final = shown_round >= tournament.rounds and is_complete(tournament, scored, after_round)
    order: list[tuple[str, ...]] = list(ranking.tiers)
    progress: dict[int, Progress] = {}
    by_organiser = rules.playoff_by == "organiser"
    if final and not by_organiser:
        tiers = withdrawn_behind(ranking.tiers, (w.player for w in tournament.withdrawals))
        order, progress = refine(tiers, tournament.playoffs, playoff_results(tournament, all_games))
    names = {p.id: p.name for p in tournament.players}
    withdrawn = {w.player: w.rule for w in tournament.withdrawals}
    rows: list[StandingsRow] = []
    for tier in order:
        rank_no = len(rows) + 1
        for player in tier:
            line = ranking.lines[player]
            row: StandingsRow = {
                "rank": rank_no,
                "player": player,
                "name": names.get(player, player),
                "points": number(line.points),
                "games": line.games,
                "wins": line.wins,
                "h2h": number(ranking.h2h[player]),
                "sb": number(line.sb),
                "koya": number(line.koya),
                "withdrawn": withdrawn.get(player),
            }
            if "koya" not in rules.tiebreaks:
                del row["koya"]
            rows.append(row)
    leader = _decided_by(ranking, order) if scored else None
    playoff: Playoff = {**NO_PLAYOFF}
    level_first = _level_on_points_for_first(ranking, order)
    if by_organiser:
        pass  # a playoff, if any, is the organiser's (FIDE Tie-Break Regulations 3.1)
    elif 1 in progress or (final and len(order[0]) > 1):
        prog = progress.get(1)
        if prog is None:
            playoff = {
                "needed": True,
                "place": 1,
                "stage": RAPID,
                "series": 1,
                "action": START_STAGE,
                "players": list(order[0]),
                "games": [],
                "pending": [],
            }
        else:
            playoff = playoff_summary(prog)
    prizes: list[Prize] = []
    fund: PrizeFund | None = None
    if prize_table is None:
        prize_table = rules.prize_table_eur
    if final and prize_table is not None:
        flat = [p for tier in order for p in tier]
        points = {p: ranking.lines[p].points for p in flat}
        prize_detail = prizes_object(flat, points, withdrawn, prize_table)
        prizes = prize_detail["prizes"]
        fund = {
            "fund_eur": prize_detail["fund_eur"],
            "retained_by_fide_eur": prize_detail["retained_by_fide_eur"],
        }
    shared: list[SharedPlaces] = []
    start = 1
    for tier in order:
        if len(tier) > 1:
            shared.append({"places": [start, start + len(tier) - 1], "players": list(tier)})
        start += len(tier)
    table: Standings = {
        "tournament": tournament.id,
        "after_round": shown_round,
        "rounds": tournament.rounds,
        "final": final,
        "rows": rows,
        "winner": leader if final and not (by_organiser and level_first) else None,
        "tiebreaks": {
            "rules": rules.name,
            "criteria": list(rules.tiebreaks),
            "first_place": "organiser"
            if by_organiser
            else "tie-break games"
            if rules.first_place_by_games
            else "criteria",
            "source": rules.tiebreak_source,
        },
        "format": rules.format_text(),
        "leader": leader,
        "playoff": playoff,
        "playoffs": [playoff_summary(p) for p in progress.values()],
        "shared_places": shared,
        "prizes": prizes,
        "prize_fund": fund,
        "withdrawn": [
            _withdrawn_entry(w, w.rule == ANNULLED and w.player not in players, book)
            for w in tournament.withdrawals
        ],
    }
    if by_organiser and final and level_first:
        # the criteria order the table; who wins is the organiser's regulations' call
        table["first_place_level"] = level_first
    ruled = notes(tournament, book, shown_round)
    if ruled:  # only then: tables recorded before the incident book stay identical
        table["notes"] = ruled
    return table


def _withdrawn_entry(w: Withdrawal, annulled: bool, book: IncidentBook | None) -> WithdrawnEntry:
    """A withdrawal as the table lists it; 3.3.4: ``reason_satisfactory`` once the Chief
    Arbiter has ruled on its reason."""
    entry: WithdrawnEntry = {
        "player": w.player,
        "rule": w.rule,
        "games_completed": w.games_completed,
        "games_total": w.games_total,
        "effective_round": w.effective_round,
        "annulled": annulled,
    }
    ruling = book.reason_ruling(w.player) if book is not None else None
    if ruling is not None:
        entry["reason_satisfactory"] = ruling.satisfactory
    return entry


def notes(tournament: Tournament, book: IncidentBook | None, shown_round: int) -> list[Note]:
    """What the arbiters' rulings changed in the table, with the article of each."""
    if book is None:
        return []
    out: list[Note] = []
    for r in book.reductions:
        if r.round is None or r.round <= shown_round:
            where = f" in round {r.round}" if r.round is not None else ""
            out.append(
                {
                    "player": r.player,
                    "article": "Laws 2009 13.4 e",
                    "note": f"{number(r.points)} point(s) taken by the arbiter{where} "
                    f"(incident {r.incident})",
                }
            )
    for incident in book.incidents:
        if incident.penalty == "expelled" and incident.player:
            out.append(
                {
                    "player": incident.player,
                    "article": "Laws 2009 13.4 g",
                    "note": f"expelled from the event (incident {incident.incident}); the games "
                    "follow the withdrawal rules of 3.1",
                }
            )
    for w in tournament.withdrawals:
        ruling = book.reason_ruling(w.player)
        if ruling is not None:
            verdict = (
                "satisfactory"
                if ruling.satisfactory
                else "not satisfactory: excluded from the next World Championship cycle"
            )
            out.append(
                {
                    "player": w.player,
                    "article": "3.3.4",
                    "note": f"reason for withdrawal {verdict} ({ruling.reason})",
                }
            )
    return out


def crosstable(
    tournament: Tournament,
    games: Iterable[Game],
    after_round: int | None = None,
    book: IncidentBook | None = None,
) -> Crosstable:
    """Each player's results against each opponent, in standings order; before the first
    result, in the order of the drawn numbers (3.4.1), as the table is posted.

    ``results[opponent]`` lists the games in round order: ``{round, colour,
    score, default, annulled}`` with ``score`` "1", "1/2" or "0". Games of a
    player whose results are annulled (3.1) are listed with ``annulled`` true.
    """
    all_games = list(games)
    table = standings(tournament, all_games, after_round, book=book)
    counted = {g.game for g in round_robin_games(tournament, all_games, after_round)}
    numbers = tournament.numbers or {}
    players = {p.id: p for p in tournament.players}
    order = [r["player"] for r in table["rows"]]
    order += [p.id for p in tournament.players if p.id not in order]
    cells: dict[str, dict[str, list[CrosstableCell]]] = {p: {} for p in order}
    for g in sorted(all_games, key=lambda x: (x.round, x.game_id)):
        if g.stage != "tournament" or g.status != FINISHED or g.white not in players:
            continue
        if g.black not in players or (after_round is not None and g.round > after_round):
            continue
        points = game_points(g.result, g.scores) or (Fraction(0), Fraction(0))
        sides: tuple[tuple[str, str, Literal["white", "black"], str], ...] = (
            (g.white, g.black, "white", score_text(points[0])),
            (g.black, g.white, "black", score_text(points[1])),
        )
        for me, opp, colour, score in sides:
            cells[me].setdefault(opp, []).append(
                {
                    "round": g.round,
                    "game": g.game_id,
                    "colour": colour,
                    "score": score,
                    "default": g.termination == Termination.DEFAULT,
                    "annulled": g.game_id not in counted,
                }
            )
    by_player = {r["player"]: r for r in table["rows"]}
    if numbers and not any(cells.values()):  # no result yet: the drawn numbers' order (3.4.1)
        order = sorted(order, key=lambda p: numbers.get(p, len(order) + 1))
    return {
        "tournament": tournament.id,
        "after_round": table["after_round"],
        "players": [
            {
                "rank": by_player[p]["rank"] if p in by_player else None,
                "number": numbers.get(p),
                "player": p,
                "name": players[p].name,
                "federation": players[p].federation,
                "rating": players[p].rating,
                "points": by_player[p]["points"] if p in by_player else None,
                "results": cells[p],
            }
            for p in order
        ],
    }
