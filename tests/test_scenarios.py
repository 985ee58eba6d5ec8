"""Scenario tests of the arbiters' procedures (draw claims, illegal moves, the arbiter's
corrections, the incident book), end to end through the real CLI (``arbiter_corrections``
is also checked across every view by tests/test_scenario_arbiter_corrections.py).

Each ``tests/scenarios/NAME.jsonl`` is fed to ``candidates apply`` on a fresh
store, then ``candidates game ID --format json`` is read; both are compared
with ``NAME.expected.json``. The first line of a scenario is a ``#`` comment
saying which clause it exercises.

Normalised for readability and stability:

- ``answers``: one entry per command line: ``{"line", "cmd", "ok"}`` plus
  either the ``error`` (code and message, compared exactly) or the
  ``events``. Setup events (``TournamentCreated``, ``LotsDrawn``,
  ``GameStarted``) are shown by type only, a ``MovePlayed`` as
  ``"MovePlayed <san>"``; the events of the claim procedure are shown in
  full, without ``stream`` and ``at`` (the instants are those of the input).
  Events of other kinds (from other parts of the engine) are left out.
- ``view``: the game object's fields about the board's outcome and the
  claims; the clock part belongs to the clock model and is not compared.

``CANDIDATES_UPDATE_SCENARIOS=1`` rewrites the expected files (review the
diff before committing it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCENARIOS = Path(__file__).parent / "scenarios"
ROOT = Path(__file__).resolve().parents[1]
UPDATE = os.environ.get("CANDIDATES_UPDATE_SCENARIOS") == "1"

SETUP = {"TournamentCreated", "LotsDrawn", "GameStarted"}
SHOWN = {
    "DrawClaimed",
    "ClaimAdvised",
    "ClaimRuled",
    "IllegalMoveRecorded",
    "ClockAdjusted",
    "ResultRecorded",
    "AlertRaised",
    "MovesCorrected",
    "ResultCorrected",
    "FlagRuled",
    "PresenceRecorded",
    "IncidentRecorded",
    "LeavePermitted",
    "PlayerReturned",
    "DefaultRuled",
    "WithdrawalReasonRuled",
}
VIEW_FIELDS = (
    "game",
    "white",
    "black",
    "moves",
    "ply",
    "status",
    "result",
    "termination",
    "claims",
    "incorrect_claims",
    "illegal_moves",
)


def cli() -> list[str]:
    """The installed ``candidates`` console script, else the same entry point."""
    script = shutil.which("candidates", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    return [sys.executable, "-c", "import sys; from adapters.cli import main; sys.exit(main())"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cli(), *args], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )


def summarise(event: dict[str, Any]) -> Any:
    kind = event["type"]
    if kind in SETUP:
        return kind
    if kind == "MovePlayed":
        return f"MovePlayed {event['san']}"
    if kind not in SHOWN:
        return None
    return {k: v for k, v in event.items() if k not in ("stream", "at")}


def normalise(commands: list[tuple[int, dict[str, Any]]], answers: list[dict[str, Any]]):
    out = []
    for (line, cmd), answer in zip(commands, answers, strict=True):
        entry: dict[str, Any] = {"line": line, "cmd": cmd.get("cmd"), "ok": answer["ok"]}
        if answer["ok"]:
            shown = [summarise(e) for e in answer["events"]]
            entry["events"] = [s for s in shown if s is not None]
        else:
            entry["error"] = answer["error"]
        out.append(entry)
    return out


def scenario_names() -> list[str]:
    return sorted(p.stem for p in SCENARIOS.glob("*.jsonl"))


@pytest.mark.parametrize("name", scenario_names())
def test_scenario(name: str, tmp_path: Path) -> None:
    source = SCENARIOS / f"{name}.jsonl"
    expected_path = SCENARIOS / f"{name}.expected.json"
    commands = [
        (number, json.loads(text))
        for number, text in enumerate(source.read_text(encoding="utf-8").splitlines(), start=1)
        if text.strip() and not text.startswith("#")
    ]
    store = str(tmp_path / "scenario.sqlite")
    applied = run_cli("--store", store, "apply", "--create", str(source))
    assert applied.returncode in (0, 1), applied.stderr
    answers = [json.loads(line) for line in applied.stdout.splitlines()]
    game_id = next(c["game"] for _, c in commands if c.get("cmd") == "start_game")
    shown = run_cli("--store", store, "game", game_id, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    view = json.loads(shown.stdout)
    actual = {
        "scenario": source.read_text(encoding="utf-8").splitlines()[0].lstrip("# "),
        "answers": normalise(commands, answers),
        "view": {key: view[key] for key in VIEW_FIELDS},
    }
    if UPDATE:
        expected_path.write_text(
            json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    assert actual["answers"] == expected["answers"]
    assert actual["view"] == expected["view"]
    assert applied.returncode == (1 if any(not a["ok"] for a in answers) else 0)
