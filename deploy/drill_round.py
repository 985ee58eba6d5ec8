"""The round the drill plays: London 2013's round 2, its boards, its founding, its hall.toml.

The round's real games (``replay_logs/sources/candidates-2013.pgn``), the
organiser's founding commands for London 2013 (as ``tools/sample.py`` derives
them), and what the organiser edits in the installed ``hall.toml`` (the store,
the tokens, the boards' ports, a public delay of seconds for the drill).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from deploy.hall import ROOT, Hall
from deploy.runbook import DrillError

PGN = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
ROUND = 2
BOARDS = ("1", "2", "3", "4")
GROUPS = {"a": ("1", "2"), "b": ("3", "4")}
DRILL_TOKENS = {
    "arbiter": "drill-chief-token-0001",
    "commentator": "drill-studio-token-0002",
}
PUBLIC_DELAY_S = 4
TIME_SCALE = 2.5
"""The boards' pace: a ply about every 4 s on each board (the simulator's hands and
thinking, 2.5 times its default; no transient pauses: the drill is about the hall's
processes, tests/test_dgt_*.py about the boards' noise). Real players take minutes
a move; a board reader restarted in a few seconds must find its boards at most a
few plies on, as in a hall (the reconstructor reconciles up to four plies from the
board's dump, docs/dgt.md; more is the arbiters' to enter from the score sheets)."""


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def write_toml(path: Path, data: dict[str, Any]) -> None:
    lines: list[str] = []
    tables: list[tuple[str, dict[str, Any]]] = []

    def emit(prefix: str, table: dict[str, Any]) -> None:
        subtables = []
        for key, value in table.items():
            if isinstance(value, dict) and (
                all(isinstance(v, dict) for v in value.values())
                or (prefix == "" and key in ("gateway", "dgt", "tokens"))
            ):
                subtables.append((key, value))
            else:
                name = json.dumps(key) if not re.fullmatch(r"[\w-]+", key) else key
                lines.append(f"{name} = {toml_value(value)}")
        for key, value in subtables:
            tables.append((f"{prefix}{key}", value))

    emit("", data)
    while tables:
        name, table = tables.pop(0)
        lines.append(f"\n[{name}]")
        if name == "tokens":
            for token, spec in table.items():
                lines.append(f"{json.dumps(token)} = {toml_value(spec)}")
            continue
        emit(f"{name}.", table)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def edit_config(hall: Hall, cluster_url: str) -> None:
    """What the organiser changes in the installed hall.toml: the store, the tokens, the
    boards' ports, and (for the drill) a public delay of seconds instead of minutes."""
    import tomllib

    path = Path(hall.here("/etc/candidates/hall.toml"))
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["store"] = cluster_url
    data["public_delay_s"] = PUBLIC_DELAY_S
    data["tokens"] = {
        DRILL_TOKENS["arbiter"]: {"role": "arbiter", "name": "Chief Arbiter", "arbiter": "chief"},
        DRILL_TOKENS["commentator"]: {"role": "commentator", "name": "Commentary studio"},
    }
    data["dgt"]["groups"] = {
        group: {"boards": [f"/dev/ttyDGT{b}={ROUND}.{b}" for b in boards]}
        for group, boards in GROUPS.items()
    }
    write_toml(path, data)
    # the text of the file is the hall's: its paths are the drill's directories
    path.write_text(hall.here(path.read_text(encoding="utf-8")), encoding="utf-8")


def founding_commands() -> list[dict[str, Any]]:
    """The organiser's founding commands for London 2013 (the real drawing of lots, the
    rounds' order and the boards as published: tools/sample.py derives them)."""
    from tools import sample

    games = sample.source_games()
    lots = sample.drawing_of_lots(games)
    commands: list[dict[str, Any]] = [sample._create()]
    commands.append({"cmd": "draw_lots", "tournament": sample.TOURNAMENT, "numbers": lots.numbers})
    if lots.round_order != tuple(range(1, len(lots.round_order) + 1)):
        commands.append(
            {
                "cmd": "reorder_rounds",
                "tournament": sample.TOURNAMENT,
                "order": list(lots.round_order),
                "reason": "the playing schedule of London 2013 (3.2)",
            }
        )
    from adapters.store import Store

    with tempfile.TemporaryDirectory() as tmp, Store(str(Path(tmp) / "s.sqlite")) as store:
        for command in commands:
            answer = store.handle({**command, "by": "organiser"})
            if not answer["ok"]:
                raise DrillError(f"founding command refused: {answer['error']}")
        tournament = store.reads.tournament()
        assert tournament is not None
        boards = sample.published_boards(games, tournament.pairings())
    if boards:
        commands.append(
            {
                "cmd": "renumber_boards",
                "tournament": sample.TOURNAMENT,
                "boards": {r: list(order) for r, order in boards.items()},
                "reason": "the boards of each round as London 2013 published them",
            }
        )
    return [{**c, "by": "organiser"} for c in commands]


def round_games(plies: int | None) -> dict[str, chess.pgn.Game]:
    """The round's real games by id (``2.1`` ...), cut to ``plies`` when given."""
    out: dict[str, chess.pgn.Game] = {}
    with PGN.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.headers["Round"].split(".")[0] != str(ROUND):
                continue
            if plies is not None:
                node: chess.pgn.GameNode = game
                for _ in range(plies):
                    if not node.variations:
                        break
                    node = node.variations[0]
                node.variations = []
                game.headers["Result"] = "*"
            out[game.headers["Round"]] = game
    return out
