"""The event-day runbook (docs/operations.md) and its drill (deploy/drill.py).

Every command of the runbook is in a ``sh`` block named for the drill, and the
drill runs every block; the unit files it starts exist and run what the runbook
says; and a short drill (fewer moves, every step and every kill) runs here: a
PostgreSQL cluster of its own, two gateways, four DGT boards on pseudo-terminals,
a board reader, a gateway and the database's postmaster killed with SIGKILL, a
backup restored. It must report 0 lost, 0 doubled, 0 out of order for every
client, and every audit passed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.cli.hall_config import load_config
from deploy import clients, cluster, drill_round, hall, runbook

ROOT = Path(__file__).resolve().parents[1]
RUNBOOK = ROOT / "docs" / "operations.md"


def test_the_readme_links_the_runbook() -> None:
    assert "(docs/operations.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_sh_block_of_the_runbook_is_a_step_of_the_drill() -> None:
    text = RUNBOOK.read_text(encoding="utf-8")
    blocks = runbook.runbook_blocks(text)
    assert len(runbook.sh_blocks(text)) == len(blocks), "an sh block without <!-- drill: NAME -->"
    assert list(blocks) == list(runbook.STEPS)
    source = (ROOT / "deploy" / "drill.py").read_text(encoding="utf-8")
    for name in runbook.STEPS:
        assert f'self.step("{name}")' in source, f"the drill never runs block {name}"
        assert blocks[name], f"block {name} holds no command"


def test_no_other_code_block_of_the_runbook_holds_a_command() -> None:
    """Commands live in the drill's ``sh`` blocks only: no other fenced or indented block
    of the runbook starts a line with a command."""
    inside: str | None = None
    for line in RUNBOOK.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = None if inside is not None else line[3:].strip()
            assert inside in (None, "sh"), f"a {inside!r} block in the runbook"
            continue
        if inside == "sh":
            continue
        if inside is not None or line.startswith("    "):
            assert not re.match(r"\s*(candidates|systemctl|curl|createdb|sed)\b", line), line


def test_the_units_the_runbook_names_exist_and_run_the_cli() -> None:
    units = {p.name: hall.read_unit(p) for p in (ROOT / "deploy" / "systemd").iterdir()}
    for lines in runbook.runbook_blocks().values():
        for line in lines:
            if not line.startswith("systemctl "):
                continue
            for name in line.split()[1:]:
                if name.startswith("-") or name in ("enable", "start", "restart", "stop"):
                    continue
                if name in ("daemon-reload", "postgresql"):
                    continue
                base, at, rest = name.partition("@")
                template = f"{base}@.service" if at and "." not in rest else name
                if "." not in template:
                    template += ".service"
                assert template in units, f"{line}: no deploy/systemd/{template}"
    for name, unit in units.items():
        if name.endswith(".service"):
            assert unit.environment.get("CANDIDATES_CONFIG") == "/etc/candidates/hall.toml"
            assert unit.exec_start.startswith("/opt/candidates/"), name


def test_the_drill_config_edit_keeps_a_valid_file(tmp_path: Path) -> None:
    data = {
        "store": "postgresql://x@127.0.0.1:1/y",
        "public_delay_s": 4,
        "gateway": {"host": "127.0.0.1"},
        "tokens": {"token-0000001": {"role": "commentator", "name": "S"}},
        "dgt": {"groups": {"a": {"boards": ["/dev/x=2.1"]}}},
    }
    path = tmp_path / "hall.toml"
    drill_round.write_toml(path, data)
    config = load_config(path)
    assert config.groups == {"a": ["/dev/x=2.1"]} and config.public_delay_s == 4


def _can_run_a_cluster() -> str | None:
    try:
        cluster.pg_bin("initdb")
        cluster.pg_bin("pg_ctl")
    except runbook.DrillError as error:
        return str(error)
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "initdb refuses root and runuser is missing"
    return None


@pytest.mark.skipif(_can_run_a_cluster() is not None, reason=str(_can_run_a_cluster()))
def test_the_short_drill_loses_nothing_through_every_kill(tmp_path: Path) -> None:
    summary = tmp_path / "summary.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "deploy" / "drill.py"), "--short", "--summary", str(summary)],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    # a database outage of 15 s or more while the boards played on: nothing to retype
    # (a board reader killed mid-round may leave plies its board's dump cannot order,
    # which the arbiters enter: counted, and none of them since the database was killed)
    assert last.endswith("; 0 lost, 0 doubled, 0 out of order"), last
    assert re.search(r"score sheets: \d+ \(0 since the database was killed\);", last), last
    down = re.search(r"database down (\d+) s", last)
    assert down is not None and int(down.group(1)) >= 15, last
    result = json.loads(summary.read_text(encoding="utf-8"))
    # every client saw every move; the killed gateway's clients resumed on the other
    assert all(c["lost"] == 0 and c["doubled"] == 0 for c in result["clients"])
    assert all(c["moves"] > 0 for c in result["clients"])
    assert any(c["resumed"] for c in result["clients"])
    assert all(a["passed"] for a in result["audits"].values()), result["audits"]
    assert all(result["record"].values()), result["record"]
    # every command of the runbook was run, as written there
    ran = {tuple(item) for item in result["ran"]}
    wanted = {(name, line) for name, lines in runbook.runbook_blocks().items() for line in lines}
    assert wanted <= ran, sorted(wanted - ran)


def test_the_drill_counts_moves_lost_doubled_and_out_of_order() -> None:
    store = {"2.1": ["e2e4", "e7e5", "g1f3"]}
    live = clients.Seen("live", "deltas")
    live.delta("2.1", 1, "e2e4", 10)
    live.delta("2.1", 1, "e2e4", 10)  # the same delta twice
    live.delta("2.1", 3, "g1f3", 12)  # ply 2 never came
    row = clients.judge(live, store, (0.0, float("inf")))
    assert (row["lost"], row["doubled"], row["out_of_order"]) == (2, 1, 1)
    views = clients.Seen("public", "views")
    views.view("2.1", ["e2e4", "e7e5"])
    views.view("2.1", ["d2d4"])  # a game that went back and changed
    views.view("2.1", ["d2d4", "e7e5", "g1f3", "b8c6"])  # a move more than the record
    row = clients.judge(views, store, (0.0, float("inf")))
    assert (row["lost"], row["doubled"], row["out_of_order"]) == (1, 1, 1)
    clean = clients.Seen("clean", "deltas")
    for ply, (seq, uci) in enumerate(zip((1, 2, 3), store["2.1"], strict=True), start=1):
        clean.delta("2.1", ply, uci, seq)
    row = clients.judge(clean, store, (0.0, float("inf")))
    assert (row["lost"], row["doubled"], row["out_of_order"], row["moves"]) == (0, 0, 0, 3)
