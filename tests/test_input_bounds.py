"""Every number, string and line bounded where it enters: one refusal, nothing appended.

A 5,000-digit integer once ended ``candidates apply`` in a traceback (Python refuses
to convert more than 4,300 digits); a 1 MB ``reason`` and a 4 MB ``raise_alert``
``details`` were stored, and then every arbiter client with its library's 1 MiB message
limit was closed when the alert was sent after its snapshot. The limits are
docs/commands.md's ("Limits"): a string of a command at most 4,096 characters, an
object or list field at most 64 K, a JSON number at most 32 characters, a line of
``apply`` at most 1 MiB.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.formats.jsontext import MAX_NUMBER_DIGITS, TextError, loads
from adapters.store import Store
from engine.fields import MAX_FIELD_CHARS, MAX_TEXT_CHARS
from tests.cli import candidates, json_lines
from tests.helpers import at, ok, refused

NINES = "9" * 5000


@pytest.mark.parametrize(
    "text",
    [
        '{"cmd": "play_move", "game": "1.1", "move": "e4", "at": ' + NINES + "}",
        '{"cmd": "adjust_clock", "delta_ms": -' + NINES + "}",
        '{"cmd": "adjust_clock", "delta_ms": ' + NINES + ".5}",
        '{"cmd": "adjust_clock", "delta_ms": 1e' + NINES + "}",
    ],
)
def test_a_number_of_5000_digits_is_refused_before_it_is_converted(text: str) -> None:
    with pytest.raises(TextError, match=f"at most {MAX_NUMBER_DIGITS}"):
        loads(text)


def test_the_longest_integer_a_field_holds_is_still_read() -> None:
    assert loads('{"n": -9007199254740991}') == {"n": -(2**53 - 1)}
    assert loads('{"n": 1.25e-3}') == {"n": 0.00125}


def test_apply_refuses_a_5000_digit_line_by_number_and_runs_the_next(
    tmp_path: Path, started: Store
) -> None:
    lines = [
        '{"cmd": "play_move", "game": "1.1", "move": "d4", "at": ' + NINES + "}",
        '{"cmd": "play_move", "game": "1.1", "move": "d4", "at": "'
        + at(5)
        + '", "ply": '
        + NINES
        + "}",
        json.dumps({"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)}),
    ]
    run = candidates("apply", "-", store=started.url, stdin="\n".join(lines) + "\n")
    assert "Traceback" not in run.stderr, run.stderr
    results = json_lines(run.stdout)
    assert [r["ok"] for r in results] == [False, False, True]
    for number, result in enumerate(results[:2], start=1):
        assert result["error"]["code"] == "malformed_command"
        assert result["error"]["message"].startswith(f"line {number}: a number of 5000")
    with Store(started.url) as store:
        game = store.reads.game("1.1")
        assert game is not None and game.sans == ("d4",)


def test_apply_refuses_a_line_over_1_mib_without_holding_it_and_runs_the_next(
    tmp_path: Path, started: Store
) -> None:
    path = tmp_path / "long.jsonl"
    with path.open("w") as out:
        out.write('{"cmd": "resign", "game": "1.1", "by": "white", "at": "' + at(5) + '", "x": "')
        out.write("y" * (3 * 2**20) + '"}\n')
        out.write(json.dumps({"cmd": "play_move", "game": "1.1", "move": "e4", "at": at(6)}))
        out.write("\n")
    run = candidates("apply", str(path), store=started.url)
    results = json_lines(run.stdout)
    assert run.returncode == 1 and [r["ok"] for r in results] == [False, True]
    assert "line 1: longer than 1048576 bytes" in results[0]["error"]["message"]
    with Store(started.url) as store:
        game = store.reads.game("1.1")
        assert game is not None and game.sans == ("e4",) and game.result == "*"


@pytest.mark.parametrize("size", [MAX_TEXT_CHARS + 1, 2**20])
def test_a_reason_beyond_4096_characters_is_refused_and_appends_nothing(
    started: Store, size: int
) -> None:
    adjust = {"cmd": "adjust_clock", "game": "1.1", "side": "white", "delta_ms": 60_000}
    message = refused(
        started,
        {**adjust, "reason": "r" * size, "arbiter": "chief", "at": at(5)},
        "malformed_command",
    )
    assert f"too long ({size} characters); at most {MAX_TEXT_CHARS}" in message
    assert len(message) < 200  # the reason is not echoed
    ok(started, {**adjust, "reason": "r" * MAX_TEXT_CHARS, "arbiter": "chief", "at": at(5)})


@pytest.mark.parametrize(
    "details",
    [
        {"seen": "x" * (4 * 2**20)},  # the 4 MB
        {"seen": ["x" * 4000] * 20},  # many strings within the string limit
        {"squares": list(range(10_000))},  # numbers count too
    ],
)
def test_raise_alert_details_beyond_64k_are_refused_and_append_nothing(
    started: Store, details: dict[str, object]
) -> None:
    alert = {"cmd": "raise_alert", "board": "12345", "kind": "board_disconnected"}
    message = refused(
        started, {**alert, "message": "m", "details": details, "at": at(5)}, "malformed_command"
    )
    assert "details" in message and (
        f"at most {MAX_FIELD_CHARS}" in message or f"at most {MAX_TEXT_CHARS}" in message
    )
    ok(started, {**alert, "message": "m", "details": {"seen": "x" * 4000}, "at": at(5)})


def test_docs_state_the_limits_in_kilobytes() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "commands.md").read_text()
    assert "4,096 characters" in text and "64 K" in text and "1 MiB" in text


def _pgn(round_tag: str, clock: str) -> str:
    return (
        '[Event "Bounds"]\n[Site "?"]\n[Date "2013.03.15"]\n'
        f'[Round "{round_tag}"]\n[White "Aronian, Levon"]\n[Black "Carlsen, Magnus"]\n'
        f'[Result "1-0"]\n\n1. e4 {{[%clk {clock}]}} e5 {{[%clk 1:59:50]}} 1-0\n'
    )


@pytest.mark.parametrize(
    ("round_tag", "clock", "says"),
    [
        (NINES, "1:59:58", "without a readable Round tag"),
        ("1." + NINES, "1:59:58", "without a readable Round tag"),
        ("1.1", NINES + ":00:00", "[%clk] after ply 1 is no clock's reading"),
        ("1.1", "25:00:00", "[%clk] after ply 1 is no clock's reading"),
    ],
)
def test_import_pgn_refuses_a_5000_digit_round_or_clock_without_a_traceback(
    tmp_path: Path, round_tag: str, clock: str, says: str
) -> None:
    path = tmp_path / "bounds.pgn"
    path.write_text(_pgn(round_tag, clock))
    run = candidates("import-pgn", "--create", str(path), store=str(tmp_path / "s.sqlite"))
    assert "Traceback" not in run.stderr, run.stderr[-1500:]
    assert says in run.stdout + run.stderr
    with Store(str(tmp_path / "s.sqlite")) as store:
        assert store.reads.game("1.1") is None
