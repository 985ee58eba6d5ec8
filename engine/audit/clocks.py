"""Every clock judged again against its time control (3.5.1; Laws 6).

The regulation clock is re-derived from each game's events in global order and
compared with what the log says of it: the regulation values stored beside
each reading, moves completed before the mover's flag fell (6.9), flag falls
recorded when the time had not run out, and readings that cannot be (a
negative time, a reading before the game started).

A reading is judged against the regulation clock *at its own instant*: the game
as it stood after its last event at or before the reading (per ply, from the
stored instants), never the game as it ended. An import stores a game's moves
and then its readings, so by the time the audit reaches the readings the game
is over; the clock each reading was stored beside is found again from the
instants (several events at one instant: any of the states at that instant).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
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
    history: dict[str, list[tuple[int, Clock | None]]] = {}
    for event in events:
        game_id = stream_game_id(event.originator_id)
        if game_id is None or game_id in skip:
            continue
        try:
            if isinstance(event, ClockReadingRecorded):
                state = states.get(game_id)
                findings.extend(_reading(event, game_id, state, history.get(game_id, [])))
                continue
            findings.extend(_judge(event, game_id, states))
            after = states.get(game_id)
            if after is not None and event.originator_id.startswith("game/"):
                history.setdefault(game_id, []).append((event.at_ms, after.clock))
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


def clocks_at(history: list[tuple[int, Clock | None]], at_ms: int) -> list[Clock]:
    """The regulation clocks the game had at ``at_ms``: after its last event at or before
    that instant, or after any of the events at that very instant."""
    instants = [t for t, _ in history]
    last = bisect_right(instants, at_ms) - 1
    if last < 0:
        return []
    first = bisect_left(instants, instants[last])
    return [c for _, c in history[max(0, first - 1) : last + 1] if c is not None]


def _reading(
    event: ClockReadingRecorded,
    game_id: str,
    state: Game | None,
    history: list[tuple[int, Clock | None]],
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
    elif event.model_white_ms is not None and (clocks := clocks_at(history, event.at_ms)):
        models = [
            (c.remaining_ms(Side.WHITE, event.at_ms), c.remaining_ms(Side.BLACK, event.at_ms))
            for c in clocks
        ]
        stored = (event.model_white_ms, event.model_black_ms)
        model = models[-1]
        if stored not in models:
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
