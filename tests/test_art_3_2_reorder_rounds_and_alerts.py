"""Events once appended by hand, now decided by the engine: ``reorder_rounds`` (3.2, a
change of the playing schedule) and ``raise_alert`` (a board's alert on ``board/<serial>``)."""

from __future__ import annotations

from adapters.store import Store
from engine.events import AlertRaised, RoundsReordered, board_stream
from tests.helpers import at, ok, paired_tournament, refused

SWAP_6_7 = [1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11, 12, 13, 14]


def reorder(order: list[object], **extra: object) -> dict[str, object]:
    return {
        "cmd": "reorder_rounds",
        "tournament": "london-2013",
        "order": order,
        "reason": "the playing schedule changed",
        **extra,
    }


class TestArt3_2ReorderRounds:
    def test_3_2_round_6_plays_the_tables_round_7(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        table = sqlite_store.reads.tournament()
        assert table is not None
        before = table.pairings()
        [event] = ok(sqlite_store, reorder(SWAP_6_7, by="chief"))
        assert event["type"] == "RoundsReordered" and list(event["order"]) == SWAP_6_7
        after = sqlite_store.reads.tournament()
        assert after is not None and after.round_order == tuple(SWAP_6_7)
        pairings = after.pairings()
        assert pairings["6.1"] == before["7.1"] and pairings["7.1"] == before["6.1"]
        assert pairings["5.1"] == before["5.1"]
        assert isinstance(sqlite_store.cache.stream("tournament")[-1], RoundsReordered)

    def test_3_2_the_order_lists_each_round_once(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        refused(sqlite_store, reorder([1, 2, 3]), "malformed_command")
        refused(sqlite_store, reorder([*SWAP_6_7[:-1], 13]), "malformed_command")
        refused(sqlite_store, reorder([True, *SWAP_6_7[1:]]), "malformed_command")
        refused(sqlite_store, reorder(list(range(1, 15))), "malformed_command")

    def test_3_4_1_the_rounds_are_ordered_once_the_lots_are_drawn(
        self, sqlite_store: Store
    ) -> None:
        paired_tournament(sqlite_store)
        fresh = Store(str(sqlite_store.url) + ".2.sqlite")
        with fresh:
            first = sqlite_store.cache.stream("tournament")[0]
            fresh.append([first])
            refused(fresh, reorder(SWAP_6_7), "rule_violation")

    def test_3_2_a_round_with_a_game_started_keeps_its_pairings(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        ok(sqlite_store, {"cmd": "start_game", "game": "6.2", "at": at(0)})
        message = refused(sqlite_store, reorder(SWAP_6_7), "rule_violation")
        assert "6.2" in message
        ok(sqlite_store, reorder([2, 1, *range(3, 15)]))


class TestBoardAlerts:
    def alert(self, kind: str, seconds: float, **extra: object) -> dict[str, object]:
        return {
            "cmd": "raise_alert",
            "board": "31337",
            "kind": kind,
            "message": f"{kind} seen",
            "at": at(seconds),
            **extra,
        }

    def test_alerts_follow_one_another_on_the_boards_own_stream(self, sqlite_store: Store) -> None:
        [first] = ok(sqlite_store, self.alert("takeback", 1, game="1.1", details={"to": [1, 2]}))
        [second] = ok(sqlite_store, self.alert("board_disconnected", 2))
        assert (first["stream"], first["version"]) == (board_stream("31337"), 1)
        assert (second["stream"], second["version"]) == ("board/31337", 2)
        assert first["by"] == "dgt:31337" and second["game"] is None
        stored = sqlite_store.cache.stream(board_stream("31337"))
        assert [type(e) for e in stored] == [AlertRaised, AlertRaised]
        assert stored[0].details == {"to": (1, 2)}

    def test_a_second_store_on_the_same_file_appends_after_the_first(
        self, sqlite_store: Store
    ) -> None:
        ok(sqlite_store, self.alert("takeback", 1))
        with Store(sqlite_store.url) as other:
            [event] = ok(other, self.alert("new_game", 2))
        assert event["version"] == 2
        [event] = ok(sqlite_store, self.alert("position_restored", 3))
        assert event["version"] == 3

    def test_a_serial_that_is_not_one_is_refused(self, sqlite_store: Store) -> None:
        refused(sqlite_store, {**self.alert("x", 1), "board": "a/b"}, "malformed_command")
        refused(sqlite_store, {**self.alert("x", 1), "details": [1]}, "malformed_command")
