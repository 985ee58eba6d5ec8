"""Who plays the Candidates: the eight places of section 2 (2.1-2.7), then 3.3's withdrawals.

In order of priority: the World Cup 2011's top three (2.1), the loser of the 2012 match
(2.2), three players by average rating (2.3), the organiser's nominee (2.6); places
vacated or withdrawn are filled from the 2.3 list (2.7). Pure: the parsed file in
(``inputs``), a ``QualificationResult`` of values out; the interpretations where the
regulations are silent are in docs/qualification.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from engine.qualification.averages import Average, average_rating
from engine.qualification.inputs import QualificationInput
from engine.qualification.ranking import Reserves, Tier, rank_by_average
from engine.qualification.result import (
    NomineeDecision,
    Place,
    QualificationResult,
    RankedRow,
    WithdrawalDecision,
)
from engine.qualification.withdrawals import apply_withdrawals

NOMINEE_MIN_RATING = 2700
"""2.6: the nominee's rating in the January 2012 list is at least this."""

RATED_PLACES = 3
"""2.3: three players qualify by rating."""


def qualify(inp: QualificationInput) -> QualificationResult:
    """Decide the field (2.1-2.7), then apply the withdrawals (3.3.1-3.3.3)."""
    averages = {p.id: average_rating(p) for p in inp.players}
    places: list[Place | None] = []
    holder: dict[str, str] = {}
    """player -> article of the place he already holds."""
    vacated: list[tuple[int, str]] = []
    """(index of a place left empty, why) to be filled per 2.7."""
    pending: list[str] = []

    # 2.1 World Cup 2011: winner, runner-up, third.
    finish = ("winner", "runner-up", "third")
    for pid, how in zip(inp.world_cup, finish, strict=True):
        if pid == inp.title_holder:
            places.append(None)
            vacated.append((len(places) - 1, f"World Cup 2011 {how} {pid!r} is the World Champion"))
            continue
        places.append(Place(pid, "2.1", f"World Cup 2011 {how}"))
        holder[pid] = "2.1"

    # 2.2 the loser of the 2012 World Championship match.
    if inp.match_loser is None:
        places.append(None)
        pending.append(
            "2.2: the 2012 World Championship match "
            f"({inp.match_players[0]} v {inp.match_players[1]}) has no loser yet"
        )
    elif inp.match_loser in holder:
        places.append(None)
        vacated.append(
            (
                len(places) - 1,
                f"the 2012 match loser {inp.match_loser!r} already qualified under "
                f"{holder[inp.match_loser]}",
            )
        )
    else:
        places.append(Place(inp.match_loser, "2.2", "loser of the 2012 World Championship match"))
        holder[inp.match_loser] = "2.2"

    # 2.3 by average rating, without the players of 2.1 and 2.2 (and the champion).
    left_out: dict[str, str] = {}
    for pid in inp.world_cup:
        if pid in holder:
            left_out[pid] = f"qualified under {holder[pid]}"
    for pid in inp.match_players:
        if pid in holder:
            why = f"qualified under {holder[pid]}"
        elif pid == inp.title_holder:
            why = "the World Champion (2012 match): not a candidate"
        else:
            why = "plays the 2012 World Championship match, whose loser qualifies under 2.2"
        left_out.setdefault(pid, why)
    for p in inp.players:
        if p.id not in left_out and averages[p.id].value is None:
            left_out[p.id] = f"no average rating (article 2.3): {averages[p.id].basis}"
    ranked_players = [p for p in inp.players if p.id not in left_out]
    tiers = rank_by_average(ranked_players)
    reserves = Reserves(tiers)
    rated = reserves.take(RATED_PLACES, f"the {RATED_PLACES} rated places")
    for number in range(1, RATED_PLACES + 1):
        if number > len(rated):
            places.append(None)
            pending.append(f"2.3: rated place {number}: the list has no more eligible players")
            continue
        pid = rated[number - 1]
        places.append(Place(pid, "2.3", f"rated place {number} by average rating"))
        holder[pid] = "2.3"

    # 2.6 the organiser's nominee.
    nominee = _nominee(inp, holder)
    if nominee.status == "accepted" and nominee.player is not None:
        places.append(Place(nominee.player, "2.6", "nominated by the organiser"))
        holder[nominee.player] = "2.6"
        reserves.remove(nominee.player)
    else:
        places.append(None)
        pending.append(f"2.6: {nominee.reason}")

    # 2.7 places vacated by a double qualification, filled from the list.
    fill = reserves.take(len(vacated), "the place(s) vacated by double qualification")
    for (index, why), pid in zip(vacated, fill + [""] * (len(vacated) - len(fill)), strict=True):
        if not pid:
            pending.append(f"2.7: no reserve left for the place vacated because {why}")
            continue
        places[index] = Place(pid, "2.7", f"replacement from the 2.3 list: {why}")
        holder[pid] = "2.7"

    places = [None if p is None else replace(p, slot=i) for i, p in enumerate(places, 1)]
    qualifiers = tuple(p for p in places if p is not None)
    field_places = list(places)
    decisions = apply_withdrawals(inp, field_places, reserves, pending)

    rating_rows = _rating_rows(tiers, averages, field_places, reserves, decisions)
    return QualificationResult(
        qualifiers=qualifiers,
        field=tuple(p for p in field_places if p is not None),
        nominee=nominee,
        rating_list=tuple(rating_rows),
        not_ranked=tuple(left_out.items()),
        reserves=reserves.ids(),
        withdrawals=tuple(decisions),
        pending=tuple(pending),
        averages=averages,
    )


def _nominee(inp: QualificationInput, holder: Mapping[str, str]) -> NomineeDecision:
    """2.6: "a player, nominated by the organiser, with a rating of at least 2700
    in the FIDE rating list of January 2012"."""
    pid = inp.nominee
    if pid is None:
        return NomineeDecision(None, "pending", "2.6", "the organiser has not nominated a player")
    player = inp.player(pid)
    assert player is not None
    january = player.entry("january_2012")
    rating = january.rating if january else None
    if pid in holder:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} already qualified under {holder[pid]}", rating
        )
    if pid in inp.match_players:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} plays the 2012 World Championship match", rating
        )
    if rating is None:
        return NomineeDecision(
            pid, "refused", "2.6", f"{pid} has no rating in the January 2012 list", None
        )
    if rating < NOMINEE_MIN_RATING:
        return NomineeDecision(
            pid,
            "refused",
            "2.6",
            f"{pid} is rated {rating} in the January 2012 list; the nominee needs at least "
            f"{NOMINEE_MIN_RATING}",
            rating,
        )
    return NomineeDecision(
        pid,
        "accepted",
        "2.6",
        f"rated {rating} in the January 2012 list, at least {NOMINEE_MIN_RATING}",
        rating,
    )


def _rating_rows(
    tiers: list[Tier],
    averages: Mapping[str, Average],
    field_places: Sequence[Place | None],
    reserves: Reserves,
    decisions: Sequence[WithdrawalDecision],
) -> list[RankedRow]:
    final: dict[str, Place] = {p.player: p for p in field_places if p is not None}
    reserve_order = {pid: n for n, pid in enumerate(reserves.ids(), start=1)}
    withdrew = {d.player: d for d in decisions}
    rows: list[RankedRow] = []
    rank = 1
    for tier in tiers:
        ids = tuple(p.id for p in tier.players)
        for p in tier.players:
            if p.id in withdrew:
                d = withdrew[p.id]
                status = (
                    "reserve, declined"
                    if d.article == "2.7"
                    else f"withdrew ({d.article})"
                    + (f", replaced by {d.replaced_by}" if d.replaced_by else "")
                )
            elif p.id in final:
                status = f"qualified ({final[p.id].article})"
            elif p.id in reserve_order:
                status = f"reserve {reserve_order[p.id]}"
            else:
                status = "not qualified"
            avg = averages[p.id]
            rows.append(
                RankedRow(
                    rank=rank,
                    player=p.id,
                    average=avg.text() or "",
                    basis=avg.basis,
                    decided_by=tier.decided_by,
                    level_with=tuple(i for i in ids if i != p.id),
                    level_because=tier.level_because,
                    status=status,
                )
            )
        rank += len(ids)
    return rows
