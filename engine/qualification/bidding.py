"""The organisers' bid, checked against the bidding procedure for the Candidates 2012.

Articles 2 a-j, 3, 4, 5 and 7 of the procedure, plus the 22-day schedule of 3.2 as
advice: each item is reported met or not, with its article and what was found, so the
organiser sees why a bid fails. Amounts are exact euros (``Decimal``), never floats;
the interpretations (the guarantee's amount, the deposits, the closing instant) are in
docs/qualification.md."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any, TypedDict

from engine.errors import MalformedCommand
from engine.fields import (
    boolean,
    mapping,
    optional,
    refuse_unknown_keys,
    string,
    unknown_keys,
    whole,
)
from engine.timefmt import format_instant, parse_day, parse_instant

MIN_PRIZE_FUND_EUR = Decimal(420_000)
"""2 c and regulation 3.8.1: at least 420,000 euros, net of local taxes."""

FIDE_CONTRIBUTION_SHARE = Decimal("0.20")
"""2 d: the contribution to FIDE is not less than 20% of the prize money."""

PRINCIPALS_STIPENDS_EUR = Decimal(41_000)
"""3: stipends of the Principals (regulation 4.7.2.1), covered by the guarantee."""

GUARANTEE_TERM_MONTHS = 10
"""3: a 10-month term bank guarantee."""

FIRST_DEPOSIT_EUR = Decimal(100_000)
FIRST_DEPOSIT_BY = date(2012, 1, 31)
SECOND_DEPOSIT_SHARE = Decimal("0.50")
SECOND_DEPOSIT_BY = date(2012, 3, 30)
BALANCE_BY = date(2012, 8, 31)

BID_FEE_EUR = Decimal(1_000)
"""4: the non-refundable bid fee."""

MIN_HOTEL_STARS = 4
"""2 g: official hotel of at least 4 stars."""

LAST_QUARTER_2012 = (date(2012, 10, 1), date(2012, 12, 31))
"""2 a: the event's exact dates fall in the last quarter of 2012."""

SCHEDULE_DAYS = 22
"""Regulation 3.2: arrivals to departures, 22 days."""

DEADLINE_MS = parse_instant("2012-01-31T13:00:00.000Z")
"""7: "The bidding process will close on 31 January 2012, 13:00 GMT"."""

STATEMENTS: dict[str, tuple[str, str]] = {
    "covers_other_financial_obligations": (
        "2 e",
        "commitment to cover all the other financial obligations to FIDE",
    ),
    "covers_organisational_costs": ("2 f", "commitment to cover all organisational costs"),
    "accepts_regulations_without_reservations": (
        "2 h",
        "the applicant accepts the regulations of the event without any reservations",
    ),
    "invites_wcoc_inspection": (
        "2 i",
        "invitation to 2 members of the WCOC to inspect the venue, expenses paid by the bidder",
    ),
    "name_signatures_authentication": (
        "2 j",
        "the applicant's name, signatures and authentication",
    ),
}
"""The required statements: key in the bid file -> (article, what it says)."""

_KEYS = {
    "bidder",
    "dates",
    "venue",
    "prize_fund_eur",
    "prize_fund_net_of_local_taxes",
    "fide_contribution_eur",
    "fide_contribution_net_of_local_taxes",
    "statements",
    "hotel",
    "guarantee",
    "bid_fee_eur",
    "sponsors_in_conflict_with_ioc",
    "submitted_at",
    "registered_post",
    "notes",
}


class BidItemJson(TypedDict):
    article: str
    item: str
    met: bool
    required: bool
    detail: str


class BidReportJson(TypedDict):
    """The JSON form of a bid's check (``candidates bid-check --format json``)."""

    bidder: str
    valid: bool
    summary: str
    items: list[BidItemJson]


@dataclass(frozen=True)
class BidItem:
    """One particular of the bidding procedure, met or not."""

    article: str
    item: str
    met: bool
    detail: str
    required: bool = True

    def as_dict(self) -> BidItemJson:
        return {
            "article": self.article,
            "item": self.item,
            "met": self.met,
            "required": self.required,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class BidReport:
    """Every item of a bid, and whether the bid can be considered."""

    bidder: str
    items: tuple[BidItem, ...]

    @property
    def valid(self) -> bool:
        return all(i.met for i in self.items if i.required)

    def failed(self) -> tuple[BidItem, ...]:
        return tuple(i for i in self.items if i.required and not i.met)

    def as_dict(self) -> BidReportJson:
        required = [i for i in self.items if i.required]
        return {
            "bidder": self.bidder,
            "valid": self.valid,
            "summary": f"{sum(i.met for i in required)} of {len(required)} required items met",
            "items": [i.as_dict() for i in self.items],
        }


# --- reading the bid -----------------------------------------------------------


def eur(where: str, value: object) -> Decimal | None:
    """An amount in euros: int, Decimal or decimal string; None if not stated."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise MalformedCommand(f"{where} must be an amount in euros, got {value!r}")
    if isinstance(value, int | Decimal):
        amount = Decimal(value)
    elif isinstance(value, float):
        amount = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            amount = Decimal(value.replace(",", "").replace("_", "").strip())
        except InvalidOperation:
            raise MalformedCommand(
                f'{where} must be an amount in euros such as 420000 or "420000.00", got {value!r}'
            ) from None
    else:
        raise MalformedCommand(f"{where} must be an amount in euros, got {value!r}")
    if not amount.is_finite() or amount < 0:
        raise MalformedCommand(f"{where} must be a non-negative amount, got {value!r}")
    return amount


def _euros(amount: Decimal) -> str:
    """``420,000 EUR`` (cents only when there are some)."""
    text = f"{amount:,.2f}"
    return (text[:-3] if text.endswith(".00") else text) + " EUR"


def _day(where: str, value: object) -> date | None:
    return None if value is None else parse_day(where, value)


# --- the check -----------------------------------------------------------------


def check_bid(raw: object) -> BidReport:
    """Check a bid (decoded JSON) item by item; MalformedCommand if its form is wrong."""
    if not isinstance(raw, Mapping):
        raise MalformedCommand("a bid must be a JSON object")
    unknown = unknown_keys(raw, _KEYS)
    if unknown:
        raise MalformedCommand(f"unknown field(s) {unknown}; known: {', '.join(sorted(_KEYS))}")
    bidder = optional(string, "'bidder'", raw.get("bidder"))
    prize_fund = eur("prize_fund_eur", raw.get("prize_fund_eur"))
    items: list[BidItem] = []
    items += _dates(raw)
    items.append(_venue(raw))
    items.append(_prize_fund(raw, prize_fund))
    items.append(_contribution(raw, prize_fund))
    statements = _statements(raw)
    items += [s for s in statements if s.article < "2 g"]
    items.append(_hotel(raw))
    items += [s for s in statements if s.article > "2 g"]
    items += _security(raw, prize_fund)
    items.append(_fee(raw))
    items.append(_sponsors(raw))
    items.append(_submission(raw))
    return BidReport(bidder or "(unnamed bidder)", tuple(items))


def _dates(raw: Mapping[str, Any]) -> list[BidItem]:
    dates = optional(mapping, "dates", raw.get("dates"))
    start = _day("dates.start", dates.get("start")) if dates else None
    end = _day("dates.end", dates.get("end")) if dates else None
    label = "exact dates in the last quarter of 2012"
    if start is None or end is None:
        return [BidItem("2 a", label, False, "the bid does not state exact start and end dates")]
    if end < start:
        return [BidItem("2 a", label, False, f"the end {end.isoformat()} is before the start")]
    first, last = LAST_QUARTER_2012
    span = f"{start.isoformat()} to {end.isoformat()}"
    inside = first <= start and end <= last
    items = [
        BidItem(
            "2 a",
            label,
            inside,
            f"{span}" + ("" if inside else f": outside {first.isoformat()} - {last.isoformat()}"),
        )
    ]
    days = (end - start).days + 1
    items.append(
        BidItem(
            "3.2 (regulations)",
            f"schedule of {SCHEDULE_DAYS} days, arrivals to departures",
            days == SCHEDULE_DAYS,
            f"{span} is {days} days"
            + ("" if days == SCHEDULE_DAYS else "; a change needs the FIDE President's approval"),
            required=False,
        )
    )
    return items


def _venue(raw: Mapping[str, Any]) -> BidItem:
    venue = optional(string, "'venue'", raw.get("venue"))
    if venue and venue.strip():
        return BidItem("2 b", "proposed venue", True, venue.strip())
    return BidItem("2 b", "proposed venue", False, "no venue proposed")


def _prize_fund(raw: Mapping[str, Any], prize_fund: Decimal | None) -> BidItem:
    label = f"prize fund at least {_euros(MIN_PRIZE_FUND_EUR)}, net of local taxes"
    net = optional(
        boolean, "prize_fund_net_of_local_taxes", raw.get("prize_fund_net_of_local_taxes")
    )
    if prize_fund is None:
        return BidItem("2 c", label, False, "no prize fund stated")
    problems = []
    if prize_fund < MIN_PRIZE_FUND_EUR:
        problems.append(f"{_euros(prize_fund)} is below {_euros(MIN_PRIZE_FUND_EUR)}")
    if net is not True:
        problems.append("not offered net of local taxes")
    return BidItem("2 c", label, not problems, "; ".join(problems) or f"{_euros(prize_fund)} net")


def _contribution(raw: Mapping[str, Any], prize_fund: Decimal | None) -> BidItem:
    label = "contribution to FIDE at least 20% of the prize fund, net of local taxes"
    amount = eur("fide_contribution_eur", raw.get("fide_contribution_eur"))
    net = optional(
        boolean,
        "fide_contribution_net_of_local_taxes",
        raw.get("fide_contribution_net_of_local_taxes"),
    )
    if amount is None:
        return BidItem("2 d", label, False, "no contribution to FIDE stated")
    if prize_fund is None:
        return BidItem("2 d", label, False, "no prize fund stated to take 20% of")
    needed = prize_fund * FIDE_CONTRIBUTION_SHARE
    problems = []
    if amount < needed:
        problems.append(f"{_euros(amount)} is below 20% of the prize fund ({_euros(needed)})")
    if net is not True:
        problems.append("not offered net of local taxes")
    return BidItem(
        "2 d",
        label,
        not problems,
        "; ".join(problems) or f"{_euros(amount)} net (20% is {_euros(needed)})",
    )


def _statements(raw: Mapping[str, Any]) -> list[BidItem]:
    given = optional(mapping, "statements", raw.get("statements")) or {}
    unknown = unknown_keys(given, STATEMENTS)
    if unknown:
        raise MalformedCommand(
            f"statements: unknown key(s) {unknown}; known: {', '.join(STATEMENTS)}"
        )
    items = []
    for key, (article, text) in STATEMENTS.items():
        value = optional(boolean, f"statements.{key}", given.get(key))
        items.append(BidItem(article, text, value is True, "stated" if value else "not in the bid"))
    return items


def _hotel(raw: Mapping[str, Any]) -> BidItem:
    label = f"official hotel of at least {MIN_HOTEL_STARS} stars, visitor rates with meals"
    hotel = optional(mapping, "hotel", raw.get("hotel"))
    if hotel is None:
        return BidItem("2 g", label, False, "no official hotel proposed")
    refuse_unknown_keys("hotel", hotel, ("name", "stars", "visitor_rates_with_meals"))
    stars = optional(whole, "hotel.stars", hotel.get("stars"))
    rates = optional(
        boolean, "hotel.visitor_rates_with_meals", hotel.get("visitor_rates_with_meals")
    )
    name = optional(string, "hotel.name", hotel.get("name"))
    problems = []
    if stars is None:
        problems.append("hotel category not stated")
    elif stars < MIN_HOTEL_STARS:
        problems.append(f"{stars} stars is below the minimum of {MIN_HOTEL_STARS}")
    if rates is not True:
        problems.append("no special room rates for visitors (including meals)")
    found = f"{name or 'hotel (name not given)'}, {stars} stars"
    return BidItem("2 g", label, not problems, "; ".join(problems) or found)


def guarantee_amount(prize_fund: Decimal) -> Decimal:
    """3: prize fund + FIDE contribution (20% over and above it) + 41,000 stipends."""
    return prize_fund * (1 + FIDE_CONTRIBUTION_SHARE) + PRINCIPALS_STIPENDS_EUR


def _security(raw: Mapping[str, Any], prize_fund: Decimal | None) -> list[BidItem]:
    """3: a 10-month bank guarantee, or the deposit schedule instead."""
    security = optional(mapping, "guarantee", raw.get("guarantee"))
    if security is None:
        return [
            BidItem(
                "3",
                "bank guarantee or deposit schedule",
                False,
                "neither a bank guarantee nor deposits to FIDE's account",
            )
        ]
    kind = security.get("kind")
    if kind == "bank_guarantee":
        return _bank_guarantee(security, prize_fund)
    if kind == "deposit":
        return _deposits(security, prize_fund)
    raise MalformedCommand(f"guarantee.kind must be 'bank_guarantee' or 'deposit', got {kind!r}")


def _bank_guarantee(g: Mapping[str, Any], prize_fund: Decimal | None) -> list[BidItem]:
    refuse_unknown_keys(
        "guarantee", g, ("kind", "amount_eur", "term_months", "bank", "bank_confirmed_by_ubs")
    )
    amount = eur("guarantee.amount_eur", g.get("amount_eur"))
    term = optional(whole, "guarantee.term_months", g.get("term_months"))
    label = "bank guarantee: prize fund + 20% FIDE contribution + 41,000 EUR stipends"
    if prize_fund is None:
        amount_item = BidItem("3", label, False, "no prize fund stated to guarantee")
    elif amount is None:
        amount_item = BidItem("3", label, False, "no guarantee amount stated")
    else:
        needed = guarantee_amount(prize_fund)
        amount_item = BidItem(
            "3",
            label,
            amount >= needed,
            f"{_euros(amount)} against {_euros(needed)} needed",
        )
    term_item = BidItem(
        "3",
        f"bank guarantee for a {GUARANTEE_TERM_MONTHS}-month term",
        term is not None and term >= GUARANTEE_TERM_MONTHS,
        "term not stated" if term is None else f"{term} months",
    )
    bank = optional(string, "guarantee.bank", g.get("bank"))
    confirmed = optional(boolean, "guarantee.bank_confirmed_by_ubs", g.get("bank_confirmed_by_ubs"))
    bank_item = BidItem(
        "3",
        "a bank that FIDE's bankers (UBS) confirm as acceptable",
        bool(bank) and confirmed is True,
        (bank or "bank not named")
        + ("" if confirmed else ": not (yet) confirmed as acceptable by UBS"),
    )
    return [amount_item, term_item, bank_item]


def _deposits(d: Mapping[str, Any], prize_fund: Decimal | None) -> list[BidItem]:
    refuse_unknown_keys("guarantee", d, ("kind", "payments"))
    payments_raw = d.get("payments") or []
    if not isinstance(payments_raw, list):
        raise MalformedCommand("guarantee.payments must be a list of {on, amount_eur}")
    payments: list[tuple[date, Decimal]] = []
    for i, p in enumerate(payments_raw):
        where = f"guarantee.payments[{i}]"
        if not isinstance(p, Mapping) or set(p) - {"on", "amount_eur"}:
            raise MalformedCommand(f"{where} must be an object {{on, amount_eur}}")
        on = parse_day(f"{where}.on", p.get("on"))
        amount = eur(f"{where}.amount_eur", p.get("amount_eur"))
        if amount is None:
            raise MalformedCommand(f"{where}.amount_eur is missing")
        payments.append((on, amount))

    def paid_by(day: date) -> Decimal:
        return sum((a for on, a in payments if on <= day), Decimal(0))

    items = []
    first = paid_by(FIRST_DEPOSIT_BY)
    items.append(
        BidItem(
            "3",
            f"deposit of {_euros(FIRST_DEPOSIT_EUR)} by {FIRST_DEPOSIT_BY:%d %B %Y}",
            first >= FIRST_DEPOSIT_EUR,
            f"{_euros(first)} deposited by then",
        )
    )
    if prize_fund is None:
        items.append(BidItem("3", "deposits against the prize fund", False, "no prize fund stated"))
        return items
    second_needed = FIRST_DEPOSIT_EUR + prize_fund * SECOND_DEPOSIT_SHARE
    second = paid_by(SECOND_DEPOSIT_BY)
    items.append(
        BidItem(
            "3",
            f"another 50% of the prize fund by {SECOND_DEPOSIT_BY:%d %B %Y}",
            second >= second_needed,
            f"{_euros(second)} deposited by then against {_euros(second_needed)} needed",
        )
    )
    total_needed = guarantee_amount(prize_fund)
    total = paid_by(BALANCE_BY)
    items.append(
        BidItem(
            "3",
            f"the balance by {BALANCE_BY:%d %B %Y} (the guarantee amount in all)",
            total >= total_needed,
            f"{_euros(total)} deposited by then against {_euros(total_needed)} needed",
        )
    )
    return items


def _fee(raw: Mapping[str, Any]) -> BidItem:
    fee = eur("bid_fee_eur", raw.get("bid_fee_eur"))
    label = f"non-refundable bid fee of {_euros(BID_FEE_EUR)}"
    if fee is None:
        return BidItem("4", label, False, "no bid fee paid")
    return BidItem("4", label, fee >= BID_FEE_EUR, f"{_euros(fee)} paid")


def _sponsors(raw: Mapping[str, Any]) -> BidItem:
    conflict = optional(
        boolean, "sponsors_in_conflict_with_ioc", raw.get("sponsors_in_conflict_with_ioc")
    )
    label = "no sponsor in conflict with the IOC's regulations"
    if conflict is None:
        return BidItem("5", label, False, "the bid does not say")
    return BidItem("5", label, not conflict, "a proposed sponsor conflicts" if conflict else "none")


def _submission(raw: Mapping[str, Any]) -> BidItem:
    label = "arrived by registered post before 31 January 2012, 13:00 GMT"
    at = raw.get("submitted_at")
    registered = optional(boolean, "registered_post", raw.get("registered_post"))
    if at is None:
        return BidItem("7", label, False, "arrival time not stated")
    at_ms = parse_instant(at, "submitted_at")
    problems = []
    if at_ms >= DEADLINE_MS:
        problems.append(f"arrived {format_instant(at_ms)}, after the close")
    if registered is not True:
        problems.append("not sent by registered post")
    return BidItem(
        "7", label, not problems, "; ".join(problems) or f"arrived {format_instant(at_ms)}"
    )
