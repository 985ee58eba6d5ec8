"""The README's first screen runs a round: exactly its commands, in a fresh directory.

The block between ``<!-- quickstart`` and ``<!-- /quickstart -->`` is run by
``bash -e`` with the installed ``candidates`` on the PATH: create the
tournament, draw the lots (3.4.1), see the pairings, start games, enter moves,
a resignation, a threefold-repetition claim (Laws 9.2 a) ruled by the Chief
Arbiter (3.9.2 b), the standings, PGN and the TRF report.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from projections.trf import parse_trf

ROOT = Path(__file__).resolve().parents[1]


def quickstart() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- quickstart[^>]*-->\n```sh\n(.*?)```\n<!-- /quickstart -->", text, re.S)
    assert found, "the README has no quickstart block"
    head = text[: found.start()]
    assert head.count("\n") < 10, "the quickstart is on the README's first screen"
    return found.group(1)


def test_3_9_2_b_the_readme_runs_a_round(tmp_path: Path) -> None:
    script = quickstart()
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("CANDIDATES_STORE", None)
    run = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    out = run.stdout
    assert "FIDE Candidates Tournament 2013: pairings" in out
    assert '"ok": false' not in out
    assert '"type": "ClaimRuled"' in out and '"termination": "threefold_repetition"' in out
    assert "after round 1 of 14 (in progress)" in out
    assert "Leader: " in out
    pgn = (tmp_path / "round-1.pgn").read_text(encoding="utf-8")
    assert pgn.count("[Event ") == 2
    assert '[Result "1-0"]' in pgn and '[Result "1/2-1/2"]' in pgn
    report = parse_trf((tmp_path / "london-2013.trf").read_text(encoding="utf-8"))
    assert len(report.players) == 8
    assert sorted(p.points for p in report.players) == [0, 0, 0, 0, 0, 0.5, 0.5, 1]
    assert (tmp_path / "var" / "london.sqlite").is_file()
