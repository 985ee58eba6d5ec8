"""No subscriber misses an event the gateway's follower has read, whoever wrote it,
and each role gets the events meant for it (docs/protocol.md, "Which events a role
sees"): a commentator every event but the arbiters' own (alerts, the incident book,
the store's seals), an arbiter every one.

The issue's order of commits, made deterministic: another writer's move and its exit
seal, read by the gateway; then the arbiter's move through the gateway's own command
desk, whose reading fails in the public copy (a fault injected into the real
gateway, once). The live update had moved the follower past the move: before the fix
it was dropped with the public part, so neither live clients nor a client resuming
with ``since`` ever got it. A real SQLite or PostgreSQL store, a real server.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.gateway.deltas import for_arbiters_only
from adapters.gateway.public import PublicView
from adapters.store import Store
from tests.gateway_support import ARBITER_TOKEN, COMMENTATOR_TOKEN, Peer, RunningGateway, now_at
from tests.helpers import ok, paired_tournament


def test_a_resumed_client_gets_the_gateways_own_move_after_another_writers_move_and_seal(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    real_poll = PublicView.poll
    armed: list[bool] = []

    def failing_once(self: PublicView, update: Any, now_ms: int) -> Any:
        if armed and update is not None:
            armed.clear()
            raise RuntimeError("the public copy failed (injected)")
        return real_poll(self, update, now_ms)

    monkeypatch.setattr(PublicView, "poll", failing_once)
    with (
        RunningGateway(store.url, public_delay_s=900) as gw,
        Peer(gw) as arbiter,
        Peer(gw) as watcher,
    ):
        arbiter.subscribe(token=ARBITER_TOKEN)
        arbiter.next("snapshot")
        watcher.subscribe(token=COMMENTATOR_TOKEN)
        since = watcher.next("snapshot")["seq"]
        with Store(store.url) as cli:  # another writer: a move, then its exit seal
            ok(cli, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at(-30)})
            moved = cli.last_seq()
            cli.writer.seal_appended()
        sealed = store.last_seq()
        assert sealed == moved + 1
        while watcher.next("delta")["seq"] < moved:
            pass
        arbiter.next(lambda f: f.get("seq") == sealed)  # read by the gateway
        armed.append(True)
        move = {"cmd": "play_move", "game": "1.1", "move": "e5", "at": now_at(-20)}
        arbiter.send({"op": "command", "id": "m", "command": move})
        assert arbiter.next("result")["ok"]
        last = store.last_seq()
        assert last > sealed
        # the live client: the move, or a fresh snapshot that holds it; never silence
        got = watcher.next(lambda f: f.get("seq", 0) >= last and f["op"] in ("delta", "snapshot"))
        if got["op"] == "snapshot":
            assert next(g for g in got["games"] if g["game"] == "1.1")["moves"] == ["e4", "e5"]
        stored = [(seq, e) for seq, e in store.cache.events_since(since) if seq <= last]
        seqs = resumed_seqs(gw, COMMENTATOR_TOKEN, since, last)
        assert seqs == [seq for seq, e in stored if not for_arbiters_only(e)]
        assert sealed not in seqs  # the seal's digests are the arbiters' and the audit's
        assert resumed_seqs(gw, ARBITER_TOKEN, since, last) == [seq for seq, _ in stored]


def resumed_seqs(gw: RunningGateway, token: str, since: int, last: int) -> list[int]:
    """The seqs of the deltas a client resuming with ``since`` gets, up to ``last``."""
    with Peer(gw) as back:
        back.subscribe(token=token, since=since)
        assert back.next("subscribed")["resumed"] is True
        seqs: list[int] = []
        while not seqs or seqs[-1] < last:
            seqs.append(back.next("delta")["seq"])
        return seqs
