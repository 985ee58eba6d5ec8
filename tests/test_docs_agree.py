"""What docs/protocol.md, README.md and docs/full-event.md say, held to the behaviour.

- a founding command without ``at`` is echoed with ``"at": null``, never 1970-01-01;
- the public channel resumes at a public delay of 0 (it is the live one) and does not
  while it is delayed;
- a resume skips the ``seq`` of an ``AlertRaised``: a commentator never gets one, an
  arbiter gets the alerts still open after ``subscribed``, not the raised events.
"""

from __future__ import annotations

from adapters.store import Store
from tests.gateway_support import ARBITER_TOKEN, COMMENTATOR_TOKEN, Peer, RunningGateway, now_at
from tests.helpers import ARBITERS, ok, paired_tournament


def test_a_founding_command_without_at_is_echoed_with_at_null(sqlite_store: Store) -> None:
    created = ok(
        sqlite_store,
        {
            "cmd": "create_tournament",
            "tournament": "t",
            "name": "No instant given",
            "start_date": "2013-03-13",
            "cycles": 2,
            "players": [
                {"id": p, "name": p, "federation": "F", "rating": 2700} for p in ("a", "b")
            ],
            "arbiters": ARBITERS,
        },
    )
    assert created[0]["type"] == "TournamentCreated" and created[0]["at"] is None


def test_the_public_channel_resumes_at_delay_0_and_not_while_delayed(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at()})
    since = sqlite_store.last_seq()
    with RunningGateway(sqlite_store.url, public_delay_s=0) as gw, Peer(gw) as public:
        public.subscribe(since=since)
        assert public.next("subscribed")["resumed"] is True
    with RunningGateway(sqlite_store.url, public_delay_s=900) as gw, Peer(gw) as public:
        public.subscribe(since=since)
        assert public.next("subscribed")["resumed"] is False


def test_a_commentators_resume_skips_the_seqs_of_arbiters_only_events(
    sqlite_store: Store,
) -> None:
    paired_tournament(sqlite_store)
    ok(sqlite_store, {"cmd": "start_game", "game": "1.1", "at": now_at(-60)})
    since = sqlite_store.last_seq()
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e4", "at": now_at(-50)})
    claim = {"cmd": "claim_draw", "game": "1.1", "by": "black", "kind": "fifty_moves"}
    ok(sqlite_store, {**claim, "at": now_at(-40)})
    rule = {"cmd": "rule_claim", "game": "1.1", "claim": "1", "decision": "rejected"}
    ok(sqlite_store, {**rule, "arbiter": "chief", "at": now_at(-30)})
    ok(sqlite_store, {"cmd": "play_move", "game": "1.1", "move": "e5", "at": now_at(-20)})
    stored = [(seq, event) for seq, event in sqlite_store.cache.events_since(since)]
    alerts = [seq for seq, event in stored if type(event).__name__ == "AlertRaised"]
    others = [seq for seq, event in stored if type(event).__name__ != "AlertRaised"]
    assert alerts and others
    last = sqlite_store.last_seq()
    with RunningGateway(sqlite_store.url, public_delay_s=900) as gw:
        with Peer(gw) as studio:
            studio.subscribe(token=COMMENTATOR_TOKEN, since=since)
            assert studio.next("subscribed")["resumed"] is True
            seen = []
            while not seen or seen[-1] < last:
                seen.append(studio.next("delta")["seq"])
            assert seen == others  # every event the role may see, and no alert's seq
        with Peer(gw) as desk:
            desk.subscribe(token=ARBITER_TOKEN, since=since)
            assert desk.next("subscribed")["resumed"] is True
            seen = []
            while not seen or seen[-1] < last:
                seen.append(desk.next("delta")["seq"])
            # an alert raised and closed while the desk was away is not sent again: the
            # desk gets the alerts still open, and none is (the claim was ruled on)
            assert seen == others
            assert not [f for f in desk.quiet(0.3) if f.get("op") == "alert"]
