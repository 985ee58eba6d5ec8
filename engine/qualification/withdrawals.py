"""3.3: withdrawals before the event, replaced (3.3.1, 3.3.2) or not (3.3.3).

Applied in date order to the field qualification decided; a replacement is the
next player of the 2.3 list (2.7).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from engine.errors import MalformedCommand
from engine.qualification.inputs import QualificationInput
from engine.qualification.ranking import Reserves
from engine.qualification.result import Place, WithdrawalDecision

WITHDRAWAL_MONTHS = 3
"""3.3.2 / 3.3.3: the boundary between a replaced and an unreplaced withdrawal."""


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier (the month's last day if shorter)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    month += 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    raise AssertionError("unreachable")  # pragma: no cover


def apply_withdrawals(
    inp: QualificationInput,
    field_places: list[Place | None],
    reserves: Reserves,
    pending: list[str],
) -> list[WithdrawalDecision]:
    """3.3.1-3.3.3, in date order; replacements come from the 2.7 list."""
    decisions: list[WithdrawalDecision] = []
    gone: set[str] = set()
    for w in sorted(inp.withdrawals, key=lambda w: w.on):
        if w.player in gone:
            raise MalformedCommand(f"{w.player} withdraws twice (again on {w.on.isoformat()})")
        index = next(
            (i for i, p in enumerate(field_places) if p is not None and p.player == w.player),
            None,
        )
        if index is None:
            if reserves.remove(w.player):
                gone.add(w.player)
                decisions.append(
                    WithdrawalDecision(
                        w.player,
                        w.on,
                        w.kind,
                        "2.7",
                        None,
                        "a reserve declined: off the list",
                        w.reason,
                    )
                )
                continue
            raise MalformedCommand(
                f"withdrawal of {w.player!r} on {w.on.isoformat()}: he is neither qualified "
                "nor a reserve at that date"
            )
        if inp.start_date is not None and w.on >= inp.start_date:
            raise MalformedCommand(
                f"{w.player} withdrew on {w.on.isoformat()}, not before the start of the event "
                f"({inp.start_date.isoformat()}): that is a withdrawal from the tournament "
                "(article 3.1), recorded with the tournament's withdraw command"
            )
        place = field_places[index]
        assert place is not None
        if w.kind == "contract_not_submitted":
            article, replaced = "3.3.1", True
            why = "did not submit the signed contract in time"
        else:
            if inp.start_date is None:
                raise MalformedCommand(
                    f"the withdrawal of {w.player} needs the event's 'start_date' to apply "
                    "articles 3.3.2 / 3.3.3 (three months before the start)"
                )
            boundary = months_before(inp.start_date, WITHDRAWAL_MONTHS)
            if w.on <= boundary:
                article, replaced = "3.3.2", True
                why = (
                    f"withdrew on {w.on.isoformat()}, at least 3 months before the start "
                    f"({inp.start_date.isoformat()}; limit {boundary.isoformat()})"
                )
            else:
                article, replaced = "3.3.3", False
                why = (
                    f"withdrew on {w.on.isoformat()}, less than 3 months before the start "
                    f"({inp.start_date.isoformat()}; limit {boundary.isoformat()}): not "
                    "replaced, his first-round opponent is declared the winner"
                )
        gone.add(w.player)
        if not replaced:
            field_places[index] = replace(place, withdrawn=True)
            decisions.append(
                WithdrawalDecision(w.player, w.on, w.kind, article, None, why, w.reason)
            )
            continue
        successors = reserves.take(1, f"the replacement of {w.player}")
        successor = successors[0] if successors else None
        if successor is None:
            field_places[index] = None
            pending.append(f"{article}: no reserve left on the 2.3 list to replace {w.player}")
            decisions.append(
                WithdrawalDecision(
                    w.player, w.on, w.kind, article, None, why + "; no reserve left", w.reason
                )
            )
            continue
        field_places[index] = Place(
            successor,
            "2.7",
            f"replaces {w.player} ({article})",
            replaces=w.player,
            slot=place.slot,
        )
        decisions.append(
            WithdrawalDecision(w.player, w.on, w.kind, article, successor, why, w.reason)
        )
    return decisions
