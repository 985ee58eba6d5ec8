"""The alerts still open, so an arbiter who connects (or reconnects) has the whole picture.

Each alert frame carries a ``key`` naming what it is about; the gateway keeps the open
ones (pure: no I/O), sends them after every arbiter snapshot and resume, and sends a
``closed`` frame when one is resolved. Whether an alert is open is read from the state
the engine keeps (a claim pending, a clock reading still listing it, a flag not yet
ruled, a game not finished); ``CLOSED_WHEN`` holds these rules by kind
(docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from adapters.gateway.deltas import CLAIM_PENDING, claim_alert, pending_claims
from adapters.gateway.frames import AlertFrame, Frame
from projections.game_view import GameObject

StillOpen = Callable[[AlertFrame, GameObject], bool]


def alert_body(frame: Frame) -> AlertFrame | None:
    """The frame's body when it is an alert."""
    body = frame.body
    return body if body["op"] == "alert" else None


def alert_key(frame: Frame) -> str | None:
    """The key of an alert frame (None for an alert about no game: it is not kept)."""
    body = alert_body(frame)
    if body is None:
        return None
    game = frame.game or body.get("game")
    if not game:
        return None
    kind = body["kind"]
    details = body.get("details") or {}
    if kind == CLAIM_PENDING:
        claim = body["claim"]["id"] if "claim" in body else details.get("claim")
        return f"{game}/claim:{claim}"
    side = details.get("side")
    return f"{game}/{kind}:{side}" if side in ("white", "black") else f"{game}/{kind}"


def _claim_open(body: AlertFrame, game: GameObject) -> bool:
    key = body.get("key", "")
    return key.rpartition("claim:")[2] in {str(c) for c in pending_claims(game)}


def _clock_open(body: AlertFrame, game: GameObject) -> bool:
    device = game["clock"].get("device")
    key = body.get("key", "").rpartition("/")[2]
    return device is not None and key in device["open_alerts"]


def _flag_open(body: AlertFrame, game: GameObject) -> bool:
    side = (body.get("details") or {}).get("side")
    return any(key.split(":")[1:2] == [side] for key in game["open_flag_alerts"])


def _game_open(body: AlertFrame, game: GameObject) -> bool:
    return game["status"] != "finished"


CLOCK_KINDS = frozenset(
    {
        "clock_mismatch",
        "bonus_not_credited",
        "increment_not_credited",
        "increment_started_late",
        "increment_on_control_move",
    }
)
"""Alerts of the clock stream (``engine.game.reconciliation``), open while a reading keeps them."""

CLOSED_WHEN: dict[str, StillOpen] = {CLAIM_PENDING: _claim_open, "flag_fall": _flag_open}
CLOSED_WHEN.update(dict.fromkeys(CLOCK_KINDS, _clock_open))


def still_open(body: AlertFrame, game: GameObject | None) -> bool:
    """Whether the alert is still open by the game object (open while the game is unknown)."""
    if game is None:
        return True
    if game["status"] == "finished":  # nothing is left to rule on a game that is over
        return False
    rule = CLOSED_WHEN.get(body["kind"], _game_open)
    return rule(body, game)


def closing_frame(frame: Frame, alert: AlertFrame, seq: int) -> Frame:
    """The frame that closes an open alert (``alert``: its body)."""
    body: AlertFrame = {
        "op": "alert",
        "seq": seq,
        "key": alert["key"],
        "game": alert.get("game"),
        "kind": alert["kind"],
        "closed": True,
    }
    if alert.get("tournament") is not None:  # absent: the store's first tournament
        body["tournament"] = alert["tournament"]
    return Frame(body, seq, frame.game, audience="arbiter", tournament=frame.tournament)


class OpenAlerts:
    """The open alerts of the live channel, by key, in the order they were raised."""

    def __init__(self) -> None:
        self.frames: dict[str, Frame] = {}

    def update(
        self, frames: Iterable[Frame], objects: Mapping[str, GameObject], seq: int
    ) -> list[Frame]:
        """Keep the new alerts among ``frames``; close those the objects resolve.

        Returns the closing frames to send."""
        for frame in frames:
            body = alert_body(frame)
            if body is None or body.get("closed"):
                continue
            key = alert_key(frame)
            if key is None:
                continue
            body["key"] = key
            if body["kind"] == CLAIM_PENDING and "claim" not in body:
                # the engine's alert names the claim; the frame carries it whole
                claims = pending_claims(objects.get(frame.game or ""))
                found = {str(cid): claim for cid, claim in claims.items()}
                claim = found.get(key.rpartition("claim:")[2])
                if claim is not None:
                    body["claim"] = claim
            frame._cache.clear()
            self.frames[key] = frame
        closed: list[Frame] = []
        for key, frame in list(self.frames.items()):
            game = objects.get(frame.game) if frame.game is not None else None
            body = alert_body(frame)
            if body is not None and frame.game in objects and not still_open(body, game):
                del self.frames[key]
                closed.append(closing_frame(frame, body, seq))
        return closed

    def start(
        self,
        raised: Iterable[Frame],
        objects: Mapping[str, GameObject],
        seq: int,
        first: str | None = None,
    ) -> None:
        """The alerts open at the store's position: those stored (``tournament_frames``:
        each names its tournament), and a claim alert for every claim pending (stored
        alerts first, so their details are kept). ``objects`` are keyed by the gateway's
        game keys; ``first`` is the store's first tournament (its objects name none)."""
        claims = [
            claim_alert(seq, game, claim, key, game.get("tournament", first))
            for key, game in objects.items()
            for claim in pending_claims(game).values()
        ]
        self.update([*raised], objects, seq)
        for frame in claims:
            key = alert_key(frame)
            if key is not None and key not in self.frames:
                self.update([frame], objects, seq)

    def restore(self, frames: Iterable[Frame]) -> None:
        """The alerts open at a kept position (``adapters.gateway.kept_state``), in order."""
        self.frames = {}
        for frame in frames:
            body = alert_body(frame)
            if body is not None:
                self.frames[body["key"]] = frame

    def now(self) -> list[Frame]:
        return list(self.frames.values())
