"""Invariants of the standings (3.6.1, 3.7) over random round robins."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.standings.tiebreaks import ScoredGame, rank
from engine.tournament.pairing import berger_schedule, is_bye
from projections.prizes import PRIZES_2012_EUR, prize_shares

RESULTS = ("1-0", "0-1", "1/2-1/2")


@st.composite
def round_robins(draw: st.DrawFn) -> tuple[list[str], list[ScoredGame]]:
    size = draw(st.integers(min_value=2, max_value=10))
    cycles = draw(st.integers(min_value=1, max_value=2))
    ids = [f"p{i}" for i in range(1, size + 1)]
    games = [
        ScoredGame(
            p.game_id, p.round, ids[p.white - 1], ids[p.black - 1], draw(st.sampled_from(RESULTS))
        )
        for p in berger_schedule(size, cycles)
        if not is_bye(p, size)
    ]
    return ids, games


@settings(max_examples=150, deadline=None)
@given(event=round_robins())
def test_3_6_1_every_game_gives_one_point_in_all(event) -> None:
    ids, games = event
    ranking = rank(ids, games)
    assert sum(line.points for line in ranking.lines.values()) == len(games)
    assert sorted(p for tier in ranking.tiers for p in tier) == sorted(ids)


@settings(max_examples=150, deadline=None)
@given(event=round_robins())
def test_3_7_tiers_are_strictly_ordered_by_points_then_a_b_c(event) -> None:
    ids, games = event
    ranking = rank(ids, games)
    keys = [ranking.key(tier[0]) for tier in ranking.tiers]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    for tier in ranking.tiers:
        assert {ranking.key(p) for p in tier} == {ranking.key(tier[0])}
    for ahead, behind in zip(ranking.tiers, ranking.tiers[1:], strict=False):
        assert ranking.separating_criterion(ahead[0], behind[0]) in ("points", "h2h", "wins", "sb")


@settings(max_examples=150, deadline=None)
@given(event=round_robins())
def test_3_7_a_head_to_head_shares_the_points_of_the_games_among_the_group(event) -> None:
    ids, games = event
    ranking = rank(ids, games)
    for value in {line.points for line in ranking.lines.values()}:
        group = {p for p in ids if ranking.lines[p].points == value}
        if len(group) < 2:
            continue
        among = sum(1 for g in games if g.white in group and g.black in group)
        assert sum(ranking.h2h[p] for p in group) == among


@settings(max_examples=100, deadline=None)
@given(event=round_robins())
def test_3_8_1_prizes_add_up_to_the_fund_of_the_places_occupied(event) -> None:
    ids, games = event
    ranking = rank(ids, games)
    order = [p for tier in ranking.tiers for p in tier]
    points = {p: ranking.lines[p].points for p in ids}
    shares, retained = prize_shares(order, points)
    assert sum(shares.values()) + retained == sum(PRIZES_2012_EUR)
    assert retained == sum(PRIZES_2012_EUR[len(ids) :])
    for a in ids:
        for b in ids:
            if points[a] == points[b]:
                assert shares[a] == shares[b]
            elif points[a] > points[b]:
                assert shares[a] >= shares[b]
    assert all(isinstance(v, Fraction) for v in shares.values())
