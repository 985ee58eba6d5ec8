"""3.3.4: "Players that fail to provide a satisfactory reason for withdrawal, after they
have signed the player's contract, will be excluded from the next World Championship
cycle." The Chief Arbiter rules; the standings' notes show it."""

from __future__ import annotations

import pytest

from adapters.cli.cmd_tournament import render_standings
from adapters.store import Store
from adapters.store.queries import standings_object
from projections.names import Names
from tests.helpers import at, ok, paired_tournament, refused


@pytest.fixture
def withdrawn(sqlite_store: Store) -> Store:
    paired_tournament(sqlite_store)
    ok(
        sqlite_store,
        {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": "ivanchuk",
            "at": at(0),
            "reason": "left for home without notice",
        },
    )
    return sqlite_store


def ruling(**fields: object) -> dict:
    return {
        "cmd": "rule_withdrawal_reason",
        "player": "ivanchuk",
        "satisfactory": False,
        "arbiter": "chief",
        "reason": "no medical certificate was produced",
        "at": at(3600),
        **fields,
    }


class TestArt3_3_4WithdrawalReason:
    def test_3_3_4_an_unsatisfactory_reason_is_noted_in_the_standings(
        self, withdrawn: Store
    ) -> None:
        events = ok(withdrawn, ruling())
        assert events[0]["type"] == "WithdrawalReasonRuled"
        table = standings_object(withdrawn.reads)
        gone = next(w for w in table["withdrawn"] if w["player"] == "ivanchuk")
        assert gone["reason_satisfactory"] is False
        assert table["notes"] == [
            {
                "player": "ivanchuk",
                "article": "3.3.4",
                "note": "reason for withdrawal not satisfactory: excluded from the next World "
                "Championship cycle (no medical certificate was produced)",
            }
        ]

    def test_3_3_4_the_standings_table_prints_the_note(self, withdrawn: Store) -> None:
        ok(withdrawn, ruling())
        text = render_standings(
            standings_object(withdrawn.reads), Names.of(withdrawn.reads.tournament()).displayed()
        )
        assert (
            "      Ivanchuk: reason for withdrawal not satisfactory: excluded from the next World "
            "Championship cycle (no medical certificate was produced) (3.3.4)"
        ) in text.splitlines()

    def test_3_3_4_a_later_ruling_replaces_the_earlier_and_keeps_it(self, withdrawn: Store) -> None:
        ok(withdrawn, ruling())
        ok(withdrawn, ruling(satisfactory=True, reason="certificate received", at=at(7200)))
        gone = standings_object(withdrawn.reads)["withdrawn"][0]
        assert gone["reason_satisfactory"] is True
        book = withdrawn.reads.incident_book()
        assert book is not None and len(book.reason_rulings) == 2

    def test_3_3_4_only_the_chief_arbiter_rules(self, withdrawn: Store) -> None:
        refused(withdrawn, ruling(arbiter="deputy"), "not_an_arbiter")

    def test_3_3_4_a_player_who_has_not_withdrawn_has_no_reason_to_rule_on(
        self, withdrawn: Store
    ) -> None:
        message = refused(withdrawn, ruling(player="kramnik"), "rule_violation")
        assert message == (
            "kramnik has not withdrawn: there is no reason for withdrawal to rule on "
            "(article 3.3.4)"
        )

    def test_3_3_4_standings_without_rulings_carry_no_notes(self, withdrawn: Store) -> None:
        table = standings_object(withdrawn.reads)
        assert "notes" not in table and "reason_satisfactory" not in table["withdrawn"][0]
