"""Every article the engine cites exists, and says what it is cited for.

The table is built from the shipped references (``/work/shared/reference/``, copied
nowhere): the 2009 Laws of Chess, article by article as ``laws-of-chess.md`` states them
for the 2009 edition, and the 2012 Candidates regulations
(``candidates-2012-regulations.txt``). Read from the source and the command registry:

- every refusal each command declares (``docs/commands.md`` lists them) and every
  article a ``RuleViolation`` or a refusal names in the code;
- every article an event or an object carries (``article=``, ``"article": ...``,
  ``"rule": ...``), and every "Laws 2009 X" the source and docs name.

A citation of another edition (2014, 2017, 2018, 2023) is not checked against the 2009
table. Subjects: a refusal of an arbiter-only command cites 3.9.2 b only where the command
is about a draw claim (3.9.2 b is about draw claims alone); 6.6 a is the default time,
12.3 b the sounding phone, 13.4 the penalties.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.commands import REGISTRY
from engine.dispatch import decide  # noqa: F401  (fills the registry)

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path("/work/shared/reference")
LAWS = REFERENCE / "laws-of-chess.md"
REGULATIONS = REFERENCE / "candidates-2012-regulations.txt"

pytestmark = pytest.mark.skipif(
    not (LAWS.exists() and REGULATIONS.exists()), reason="the reference texts are not here"
)

BASIC_RULES = 4
"""Laws Articles 1-4 (the moves of the pieces, the act of moving) are outside the
competition rules ``laws-of-chess.md`` summarises: not checked here."""

OTHER_EDITIONS = re.compile(r"\b(2014|2017|2018|2023)\b|Laws 20(1[4-9]|2\d)")


def _article(number: str, letter: str | None = None) -> str:
    return f"{number} {letter}" if letter else number


def laws_2009() -> dict[str, str]:
    """Article -> its text, from the 2009 parts of ``laws-of-chess.md``."""
    table: dict[str, str] = {}
    in_2009 = False
    current: list[str] = []
    for line in LAWS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            chapter = re.match(r"## \d+\. Articles? (\d+)(?:-(\d+))?", line)
            if chapter:
                first, last = int(chapter[1]), int(chapter[2] or chapter[1])
                for n in range(first, last + 1):
                    table.setdefault(str(n), line)
        if line.startswith("### "):
            in_2009 = "2009" in line and "Later" not in line
            heading = re.match(r"### (\d+\.\d+)", line)
            if in_2009 and heading:
                table.setdefault(heading[1], line)
            continue
        if not in_2009:
            continue
        if not line.strip() or line.startswith("- "):
            current = []
        for art in current:  # a bullet's continuation lines belong to its articles
            table[art] = table.get(art, "") + " " + line.strip()
        # a heading of two articles at once ("**6.4 / 6.5**") names both
        line = re.sub(r"\*\*(\d+\.\d+) / (\d+\.\d+)\*\*", r"**\1** **\2**", line)
        for number, letters in re.findall(r"\*\*(\d+(?:\.\d+)?)\s?([a-g](?:-[a-g])?)?", line):
            current = [number]
            if letters:
                low, _, high = letters.partition("-")
                current = [_article(number, chr(c)) for c in range(ord(low), ord(high or low) + 1)]
            for art in [number, *current]:
                table[art] = table.get(art, "") + " " + line
        if re.search(r"\*\*13\.4", line) or (current and current[0] == "13.4"):
            # 13.4's penalties are listed as (a) ... (g) in its own line
            for letter, words in re.findall(r"\(([a-g])\) ([^;(.]+)", line):
                table[_article("13.4", letter)] = words
    return table


def regulations_2012() -> dict[str, str]:
    """Article -> its text, from the 2012 Candidates regulations."""
    table: dict[str, str] = {}
    last = ""
    for raw in REGULATIONS.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("Bidding procedure"):
            break
        numbered = re.match(r"^(\d)\. ?(\d+)(?:\. ?(\d+))?\s", line)
        dotted = re.match(r"^(\d\.\d(?:\.\d)?)\.([a-e])\b", line)
        lettered = re.match(r"^([a-j])\) ", line)
        item = re.match(r"^(\d)\. [A-Z]", line)
        if dotted:
            last = f"{dotted[1]}.{dotted[2]}"
            table[last] = line
            table.setdefault(dotted[1], line)
        elif numbered:
            last = ".".join(p for p in numbered.groups() if p)
            table[last] = line
        elif lettered and last:
            table[f"{last.split(' ')[0]} {lettered[1]}"] = line
        elif item and last.count(".") >= 3:
            table[f"{last}.{item[1]}"] = line
        if last:
            parts = last.split(".")
            for n in range(1, len(parts)):
                table.setdefault(".".join(parts[:n]), line)
            table[last] = table.get(last, "") + " " + line
    return table


LAWS_TABLE = laws_2009() if LAWS.exists() else {}
REGULATIONS_TABLE = regulations_2012() if REGULATIONS.exists() else {}


def lookup(citation: str) -> list[tuple[str, str | None]]:
    """(article, its text or None when absent) for each article a citation names; none
    for a citation of another edition."""
    if OTHER_EDITIONS.search(citation):
        return []
    laws = "Laws" in citation or "of the Laws" in citation
    text = re.sub(r"\([^)]*\)", "", citation)
    text = text.replace("Laws 2009", "").replace("of the Laws", "").replace("Laws", "")
    out: list[tuple[str, str | None]] = []
    for part in re.split(r",|;| and ", text):
        part = part.strip()
        found = re.match(r"^(\d+(?:\.\d+)*(?:\.[a-e](?:\.\d)?)?)\s?([a-g])?$", part)
        if not found:
            continue
        number, letter = found[1], found[2]
        regulation = not laws and int(number.split(".")[0]) <= 3
        if not regulation and int(number.split(".")[0]) <= BASIC_RULES:
            continue  # the basic rules of play, outside the reference's summary
        table = REGULATIONS_TABLE if regulation else LAWS_TABLE
        article = _article(number, letter)
        out.append((("" if regulation else "Laws 2009 ") + article, table.get(article)))
    return out


def source_citations() -> dict[str, set[str]]:
    """Citation -> where: refusals, rule violations, articles on events and objects."""
    found: dict[str, set[str]] = {}

    def add(value: object, where: str) -> None:
        if isinstance(value, str) and re.search(r"\d", value):
            found.setdefault(value, set()).add(where)

    for spec in REGISTRY.values():
        for refusal in spec.all_refusals():
            if refusal.article:
                add(refusal.article, f"{spec.name}: {refusal.code}")
    for layer in ("engine", "projections", "adapters"):
        for path in (ROOT / layer).rglob("*.py"):
            where = str(path.relative_to(ROOT))
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                    if name in ("RuleViolation", "require_arbiter") and node.args:
                        last = node.args[0] if name == "RuleViolation" else node.args[-1]
                        if isinstance(last, ast.Constant):
                            add(last.value, where)
                    for kw in node.keywords:
                        if (
                            kw.arg
                            and kw.arg.endswith("article")
                            and isinstance(kw.value, ast.Constant)
                        ):
                            add(kw.value.value, where)
                if isinstance(node, ast.Dict):
                    for key, value in zip(node.keys, node.values, strict=True):
                        if (
                            isinstance(key, ast.Constant)
                            and key.value in ("article", "rule")
                            and isinstance(value, ast.Constant)
                        ):
                            add(value.value, where)
            for match in re.finditer(r"Laws 2009 (\d+\.\d+(?: [a-g]\b)?)", source):
                add(f"Laws 2009 {match[1]}", where)
            for match in re.finditer(r"\(article ([\d.]+(?: [a-g])?)\)", source):
                add(match[1], where)
    return found


CITATIONS = source_citations()


def test_the_tables_are_read_from_the_references() -> None:
    assert "draw a game by agreement" in REGULATIONS_TABLE["3.9.2 b"]
    assert "Chief Arbiter" in REGULATIONS_TABLE["3.9.2 c"]
    assert "default" in LAWS_TABLE["6.6 a"].lower()
    assert "phone" in LAWS_TABLE["12.3 b"]
    assert "completed" in LAWS_TABLE["6.7 a"]
    assert "penalt" in LAWS_TABLE["13.4"].lower()
    assert len(CITATIONS) > 40


@pytest.mark.parametrize("citation", sorted(CITATIONS))
def test_every_cited_article_exists_in_the_2009_laws_or_the_regulations(citation: str) -> None:
    missing = [article for article, text in lookup(citation) if text is None]
    assert missing == [], f"{citation!r} ({sorted(CITATIONS[citation])}) cites {missing}"


CLAIM_COMMANDS = {"claim_draw", "rule_claim", "advise_claim", "offer_draw", "agree_draw"}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_an_arbiter_only_refusal_cites_3_9_2_b_only_for_draw_claims(name: str) -> None:
    for refusal in REGISTRY[name].all_refusals():
        if refusal.code != "not_an_arbiter":
            continue
        cited = lookup(refusal.article)
        assert cited, f"{name}: not_an_arbiter cites {refusal.article!r}"
        for article, text in cited:
            assert text is not None and re.search("arbiter|Arbiter|Advisor", text), (name, article)
        if name not in CLAIM_COMMANDS:
            assert "3.9.2 b" not in refusal.article, f"{name}: 3.9.2 b is about draw claims"


@pytest.mark.parametrize(
    ("citation", "subject"),
    [
        ("Laws 2009 6.6 a", "default"),
        ("Laws 2009 12.3 b", "phone"),
        ("Laws 2009 13.4", "penalt"),
        ("Laws 2009 6.10 b", "wrong setting"),
        ("Laws 2009 6.13", "irregularity"),
        ("Laws 2009 7.4 b", "illegal"),
        ("Laws 2009 9.5", "claim"),
        ("3.9.2 b", "draw"),
        ("3.1", "withdraw"),
        ("3.3.3", "withdraw"),
        ("3.8.1", "prize"),
    ],
)
def test_the_articles_the_engine_leans_on_say_what_it_cites_them_for(
    citation: str, subject: str
) -> None:
    (_, text), *_ = lookup(citation)
    assert text is not None and subject in text.lower(), (citation, text)


def test_the_default_time_and_presence_cite_6_6_a_not_6_7_a() -> None:
    from engine.arbiter import default_time
    from engine.game import state

    assert default_time.ARTICLE == "6.6 a"
    source = Path(state.__file__).read_text(encoding="utf-8")
    assert "present" in source and "(Laws 2009 6.6 a)" in source
    assert "6.7 a); None when not recorded" not in source


PGN_STANDARD_TERMINATIONS = {
    "abandoned",
    "adjudication",
    "death",
    "emergency",
    "normal",
    "rules infraction",
    "time forfeit",
    "unterminated",
}
"""The PGN standard's Termination values (8.1.1.7 of the PGN specification)."""


@pytest.mark.parametrize(
    ("termination", "ply", "expected"),
    [
        ("checkmate", 40, "normal"),
        ("resignation", 40, "normal"),
        ("threefold_repetition", 40, "normal"),
        ("flag_fall_draw", 40, "normal"),  # 6.9: a draw, not a loss on time
        ("time_forfeit", 40, "time forfeit"),
        ("illegal_moves", 40, "rules infraction"),
        ("penalty", 40, "rules infraction"),
        ("default", 0, "rules infraction"),  # 6.6 a, 3.1: an administrative forfeit
        ("default", 30, "abandoned"),  # a game in progress when its player withdrew
        ("imported", 40, "normal"),
        ("arbiter_decision", 40, "adjudication"),
        ("resigned by telling the arbiter", 40, "normal"),
        ("lost on time, flag seen by the arbiter", 40, "time forfeit"),
        ("player taken ill, game stopped (emergency)", 40, "emergency"),
    ],
)
def test_pgn_termination_uses_the_pgn_standards_values(
    termination: str, ply: int, expected: str
) -> None:
    from engine.game.state import Game
    from projections.pgn import pgn_termination

    game = Game(
        version=1,
        game_id="1.1",
        round=1,
        board=1,
        white="a",
        black="b",
        time_control="?",
        rules="candidates-2012",
        initial_fen=None,
        started_at_ms=0,
        moves=("e2e4",) * ply,
        result="1-0",
        termination=termination,
    )
    assert pgn_termination(game) == expected
    assert expected in PGN_STANDARD_TERMINATIONS


def test_a_record_out_of_time_order_cites_no_article() -> None:
    """No article orders records: Laws 2009 6.7 a says when a move is completed, not in
    what order the record is written. ``out_of_order`` is refused without an article."""
    from engine.errors import OutOfOrder, RuleViolation

    assert not issubclass(OutOfOrder, RuleViolation)
    assert str(OutOfOrder("dated before the last event")) == "dated before the last event"
    cited = {
        refusal.article
        for spec in REGISTRY.values()
        for refusal in spec.all_refusals()
        if refusal.code == "out_of_order"
    }
    assert cited == {""}


def test_a_second_start_cites_3_3_7_only_for_a_game_lost_by_default() -> None:
    """3.3.7 is "No postponement of any game shall be allowed": it answers a game lost by
    default started again, not a game started twice."""
    assert "postponement" in REGULATIONS_TABLE["3.3.7"]
    refusals = {(r.code, r.article, r.when) for r in REGISTRY["start_game"].all_refusals()}
    assert ("malformed_command", "", "the game has already been started (a game starts once)") in (
        refusals
    )
    assert [a for c, a, e in refusals if a == "3.3.7"] == ["3.3.7"]
    assert all("default" in e for c, a, e in refusals if a == "3.3.7")


def test_the_report_heads_a_6_11_draw_with_6_11() -> None:
    """Both flags fallen, the order not established (Laws 2009 6.11): the report's entry
    cites 6.11, not 6.9 (which is the first flag's rule)."""
    from engine.events import ResultRecorded
    from engine.termination import Termination
    from projections.arbiter_report import result
    from projections.names import Names

    assert "both flags" in LAWS_TABLE["6.11"].lower()
    both = ResultRecorded(
        originator_id="game/1.1",
        originator_version=9,
        at_ms=1,
        by="chief",
        result="1/2-1/2",
        termination=Termination.BOTH_FLAGS_FALLEN,
        reason="both flags fell in the last period",
        arbiter="chief",
    )
    found = result(both, Names.of(None))
    assert found is not None and found["article"] == "Laws 2009 6.11"
    lost = ResultRecorded(
        originator_id="game/1.1",
        originator_version=9,
        at_ms=1,
        by="clock",
        result="1-0",
        termination=Termination.TIME_FORFEIT,
        reason="black's flag fell",
    )
    found = result(lost, Names.of(None))
    assert found is not None and found["article"] == "Laws 2009 6.9"
