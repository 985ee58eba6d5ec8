"""Berger tables (3.1, FIDE Handbook C.05 Annex 1): every table is a valid round robin."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament.pairing import berger_schedule, is_bye, rounds_per_cycle


@settings(max_examples=120, deadline=None)
@given(players=st.integers(min_value=2, max_value=40), cycles=st.integers(min_value=1, max_value=3))
def test_3_1_every_berger_table_is_a_valid_round_robin(players: int, cycles: int) -> None:
    table = berger_schedule(players, cycles)
    ring = rounds_per_cycle(players)
    assert {p.round for p in table} == set(range(1, cycles * ring + 1))
    for cycle in range(cycles):
        rounds = range(cycle * ring + 1, (cycle + 1) * ring + 1)
        games = [p for p in table if p.round in rounds and not is_bye(p, players)]
        # everyone meets everyone exactly once a cycle
        met = Counter(frozenset((p.white, p.black)) for p in games)
        assert len(met) == players * (players - 1) // 2
        assert set(met.values()) == {1}
        # colours balanced within one in each cycle
        whites = Counter(p.white for p in games)
        blacks = Counter(p.black for p in games)
        for n in range(1, players + 1):
            assert abs(whites[n] - blacks[n]) <= 1
    # nobody plays twice in a round; with an odd number, exactly one bye a round
    for r in range(1, cycles * ring + 1):
        seats = [n for p in table if p.round == r for n in (p.white, p.black)]
        assert len(seats) == len(set(seats)) == players + players % 2
    # 3.1: the second cycle repeats the first with colours reversed (round 8 = round 1)
    if cycles >= 2:
        first = {(p.round, p.board): (p.white, p.black) for p in table if p.round <= ring}
        for p in table:
            if ring < p.round <= 2 * ring:
                assert (p.black, p.white) == first[(p.round - ring, p.board)]


@settings(max_examples=60, deadline=None)
@given(players=st.integers(min_value=2, max_value=30))
def test_3_1_double_round_robin_gives_equal_colours(players: int) -> None:
    games = [p for p in berger_schedule(players, 2) if not is_bye(p, players)]
    whites = Counter(p.white for p in games)
    blacks = Counter(p.black for p in games)
    assert all(whites[n] == blacks[n] == players - 1 for n in range(1, players + 1))
