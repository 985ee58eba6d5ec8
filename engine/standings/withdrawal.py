"""Withdrawals (3.1, 3.3.2, 3.3.3): ``withdraw {tournament, player, at, reason}``.

3.1 decides by the share of his games completed: 50% or more, the rest are lost by
default; under 50%, all his results are annulled. Before the start and less than 3
months before it, 3.3.3 wins over 3.1: his first-round opponent is declared the
winner; earlier, 3.3.2 replaces him instead (the withdrawal is refused here). Each
consequence is recorded on the game's own stream, and a withdrawal the record
contradicts is refused (``out_of_order``). The cases are in docs/tournament.md,
"Withdrawals"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from engine.commands import Command, command
from engine.errors import (
    MalformedCommand,
    OutOfOrder,
    RuleViolation,
    UnknownTournament,
)
from engine.events import (
    TOURNAMENT_STREAM,
    Event,
    GameStarted,
    PlayerWithdrew,
    ResultRecorded,
    game_stream,
)
from engine.fields import Instant
from engine.game.state import FINISHED
from engine.rules import profile
from engine.standings.tiebreaks import (
    ANNULLED,
    DEFAULT_TERMINATION,
    DEFAULTS,
    FIRST_ROUND_DEFAULT,
    Lookup,
    round_robin_states,
)
from engine.timefmt import format_instant
from engine.tournament.tournament import (
    RULING_ROLES,
    Tournament,
    require_ruling_arbiter,
    require_tournament,
)
from engine.world import World

REPLACEMENT_MONTHS = 3
"""3.3.2 / 3.3.3: the limit between replacement and a withdrawal that stands."""
DAY_MS = 86_400_000


@command(
    "withdraw",
    summary="A player withdraws; his games are scored or annulled as the rules say (3.1, 3.3).",
    roles=RULING_ROLES,
    events=(PlayerWithdrew, GameStarted, ResultRecorded),
    refusals=(
        (UnknownTournament, "", "no tournament, or another tournament's id"),
        (MalformedCommand, "", "not a player of the tournament"),
        (RuleViolation, "3.1", "the player has already withdrawn"),
        (RuleViolation, "3.4.1", "the lots have not been drawn"),
        (
            RuleViolation,
            "3.3.2",
            "dated at least the replacement period before the start: the player is replaced "
            "(2.7), not withdrawn",
        ),
        (
            RuleViolation,
            "3.3.3",
            "dated before the start although the player has completed games",
        ),
        (
            OutOfOrder,
            "",
            "dated before the stored record of one of his games (its last event): the record "
            "says he was still playing",
        ),
    ),
    notes={
        "player": "the player who withdraws: a player's id",
        "reason": "why, in words, for the record",
        "arbiter": "the Chief Arbiter or a Deputy who records it (checked when given)",
        "by": "who sent it, for the record (an arbiter, `dgt:<serial>` ...)",
    },
)
@dataclass(frozen=True, kw_only=True)
class Withdraw(Command):
    tournament: str
    player: str
    at_ms: Instant
    reason: str
    arbiter: str | None = None
    """The Chief Arbiter or a Deputy who records it (checked when given)."""
    by: str | None = None

    def decide(self, world: World) -> list[Event]:
        return withdraw(world.tournament(), world.game, self)


def start_instant_ms(start_date: str) -> int:
    """Midnight UTC of the event's start date (3.2: the arrival day)."""
    try:
        day = date.fromisoformat(start_date)
    except ValueError:
        raise MalformedCommand(f"the tournament's start date {start_date!r} is not ISO") from None
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def months_before(start_date: str, months: int) -> int:
    """Midnight UTC of the same day ``months`` earlier (the 1st of the month if it has none)."""
    day = date.fromisoformat(start_date)
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    for d in (day.day, 30, 29, 28):
        try:
            earlier = date(year, month + 1, d)
            break
        except ValueError:
            continue
    return int(datetime(earlier.year, earlier.month, earlier.day, tzinfo=UTC).timestamp() * 1000)


def withdraw(tournament: Tournament | None, lookup: Lookup, cmd: Withdraw) -> list[Event]:
    """Decide a withdrawal (3.1, 3.3.2, 3.3.3); see the module docstring."""
    t = require_tournament(tournament, cmd.tournament)
    player = cmd.player
    arbiter = cmd.arbiter or cmd.by or "chief"
    at_ms = cmd.at_ms
    if cmd.arbiter is not None:
        require_ruling_arbiter(t, arbiter, "record a withdrawal")
    if t.player(player) is None:
        raise MalformedCommand(f"withdraw: {player!r} is not a player of {t.id!r}")
    if t.withdrawal(player) is not None:
        raise RuleViolation("3.1", f"{player} has already withdrawn")
    if t.numbers is None:
        raise RuleViolation(
            "3.4.1",
            "the lots have not been drawn: his games (and his first-round opponent, 3.3.3) "
            "are not known yet",
        )
    states = round_robin_states(t, lookup)
    mine = sorted(
        (
            (int(gid.split(".")[0]), gid, white, black)
            for gid, (white, black) in t.round_robin_pairings().items()
            if player in (white, black)
        ),
    )
    completed = [gid for _, gid, _, _ in mine if gid in states and states[gid].status == FINISHED]
    remaining = [(r, gid, w, b) for r, gid, w, b in mine if gid not in completed]
    total = len(mine)
    # an unknown start date (an imported event) claims nothing: the event has begun
    before_start = bool(t.start_date) and at_ms < start_instant_ms(t.start_date)
    if before_start and at_ms < months_before(t.start_date, REPLACEMENT_MONTHS) + DAY_MS:
        raise RuleViolation(
            "3.3.2",
            f"{player} withdraws at least {REPLACEMENT_MONTHS} months before the start "
            f"({t.start_date}): he is replaced by a player as described in article 2.7, "
            "not withdrawn",
        )
    if before_start and completed:
        raise RuleViolation(
            "3.3.3",
            f"the withdrawal is dated before the start ({t.start_date}) but {player} has "
            f"completed {len(completed)} game(s): give the instant he withdrew",
        )
    later = sorted(
        ((states[gid].last_at_ms, gid) for _, gid, _, _ in mine if gid in states),
        reverse=True,
    )
    if later and later[0][0] > at_ms:
        last_ms, gid = later[0]
        raise OutOfOrder(
            f"withdraw: {player}'s withdrawal at {format_instant(at_ms)} is dated before the "
            f"record of his game {gid} (its last event at {format_instant(last_ms)}): the "
            "stored record says he was still playing; give the instant he withdrew"
        )
    if before_start:
        rule = FIRST_ROUND_DEFAULT
        defaulted = remaining[:1]
        article = "3.3.3"
    elif 2 * len(completed) >= total:
        rule = DEFAULTS
        defaulted = remaining
        article = "3.1"
    else:
        rule = ANNULLED
        defaulted = [item for item in remaining if item[1] in states]
        article = "3.1"
    named = t.known_as(player)
    reason = (
        f"{article}: {named} withdrew after completing {len(completed)} of {total} games"
        if rule != FIRST_ROUND_DEFAULT
        else f"3.3.3: {named} withdrew before the start; the first-round opponent wins"
    )
    rules = profile(t.rules)
    events: list[Event] = []
    new_ids: set[str] = set()
    for round_no, gid, white, black in defaulted:
        result = "0-1" if white == player else "1-0"
        existing = states.get(gid)
        if existing is not None:
            stream, version = existing.stream, existing.version
        else:
            new_id = free_game_id(gid, lookup, new_ids)
            new_ids.add(new_id)
            stream, version = game_stream(new_id), 1
            board = new_id.split(".")[1]
            events.append(
                GameStarted(
                    originator_id=stream,
                    originator_version=1,
                    at_ms=at_ms,
                    by=arbiter,
                    game=new_id,
                    round=round_no,
                    board=int(board) if board.isdigit() else 0,
                    white=white,
                    black=black,
                    time_control=rules.time_control,
                    rules=t.rules,
                )
            )
        events.append(
            ResultRecorded(
                originator_id=stream,
                originator_version=version + 1,
                at_ms=at_ms,
                by=arbiter,
                result=result,
                termination=DEFAULT_TERMINATION,
                reason=reason,
                arbiter=arbiter,
            )
        )
    effective = remaining[0][0] if remaining else t.rounds + 1
    events.append(
        PlayerWithdrew(
            originator_id=TOURNAMENT_STREAM,
            originator_version=t.version + 1,
            at_ms=at_ms,
            by=arbiter,
            player=player,
            reason=cmd.reason,
            rule=rule,
            games_completed=len(completed),
            games_total=total,
            effective_round=effective,
            arbiter=arbiter,
        )
    )
    return events


def free_game_id(game_id: str, lookup: Lookup, taken: set[str]) -> str:
    """The id for a new stream of this pairing: its own, or the first free board of its
    round (imported games of the round may have used the boards in another order)."""

    def look(i: str) -> object:
        return True if i in taken else lookup(i)

    if look(game_id) is None:
        return game_id
    round_no = game_id.split(".")[0]
    board = 1
    while look(f"{round_no}.{board}") is not None:
        board += 1
    return f"{round_no}.{board}"
