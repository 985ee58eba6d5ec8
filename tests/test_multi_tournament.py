"""Several tournaments in one store (an Open and a Women's event side by side, one team
of arbiters): streams, commands, queries and the command line keep them apart, and a
store or replay log of one tournament loads as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.audit import audit_store
from adapters.formats.pgn_import import import_pgn
from adapters.formats.replay_log import import_log, read_log
from adapters.store import Store
from adapters.store.queries import game_object, standings_object
from adapters.watch.flags import FlagWatch
from engine.events import physical_stream, split_stream, stream_game_id
from tests.cli import candidates
from tests.gateway_support import CHIEF_TOKEN, Peer, RunningGateway
from tests.helpers import ARBITERS, PLAYERS_2013, T0_MS, at, ok, refused

ROOT = Path(__file__).resolve().parents[1]
OLD_LOG = ROOT / "replay_logs" / "candidates-2013.msgpack"
PGN_2013 = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
GOLDEN = ROOT / "tests" / "golden" / "candidates-2013-standings.json"

WOMENS = [
    {"id": f"w{i}", "name": f"Player W{i}", "federation": "FID", "rating": 2500 - i}
    for i in range(1, 9)
]


def create(store: Store, tid: str, players: list[dict[str, Any]]) -> None:
    ok(
        store,
        {
            "cmd": "create_tournament",
            "tournament": tid,
            "name": f"Candidates {tid}",
            "start_date": "2013-03-13",
            "players": players,
            "arbiters": ARBITERS,  # one team of arbiters for both events
        },
    )
    numbers = {p["id"]: i for i, p in enumerate(players, start=1)}
    ok(store, {"cmd": "draw_lots", "tournament": tid, "numbers": numbers})


def two_events(store: Store) -> None:
    create(store, "open", PLAYERS_2013)
    create(store, "womens", WOMENS)


class TestStreams:
    def test_the_first_tournament_keeps_the_plain_names(self) -> None:
        assert physical_stream("game/1.1", None) == "game/1.1"
        assert split_stream("game/1.1") == (None, "game/1.1")
        assert split_stream("tournament") == (None, "tournament")

    def test_a_further_tournament_is_namespaced_by_its_id(self) -> None:
        for logical, stored in [
            ("tournament", "tournament/womens"),
            ("game/1.1", "game/womens/1.1"),
            ("clock/14.4", "clock/womens/14.4"),
        ]:
            assert physical_stream(logical, "womens") == stored
            assert split_stream(stored) == ("womens", logical)
        assert stream_game_id("clock/womens/14.4") == "womens/14.4"  # apart from 14.4


class TestTwoTournaments:
    def test_games_are_kept_apart_under_the_same_ids(self, store: Store) -> None:
        two_events(store)
        for tid, opening in [("open", "e4 e5 Nf3"), ("womens", "d4 Nf6")]:
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
            for i, move in enumerate(opening.split()):
                ok(
                    store,
                    {
                        "cmd": "play_move",
                        "tournament": tid,
                        "game": "1.1",
                        "move": move,
                        "at": at(1 + i * 10),
                    },
                )
        streams = {n.originator_id for n in store.cache.notifications()}
        assert {"tournament", "game/1.1", "tournament/womens", "game/womens/1.1"} <= streams
        assert "tournaments" in streams  # the store's list of its further tournaments
        assert store.registry.tournament_ids() == ["open", "womens"]
        open_game = game_object(store.view("open"), "1.1")
        womens_game = game_object(store.view("womens"), "1.1")
        assert open_game["moves"] == ["e4", "e5", "Nf3"]
        assert womens_game["moves"] == ["d4", "Nf6"]
        assert womens_game["white"] == "w1" and open_game["white"] == PLAYERS_2013[0]["id"]
        assert store.view("open").game_ids() == ["1.1"] == store.view("womens").game_ids()
        # a second process reads the same, and decides on the same state
        with Store(store.url) as other:
            assert other.view("womens").game("1.1") == store.view("womens").game("1.1")
            move = {"cmd": "play_move", "tournament": "womens", "game": "1.1", "move": "c4"}
            ok(other, {**move, "at": at(30)})
        assert len(store.view("womens").game("1.1").moves) == 3  # type: ignore[union-attr]
        assert len(store.view("open").game("1.1").moves) == 3  # type: ignore[union-attr]

    def test_standings_are_kept_apart(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        ok(
            store,
            {"cmd": "resign", "tournament": "open", "game": "1.1", "by": "white", "at": at(5)},
        )
        ok(
            store,
            {"cmd": "resign", "tournament": "womens", "game": "1.1", "by": "black", "at": at(5)},
        )
        open_rows = standings_object(store.view("open"))["rows"]
        womens_rows = standings_object(store.view("womens"))["rows"]
        assert {r["player"] for r in open_rows} == {p["id"] for p in PLAYERS_2013}
        assert {r["player"] for r in womens_rows} == {p["id"] for p in WOMENS}
        assert womens_rows[0]["player"] == "w1" and womens_rows[0]["points"] == 1
        assert open_rows[0]["points"] == 1 and open_rows[0]["player"] != "w1"

    def test_a_shared_arbiter_rules_in_both(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "2.3", "at": at(0)})
            ok(
                store,
                {
                    "cmd": "adjust_clock",
                    "tournament": tid,
                    "game": "2.3",
                    "side": "black",
                    "delta_ms": 120_000,
                    "reason": "7.4 b: illegal move by White",
                    "arbiter": "deputy",
                    "at": at(30),
                },
            )
        for tid in ("open", "womens"):
            clock = game_object(store.view(tid), "2.3")["clock"]
            assert clock["black_ms"] == 122 * 60_000

    def test_a_command_without_its_tournament_is_refused_naming_the_choices(
        self, store: Store
    ) -> None:
        two_events(store)
        message = refused(
            store, {"cmd": "start_game", "game": "1.1", "at": at(0)}, "malformed_command"
        )
        assert "2 tournaments (open, womens)" in message and "'tournament'" in message
        message = refused(
            store,
            {"cmd": "start_game", "tournament": "blitz", "game": "1.1", "at": at(0)},
            "unknown_tournament",
        )
        assert "'blitz'" in message and "'open', 'womens'" in message
        with pytest.raises(Exception, match="2 tournaments"):
            store.reads.game("1.1")

    def test_the_same_id_twice_is_refused(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            cmd = {
                "cmd": "create_tournament",
                "tournament": tid,
                "name": "again",
                "start_date": "2013-03-13",
                "players": WOMENS,
            }
            assert "another id" in refused(store, cmd, "rule_violation")

    def test_a_tournament_id_may_not_hold_a_slash(self, store: Store) -> None:
        create(store, "open", PLAYERS_2013)
        cmd = {
            "cmd": "create_tournament",
            "tournament": "a/b",
            "name": "x",
            "start_date": "2013-03-13",
            "players": WOMENS,
        }
        assert "cannot contain '/'" in refused(store, cmd, "malformed_command")

    def test_the_command_line_takes_tournament(self, tmp_path: Path) -> None:
        path = str(tmp_path / "two.sqlite")
        with Store(path) as store:
            two_events(store)
            ok(store, {"cmd": "start_game", "tournament": "womens", "game": "1.1", "at": at(0)})
        line = json.dumps({"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(3)})
        done = candidates(
            "--tournament", "womens", "apply", "--create", "-", store=path, stdin=line
        )
        assert done.returncode == 0 and json.loads(done.stdout)["ok"], done.stdout + done.stderr
        shown = candidates("--tournament", "womens", "game", "1.1", "--format", "json", store=path)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["moves"] == ["e4"]
        unnamed = candidates("game", "1.1", store=path)
        assert unnamed.returncode == 2 and "name one with 'tournament'" in unnamed.stderr


class TestOldStores:
    def test_an_old_single_tournament_log_imports_and_takes_a_second_event(
        self, sqlite_store: Store
    ) -> None:
        count = import_log(sqlite_store, read_log(OLD_LOG))
        assert count == sqlite_store.cache.count()
        golden = json.loads(GOLDEN.read_text())["standings"]["rows"]
        before = standings_object(sqlite_store.reads)["rows"]
        assert [(r["player"], r["points"], r["sb"]) for r in before] == [
            (r["player"], r["points"], r["sb"]) for r in golden
        ]
        streams_before = {n.originator_id for n in sqlite_store.cache.notifications()}
        create(sqlite_store, "womens-2013", WOMENS)
        # the old event is the first: its streams and answers are unchanged
        assert sqlite_store.registry.tournament_ids() == ["london-2013", "womens-2013"]
        assert standings_object(sqlite_store.view("london-2013"))["rows"] == before
        assert standings_object(sqlite_store.view("womens-2013"))["rows"][0]["points"] == 0
        assert not any("/" in s and s.count("/") > 1 for s in streams_before)
        with Store(sqlite_store.url) as reopened:
            assert reopened.view("london-2013").game("14.4") == sqlite_store.view(
                "london-2013"
            ).game("14.4")


class TestAudit:
    def test_the_audit_keeps_the_games_of_two_tournaments_apart(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
            move = {"cmd": "play_move", "tournament": tid, "game": "1.1", "move": "e4"}
            ok(store, {**move, "at": at(3)})
        store.seal()
        report = audit_store(store)
        assert report.games == 2
        assert [f for f in report.findings if f.severity != "info"] == []

    def test_seals_by_position_are_appended_in_a_store_of_two(self, store: Store) -> None:
        """Seals live on the first tournament's stream and cover the whole store: a store of
        several tournaments is sealed every ``seal_every`` positions like a store of one."""
        store.chain.seal_every = 5
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
            for i, move in enumerate(("e4", "e5", "Nf3", "Nc6")):
                cmd = {"cmd": "play_move", "tournament": tid, "game": "1.1", "move": move}
                ok(store, {**cmd, "at": at(1 + i)})
        seals = [e for _, e in store.cache.events_since(0) if e.originator_id == "tournament"]
        assert any(type(e).__name__ == "ChainSealed" for e in seals)
        assert not [f for f in audit_store(store).of("integrity")]


class TestGateway:
    """One gateway serves every tournament of the store: per tournament, or all of them."""

    def test_a_subscription_to_one_tournament_sees_only_its_boards(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        with (
            RunningGateway(store.url) as gw,
            Peer(gw) as womens,
            Peer(gw) as everything,
            Peer(gw) as first,
        ):
            womens.subscribe(tournament="womens")
            everything.subscribe()
            first.subscribe(tournament="open", games=["1.1"])
            hello = womens.next("subscribed")
            assert hello["tournament"] == "womens"
            assert [t["id"] for t in hello["tournaments"]] == ["open", "womens"]
            snap = womens.next("snapshot")
            assert {g["tournament"] for g in snap["games"]} == {"womens"}
            assert len(snap["games"]) == 56  # every paired game of the double round robin
            assert {r["player"] for r in snap["standings"]["rows"]} == {p["id"] for p in WOMENS}
            both = everything.next("snapshot")
            assert {g.get("tournament", "open") for g in both["games"]} == {"open", "womens"}
            assert [t["id"] for t in both["tournaments"]] == ["open", "womens"]
            first_snap = first.next("snapshot")
            assert [g["game"] for g in first_snap["games"]] == ["1.1"]
            assert "tournament" not in first_snap["games"][0]  # as in a store of one
            for tid, move in [("open", "e4"), ("womens", "d4")]:
                cmd = {"cmd": "play_move", "tournament": tid, "game": "1.1", "move": move}
                ok(store, {**cmd, "at": at(5)})
            delta = womens.next("delta")
            assert (delta["tournament"], delta["game"], delta["object"]["moves"]) == (
                "womens",
                "1.1",
                ["d4"],
            )
            assert delta["event"]["stream"] == "game/womens/1.1"
            seen = [everything.next("delta"), everything.next("delta")]
            assert sorted(d["object"]["moves"][0] for d in seen) == ["d4", "e4"]
            mine = first.next("delta")
            assert mine["object"]["moves"] == ["e4"] and "tournament" not in mine
            assert all(f.get("op") != "delta" for f in womens.quiet(0.5))
            assert all(f.get("op") != "delta" for f in first.quiet(0.1))

    def test_an_unknown_tournament_is_refused_naming_the_choices(self, store: Store) -> None:
        two_events(store)
        with RunningGateway(store.url) as gw, Peer(gw) as peer:
            peer.subscribe(tournament="blitz")
            error = peer.next("error")
            assert error["code"] == "unknown_tournament"
            assert "'open', 'womens'" in error["message"]

    def test_a_shared_arbiter_commands_in_both_through_one_connection(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.2", "at": at(0)})
        with RunningGateway(store.url) as gw, Peer(gw) as arbiter:
            arbiter.subscribe(token=CHIEF_TOKEN)  # acts as the arbiter 'chief' of both
            arbiter.next("snapshot")
            for n, tid in enumerate(("open", "womens")):
                command = {
                    "cmd": "adjust_clock",
                    "tournament": tid,
                    "game": "1.2",
                    "side": "white",
                    "delta_ms": 60_000,
                    "reason": "7.4 b",
                    "at": at(10),
                }
                arbiter.send({"op": "command", "id": f"c{n}", "command": command})
                result = arbiter.next("result")
                assert result["ok"], result
                assert result["events"][0]["arbiter"] == "chief"
        for tid in ("open", "womens"):
            assert game_object(store.view(tid), "1.2")["clock"]["white_ms"] == 121 * 60_000 - 10_000


class TestFlagWatch:
    def test_the_flag_check_runs_per_tournament(self, store: Store) -> None:
        two_events(store)
        for tid in ("open", "womens"):
            ok(store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
        ok(store, {"cmd": "start_game", "tournament": "womens", "game": "1.2", "at": at(0)})
        watch = FlagWatch(store, wall_clock=lambda: T0_MS + 60_000)
        assert watch.live_games_by_tournament(T0_MS + 60_000) == {
            "open": ["1.1"],
            "womens": ["1.1", "1.2"],
        }
        answer = watch.tick()
        assert answer is not None and answer["ok"], answer


class TestImport:
    def test_score_sheets_import_into_the_named_tournament(self, sqlite_store: Store) -> None:
        create(sqlite_store, "womens", WOMENS)
        ok(
            sqlite_store,
            {
                "cmd": "create_tournament",
                "tournament": "london-2013",
                "name": "FIDE Candidates Tournament 2013",
                "start_date": "2013-03-14",
                "players": PLAYERS_2013,
                "arbiters": ARBITERS,
            },
        )
        sqlite_store.registry.default_tournament = (
            "london-2013"  # candidates --tournament london-2013
        )
        reports = import_pgn(sqlite_store, PGN_2013)
        assert sum(r.status == "imported" for r in reports) == 56, reports[0]
        assert len(sqlite_store.view("london-2013").game_ids()) == 56
        assert sqlite_store.view("womens").game_ids() == []
        streams = {n.originator_id for n in sqlite_store.cache.notifications()}
        assert "game/london-2013/14.4" in streams and "game/14.4" not in streams
        rows = standings_object(sqlite_store.view("london-2013"))["rows"]
        assert rows[0]["player"] == "carlsen" and rows[0]["points"] == 8.5


def founding_lines(tid: str, players: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "cmd": "create_tournament",
            "tournament": tid,
            "name": f"Candidates {tid}",
            "start_date": "2013-03-13",
            "players": players,
            "arbiters": ARBITERS,
        },
        {
            "cmd": "draw_lots",
            "tournament": tid,
            "numbers": {p["id"]: i for i, p in enumerate(players, start=1)},
        },
    ]


def resigned(tid: str, game: str, by: str) -> list[dict[str, Any]]:
    return [
        {"cmd": "start_game", "tournament": tid, "game": game, "at": at(0)},
        {"cmd": "play_move", "tournament": tid, "game": game, "move": "e4", "at": at(5)},
        {"cmd": "resign", "tournament": tid, "game": game, "by": by, "at": at(9)},
    ]


THIRD = [{**p, "id": f"x{p['id']}", "name": f"X {p['name']}"} for p in WOMENS[:4]]


@pytest.mark.parametrize(
    "lines",
    [
        # the store: two tournaments (the same players), a game of the second
        # resigned
        founding_lines("open", PLAYERS_2013)
        + founding_lines("rapid", PLAYERS_2013)
        + resigned("rapid", "1.1", "black"),
        # a result in each, the same game id in both
        founding_lines("open", PLAYERS_2013)
        + founding_lines("womens", WOMENS)
        + resigned("open", "1.1", "white")
        + resigned("womens", "1.1", "black")
        + resigned("womens", "1.2", "white"),
        # three tournaments, results in the first and the third only
        founding_lines("open", PLAYERS_2013)
        + founding_lines("womens", WOMENS)
        + founding_lines("third", THIRD)
        + resigned("open", "1.2", "black")
        + resigned("third", "1.1", "white"),
    ],
    ids=["same-players-second-resigned", "both-resigned", "three-tournaments"],
)
def test_art_3_6_1_the_audit_of_a_store_of_several_tournaments_made_by_the_cli_is_clean(
    tmp_path: Path, lines: list[dict[str, Any]]
) -> None:
    """Each tournament's standings are re-derived from its own games only (a further
    tournament's games never count in the first's table) and agree with the live ones."""
    store = str(tmp_path / "s.sqlite")
    path = tmp_path / "commands.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    applied = candidates("apply", "--create", str(path), store=store)
    assert applied.returncode == 0, applied.stdout
    audited = candidates("audit", store=store)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert "projection_differs" not in audited.stdout
