"""An operator's mistakes said in one line: a path that is not a store, a read-only copy,
a full disk, a schema that would need quoting.

The fourth hardening pass found ``serve`` on random bytes, a text file or a bare SQLite
header never listening and never exiting; ``standings`` and ``audit`` on another
application's SQLite file creating ``stored_events`` in it (and ``audit`` calling it
clean); every command refusing a store on a read-only filesystem, so that an evidence
copy could not be audited where it lies; a full disk ending ``apply`` in a traceback;
a PostgreSQL ``schema`` reaching SQL as given.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.store import Store
from tests.cli import candidates, json_lines
from tests.conftest import PG_URL
from tests.helpers import at, ok, paired_tournament, play
from tests.unprivileged import as_user, shared_dir


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _other_application(path: Path) -> Path:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    connection.execute("INSERT INTO invoices (total) VALUES (12.5)")
    connection.commit()
    connection.close()
    return path


NOT_STORES = {
    "random_bytes": lambda p: p.write_bytes(os.urandom(4096)) and p,
    "text": lambda p: p.write_text('[Event "London"]\n1. d4 Nf6 *\n') and p,
    "bare_sqlite_header": lambda p: p.write_bytes(b"SQLite format 3\x00") and p,
    "other_application": _other_application,
}

COMMANDS = [
    ["standings"],
    ["audit"],
    ["pgn", "1.1"],
    ["game", "1.1"],
    ["export", "--out", "x.msgpack"],
    ["apply", "-"],
    ["apply", "--create", "-"],
    ["serve", "--port", "0", "--public-delay-s", "0"],
    ["dgt", "run", "--dgt", "tcp://127.0.0.1:9=1.1"],
]


@pytest.mark.parametrize("kind", sorted(NOT_STORES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_path_that_is_not_a_store_is_one_line_and_exit_2_and_is_left_as_it_was(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    path = tmp_path / f"{kind}.sqlite"
    NOT_STORES[kind](path)
    before = _digest(path)
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--store", str(path), *command],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 2, (run.returncode, run.stderr[-500:])
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not a candidates store" in lines[0], run.stderr[-500:]
    assert "Traceback" not in run.stderr and run.stdout == ""
    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_another_applications_database_keeps_its_tables_and_gains_none(tmp_path: Path) -> None:
    path = _other_application(tmp_path / "invoices.sqlite")
    for command in (["standings"], ["audit"], ["pgn", "1.1"]):
        run = candidates(*command, store=str(path))
        assert run.returncode == 2 and "another application's SQLite database" in run.stderr
        assert "tables invoices" in run.stderr and "nothing was written" in run.stderr
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("invoices",)]


@pytest.fixture
def evidence() -> Iterator[Path]:
    """A store of a played game, as an evidence copy: the file mode 444, its folder 555,
    read by a user without privileges (root would write it anyway)."""
    folder = shared_dir("evidence-")
    path = folder / "copy" / "store.sqlite"
    path.parent.mkdir()
    with Store(str(path)) as store:
        paired_tournament(store)
        ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0)})
        play(store, "1.1", "d4 Nf6 c4 e6")
        store.seal()
    for companion in path.parent.iterdir():  # the writer's signal file is not the store
        if companion != path:
            companion.unlink()
    path.chmod(0o444)
    path.parent.chmod(0o555)
    try:
        yield path
    finally:
        path.parent.chmod(0o755)
        shutil.rmtree(folder)


def _as_user(path: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        as_user([sys.executable, "-m", "adapters.cli", "--store", str(path), *command]),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
    )


def test_audit_standings_and_pgn_read_a_store_in_a_read_only_file_and_folder(
    evidence: Path,
) -> None:
    before = _digest(evidence)
    audit = _as_user(evidence, "audit", "--format", "json")
    assert audit.returncode == 0, audit.stderr[-800:]
    report = json.loads(audit.stdout)
    assert report["integrity_failures"] == 0 and report["events"] >= 8
    standings = _as_user(evidence, "standings")
    assert standings.returncode == 0 and "Aronian" in standings.stdout, standings.stderr[-800:]
    pgn = _as_user(evidence, "pgn", "1.1")
    assert pgn.returncode == 0 and "1. d4" in pgn.stdout and "2... e6" in pgn.stdout
    for run in (audit, standings, pgn):
        assert "Traceback" not in run.stderr
    assert _digest(evidence) == before
    assert [p.name for p in evidence.parent.iterdir()] == [evidence.name]


def test_serve_and_apply_say_in_one_line_that_a_read_only_store_cannot_be_written(
    evidence: Path,
) -> None:
    serve = _as_user(evidence, "serve", "--port", "0")
    assert serve.returncode == 2 and "cannot write the store" in serve.stderr
    assert len(serve.stderr.strip().splitlines()) == 1
    line = json.dumps({"cmd": "play_move", "game": "1.1", "move": "Bb4+", "at": at(90)})
    apply = subprocess.run(
        as_user([sys.executable, "-m", "adapters.cli", "--store", str(evidence), "apply", "-"]),
        input=line + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=evidence.parent,
    )
    assert apply.returncode == 2 and "Traceback" not in apply.stderr
    assert len(apply.stderr.strip().splitlines()) == 1 and "readonly" in apply.stderr


def _limited(size_bytes: int) -> None:
    """In the child: files may grow to ``size_bytes`` (then a write fails, as on a full
    disk, instead of the process being killed by SIGXFSZ)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size_bytes, size_bytes))


def test_a_disk_that_fills_under_apply_is_one_line_and_the_rerun_completes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.sqlite"
    with Store(str(path)) as store:
        paired_tournament(store)
    alerts = tmp_path / "alerts.jsonl"
    alerts.write_text(
        "".join(
            json.dumps(
                {
                    "cmd": "raise_alert",
                    "board": f"{number}",
                    "kind": "board_disconnected",
                    "message": "m" * 4000,
                    "details": {"seen": ["x" * 4000] * 12},
                    "at": at(number),
                    "command_id": f"alert-{number}",
                }
            )
            + "\n"
            for number in range(120)
        )
    )
    command = [sys.executable, "-m", "adapters.cli", "--store", str(path), "apply", str(alerts)]
    full = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: _limited(path.stat().st_size + 400_000),
    )
    assert full.returncode == 2 and "Traceback" not in full.stderr, full.stderr[-1500:]
    lines = full.stderr.strip().splitlines()
    assert len(lines) == 1 and "the store could not be written" in lines[0]
    assert "run the same command again" in lines[0]
    applied = len(json_lines(full.stdout))
    assert 0 < applied < 120
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr[-800:]
    results = json_lines(rerun.stdout)
    assert len(results) == 120 and all(r["ok"] for r in results)
    with Store(str(path)) as store:
        raised = [e for _, e in store.cache.events_since(0) if type(e).__name__ == "AlertRaised"]
        assert len(raised) == 120


@pytest.mark.parametrize(
    "schema", ["x; DROP TABLE y", "Upper", "with-hyphen", "1starts_with_digit", "a" * 64, '"q"']
)
def test_a_postgresql_schema_that_would_need_quoting_is_refused_in_one_line(schema: str) -> None:
    from urllib.parse import quote

    url = f"postgresql://postgres@127.0.0.1:9/test?schema={quote(schema)}"
    run = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "init", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "not a plain PostgreSQL identifier" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(PG_URL is None, reason="CANDIDATES_TEST_PG is not set")
def test_a_plain_schema_is_used_as_given(tmp_path: Path) -> None:
    import psycopg

    assert PG_URL is not None
    schema = f"ops_{os.getpid()}_plain"
    url = f"{PG_URL}?schema={schema}"
    try:
        with Store(url) as store:
            paired_tournament(store)
            assert store.reads.tournament() is not None
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
