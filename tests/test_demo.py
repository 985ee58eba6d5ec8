"""``candidates demo`` and the bundled 2013 sample."""

from __future__ import annotations

import io
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

from adapters.audit import INTEGRITY, audit_log
from adapters.cli import main
from adapters.cli.cmd_demo import CLEAR_LINE, RoundProgress
from adapters.formats.replay_log import read_log
from tools.sample import GENERATED, SAMPLE_LOG, write_sample

ROOT = Path(__file__).resolve().parents[1]


class TestSample:
    def test_the_shipped_sample_is_what_the_builder_makes(self, tmp_path: Path) -> None:
        built = tmp_path / "sample.msgpack"
        write_sample(built)
        assert built.read_bytes() == SAMPLE_LOG.read_bytes(), (
            "replay_logs/candidates-2013.msgpack is stale: run python replay_logs/build_sample.py"
        )

    def test_the_sample_says_what_is_generated_and_audits_clean(self) -> None:
        log = read_log(SAMPLE_LOG)
        assert log.tournament == "london-2013"
        assert list(log.header["generated"]) == GENERATED
        assert "real" in log.header["notes"]
        report = audit_log(log, str(SAMPLE_LOG))
        assert report.of(INTEGRITY) == []
        assert report.games == 56
        results = [g["result"] for g in log.trailer["state"]["games"].values()]
        assert len(results) == 56 and "*" not in results


class TestDemo:
    def test_demo_once_runs_the_whole_event_to_the_final_standings(
        self, tmp_path: Path, capsys
    ) -> None:
        store = tmp_path / "demo.sqlite"
        assert main(["demo", "--once", "--speed", "max", "--demo-store", str(store)]) == 0
        out = capsys.readouterr().out
        assert "Serving the replay on http://127.0.0.1:" in out
        assert "Round 14/14" in out
        # the page is served before the replay's first event, however fast the replay
        assert out.index("Serving the replay") < out.index("Round 1/14")
        assert "Carlsen, Magnus" in out and "Kramnik, Vladimir" in out
        final = out[out.index("Final") :].splitlines()
        assert "8½" in final[1] and "8½" in final[2]
        assert "First place: Carlsen, Magnus, decided by the number of wins (3.7 b)" in out

    def test_demo_of_a_missing_log_says_so_in_one_line_and_builds_nothing(
        self, tmp_path: Path, capsys
    ) -> None:
        """The demo shows a shipped log; the builder lives in tools/, outside the runtime."""
        missing = tmp_path / "missing.msgpack"
        store = tmp_path / "demo.sqlite"
        code = main(["demo", "--once", "--log", str(missing), "--demo-store", str(store)])
        err = capsys.readouterr().err
        assert code == 2
        assert err.splitlines() == [f"candidates: no replay log at {str(missing)!r}"]
        assert not missing.exists() and not store.exists()

    def test_demo_on_a_port_in_use_says_so_in_one_line_and_replays_nothing(
        self, tmp_path: Path, capsys
    ) -> None:
        store = tmp_path / "demo.sqlite"
        with socket.create_server(("127.0.0.1", 0)) as taken:
            port = str(taken.getsockname()[1])
            code = main(["demo", "--once", "--speed", "max", "--port", port,
                         "--demo-store", str(store)])  # fmt: skip
        captured = capsys.readouterr()
        assert code == 2
        [line] = captured.err.splitlines()
        assert line.startswith("candidates: ") and "address already in use" in line, line
        assert "Round 1/14" not in captured.out and "Serving" not in captured.out

    def test_the_runtime_default_is_the_shipped_sample(self) -> None:
        assert SAMPLE_LOG.is_file() and SAMPLE_LOG == ROOT / "replay_logs/candidates-2013.msgpack"


def _demo(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "adapters.cli",
            "demo",
            "--port",
            "0",
            "--demo-store",
            str(tmp_path / "demo.sqlite"),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def _read_until(proc: subprocess.Popen[str], marker: str, timeout: float = 120) -> str:
    """The demo's output up to the line holding ``marker``."""
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return "".join(seen)
    proc.kill()
    raise AssertionError(f"no {marker!r} in the demo's output: {''.join(seen)[-2000:]}")


class TestDemoEnds:
    def test_the_end_of_the_replay_prints_the_final_standings_while_serving(
        self, tmp_path: Path
    ) -> None:
        """Without --once: the final standings and the deciding tie-break (3.7 b) when the
        replay reaches the end; the page goes on; Ctrl-C stops without printing them twice."""
        proc = _demo(tmp_path, "--speed", "max")
        out = _read_until(proc, "still serving")
        assert "Final standings after round 14" in out
        assert "First place: Carlsen, Magnus, decided by the number of wins (3.7 b)" in out
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "Stopped." in rest and "Final standings" not in rest
        assert "Traceback" not in err

    def test_ctrl_c_prints_the_standings_so_far(self, tmp_path: Path) -> None:
        proc = _demo(tmp_path, "--round-seconds", "60")
        _read_until(proc, "Serving the replay")
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "Stopped." in rest
        assert "Standings so far after round" in rest and "Carlsen, Magnus" in rest
        assert "Traceback" not in err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_messages_print_above_the_progress_bar_not_into_it() -> None:
    log = read_log(SAMPLE_LOG)
    term = FakeTerminal()
    progress = RoundProgress(log, term)
    progress(None, log.records[:10])  # type: ignore[arg-type]
    progress.message("Serving the replay on http://127.0.0.1:8765/")
    progress.close()
    text = term.getvalue()
    bar_then_message = text.split("\r")
    assert bar_then_message[-1].startswith(CLEAR_LINE + "Serving the replay")
    message_line, redrawn = bar_then_message[-1].split("\n")[:2]
    assert message_line.endswith("8765/") and redrawn.startswith("Rounds [")
    assert text.endswith("\n")


def test_off_a_terminal_the_demo_prints_a_line_for_every_round_from_round_0() -> None:
    """A log (stdout not a terminal) reads ``Round 0/14`` first, then each round once, in
    order, even when one batch of events completes several rounds."""
    log = read_log(SAMPLE_LOG)
    out = io.StringIO()
    progress = RoundProgress(log, out)
    progress.start()
    assert out.getvalue() == f"Round 0/14 (the replay starts: {len(log.records)} events)\n"
    half = len(log.records) // 2
    progress(None, log.records[:half])  # type: ignore[arg-type]
    progress(None, log.records[half:])  # type: ignore[arg-type]
    progress.close()
    rounds = [line.split()[1] for line in out.getvalue().splitlines()]
    assert rounds == [f"{n}/14" for n in range(15)]


def test_the_demo_prints_round_0_before_the_first_round_is_played(tmp_path: Path, capsys) -> None:
    store = tmp_path / "demo.sqlite"
    assert main(["demo", "--once", "--no-serve", "--speed", "max", "--demo-store", str(store)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rounds = [line.split()[1] for line in lines if line.startswith("Round ")]
    assert rounds == [f"{n}/14" for n in range(15)]


def test_make_demo_takes_a_port() -> None:
    """``make demo PORT=9123`` runs ``candidates demo --port 9123``; without PORT, the
    demo's own default."""

    def demo_line(*args: str) -> str:
        dry = subprocess.run(
            ["make", "-n", "-o", ".venv/.installed", "demo", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return next(line for line in dry.stdout.splitlines() if "candidates demo" in line)

    assert demo_line("PORT=9123").split()[-3:] == ["demo", "--port", "9123"]
    assert demo_line().split()[-1] == "demo"


def _urls(out: str) -> dict[str, str]:
    """The URLs the demo printed, by the side they open."""
    found = {}
    for line in out.splitlines():
        for label in ("Public page", "Commentators", "Arbiters' desk", "Hall display"):
            if line.startswith(label + ":"):
                found[label] = line.split()[len(label.split())].strip()
    return found


def _subscribed(url: str) -> dict[str, object]:
    """The ``subscribed`` frame of the page at ``url`` (its #token, as the page sends it)."""
    parts = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(parts.fragment).get("token", [None])[0]
    with connect(f"ws://{parts.netloc}/ws", subprotocols=["json"], ping_interval=None) as ws:
        ws.send(
            json.dumps({"op": "subscribe", "games": "*", **({"token": token} if token else {})})
        )
        while True:
            data = json.loads(ws.recv(timeout=30))
            for answer in data if isinstance(data, list) else [data]:
                if answer.get("op") in ("subscribed", "error"):
                    return dict(answer)


class TestDemoShowsEverySide:
    def test_the_demo_prints_a_url_for_every_side_and_each_opens_it(self, tmp_path: Path) -> None:
        proc = _demo(tmp_path, "--round-seconds", "600")
        try:
            out = _read_until(proc, "they are shown only here")
            urls = _urls(out)
            assert set(urls) == {"Public page", "Commentators", "Arbiters' desk", "Hall display"}
            assert _subscribed(urls["Public page"])["role"] == "public"
            studio = _subscribed(urls["Commentators"])
            assert studio["role"] == "commentator"
            desk = _subscribed(urls["Arbiters' desk"])
            assert desk["role"] == "arbiter"
            assert urls["Arbiters' desk"].split("#")[0].endswith("/arbiter")
            for url in urls.values():
                with urllib.request.urlopen(url.split("#")[0]) as page:
                    assert page.status == 200 and b"<!doctype html>" in page.read()
            # the tokens are this run's: printed once, written nowhere beside the store
            token = urls["Commentators"].split("#token=")[1]
            assert out.count(token) == 1
            assert not any(token in p.read_text(errors="ignore") for p in tmp_path.iterdir()
                           if p.is_file() and p.stat().st_size < 1_000_000)  # fmt: skip
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)

    def test_a_second_demo_on_the_same_store_is_refused_and_removes_nothing(
        self, tmp_path: Path, capsys
    ) -> None:
        proc = _demo(tmp_path, "--round-seconds", "600")
        try:
            _read_until(proc, "Serving the replay")
            store = tmp_path / "demo.sqlite"
            before = store.stat().st_ino
            code = main(["demo", "--once", "--speed", "max", "--demo-store", str(store)])
            err = capsys.readouterr().err
            assert code == 2
            assert err.splitlines() == [
                f"candidates: {store} is being served by another candidates demo (process "
                f"{proc.pid}): stop it first (Ctrl-C), or give this one --demo-store another path"
            ]
            assert store.stat().st_ino == before  # the running demo's store is untouched
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)

    def test_a_store_another_process_has_open_is_refused(self, tmp_path: Path, capsys) -> None:
        store = tmp_path / "demo.sqlite"
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1]);"
             " c.execute('create table t (x)'); print('open', flush=True); time.sleep(60)",
             str(store)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
            code = main(["demo", "--once", "--speed", "max", "--demo-store", str(store)])
            err = capsys.readouterr().err
            assert code == 2 and f"is open in another process ({holder.pid})" in err
            assert store.exists()
        finally:
            holder.kill()
            holder.wait()


def test_the_sample_carries_the_real_dates_site_titles_fide_ids_and_chief_arbiter() -> None:
    log = read_log(SAMPLE_LOG)
    created = next(r for r in log.records if r.type == "TournamentCreated")
    data = created.fields
    assert data["site"] == "London ENG" and data["city"] == "London"
    assert data["start_date"] == "2013-03-13"  # day 1, arrivals: round 1 on 15 March
    players = {p["id"]: p for p in data["players"]}
    assert all(p["title"] == "GM" and p["fide_id"].isdigit() for p in players.values())
    assert players["carlsen"]["fide_id"] == "1503014"
    chief = next(a for a in data["arbiters"] if a["role"] == "chief")
    assert chief["name"] == "Stubenvoll, Werner"
    starts = sorted(r.at_ms for r in log.records if r.type == "GameStarted")
    assert time.strftime("%Y-%m-%d", time.gmtime(starts[0] / 1000)) == "2013-03-15"
