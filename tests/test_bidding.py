"""The bidding procedure for the Candidates Tournament 2012: each particular met or not."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters.cli import main
from engine.errors import MalformedCommand
from engine.qualification.bidding import check_bid, guarantee_amount

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def good_bid() -> dict[str, Any]:
    """A bid that meets every item, with a bank guarantee (the example file)."""
    return json.loads((EXAMPLES / "bid-guarantee.json").read_text(), parse_float=Decimal)


def deposit_bid(payments: list[tuple[str, int]], prize_fund: int = 420_000) -> dict[str, Any]:
    bid = good_bid()
    bid["prize_fund_eur"] = prize_fund
    bid["fide_contribution_eur"] = prize_fund // 5
    bid["guarantee"] = {
        "kind": "deposit",
        "payments": [{"on": on, "amount_eur": amount} for on, amount in payments],
    }
    return bid


def items(bid: dict[str, Any], article: str) -> list[Any]:
    return [i for i in check_bid(bid).items if i.article == article]


def item(bid: dict[str, Any], article: str, contains: str = "") -> Any:
    found = [i for i in items(bid, article) if contains in i.item]
    assert len(found) == 1, found
    return found[0]


def with_(**changes: Any) -> dict[str, Any]:
    bid = good_bid()
    for key, value in changes.items():
        if value is None:
            bid.pop(key, None)
        else:
            bid[key] = value
    return bid


class TestAValidBid:
    def test_every_item_met_makes_the_bid_valid(self):
        report = check_bid(good_bid())
        assert report.valid
        assert report.failed() == ()
        assert report.as_dict()["summary"] == "16 of 16 required items met"
        # The advice of 3.2 is met too: 20 October to 10 November is 22 days.
        assert all(i.met for i in report.items)

    def test_the_items_come_in_the_order_of_the_procedure(self):
        articles = [i.article for i in check_bid(good_bid()).items]
        assert articles == [
            "2 a",
            "3.2 (regulations)",
            "2 b",
            "2 c",
            "2 d",
            "2 e",
            "2 f",
            "2 g",
            "2 h",
            "2 i",
            "2 j",
            "3",
            "3",
            "3",
            "4",
            "5",
            "7",
        ]


class TestBidding2aDates:
    """2 a: exact dates of the event in the last quarter of 2012."""

    @pytest.mark.parametrize(
        ("start", "end", "met"),
        [
            ("2012-10-01", "2012-10-22", True),
            ("2012-12-10", "2012-12-31", True),
            ("2012-09-20", "2012-10-11", False),
            ("2012-12-20", "2013-01-10", False),
        ],
    )
    def test_2_a_dates_inside_the_last_quarter(self, start, end, met):
        assert item(with_(dates={"start": start, "end": end}), "2 a").met is met

    def test_2_a_no_dates_not_met(self):
        assert item(with_(dates=None), "2 a").detail == (
            "the bid does not state exact start and end dates"
        )

    def test_2_a_end_before_start_not_met(self):
        found = item(with_(dates={"start": "2012-11-10", "end": "2012-10-20"}), "2 a")
        assert not found.met

    def test_3_2_a_schedule_other_than_22_days_is_advice_not_a_failure(self):
        bid = with_(dates={"start": "2012-10-20", "end": "2012-11-05"})
        advice = item(bid, "3.2 (regulations)")
        assert not advice.met and not advice.required
        assert advice.detail.endswith("is 17 days; a change needs the FIDE President's approval")
        assert check_bid(bid).valid


class TestBidding2bVenue:
    def test_2_b_venue_met(self):
        assert item(good_bid(), "2 b").met

    def test_2_b_no_venue_not_met(self):
        assert not item(with_(venue="  "), "2 b").met


class TestBidding2cPrizeFund:
    """2 c: prize fund at least 420,000 euros, net of local taxes."""

    def test_2_c_exactly_420000_met(self):
        bid = with_(prize_fund_eur=420000, fide_contribution_eur=84000)
        assert item(bid, "2 c").met

    def test_2_c_one_cent_short_not_met(self):
        found = item(with_(prize_fund_eur="419999.99"), "2 c")
        assert not found.met
        assert found.detail == "419,999.99 EUR is below 420,000 EUR"

    def test_2_c_gross_of_taxes_not_met(self):
        found = item(with_(prize_fund_net_of_local_taxes=False), "2 c")
        assert found.detail == "not offered net of local taxes"

    def test_2_c_no_prize_fund_not_met(self):
        assert item(with_(prize_fund_eur=None), "2 c").detail == "no prize fund stated"


class TestBidding2dFideContribution:
    """2 d: contribution to FIDE at least 20% of the prize money, net."""

    def test_2_d_exactly_20_percent_met(self):
        assert item(with_(prize_fund_eur=500000, fide_contribution_eur=100000), "2 d").met

    def test_2_d_below_20_percent_not_met(self):
        found = item(with_(prize_fund_eur=500000, fide_contribution_eur="99999.50"), "2 d")
        assert not found.met
        assert found.detail == ("99,999.50 EUR is below 20% of the prize fund (100,000 EUR)")

    def test_2_d_not_net_not_met(self):
        assert not item(with_(fide_contribution_net_of_local_taxes=None), "2 d").met


class TestBidding2StatementsEFHIJ:
    """2 e, f, h, i, j: the required statements."""

    @pytest.mark.parametrize(
        ("key", "article"),
        [
            ("covers_other_financial_obligations", "2 e"),
            ("covers_organisational_costs", "2 f"),
            ("accepts_regulations_without_reservations", "2 h"),
            ("invites_wcoc_inspection", "2 i"),
            ("name_signatures_authentication", "2 j"),
        ],
    )
    def test_each_statement_missing_is_not_met(self, key, article):
        bid = good_bid()
        assert item(bid, article).met
        del bid["statements"][key]
        found = item(bid, article)
        assert (found.met, found.detail) == (False, "not in the bid")
        assert not check_bid(bid).valid

    def test_an_unknown_statement_is_malformed(self):
        bid = good_bid()
        bid["statements"]["promises_sunshine"] = True
        with pytest.raises(MalformedCommand, match="statements: unknown key"):
            check_bid(bid)


class TestBidding2gHotel:
    """2 g: official hotel of at least 4 stars, with special visitor rates (meals included)."""

    def test_2_g_four_stars_met(self):
        bid = good_bid()
        bid["hotel"]["stars"] = 4
        assert item(bid, "2 g").met

    def test_2_g_three_stars_not_met(self):
        bid = good_bid()
        bid["hotel"]["stars"] = 3
        assert item(bid, "2 g").detail == "3 stars is below the minimum of 4"

    def test_2_g_no_visitor_rates_not_met(self):
        bid = good_bid()
        bid["hotel"]["visitor_rates_with_meals"] = False
        assert not item(bid, "2 g").met

    def test_2_g_no_hotel_not_met(self):
        assert item(with_(hotel=None), "2 g").detail == "no official hotel proposed"


class TestBidding3BankGuarantee:
    """3: a 10-month bank guarantee of prize fund + 20% + 41,000 euros."""

    def test_3_the_amount_is_prize_fund_plus_20_percent_plus_41000(self):
        assert guarantee_amount(Decimal(420000)) == Decimal(545000)
        assert guarantee_amount(Decimal(510000)) == Decimal(653000)

    def test_3_one_euro_short_not_met(self):
        bid = good_bid()
        bid["guarantee"]["amount_eur"] = 652999
        found = item(bid, "3", "stipends")
        assert (found.met, found.detail) == (False, "652,999 EUR against 653,000 EUR needed")

    def test_3_a_nine_month_term_not_met(self):
        bid = good_bid()
        bid["guarantee"]["term_months"] = 9
        assert not item(bid, "3", "10-month").met

    def test_3_a_bank_not_confirmed_by_ubs_not_met(self):
        bid = good_bid()
        bid["guarantee"]["bank_confirmed_by_ubs"] = False
        found = item(bid, "3", "UBS")
        assert found.detail == "Example Bank plc: not (yet) confirmed as acceptable by UBS"

    def test_3_neither_guarantee_nor_deposit_not_met(self):
        (found,) = items(with_(guarantee=None), "3")
        assert not found.met

    def test_3_an_unknown_kind_is_malformed(self):
        with pytest.raises(MalformedCommand, match=r"guarantee\.kind must be"):
            check_bid(with_(guarantee={"kind": "promise"}))


class TestBidding3DepositSchedule:
    """3 (alternative): 100,000 by 31 Jan, + 50% of the prize fund by 30 Mar, balance by 31 Aug."""

    ON_TIME: ClassVar = [("2012-01-31", 100_000), ("2012-03-30", 210_000), ("2012-08-31", 235_000)]

    def test_3_deposits_on_their_last_days_are_met(self):
        bid = deposit_bid(self.ON_TIME)
        assert [i.met for i in items(bid, "3")] == [True, True, True]
        assert check_bid(bid).valid

    def test_3_the_first_deposit_a_day_late_is_not_met(self):
        bid = deposit_bid([("2012-02-01", 100_000), *self.ON_TIME[1:]])
        first = item(bid, "3", "by 31 January 2012")
        assert (first.met, first.detail) == (False, "0 EUR deposited by then")

    def test_3_the_second_deposit_short_is_not_met(self):
        bid = deposit_bid([self.ON_TIME[0], ("2012-03-30", 209_999), ("2012-08-31", 235_001)])
        second = item(bid, "3", "50% of the prize fund")
        assert second.detail == "309,999 EUR deposited by then against 310,000 EUR needed"
        assert not second.met

    def test_3_the_balance_short_is_not_met(self):
        bid = deposit_bid([*self.ON_TIME[:2], ("2012-08-31", 234_999)])
        assert not item(bid, "3", "balance").met

    def test_3_the_balance_after_31_august_is_not_met(self):
        bid = deposit_bid([*self.ON_TIME[:2], ("2012-09-01", 235_000)])
        assert not item(bid, "3", "balance").met


class TestBidding4Fee:
    def test_4_fee_of_1000_met(self):
        assert item(good_bid(), "4").met

    def test_4_fee_short_not_met(self):
        assert not item(with_(bid_fee_eur=999), "4").met

    def test_4_no_fee_not_met(self):
        assert item(with_(bid_fee_eur=None), "4").detail == "no bid fee paid"


class TestBidding5Sponsors:
    def test_5_no_conflict_met(self):
        assert item(good_bid(), "5").met

    def test_5_a_sponsor_in_conflict_with_the_ioc_not_met(self):
        assert not item(with_(sponsors_in_conflict_with_ioc=True), "5").met

    def test_5_silence_not_met(self):
        assert not item(with_(sponsors_in_conflict_with_ioc=None), "5").met


class TestBidding7Deadline:
    """7: the bids arrive by registered post; the process closes 31 January 2012, 13:00 GMT."""

    def test_7_a_millisecond_before_the_close_met(self):
        assert item(with_(submitted_at="2012-01-31T12:59:59.999Z"), "7").met

    def test_7_at_the_close_is_late(self):
        found = item(with_(submitted_at="2012-01-31T13:00:00Z"), "7")
        assert found.detail == "arrived 2012-01-31T13:00:00.000Z, after the close"

    def test_7_a_local_time_is_converted_to_gmt(self):
        # 14:30 in Athens (UTC+2) is 12:30 GMT: in time.
        assert item(with_(submitted_at="2012-01-31T14:30:00+02:00"), "7").met

    def test_7_not_by_registered_post_not_met(self):
        assert not item(with_(registered_post=False), "7").met


class TestForm:
    @pytest.mark.parametrize(
        ("changes", "message"),
        [
            ({"prize_fund_eur": "a lot"}, "prize_fund_eur must be an amount in euros"),
            ({"prize_fund_eur": -1}, "must be a non-negative amount"),
            ({"bid_fee_eur": True}, "bid_fee_eur must be an amount in euros"),
            ({"registered_post": "yes"}, "registered_post must be true or false"),
            ({"submitted_at": "tomorrow"}, "field 'submitted_at' is not an ISO-8601 instant"),
            ({"colour": "blue"}, r"unknown field\(s\) \['colour'\]"),
            ({"hotel": {"stars": "five"}}, "hotel.stars must be a whole number"),
            ({"hotel": {"name": 5, "stars": 5}}, "hotel.name must be a string"),
            ({"dates": "autumn"}, "dates must be an object"),
            ({"guarantee": {"kind": "deposit", "payments": [{"on": "2012-01-01"}]}}, "is missing"),
        ],
    )
    def test_malformed_particulars_are_refused(self, changes, message):
        with pytest.raises(MalformedCommand, match=message):
            check_bid(with_(**changes))

    def test_amounts_are_exact_decimals_never_floats(self):
        # 0.1 + 0.2 != 0.3 in floats; the check adds Decimals.
        bid = deposit_bid(
            [("2012-01-10", 99_999), ("2012-01-31", 0), ("2012-03-30", 210_000)],
            prize_fund=420_000,
        )
        bid["guarantee"]["payments"][1]["amount_eur"] = Decimal("0.7")
        bid["guarantee"]["payments"].append({"on": "2012-01-31", "amount_eur": Decimal("0.3")})
        first = item(bid, "3", "by 31 January 2012")
        assert first.met
        assert first.detail == "100,000 EUR deposited by then"


class TestCli:
    def test_a_valid_bid_exits_0(self, capsys):
        assert main(["bid-check", str(EXAMPLES / "bid-guarantee.json")]) == 0
        assert "VALID: 16 of 16 required items met" in capsys.readouterr().out

    def test_a_failing_bid_exits_1_and_names_the_articles(self, capsys):
        assert main(["bid-check", str(EXAMPLES / "bid-deposit-late.json"), "--format", "json"]) == 1
        report = json.loads(capsys.readouterr().out)
        failed = [(i["article"], i["item"]) for i in report["items"] if not i["met"]]
        assert failed == [
            ("2 g", "official hotel of at least 4 stars, visitor rates with meals"),
            ("3", "another 50% of the prize fund by 30 March 2012"),
            ("7", "arrived by registered post before 31 January 2012, 13:00 GMT"),
        ]
        assert report["valid"] is False

    def test_malformed_input_exits_2_with_the_fault(self, tmp_path, capsys):
        path = tmp_path / "bid.json"
        bid = copy.deepcopy(good_bid())
        bid["prize_fund_eur"] = "lots"
        path.write_text(json.dumps(bid, default=str))
        assert main(["bid-check", str(path)]) == 2
        assert "prize_fund_eur must be an amount in euros" in capsys.readouterr().err

    def test_not_json_exits_2(self, tmp_path, capsys):
        path = tmp_path / "bid.json"
        path.write_text("{ not json")
        assert main(["bid-check", str(path)]) == 2
        assert "not JSON (Expecting property name" in capsys.readouterr().err

    def test_missing_file_exits_2(self, tmp_path, capsys):
        assert main(["bid-check", str(tmp_path / "none.json")]) == 2
        assert "cannot read" in capsys.readouterr().err
