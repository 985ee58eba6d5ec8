"""The Chief Arbiter's report lists the arbiter's corrections and flag rulings too
(Laws 2009 7.4 a, 6.13, 6.8, 6.10 a, 6.9), in time order, with their articles.

``tests/scenarios/arbiter_corrections.jsonl``: a DGT misread corrected three moves
later, a mis-entered result corrected, a flag dismissed and one confirmed.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli import candidates

SCENARIO = Path(__file__).parent / "scenarios" / "arbiter_corrections.jsonl"


def test_the_report_lists_corrections_and_flag_rulings_in_time_order(tmp_path: Path) -> None:
    store = str(tmp_path / "corrections.sqlite")
    candidates("apply", "--create", str(SCENARIO), store=store)
    shown = candidates("report", "--format", "json", store=store)
    assert shown.returncode == 0, shown.stderr
    entries = json.loads(shown.stdout)["entries"]
    assert [(e["type"], e["category"], e["article"], e["game"]) for e in entries] == [
        ("MovesCorrected", "correction", "Laws 2009 7.4 a, 6.13", "1.1"),
        ("ResultRecorded", "result", "Laws 2009 13.1", "1.2"),
        ("ResultCorrected", "correction", "Laws 2009 13.1", "1.2"),
        ("FlagRuled", "flag", "Laws 2009 6.8, 6.10 a", "1.3"),
        ("ClockAdjusted", "clock", "Laws 2009 6.10 b, 6.13", "1.3"),
        ("FlagRuled", "flag", "Laws 2009 6.8, 6.9, 6.10 a", "1.4"),
        ("ResultRecorded", "flag", "Laws 2009 6.9", "1.4"),
    ]
    assert [e["at"] for e in entries] == sorted(e["at"] for e in entries)
    assert entries[0]["summary"].startswith(
        "Chief Arbiter corrected the moves after ply 4: Bb5 Nf6 d3 Be7 -> Bc4 Nf6 d3 Be7"
    )
    assert "against the regulation clock" in entries[3]["summary"]
