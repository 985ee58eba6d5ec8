"""``candidates demo`` and the bundled 2013 sample."""

from __future__ import annotations

from pathlib import Path

from adapters.audit import INTEGRITY, audit_log
from adapters.cli import main
from adapters.replay_log import read_log
from adapters.sample import GENERATED, SAMPLE_LOG, write_sample


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
        assert "Carlsen, Magnus" in out and "Kramnik, Vladimir" in out
        final = out[out.index("Final") :].splitlines()
        assert "8½" in final[1] and "8½" in final[2]
        assert "First place: Carlsen, Magnus, decided by the number of wins (3.7 b)" in out
