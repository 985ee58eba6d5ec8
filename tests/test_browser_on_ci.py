"""A browser that could not be installed fails CI instead of passing as a skip.

``make browser`` fails when Chromium cannot be installed, and under ``CI=true`` the
browser tests fail when there is no Chromium; on a developer's machine they skip and
say why. Both are run for real: ``make`` with an install that fails, and pytest on the
browser tests with no Chromium on the PATH.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_browser_fails_when_chromium_cannot_be_installed(tmp_path: Path) -> None:
    failed = subprocess.run(
        ["make", "-s", "browser", f"CHROMIUM={tmp_path}/chromium", "APT_GET=false"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert failed.returncode != 0
    assert "chromium could not be installed" in failed.stderr
    present = tmp_path / "present"
    present.write_text("#!/bin/sh\n")
    present.chmod(0o755)
    installed = subprocess.run(
        ["make", "-s", "browser", f"CHROMIUM={present}", "APT_GET=false"], cwd=ROOT
    )
    assert installed.returncode == 0  # already there: nothing to install


def _browser_tests_without_chromium(ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER")}
    env["PATH"] = str(Path(sys.executable).parent)  # no chromium on it
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "tests/test_gateway_browser.py",
            "-k",
            "lists_the_moves",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_on_ci_the_browser_tests_fail_without_chromium() -> None:
    run = _browser_tests_without_chromium("true")
    assert run.returncode == 1, run.stdout
    assert "on CI the browser tests must run" in run.stdout
    assert "1 failed" in run.stdout or "1 error" in run.stdout


def test_off_ci_the_browser_tests_skip_without_chromium_and_say_why() -> None:
    run = _browser_tests_without_chromium(None)
    assert run.returncode == 0, run.stdout
    assert "1 skipped" in run.stdout and "chromium is not installed" in run.stdout
