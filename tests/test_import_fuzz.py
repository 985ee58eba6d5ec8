"""No PGN file gives a traceback: real-looking variations (names, tags, missing tags,
trailing moves, comments, NAGs, variations, BOM, CRLF, Latin-1, truncation) import or
give a clear message, and a file refused as a whole appends nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.cli import main
from adapters.formats.pgn_import import import_pgn
from adapters.store import Store
from tests.pgn_files import WOMEN_2019, double_round_robin, pgn


def base_games() -> list[str]:
    def result(round_no: int, white: int, black: int) -> str:
        return ("1-0", "0-1", "1/2-1/2")[(round_no + white + black) % 3]

    text = pgn(double_round_robin(WOMEN_2019, result)[:12])
    return [chunk + "\n" for chunk in text.split("\n\n[Event")]


def _drop_tag(game: str, tag: str) -> str:
    return "\n".join(line for line in game.splitlines() if not line.startswith(f"[{tag} ")) + "\n"


MUTATIONS = {
    "drop_round": lambda g: _drop_tag(g, "Round"),
    "drop_white": lambda g: _drop_tag(g, "White"),
    "drop_result": lambda g: _drop_tag(g, "Result"),
    "drop_fide_id": lambda g: _drop_tag(g, "WhiteFideId"),
    "first_last": lambda g: g.replace('"Lagno, Kateryna"', '"Kateryna Lagno"'),
    "initials": lambda g: g.replace('"Dzagnidze, Nana"', '"Dzagnidze,N"'),
    "variant": lambda g: g.replace('"Gunina, Valentina"', '"Gunina, Valentyna"'),
    "diacritics": lambda g: g.replace('"Tan, Zhongyi"', '"Tán, Zhōngyi"'),
    "comment": lambda g: g.replace("2. c4", "{ [%clk 1:59:50] [%eval 0.2] a comment } 2. c4"),
    "nag": lambda g: g.replace("Nf6 ", "Nf6 $1 ", 1),
    "variation": lambda g: g.replace("2. c4 e6", "2. c4 (2. Nf3 d5) e6"),
    "trailing_garbage": lambda g: g + "\n%% end of export\n",
    "bad_result": lambda g: g.replace('[Result "1-0"]', '[Result "1:0"]'),
    "round_text": lambda g: g.replace('[Round "1.', '[Round "first.'),
    "round_zero": lambda g: g.replace('[Round "1.', '[Round "0.'),
    "illegal_move": lambda g: g.replace("4. Nc3", "4. Ke3"),
    "truncated": lambda g: g[: len(g) * 2 // 3],
    "bad_fen": lambda g: g.replace("[Event", '[SetUp "1"]\n[FEN "not a position"]\n[Event', 1),
    "time_control_text": lambda g: g.replace(
        "[Site", "[TimeControl \"90'/40+30'+30''\"]\n[Site", 1
    ),
    "time_control_junk": lambda g: g.replace("[Site", '[TimeControl "*180/x"]\n[Site', 1),
    "clk_glitch": lambda g: g.replace("1. d4", "1. d4 {[%clk 0:00:00]}"),
    "trailing_move": lambda g: g.replace(" Be7 ", " Be7 5. e4 ", 1),
    "empty_names": lambda g: g.replace('[White "', '[White "?', 1),
    "unicode_junk": lambda g: g.replace("Kazan", "Kaz\u0000an\ufffd"),
}

ENCODINGS = ("utf-8", "utf-8-sig", "latin-1")


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(st.tuples(st.integers(0, 11), st.sampled_from(sorted(MUTATIONS))), max_size=6),
    crlf=st.booleans(),
    encoding=st.sampled_from(ENCODINGS),
)
def test_every_variation_imports_or_says_why_and_a_refusal_appends_nothing(
    picks: list[tuple[int, str]], crlf: bool, encoding: str
) -> None:
    games = base_games()
    games = [games[0]] + ["[Event" + g for g in games[1:]]
    for index, name in picks:
        games[index] = MUTATIONS[name](games[index])
    text = "\n".join(games)
    if crlf:
        text = text.replace("\n", "\r\n")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "event.pgn"
        path.write_bytes(text.encode(encoding, errors="replace"))
        with Store(str(Path(folder) / "s.sqlite")) as store:
            reports = import_pgn(store, path)
            for report in reports:
                assert report.status in ("imported", "already_imported", "refused")
                if report.status == "refused":
                    assert report.message and "Traceback" not in report.message
            if any(r.game == "file" for r in reports):
                assert store.cache.count() == 0
        code = main(
            ["--store", str(Path(folder) / "cli.sqlite"), "import-pgn", "--create", str(path)]
        )
        assert code in (0, 1)
