"""No traceback anywhere: every subcommand that reads a file, or writes one, given
what a person or a broken disk can give it.

Each run must end with a clear message (one ``candidates: ...`` line on stderr,
or the refusals on stdout), a non-zero exit status, no traceback, and the store
as it was.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from adapters.cli import main
from adapters.store import Store
from tests.reliability_support import event_commands, recorded

PGN = Path(__file__).resolve().parents[1] / "replay_logs" / "sources" / "candidates-2013.pgn"

READERS = {
    "apply": ["apply", "{}"],
    "audit": ["audit", "{}"],
    "dgt decode": ["dgt", "decode", "{}"],
    "dgt moves": ["dgt", "moves", "{}"],
    "dgt simulate": ["dgt", "simulate", "--pgn", "{}", "--out", "{tmp}/sim.dgt"],
    "dgt run": ["dgt", "run", "--dgt-file", "{}"],
    "import-pgn": ["import-pgn", "{}"],
    "import-log": ["import-log", "{}"],
    "qualify": ["qualify", "{}"],
    "bid-check": ["bid-check", "{}"],
    "replay": ["replay", "{}", "--into", "{tmp}/replayed.sqlite"],
    "serve": ["serve", "--port", "0", "--public-delay-s", "0", "--tokens", "{}"],
}


def _inputs(tmp: Path) -> dict[str, Path]:
    tmp.mkdir()
    garbage = random.Random(17)
    made = {
        "missing": tmp / "no-such-file",
        "directory": tmp / "a-directory",
        "non_utf8": tmp / "latin1.txt",
        "utf16_bom": tmp / "utf16.json",
        "utf8_bom": tmp / "bom.json",
        "nested": tmp / "nested.json",
        "garbage": tmp / "garbage.bin",
        "surrogate": tmp / "surrogate.json",
    }
    made["directory"].mkdir()
    made["non_utf8"].write_bytes("Caf\xe9 [Event \xab?\xbb]\n".encode("latin-1"))
    made["utf16_bom"].write_bytes('\ufeff{"a": [1, 2]}\n'.encode("utf-16-le"))
    made["utf8_bom"].write_bytes(b"\xef\xbb\xbf" + b'{"cmd": 7, [\n')
    made["nested"].write_text("[" * 100_000, encoding="ascii")
    made["garbage"].write_bytes(bytes(garbage.randrange(256) for _ in range(4096)))
    made["surrogate"].write_text('{"cmd": "\\ud800", "players": ["\\udfff"]}\n', encoding="ascii")
    return made


@pytest.fixture
def filled(tmp_path: Path) -> str:
    url = str(tmp_path / "store.sqlite")
    with Store(url) as store:
        for command in event_commands(readings=4):
            assert store.handle(command)["ok"]
    return url


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("command", sorted(READERS))
def test_every_reader_refuses_bad_input_clearly_and_changes_nothing(
    command: str, filled: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = recorded(filled)
    for kind, path in _inputs(tmp_path / "inputs").items():
        argv = [
            a.replace("{}", str(path)).replace("{tmp}", str(tmp_path)) for a in READERS[command]
        ]
        status, out, err = _run(["--store", filled, *argv], capsys)
        assert status != 0, (command, kind, out, err)
        assert "Traceback" not in err and "Traceback" not in out, (command, kind, err)
        message = err.strip() or out.strip()
        assert message, (command, kind)
        assert "candidates" in err or '"ok": false' in out or '"refused"' in out, (
            command,
            kind,
            err,
            out[:300],
        )
    assert recorded(filled) == before


WRITERS = {
    "export": ["export", "--out", "{}"],
    "event-pgn": ["event-pgn", "--out", "{}"],
    "event-pgn crosstable": ["event-pgn", "--out", "{tmp}/all.pgn", "--crosstable", "{}"],
    "schedule": ["schedule", "--ical", "{}"],
    "dgt simulate": ["dgt", "simulate", "--pgn", str(PGN), "--round", "1.1", "--out", "{}"],
    "replay": ["replay", "{tmp}/log.msgpack", "--into", "{}"],
}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_writer_says_it_cannot_write_and_changes_nothing(
    command: str, filled: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--store", filled, "export", "--out", str(tmp_path / "log.msgpack")]) == 0
    capsys.readouterr()
    before = recorded(filled)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    (tmp_path / "a-directory").mkdir()
    for target in (blocker / "out", tmp_path / "a-directory"):
        argv = [
            a.replace("{}", str(target)).replace("{tmp}", str(tmp_path)) for a in WRITERS[command]
        ]
        status, out, err = _run(["--store", filled, *argv], capsys)
        assert status != 0, (command, target, out[:300], err)
        assert "Traceback" not in err and err.startswith("candidates"), (command, target, err)
    assert recorded(filled) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["standings"],
        ["game", "1.1"],
        ["apply", "{tmp}/event.jsonl"],
        ["seal"],
        ["init"],
        ["export", "--out", "{tmp}/x.msgpack"],
    ],
)
def test_a_store_that_cannot_be_opened_is_named(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "event.jsonl").write_text('{"cmd": "seal"}\n')
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for store in (str(blocker / "store.sqlite"), str(tmp_path)):
        args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
        status, _out, err = _run(["--store", store, *args], capsys)
        assert status != 0 and "Traceback" not in err and err.startswith("candidates"), (
            argv,
            store,
            err,
        )
