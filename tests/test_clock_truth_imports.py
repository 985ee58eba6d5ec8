"""Both clocks of an imported broadcast, each for what it is (3.5.1; Laws 2009 6.10 a).

A broadcast's ``[%clk]`` is what the clock on the table showed (conclusive unless
the arbiter rules the clock defective, 6.10 a); the regulation clock is what the
time control gives from the instants derived from those readings. An import under
the event's profile must give: no ``clock_mismatch`` where nobody lost on time (a
device's known conventions are named as such), ``audit`` exit 0 (each reading judged
at its own instant, never against the game's end), and ``pgn --all`` writing back
every ``[%clk]`` of the file (the broadcast's own glitch readings excepted and
reported).

The real file is the official broadcast of the 2022 Candidates (Madrid, 56 games,
``tests/data/broadcasts/``). The patterns are files of our own making
(``tests/data/clock-patterns/``, written by ``device_pgn`` below and checked to be
what it writes): a device crediting the 30 s on move 60 itself, the last period's
increment from move 61 with readings in tenths of a second, glitch readings, and an
export without a ``TimeControl`` tag played at another control.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from adapters.audit import INTEGRITY, audit_store
from adapters.formats.event_export import store_event_pgn
from adapters.formats.pgn_import import ImportOptions, import_pgn
from adapters.store import Store
from adapters.store.queries import game_clock_report, game_object
from tests.cli import candidates, json_lines

DATA = Path(__file__).parent / "data"
BROADCAST = DATA / "broadcasts" / "candidates-2022-madrid.pgn"
PATTERNS = DATA / "clock-patterns"
SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def recorded(text: str) -> dict[tuple[str, str, str], list[float | None]]:
    """Every game's ``[%clk]`` after each ply, keyed by date, White and Black."""
    handle, out = io.StringIO(text.replace("\r\n", "\n")), {}
    while (game := chess.pgn.read_game(handle)) is not None:
        key = (game.headers["Date"], game.headers["White"], game.headers["Black"])
        out[key] = [node.clock() for node in game.mainline()]
    return out


def given_back(source: str, exported: str) -> tuple[int, list[str]]:
    """(how many ``[%clk]`` of ``source`` the export writes back, those it does not)."""
    mine, theirs = recorded(source), recorded(exported)
    same, different = 0, []
    for key, clocks in mine.items():
        out = theirs[key]
        for ply, (was, now) in enumerate(zip(clocks, out, strict=True), start=1):
            if was is None:
                continue
            if now is not None and abs(was - now) < 0.001:
                same += 1
            else:
                different.append(f"{key[1]} - {key[2]} ply {ply}: {was} -> {now}")
    return same, different


# --- the real broadcast ---------------------------------------------------------------


def test_3_5_1_a_real_broadcast_imports_under_its_profile_with_both_clocks(tmp_path: Path) -> None:
    store = str(tmp_path / "madrid.sqlite")
    text = BROADCAST.read_bytes().decode("utf-8")
    imported = candidates(
        "import-pgn", "--create", str(BROADCAST), "--rules", "candidates-2022", store=store
    )
    assert imported.returncode == 0, imported.stderr
    reports = [r for r in json_lines(imported.stdout) if r.get("game") not in ("tournament",)]
    games = [r for r in reports if r["status"] == "imported"]
    assert len(games) == 56
    # Nobody lost on time: not one plain mismatch; the 30 s the broadcast shows on move
    # 60 itself is named for what it is.
    assert sum(r["clock"]["mismatches"] for r in games) == 0
    kinds = {k for r in games for k in r["clock"]["artefacts"]}
    assert kinds <= {"increment_on_control_move"}
    assert sum(r["clock"]["plies"] for r in games) == text.count("%clk")
    # The tag says 60 moves for the first period; the clocks show the 60 minutes at
    # move 40: the profile's control, which they fit, is used, and the user is told.
    # (A game that ended before move 40 shows nothing against the tag.)
    warned = [r for r in games if any("does not fit" in w for w in r.get("warnings", []))]
    assert len(warned) >= 30 and all(r["clock"]["plies"] >= 79 for r in warned)
    audit = candidates("audit", store=store)
    assert audit.returncode == 0, audit.stdout[-2000:]
    assert "Integrity failures: none" in audit.stdout
    exported = candidates("pgn", "--all", store=store)
    assert exported.returncode == 0, exported.stderr
    same, different = given_back(text, exported.stdout)
    assert different == [] and same == text.count("%clk")


# --- patterns of our own making ------------------------------------------------------


def device_pgn(
    *,
    moves: int,
    used_s: Callable[[int], float],
    credit: Callable[[int, float], float],
    tag: str | None,
    tenths: bool = False,
    glitches: dict[int, str] | None = None,
    white: str = "Device, White",
    black: str = "Device, Black",
    date: str = "2013.03.15",
    start_s: float = 7200,
    event: str = "Device patterns",
    result: str = "1/2-1/2",
    line: list[str] | None = None,
) -> str:
    """A broadcast of ``moves`` moves a side as a device clock shows them: each side's
    move ``n`` takes ``used_s(n)`` seconds, then the device adds ``credit(n, left)``.
    ``glitches``: ply -> a ``[%clk]`` text the broadcast wrote instead of the reading.
    ``line``: the moves (SAN), else knights going back and forth."""
    headers = [
        ("Event", event),
        ("Site", "London ENG"),
        ("Date", date),
        ("Round", "1.1"),
        ("White", white),
        ("Black", black),
        ("Result", result),
    ]
    if tag is not None:
        headers.append(("TimeControl", tag))
    left = {chess.WHITE: start_s * 1000.0, chess.BLACK: start_s * 1000.0}
    board, parts = chess.Board(), []
    for ply in range(1, 2 * moves + 1):
        side = board.turn
        number = (ply + 1) // 2
        left[side] -= used_s(number + (0 if side == chess.WHITE else 0.5)) * 1000
        left[side] += credit(number, left[side]) * 1000
        san = line[ply - 1] if line is not None else SHUFFLE[(ply - 1) % 4]
        board.push_san(san)
        text = _clock_text(left[side], tenths)
        if glitches and ply in glitches:
            text = glitches[ply]
        prefix = f"{number}. " if side == chess.WHITE else f"{number}... "
        parts.append(f"{prefix}{san} {{ [%clk {text}] }}")
    head = "\n".join(f'[{k} "{v}"]' for k, v in headers)
    body = " ".join(parts) + f" {result}"
    return f"{head}\n\n{body}\n"


def _clock_text(ms: float, tenths: bool) -> str:
    if tenths:
        t = int(ms // 100)
        return f"{t // 36000}:{t // 600 % 60:02d}:{t // 10 % 60:02d}.{t % 10}"
    s = int(ms // 1000)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def standard(n: int, left: float) -> float:
    """3.5.1: +60 min on completing move 40, +15 min on move 60, 30 s from move 61."""
    return (3600 if n == 40 else 0) + (900 if n == 60 else 0) + (30 if n >= 61 else 0)


def thinking(n: float) -> float:
    """Long thoughts, a time scramble before move 60 (moves of a few seconds: a device's
    30 s on move 60 itself cannot hide in the time used), quick moves after it."""
    if n > 61:
        return 12 + (int(n * 7) % 20)
    if n >= 55:
        return 3 + (int(n * 3) % 5)
    return 30 + (int(n * 37) % 140) + (0.4 if n % 1 else 0)


def long_line(plies: int, seed: int = 2024) -> list[str]:
    """A legal game of ``plies`` plies that the position never ends (no mate, stalemate,
    dead position, fivefold repetition or 75 moves: the 2023 Laws end a game there at
    once), drawn from a seeded generator, quiet moves first."""
    rng, board, line = random.Random(seed), chess.Board(), []
    for _ in range(plies):
        moves = [m for m in board.legal_moves if not board.is_capture(m)] or list(board.legal_moves)
        rng.shuffle(moves)
        for move in moves:
            san = board.san(move)
            board.push(move)
            if (
                board.outcome(claim_draw=False) is None
                and not board.is_repetition(3)
                and not board.is_seventyfive_moves()
            ):
                line.append(san)
                break
            board.pop()
        else:
            raise AssertionError(f"no move keeps the game going after {line}")
    return line


def scramble_before_40(n: float) -> float:
    """A 2024 Candidates game's shape: a time scramble before move 40 (move 40 itself in
    a few seconds: a device's 30 s on move 40 cannot hide in the time used), then the
    30 minutes spent until each player lives on the increment, under 30 s before it."""
    if n < 31:
        return 180 + (int(n * 37) % 60) + (0.4 if n % 1 else 0)
    if n < 40:
        return 60 + (int(n * 3) % 20)
    if n < 41:
        return 4 + (0.5 if n % 1 else 0)
    if n < 61:
        return 118 + (int(n * 7) % 20)
    if n < 71:
        return 38 + (int(n * 3) % 5)
    return 26 + (int(n * 7) % 9)


def candidates_2024(n: int, left: float) -> float:
    """The 2024 control (120 min / 40, then 30 min, 30 s a move from move 41) as a device
    shows it that credits the 30 s on move 40 itself."""
    return (1800 if n == 40 else 0) + (30 if n >= 40 else 0)


PATTERN_FILES: dict[str, Callable[[], str]] = {
    # a device (or broadcast) crediting the last period's 30 s on move 60 itself
    "control-move-increment.pgn": lambda: device_pgn(
        moves=75,
        used_s=thinking,
        credit=lambda n, left: standard(n, left) + (30 if n == 60 else 0),
        tag="40/7200:20/3600:900+30",
    ),
    # the last period with its 30 s from move 61, readings in tenths of a second
    "last-period-increment.pgn": lambda: device_pgn(
        moves=85,
        used_s=thinking,
        credit=standard,
        tag="40/7200:20/3600:900+30",
        tenths=True,
        date="2013.03.16",
    ),
    # the broadcast writes 0:00:00 for one reading and an impossible 1:59:59 for another
    "glitches.pgn": lambda: device_pgn(
        moves=50,
        used_s=thinking,
        credit=standard,
        tag="40/7200:20/3600:900+30",
        glitches={31: "0:00:00", 52: "1:59:59"},
        date="2013.03.17",
    ),
    # the 2024 Candidates pattern: the device credits the 30 s on move 40 itself, and
    # both players later live on the increment, under 30 s before it
    "increment-on-move-40.pgn": lambda: device_pgn(
        moves=90,
        used_s=scramble_before_40,
        credit=candidates_2024,
        tag="40/7200:1800+30",
        date="2024.04.17",
        event="FIDE Candidates 2024",
        line=long_line(180),
    ),
    # a mid-event export of another round robin: no tag, 90 min/40 + 30 min, 30 s from 1
    "no-time-control.pgn": lambda: device_pgn(
        moves=45,
        used_s=lambda n: 20 + (int(n * 23) % 90),
        credit=lambda n, left: 30 + (1800 if n == 40 else 0),
        tag=None,
        date="2013.03.18",
        start_s=5400,
    ),
}


@pytest.mark.parametrize("name", list(PATTERN_FILES))
def test_the_pattern_files_are_what_the_device_model_writes(name: str) -> None:
    assert (PATTERNS / name).read_text() == PATTERN_FILES[name]()


def imported(store: Store, name: str, **options: Any) -> tuple[dict[str, Any], str]:
    path = PATTERNS / name
    options.setdefault("rules", "candidates-2012")  # the patterns are 3.5.1 games
    [report] = [
        r
        for r in import_pgn(store, path, options=ImportOptions(**options))
        if r.game != "tournament"
    ]
    assert report.status == "imported", report
    return report.as_dict(), path.read_text()


def test_3_5_1_a_device_crediting_30_s_on_move_60_is_its_rule_not_a_mismatch(
    sqlite_store: Store,
) -> None:
    """The 30 s on move 60 itself is the device's rule, recognised once for the game
    (not an artefact on every later reading): the regulation clock follows it."""
    report, text = imported(sqlite_store, "control-move-increment.pgn")
    assert report["clock"]["mismatches"] == 0 and report["clock"]["artefacts"] == {}
    assert report["clock"]["device_rule"] == "increment_on_control_move"
    rows = game_clock_report(sqlite_store.reads, "1.1")
    assert {r["status"] for r in rows} == {"agrees"}
    # the model never bottoms out: the regulation clock keeps real time to the end
    assert all(r["regulation_ms"] > 30_000 for r in rows)
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    same, different = given_back(text, store_event_pgn(sqlite_store.reads))
    assert different == [] and same == 150


def test_3_5_1_the_last_period_increment_with_tenths_agrees_everywhere(
    sqlite_store: Store,
) -> None:
    report, text = imported(sqlite_store, "last-period-increment.pgn")
    assert report["clock"] == {"plies": 170, "agree": 170, "artefacts": {}, "mismatches": 0}
    view = game_object(sqlite_store.reads, "1.1")
    assert view["clock"]["period"] == {"white": 3, "black": 3}
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    exported = store_event_pgn(sqlite_store.reads)
    same, different = given_back(text, exported)
    assert different == [] and same == 170
    assert "[%clk 0:" in exported and "." in exported.split("[%clk ")[-1][:12]


def test_glitch_readings_are_reported_kept_as_read_and_marked(
    sqlite_store: Store,
) -> None:
    """A glitch is a reading of the game as the broadcast wrote it: kept and exported as
    read, marked as a glitch, never judged and never used to place the moves in time;
    never replaced by a computed value."""
    report, text = imported(sqlite_store, "glitches.pgn")
    glitches = [w for w in report["warnings"] if "broadcast glitch" in w]
    assert len(glitches) == 2
    assert "[%clk 0:00:00] after ply 31" in glitches[0]
    assert "[%clk 1:59:59] after ply 52" in glitches[1]
    assert report["clock"]["mismatches"] == 0 and report["clock"]["plies"] == 100
    assert report["clock"]["glitches"] == 2 and report["clock"]["agree"] == 98
    rows = {r["ply"]: r for r in game_clock_report(sqlite_store.reads, "1.1")}
    assert rows[31]["status"] == "glitch" and rows[31]["recorded_ms"] == 0
    assert rows[52]["kind"] == "broadcast_glitch" and rows[52]["regulation_ms"] is None
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    exported = store_event_pgn(sqlite_store.reads)
    same, different = given_back(text, exported)
    assert same == 100 and different == []
    assert exported.count("clock: broadcast glitch, as read") == 2
    assert "[%clk 0:00:00] } { clock: broadcast glitch" in exported.replace("\n", " ") or (
        "clock: broadcast glitch, as read [%clk 0:00:00]" in exported.replace("\n", " ")
    )


def test_an_export_without_time_control_says_so_and_is_never_judged(
    sqlite_store: Store,
) -> None:
    report, text = imported(sqlite_store, "no-time-control.pgn")
    [warning] = [w for w in report["warnings"] if "TimeControl" in w]
    assert "no TimeControl tag" in warning and "assumed" in warning
    assert report["clock"]["mismatches"] == 0 and report["clock"]["artefacts"] == {}
    assert report["clock"]["not_judged"] == 90
    assert all(r["status"] == "not_judged" for r in game_clock_report(sqlite_store.reads, "1.1"))
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    exported = store_event_pgn(sqlite_store.reads)
    same, different = given_back(text, exported)
    assert different == [] and same == 90  # 0:41:02 stays 0:41:02


def test_an_export_without_time_control_is_judged_under_the_control_given(
    sqlite_store: Store,
) -> None:
    report, _ = imported(sqlite_store, "no-time-control.pgn", time_control="40/5400+30:1800+30")
    assert not [w for w in report.get("warnings", []) if "TimeControl" in w]
    assert report["clock"] == {"plies": 90, "agree": 90, "artefacts": {}, "mismatches": 0}


def test_an_export_without_time_control_under_a_profile_without_one_keeps_every_reading(
    sqlite_store: Store,
) -> None:
    """The round-robin profile names no control: the readings are facts of the game all
    the same, kept as read (not judged, not placed in time) and given back unchanged."""
    report, text = imported(sqlite_store, "no-time-control.pgn", rules="round-robin")
    [warning] = [w for w in report["warnings"] if "TimeControl" in w]
    assert "kept as read" in warning and "--time-control" in warning
    assert "not imported" not in warning
    assert report["clock"]["not_judged"] == report["clock"]["plies"] == 90
    assert game_object(sqlite_store.reads, "1.1")["clock"]["known"] is False
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    exported = store_event_pgn(sqlite_store.reads)
    same, different = given_back(text, exported)
    assert different == [] and same == 90
    assert "regulation clock" not in exported


def test_an_unreadable_time_control_keeps_every_reading_as_read(
    sqlite_store: Store, tmp_path: Path
) -> None:
    """A tag the import cannot read (a mid-event broadcast's free text): the readings are
    kept as read under any profile, never judged against a control nobody stated."""
    text = (PATTERNS / "last-period-increment.pgn").read_text()
    text = text.replace('"40/7200:20/3600:900+30"', '"classical, see regulations"')
    path = tmp_path / "free-text.pgn"
    path.write_text(text)
    for rules in ("round-robin",):
        [report] = [
            r.as_dict()
            for r in import_pgn(sqlite_store, path, options=ImportOptions(rules=rules))
            if r.game != "tournament"
        ]
        assert report["clock"]["not_judged"] == 170 and report["clock"]["mismatches"] == 0
        exported = store_event_pgn(sqlite_store.reads)
        same, different = given_back(text, exported)
        assert different == [] and same == 170
        assert "regulation clock" not in exported


def test_6_9_a_score_sheet_in_progress_is_shown_at_its_last_event_not_flagged_today(
    tmp_path: Path,
) -> None:
    """A mid-event broadcast's game (`*`, its moves and clocks to the export): reviewed
    today, ``candidates game ID`` shows it at its last event, never with its clock run on
    to the present instant and a flag that did not fall."""
    path = tmp_path / "in-progress.pgn"
    path.write_text(
        device_pgn(
            moves=30, used_s=thinking, credit=standard, tag="40/7200:20/3600:900+30", result="*"
        )
    )
    store = str(tmp_path / "live.sqlite")
    done = candidates(
        "import-pgn", "--create", str(path), "--rules", "candidates-2012", store=store
    )
    assert done.returncode == 0, done.stderr
    shown = candidates("game", "1.1", store=store)
    assert shown.returncode == 0, shown.stderr
    assert "FLAG" not in shown.stdout and "not yet recorded" not in shown.stdout
    assert "in progress" in shown.stdout or "in_progress" in shown.stdout


def odd_thinking(n: float) -> float:
    """``scramble_before_40`` with move 50 in a second and the time it saved, and the 25 s
    the clock gained there, spent on move 51: the players end on the increment as before."""
    if 50 <= n < 51:
        return 1
    if 51 <= n < 52:
        return scramble_before_40(n) + scramble_before_40(n - 1) - 1 + 25
    return scramble_before_40(n)


def test_6_10_a_no_fall_is_derived_where_the_device_shows_time(
    sqlite_store: Store, tmp_path: Path
) -> None:
    """Readings no known device rule explains (25 s added on both clocks at move 50, moves
    of a second: time given at the board that the record does not hold): the difference is
    reported as a mismatch, and the regulation clock keeps no fall the readings do not
    support (the device shows both players with time to the end)."""
    odd = device_pgn(
        moves=90,
        used_s=odd_thinking,
        credit=lambda n, left: candidates_2024(n, left) + (25 if n == 50 else 0),
        tag="40/7200:1800+30",
        date="2024.04.19",
        line=long_line(180),
    )
    path = tmp_path / "odd-device.pgn"
    path.write_text(odd)
    [report] = [
        r.as_dict()
        for r in import_pgn(sqlite_store, path, options=ImportOptions(rules="candidates-2024"))
        if r.game != "tournament"
    ]
    assert report["clock"]["mismatches"] > 0
    view = game_object(sqlite_store.reads, "1.1")
    assert view["clock"]["falls"] == [] and view["clock"]["flag"] is None
    rows = game_clock_report(sqlite_store.reads, "1.1")
    assert min(r["recorded_ms"] for r in rows) > 30_000  # nobody's flag fell on the table


def test_3_5_1_a_real_2024_broadcast_game_shows_the_device_rule_and_agrees(
    sqlite_store: Store,
) -> None:
    """Toronto 2024, round 1, Caruana - Nakamura, as the Lichess broadcast exported it:
    Black's clock shows the 30 s on move 40 itself (0:08:41 -> 0:38:54 for a move of
    about 17 s). Imported under the event's profile, the rule is recognised
    and every reading agrees; no fall; every [%clk] given back."""
    path = DATA / "broadcasts" / "candidates-2024-round-1-caruana-nakamura.pgn"
    options = ImportOptions(rules="candidates-2024")  # one game of the eight players' event
    reports = [r.as_dict() for r in import_pgn(sqlite_store, path, options=options)]
    [report] = [r for r in reports if r.get("status") == "imported"]
    assert report["clock"] == {
        "plies": 82,
        "agree": 82,
        "artefacts": {},
        "mismatches": 0,
        "device_rule": "increment_on_control_move",
    }
    game_id = report["game"]
    view = game_object(sqlite_store.reads, game_id)
    assert view["clock"]["falls"] == [] and view["clock"]["flag"] is None
    text = path.read_text()
    same, different = given_back(text, store_event_pgn(sqlite_store.reads))
    assert different == [] and same == 82


# --- the device's own rule: the 30 s credited on the control move -------------------------


def _no_false_fall(store: Store, game_id: str = "1.1") -> list[dict[str, Any]]:
    """The game's clock report, checked to hold no fall and no mismatch anywhere."""
    view = game_object(store.reads, game_id)
    assert view["clock"]["falls"] == [] and view["clock"]["flag"] is None
    rows = game_clock_report(store.reads, game_id)
    assert [r for r in rows if r["status"] != "agrees"] == []
    return rows


def test_3_5_1_a_device_crediting_the_increment_on_move_40_raises_no_false_fall(
    sqlite_store: Store,
) -> None:
    """The 2024 Candidates pattern (40/7200:1800+30 on a device that credits the 30 s on
    move 40 itself; both players later under 30 s before the increment): the device's
    rule is recognised once and the regulation clock follows it, so a player the device
    shows with time is never flagged and no reading is a mismatch (6.10 a)."""
    report, text = imported(sqlite_store, "increment-on-move-40.pgn", rules="candidates-2024")
    assert report["clock"]["mismatches"] == 0 and report["clock"]["artefacts"] == {}
    assert report["clock"]["device_rule"] == "increment_on_control_move"
    assert report["clock"]["agree"] == report["clock"]["plies"] == 180
    assert any("follows that device's rule" in w for w in report["warnings"])
    rows = _no_false_fall(sqlite_store)
    # the players lived on the increment: under 30 s before it, the device shows < 60 s
    assert min(r["recorded_ms"] for r in rows if r["move"] > 70) < 45_000
    assert audit_store(sqlite_store).of(INTEGRITY) == []
    exported = store_event_pgn(sqlite_store.reads)
    same, different = given_back(text, exported)
    assert different == [] and same == 180
    assert "regulation clock" not in exported


def test_3_5_1_a_the_same_device_under_a_control_given_on_the_command_line(
    sqlite_store: Store,
) -> None:
    """The Tata Steel case: a round robin imported with ``--time-control
    40/7200:1800+30``: the same rule, the same clean record."""
    report, _ = imported(
        sqlite_store,
        "increment-on-move-40.pgn",
        rules="round-robin",
        time_control="40/7200:1800+30",
    )
    assert report["clock"]["mismatches"] == 0 and report["clock"]["artefacts"] == {}
    _no_false_fall(sqlite_store)


def test_3_5_1_a_a_control_move_that_took_longer_than_the_increment_hides_the_rule(
    sqlite_store: Store, tmp_path: Path
) -> None:
    """Where every control move took longer than the increment the readings cannot show
    the device's rule: the 30 s fall in the control move's time used, and the regulation
    clock agrees with the device all the same (no fall, no mismatch)."""
    slow = device_pgn(
        moves=90,
        used_s=slow_control_move,
        credit=candidates_2024,
        tag="40/7200:1800+30",
        date="2024.04.18",
        line=long_line(180),
    )
    path = tmp_path / "slow-control-move.pgn"
    path.write_text(slow)
    [report] = [
        r.as_dict()
        for r in import_pgn(sqlite_store, path, options=ImportOptions(rules="candidates-2024"))
        if r.game != "tournament"
    ]
    assert "device_rule" not in report["clock"]
    assert report["clock"]["mismatches"] == 0
    _no_false_fall(sqlite_store)


def slow_control_move(n: float) -> float:
    """``scramble_before_40`` with 31 s moved from move 39 to move 40: each control move
    takes longer than the increment."""
    if 39 <= n < 40:
        return scramble_before_40(n) - 31
    if 40 <= n < 41:
        return scramble_before_40(n) + 31
    return scramble_before_40(n)
