"""From stored events to the frames the gateway fans out (pure: no I/O).

A delta frame carries the event in its contract form and, so that a client never
needs the rules, the objects it changed (the game, other games, the standings). The
incident book, the store's seals and the alerts (a pending claim among them) go to
arbiters only: the public sees an incident's consequences on the games' own streams.
The frames are in docs/protocol.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from adapters.gateway.frames import Frame
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
        tournament = board_alert_tournament(event)
        game = f"{tournament}/{fields['game']}" if tournament else fields["game"]
    body = {
        "op": "alert",
        "seq": seq,
        "kind": fields.get("kind"),
        "game": game,
        "message": fields.get("message"),
        "details": fields.get("details"),
        "at": format_instant(event.at_ms),
        "by": event.by,
    }
    return Frame(body, seq, game, audience="arbiter")


def incidents_frame(seq: int, book: Mapping[str, Any], tournament: str) -> Frame:
    """``{"op": "incidents", "seq", "tournament", "book"}``: a tournament's incident book as
    it stands, to the arbiters subscribed to that tournament (or to all)."""
    body = {"op": "incidents", "seq": seq, "tournament": tournament, "book": dict(book)}
    return Frame(body, seq, None, audience="arbiter", tournament=tournament)


def pending_claims(game: Mapping[str, Any] | None) -> dict[Any, Mapping[str, Any]]:
    """The claims of a game object that wait for a ruling, by claim id."""
    if not game:
        return {}
    return {
        c.get("id"): c
        for c in game.get("claims") or ()
        if isinstance(c, Mapping) and c.get("status") in PENDING_CLAIM_STATUSES
    }


def claim_alert(
    seq: int,
    game: Mapping[str, Any],
    claim: Mapping[str, Any],
    key: str | None = None,
    tournament: str | None = None,
) -> Frame:
    gid = game.get("game")
    who = claim.get("by")
    body = {
        "op": "alert",
        "seq": seq,
        "kind": CLAIM_PENDING,
        "game": gid,
        "claim": dict(claim),
        "message": f"game {gid}: {who} claims {claim.get('kind')} (claim {claim.get('id')}); "
        "the Chief Arbiter or a Deputy must rule (3.9.2 b)",
    }
    if game.get("tournament") is not None:  # absent: the store's first tournament
        body["tournament"] = game["tournament"]
    return Frame(body, seq, key or gid, audience="arbiter", tournament=tournament)


def game_key(tournament: str | None, game_id: str, first: str | None) -> str:
    """How the gateway names a game among every tournament's: its id in the store's first
    tournament, ``<tournament>/<id>`` in the others (as ``stream_game_id`` names them)."""
    if tournament is None or tournament == first:
        return game_id
    return f"{tournament}/{game_id}"


def event_tournament(event: Event, first: str | None) -> str | None:
    """The tournament an event belongs to (the store's list names the one it lists)."""
    if isinstance(event, TournamentListed):
        return event.tournament
    namespace, _ = split_stream(event.originator_id)
    if namespace is None and isinstance(event, AlertRaised):
        namespace = board_alert_tournament(event)
    return namespace if namespace is not None else first


def board_alert_tournament(event: AlertRaised) -> str | None:
    """The further tournament a board's alert (on the shared ``board/<serial>``) was
    raised for (the store names it in the details); None for the first's."""
    if stream_game_id(event.originator_id) is not None:
        return None
    tournament = (event.details or {}).get("tournament")
    return tournament if isinstance(tournament, str) else None


def object_key(obj: Mapping[str, Any], first: str | None) -> str:
    """The gateway's key of a game object (``follower.game_key``)."""
    tid, gid = obj.get("tournament"), str(obj.get("game"))
    return gid if tid is None or tid == first else f"{tid}/{gid}"


def tournament_frames(
    events: Iterable[tuple[int, Event]],
    objects: Mapping[str, dict[str, Any]],
    standings: Mapping[str, Any],
    changed: Iterable[str],
    before: Mapping[str, dict[str, Any]] | None,
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
    objects_of: dict[str | None, dict[str, dict[str, Any]]] = {}
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
            if tid != first:  # the first tournament's frames are as in a store of one
                frame.body["tournament"] = tid
            if isinstance(frame.body.get("game"), str):
                frame.body["game"] = frame.body["game"].rpartition("/")[2]
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
    objects: Mapping[str, dict[str, Any]],
    standings: Any = None,
    standings_changed: bool = False,
    before: Mapping[str, dict[str, Any]] | None = None,
) -> list[Frame]:
    """The frames of a run of events, in sequence order.

    ``objects`` are the game objects valid after the last event; ``before`` the
    objects the receivers had (for claims that became pending), if known.
    """
    frames: list[Frame] = []
    last: dict[str, Frame] = {}
    tournament_delta: Frame | None = None
    last_delta: Frame | None = None
    for seq, event in events:
        gid = stream_game_id(event.originator_id)
        if isinstance(event, AlertRaised):
            frames.append(alert_of(seq, event))
            continue
        body = {
            "op": "delta",
            "seq": seq,
            "kind": type(event).__name__,
            "game": gid,
            "event": event.to_wire(),
        }
        if for_arbiters_only(event):
            frames.append(Frame(body, seq, None, audience="arbiter"))
            continue
        frame = Frame(body, seq, gid)
        frames.append(frame)
        last_delta = frame
        if gid is not None:
            last[gid] = frame
        elif split_stream(event.originator_id)[1] == TOURNAMENT_STREAM or isinstance(
            event, TournamentListed
        ):
            tournament_delta = frame
    others = []
    for gid, obj in objects.items():
        if gid in last:
            last[gid].body["object"] = obj
        else:
            others.append(obj)
    carrier = tournament_delta or last_delta
    if carrier is not None:
        if others and tournament_delta is not None:
            carrier.body["games"] = others
            carrier.broad = True
        if standings_changed:
            carrier.body["standings"] = standings
            carrier.broad = True
    if before is not None:
        # Claims that became pending without the engine's own alert in this batch.
        raised = {
            (f.game, str((f.body.get("details") or {}).get("claim")))
            for f in frames
            if f.body["op"] == "alert" and f.body.get("kind") == CLAIM_PENDING
        }
        alerts: list[Frame] = []
        for gid, obj in objects.items():
            was = pending_claims(before.get(gid))
            seq = last[gid].seq if gid in last else (carrier.seq if carrier else 0)
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


def _instant_ms(clock: Mapping[str, Any]) -> int | None:
    for key in INSTANT_KEYS:
        if isinstance(clock.get(key), str):
            try:
                return parse_instant(clock[key], key)
            except MalformedCommand:
                return None
    return None


def _countdown_agrees(before: Mapping[str, Any], after: Mapping[str, Any], tolerance: int) -> bool:
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


def predictable(before: Any, after: Any, tolerance: int = CLOCK_TOLERANCE_MS) -> bool:
    """Whether ``after`` is ``before`` with its clocks run on: nothing a viewer's
    local countdown does not already show. Clock objects (maps with ``white_ms``,
    ``black_ms``, ``running`` and an instant) are compared by their countdown; all
    else must be equal."""
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


def quiet_clock_frames(
    frames: list[Frame], before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Frame]:
    """Leave out the deltas of clock readings that only confirm the countdown.

    A board's clock is read about once a second; each reading is stored (and
    a client resuming with ``since`` gets it), but it is pushed live only when
    it tells something: the running side changed, the times differ from the
    countdown by more than a second, an alert opened or closed.
    """
    games_with_news: set[str] = set()
    for frame in frames:
        stream = str(frame.body.get("event", {}).get("stream", ""))
        if frame.game is not None and not stream.startswith("clock/"):
            games_with_news.add(frame.game)
    kept = []
    for frame in frames:
        gid = frame.game
        stream = str(frame.body.get("event", {}).get("stream", ""))
        if (
            frame.body.get("op") == "delta"
            and stream.startswith("clock/")
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
