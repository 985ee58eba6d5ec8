"""From stored events to the frames the gateway fans out (pure: no I/O).

A delta frame is ``{"op": "delta", "seq", "kind", "game", "event", ...}``:
``kind`` is the event's type (``MovePlayed``, ``ResultRecorded``, ...),
``event`` its contract form (``Event.to_wire``). Objects ride along so a
client never needs the rules to follow a game:

- ``object``: the game's object (DESIGN.md ``game``) on the last delta of that
  game in a batch; it is valid at the batch's sequence number.
- ``games``: other game objects a tournament event changed (the drawing of lots
  pairs every game), on that tournament delta.
- ``standings``: the standings object when it changed, on the last delta of the
  batch that could change it.

``AlertRaised`` events become ``{"op": "alert", ...}`` frames for arbiters only,
and so does a claim that becomes pending in a game object (``kind:
"pending_claim"``): the arbiters must rule on it (3.9.2 b).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from adapters.gateway.frames import Frame
from engine.events import TOURNAMENT_STREAM, AlertRaised, Event, stream_game_id
from engine.timefmt import format_instant

PENDING_CLAIM_STATUSES = frozenset({"pending"})
"""Claim statuses that still wait for a ruling by the Chief Arbiter or the Deputy."""


def alert_of(seq: int, event: AlertRaised) -> Frame:
    fields = event.payload()
    game = fields.get("game") or stream_game_id(event.originator_id)
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


def pending_claims(game: Mapping[str, Any] | None) -> dict[Any, dict[str, Any]]:
    """The claims of a game object that wait for a ruling, by claim id."""
    if not game:
        return {}
    return {
        c.get("id"): c
        for c in game.get("claims") or ()
        if isinstance(c, Mapping) and c.get("status") in PENDING_CLAIM_STATUSES
    }


def claim_alert(seq: int, game: Mapping[str, Any], claim: Mapping[str, Any]) -> Frame:
    gid = game.get("game")
    who = claim.get("by")
    body = {
        "op": "alert",
        "seq": seq,
        "kind": "pending_claim",
        "game": gid,
        "claim": dict(claim),
        "message": f"game {gid}: {who} claims {claim.get('kind')} (claim {claim.get('id')}); "
        "the Chief Arbiter or a Deputy must rule (3.9.2 b)",
    }
    return Frame(body, seq, gid, audience="arbiter")


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
        frame = Frame(body, seq, gid)
        frames.append(frame)
        last_delta = frame
        if gid is not None:
            last[gid] = frame
        elif event.originator_id == TOURNAMENT_STREAM:
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
        alerts = []
        for gid, obj in objects.items():
            was = pending_claims(before.get(gid))
            seq = last[gid].seq if gid in last else (carrier.seq if carrier else 0)
            alerts.extend(
                claim_alert(seq, obj, claim)
                for cid, claim in pending_claims(obj).items()
                if cid not in was
            )
        frames.extend(alerts)
    return frames
