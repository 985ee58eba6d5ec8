"""``candidates apply``: one command a line in, one JSON result a line out."""

from __future__ import annotations

import json
from pathlib import Path

from adapters.store import Store, open_store
from tests.cli import candidates, json_lines
from tests.helpers import ARBITERS, PLAYERS_2013, at

SETUP = [
    {
        "cmd": "create_tournament",
        "tournament": "london-2013",
        "name": "FIDE Candidates Tournament 2013",
        "rules": "candidates-2012",
        "start_date": "2013-03-13",
        "cycles": 2,
        "players": PLAYERS_2013,
        "arbiters": ARBITERS,
    },
    {
        "cmd": "draw_lots",
        "tournament": "london-2013",
        "numbers": {p["id"]: i for i, p in enumerate(PLAYERS_2013, 1)},
    },
    {"cmd": "start_game", "game": "1.1", "at": at(0)},
    {"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(5)},
]


def test_every_line_gets_a_result_and_refusals_set_the_exit_status(tmp_path: Path) -> None:
    lines = [json.dumps(c) for c in SETUP]
    lines.append("this is not json")
    lines.append(json.dumps({"cmd": "play_move", "game": "1.1", "move": "d4", "at": at(9)}))
    lines.append(json.dumps({"cmd": "play_move", "game": "1.1", "move": "Nf6", "at": at(9)}))
    store = str(tmp_path / "s.sqlite")
    run = candidates("apply", "--create", "-", store=store, stdin="\n".join(lines) + "\n")
    assert run.returncode == 1
    results = json_lines(run.stdout)
    assert [r["ok"] for r in results] == [True, True, True, True, False, False, True]
    assert results[4]["error"]["code"] == "malformed_command"
    assert "line 5" in results[4]["error"]["message"]
    assert results[5]["error"]["code"] == "illegal_move"
    assert results[3]["events"][0]["type"] == "MovePlayed"
    assert results[3]["events"][0]["at"] == "2013-03-15T14:00:05.000Z"
    with Store(store) as s:
        g = s.reads.game("1.1")
        assert g is not None and g.sans == ("d4", "Nf6")


def test_all_accepted_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "cmds.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in SETUP) + "\n")
    run = candidates("apply", "--create", str(path), store=str(tmp_path / "s.sqlite"))
    assert run.returncode == 0, run.stdout
    assert all(r["ok"] for r in json_lines(run.stdout))


def test_a_missing_game_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    open_store(str(store)).close()
    run = candidates("game", "9.9", store=str(store))
    assert run.returncode == 2
    assert "no game '9.9'" in run.stderr
    assert "Traceback" not in run.stderr


def test_rfc_8259_4_a_line_with_a_duplicate_key_and_a_line_that_is_not_an_object_are_refused(
    tmp_path: Path,
) -> None:
    """``"cmd": "play_move", "cmd": "resign"`` is not run as its last key; ``null``, a list
    or a number is not skipped: each is refused by line, appends nothing, exit 1."""
    store = str(tmp_path / "s.sqlite")
    setup = "\n".join(json.dumps(c) for c in SETUP) + "\n"
    assert candidates("apply", "--create", "-", store=store, stdin=setup).returncode == 0
    with Store(store) as s:
        before = s.last_seq()
    twice = '{"cmd": "play_move", "cmd": "resign", "game": "1.1", "by": "white", "at": "%s"}'
    lines = [twice % at(20), "null", "[1, 2]", "7"]
    run = candidates("apply", "--create", "-", store=store, stdin="\n".join(lines) + "\n")
    assert run.returncode == 1
    results = json_lines(run.stdout)
    assert [r["ok"] for r in results] == [False] * 4
    assert all(r["error"]["code"] == "malformed_command" for r in results)
    assert "'cmd' appears twice" in results[0]["error"]["message"]
    assert "not null" in results[1]["error"]["message"]
    with Store(store) as s:
        assert s.last_seq() == before
