"""The event's founding file: the organiser's commands that create the tournament.

``candidates founding`` writes the file ``candidates apply`` starts an event with
(``create_tournament``, ``draw_lots``, and ``reorder_rounds`` when the rounds are
played out of the Berger table's order), from the organisers' list of players (a CSV
file) or from a PGN file of the event's games. The commands are applied to a store
in memory before they are written, so a file it makes is one ``apply`` accepts
(docs/operations.md, "The tournament")."""

from __future__ import annotations

import csv
import dataclasses
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adapters.formats.pgn_import import ImportOptions, import_pgn
from adapters.store import Store
from engine.commands import Command, checked
from engine.errors import CommandRefused, MalformedCommand
from engine.events import ArbiterEntry, PlayerEntry
from engine.qualification.inputs import QualificationInput
from engine.qualification.result import QualificationResult, field_entries
from engine.tournament.founding import CreateTournament, DrawLots, ReorderRounds
from engine.tournament.tournament import Tournament

ORGANISER = "organiser"
"""Who the founding commands are by."""
PLAYER_COLUMNS = ("id", "name", "federation", "rating")
OPTIONAL_COLUMNS = ("fide_id", "title", "number")


def parse_arbiter(text: str) -> ArbiterEntry:
    """``ID:ROLE:NAME`` (``chief:chief:Chief Arbiter``) as ``{id, name, role}``."""
    parts = text.split(":", 2)
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise MalformedCommand(f"--arbiter {text!r}: write ID:ROLE:NAME (chief:chief:Jane Doe)")
    aid, role, name = (p.strip() for p in parts)
    return ArbiterEntry(id=aid, name=name, role=role)


def players_csv(path: str | Path) -> tuple[list[PlayerEntry], dict[str, int]]:
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
    players: list[PlayerEntry] = []
    numbers: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        try:
            rating: float = float(row["rating"])
        except (TypeError, ValueError):
            raise MalformedCommand(
                f"--players {path}, line {line}: rating {row.get('rating')!r} is not a number"
            ) from None
        player = PlayerEntry(
            id=(row["id"] or "").strip(),
            name=(row["name"] or "").strip(),
            federation=(row["federation"] or "").strip(),
            rating=int(rating) if rating.is_integer() else rating,
        )
        if fide_id := (row.get("fide_id") or "").strip():
            player["fide_id"] = fide_id
        if title := (row.get("title") or "").strip():
            player["title"] = title
        number_text = (row.get("number") or "").strip()
        try:
            numbers[player["id"]] = int(number_text) if number_text else line - 1
        except ValueError:
            raise MalformedCommand(
                f"--players {path}, line {line}: number {number_text!r} is not a whole number"
            ) from None
        players.append(player)
    return players, numbers


def from_pgn(path: str | Path, options: ImportOptions) -> tuple[Tournament, list[PlayerEntry]]:
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
        tournament = store.reads.tournament()
    if tournament is None:
        raise MalformedCommand(f"{path}: the file founds no tournament (fewer than two players)")
    players = []
    for p in tournament.players:
        player = PlayerEntry(id=p.id, name=p.name, federation=p.federation, rating=p.rating)
        if p.fide_id:
            player["fide_id"] = p.fide_id
        if p.title:
            player["title"] = p.title
        players.append(player)
    return tournament, players


def founding_commands(
    tournament_id: str,
    name: str,
    players: Sequence[PlayerEntry],
    numbers: dict[str, int] | None,
    arbiters: Sequence[ArbiterEntry],
    *,
    rules: str | None = None,
    start_date: str | None = None,
    cycles: int | None = None,
    round_order: Sequence[int] | None = None,
) -> list[Command]:
    """The founding commands (each ``by`` the organiser), each checked by applying them,
    in order, to a store in memory (CommandRefused, with the command's refusal, when one
    is refused)."""
    create = CreateTournament(
        tournament=tournament_id,
        name=name,
        players=list(players),
        arbiters=list(arbiters),
        start_date=start_date or None,
        by=ORGANISER,
    )
    if rules:
        create = dataclasses.replace(create, rules=rules)
    if cycles:
        create = dataclasses.replace(create, cycles=cycles)
    commands: list[Command] = [checked(create)]
    if numbers:
        commands.append(
            checked(DrawLots(tournament=tournament_id, numbers=dict(numbers), by=ORGANISER))
        )
    if round_order and list(round_order) != list(range(1, len(round_order) + 1)):
        commands.append(
            checked(
                ReorderRounds(
                    tournament=tournament_id,
                    order=list(round_order),
                    reason="the rounds are played in this order of the table (3.2)",
                    by=ORGANISER,
                )
            )
        )
    with Store(":memory:") as store:
        for command in commands:
            try:
                store.execute(command)
            except CommandRefused as refused:
                raise CommandRefused(f"{command.cmd} would be refused: {refused.message}") from None
    return commands


def qualified_field_command(
    inp: QualificationInput,
    result: QualificationResult,
    *,
    tournament: str,
    name: str,
    start_date: str,
    rules: str | None = None,
    arbiters: Sequence[ArbiterEntry] = (),
) -> CreateTournament:
    """The ``create_tournament`` of a complete qualified field (``candidates qualify
    --create-tournament``): its players as the qualification rates them
    (``engine.qualification.result.field_entries``), checked as a client's command."""
    players = field_entries(inp, result)
    create = CreateTournament(
        tournament=tournament,
        name=name,
        start_date=start_date,
        cycles=2,
        players=list(players),
        arbiters=list(arbiters),
    )
    return checked(dataclasses.replace(create, rules=rules) if rules is not None else create)
