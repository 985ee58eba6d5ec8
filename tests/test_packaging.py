"""Installing warns about nothing in the project's own files."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_is_an_spdx_expression_not_a_deprecated_table() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    # A license string needs setuptools 77 or later (older ones read only the table form).
    assert "setuptools>=77" in project["build-system"]["requires"]
