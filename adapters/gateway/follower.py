"""Following the store's notification log (blocking: run it in one executor thread).

The gateway never learns of a change any other way than by reading the store
(``Store.last_seq`` to see that something was appended, ``Store.events_since``
to read it), so any number of gateway processes can serve one store, next to
any number of writers (the CLI, DGT boards, another gateway's arbiters).

A read is made consistent with a sequence number: the game objects and the
standings are read after the events, and the read is repeated (extended by
the events appended meanwhile) until ``last_seq`` did not move during it. So
``Update.seq`` is the position the objects are valid at, and a snapshot
taken at ``seq`` followed by the deltas after ``seq`` is exactly the log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from adapters import queries
from adapters.store import Store, game_order
from engine.errors import CommandRefused
from engine.events import INCIDENTS_STREAM, TOURNAMENT_STREAM, AlertRaised, Event, stream_game_id

STABLE_READ_ATTEMPTS = 8
"""How often a read is extended when writers keep appending during it."""

QUIET_KINDS = frozenset({"MovePlayed"})
"""Game-stream events that cannot change the standings (clock streams never do)."""


@dataclass
class Update:
    """What one read of the log found: events after the previous read, and the new objects."""

    seq: int
    events: list[tuple[int, Event]] = field(default_factory=list)
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Game objects that (may) have changed, valid at ``seq``."""
    standings: Any = None
    standings_changed: bool = False
    seen_ms: int = 0
    """Wall-clock instant the gateway read these events."""
    incidents: Any = None
    """The incident book object (``queries.incidents_object``) when it changed, for
    arbiters only; None when it did not."""


class Follower:
    """Reads one store, remembers how far it has read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.seq = 0
        self.game_ids: list[str] = []
        self.standings: Any = None

    # --- objects --------------------------------------------------------------

    def _all_game_ids(self) -> list[str]:
        """Paired games and every game with a stream (one scan of the log, at start)."""
        tournament = self.store.tournament()
        ids = set(tournament.pairings()) if tournament else set()
        ids.update(self.store.game_ids())
        return sorted(ids, key=game_order)

    def _game_object(self, game_id: str) -> dict[str, Any] | None:
        try:
            return queries.game_object(self.store, game_id)
        except CommandRefused:
            return None

    def _read_incidents(self) -> Any:
        """The incident book (3.9, 13.4) for the arbiters' desk; None without a tournament."""
        try:
            return queries.incidents_object(self.store)
        except CommandRefused:
            return None

    def _read_standings(self) -> Any:
        """The standings object; None while there is no tournament."""
        try:
            return queries.standings_object(self.store)
        except CommandRefused:
            return None

    # --- reading --------------------------------------------------------------

    def start(self) -> Update:
        """Every game object and the standings, consistent with one sequence number."""
        for _ in range(STABLE_READ_ATTEMPTS):
            seq = self.store.last_seq()
            ids = self._all_game_ids()
            games = {gid: obj for gid in ids if (obj := self._game_object(gid)) is not None}
            standings = self._read_standings()
            incidents = self._read_incidents()
            if self.store.last_seq() == seq:
                break
        self.seq, self.game_ids, self.standings = seq, list(games), standings
        return Update(seq, [], games, standings, True, now_ms(), incidents)

    def poll(self) -> Update | None:
        """The events appended since the last read, with the objects they changed; None if none."""
        if self.store.last_seq() == self.seq:
            return None
        events: list[tuple[int, Event]] = []
        upto = self.seq
        games: dict[str, dict[str, Any]] = {}
        standings, changed = self.standings, False
        incidents: Any = None
        for _ in range(STABLE_READ_ATTEMPTS):
            target = self.store.last_seq()
            for seq, event in self.store.events_since(upto):
                if seq > target:
                    break
                events.append((seq, event))
            upto = target
            touched, all_games, relevant = touched_by(events)
            if all_games:
                # A tournament event (lots, a withdrawal, a playoff) may pair new games
                # and change any game's object: the paired games and those known.
                tournament = self.store.tournament()
                paired = set(tournament.pairings()) if tournament else set()
                self.game_ids = sorted({*self.game_ids, *paired}, key=game_order)
                touched = set(self.game_ids)
            for gid in sorted(touched, key=game_order):
                obj = self._game_object(gid)
                if obj is not None:
                    games[gid] = obj
                    if gid not in self.game_ids:
                        self.game_ids = sorted({*self.game_ids, gid}, key=game_order)
            if relevant:
                standings = self._read_standings()
                changed = standings != self.standings
            if any(e.originator_id == INCIDENTS_STREAM for _, e in events):
                incidents = self._read_incidents()
            if self.store.last_seq() == target:
                break
        self.seq = upto
        if changed:
            self.standings = standings
        return Update(upto, events, games, standings, changed, now_ms(), incidents)

    def events_between(self, after: int, upto: int) -> list[tuple[int, Event]]:
        """The stored events with ``after < seq <= upto`` (a client's resume)."""
        found: list[tuple[int, Event]] = []
        for seq, event in self.store.events_since(after):
            if seq > upto:
                break
            found.append((seq, event))
        return found

    def alerts_raised(self) -> list[tuple[int, AlertRaised]]:
        """Every stored ``AlertRaised`` with its sequence number (one pass over the log,
        decoding only the alerts): which of them are still open is for the caller."""
        found: list[tuple[int, AlertRaised]] = []
        for notification in self.store.notifications(1):
            if notification.id > self.seq:
                break
            if not notification.topic.endswith(":AlertRaised"):
                continue
            event = self.store.app.mapper.to_domain_event(notification)
            if isinstance(event, AlertRaised):
                found.append((notification.id, event))
        return found


def touched_by(events: list[tuple[int, Event]]) -> tuple[set[str], bool, bool]:
    """(games whose object may change, whether every game may, whether standings may)."""
    games: set[str] = set()
    all_games = relevant = False
    for _, event in events:
        if isinstance(event, AlertRaised):
            continue
        stream = event.originator_id
        if stream == TOURNAMENT_STREAM:
            all_games = relevant = True
            continue
        if stream == INCIDENTS_STREAM:
            relevant = True  # 13.4 e points taken, 3.3.4 rulings: the standings' notes
            continue
        gid = stream_game_id(stream)
        if gid is not None:
            games.add(gid)
            if stream.startswith("game/") and type(event).__name__ not in QUIET_KINDS:
                relevant = True
    return games, all_games, relevant


def now_ms() -> int:
    return time.time_ns() // 1_000_000
