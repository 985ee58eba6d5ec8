"""The 2013 Candidates (London) from the published July 2011 and January 2012 lists.

``docs/examples/qualification-2013.json`` names its sources and the numbers
that are stated assumptions. The averages FIDE itself published for the same
two lists (Grand Prix 2012/13 regulations, 3.5) are checked here too.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from adapters.cli import main
from adapters.formats.founding_file import qualified_field_command
from adapters.store import Store
from engine.qualification.inputs import parse_qualification
from engine.qualification.qualification import qualify
from tests.helpers import PLAYERS_2013

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
EXAMPLE = EXAMPLES / "qualification-2013.json"


def load():
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"), parse_float=Decimal)
    inp = parse_qualification(raw)
    return inp, qualify(inp)


class TestWorkedExample2013:
    def test_the_real_eight_qualify_for_the_real_reasons(self):
        _, result = load()
        assert [(p.player, p.article) for p in result.field] == [
            ("svidler", "2.1"),
            ("grischuk", "2.1"),
            ("ivanchuk", "2.1"),
            ("gelfand", "2.2"),
            ("carlsen", "2.3"),
            ("aronian", "2.3"),
            ("kramnik", "2.3"),
            ("radjabov", "2.6"),
        ]
        assert result.complete
        assert {p["id"] for p in PLAYERS_2013} == {p.player for p in result.field}

    def test_anand_the_champion_is_left_out_though_his_average_is_second(self):
        _, result = load()
        assert dict(result.not_ranked)["anand"] == (
            "the World Champion (2012 match): not a candidate"
        )
        assert result.averages["anand"].text() == "2808.00"

    def test_the_averages_are_the_ones_fide_published(self):
        _, result = load()
        published = {
            "carlsen": "2828.00",
            "aronian": "2805.00",
            "kramnik": "2791.00",
            "karjakin": "2778.50",
            "topalov": "2769.00",
            "nakamura": "2764.50",
            "gashimov": "2760.50",
            "radjabov": "2758.50",
            "mamedyarov": "2756.00",
            "kamsky": "2736.50",
            "jakovenko": "2732.50",
            "vitiugov": "2729.50",
            "morozevich": "2728.50",
            "wang-hao": "2725.50",
        }
        assert {r.player: r.average for r in result.rating_list} == published

    def test_radjabov_the_nominee_is_rated_2773_in_january_2012(self):
        _, result = load()
        assert result.nominee.status == "accepted"
        assert result.nominee.january_2012_rating == 2773

    def test_the_reserves_start_with_karjakin_and_topalov(self):
        _, result = load()
        assert result.reserves[:2] == ("karjakin", "topalov")

    def test_the_tournament_carries_the_averages_fractional_ones_too(self, store: Store):
        inp, result = load()
        cmd = qualified_field_command(
            inp, result, tournament="london-2013", name="Candidates 2013", start_date="2013-03-13"
        )
        answer = store.handle(cmd)
        assert answer["ok"], answer
        ratings = {p.id: p.rating for p in store.reads.tournament().players}
        assert ratings["radjabov"] == 2758.5
        assert ratings["carlsen"] == 2828
        assert ratings["grischuk"] == 2753.5

    def test_the_cli_shows_the_field_and_exits_0(self, capsys):
        assert main(["qualify", str(EXAMPLE)]) == 0
        out = capsys.readouterr().out
        assert "7. Kramnik, Vladimir        RUS  2.3  rated place 3 by average rating" in out
        assert "Reserves (2.7): karjakin, topalov, nakamura" in out


class TestHypotheticalWithdrawals2013:
    """The same lists with invented withdrawals (3.3.2 chain, then 3.3.3)."""

    def test_the_chain_and_the_late_withdrawal(self, capsys):
        path = EXAMPLES / "qualification-2013-withdrawals.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
        result = qualify(parse_qualification(raw))
        assert [(w.player, w.article, w.replaced_by) for w in result.withdrawals] == [
            ("aronian", "3.3.2", "karjakin"),
            ("karjakin", "3.3.2", "topalov"),
            ("ivanchuk", "3.3.3", None),
        ]
        assert [p.player for p in result.field] == [
            "svidler",
            "grischuk",
            "ivanchuk",
            "gelfand",
            "carlsen",
            "topalov",
            "kramnik",
            "radjabov",
        ]
        assert result.reserves[0] == "nakamura"
        args = ["qualify", str(path), "--emit-command", "--tournament", "t", "--name", "T"]
        assert main(args) == 0
        err = capsys.readouterr().err
        assert "ivanchuk withdrew too late to be replaced (3.3.3)" in err
