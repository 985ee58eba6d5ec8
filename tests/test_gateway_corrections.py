"""Corrections and flag alerts on the gateway: a client receives the corrected game
object (and the standings it changes) and replaces its state; the arbiters get the
``flag_fall`` alert (Laws 2009 6.8, 7.4 a)."""

from __future__ import annotations

import pytest

from adapters.store import Store, queries
from adapters.store.queries import game_object
from tests.gateway_support import ARBITER_TOKEN, Peer, RunningGateway, dump
from tests.helpers import at, ok, paired_tournament, play


@pytest.fixture
def started(store: Store) -> Store:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return store


def test_7_4_a_clients_receive_the_corrected_object(started: Store) -> None:
    play(started, "1.1", "e4 e5 Nf3 Nc6 Bb5")
    with RunningGateway(started.url) as gw, Peer(gw) as peer:
        peer.subscribe(token=ARBITER_TOKEN)  # the desk sends the correction
        assert peer.next("snapshot")["games"][0]["moves"][-1] == "Bb5"
        correction = {
            "cmd": "correct_moves",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "the board misread Bc4",
            "at": at(100),
            "from_ply": 4,
            "moves": ["Bc4"],
        }
        peer.send({"op": "command", "id": "c1", "command": correction})
        assert peer.next("result")["ok"] is True
        delta = peer.next(lambda f: f.get("kind") == "MovesCorrected")
        assert delta["object"]["moves"] == ["e4", "e5", "Nf3", "Nc6", "Bc4"]
        assert delta["object"]["corrections"][0]["replaced_moves"] == ["Bb5"]
        assert dump(delta["object"]) == dump(game_object(started.reads, "1.1"))


def test_3_9_2_b_a_corrected_result_sends_the_object_and_the_standings(started: Store) -> None:
    ok(started, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(30)})
    with RunningGateway(started.url) as gw, Peer(gw) as peer:
        peer.subscribe()
        peer.next("snapshot")
        fix = {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "White resigned, not Black",
            "at": at(60),
            "result": "0-1",
        }
        ok(started, fix)
        delta = peer.next(lambda f: f.get("kind") == "ResultCorrected")
        assert delta["object"]["result"] == "0-1"
        assert delta["object"]["corrections"][0]["replaced_result"] == "1-0"
        assert dump(delta["standings"]) == dump(queries.standings_object(started.reads))


def test_6_8_the_arbiters_get_the_flag_fall_alert(started: Store) -> None:
    with RunningGateway(started.url) as gw, Peer(gw) as desk:
        desk.subscribe(token=ARBITER_TOKEN)
        desk.next("snapshot")
        ok(started, {"cmd": "check_flags", "at": at(7201)})
        alert = desk.next("alert")
        assert alert["kind"] == "flag_fall" and alert["game"] == "1.1"
        assert alert["details"]["side"] == "white"
