"""Run the real ``candidates`` command line in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def candidates(
    *args: str, store: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", store, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
