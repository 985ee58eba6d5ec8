"""The event's founding file: the organiser's commands that create the tournament.

``candidates founding`` writes the file ``candidates apply`` starts an event with
(``create_tournament``, ``draw_lots``, and ``reorder_rounds`` when the rounds are
played out of the Berger table's order), from the organisers' list of players (a CSV
file) or from a PGN file of the event's games. The commands are applied to a store
in memory before they are written, so a file it makes is one ``apply`` accepts
(docs/operations.md, "The tournament")."""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adapters.formats.pgn_import import ImportOptions, import_pgn
from adapters.store import Store
from engine.errors import CommandRefused, MalformedCommand
from engine.tournament.tournament import Tournament

PLAYER_COLUMNS = ("id", "name", "federation", "rating")
OPTIONAL_COLUMNS = ("fide_id", "title", "number")


def parse_arbiter(text: str) -> dict[str, str]:
    """``ID:ROLE:NAME`` (``chief:chief:Chief Arbiter``) as ``{id, name, role}``."""
    parts = text.split(":", 2)
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise MalformedCommand(f"--arbiter {text!r}: write ID:ROLE:NAME (chief:chief:Jane Doe)")
    aid, role, name = (p.strip() for p in parts)
    return {"id": aid, "name": name, "role": role}


def players_csv(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The players of the organisers' list and their pairing numbers (the ``number``
    column, else the rows' order); MalformedCommand naming the row that is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as error:
        raise MalformedCommand(
            f"--players {path}: cannot read the file ({error.strerror})"
        ) from None
    except UnicodeError:
        raise MalformedCommand(f"--players {path}: not UTF-8 text") from None
    rows = list(csv.DictReader(text.splitlines()))
    header = set(rows[0]) if rows else set()
    missing = [c for c in PLAYER_COLUMNS if c not in header]
    if missing:
        raise MalformedCommand(
            f"--players {path}: a CSV file with a header line naming {', '.join(PLAYER_COLUMNS)}"
            f" (and optionally {', '.join(OPTIONAL_COLUMNS)}); missing {', '.join(missing)}"
        )
    players: list[dict[str, Any]] = []
    numbers: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        try:
            rating: float = float(row["rating"])
        except (TypeError, ValueError):
            raise MalformedCommand(
                f"--players {path}, line {line}: rating {row.get('rating')!r} is not a number"
            ) from None
        player: dict[str, Any] = {
            "id": (row["id"] or "").strip(),
            "name": (row["name"] or "").strip(),
            "federation": (row["federation"] or "").strip(),
            "rating": int(rating) if rating.is_integer() else rating,
        }
        for column in ("fide_id", "title"):
            if (row.get(column) or "").strip():
                player[column] = str(row[column]).strip()
        number_text = (row.get("number") or "").strip()
        try:
            numbers[player["id"]] = int(number_text) if number_text else line - 1
        except ValueError:
            raise MalformedCommand(
                f"--players {path}, line {line}: number {number_text!r} is not a whole number"
            ) from None
        players.append(player)
    return players, numbers


def from_pgn(path: str | Path, options: ImportOptions) -> tuple[Tournament, list[dict[str, Any]]]:
    """The tournament a PGN file founds (as ``import-pgn`` infers it, into a store of its
    own) and its players as ``create_tournament`` takes them."""
    with tempfile.TemporaryDirectory() as folder, Store(str(Path(folder) / "s.sqlite")) as store:
        created: list[Any] = []
        reports = import_pgn(store, path, created=created, options=options)
        refused = [r for r in reports if r.game == "file"] + [
            r for r in created if r.status != "created"
        ]
        if refused:
            raise MalformedCommand(refused[0].message)
        tournament = store.tournament()
    if tournament is None:
        raise MalformedCommand(f"{path}: the file founds no tournament (fewer than two players)")
    players = []
    for p in tournament.players:
        player: dict[str, Any] = {
            "id": p.id,
            "name": p.name,
            "federation": p.federation,
            "rating": p.rating,
        }
        player.update({k: v for k, v in (("fide_id", p.fide_id), ("title", p.title)) if v})
        players.append(player)
    return tournament, players


def founding_commands(
    tournament_id: str,
    name: str,
    players: Sequence[dict[str, Any]],
    numbers: dict[str, int] | None,
    arbiters: Sequence[dict[str, str]],
    *,
    rules: str | None = None,
    start_date: str | None = None,
    cycles: int | None = None,
    round_order: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """The founding commands, each checked by applying them, in order, to a store in
    memory (CommandRefused, with the command's refusal, when one is refused)."""
    create: dict[str, Any] = {
        "cmd": "create_tournament",
        "tournament": tournament_id,
        "name": name,
        "players": list(players),
        "arbiters": list(arbiters),
    }
    create.update(
        {k: v for k, v in (("rules", rules), ("start_date", start_date), ("cycles", cycles)) if v}
    )
    commands = [create]
    if numbers:
        commands.append({"cmd": "draw_lots", "tournament": tournament_id, "numbers": numbers})
    if round_order and list(round_order) != list(range(1, len(round_order) + 1)):
        commands.append(
            {
                "cmd": "reorder_rounds",
                "tournament": tournament_id,
                "order": list(round_order),
                "reason": "the rounds are played in this order of the table (3.2)",
            }
        )
    commands = [{**c, "by": "organiser"} for c in commands]
    with Store(":memory:") as store:
        for command in commands:
            answer = store.handle(command)
            if not answer["ok"]:
                error = answer["error"]
                raise CommandRefused(f"{command['cmd']} would be refused: {error['message']}")
    return commands
