"""Every command that takes a file answers a missing one in one line, appends nothing,
creates no store and exits non-zero: the path, and why it cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli import main

MISSING = "/nonexistent/dir/missing"

CASES = [
    (["import-pgn", f"{MISSING}.pgn"], f"{MISSING}.pgn"),
    (["import-pgn", "--players", f"{MISSING}.json", "README.md"], f"--players {MISSING}.json"),
    (["apply", f"{MISSING}.jsonl"], f"{MISSING}.jsonl"),
    (["import-log", f"{MISSING}.msgpack"], f"{MISSING}.msgpack"),
    (["replay", f"{MISSING}.msgpack"], f"{MISSING}.msgpack"),
    (["audit", f"{MISSING}.msgpack"], f"{MISSING}.msgpack"),
    (["qualify", f"{MISSING}.json"], f"{MISSING}.json"),
    (["bid-check", f"{MISSING}.json"], f"{MISSING}.json"),
    (["dgt", "decode", f"{MISSING}.dgt"], f"{MISSING}.dgt"),
    (["dgt", "moves", f"{MISSING}.dgt"], f"{MISSING}.dgt"),
    (["dgt", "simulate", "--pgn", f"{MISSING}.pgn", "--out", "x.dgt"], f"--pgn {MISSING}.pgn"),
    (["serve", "--port", "0", "--tokens", f"{MISSING}.json"], f"--tokens {MISSING}.json"),
    (["serve", "--port", "0", "--dgt-file", f"{MISSING}.dgt=1.1"], f"--dgt-file {MISSING}.dgt"),
]


@pytest.mark.parametrize("argv,named", CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_a_missing_file_is_one_clear_line_and_a_failure(
    argv: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store.sqlite"
    status = main(["--store", str(store), *argv])
    out, err = capsys.readouterr()
    assert status != 0
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("candidates") and named in lines[0], lines[0]
    assert "No such file or directory" in lines[0]
    assert "Traceback" not in out + err
    assert not store.exists(), "a missing input must not leave a store behind"
