"""The tie-break chain follows the event's regulations (the rules profile).

2012 3.7 (and 2016 3.7 a-c, 2018): head-to-head, wins, Sonneborn-Berger, then tie-break
games. 2022 and 2024: first place by tie-break games at once; the other places by
Sonneborn-Berger, wins, head-to-head, then lots.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli import main
from adapters.formats.pgn_import import ImportOptions, import_pgn
from adapters.store import Store
from adapters.store.queries import standings_object
from engine.errors import MalformedCommand, RuleViolation
from engine.rules import profile
from engine.standings.playoffs import current_order
from engine.standings.tiebreaks import ScoredGame, rank
from tests.pgn_files import WOMEN_2019, double_round_robin, pgn

RESULTS = {
    ("a", "b"): ["1-0", "1/2-1/2"],
    ("a", "c"): ["1-0", "1-0"],
    ("a", "d"): ["0-1", "0-1"],
    ("b", "c"): ["1-0", "0-1"],
    ("b", "d"): ["1-0", "1-0"],
    ("c", "d"): ["1/2-1/2", "1/2-1/2"],
}
"""A and B level on 3.5: A ahead on the games between them (1.5-0.5), B ahead on
Sonneborn-Berger (9.75 to 9.25), 3 wins each."""


def games() -> list[ScoredGame]:
    out = []
    for n, ((white, black), results) in enumerate(RESULTS.items()):
        for cycle, result in enumerate(results):
            out.append(ScoredGame(f"{n}.{cycle}", n + 1, white, black, result))
    return out


def test_3_7_2012_chain_puts_the_head_to_head_winner_first() -> None:
    chain = profile("candidates-2012").tiebreaks
    ranking = rank(["a", "b", "c", "d"], games(), chain)
    assert ranking.tiers[:2] == (("a",), ("b",))
    assert ranking.separating_criterion("a", "b") == "h2h"


@pytest.mark.parametrize("name", ["candidates-2016", "candidates-2018"])
def test_3_7_2016_and_2018_keep_the_2012_order(name: str) -> None:
    assert profile(name).tiebreaks == ("h2h", "wins", "sb")
    assert profile(name).first_place_by_games is False
    assert rank(["a", "b", "c", "d"], games(), profile(name).tiebreaks).tiers[0] == ("a",)


@pytest.mark.parametrize("name", ["candidates-2022", "candidates-2024"])
def test_2022_and_2024_send_a_tie_for_first_to_tie_break_games(name: str) -> None:
    rules = profile(name)
    assert rules.tiebreaks == ("sb", "wins", "h2h") and rules.first_place_by_games
    ranking = rank(["a", "b", "c", "d"], games(), rules.tiebreaks, rules.first_place_by_games)
    assert sorted(ranking.tiers[0]) == ["a", "b"]  # one tier: tie-break games decide


def test_2022_chain_orders_places_after_first_by_sonneborn_berger_first() -> None:
    """Without a tie for first (C's win added), A and B level for second go by SB: B."""
    ranking = rank(["a", "b", "c", "d"], games(), ("sb", "wins", "h2h"), True)
    lines = ranking.lines
    assert lines["b"].sb > lines["a"].sb
    extra = ScoredGame("x", 7, "d", "c", "1-0")
    ranking = rank(["a", "b", "c", "d"], [*games(), extra], ("sb", "wins", "h2h"), True)
    assert ranking.tiers[0] == ("d",)
    assert ranking.tiers[1:3] == (("b",), ("a",))
    assert ranking.separating_criterion("b", "a") == "sb"


def kosteniuk_catches_up(round_no: int, white: int, black: int) -> str:
    """Goryachkina (0) and Kosteniuk (1) win every other game and draw each other."""
    if {white, black} == {0, 1}:
        return "1/2-1/2"
    if 0 in (white, black) or 1 in (white, black):
        return "1-0" if white in (0, 1) else "0-1"
    return "1/2-1/2"


def test_standings_show_the_chain_that_decided(tmp_path: Path, sqlite_store: Store) -> None:
    path = tmp_path / "tie.pgn"
    path.write_text(pgn(double_round_robin(WOMEN_2019, kosteniuk_catches_up)))
    import_pgn(sqlite_store, path, options=ImportOptions(rules="candidates-2022"))
    table = standings_object(sqlite_store.reads)
    assert table["tiebreaks"]["rules"] == "candidates-2022"
    assert table["tiebreaks"]["criteria"] == ["sb", "wins", "h2h"]
    assert table["tiebreaks"]["first_place"] == "tie-break games"
    assert table["final"] is True and table["winner"] is None
    assert table["playoff"]["needed"] is True
    assert sorted(table["playoff"]["players"]) == ["goryachkina", "kosteniuk"]


def test_import_pgn_rules_option_picks_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tie.pgn"
    path.write_text(pgn(double_round_robin(WOMEN_2019, kosteniuk_catches_up)))
    store = str(tmp_path / "s.sqlite")
    assert (
        main(["--store", store, "import-pgn", "--create", str(path), "--rules", "candidates-2016"])
        == 0
    )
    with Store(store) as s:
        table = standings_object(s.reads)
    assert table["tiebreaks"]["rules"] == "candidates-2016"
    # 2016 3.7 a-c leave them level (1-1, as many wins, the same SB): 3.7.1.a games
    first, second = table["rows"][:2]
    assert (first["h2h"], first["wins"], first["sb"]) == (
        second["h2h"],
        second["wins"],
        second["sb"],
    )
    assert table["winner"] is None and table["playoff"]["needed"] is True
    assert main(["--store", store, "standings"]) == 0
    assert "Tie-breaks (candidates-2016): h2h, wins, sb; first place by the criteria" in (
        capsys.readouterr().out
    )
    with pytest.raises(MalformedCommand):
        profile("candidates-1999")


def test_3_7_1_tie_break_games_can_follow_an_event_off_the_berger_table(
    tmp_path: Path, sqlite_store: Store
) -> None:
    """The order for the playoff comes from the results when no table was recorded."""
    games = double_round_robin(
        WOMEN_2019, kosteniuk_catches_up, second_cycle_order=[3, 0, 6, 1, 5, 2, 4]
    )
    path = tmp_path / "tie.pgn"
    path.write_text(pgn(games))
    import_pgn(sqlite_store, path)
    tournament = sqlite_store.reads.tournament()
    assert tournament is not None and tournament.numbers is None
    order, progress, _ = current_order(tournament, sqlite_store.reads.game)
    assert sorted(order[0]) == ["goryachkina", "kosteniuk"] and progress == {}
    path.write_text(pgn(games[:-1]))
    other = Store(str(tmp_path / "other.sqlite"))
    with other:
        import_pgn(other, path, options=ImportOptions(cycles=2))
        unfinished = other.reads.tournament()
        assert unfinished is not None
        with pytest.raises(RuleViolation, match="not every pair of players has played"):
            current_order(unfinished, other.reads.game)
