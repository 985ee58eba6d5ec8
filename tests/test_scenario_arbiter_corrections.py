"""The arbiter corrects the record, end to end: ``tests/scenarios/arbiter_corrections.jsonl``.

Round 1 of the 2013 field, four boards, through the real command line:

- 1.1: DGT board 1 misread White's third move (Bb5 for Bc4); the Chief Arbiter
  corrects it with ``correct_moves`` three moves later and sets the clock in the
  same act (Laws 2009 7.4 a, 6.13);
- 1.2: the desk entered Black's resignation when White resigned; the Chief
  Arbiter corrects the result (``correct_result``);
- 1.3: the regulation clock reaches zero while the clock on the table shows two
  minutes; the flag check alerts, the Chief Arbiter dismisses the flag with a
  reason (a dismissal without one is refused) and sets the clock (6.8, 6.10 a);
- 1.4: the clock on the table shows Black's flag; the Chief Arbiter rules it
  fallen (6.8, 6.9).

Each shows in the game object, the PGN, the standings, ``candidates audit`` and
the live page; and the state at every instant of the scenario is what ``candidates
replay --until`` gives from the exported log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.cli import main
from adapters.formats.replay import state_at
from adapters.formats.replay_log import read_log
from adapters.store import Store
from engine.timefmt import parse_instant
from tests.cli import candidates, json_lines

SCENARIO = Path(__file__).parent / "scenarios" / "arbiter_corrections.jsonl"


def commands() -> list[dict[str, Any]]:
    lines = SCENARIO.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def applied(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = str(tmp_path_factory.mktemp("scenario") / "corrections.sqlite")
    run = candidates("apply", "--create", str(SCENARIO), store=store)
    answers = json_lines(run.stdout)
    refused = [a["error"] for a in answers if not a["ok"]]
    # the one refusal of the scenario: a regulation flag dismissed without a reason
    assert len(refused) == 1 and "needs a reason" in refused[0]["message"], refused
    return store


def game(store: str, game_id: str) -> dict[str, Any]:
    run = candidates("game", game_id, "--format", "json", store=store)
    assert run.returncode == 0, run.stderr
    result: dict[str, Any] = json.loads(run.stdout)
    return result


def test_7_4_a_the_misread_move_is_corrected_three_moves_later(applied: str) -> None:
    view = game(applied, "1.1")
    assert view["moves"][:8] == ["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6", "d3", "Be7"]
    [fix] = view["corrections"]
    assert fix["kind"] == "moves" and fix["from_ply"] == 4
    assert fix["replaced_moves"] == ["Bb5", "Nf6", "d3", "Be7"]
    assert fix["clock"] == {"white_ms": 7_150_000, "black_ms": 7_160_000}
    assert view["result"] == "1-0"
    pgn = candidates("pgn", "1.1", store=applied).stdout
    assert "2... Nc6" in pgn and "Chief Arbiter" in pgn and "corrected the moves" in pgn
    assert "were Bb5 Nf6 d3 Be7, now Bc4 Nf6 d3 Be7" in pgn
    assert "3. Bc4" in pgn and "3. Bb5" not in pgn


def test_3_9_2_b_the_mis_entered_result_is_corrected(applied: str) -> None:
    view = game(applied, "1.2")
    assert (view["result"], view["termination"]) == ("0-1", "resignation")
    [fix] = view["corrections"]
    assert (fix["replaced_result"], fix["result"]) == ("1-0", "0-1")
    pgn = candidates("pgn", "1.2", store=applied).stdout
    assert '[Result "0-1"]' in pgn
    assert "corrected the result: 1-0 (resignation), now 0-1" in pgn


def test_6_10_a_the_regulation_flag_is_dismissed_and_6_9_the_device_flag_confirmed(
    applied: str,
) -> None:
    dismissed = game(applied, "1.3")
    [ruling] = dismissed["flag_rulings"]
    assert (ruling["side"], ruling["decision"], ruling["override"]) == (
        "white",
        "not_fallen",
        True,
    )
    assert dismissed["moves"] == ["e4", "c5", "Nf3"] and dismissed["result"] == "1-0"
    confirmed = game(applied, "1.4")
    [ruling] = confirmed["flag_rulings"]
    assert (ruling["side"], ruling["decision"], ruling["override"]) == ("black", "fallen", False)
    assert (confirmed["result"], confirmed["termination"]) == ("1-0", "time_forfeit")


def test_the_standings_follow_every_correction(applied: str) -> None:
    run = candidates("standings", "--format", "json", store=applied)
    assert run.returncode == 0, run.stderr
    points = {row["player"]: row["points"] for row in json.loads(run.stdout)["rows"]}
    white_of = {"1.1": "1-0", "1.2": "0-1", "1.3": "1-0", "1.4": "1-0"}
    for game_id, result in white_of.items():
        view = game(applied, game_id)
        assert view["result"] == result
        winner = view["white"] if result == "1-0" else view["black"]
        loser = view["black"] if result == "1-0" else view["white"]
        assert (points[winner], points[loser]) == (1, 0)


def test_the_audit_lists_corrections_and_the_override_never_integrity_failures(
    applied: str,
) -> None:
    run = candidates("audit", "--format", "json", store=applied)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    findings = report["findings"]
    assert [f for f in findings if f["severity"] == "integrity"] == []
    corrections = [f["message"] for f in findings if f["kind"] == "arbiter_correction"]
    assert len(corrections) == 2
    assert any("corrected the moves of game 1.1" in m for m in corrections)
    assert any("corrected the result of game 1.2" in m for m in corrections)
    overrides = [f["message"] for f in findings if f["kind"] == "arbiter_override"]
    assert any("dismissed white's flag in game 1.3" in m for m in overrides)


def scenario_instants() -> list[str]:
    """Every instant of the scenario at which a command was given."""
    return sorted({c["at"] for c in commands() if "at" in c}, key=parse_instant)


def test_the_state_at_every_instant_is_what_replay_until_gives(
    applied: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "corrections.msgpack"
    assert main(["--store", applied, "export", "--out", str(log)]) == 0
    capsys.readouterr()
    seals = [r.at_ms for r in read_log(log).records if r.type == "ChainSealed"]
    for instant in scenario_instants():
        # the store as it was at that instant: the scenario's commands up to it
        prefix = tmp_path / f"prefix-{parse_instant(instant)}.sqlite"
        with Store(str(prefix)) as store:
            for cmd in commands():
                if parse_instant(cmd.get("at", instant)) <= parse_instant(instant):
                    store.handle(cmd)
            expected = json.loads(json.dumps(state_at(store, parse_instant(instant))))
        assert main(["replay", str(log), "--until", instant, "--format", "json"]) == 0
        replayed = json.loads(capsys.readouterr().out)
        assert replayed["games"] == expected["games"], instant
        assert replayed["standings"] == expected["standings"], instant
        # the log also holds the seal ``apply`` appended when it ended (docs/audit.md)
        sealed = sum(at_ms <= parse_instant(instant) for at_ms in seals)
        assert replayed["events"] == expected["events"] + sealed, instant


def test_the_page_shows_corrected_by_the_arbiter(applied: str) -> None:
    browser_test = pytest.importorskip("tests.test_gateway_browser")
    if browser_test.CHROMIUM is None:
        pytest.skip("chromium is not installed (make browser installs Debian's chromium)")
    from tests.gateway_support import RunningGateway

    with RunningGateway(applied, public_delay_s=0) as gw:
        browser = browser_test.Browser(gw.http + "/")
        try:
            for game_id in ("1.1", "1.2"):
                mark = browser.wait_for(
                    f"({browser_test.card(game_id, '.corrected')} || {{}}).textContent"
                )
                assert mark == "corrected by the arbiter"
            title = browser.js(f"{browser_test.card('1.1', '.corrected')}.title")
            assert "were Bb5 Nf6 d3 Be7, now Bc4 Nf6 d3 Be7" in title
            assert browser.js(f"{browser_test.card('1.3', '.corrected')}") is None
        finally:
            browser.close()
