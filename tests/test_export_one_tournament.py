"""``export --tournament X`` of a store of several tournaments writes X's events only.

The fourth hardening pass found both tournaments' events in the log asked for one. The
log now holds X's streams whole (each link as stored) and says in its header that it is
an extract of a store of several (``extract_of``): ``candidates audit FILE`` reads it
(its links hold; the store's seals, which cover events left out, are not checked) and
``import-log`` refuses it whole, since it is not the store's log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.formats.replay_log import LogError, import_log, owner, read_log
from adapters.store import Store
from tests.cli import candidates
from tests.helpers import PLAYERS_2013, at, ok
from tests.test_multi_tournament import WOMENS, create


@pytest.fixture
def two(sqlite_store: Store) -> Store:
    create(sqlite_store, "open", PLAYERS_2013)
    create(sqlite_store, "womens", WOMENS)
    for tid in ("open", "womens"):
        ok(sqlite_store, {"cmd": "start_game", "tournament": tid, "game": "1.1", "at": at(0)})
    for number, move in enumerate(("e4", "e5"), start=1):
        ok(
            sqlite_store,
            {
                "cmd": "play_move",
                "tournament": "open",
                "game": "1.1",
                "move": move,
                "at": at(number),
            },
        )
    ok(
        sqlite_store,
        {"cmd": "play_move", "tournament": "womens", "game": "1.1", "move": "d4", "at": at(3)},
    )
    sqlite_store.seal()
    ok(
        sqlite_store,
        {"cmd": "resign", "tournament": "womens", "game": "1.1", "by": "black", "at": at(50)},
    )
    return sqlite_store


@pytest.mark.parametrize(("tid", "namespace"), [("womens", "womens"), ("open", None)])
def test_export_of_one_tournament_writes_its_streams_only(
    two: Store, tmp_path: Path, tid: str, namespace: str | None
) -> None:
    out = tmp_path / f"{tid}.msgpack"
    run = candidates("export", "--tournament", tid, "--out", str(out), store=two.url)
    assert run.returncode == 0, run.stderr
    log = read_log(out)
    assert log.tournament == tid and list(log.header["extract_of"]) == ["open", "womens"]
    assert log.records and all(owner(r.stream) == namespace for r in log.records)
    games = {r.stream for r in log.records if r.stream.startswith("game/")}
    assert games == {"game/womens/1.1" if namespace else "game/1.1"}
    audit = candidates("audit", "--format", "json", str(out), store=two.url)
    report = json.loads(audit.stdout)
    assert report["integrity_failures"] == 0, report
    assert any(f["kind"] == "extract" for f in report["findings"])
    with Store(str(tmp_path / "copy.sqlite")) as copy:
        with pytest.raises(LogError, match="an extract is read"):
            import_log(copy, read_log(out))
        assert copy.last_seq() == 0


def test_export_of_the_whole_store_is_as_before(two: Store, tmp_path: Path) -> None:
    out = tmp_path / "all.msgpack"
    assert candidates("export", "--out", str(out), store=two.url).returncode == 0
    log = read_log(out)
    assert "extract_of" not in log.header
    assert {owner(r.stream) for r in log.records} == {None, "womens"}
    with Store(str(tmp_path / "copy.sqlite")) as copy:
        assert import_log(copy, log) == len(log.records)


def test_export_of_an_unknown_tournament_is_one_line(two: Store, tmp_path: Path) -> None:
    run = candidates("export", "--tournament", "blitz", "--out", str(tmp_path / "x"), store=two.url)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
