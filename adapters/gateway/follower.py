"""Following the store's notification log (blocking: run it in one executor thread).

The gateway learns of a change only by reading the store, so any number of gateway
processes can serve one store beside any number of writers. A read is repeated,
extended by what was appended meanwhile, until the log did not move during it, so
``Update.seq`` is the position its objects are valid at: a snapshot at ``seq`` and the
deltas after it are exactly the log. Every tournament of the store is followed; a
follower resuming from a kept state reads only the events after its position
(docs/architecture.md, "One log, many processes")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from adapters.host.clock import wall_clock_ms
from adapters.store import Store, TournamentView, game_order, queries
from adapters.store.names import event_tournament, game_key
from adapters.store.queries import IncidentBook
from engine.errors import CommandRefused
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    TOURNAMENTS_STREAM,
    AlertRaised,
    Event,
    TournamentListed,
    split_stream,
    stream_game_id,
)
from projections.game_view import GameObject
from projections.needs import NeedsInputs
from projections.standings import Standings

STABLE_READ_ATTEMPTS = 8
"""How often a read is extended when writers keep appending during it."""

QUIET_KINDS = frozenset({"MovePlayed"})
"""Game-stream events that cannot change the standings (clock streams never do)."""
QUIET_TOPICS = tuple(f":{kind}" for kind in QUIET_KINDS)
ALERT_TOPIC = ":AlertRaised"


@dataclass
class Update:
    """What one read of the log found: events after the previous read, and the new objects."""

    seq: int
    events: list[tuple[int, Event]] = field(default_factory=list)
    games: dict[str, GameObject] = field(default_factory=dict)
    """Game objects that (may) have changed, valid at ``seq``, by game key (``game_key``)."""
    standings: dict[str, Standings | None] = field(default_factory=dict)
    """Each tournament's standings (by tournament id; None while it has none)."""
    standings_changed: set[str] = field(default_factory=set)
    """The tournaments whose standings changed."""
    seen_ms: int = 0
    """Wall-clock instant the gateway read these events."""
    first: str | None = None
    """The store's first tournament (whose game keys are the plain game ids)."""
    names: dict[str, str] = field(default_factory=dict)
    """Tournament id -> its name, for every tournament of the store."""
    incidents: dict[str, IncidentBook] = field(default_factory=dict)
    """Each tournament's incident book object (``queries.incidents_object``) that changed
    (every one at start), by tournament id: for arbiters only."""
    raised: list[tuple[int, AlertRaised]] = field(default_factory=list)
    """At start: the alerts raised in the events read (all of them, or those after the
    kept position); which are still open is for the caller."""
    folded: int = 0
    """At start: how many events were read from the log (after the kept position)."""
    needs: dict[str, NeedsInputs | None] = field(default_factory=dict)
    """What the ``needs`` objects are computed from (``queries.needs_inputs``, None for a
    tournament without pairings) where the standings changed (every tournament at
    start), by tournament: computed off the reader thread (``needs_feed``)."""


@dataclass
class Resumed:
    """What a follower knew at a position (a kept state): it reads the log after it."""

    position: int
    games: dict[str, list[str]]
    """Tournament id -> its known game ids."""
    standings: dict[str, Standings | None]
    """Tournament id -> its standings object at ``position``."""


@dataclass
class LogScan:
    """One pass over the notification log after ``position``, decoding only the alerts:
    the games with a stream and the tournaments whose standings may have changed (by
    namespace: None for the store's first tournament), the alerts raised, the number
    of events read."""

    position: int = 0
    games: dict[str | None, set[str]] = field(default_factory=dict)
    touched: set[str | None] = field(default_factory=set)
    raised: list[tuple[int, AlertRaised]] = field(default_factory=list)
    events: int = 0

    def read(self, store: Store, upto: int) -> None:
        """Read the events after ``position`` up to ``upto`` (extends the scan)."""
        if upto <= self.position:
            return
        for notification in store.cache.notifications(self.position + 1):
            if notification.id > upto:
                break
            self.events += 1
            topic = notification.topic
            namespace, name = split_stream(str(notification.originator_id))
            if name.startswith("game/"):
                self.games.setdefault(namespace, set()).add(name.removeprefix("game/"))
            if topic.endswith(ALERT_TOPIC):
                event = store.app.mapper.to_domain_event(notification)
                if isinstance(event, AlertRaised):
                    self.raised.append((notification.id, event))
            elif name in (TOURNAMENT_STREAM, TOURNAMENTS_STREAM, INCIDENTS_STREAM) or (
                name.startswith("game/") and not topic.endswith(QUIET_TOPICS)
            ):
                self.touched.add(namespace)  # as ``touched_by`` says of the decoded events
        self.position = upto


class Follower:
    """Reads one store, every tournament of it, remembers how far it has read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.seq = 0
        self.game_ids: dict[str, list[str]] = {}
        """Tournament id -> its known game ids."""
        self.standings: dict[str, Standings | None] = {}
        self.names: dict[str, str] = {}
        self.first: str | None = None

    # --- objects --------------------------------------------------------------

    def _view(self, tid: str) -> TournamentView:
        return self.store.view(tid)

    def _paired(self, tid: str) -> set[str]:
        tournament = self._view(tid).tournament()
        if tournament is not None:
            self.names[tid] = tournament.name
        return set(tournament.pairings()) if tournament else set()

    def _game_object(self, tid: str, game_id: str) -> GameObject | None:
        try:
            obj = queries.game_object(self._view(tid), game_id)
        except CommandRefused:
            return None
        if tid != self.first:  # the first tournament's objects are as in a store of one
            obj["tournament"] = tid
        return obj

    def _read_standings(self, tid: str) -> Standings | None:
        """A tournament's standings object; None while it has none."""
        try:
            return queries.standings_object(self._view(tid))
        except CommandRefused:
            return None

    def _needs_inputs(self, tid: str) -> NeedsInputs | None:
        """What a tournament's ``needs`` object is computed from; None while it has none."""
        try:
            return queries.needs_inputs(self._view(tid))
        except CommandRefused:
            return None

    def _tournaments(self) -> list[str]:
        self.first = self.store.registry.first_tournament_id()
        return self.store.registry.tournament_ids()

    def _read_incidents(self, tids: Iterable[str]) -> dict[str, IncidentBook]:
        """The incident books (3.9, 13.4) of these tournaments, for the arbiters' desk (a
        tournament without one is left out)."""
        books: dict[str, IncidentBook] = {}
        for tid in tids:
            try:
                books[tid] = queries.incidents_object(self._view(tid))
            except CommandRefused:
                continue
        return books

    # --- reading --------------------------------------------------------------

    def start(self, resumed: Resumed | None = None) -> Update:
        """Every game object and the standings, consistent with one sequence number.

        From a kept state (``resumed``), only the events after its position are read:
        its games and standings stand but for what those events changed."""
        scan = LogScan(resumed.position if resumed else 0)
        kept_standings = resumed.standings if resumed else {}
        for _ in range(STABLE_READ_ATTEMPTS):
            seq = self.store.last_seq()
            scan.read(self.store, seq)
            games: dict[str, GameObject] = {}
            ids: dict[str, list[str]] = {}
            standings: dict[str, Standings | None] = {}
            tournaments = self._tournaments()
            for tid in tournaments:
                namespace = None if tid == self.first else tid
                known = set(resumed.games.get(tid, ())) if resumed else set()
                known |= self._paired(tid) | scan.games.get(namespace, set())
                ids[tid] = []
                for gid in sorted(known, key=game_order):
                    obj = self._game_object(tid, gid)
                    if obj is not None:
                        games[game_key(tid, gid, self.first)] = obj
                        ids[tid].append(gid)
                if tid in kept_standings and namespace not in scan.touched:
                    standings[tid] = kept_standings[tid]
                else:
                    standings[tid] = self._read_standings(tid)
            incidents = self._read_incidents(tournaments)
            needs = {tid: self._needs_inputs(tid) for tid in tournaments}
            if self.store.last_seq() == seq:
                break
        self.seq, self.game_ids, self.standings = seq, ids, standings
        return Update(
            seq,
            [],
            games,
            standings,
            set(standings),
            wall_clock_ms(),
            first=self.first,
            names=dict(self.names),
            incidents=incidents,
            raised=scan.raised,
            folded=scan.events,
            needs=needs,
        )

    def poll(self) -> Update | None:
        """The events appended since the last read, with the objects they changed; None if none.

        The events read are folded into the store's cached states (``StateCache.take_in``),
        so the objects are those at the last event read, with no further query; only
        when an object had to be read from the database (a stream not cached) is the
        read checked against the log and extended if writers appended meanwhile."""
        store = self.store
        fresh = list(store.cache.events_since(self.seq))
        if not fresh:
            return None
        store.cache.take_in(self.seq, fresh)
        events = fresh
        upto = fresh[-1][0]
        games: dict[str, GameObject] = {}
        standings = dict(self.standings)
        changed: set[str] = set()
        incidents: dict[str, IncidentBook] = {}
        needs: dict[str, NeedsInputs | None] = {}
        for _ in range(STABLE_READ_ATTEMPTS):
            reads = store.cache.stream_reads
            with store.cache.session(look=False):
                incidents.update(self._objects(events, games, standings, changed))
                needs.update({t: self._needs_inputs(t) for t in changed})
            if store.cache.stream_reads == reads or store.last_seq() == upto:
                break
            fresh = list(store.cache.events_since(upto))
            store.cache.take_in(upto, fresh)
            events += fresh
            upto = fresh[-1][0] if fresh else upto
        self.seq = upto
        self.standings = standings
        return Update(
            upto,
            events,
            games,
            standings,
            changed,
            wall_clock_ms(),
            first=self.first,
            names=dict(self.names),
            incidents=incidents,
            needs=needs,
        )

    def _objects(
        self,
        events: list[tuple[int, Event]],
        games: dict[str, GameObject],
        standings: dict[str, Standings | None],
        changed: set[str],
    ) -> dict[str, IncidentBook]:
        """The objects ``events`` may have changed, read into ``games`` and ``standings``
        (``changed``: the tournaments whose standings did); the incident books that may
        have changed, by tournament."""
        if self.first is None or any(isinstance(e, TournamentListed) for _, e in events):
            self._tournaments()
        touched, all_games, relevant = touched_by(events, self.first)
        for tid in all_games:
            # A tournament event (lots, a withdrawal, a playoff) may pair new games
            # and change any game's object: the paired games and those known.
            known = self.game_ids.get(tid, [])
            self.game_ids[tid] = sorted({*known, *self._paired(tid)}, key=game_order)
            touched.update((tid, gid) for gid in self.game_ids[tid])
        for tid, gid in sorted(touched, key=lambda t: (t[0], game_order(t[1]))):
            obj = self._game_object(tid, gid)
            if obj is not None:
                games[game_key(tid, gid, self.first)] = obj
                known = self.game_ids.get(tid, [])
                if gid not in known:
                    self.game_ids[tid] = sorted({*known, gid}, key=game_order)
        for tid in relevant:
            standings[tid] = self._read_standings(tid)
            if standings[tid] != self.standings.get(tid):
                changed.add(tid)
            else:
                changed.discard(tid)
        return self._read_incidents(books_touched(events, self.first))

    def events_between(self, after: int, upto: int) -> list[tuple[int, Event]]:
        """The stored events with ``after < seq <= upto`` (a client's resume)."""
        found: list[tuple[int, Event]] = []
        for seq, event in self.store.cache.events_since(after):
            if seq > upto:
                break
            found.append((seq, event))
        return found


def touched_by(
    events: list[tuple[int, Event]], first: str | None
) -> tuple[set[tuple[str, str]], set[str], set[str]]:
    """((tournament, game) whose object may change, tournaments whose every game may,
    tournaments whose standings may)."""
    games: set[tuple[str, str]] = set()
    all_games: set[str] = set()
    relevant: set[str] = set()
    for _, event in events:
        if isinstance(event, AlertRaised):
            continue
        tid = event_tournament(event, first)
        if tid is None:
            continue
        name = split_stream(event.originator_id)[1]
        if name in (TOURNAMENT_STREAM, TOURNAMENTS_STREAM, INCIDENTS_STREAM):
            # a tournament event may pair games; 13.4 e points taken, 3.3.4 rulings: the
            # standings' notes
            if name != INCIDENTS_STREAM:
                all_games.add(tid)
            relevant.add(tid)
            continue
        gid = stream_game_id(name)
        if gid is not None:
            games.add((tid, gid))
            if name.startswith("game/") and type(event).__name__ not in QUIET_KINDS:
                relevant.add(tid)
    return games, all_games, relevant


def books_touched(events: list[tuple[int, Event]], first: str | None) -> list[str]:
    """The tournaments whose incident book (their ``incidents`` stream) has new events."""
    found: dict[str, None] = {}
    for _, event in events:
        if split_stream(event.originator_id)[1] == INCIDENTS_STREAM:
            tid = event_tournament(event, first)
            if tid is not None:
                found[tid] = None
    return list(found)
