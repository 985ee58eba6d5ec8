"""A whole event run by the Chief Arbiter through the real command line.

A fictional four-player double round robin (articles 3.1-3.8 of the 2012
Candidates regulations) is driven round by round with ``candidates apply``
(the CLI in a subprocess, one JSON command a line), and read back with
``candidates game``, ``pgn``, ``standings``, ``crosstable`` and ``prizes``.

The event:

- Ada (ENG), Boris and Carmen (both ESP, so they meet in round 1 of each
  cycle, 3.1), Dmitri (RUS); lots drawn from the seed ``scenario-2026``
  (3.4.1): Dmitri 1, Boris 2, Carmen 3, Ada 4.
- Round 1: Volkov - Lovelace is a real game (Grischuk - Kramnik, London
  2013, round 10) played at 90 s / 60 s a move with device clock readings:
  White's 40th move credits the second period's hour (3.5.1), White
  resigns after Black's 41st. Ortega - Ruiz: an illegal move (+2 min to
  the opponent, Laws 2009 7.4 b), a threefold claim rejected (+3 min to the
  opponent, 9.5) and then one accepted (9.2).
- Round 2: Volkov's flag falls in Volkov - Ortega: the flag check alerts the arbiters,
  the Chief Arbiter rules it fallen (Laws 2009 6.8, 6.9).
- Round 3: Volkov beats Ruiz; after three of his six games (50%) he
  withdraws: his other games are lost by default (3.1).
- Ada and Boris finish on 4 points, level after 3.7 a (1 each), b (2 wins
  each) and c (9 each): the playoff of 3.7.1-3.7.3 runs: two rapid games
  (25 min + 10 s), three blitz series, then a sudden-death game in which a
  draw is a win for Black.
- Prizes (3.8.1): places 1-2 shared by the players level on points; the
  withdrawn player's prize remains with FIDE (3.8.2).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.timefmt import format_instant, parse_instant
from tests.cli import candidates, json_lines
from tests.conftest import PG_URL, _pg_schema_url

SEED = "scenario-2026"
PLAYERS = [
    {"id": "ada", "name": "Lovelace, Ada", "federation": "ENG", "rating": 2781},
    {"id": "boris", "name": "Ortega, Boris", "federation": "ESP", "rating": 2765},
    {"id": "carmen", "name": "Ruiz, Carmen", "federation": "ESP", "rating": 2752},
    {"id": "dmitri", "name": "Volkov, Dmitri", "federation": "RUS", "rating": 2740},
]
NAMES = {p["id"]: p["name"] for p in PLAYERS}
ARBITERS = [
    {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
    {"id": "deputy", "name": "Deputy Arbiter", "role": "deputy"},
    {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
]
START_DATE = "2026-03-01"
"""Day 1 (arrivals); day 2 the opening; rounds 1-3 on days 3-5, free day 6, rounds 4-6 days 7-9."""

ROUND_DAY = {1: "2026-03-03", 2: "2026-03-04", 3: "2026-03-05", 4: "2026-03-07"}
ROUND_DAY |= {5: "2026-03-08", 6: "2026-03-09"}
PLAYOFF_DAY = "2026-03-10"

LONDON_2013_R10_GRISCHUK_KRAMNIK = str.split(
    "e4 e5 Nf3 Nc6 Bb5 Nf6 O-O Nxe4 d4 Nd6 Bxc6 dxc6 dxe5 Nf5 Qxd8+ Kxd8 Nc3 Bd7 h3 h6 "
    "Rd1 Kc8 a4 a5 b3 b6 Bb2 Ne7 Rd2 c5 Ne2 Ng6 Rad1 Be6 c4 Be7 Nc3 Kb7 Nd5 Rad8 Nxe7 Rxd2 "
    "Nxd2 Nxe7 Nf1 Kc8 f3 g5 Ng3 Rd8 Rxd8+ Kxd8 Kf2 Bf5 Nxf5 Nxf5 g4 Nd4 Bxd4 cxd4 Ke2 Kd7 "
    "Kd3 c5 Ke4 Ke6 f4 gxf4 Kxf4 d3 Ke3 Kxe5 Kxd3 Kf4 Ke2 Kg3 Ke3 Kxh3 Kf4 Kh4 Kf5 Kg3"
)
"""0-1 in 41 moves; the score sheet of the round the scenario replays as round 1."""

MIN = 60_000
HOUR = 60 * MIN


def at(day: str, seconds: float) -> str:
    """An instant ``seconds`` after 15:00 UTC on ``day`` (the rounds' start)."""
    return format_instant(parse_instant(f"{day}T15:00:00Z") + round(seconds * 1000))


class Event:
    """One store, driven only through the ``candidates`` command line."""

    def __init__(self, store: str) -> None:
        self.store = store

    def apply(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Every command must be accepted; returns the answers, one per command."""
        answers = self.apply_raw("\n".join(json.dumps(c) for c in commands) + "\n")
        for command, answer in zip(commands, answers, strict=True):
            assert answer["ok"], (command, answer)
        return answers

    def apply_raw(self, text: str, *, status: int = 0) -> list[dict[str, Any]]:
        done = candidates("apply", "--create", "-", store=self.store, stdin=text)
        assert done.returncode == status, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        return json_lines(done.stdout)

    def refused(self, command: dict[str, Any] | str, code: str) -> str:
        """A command refused with ``code``; nothing appended. Returns the message."""
        before = self.count()
        text = command if isinstance(command, str) else json.dumps(command)
        [answer] = self.apply_raw(text + "\n", status=1)
        assert answer["ok"] is False, answer
        assert answer["error"]["code"] == code, answer
        assert self.count() == before, "a refused command appended events"
        return str(answer["error"]["message"])

    def count(self) -> int:
        from adapters.store import Store

        with Store(self.store) as store:
            return store.cache.count()

    def query(self, *args: str) -> Any:
        done = candidates(*args, "--format", "json", store=self.store)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def standings(self, after_round: int | None = None) -> dict[str, Any]:
        extra = () if after_round is None else ("--after-round", str(after_round))
        table: dict[str, Any] = self.query("standings", *extra)
        return table

    def game(self, game_id: str, at_instant: str | None = None) -> dict[str, Any]:
        extra = () if at_instant is None else ("--at", at_instant)
        view: dict[str, Any] = self.query("game", game_id, *extra)
        return view

    def text(self, *args: str) -> str:
        done = candidates(*args, store=self.store)
        assert done.returncode == 0, done.stderr
        return done.stdout


def points(table: dict[str, Any]) -> dict[str, float]:
    return {row["player"]: row["points"] for row in table["rows"]}


def ranks(table: dict[str, Any]) -> list[tuple[int, str]]:
    return [(row["rank"], row["player"]) for row in table["rows"]]


def moves(game: str, sans: list[str], day: str, start_s: float, white_s: float, black_s: float):
    """play_move commands, White thinking ``white_s`` and Black ``black_s`` a move."""
    now, out = start_s, []
    for ply, san in enumerate(sans):
        now += white_s if ply % 2 == 0 else black_s
        out.append({"cmd": "play_move", "game": game, "move": san, "at": at(day, now)})
    return out, now


def playoff(name: str, seed: str, seconds: float) -> dict[str, Any]:
    return {
        "cmd": name,
        "tournament": "scenario",
        "arbiter": "chief",
        "seed": seed,
        "at": at(PLAYOFF_DAY, seconds),
    }


def declared(
    game: str, result: str, day: str, reason: str, start_s: float = 0
) -> list[dict[str, Any]]:
    """A game started at ``start_s`` whose result the Chief Arbiter records 4 hours later."""
    return [
        {"cmd": "start_game", "game": game, "at": at(day, start_s)},
        {
            "cmd": "declare_result",
            "game": game,
            "result": result,
            "reason": reason,
            "arbiter": "chief",
            "at": at(day, start_s + 4 * 3600),
        },
    ]


@pytest.fixture(scope="class")
def event(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Event]:
    """One store for the whole event: the class's backend (``FullEvent.backend``)."""
    if request.cls.backend == "sqlite":
        yield Event(str(tmp_path_factory.mktemp("event") / "candidates.sqlite"))
        return
    if not PG_URL:
        pytest.skip("CANDIDATES_TEST_PG is not set: PostgreSQL tests skipped")
    for url in _pg_schema_url(PG_URL):
        yield Event(url)


class FullEvent:
    """The steps run in order on one store (a class-scoped fixture), once per backend:
    one class per backend, so pytest-xdist (``--dist loadscope``) gives each its worker."""

    backend = ""

    def test_3_4_1_create_and_draw_lots_from_a_seed_keeps_3_1_federations_apart_late(
        self, event: Event
    ) -> None:
        _, drawn = event.apply(
            [
                {
                    "cmd": "create_tournament",
                    "tournament": "scenario",
                    "name": "Scenario Candidates 2026",
                    "rules": "candidates-2012",
                    "start_date": START_DATE,
                    "cycles": 2,
                    "players": PLAYERS,
                    "arbiters": ARBITERS,
                    "at": "2026-02-20T10:00:00Z",
                },
                {
                    "cmd": "draw_lots",
                    "tournament": "scenario",
                    "seed": SEED,
                    "at": "2026-03-02T18:00:00Z",
                    "by": "chief",
                },
            ]
        )
        [lots] = drawn["events"]
        assert lots["numbers"] == {"dmitri": 1, "boris": 2, "carmen": 3, "ada": 4}
        # 3.2: arrival, opening, rounds 1-3, a free day, rounds 4-6, tie-breaks, departure.
        days = event.query("schedule")["days"]
        assert len(days) == 11
        assert [d["round"] for d in days if d["kind"] == "round"] == list(range(1, 7))
        assert {d["round"]: d["date"] for d in days if d["round"]} == ROUND_DAY
        crosstable = event.query("crosstable")  # before any result: by drawn number (3.4.1)
        assert [p["player"] for p in crosstable["players"]] == ["dmitri", "boris", "carmen", "ada"]

    def test_3_1_players_of_one_federation_meet_in_the_first_round_of_each_cycle(
        self, event: Event
    ) -> None:
        for game_id in ("1.2", "4.2"):
            view = event.game(game_id)
            assert {view["white"], view["black"]} == {"boris", "carmen"}
            assert view["status"] == "not_started"
        assert (event.game("1.2")["white"], event.game("4.2")["white"]) == ("boris", "carmen")

    def test_round_1_a_real_game_with_device_clock_the_3_5_1_bonus_and_a_resignation(
        self, event: Event
    ) -> None:
        day = ROUND_DAY[1]
        plays, now = moves("1.1", LONDON_2013_R10_GRISCHUK_KRAMNIK, day, 0, 90, 60)
        for ply, command in enumerate(plays):  # the DGT clock's reading with each move
            white_moves, black_moves = (ply + 2) // 2, (ply + 1) // 2
            command["white_ms"] = 2 * HOUR - white_moves * 90_000 + HOUR * (white_moves >= 40)
            command["black_ms"] = 2 * HOUR - black_moves * 60_000 + HOUR * (black_moves >= 40)
        plays[78]["white_ms"] -= HOUR  # the device adds the second period late
        answers = event.apply(
            [
                {"cmd": "start_game", "game": "1.1", "at": at(day, 0)},
                *plays,
                {"cmd": "resign", "game": "1.1", "by": "white", "at": at(day, now + 30)},
            ]
        )
        alerts = [e for a in answers for e in a["events"] if e["type"] == "AlertRaised"]
        assert [(a["kind"], a["details"]["side"]) for a in alerts] == [
            ("bonus_not_credited", "white")
        ]
        assert alerts[0]["details"]["regulation_ms"] == 2 * HOUR
        [resigned] = answers[-1]["events"]
        assert (resigned["result"], resigned["termination"]) == ("0-1", "resignation")
        view = event.game("1.1")
        assert (view["white"], view["black"], view["result"]) == ("dmitri", "ada", "0-1")
        assert view["ply"] == 82
        # 3.5.1: 40 moves in 120 min, then 60 min: White 41 moves at 90 s, Black 41 at 60 s;
        # White thought 30 s more before resigning.
        assert view["clock"]["white_ms"] == 2 * HOUR - 41 * 90_000 - 30_000 + HOUR
        assert view["clock"]["black_ms"] == 2 * HOUR - 41 * 60_000 + HOUR
        assert view["clock"]["period"] == {"white": 2, "black": 2}
        before_bonus = event.game("1.1", at(day, 40 * 90 + 39 * 60 - 1))
        assert before_bonus["clock"]["white_ms"] == 2 * HOUR - 40 * 90_000 + 1000
        pgn = " ".join(event.text("pgn", "1.1").split())
        assert '[Result "0-1"]' in pgn and '[TimeControl "40/7200:20/3600:900+30"]' in pgn
        # [%clk] is the clock on the table (Laws 2009 6.10 a): the device added the second
        # period late; the regulation clock (60:00 left + the second period) is beside it
        assert "40. Kf4 { regulation clock 2:00:00 [%clk 1:00:00] }" in pgn
        assert "41... Kg3 { [%clk 2:19:00] }" in pgn

    def test_round_1_illegal_move_7_4_b_and_threefold_claims_9_5_9_2(self, event: Event) -> None:
        day = ROUND_DAY[1]
        answers = event.apply(
            [
                {"cmd": "start_game", "game": "1.2", "at": at(day, 0)},
                {"cmd": "play_move", "game": "1.2", "move": "Nf3", "at": at(day, 60)},
                {"cmd": "play_move", "game": "1.2", "move": "Nf6", "at": at(day, 120)},
                {"cmd": "play_move", "game": "1.2", "move": "Ng1", "at": at(day, 180)},
                {
                    "cmd": "record_illegal_move",
                    "game": "1.2",
                    "by": "carmen",
                    "arbiter": "deputy",
                    "move": "Ng8xf6",
                    "at": at(day, 200),
                },
                {
                    "cmd": "claim_draw",
                    "game": "1.2",
                    "by": "carmen",
                    "kind": "threefold_repetition",
                    "intended_move": "Ng8",
                    "at": at(day, 240),
                },
                {
                    "cmd": "rule_claim",
                    "game": "1.2",
                    "claim": 1,
                    "decision": "rejected",
                    "arbiter": "chief",
                    "at": at(day, 300),
                },
                {"cmd": "play_move", "game": "1.2", "move": "Nf3", "at": at(day, 360)},
                {"cmd": "play_move", "game": "1.2", "move": "Nf6", "at": at(day, 420)},
                {"cmd": "play_move", "game": "1.2", "move": "Ng1", "at": at(day, 480)},
                {
                    "cmd": "claim_draw",
                    "game": "1.2",
                    "by": "carmen",
                    "kind": "threefold_repetition",
                    "intended_move": "Ng8",
                    "at": at(day, 500),
                },
                {
                    "cmd": "rule_claim",
                    "game": "1.2",
                    "claim": 2,
                    "decision": "accepted",
                    "arbiter": "chief",
                    "at": at(day, 530),
                },
            ]
        )
        illegal = {e["type"]: e for e in answers[4]["events"]}
        assert illegal["ClockAdjusted"]["side"] == "white"
        assert illegal["ClockAdjusted"]["delta_ms"] == 2 * MIN
        rejected = {e["type"]: e for e in answers[6]["events"]}
        assert rejected["ClockAdjusted"]["side"] == "white"
        assert rejected["ClockAdjusted"]["delta_ms"] == 3 * MIN
        assert rejected["MovePlayed"]["san"] == "Ng8"
        accepted = {e["type"]: e for e in answers[11]["events"]}
        assert accepted["ResultRecorded"]["result"] == "1/2-1/2"
        assert accepted["ResultRecorded"]["termination"] == "threefold_repetition"
        view = event.game("1.2")
        assert view["result"] == "1/2-1/2" and view["ply"] == 7
        assert [c["status"] for c in view["claims"]] == ["rejected", "accepted"]
        assert view["incorrect_claims"] == {"white": 0, "black": 1}
        assert view["illegal_moves"] == {"white": 0, "black": 1}
        # White used 4 x 60 s and got 2 + 3 min; Black used 60 + 60 + 60 + 20 s (the clocks
        # stood still from the claim to the ruling, 6.12 b).
        assert view["clock"]["white_ms"] == 2 * HOUR - 4 * MIN + 5 * MIN
        assert view["clock"]["black_ms"] == 2 * HOUR - 200_000
        table = event.standings()
        assert table["after_round"] == 1
        assert points(table) == {"ada": 1, "boris": 0.5, "carmen": 0.5, "dmitri": 0}

    def test_round_2_6_9_a_flag_fall_found_by_the_flag_check(self, event: Event) -> None:
        day = ROUND_DAY[2]
        event.apply(
            [
                *declared("2.1", "1/2-1/2", day, "perpetual check claim upheld (9.2)"),
                {"cmd": "start_game", "game": "2.2", "at": at(day, 0)},
                {"cmd": "play_move", "game": "2.2", "move": "e4", "at": at(day, 60)},
                {"cmd": "play_move", "game": "2.2", "move": "e5", "at": at(day, 120)},
            ]
        )
        # White has 2 h - 60 s left from 120 s on: the flag falls at 7260 s.
        assert event.game("2.2", at(day, 7259.999))["clock"]["flag"] is None
        flag = event.game("2.2", at(day, 7260))["clock"]["flag"]
        assert (flag["side"], flag["result"], flag["recorded"]) == ("white", "0-1", False)
        # Laws 2009 6.8: the flag check alerts the arbiters; the flag is fallen when the
        # arbiter observes it, and the result is recorded by his ruling.
        [checked] = event.apply([{"cmd": "check_flags", "at": at(day, 7300)}])
        [alert] = checked["events"]
        assert (alert["stream"], alert["kind"]) == ("game/2.2", "flag_fall")
        assert alert["details"]["regulation_fell_at"] == at(day, 7260)
        assert event.game("2.2")["status"] == "in_progress"
        [ruled] = event.apply(
            [
                {
                    "cmd": "rule_flag",
                    "game": "2.2",
                    "side": "white",
                    "arbiter": "chief",
                    "decision": "fallen",
                    "at": at(day, 7310),
                }
            ]
        )
        flagged, fell = ruled["events"]
        assert (flagged["type"], flagged["decision"]) == ("FlagRuled", "fallen")
        assert (fell["stream"], fell["result"], fell["termination"]) == (
            "game/2.2",
            "0-1",
            "time_forfeit",
        )
        assert fell["at"] == at(day, 7310)
        view = event.game("2.2")
        assert view["clock"]["white_ms"] == 0 and view["clock"]["black_ms"] == 2 * HOUR - MIN
        table = event.standings()
        assert table["after_round"] == 2
        assert points(table) == {"ada": 1.5, "boris": 1.5, "carmen": 1, "dmitri": 0}

    def test_round_3_and_a_3_1_withdrawal_after_50_percent_defaults_the_rest(
        self, event: Event
    ) -> None:
        day = ROUND_DAY[3]
        event.apply(
            [
                *declared("3.1", "1/2-1/2", day, "threefold repetition claim upheld (9.2)"),
                {"cmd": "start_game", "game": "3.2", "at": at(day, 0)},
                {"cmd": "play_move", "game": "3.2", "move": "d4", "at": at(day, 30)},
                {"cmd": "resign", "game": "3.2", "by": "white", "at": at(day, 900)},
            ]
        )
        table = event.standings()
        assert (table["after_round"], table["final"]) == (3, False)
        assert points(table) == {"ada": 2, "boris": 2, "carmen": 1, "dmitri": 1}
        [withdrew] = event.apply(
            [
                {
                    "cmd": "withdraw",
                    "tournament": "scenario",
                    "player": "dmitri",
                    "at": "2026-03-06T09:00:00Z",
                    "reason": "illness, certified by the tournament doctor",
                    "arbiter": "chief",
                }
            ]
        )
        events = withdrew["events"]
        [gone] = [e for e in events if e["type"] == "PlayerWithdrew"]
        assert (gone["rule"], gone["games_completed"], gone["games_total"]) == (
            "defaults",
            3,
            6,
        )
        defaults = [e for e in events if e["type"] == "ResultRecorded"]
        assert {e["stream"]: e["result"] for e in defaults} == {
            "game/4.1": "1-0",
            "game/5.2": "1-0",
            "game/6.2": "0-1",
        }
        assert all(e["termination"] == "default" for e in defaults)
        # The table after round 3 is unchanged: the defaults count when their round comes.
        assert points(event.standings()) == {"ada": 2, "boris": 2, "carmen": 1, "dmitri": 1}

    def test_rounds_4_to_6_standings_after_each_round(self, event: Event) -> None:
        expected = {
            4: {"ada": 3, "boris": 2.5, "carmen": 1.5, "dmitri": 1},
            5: {"ada": 3.5, "boris": 3.5, "carmen": 2, "dmitri": 1},
            6: {"ada": 4, "boris": 4, "carmen": 3, "dmitri": 1},
        }
        games = {4: ["4.2"], 5: ["5.1"], 6: ["6.1"]}
        for round_no, ids in games.items():
            event.apply(
                [
                    command
                    for gid in ids
                    for command in declared(
                        gid, "1/2-1/2", ROUND_DAY[round_no], "stalemate claim upheld (9.2)"
                    )
                ]
            )
            table = event.standings()
            assert table["after_round"] == round_no
            assert points(table) == expected[round_no]
            assert points(event.standings(after_round=round_no - 1)) == expected.get(
                round_no - 1, {"ada": 2, "boris": 2, "carmen": 1, "dmitri": 1}
            )

    def test_3_7_a_c_leave_ada_and_boris_level_and_3_8_1_prizes_are_shared(
        self, event: Event
    ) -> None:
        table = event.standings()
        assert table["final"] is True and table["after_round"] == 6
        rows = {r["player"]: r for r in table["rows"]}
        for player in ("ada", "boris"):
            assert rows[player]["rank"] == 1
            assert (rows[player]["h2h"], rows[player]["wins"], rows[player]["sb"]) == (1, 2, 9)
        assert ranks(table)[2:] == [(3, "carmen"), (4, "dmitri")]
        assert rows["dmitri"]["withdrawn"] is not None
        assert table["winner"] is None
        playoff = table["playoff"]
        assert (playoff["needed"], playoff["stage"], playoff["action"]) == (
            True,
            "rapid",
            "start_stage",
        )
        assert sorted(playoff["players"]) == ["ada", "boris"]
        cross = event.query("crosstable")
        ada = next(p for p in cross["players"] if p["player"] == "ada")
        assert [g["score"] for g in ada["results"]["dmitri"]] == ["1", "1"]
        assert [g["default"] for g in ada["results"]["dmitri"]] == [False, True]
        # 3.8.1: level on points, Ada and Boris share the prizes of places 1 and 2 whatever
        # the playoff decides; 3.8.2: the withdrawn player's 55,000 stays with FIDE.
        prizes = event.query("prizes")
        assert {p["player"]: p["eur"] for p in prizes["prizes"]} == {
            "ada": (95_000 + 88_000) // 2,
            "boris": (95_000 + 88_000) // 2,
            "carmen": 75_000,
            "dmitri": 0,
        }
        assert prizes["retained_by_fide_eur"] == 55_000 + 40_000 + 35_000 + 17_000 + 15_000

    def test_3_7_1_a_rapid_games_25_min_10_s(self, event: Event) -> None:
        [started] = event.apply([playoff("start_playoff", "rapid-lots", 0)])[0]["events"]
        assert (started["stage"], started["time_control"]) == ("rapid", "1500+10")
        games = [(g["game"], g["white"], g["black"]) for g in started["games"]]
        assert [g[0] for g in games] == ["P1-rapid-1.1", "P1-rapid-2.1"]
        assert games[0][1:] == games[1][2:0:-1]  # colours reversed in the second game
        first, second = games[0][0], games[1][0]
        plays, _ = moves(first, ["e4", "e5", "Nf3"], PLAYOFF_DAY, 600, 20, 30)
        event.apply([{"cmd": "start_game", "game": first, "at": at(PLAYOFF_DAY, 600)}, *plays])
        view = event.game(first, "last")  # at its last move, not now
        assert view["time_control"] == "1500+10"
        # 3.7.1.a: 10 s added after every move from move 1.
        assert view["clock"]["white_ms"] == 1_500_000 - 2 * 20_000 + 2 * 10_000
        assert view["clock"]["black_ms"] == 1_500_000 - 30_000 + 10_000
        event.apply(
            [
                {
                    "cmd": "declare_result",
                    "game": first,
                    "result": "1/2-1/2",
                    "reason": "stalemate claim upheld (9.2)",
                    "arbiter": "chief",
                    "at": at(PLAYOFF_DAY, 2400),
                },
                *declared(second, "1/2-1/2", PLAYOFF_DAY, "insufficient material (9.6)", 2500),
            ]
        )
        table = event.standings()
        assert (table["playoff"]["stage"], table["playoff"]["action"]) == ("blitz", "start_stage")

    def test_3_7_2_three_blitz_series_of_5_min_3_s(self, event: Event) -> None:
        for series in (1, 2, 3):
            [started] = event.apply(
                [playoff("advance_playoff", f"blitz-{series}", 5 * 3600 * series)]
            )[0]["events"]
            assert (started["stage"], started["series"], started["time_control"]) == (
                "blitz",
                series,
                "300+3",
            )
            for g in started["games"]:
                event.apply(
                    declared(
                        g["game"],
                        "1/2-1/2",
                        PLAYOFF_DAY,
                        "perpetual check (9.2)",
                        5 * 3600 * series,
                    )
                )
        table = event.standings()
        assert (table["playoff"]["stage"], table["playoff"]["action"]) == (
            "sudden_death",
            "start_stage",
        )
        assert table["winner"] is None

    def test_3_7_3_a_sudden_death_a_draw_is_a_win_for_black(self, event: Event) -> None:
        answer = event.apply([playoff("advance_playoff", "sudden-death", 20 * 3600)])[0]
        paired = next(e for e in answer["events"] if e["type"] == "SuddenDeathPaired")
        game_id, lot_winner = paired["game"], paired["lot_winner"]
        other = "boris" if lot_winner == "ada" else "ada"
        message = event.refused(
            {"cmd": "start_game", "game": game_id, "at": at(PLAYOFF_DAY, 21 * 3600)},
            "rule_violation",
        )
        assert "choose_colour" in message and "3.7.3.a" in message
        event.apply(
            [
                {
                    "cmd": "choose_colour",
                    "tournament": "scenario",
                    "game": game_id,
                    "colour": "white",
                    "arbiter": "chief",
                    "at": at(PLAYOFF_DAY, 21 * 3600),
                },
                {"cmd": "start_game", "game": game_id, "at": at(PLAYOFF_DAY, 21 * 3600 + 60)},
            ]
        )
        view = event.game(game_id, "last")  # at its start, not now
        assert (view["white"], view["black"]) == (lot_winner, other)
        assert view["clock"]["white_ms"] == 5 * MIN and view["clock"]["black_ms"] == 4 * MIN
        event.apply(
            [
                {
                    "cmd": "declare_result",
                    "game": game_id,
                    "result": "1/2-1/2",
                    "reason": "threefold repetition claim upheld (9.2)",
                    "arbiter": "chief",
                    "at": at(PLAYOFF_DAY, 21 * 3600 + 600),
                }
            ]
        )
        table = event.standings()
        assert table["winner"] == {"player": other, "decided_by": "playoff"}
        assert ranks(table) == [(1, other), (2, lot_winner), (3, "carmen"), (4, "dmitri")]
        assert table["playoff"]["needed"] is False
        # 3.8.1: the playoff decides the places, not the money.
        prizes = {p["player"]: p["eur"] for p in event.query("prizes")["prizes"]}
        assert prizes["ada"] == prizes["boris"] == 91_500
        text = event.text("standings")
        assert f"Winner: {NAMES[other]} (decided by the playoff (3.7.1-3.7.3))" in text


class TestFullEventOnSQLite(FullEvent):
    backend = "sqlite"


class TestFullEventOnPostgreSQL(FullEvent):
    backend = "postgresql"


@pytest.fixture
def paired(tmp_path: Path) -> Event:
    """A fresh store with the scenario's tournament, lots drawn, round 1 game 1.1 started."""
    e = Event(str(tmp_path / "probe.sqlite"))
    e.apply(
        [
            {
                "cmd": "create_tournament",
                "tournament": "scenario",
                "name": "Probe",
                "start_date": START_DATE,
                "players": PLAYERS,
                "arbiters": ARBITERS,
            },
            {"cmd": "draw_lots", "tournament": "scenario", "seed": SEED},
            {"cmd": "start_game", "game": "1.1", "at": at(ROUND_DAY[1], 0)},
            {"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(ROUND_DAY[1], 60)},
        ]
    )
    return e


def create(**changes: Any) -> dict[str, Any]:
    command = {
        "cmd": "create_tournament",
        "tournament": "scenario",
        "name": "Probe",
        "start_date": START_DATE,
        "players": PLAYERS,
        "arbiters": ARBITERS,
    }
    return {**command, **changes}


class TestBadInputThroughApply:
    """Every bad line: one specific error, nothing appended, no traceback, the next line runs."""

    def test_lines_that_are_not_commands(self, paired: Event, tmp_path: Path) -> None:
        before = paired.count()
        lines = [
            b'{"cmd": "play_move", "game": "1.1"',  # cut short
            b"\xff\xfe{}",
            b"[" * 100_000 + b"]" * 100_000,
            b"NaN",
            json.dumps(
                {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(ROUND_DAY[1], 90)}
            ).encode(),
        ]
        path = tmp_path / "bad.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        done = candidates("apply", "--create", str(path), store=paired.store)
        assert done.returncode == 1 and done.stderr == ""
        answers = json_lines(done.stdout)
        messages = [a.get("error", {}).get("message") for a in answers]
        assert messages[0].startswith("line 1: not JSON (Expecting")
        assert messages[1] == "line 2: not UTF-8 (byte 1)"
        assert messages[2] == "line 3: JSON nested 100000 levels deep; at most 32"
        assert messages[3] == "line 4: a command is a JSON object, not float"
        assert answers[4]["ok"] is True  # the good line after the bad ones still runs
        assert paired.count() == before + 2  # the move, and the seal the run ends with

    def test_a_missing_file_is_an_error_not_a_traceback(self, paired: Event) -> None:
        done = candidates("apply", "--create", "/nonexistent/commands.jsonl", store=paired.store)
        assert done.returncode == 2
        assert done.stderr.strip() == (
            "candidates: cannot read '/nonexistent/commands.jsonl': No such file or directory"
        )

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"start_date": "2026-13-45"}, "start_date '2026-13-45' is not an ISO date"),
            ({"start_date": "soon"}, "start_date 'soon' is not an ISO date"),
            ({"cycles": 3}, "cycles must be 1 (single) or 2 (double round robin, article 3.1)"),
            ({"cycles": 10**9}, "cycles must be 1 (single) or 2"),
            ({"cycles": 10**30}, "field 'cycles' is out of range"),
            (
                {"players": [{**PLAYERS[0], "rating": float("nan")}, *PLAYERS[1:]]},
                "players[0] (ada): 'rating' must be a number from 0 to 10000, got nan",
            ),
            (
                {"players": [{**PLAYERS[0], "rating": 10**30}, *PLAYERS[1:]]},
                f"field 'players' holds {10**30} at [0].rating, out of range",
            ),
            (
                {"arbiters": [*ARBITERS, {"id": "ada", "name": "Ada", "role": "deputy"}]},
                "'ada': an arbiter cannot also be a player of the tournament",
            ),
            (
                {"arbiters": [*ARBITERS, {"id": "chief", "name": "Other", "role": "deputy"}]},
                "arbiter ids must be unique",
            ),
        ],
    )
    def test_create_tournament_refuses_what_would_break_the_event_later(
        self, tmp_path: Path, change: dict[str, Any], message: str
    ) -> None:
        fresh = Event(str(tmp_path / "fresh.sqlite"))
        assert message in fresh.refused(json.dumps(create(**change)), "malformed_command")
        fresh.apply([create()])  # the store is still free for the right command

    def test_out_of_range_integers_are_refused_not_crashing_the_store(self, paired: Event) -> None:
        day = ROUND_DAY[1]
        reading = {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": at(day, 70),
            "white_ms": 10**30,
            "black_ms": 1,
            "running": "black",
        }
        assert "field 'white_ms' is out of range" in paired.refused(reading, "malformed_command")
        adjust = {
            "cmd": "adjust_clock",
            "game": "1.1",
            "side": "white",
            "delta_ms": -(2**63),
            "reason": "typing error",
            "arbiter": "chief",
            "at": at(day, 70),
        }
        assert "field 'delta_ms' is out of range" in paired.refused(adjust, "malformed_command")
        move = {
            "cmd": "play_move",
            "game": "1.1",
            "move": "e5",
            "at": at(day, 70),
            "white_ms": 2**64,
            "black_ms": 1,
        }
        assert "field 'white_ms' is out of range" in paired.refused(move, "malformed_command")

    def test_a_game_runs_forward_in_time_citing_no_article(self, paired: Event) -> None:
        day = ROUND_DAY[1]
        early = {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(day, 30)}
        assert paired.refused(early, "out_of_order") == (
            f"play_move at {at(day, 30)} is earlier than the last recorded event of game 1.1 "
            f"({at(day, 60)}): a game's events are recorded in time order"
        )
        for command in (
            {"cmd": "resign", "game": "1.1", "by": "black", "at": at(day, -60)},
            {
                "cmd": "declare_result",
                "game": "1.1",
                "result": "1-0",
                "reason": "r",
                "arbiter": "chief",
                "at": at(day, 59),
            },
            {
                "cmd": "record_illegal_move",
                "game": "1.1",
                "by": "black",
                "arbiter": "chief",
                "at": at(day, 10),
            },
            {
                "cmd": "adjust_clock",
                "game": "1.1",
                "side": "white",
                "delta_ms": 60_000,
                "reason": "r",
                "arbiter": "chief",
                "at": at(day, 10),
            },
        ):
            assert "is earlier than the last recorded event" in paired.refused(
                command, "out_of_order"
            )
        # The same instant is fine (a move and the next event can share a millisecond).
        paired.apply([{"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(day, 60)}])
        assert paired.game("1.1")["clock"]["black_ms"] == 2 * HOUR

    def test_start_game_keeps_the_pairing_and_its_stage(self, paired: Event) -> None:
        day = ROUND_DAY[1]
        weird = {"cmd": "start_game", "game": "1.2", "at": at(day, 0), "stage": "rapid"}
        assert paired.refused(weird, "malformed_command") == (
            "start_game: game 1.2 is a tournament game of 'scenario', not 'rapid'; "
            "leave 'stage' out"
        )
        same = {"cmd": "start_game", "game": "x1", "white": "ada", "black": "ada", "at": at(day, 0)}
        assert paired.refused(same, "malformed_command") == (
            "start_game: 'ada' cannot play both sides of game x1"
        )
        stranger = {
            "cmd": "start_game",
            "game": "x2",
            "white": "ada",
            "black": "zoe",
            "at": at(day, 0),
        }
        assert "'zoe' not a player of 'scenario'" in paired.refused(stranger, "malformed_command")
        paired.apply(
            [{"cmd": "start_game", "game": "1.2", "at": at(day, 0), "stage": "tournament"}]
        )
        assert paired.game("1.2")["time_control"] == "40/7200:20/3600:900+30"

    @pytest.mark.parametrize(
        ("command", "code", "message"),
        [
            (
                {"cmd": "play_move", "game": "2.1", "move": "e4", "at": "2026-03-04T15:00:00Z"},
                "unknown_game",
                "game '2.1' has not been started",
            ),
            (
                {"cmd": "play_move", "game": "9.9", "move": "e4", "at": "2026-03-04T15:00:00Z"},
                "unknown_game",
                "game '9.9' has not been started",
            ),
            (
                {"cmd": "start_game", "game": "9.9", "at": "2026-03-04T15:00:00Z"},
                "unknown_game",
                "game '9.9' has no players: it is not a paired game id",
            ),
            (
                {
                    "cmd": "rule_claim",
                    "game": "1.1",
                    "claim": 1,
                    "decision": "accepted",
                    "arbiter": "chief",
                    "at": "2026-03-03T15:02:00Z",
                },
                "unknown_claim",
                "game 1.1 has no claim '1' (claims: none yet)",
            ),
            (
                {
                    "cmd": "start_playoff",
                    "tournament": "scenario",
                    "arbiter": "chief",
                    "at": "2026-03-03T15:02:00Z",
                    "seed": "s",
                },
                "rule_violation",
                "tie-break games come after the last round: 12 round-robin",
            ),
            (
                {
                    "cmd": "advance_playoff",
                    "tournament": "scenario",
                    "arbiter": "chief",
                    "at": "2026-03-03T15:02:00Z",
                },
                "rule_violation",
                "no playoff for place 1 yet: use start_playoff",
            ),
            (
                {
                    "cmd": "withdraw",
                    "tournament": "scenario",
                    "player": "zoe",
                    "at": "2026-03-03T15:02:00Z",
                    "reason": "r",
                },
                "malformed_command",
                "withdraw: 'zoe' is not a player of 'scenario'",
            ),
            (
                {"cmd": "draw_lots", "tournament": "scenario", "seed": "again"},
                "rule_violation",
                "the lots for pairings and colours have already been drawn",
            ),
            (
                {"cmd": "play_move", "game": "1.1", "move": 5, "at": "2026-03-03T15:02:00Z"},
                "malformed_command",
                "field 'move' must be a non-empty string, got 5",
            ),
            (
                {"cmd": "play_move", "game": "1.1", "move": "e5", "at": 1772550120000},
                "malformed_command",
                "field 'at' must be an ISO-8601 UTC string",
            ),
            (
                {"cmd": "resign", "game": "1.1", "by": "ada", "at": "2026-03-03T15:02:00Z"},
                "malformed_command",
                "field 'by' must be 'white' or 'black', got 'ada'",
            ),
            (
                {"cmd": "play_move", "game": "1.1", "move": "Ke3", "at": "2026-03-03T15:02:00Z"},
                "illegal_move",
                "illegal move 'Ke3' in game 1.1 at ply 2",
            ),
            ({"cmd": "offer_draw", "game": "1.1"}, "rule_violation", "by agreement"),
            (
                {
                    "cmd": "declare_result",
                    "game": "1.1",
                    "result": "1-0",
                    "reason": "r",
                    "arbiter": "advisor",
                    "at": "2026-03-03T15:02:00Z",
                },
                "not_an_arbiter",
                "'advisor' is not the Chief Arbiter or a Deputy",
            ),
        ],
    )
    def test_refusals_name_the_problem(
        self, paired: Event, command: dict[str, Any], code: str, message: str
    ) -> None:
        assert message in paired.refused(command, code)
