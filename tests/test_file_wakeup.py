"""Followers on SQLite wake on the writes to the store's files, not on a timer.

The store's writer signals each commit once it can be read (a write to
``<database>-commits``), and any commit writes the database's write-ahead log; the
follower watches the directory that holds them
(``adapters.store.wakeup.FileListener``). The gateways below read the store on
their own only every hour (``fallback_s``), so a move another process appends can
only reach their viewers through the wake-up: nothing here is timed, each wait is
bounded by a generous timeout. Where the files cannot be watched (the failure
injected) the gateway reads on its tick.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from adapters.store import MemoryLog, Store, inotify
from adapters.store.commit_signal import signal_path
from adapters.store.wakeup import (
    FileListener,
    NotifyListener,
    listen_for_changes,
    write_lock_held,
)
from tests.gateway_support import Peer, RunningGateway
from tests.helpers import at, paired_tournament

ROOT = Path(__file__).resolve().parents[1]
AN_HOUR_S = 3600.0
WRITER = """
import json, os, sqlite3, sys
from adapters.store import Store
from adapters.store.commit_signal import CommitSignal
path, steps = sys.argv[1], json.loads(sys.argv[2])
if os.environ.get("NO_COMMIT_SIGNAL"):  # a writer that does not signal (an older version)
    CommitSignal.committed = lambda self, last_id: None
with Store(path) as store:
    for step in steps:
        if step == "checkpoint":  # the write-ahead log emptied and cut to nothing
            with sqlite3.connect(path) as db:
                busy, _log, _done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            assert busy == 0, "the checkpoint was blocked"
            # cut to nothing, looked at at once (the gateway's own kept state writes next)
            assert os.path.getsize(path + "-wal") == 0
        else:
            answer = store.handle(step)
            assert answer["ok"], answer
"""


def in_another_process(path: Path, *steps: dict[str, Any] | str, signal: bool = True) -> None:
    """Commands (or ``"checkpoint"``) applied to the store by a process of its own (one
    that does not signal its commits: ``signal=False``)."""
    env = dict(os.environ)
    env.pop("NO_COMMIT_SIGNAL", None)
    if not signal:
        env["NO_COMMIT_SIGNAL"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(path), json.dumps(steps)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def move(san: str, seconds: float) -> dict[str, Any]:
    return {"cmd": "play_move", "game": "1.1", "move": san, "at": at(seconds)}


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    with Store(str(path)) as store:
        paired_tournament(store)
        assert store.handle({"cmd": "start_game", "game": "1.1", "at": at(0)})["ok"]
    return path


def test_a_sqlite_store_gets_a_file_listener(store_path: Path) -> None:
    with Store(str(store_path)) as store:
        listener = listen_for_changes(store, lambda: None)
        try:
            assert isinstance(listener, FileListener)
            assert not isinstance(listener, NotifyListener)
            assert listener.database == store_path.resolve()
            assert listener.names == {"store.sqlite", "store.sqlite-wal", "store.sqlite-journal"}
            assert listener.signal == "store.sqlite-commits"
            assert listener.settle_s > 0  # a commit is readable after the write to its log
        finally:
            assert listener is not None
            listener.close()


def test_a_listener_is_woken_by_a_commit_whose_log_did_not_exist_when_it_started(
    store_path: Path,
) -> None:
    wal = store_path.with_name(store_path.name + "-wal")
    assert not wal.exists()  # the last connection closed: SQLite removed the log
    woken = threading.Semaphore(0)
    listener = FileListener(store_path.resolve(), woken.release)
    try:
        assert listener.listening.wait(10)
        assert woken.acquire(timeout=10)  # the wake-up when the watch is in place
        assert listener.notifications == 0
        in_another_process(store_path, move("e4", 5))
        assert woken.acquire(timeout=10)
        assert listener.notifications >= 1
        with Store(str(store_path)) as follower:
            game = follower.reads.game("1.1")
            assert game is not None and game.moves == ("e2e4",)
    finally:
        listener.close()


def test_a_commit_signalled_by_another_process_is_readable_when_it_is_announced(
    store_path: Path,
) -> None:
    with Store(str(store_path)) as reader:
        before = reader.last_seq()
        seen: list[int] = []
        woken = threading.Semaphore(0)

        def read_at_once() -> None:  # in the listener's thread, as the change is announced
            seen.append(reader.last_seq())
            woken.release()

        # the writes to the log that no signal follows are announced only after an hour:
        # every announcement here is a signal of the writer's
        listener = FileListener(store_path.resolve(), read_at_once, grace_s=AN_HOUR_S)
        try:
            assert woken.acquire(timeout=10)  # the wake-up when the watch is in place
            in_another_process(store_path, move("e4", 5), move("e5", 10))
            after = reader.last_seq()
            assert after > before
            while seen[-1] < after:
                assert woken.acquire(timeout=10)
            announced = seen[1:]
            assert announced
            assert [seq for seq in announced if seq == before] == []  # no read found nothing
            assert listener.unsure == 0
        finally:
            listener.close()
    assert signal_path(store_path).read_text() == f"{after:020d}\n"


def test_a_writer_that_does_not_signal_still_wakes_the_follower(store_path: Path) -> None:
    woken = threading.Semaphore(0)
    listener = FileListener(store_path.resolve(), woken.release)
    try:
        assert woken.acquire(timeout=10)
        assert listener.unsure == 0
        db = sqlite3.connect(store_path)  # another tool, which knows nothing of the signal
        try:
            with db:
                db.execute("CREATE TABLE scratch (x)")
                db.execute("INSERT INTO scratch VALUES (1)")
        finally:
            db.close()
        assert woken.acquire(timeout=10)
        assert listener.unsure >= 1  # announced without a signal: maybe not readable yet
    finally:
        listener.close()


def test_a_gateway_delivers_the_moves_of_a_writer_that_does_not_signal(store_path: Path) -> None:
    with RunningGateway(str(store_path), fallback_s=AN_HOUR_S) as gw, Peer(gw) as viewer:
        viewer.subscribe()
        viewer.next("snapshot")
        in_another_process(store_path, move("e4", 5), signal=False)
        delta = viewer.next("delta", timeout=30)  # the write-ahead log's writes woke it
        assert delta["object"]["moves"] == ["e4"]
        in_another_process(store_path, move("e5", 10))  # and a writer that signals
        delta = viewer.next("delta", timeout=30)
        assert delta["object"]["moves"] == ["e4", "e5"]


def test_a_store_whose_commit_signal_cannot_be_written_still_wakes_its_followers(
    store_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = signal_path(store_path)
    blocker.unlink()
    blocker.mkdir()  # the name taken: the signal cannot be opened, even by root
    caplog.set_level(logging.WARNING, logger="adapters.store.commit_signal")
    woken = threading.Semaphore(0)
    listener = FileListener(store_path.resolve(), woken.release)
    try:
        assert woken.acquire(timeout=10)
        with Store(str(store_path)) as store:
            assert store.handle(move("e4", 5))["ok"]
            assert woken.acquire(timeout=10)  # by the writes to the write-ahead log
            assert store.handle(move("e5", 10))["ok"]
            game = store.reads.game("1.1")
            assert game is not None and game.moves == ("e2e4", "e7e5")
        assert listener.unsure >= 1
    finally:
        listener.close()
    assert caplog.text.count("are not signalled to its followers") == 1  # said once
    assert "store.sqlite-commits: Is a directory" in caplog.text
    assert blocker.is_dir()


def test_the_commit_signal_is_made_with_the_database_permissions(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with Store(str(path)) as store:
        assert store.last_seq() == 0
        os.chmod(path, 0o660)  # a group of writers: wider than the umask lets a file be
        assert not signal_path(path).exists()  # nothing committed yet
        paired_tournament(store)
        signal = signal_path(path)
        assert stat.S_IMODE(signal.stat().st_mode) == 0o660
        assert signal.read_text() == f"{store.last_seq():020d}\n"


def test_it_tells_whether_a_process_is_writing_to_the_store(store_path: Path) -> None:
    listener = FileListener(store_path.resolve(), lambda: None)
    try:
        assert listener.writing() is None  # no connection: no -shm file to ask
        with Store(str(store_path)) as store:
            assert store.last_seq() > 0  # a connection open: the -shm file is there
            assert listener.writing() is False
            writer = sqlite3.connect(store_path, isolation_level=None)
            try:
                writer.execute("BEGIN IMMEDIATE")  # the write lock, until the commit
                writer.execute("CREATE TABLE scratch (x)")
                assert listener.writing() is True
                writer.execute("COMMIT")
                assert listener.writing() is False
            finally:
                writer.close()
    finally:
        listener.close()


def test_the_write_lock_is_read_from_the_kernel_list_of_locks() -> None:
    locks = (
        "1: POSIX  ADVISORY  READ 13606 fe:00:2155019 128 128\n"
        "2: POSIX  ADVISORY  WRITE 13607 fe:00:77 120 120\n"
        "2: -> POSIX  ADVISORY  WRITE 13608 fe:00:88 120 120\n"
        "3: OFDLCK ADVISORY  WRITE -1 fe:00:99 100 EOF\n"
    )
    assert write_lock_held(locks, 77)
    assert not write_lock_held(locks, 88)  # a process waiting for it holds nothing
    assert write_lock_held(locks, 99)  # a range to the end of the file covers it
    assert not write_lock_held(locks, 2155019)  # a reader's mark, not the write lock
    assert not write_lock_held("", 77)


def test_a_directory_watch_names_each_file_written(tmp_path: Path) -> None:
    watch = inotify.DirectoryWatch(tmp_path)
    try:
        assert watch.events() == []  # nothing yet: the read does not block
        (tmp_path / "a.sqlite-wal").write_bytes(b"frame")
        with (tmp_path / "a.sqlite").open("ab") as database:
            database.write(b"page")
        events = watch.events()
        names = [name for _, name in events]
        assert names.index("a.sqlite-wal") < names.index("a.sqlite")
        assert any(mask & inotify.IN_CREATE for mask, name in events if name == "a.sqlite-wal")
        assert any(mask & inotify.IN_MODIFY for mask, name in events if name == "a.sqlite")
        assert watch.events() == []
    finally:
        watch.close()


def test_a_gateway_delivers_another_process_moves_woken_by_the_files(store_path: Path) -> None:
    url = str(store_path)
    with RunningGateway(url, fallback_s=AN_HOUR_S) as gw, Peer(gw) as viewer:
        viewer.subscribe()
        viewer.next("snapshot")
        in_another_process(store_path, move("e4", 5))
        delta = viewer.next("delta", timeout=30)  # far less than the hour of the timer
        assert delta["object"]["moves"] == ["e4"]
        # the log emptied and truncated by a checkpoint, then the next commit writes it anew
        in_another_process(store_path, "checkpoint")  # which finds the log cut to nothing
        in_another_process(store_path, move("e5", 10), move("Nf3", 15))
        deltas = [viewer.next("delta", timeout=30) for _ in range(2)]
        assert deltas[-1]["object"]["moves"] == ["e4", "e5", "Nf3"]
        with Store(url) as store:
            assert deltas[-1]["seq"] == store.last_seq()


def no_inotify() -> inotify._Libc:
    raise OSError(errno.ENOSYS, "inotify is not implemented here")


def test_without_inotify_there_is_no_listener_and_it_says_why(
    store_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(inotify, "libc", no_inotify)
    caplog.set_level(logging.INFO, logger="adapters.store.wakeup")
    with Store(str(store_path)) as store:
        assert listen_for_changes(store, lambda: None) is None
    assert "cannot be watched (inotify is not implemented here)" in caplog.text
    with pytest.raises(OSError):
        FileListener(store_path.resolve(), lambda: None)


def test_without_inotify_the_gateway_reads_the_store_on_its_tick(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inotify, "libc", no_inotify)
    with (
        RunningGateway(str(store_path), fallback_s=AN_HOUR_S, poll_interval_s=0.02) as gw,
        Peer(gw) as viewer,
    ):
        viewer.subscribe()
        viewer.next("snapshot")
        in_another_process(store_path, move("e4", 5))
        delta = viewer.next("delta", timeout=30)
        assert delta["object"]["moves"] == ["e4"]


def test_an_in_memory_store_has_no_listener() -> None:
    with Store(":memory:") as store:
        assert listen_for_changes(store, lambda: None) is None
    with Store("a-copy", memory=MemoryLog()) as store:  # the public copy's kind of store
        assert listen_for_changes(store, lambda: None) is None
