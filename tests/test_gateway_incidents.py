"""The incident book over the gateway: arbiters see incidents, the public sees results.

3.9.2 c, 12.3 b, 13.4: the arbiters' channel carries every event of the book and the
book itself (who is out of the playing area, with whom); commentators and the public
get the consequences on the games (a result, a clock), never the incident's details.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from adapters.store import Store
from tests.gateway_support import (
    ARBITER_TOKEN,
    CHIEF_TOKEN,
    COMMENTATOR_TOKEN,
    Peer,
    RunningGateway,
)
from tests.helpers import at, ok, paired_tournament

PHONE = {
    "cmd": "record_incident",
    "game": "1.1",
    "player": "aronian",
    "kind": "device_sounded",
    "at": at(60),
    "details": "a phone rang in his jacket",
    "penalty": "game_lost",
}


def arrived(peer: Peer, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first frame received so far, or within a few seconds, that matches."""
    for _ in range(50):
        found = next((f for f in peer.frames if match(f)), None)
        if found is not None:
            return found
        peer.quiet(0.1)
    raise AssertionError(f"no such frame among {peer.frames!r}"[:2000])


def started(store: Store) -> Store:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    ok(store, {"cmd": "start_game", "game": "1.3", "at": at(0)})
    return store


def test_12_3_b_arbiters_get_the_incident_and_the_public_only_the_result(store: Store) -> None:
    started(store)
    with RunningGateway(store.url) as gw, Peer(gw) as desk, Peer(gw) as studio:
        desk.subscribe(token=CHIEF_TOKEN)
        studio.subscribe(token=COMMENTATOR_TOKEN)
        desk.next("snapshot")
        studio.next("snapshot")
        desk.send({"op": "command", "id": "i1", "command": PHONE})  # the token names the chief
        assert desk.next("result")["ok"] is True
        # the answer and the live frames may arrive in either order: look at everything
        incident = arrived(desk, lambda f: f["op"] == "delta" and f["kind"] == "IncidentRecorded")
        assert incident["event"]["details"] == "a phone rang in his jacket"
        book = arrived(desk, lambda f: f["op"] == "incidents" and bool(f["book"]["incidents"]))
        assert [i["kind"] for i in book["book"]["incidents"]] == ["device_sounded"]
        result = studio.next(lambda f: f["op"] == "delta" and f["kind"] == "ResultRecorded")
        assert result["object"]["result"] == "0-1"
        studio.quiet(0.3)
        seen = studio.frames
        assert not any(f.get("kind") == "IncidentRecorded" for f in seen)
        assert not any(f["op"] == "incidents" for f in seen)
        assert "phone" not in repr(seen)


def test_3_9_2_c_an_arbiter_who_connects_gets_who_is_out_after_the_snapshot(store: Store) -> None:
    started(store)
    ok(
        store,
        {
            "cmd": "permit_leave",
            "player": "ivanchuk",
            "arbiter": "chief",
            "accompanied_by": "deputy",
            "at": at(30),
        },
    )
    with RunningGateway(store.url) as gw, Peer(gw) as desk, Peer(gw) as studio:
        desk.subscribe(token=ARBITER_TOKEN)
        studio.subscribe(token=COMMENTATOR_TOKEN)
        desk.next("snapshot")
        out = desk.next("incidents")["book"]["out"]
        assert [(o["player"], o["accompanied_by"], o["game"]) for o in out] == [
            ("ivanchuk", "deputy", "1.3")
        ]
        studio.next("snapshot")
        assert [f for f in studio.quiet(0.3) if f["op"] == "incidents"] == []
        desk.send(
            {
                "op": "command",
                "id": "r1",
                "command": {"cmd": "returned", "player": "ivanchuk", "at": at(90)},
            }
        )
        assert desk.next("result")["ok"] is True
        assert arrived(desk, lambda f: f["op"] == "incidents" and f["book"]["out"] == [])
