"""The organisers' list of players the runbook's ``founding`` step reads, for London 2013.

docs/operations.md, "The tournament": ``candidates founding --players players.csv``
makes the founding file from the organisers' list after the drawing of lots (a CSV
file: ``number,id,name,federation,rating``). The drill (``deploy/drill.py``) and
tests/test_runbook_as_user.py write London 2013's list, numbered as its drawing of
lots numbered the players (``tools.sample``: inferred from the games as published).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path


def london_2013_csv() -> str:
    """London 2013's players as the organisers' CSV list, in the order of their numbers."""
    from tools import sample

    numbers = sample.drawing_of_lots(sample.source_games()).numbers
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["number", "id", "name", "federation", "rating"])
    for player in sorted(sample.PLAYERS_BY_ID, key=lambda p: numbers[str(p["id"])]):
        pid = str(player["id"])
        writer.writerow([numbers[pid], pid, player["name"], player["federation"], player["rating"]])
    return out.getvalue()


def write_london_2013(path: Path) -> Path:
    path.write_text(london_2013_csv(), encoding="utf-8")
    return path
