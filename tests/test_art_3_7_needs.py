"""What each player needs (3.6.1, 3.7 a-c, 3.7.1-3.7.3, 3.1): scenarios, words, chances.

The 2013 Candidates after round 13 (Carlsen and Kramnik level on 8.5) is checked
against a count written here from the PGN's headers alone: points, then 3.7 a,
b, c over the whole tied group, then the playoff, for all 81 results of round 14.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import chess.pgn
import pytest

from adapters.cli import main
from adapters.formats.pgn_import import import_pgn
from adapters.store import Store
from adapters.store.queries import _all_games, needs_object
from engine.errors import MalformedCommand, RuleViolation
from engine.standings.tiebreaks import ScoredGame, tally
from projections.chances import expected_score, playoff_odds, wdl_from
from projections.needs import needs_table
from projections.needs_words import Conditions, needs_in_words
from projections.scenarios import (
    RESULTS,
    Outcome,
    Pairing,
    ScenarioSpace,
    scenario_space,
    scenarios,
)
from tests.helpers import at, ok
from tests.tournament_helpers import by_pair, event, play_rounds
from tests.world import World

PGN_2013 = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"
SCORE = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1))}
DRAW = (Fraction(1, 2), Fraction(1, 2))


def pgn_games() -> list[tuple[int, str, str, str]]:
    """(round, white, black, result) of every game of the file, ids as the import makes
    them (the surname, lower case)."""
    out = []
    with PGN_2013.open(encoding="utf-8") as handle:
        while (headers := chess.pgn.read_headers(handle)) is not None:
            out.append(
                (
                    int(headers["Round"].split(".")[0]),
                    headers["White"].split(",")[0].lower(),
                    headers["Black"].split(",")[0].lower(),
                    headers["Result"],
                )
            )
    return out


def independent_first(games: list[tuple[str, str, str]]) -> tuple[str | None, list[str]]:
    """First place written out for this test: points (3.6.1); then, over the whole group
    level on points, (a) points among them, (b) wins, (c) Sonneborn-Berger, in order;
    still level: a playoff (3.7.1). Returns (winner, []) or (None, playoff players)."""
    players = sorted({p for w, b, _ in games for p in (w, b)})
    points = dict.fromkeys(players, Fraction(0))
    wins = dict.fromkeys(players, 0)
    for w, b, r in games:
        sw, sb = SCORE.get(r, DRAW)
        points[w] += sw
        points[b] += sb
        wins[w] += sw == 1
        wins[b] += sb == 1
    top = max(points.values())
    group = [p for p in players if points[p] == top]
    if len(group) == 1:
        return group[0], []
    among = dict.fromkeys(group, Fraction(0))
    sonneborn = dict.fromkeys(group, Fraction(0))
    for w, b, r in games:
        sw, sb = SCORE.get(r, DRAW)
        if w in among and b in among:
            among[w] += sw
            among[b] += sb
        if w in sonneborn:
            sonneborn[w] += sw * points[b]
        if b in sonneborn:
            sonneborn[b] += sb * points[w]
    key = {p: (among[p], wins[p], sonneborn[p]) for p in group}
    best = max(key.values())
    leaders = sorted(p for p in group if key[p] == best)
    return (leaders[0], []) if len(leaders) == 1 else (None, leaders)


@pytest.fixture(scope="module")
def london(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store(str(tmp_path_factory.mktemp("needs") / "london.sqlite")) as store:
        import_pgn(store, PGN_2013)
        yield store


@pytest.fixture(scope="module")
def after_13(london: Store) -> dict[str, Any]:
    needs, _ = needs_object(london.reads, 13)
    return needs


class TestArt3_7NeedsOfThe2013Candidates:
    def test_3_7_round_14_all_81_scenarios_match_an_independent_count(
        self, after_13: dict[str, Any]
    ) -> None:
        everything = pgn_games()
        before = [(w, b, r) for rnd, w, b, r in everything if rnd <= 13]
        last = [(w, b) for rnd, w, b, _ in everything if rnd == 14]
        assert after_13["method"] == {
            "kind": "every combination",
            "scenarios": 81,
            "combinations": 81,
            "seed": None,
        }
        by_pair_of = {frozenset((g["white"], g["black"])): g["game"] for g in after_13["games"]}
        assert set(by_pair_of) == {frozenset(p) for p in last}
        found = {
            tuple(sorted(s["results"].items())): (s["winner"], sorted(s["playoff"]))
            for s in after_13["scenarios"]
        }
        assert len(found) == 81
        counted = {"points": 0, "after a-c": 0, "playoff": 0}
        for combo in itertools.product(("1-0", "1/2-1/2", "0-1"), repeat=4):
            games = before + [(w, b, r) for (w, b), r in zip(last, combo, strict=True)]
            expected = independent_first(games)
            results = {
                by_pair_of[frozenset((w, b))]: r for (w, b), r in zip(last, combo, strict=True)
            }
            assert found[tuple(sorted(results.items()))] == expected, results
            counted["playoff" if expected[0] is None else "after a-c"] += 1
        assert counted == {"points": 0, "after a-c": 81, "playoff": 0}
        players = after_13["players"]
        assert (players["carlsen"]["outright"], players["carlsen"]["not_first"]) == (54, 27)
        assert (players["kramnik"]["outright"], players["kramnik"]["not_first"]) == (27, 54)
        assert all(
            p["not_first"] == 81 for pid, p in players.items() if pid not in ("carlsen", "kramnik")
        )

    def test_3_7_b_the_words_for_the_two_leaders(self, after_13: dict[str, Any]) -> None:
        players = after_13["players"]
        assert players["carlsen"]["needs"] == (
            "Carlsen finishes first with a result at least as good as Kramnik's"
        )
        assert players["kramnik"]["needs"] == (
            "Kramnik finishes first with a better result than Carlsen's"
        )
        assert players["carlsen"]["decided_by"] == ["wins"]
        assert after_13["tiebreak"] == (
            "Level on points: 3.7 a the games between the tied players, 3.7 b more wins, "
            "3.7 c Sonneborn-Berger; then a playoff (3.7.1)"
        )
        assert players["aronian"]["needs"] == "Aronian cannot finish first"

    def test_3_7_b_both_leaders_level_on_points_goes_to_carlsen_on_wins(
        self, after_13: dict[str, Any]
    ) -> None:
        """What happened: both lost in round 14; Carlsen first on the number of wins."""
        carlsen = game_of(after_13, "carlsen", "svidler")
        kramnik = game_of(after_13, "ivanchuk", "kramnik")
        level = [
            s
            for s in after_13["scenarios"]
            if s["results"][carlsen] == "0-1" and s["results"][kramnik] == "1-0"
        ]
        assert level and {(s["winner"], s["decided_by"]) for s in level} == {("carlsen", "wins")}

    def test_3_7_chances_sum_to_one_and_follow_the_scenarios(
        self, after_13: dict[str, Any]
    ) -> None:
        chances = {pid: p["chance"] for pid, p in after_13["players"].items()}
        assert sum(chances.values()) == pytest.approx(1, abs=1e-3)
        assert chances["carlsen"] > chances["kramnik"] > 0
        assert all(v == 0 for pid, v in chances.items() if pid not in ("carlsen", "kramnik"))
        assert after_13["chances"]["exact"] is True

    def test_3_7_after_round_12_every_two_round_combination_is_scored(self, london: Store) -> None:
        needs, table = needs_object(london.reads, 12)
        assert needs["method"]["scenarios"] == 3**8 == len(needs["scenarios"])
        players = needs["players"]
        assert (
            sum(p["outright"] for p in players.values())
            + sum(1 for s in needs["scenarios"] if s["winner"] is None)
            == 3**8
        )
        # the round-13 results narrow the same table: nothing is scored again
        space = scenario_space(london.reads.tournament(), _games(london), 13)
        narrowed = table.follow(space)
        assert narrowed is not None and len(narrowed.outcomes) == 81
        assert narrowed.outcomes == scenarios(space).outcomes

    def test_3_7_a_game_in_progress_takes_the_analysis_probabilities(self, london: Store) -> None:
        carlsen = game_of(after_13_of(london), "carlsen", "svidler")
        kramnik = game_of(after_13_of(london), "ivanchuk", "kramnik")
        sure, _ = needs_object(london.reads, 13, {carlsen: [0, 0, 1], kramnik: [1, 0, 0]})
        # Svidler beats Carlsen and Ivanchuk beats Kramnik for sure: level on 8.5, 3.7 b
        assert sure["players"]["carlsen"]["chance"] == pytest.approx(1)
        assert {g["game"]: g["source"] for g in sure["games"]}[carlsen] == "analysis"
        with pytest.raises(MalformedCommand, match="not games of"):
            needs_object(london.reads, 13, {"99.9": [1, 1, 1]})

    def test_the_command_line_prints_the_table_and_the_json(
        self, london: Store, capsys: pytest.CaptureFixture[str]
    ) -> None:
        url = london.url
        assert main(["--store", url, "needs", "--after-round", "13"]) == 0
        text = capsys.readouterr().out
        assert "Carlsen finishes first with a result at least as good as Kramnik's" in text
        assert text.count("3.7 b more wins") == 1  # the tie-break named once
        assert main(["--store", url, "needs", "--after-round", "13", "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["method"]["scenarios"] == 81


def game_of(needs: dict[str, Any], white: str, black: str) -> str:
    """The id of the varied game of these two players (White first)."""
    (found,) = [g["game"] for g in needs["games"] if (g["white"], g["black"]) == (white, black)]
    return str(found)


def after_13_of(store: Store) -> dict[str, Any]:
    return needs_object(store.reads, 13)[0]


def _games(store: Store) -> list[Any]:
    return _all_games(store.reads)


# --- small events ---------------------------------------------------------------

BEAT_D = by_pair({("a", "d"): ["1", "1"], ("b", "d"): ["1", "1"], ("c", "d"): ["1", "1"]})
"""a, b and c beat d every time and draw among themselves."""


class TestArt3_7_1ThreeWayTie:
    def test_3_7_1_a_three_way_tie_after_3_7_a_c_goes_to_a_playoff(self, world: World) -> None:
        # round 6: d-b and a-c. After 5 rounds a and c have 3.5, b 3 (one game v d left).
        event(world, ["a", "b", "c", "d"])
        play_rounds(world, BEAT_D, range(1, 6))
        needs, _ = needs_object(world)
        assert needs["after_round"] == 5 and len(needs["scenarios"]) == 9
        outcome = {
            (s["results"]["6.1"], s["results"]["6.2"]): (s["winner"], sorted(s["playoff"]))
            for s in needs["scenarios"]
        }
        # b beats d, a and c draw: three on 4, level on (a) 2, (b) 2 wins, (c) 8
        assert outcome[("0-1", "1/2-1/2")] == (None, ["a", "b", "c"])
        assert outcome[("1/2-1/2", "1/2-1/2")] == (None, ["a", "c"])
        assert outcome[("0-1", "1-0")] == ("a", [])
        players = needs["players"]
        assert players["b"]["outright"] == 0 and players["b"]["playoff"] == 1
        assert players["b"]["needs"] == (
            "B cannot finish first outright but reaches a playoff with a win if A draws"
        )
        odds = playoff_odds(("a", "b", "c"), {"a": 2700, "b": 2700, "c": 2700}, seed=1)
        assert sum(odds.values()) == pytest.approx(1)
        assert sum(p["chance"] for p in players.values()) == pytest.approx(1, abs=1e-3)
        assert players["d"]["needs"] == "D cannot finish first"


class TestArt3_1WithdrawnPlayerInTheScenarios:
    def _withdraw(self, world: World, when_s: float) -> None:
        ok(
            world,
            {
                "cmd": "withdraw",
                "tournament": "t",
                "player": "d",
                "at": at(when_s),
                "reason": "ill",
                "arbiter": "chief",
            },
        )

    def test_3_1_games_lost_by_default_are_not_varied_and_count_as_wins(self, world: World) -> None:
        event(world, ["a", "b", "c", "d"])
        play_rounds(world, BEAT_D, range(1, 4))  # d has played 3 of 6: 50%
        self._withdraw(world, 4 * 86400)
        needs, _ = needs_object(world)
        varied = {g["game"] for g in needs["games"]}
        assert all("d" not in (g["white"], g["black"]) for g in needs["games"])
        assert varied == {"4.2", "5.2", "6.2"}  # d's games 4.1, 5.1, 6.1 are defaults
        assert len(needs["scenarios"]) == 27
        assert needs["players"]["d"]["not_first"] == 27
        # all drawn: a, b, c each 4 (3 wins over d each): a playoff of three, d not in it
        drawn = [s for s in needs["scenarios"] if set(s["results"].values()) == {"1/2-1/2"}]
        assert [sorted(s["playoff"]) for s in drawn] == [["a", "b", "c"]]

    def test_3_1_under_half_annulled_the_player_leaves_the_scenarios(self, world: World) -> None:
        event(world, ["a", "b", "c", "d"])
        play_rounds(world, BEAT_D, range(1, 3))  # 2 of 6: annulled
        self._withdraw(world, 3 * 86400)
        needs, _ = needs_object(world)
        assert "d" not in needs["players"]
        assert all("d" not in (g["white"], g["black"]) for g in needs["games"])
        assert len(needs["games"]) == 4  # 3.2, 4.2, 5.2, 6.2 among a, b, c
        assert len(needs["scenarios"]) == 81


def space_of(
    games: list[ScoredGame],
    remaining: tuple[Pairing, ...] = (),
    withdrawn: frozenset[str] = frozenset(),
    first_place_by_games: bool = False,
) -> ScenarioSpace:
    players = ("a", "b", "c")
    return ScenarioSpace(
        "t",
        players,
        tally(players, games),
        remaining,
        ("h2h", "wins", "sb"),
        first_place_by_games,
        withdrawn,
        {},
        None,
    )


# a and b beat c and draw each other: level on points, (a), (b) and (c)
LEVEL = [
    ScoredGame("1.1", 1, "a", "c", "1-0"),
    ScoredGame("2.1", 2, "b", "c", "1-0"),
    ScoredGame("3.1", 3, "a", "b", "1/2-1/2"),
]


def test_3_1_a_withdrawn_player_level_after_3_7_a_c_is_placed_behind() -> None:
    """He cannot play tie-break games: the other is first, by the withdrawal."""
    assert scenarios(space_of(LEVEL)).outcomes == (Outcome(None, ("a", "b"), "playoff"),)
    gone = scenarios(space_of(LEVEL, withdrawn=frozenset({"a"}))).outcomes
    assert gone == (Outcome("b", (), "withdrawal"),)
    words = needs_in_words(
        scenarios(space_of(LEVEL, withdrawn=frozenset({"a"}))),
        Conditions(scenarios(space_of(LEVEL, withdrawn=frozenset({"a"})))),
        "b",
        {"b": "B"},
    )
    assert words["needs"] == (
        "B has finished first (3.1, a withdrawn player cannot play tie-break games)"
    )


def test_3_7_a_the_profile_decides_first_place_by_games_on_any_tie_on_points() -> None:
    """2012 3.7 a puts a first (he beat b); the 2022 profile sends the tie to games."""
    won = [*LEVEL[:2], ScoredGame("3.1", 3, "a", "b", "1-0"), ScoredGame("4.1", 4, "c", "a", "1-0")]
    # a: 2, b: 1 ... level only after c-b below
    remaining = (Pairing("5.1", 5, "c", "b"),)
    criteria = {o.decided_by for o in scenarios(space_of(won, remaining)).outcomes}
    by_games = scenarios(space_of(won, remaining, first_place_by_games=True))
    draw = by_games.outcomes[RESULTS.index("0-1")]  # b beats c: a and b on 2
    assert draw == Outcome(None, ("a", "b"), "playoff")
    assert "h2h" in criteria


def test_fide_table_8_1_b_expectancy_and_draw_rate() -> None:
    assert expected_score(2800, 2800) == 0.5
    assert expected_score(2872, 2757) == pytest.approx(0.66)  # 115 points: .66
    assert expected_score(2757, 2872) == pytest.approx(0.34)
    assert expected_score(3000, 2400) == pytest.approx(0.92)  # 8.54: counted as 400
    w, d, loss = wdl_from(0.66, 0.5)
    assert (w, d, loss) == pytest.approx((0.41, 0.5, 0.09))


def test_the_needs_table_is_seeded_beyond_two_rounds(london: Store) -> None:
    tournament = london.reads.tournament()
    games = _games(london)
    one = needs_table(tournament, games, 10, seed=7)
    two = needs_table(tournament, games, 10, seed=7)
    assert one.exhaustive is False and one.seed == 7
    assert one.choices == two.choices and one.outcomes == two.outcomes


def test_3_4_1_before_the_lots_are_drawn_needs_is_refused_naming_the_article(
    world: World,
) -> None:
    ok(
        world,
        {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "Not drawn yet",
            "start_date": "2013-03-13",
            "cycles": 2,
            "players": [
                {"id": p, "name": p, "federation": "F", "rating": 2700} for p in ("a", "b")
            ],
            "arbiters": [{"id": "chief", "name": "Chief", "role": "chief"}],
        },
    )
    with pytest.raises(RuleViolation, match="lots have not been drawn"):
        needs_object(world)


def test_the_command_line_refuses_a_bad_wdl_file_with_one_line(
    london: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "wdl.json"
    bad.write_text('{"14.1": [0.5, -1, 0.5]}')
    assert main(["--store", london.url, "needs", "--wdl", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("candidates: ") and "three non-negative numbers" in err
    assert err.count("\n") == 1
