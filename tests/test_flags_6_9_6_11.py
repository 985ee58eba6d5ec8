"""Flags as facts of the Laws: 6.9 (the flag falls when the time runs out; a move
completed afterwards does not undo it or count toward the control), 6.8 and 6.10 a
(the arbiter rules, against the evidence only with a reason), 6.11 (both flags down,
which fell first unknown: play on, a draw in the last period).

Each case is checked where people read it: the game JSON, the standings, the PGN,
the Chief Arbiter's report and the audit. Under ``candidates-2012`` (3.5.1:
40 moves / 120 min, 20 / 60 min, then 15 min with 30 s a move from move 61).
"""

from __future__ import annotations

from typing import Any

from adapters.audit import INTEGRITY, RULE, audit_store
from adapters.formats.event_export import game_pgn_text
from adapters.store import Store
from adapters.store.queries import game_object, report_object, standings_object
from tests.helpers import at, ok, paired_tournament, refused

S = 1000
MIN = 60 * S
FALLS = 120 * 60
"""White never moves before it: his 120 minutes run out at 14:00 + 2 h."""
SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def started(store: Store) -> dict[str, Any]:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
    return game_object(store.reads, "1.1")


def move(store: Store, san: str, seconds: float) -> list[dict[str, Any]]:
    return ok(store, {"cmd": "play_move", "game": "1.1", "move": san, "at": at(seconds)})


def rule(store: Store, decision: str, seconds: float, side: str | None, **extra: Any):
    cmd: dict[str, Any] = {
        "cmd": "rule_flag",
        "game": "1.1",
        "arbiter": "chief",
        "decision": decision,
        "at": at(seconds),
        **extra,
    }
    if side is not None:
        cmd["side"] = side
    return cmd


def points(store: Store) -> dict[str, float]:
    return {row["player"]: row["points"] for row in standings_object(store.reads)["rows"]}


def pgn_tags(store: Store) -> dict[str, str]:
    text = game_pgn_text(store.reads, "1.1")
    return dict(
        (line[1:].split(" ", 1)[0], line.split('"')[1])
        for line in text.splitlines()
        if line.startswith("[")
    )


def flag_entries(store: Store) -> list[dict[str, Any]]:
    return [e for e in report_object(store.reads)["entries"] if e["category"] == "flag"]


def overrides(store: Store) -> list[str]:
    return [f.message for f in audit_store(store).of(RULE) if f.kind == "arbiter_override"]


def play_pairs(store: Store, pairs: int, white_s: float, black_s: float, start: float = 0) -> float:
    """``pairs`` moves each, White taking ``white_s`` and Black ``black_s`` a move."""
    now = start
    for i in range(pairs * 2):
        now += white_s if i % 2 == 0 else black_s
        move(store, SHUFFLE[i % 4], now)
    return now


class TestLaws6_9AFallIsAFact:
    def test_6_9_a_move_after_the_fall_does_not_erase_it(self, sqlite_store: Store) -> None:
        store = sqlite_store
        game = started(store)
        move(store, "e4", FALLS + 70)  # White's time ran out 70 s before
        view = game_object(store.reads, "1.1", at_ms=None)
        clock = view["clock"]
        assert clock["white_ms"] == 0  # nothing credited for a move after the fall
        assert clock["flag"]["side"] == "white" and clock["flag"]["fell_at"] == at(FALLS)
        assert clock["falls"] == [{"side": "white", "fell_at": at(FALLS)}]
        assert view["open_flag_alerts"] == ["regulation:white:0"]
        assert view["status"] == "in_progress"  # supervised: the arbiter rules (6.8)
        ok(store, rule(store, "fallen", FALLS + 80, "white"))
        after = game_object(store.reads, "1.1")
        assert (after["result"], after["termination"]) == ("0-1", "time_forfeit")
        assert points(store)[game["black"]] == 1 and points(store)[game["white"]] == 0
        tags = pgn_tags(store)
        assert (tags["Result"], tags["Termination"]) == ("0-1", "time forfeit")
        [ruling] = [e for e in flag_entries(store) if "ruled" in e["summary"]]
        assert "6.9" in ruling["article"] and "Aronian's flag fallen" in ruling["summary"]
        report = audit_store(store)
        assert report.of(INTEGRITY) == [] and overrides(store) == []

    def test_6_9_both_flags_in_order_the_first_is_named(self, sqlite_store: Store) -> None:
        store = sqlite_store
        game = started(store)
        move(store, "e4", FALLS + 70)  # 6.9: White's flag fell at FALLS
        black_falls = FALLS + 70 + 120 * 60  # then Black's 120 minutes run out
        events = ok(store, {"cmd": "check_flags", "at": at(black_falls + 10)})
        assert [e["details"]["side"] for e in events if e["type"] == "AlertRaised"] == ["black"]
        clock = game_object(store.reads, "1.1", at_ms=None)["clock"]
        clock_then = game_object_at(store, black_falls + 10)["clock"]
        assert clock_then["falls"] == [
            {"side": "white", "fell_at": at(FALLS)},
            {"side": "black", "fell_at": at(black_falls)},
        ]
        assert clock_then["flag"]["side"] == "white" and clock_then["flag"]["result"] == "0-1"
        assert clock["falls"][0]["side"] == "white"
        # Black's flag is the later fall: ruling it fallen overrules the first (6.9).
        message = refused(
            store, rule(store, "fallen", black_falls + 20, "black"), "malformed_command"
        )
        assert "first" in message and "white" in message
        ok(store, rule(store, "fallen", black_falls + 20, "white"))
        view = game_object(store.reads, "1.1")
        assert (view["result"], view["termination"]) == ("0-1", "time_forfeit")
        assert view["flag_rulings"][0]["override"] is False
        assert points(store)[game["black"]] == 1
        assert pgn_tags(store)["Result"] == "0-1"
        assert any("ruled Aronian's flag fallen" in e["summary"] for e in flag_entries(store))
        assert audit_store(store).of(INTEGRITY) == [] and overrides(store) == []

    def test_6_9_the_later_fall_ruled_with_a_reason_is_an_override(
        self, sqlite_store: Store
    ) -> None:
        store = sqlite_store
        game = started(store)
        move(store, "e4", FALLS + 70)
        black_falls = FALLS + 70 + 120 * 60
        reason = "the clock on the table showed White's time, and Black's flag down"
        ok(store, rule(store, "fallen", black_falls + 20, "black", reason=reason))
        view = game_object(store.reads, "1.1")
        assert view["result"] == "1-0" and view["flag_rulings"][0]["override"] is True
        assert points(store)[game["white"]] == 1
        assert pgn_tags(store)["Result"] == "1-0"
        assert "rules Carlsen's flag fallen (against the evidence)" in game_pgn_text(
            store.reads, "1.1"
        )
        [entry] = [e for e in flag_entries(store) if "ruled" in e["summary"]]
        assert "against the evidence" in entry["summary"] and reason in entry["summary"]
        [override] = overrides(store)
        assert "black's flag fallen" in override and "6.9" in override
        assert audit_store(store).of(INTEGRITY) == []

    def test_6_9_a_40th_move_after_the_fall_does_not_earn_the_60_minutes(
        self, sqlite_store: Store
    ) -> None:
        store = sqlite_store
        game = started(store)
        # 39 moves each: White 180 s a move (117 min), Black 10 s.
        now = play_pairs(store, 39, 180, 10)
        assert game_object(store.reads, "1.1")["clock"]["white_ms"] == (120 - 117) * MIN
        move(store, "Ng1", now + 3 * 60 + 5)  # White's 40th move, 5 s after his flag fell
        view = game_object(store.reads, "1.1")
        clock = view["clock"]
        assert clock["white_ms"] == 0  # not 60 minutes: the move came after the flag (6.9)
        assert clock["flag"]["side"] == "white"
        assert clock["flag"]["fell_at"] == at(now + 3 * 60)
        assert view["open_flag_alerts"] == ["regulation:white:39"]
        ok(store, rule(store, "fallen", now + 200, "white"))
        assert game_object(store.reads, "1.1")["result"] == "0-1"
        assert points(store)[game["black"]] == 1
        assert pgn_tags(store)["Termination"] == "time forfeit"
        assert any(e["article"].startswith("Laws 2009 6.9") for e in flag_entries(store))
        assert audit_store(store).of(INTEGRITY) == [] and overrides(store) == []


def game_object_at(store: Store, seconds: float) -> dict[str, Any]:
    from tests.helpers import T0_MS

    return game_object(store.reads, "1.1", at_ms=T0_MS + round(seconds * 1000))


class TestLaws6_8And6_10aFallenAgainstTheEvidence:
    def test_6_8_fallen_for_a_side_with_time_needs_a_reason(self, sqlite_store: Store) -> None:
        store = sqlite_store
        game = started(store)
        move(store, "e4", 70)  # White 1:58:50 left, Black running with 2:00:00
        message = refused(store, rule(store, "fallen", 80, "white"), "malformed_command")
        assert "nothing shows white's flag fallen" in message and "1:58:50" in message
        assert game_object(store.reads, "1.1")["status"] == "in_progress"
        reason = "the arbiter saw White's flag down on a clock set wrong"
        ok(store, rule(store, "fallen", 80, "white", reason=reason))
        view = game_object(store.reads, "1.1")
        assert view["result"] == "0-1" and view["flag_rulings"][0]["override"] is True
        assert points(store)[game["black"]] == 1
        assert pgn_tags(store)["Result"] == "0-1"
        [entry] = [e for e in flag_entries(store) if "ruled" in e["summary"]]
        assert "against the evidence" in entry["summary"]
        [override] = overrides(store)
        assert "white's flag fallen" in override and reason in override
        assert audit_store(store).of(INTEGRITY) == []

    def test_6_10_a_a_device_showing_the_flag_is_evidence(self, sqlite_store: Store) -> None:
        store = sqlite_store
        started(store)
        move(store, "e4", 70)
        reading = {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(90),
            "white_ms": 0,
            "black_ms": 119 * MIN,
            "running": "black",
            "by": "dgt:1",
        }
        ok(store, reading)
        ok(store, rule(store, "fallen", 95, "white"))  # the clock on the table: no reason
        assert game_object(store.reads, "1.1")["flag_rulings"][0]["override"] is False
        assert overrides(store) == []


class TestLaws6_11BothFlagsOrderUnknown:
    def both_down(self, store: Store, seconds: float) -> None:
        """A DGT clock showing both flags at 0:00 (the arbiter cannot tell the order)."""
        ok(
            store,
            {
                "cmd": "clock_reading",
                "game": "1.1",
                "at": at(seconds),
                "white_ms": 0,
                "black_ms": 0,
                "running": None,
                "by": "dgt:1",
            },
        )

    def test_6_11_in_a_non_final_period_play_goes_on(self, sqlite_store: Store) -> None:
        store = sqlite_store
        started(store)
        now = play_pairs(store, 10, 10, 10)
        self.both_down(store, now + 5)
        assert len(game_object(store.reads, "1.1")["open_flag_alerts"]) == 2
        refused(store, rule(store, "both_fallen", now + 6, "white"), "malformed_command")
        ok(store, rule(store, "both_fallen", now + 6, None))
        view = game_object(store.reads, "1.1")
        assert view["status"] == "in_progress" and view["result"] == "*"
        assert view["open_flag_alerts"] == []
        [ruling] = view["flag_rulings"]
        assert (ruling["side"], ruling["decision"], ruling["override"]) == (
            "both",
            "both_fallen",
            False,
        )
        assert all(p == 0 for p in points(store).values())
        assert pgn_tags(store)["Result"] == "*"
        assert "both flags down" in game_pgn_text(store.reads, "1.1")
        assert "(Laws 2009 6.11): play goes on" in game_pgn_text(store.reads, "1.1")
        [entry] = flag_entries(store)
        assert "6.11" in entry["article"] and "play goes on" in entry["summary"]
        assert audit_store(store).of(INTEGRITY) == [] and overrides(store) == []
        move(store, "Nf3", now + 30)  # the game goes on
        assert game_object(store.reads, "1.1")["ply"] == 21

    def test_6_11_in_the_final_period_it_is_a_draw(self, sqlite_store: Store) -> None:
        store = sqlite_store
        game = started(store)
        now = play_pairs(store, 61, 10, 10)  # both past move 60: the last period of 3.5.1
        assert game_object(store.reads, "1.1")["clock"]["moves_to_control"] == {
            "white": None,
            "black": None,
        }
        self.both_down(store, now + 5)
        ok(store, rule(store, "both_fallen", now + 6, None))
        view = game_object(store.reads, "1.1")
        assert (view["result"], view["termination"]) == ("1/2-1/2", "both_flags_fallen")
        assert view["clock"]["flag"]["side"] == "both"
        assert points(store)[game["white"]] == 0.5 and points(store)[game["black"]] == 0.5
        tags = pgn_tags(store)
        assert (tags["Result"], tags["Termination"]) == ("1/2-1/2", "normal")  # a draw
        assert "drawn in the last period" in game_pgn_text(store.reads, "1.1")
        entries = flag_entries(store)
        assert any(
            "6.11" in e["article"] and "a draw in the last period" in e["summary"] for e in entries
        )
        assert audit_store(store).of(INTEGRITY) == [] and overrides(store) == []

    def test_6_11_where_the_regulation_clock_shows_the_order_needs_a_reason(
        self, sqlite_store: Store
    ) -> None:
        store = sqlite_store
        started(store)
        move(store, "e4", FALLS + 70)
        black_falls = FALLS + 70 + 120 * 60
        message = refused(
            store, rule(store, "both_fallen", black_falls + 5, None), "malformed_command"
        )
        assert "white's time ran out first" in message and "6.11" in message
        ok(store, rule(store, "both_fallen", black_falls + 5, None, reason="the clock was hidden"))
        assert game_object(store.reads, "1.1")["flag_rulings"][0]["override"] is True
        [override] = overrides(store)
        assert "6.11" in override
