"""Every clock judged again against its time control (3.5.1; Laws 6).

The regulation clock is re-derived from each game's events in global order and
compared with what the log says of it: the regulation values stored beside
each reading, moves completed before the mover's flag fell (6.9), flag falls
recorded when the time had not run out, and readings that cannot be (a
negative time, a reading before the game started).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.audit.findings import INTEGRITY, Finding
from engine.clock.regulation import Clock
from engine.events import ClockReadingRecorded, Event, MovePlayed, ResultRecorded, stream_game_id
from engine.game import state as games
from engine.game.state import Game
from engine.rules import PROFILES
from engine.side import Side
from engine.timefmt import clock_text, format_instant


def judge_clocks(events: Iterable[Event], unsound: Iterable[str] = ()) -> list[Finding]:
    """Findings on every game's clock; games in ``unsound`` (already named, their record
    not one the engine could have made) are left out."""
    skip = set(unsound)
    findings: list[Finding] = []
    states: dict[str, Game] = {}
    for event in events:
        game_id = stream_game_id(event.originator_id)
        if game_id is None or game_id in skip:
            continue
        try:
            findings.extend(_judge(event, game_id, states))
        except Exception as exc:  # the audit names what it cannot judge, and goes on
            skip.add(game_id)
            findings.append(
                Finding(
                    INTEGRITY,
                    "unjudgeable_event",
                    f"the clock of game {game_id} cannot be judged at this "
                    f"{type(event).__name__} ({type(exc).__name__}: {exc})",
                    event,
                )
            )
    return findings


def _judge(event: Event, game_id: str, states: dict[str, Game]) -> list[Finding]:
    state = states.get(game_id)
    clock = state.clock if state is not None else None
    if isinstance(event, ClockReadingRecorded):
        return _reading(event, game_id, state, clock)
    if not event.originator_id.startswith("game/"):
        return []
    found: list[Finding] = []
    fallen = clock.flag_fallen(event.at_ms) if clock is not None else None
    if (
        isinstance(event, MovePlayed)
        and clock is not None
        and fallen is not None
        and state is not None
        and state.status == games.IN_PROGRESS
        and _automatic_flags(state)
    ):
        falls_ms = clock.flag_falls_at_ms()
        found.append(
            Finding(
                INTEGRITY,
                "impossible_clock",
                f"move {event.san} of game {game_id} was completed after {fallen}'s flag fell "
                f"({format_instant(falls_ms or 0)}, 6.9): it does not count",
                event,
            )
        )
    if (
        isinstance(event, ResultRecorded)
        and event.termination == "time_forfeit"
        and event.arbiter is None
        and clock is not None
    ):
        loser = Side.WHITE if event.result == "0-1" else Side.BLACK
        left = clock.remaining_ms(loser, event.at_ms)
        if left > 0:
            found.append(
                Finding(
                    INTEGRITY,
                    "impossible_result",
                    f"game {game_id} is recorded as lost on time by {loser}, whose regulation "
                    f"clock still shows {clock_text(left)} at {format_instant(event.at_ms)}",
                    event,
                )
            )
    next_state = games.evolve(state, event)
    if next_state is not None:
        states[game_id] = next_state
    return found


def _automatic_flags(game: Game) -> bool:
    """Under a supervised profile a flag is fallen only when the arbiter observes it
    (Laws 2009 6.8): a move after the regulation clock reached zero is not an error."""
    rules = PROFILES.get(game.rules)
    return rules is None or rules.automatic_flag_results


def _reading(
    event: ClockReadingRecorded, game_id: str, state: Game | None, clock: Clock | None
) -> list[Finding]:
    found: list[Finding] = []
    if event.white_ms < 0 or event.black_ms < 0:
        found.append(
            Finding(
                INTEGRITY,
                "impossible_clock",
                f"a clock reading of game {game_id} shows a negative time "
                f"({event.white_ms} / {event.black_ms} ms)",
                event,
            )
        )
    if state is None:
        found.append(
            Finding(
                INTEGRITY,
                "impossible_clock",
                f"a clock reading of game {game_id} before the game started",
                event,
            )
        )
    elif clock is not None and event.model_white_ms is not None:
        model = (
            clock.remaining_ms(Side.WHITE, event.at_ms),
            clock.remaining_ms(Side.BLACK, event.at_ms),
        )
        stored = (event.model_white_ms, event.model_black_ms)
        if model != stored:
            found.append(
                Finding(
                    INTEGRITY,
                    "impossible_clock",
                    f"the regulation clock of game {game_id} stored with this reading "
                    f"({clock_text(stored[0])} / {clock_text(stored[1])}) is not the one the "
                    f"time control gives ({clock_text(model[0])} / {clock_text(model[1])}) at "
                    f"{format_instant(event.at_ms)}",
                    event,
                )
            )
    return found
