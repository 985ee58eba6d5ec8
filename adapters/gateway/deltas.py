"""From stored events to the frames the gateway fans out (pure: no I/O).

A delta frame carries the event in its contract form and, so that a client never
needs the rules, the objects it changed (the game, other games, the standings). The
incident book, the store's seals and the alerts (a pending claim among them) go to
arbiters only: the public sees an incident's consequences on the games' own streams.
The frames are in docs/protocol.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

from adapters.gateway.frames import AlertFrame, DeltaFrame, Frame, IncidentsFrame
from adapters.store.names import board_alert_tournament, event_tournament, game_key
from adapters.store.queries import IncidentBook
from engine.clock.regulation import run_down_ms
from engine.errors import MalformedCommand
from engine.events import (
    INCIDENTS_STREAM,
    TOURNAMENT_STREAM,
    AlertRaised,
    ChainSealed,
    Event,
    TournamentListed,
    split_stream,
    stream_game_id,
)
from engine.timefmt import format_instant, parse_instant
from projections.claims_view import ClaimShown
from projections.game_view import GameObject
from projections.shapes import EventWire
from projections.standings import Standings

PENDING_CLAIM_STATUSES = frozenset({"pending"})
CLAIM_PENDING = "claim_pending"
"""The alert kind of a claim waiting for a ruling (the engine raises it with the claim)."""
"""Claim statuses that still wait for a ruling by the Chief Arbiter or the Deputy."""


def alert_of(seq: int, event: AlertRaised) -> Frame:
    """An alert frame for arbiters. ``Frame.game`` is the gateway's key of the game
    (``<tournament>/<id>`` for a further tournament's game, from its stream): an alert
    is never taken for the same game id of another tournament."""
    fields = event.payload()
    game = stream_game_id(event.originator_id)
    if game is None and fields.get("game"):
        game = game_key(board_alert_tournament(event), str(fields["game"]), None)
    body: AlertFrame = {
        "op": "alert",
        "seq": seq,
        "kind": str(fields.get("kind")),
        "game": game,
        "message": fields.get("message"),
        "details": fields.get("details"),
        "at": format_instant(event.at_ms),
        "by": event.by,
    }
    return Frame(body, seq, game, audience="arbiter")


def incidents_frame(seq: int, book: IncidentBook, tournament: str) -> Frame:
    """``{"op": "incidents", "seq", "tournament", "book"}``: a tournament's incident book as
    it stands, to the arbiters subscribed to that tournament (or to all)."""
    body: IncidentsFrame = {"op": "incidents", "seq": seq, "tournament": tournament, "book": book}
    return Frame(body, seq, None, audience="arbiter", tournament=tournament)


def pending_claims(game: GameObject | None) -> dict[str, ClaimShown]:
    """The claims of a game object that wait for a ruling, by claim id."""
    if not game:
        return {}
    return {c["id"]: c for c in game["claims"] if c["status"] in PENDING_CLAIM_STATUSES}


def claim_alert(
    seq: int,
    game: GameObject,
    claim: ClaimShown,
    key: str | None = None,
    tournament: str | None = None,
) -> Frame:
    gid = game["game"]
    body: AlertFrame = {
        "op": "alert",
        "seq": seq,
        "kind": CLAIM_PENDING,
        "game": gid,
        "claim": claim,
        "message": f"game {gid}: {claim['by']} claims {claim['kind']} (claim {claim['id']}); "
        "the Chief Arbiter or a Deputy must rule (3.9.2 b)",
    }
    if "tournament" in game:  # absent: the store's first tournament
        body["tournament"] = game["tournament"]
    return Frame(body, seq, key or gid, audience="arbiter", tournament=tournament)


def tournament_frames(
    events: Iterable[tuple[int, Event]],
    objects: Mapping[str, GameObject],
    standings: Mapping[str, Standings | None],
    changed: Iterable[str],
    before: Mapping[str, GameObject] | None,
    first: str | None,
) -> list[Frame]:
    """``frames_for`` for a store of several tournaments: each tournament's events with its
    own objects and standings, every frame of a further tournament naming its
    ``tournament`` (and its plain ``game`` id; ``Frame.game`` keeps the key), merged in
    sequence order. The first tournament's frames are exactly those of a store of one."""
    changed = set(changed)
    by_tournament: dict[str | None, list[tuple[int, Event]]] = {}
    for seq, event in events:
        by_tournament.setdefault(event_tournament(event, first), []).append((seq, event))
    objects_of: dict[str | None, dict[str, GameObject]] = {}
    for key, obj in objects.items():
        objects_of.setdefault(obj.get("tournament", first), {})[key] = obj
    frames: list[Frame] = []
    for tid in dict.fromkeys([*by_tournament, *objects_of, *changed]):
        part = frames_for(
            by_tournament.get(tid, []),
            objects_of.get(tid, {}),
            standings.get(tid) if tid is not None else None,
            tid in changed,
            before,
        )
        for frame in part:
            frame.tournament = tid
            body = frame.body
            if body["op"] not in ("delta", "alert"):
                continue
            if tid != first and tid is not None:  # the first's frames are as in a store of one
                body["tournament"] = tid
            if body["game"] is not None:
                body["game"] = body["game"].rpartition("/")[2]
        frames.extend(part)
    frames.sort(key=lambda f: f.seq)
    return frames


def for_arbiters_only(event: Event) -> bool:
    """Whether an event reaches arbiters alone as a delta: the incident book's and the
    store's seals (``AlertRaised`` is an ``alert`` frame, for arbiters alone as well).
    Every other event is a delta for every client that follows its game."""
    return split_stream(event.originator_id)[1] == INCIDENTS_STREAM or isinstance(
        event, ChainSealed
    )


def frames_for(
    events: Iterable[tuple[int, Event]],
    objects: Mapping[str, GameObject],
    standings: Standings | None = None,
    standings_changed: bool = False,
    before: Mapping[str, GameObject] | None = None,
) -> list[Frame]:
    """The frames of a run of events, in sequence order.

    ``objects`` are the game objects valid after the last event; ``before`` the
    objects the receivers had (for claims that became pending), if known.
    """
    frames: list[Frame] = []
    last: dict[str, tuple[Frame, DeltaFrame]] = {}
    tournament_delta: tuple[Frame, DeltaFrame] | None = None
    last_delta: tuple[Frame, DeltaFrame] | None = None
    raised: set[tuple[str | None, str]] = set()
    for seq, event in events:
        gid = stream_game_id(event.originator_id)
        if isinstance(event, AlertRaised):
            alert = alert_of(seq, event)
            if event.kind == CLAIM_PENDING:
                raised.add((alert.game, str((event.details or {}).get("claim"))))
            frames.append(alert)
            continue
        body: DeltaFrame = {
            "op": "delta",
            "seq": seq,
            "kind": type(event).__name__,
            "game": gid,
            "event": cast(EventWire, event.to_wire()),
        }
        if for_arbiters_only(event):
            frames.append(Frame(body, seq, None, audience="arbiter"))
            continue
        frame = Frame(body, seq, gid)
        frames.append(frame)
        last_delta = (frame, body)
        if gid is not None:
            last[gid] = (frame, body)
        elif split_stream(event.originator_id)[1] == TOURNAMENT_STREAM or isinstance(
            event, TournamentListed
        ):
            tournament_delta = (frame, body)
    others = []
    for gid, obj in objects.items():
        if gid in last:
            last[gid][1]["object"] = obj
        else:
            others.append(obj)
    carrier = tournament_delta or last_delta
    if carrier is not None:
        if others and tournament_delta is not None:
            carrier[1]["games"] = others
            carrier[0].broad = True
        if standings_changed:
            if standings is not None:
                carrier[1]["standings"] = standings
            carrier[0].broad = True
    if before is not None:
        # Claims that became pending without the engine's own alert in this batch.
        alerts: list[Frame] = []
        for gid, obj in objects.items():
            was = pending_claims(before.get(gid))
            seq = last[gid][0].seq if gid in last else (carrier[0].seq if carrier else 0)
            alerts.extend(
                claim_alert(seq, obj, claim, gid)
                for cid, claim in pending_claims(obj).items()
                if cid not in was and (gid, str(cid)) not in raised
            )
        frames.extend(alerts)
    return frames


# --- clocks are not sent every second ------------------------------------------

COUNTDOWN_KEYS = ("white_ms", "black_ms", "running")
INSTANT_KEYS = ("at", "read_at")
VOLATILE_KEYS = frozenset({"stream_version", "by"})
"""Fields of a clock object that change with every reading and tell a viewer nothing."""
CLOCK_TOLERANCE_MS = 1000
"""A DGT clock shows whole seconds: a reading within a second of the countdown is no news."""


def _instant_ms(clock: Mapping[str, object]) -> int | None:
    for key in INSTANT_KEYS:
        text = clock.get(key)
        if isinstance(text, str):
            try:
                return parse_instant(text, key)
            except MalformedCommand:
                return None
    return None


def _countdown_agrees(
    before: Mapping[str, object], after: Mapping[str, object], tolerance: int
) -> bool:
    if before.get("running") != after.get("running"):
        return False
    t0, t1 = _instant_ms(before), _instant_ms(after)
    if t0 is None or t1 is None or t1 < t0:
        return all(before.get(k) == after.get(k) for k in (*COUNTDOWN_KEYS, *INSTANT_KEYS))
    for side in ("white", "black"):
        was, now = before.get(f"{side}_ms"), after.get(f"{side}_ms")
        if not isinstance(was, int) or not isinstance(now, int):
            if was != now:
                return False
            continue
        # the regulation clock's own run-down (engine.clock), not a second copy of it
        expected = run_down_ms(was, t0, t1) if before.get("running") == side else max(0, was)
        if abs(expected - now) > tolerance:
            return False
    return True


def predictable(before: object, after: object, tolerance: int = CLOCK_TOLERANCE_MS) -> bool:
    """Whether ``after`` is ``before`` with its clocks run on: nothing a viewer's
    local countdown does not already show. Clock objects (maps with ``white_ms``,
    ``black_ms``, ``running`` and an instant) are compared by their countdown; all
    else must be equal. Any two values compare: the game objects key by key, down to
    their clocks."""
    if before == after:  # one comparison in C for all that did not change (most of it)
        return True
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        if set(before) != set(after):
            return False
        is_clock = all(k in after for k in COUNTDOWN_KEYS) and any(k in after for k in INSTANT_KEYS)
        if is_clock and not _countdown_agrees(before, after, tolerance):
            return False
        skip = {*COUNTDOWN_KEYS, *INSTANT_KEYS, *VOLATILE_KEYS} if is_clock else set()
        return all(predictable(before[k], after[k], tolerance) for k in after if k not in skip)
    if isinstance(before, list | tuple) and isinstance(after, list | tuple):
        return len(before) == len(after) and all(
            predictable(b, a, tolerance) for b, a in zip(before, after, strict=True)
        )
    return bool(before == after)


def event_stream(frame: Frame) -> str:
    """The stream of a delta's event ("" for any other frame)."""
    return frame.body["event"]["stream"] if frame.body["op"] == "delta" else ""


def quiet_clock_frames(
    frames: list[Frame], before: Mapping[str, GameObject], after: Mapping[str, GameObject]
) -> list[Frame]:
    """Leave out the deltas of clock readings that only confirm the countdown.

    A board's clock is read about once a second; each reading is stored (and
    a client resuming with ``since`` gets it), but it is pushed live only when
    it tells something: the running side changed, the times differ from the
    countdown by more than a second, an alert opened or closed.
    """
    games_with_news: set[str] = set()
    for frame in frames:
        if frame.game is not None and not event_stream(frame).startswith("clock/"):
            games_with_news.add(frame.game)
    kept = []
    for frame in frames:
        gid = frame.game
        if (
            event_stream(frame).startswith("clock/")
            and not frame.broad
            and gid is not None
            and gid not in games_with_news
            and gid in before
            and gid in after
            and predictable(before[gid], after[gid])
        ):
            continue
        kept.append(frame)
    return kept
