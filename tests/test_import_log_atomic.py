"""``import-log`` is all or nothing: the whole log is verified before anything is
appended, and then appended in one transaction (docs/replay-log.md).

Each mutant of the issue (a log cut short, a flipped bit, a record edited and its
link set to nil, ill-typed fields under freshly computed links, a missing or
wrong trailer, an unhashable map key) is refused with a message naming the
problem, a non-zero exit and an empty store; so are random byte flips, unless
they fall where no record is (the header's notes, the trailer's projected state).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgpack
import pytest

from adapters.cli import main
from adapters.formats.replay_log import export_log, read_log
from adapters.store import Store
from adapters.store.chain import GENESIS, canonical, extend_digest, next_link
from tests.reliability_support import event_commands

SAMPLE = Path(__file__).resolve().parents[1] / "replay_logs" / "candidates-2013.msgpack"


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("log")
    with Store(str(tmp / "source.sqlite")) as store:
        for command in event_commands(readings=6):
            assert store.handle(command)["ok"]
        store.seal()
        export_log(store, tmp / "event.msgpack")
    return tmp / "event.msgpack"


def objects(path: Path) -> list[Any]:
    with open(path, "rb") as handle:
        return list(msgpack.Unpacker(handle, raw=False, strict_map_key=False))


def write(path: Path, items: list[Any]) -> Path:
    packer = msgpack.Packer(use_bin_type=True)
    path.write_bytes(b"".join(packer.pack(item) for item in items))
    return path


def relink(items: list[Any]) -> list[Any]:
    """Links and the trailer's digest computed afresh: a forger's log that holds."""
    heads: dict[str, bytes] = {}
    links, out = [], []
    for item in items:
        if isinstance(item, list):
            stream, version, kind, at_ms, fields, _ = item
            link = next_link(
                heads.get(stream, GENESIS), canonical(stream, version, kind, at_ms, fields)
            )
            heads[stream] = link
            links.append(link)
            item = [stream, version, kind, at_ms, fields, link]
        out.append(item)
    trailer = out[-1]
    if isinstance(trailer, dict):
        out[-1] = {**trailer, "order_digest": extend_digest(GENESIS, links).hex()}
    return out


def imported(path: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, int]:
    """(exit status, stderr, events in the store afterwards)."""
    store = tmp / f"target-{random.random()}.sqlite"
    status = main(["--store", str(store), "import-log", "--create", str(path)])
    err = capsys.readouterr().err
    with Store(str(store)) as target:
        return status, err, target.last_seq()


def first(items: list[Any], kind: str) -> int:
    return next(i for i, item in enumerate(items) if isinstance(item, list) and item[2] == kind)


def mutants(items: list[Any]) -> dict[str, tuple[list[Any], str]]:
    """name -> (the mutated objects, a word the refusal must say)."""
    records = [i for i, item in enumerate(items) if isinstance(item, list)]
    out: dict[str, tuple[list[Any], str]] = {}
    out["no trailer"] = (items[:-1], "cut short")
    out["cut in the middle"] = (items[: len(items) // 2], "cut short")
    trailer = items[-1]
    out["trailer counts one more"] = (
        [*items[:-1], {**trailer, "events": trailer["events"] + 1}],
        "counts",
    )
    out["a record removed, trailer kept"] = (
        [*items[: records[-1]], items[-1]],
        "counts",
    )
    swapped = list(items)
    a, b = records[5], records[6]
    swapped[a], swapped[b] = swapped[b], swapped[a]
    out["two records of different streams swapped"] = (swapped, "order digest")
    # an edited record whose link is set to nil (it used to skip the check)
    move = first(items, "MovePlayed")
    edited = [*items]
    stream, version, kind, at_ms, fields, _ = edited[move]
    edited[move] = [stream, version, kind, at_ms, {**fields, "san": "Qh5"}, None]
    out["an edited record with a nil link"] = (edited, "no hash link")
    # the first record of a stream with a nil link
    nil_first = [*items]
    nil_first[records[0]] = [*items[records[0]][:5], None]
    out["the first record's link nil"] = (nil_first, "no hash link")
    # ill-typed fields under links that hold
    started = first(items, "GameStarted")
    typed = [*items]
    typed[started] = [*items[started][:4], {**items[started][4], "time_control": 7}, None]
    out["time_control: 7, relinked"] = (relink(typed), "'time_control' is 7")
    reading = first(items, "ClockReadingRecorded")
    lots = [*items]
    lots[reading] = [*items[reading][:4], {**items[reading][4], "white_ms": "lots"}, None]
    out["white_ms: 'lots', relinked"] = (relink(lots), "'white_ms' is 'lots'")
    unknown = [*items]
    unknown[reading] = [*items[reading][:2], "ClockReadingForged", *items[reading][3:]]
    out["an unknown event type, relinked"] = (relink(unknown), "unknown event type")
    version_gap = [*items]
    version_gap[move] = [stream, version + 5, *items[move][2:]]
    out["a version skipped, relinked"] = (relink(version_gap), "expected v")
    return out


def test_every_mutant_of_the_issue_is_refused_with_nothing_appended(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = objects(log_path)
    status, err, count = imported(log_path, tmp_path, capsys)
    assert (status, count) == (0, sum(isinstance(i, list) for i in items)), err
    for name, (mutant, says) in mutants(items).items():
        path = write(tmp_path / f"{name}.msgpack", mutant)
        status, err, count = imported(path, tmp_path, capsys)
        assert status != 0 and count == 0, name
        assert says in err and "Traceback" not in err, (name, err)


def test_an_unhashable_map_key_is_refused(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = log_path.read_bytes()
    items = objects(log_path)
    bad = msgpack.packb([{"k": 1}], use_bin_type=True)[:1] + b"\x81\x81\xa1k\x01\x01"  # {{k:1}:1}
    path = tmp_path / "unhashable.msgpack"
    path.write_bytes(msgpack.packb(items[0], use_bin_type=True) + bad + data[-50:])
    status, err, count = imported(path, tmp_path, capsys)
    assert status != 0 and count == 0 and "Traceback" not in err, err


def test_the_sample_cut_at_two_megabytes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: 10,810 of 20,584 events imported with exit 0."""
    cut = tmp_path / "cut.msgpack"
    cut.write_bytes(SAMPLE.read_bytes()[: 2 * 2**20])
    status, err, count = imported(cut, tmp_path, capsys)
    assert status != 0 and count == 0 and "cut short" in err, err


FLIPS = 60


def test_random_bit_flips_are_refused_or_touch_no_record(
    log_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = log_path.read_bytes()
    original = read_log(log_path).records
    rng = random.Random(2026)
    outcomes = {"refused": 0, "same records": 0}
    for _ in range(FLIPS):
        position = rng.randrange(len(data))
        mutated = bytearray(data)
        mutated[position] ^= 1 << rng.randrange(8)
        path = tmp_path / "flipped.msgpack"
        path.write_bytes(bytes(mutated))
        status, err, count = imported(path, tmp_path, capsys)
        assert "Traceback" not in err
        if status != 0:
            assert count == 0, err
            outcomes["refused"] += 1
        else:
            assert read_log(path).records == original, position  # header notes, trailer state
            outcomes["same records"] += 1
    assert outcomes["refused"] >= FLIPS // 2, outcomes
