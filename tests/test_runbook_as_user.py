"""The runbook's setup, run as written, leaves files the units' user can use.

The fourth hardening pass followed docs/operations.md on one machine: ``install -m 640``
as root made ``hall.toml`` unreadable by the ``candidates`` user the units run as, and
``install -d`` made root's folders the units could not write (the boards' recordings,
the backups). Root reads and writes whatever the modes say, so this test runs the
runbook's blocks as root, as the runbook says, with the hall's paths moved under a
folder of its own (``deploy.hall.Hall.here``) and ``nobody``/``nogroup`` standing for
the ``candidates`` user and group; then runs the program as ``nobody``
(``tests/unprivileged.py``): it reads the configuration, sets up a store in the
units' folder and writes the recordings' and backups' folders, and cannot change the
configuration.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.hall import Hall
from deploy.runbook import runbook_blocks
from tests.unprivileged import NOBODY, as_user, is_root, shared_dir

pytestmark = pytest.mark.skipif(
    not is_root() or shutil.which("setpriv") is None,
    reason="the runbook's setup runs as root (install -o/-g), the program then as nobody",
)

UNIT_USER, UNIT_GROUP = "nobody", "nogroup"
"""Who stands for the hall's ``candidates`` user and group on the machine of the test."""


@pytest.fixture
def hall() -> Iterator[Hall]:
    base = shared_dir("runbook-")
    try:
        yield Hall(base, lambda _: None)
    finally:
        shutil.rmtree(base)


def as_machine(hall: Hall, line: str) -> str:
    """A runbook line with the hall's paths moved and its user and group replaced."""
    command = hall.here(line)
    command = re.sub(r"-o candidates\b", f"-o {UNIT_USER}", command)
    return re.sub(r"-g candidates\b", f"-g {UNIT_GROUP}", command)


def run_block_as_root(hall: Hall, name: str) -> None:
    for line in runbook_blocks()[name]:
        if line.startswith(("adduser ", "usermod ")):
            continue  # the machine's users are not the hall's: nobody stands for it
        done = subprocess.run(
            ["bash", "-c", as_machine(hall, line)],
            capture_output=True,
            text=True,
            check=False,
            env=hall.env(),  # a technician's shell: the program on PATH, the hall's config
        )
        assert done.returncode == 0, (line, done.stderr)


def as_unit(hall: Hall, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        as_user(list(command)),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=hall.base,
    )


def test_the_configure_block_leaves_a_config_the_units_read_and_folders_they_write(
    hall: Hall,
) -> None:
    run_block_as_root(hall, "configure")
    config = Path(hall.here("/etc/candidates/hall.toml"))
    lib = Path(hall.here("/var/lib/candidates"))
    store = lib / "store.sqlite"
    init = as_unit(
        hall,
        sys.executable,
        "-m",
        "adapters.cli",
        "--config",
        str(config),
        "--store",
        str(store),
        "init",
    )
    assert init.returncode == 0, init.stderr
    assert store.stat().st_uid == NOBODY
    for folder in ("/var/lib/candidates/dgt", "/var/backups/candidates"):
        target = Path(hall.here(folder)) / "written-by-the-unit"
        wrote = as_unit(hall, "touch", str(target))
        assert wrote.returncode == 0, (folder, wrote.stderr)
    # the tokens are the units' to read, not to change, and nobody else's to read
    assert as_unit(hall, "touch", str(config)).returncode != 0
    assert config.stat().st_mode & 0o777 == 0o640 and config.stat().st_uid == 0


def test_the_units_read_the_hall_toml_and_a_root_only_copy_is_said_in_one_line(
    hall: Hall,
) -> None:
    """What the runbook once said (``install -m 640`` as root, no group) is what the test
    catches: such a file is refused to the units in one line."""
    run_block_as_root(hall, "configure")
    private = Path(hall.here("/etc/candidates/private.toml"))
    shutil.copy(hall.here("/etc/candidates/hall.toml"), private)
    private.chmod(0o640)
    refused = as_unit(
        hall,
        sys.executable,
        "-m",
        "adapters.cli",
        "--config",
        str(private),
        "schedule",
    )
    assert refused.returncode == 2 and "Permission denied" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_the_template_plays_the_round_the_runbook_plays() -> None:
    """deploy/hall.toml's boards are games of the round the runbook starts (round 2:
    ``pairings --round 2``, ``/pgn/round/2.pgn``)."""
    from adapters.cli.hall_config import load_config

    root = Path(__file__).resolve().parents[1]
    config = load_config(root / "deploy" / "hall.toml")
    rounds = {spec.rsplit("=", 1)[1].split(".")[0] for b in config.groups.values() for spec in b}
    text = (root / "docs" / "operations.md").read_text()
    assert rounds == {"2"} and "pairings --round 2" in text and "/pgn/round/2.pgn" in text


def test_the_founding_block_makes_a_file_the_units_apply_and_pair_round_2(hall: Hall) -> None:
    """The organisers' list (London 2013's players, numbered by its drawing of lots) into
    the founding file, as the runbook says (as root), then applied by the units' user to
    a store in its folder: round 2 is paired as London 2013 paired it."""
    from deploy.organisers_list import write_london_2013
    from tools import sample

    run_block_as_root(hall, "configure")
    numbers = sample.drawing_of_lots(sample.source_games()).numbers
    write_london_2013(Path(hall.here("/etc/candidates/players.csv")))
    run_block_as_root(hall, "founding")
    founding = Path(hall.here("/etc/candidates/london-2013.jsonl"))
    commands = [json.loads(line) for line in founding.read_text().splitlines()]
    assert [c["cmd"] for c in commands] == ["create_tournament", "draw_lots"]
    assert commands[1]["numbers"] == numbers
    assert {a["id"] for a in commands[0]["arbiters"]} == {"chief", "deputy"}
    store = Path(hall.here("/var/lib/candidates")) / "store.sqlite"
    applied = as_unit(
        hall,
        sys.executable,
        "-m",
        "adapters.cli",
        "--store",
        str(store),
        "apply",
        "--create",
        str(founding),
    )
    assert applied.returncode == 0, applied.stderr
    pairings = as_unit(
        hall,
        sys.executable,
        "-m",
        "adapters.cli",
        "--store",
        str(store),
        "pairings",
        "--round",
        "2",
    )
    assert pairings.returncode == 0 and "2.1" in pairings.stdout, pairings.stderr


def test_founding_refuses_a_list_it_cannot_read_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "players.csv"
    bad.write_text("id,name\nx,Somebody\n")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "adapters.cli",
            "founding",
            "--players",
            str(bad),
            "--id",
            "t",
            "--name",
            "T",
            "--out",
            str(tmp_path / "f.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "missing federation, rating" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and not (tmp_path / "f.jsonl").exists()
