"""Games out of a store as PGN (``projections.pgn``): one game, one round, the whole event.

``[%clk]`` after a move is what the players saw: the device's reading of the
mover's clock after it (a score sheet's ``[%clk]``, a DGT clock, a move's two
displays; Laws 2009 6.10 a), and the regulation clock (the time control applied to
the recorded instants) where no reading belongs to the move
(``projections.clock.shown_clocks``). Where a reading and the regulation clock
differ by a second or more and the reading was judged against a stated control, a
comment gives the regulation clock beside it; a reading the import found to be a
broadcast glitch is written as read with the comment ``clock: broadcast glitch, as read``. A
game whose clock is unknown and that has no reading is written without ``[%clk]``. Comments are the
arbiters' record at its ply (``projections.pgn_comments``). The same functions
serve ``candidates pgn``, ``candidates event-pgn`` and the gateway's
``/pgn/...`` routes (on the store, or on the public's delayed copy of it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adapters.store import game_order
from adapters.store.openings import opening_of
from adapters.store.reads import Reads
from engine.errors import UnknownGame
from engine.events import ClockReadingRecorded, Event, game_stream
from engine.game.state import Game
from engine.timefmt import clock_text
from engine.tournament.pairing import table_size
from engine.tournament.tournament import Tournament
from projections.clock import shown_clocks
from projections.names import Names
from projections.pgn import ClockAfterPly, EvalAfterPly, GameOpening, game_pgn, games_pgn
from projections.pgn_comments import ply_comments

GLITCH_NOTE = "clock: broadcast glitch, as read"
"""The comment beside a ``[%clk]`` the import found to contradict the same player's
readings before and after it (kept as the broadcast wrote it)."""


def clock_after_ply(
    events: list[Event], readings: Sequence[ClockReadingRecorded] = ()
) -> tuple[dict[int, int], dict[int, list[str]]]:
    """Ply -> the mover's clock just after that move as ``[%clk]`` writes it (the device's
    reading, else the regulation clock), and ply -> the regulation clock's comment where
    it differs from the reading."""
    shown = shown_clocks(events, readings)
    notes: dict[int, list[str]] = {}
    for ply, (_, regulation, glitch) in shown.items():
        if glitch:
            notes[ply] = [GLITCH_NOTE]
        elif regulation is not None:
            notes[ply] = [f"regulation clock {clock_text(regulation)}"]
    return {ply: ms for ply, (ms, _, _) in shown.items()}, notes


def _parts(store: Reads, game: Game) -> tuple[ClockAfterPly, dict[int, list[str]]]:
    events = store.stream(game_stream(game.game_id))
    clocks, notes = clock_after_ply(events, store.readings(game.game_id))
    comments = ply_comments(events, Names.of(store.tournament(), game))
    for ply, texts in notes.items():
        comments.setdefault(ply, []).extend(texts)
    return clocks, comments


def game_opening(game: Game) -> GameOpening | None:
    """(ECO, name) of a game's opening (``adapters.store.openings``), or None."""
    found = opening_of(game.initial_fen, game.moves)
    return (found.eco, found.name) if found is not None else None


def game_pgn_text(store: Reads, game_id: str, site: str | None = None) -> str:
    game = store.game(game_id)
    if game is None:
        raise UnknownGame(f"no game {game_id!r} in this store")
    clocks, comments = _parts(store, game)
    return game_pgn(
        game,
        store.tournament(),
        clocks=clocks,
        comments=comments,
        site=site,
        opening=game_opening(game),
    )


def event_game_ids(store: Reads, tournament: Tournament | None) -> list[str]:
    """Every game of the event in (round, board) order: the round robin's boards and the
    playoff games paired so far (by id, without scanning the log), else every stream's."""
    if tournament is None:
        return store.game_ids()
    boards = table_size(len(tournament.players)) // 2
    ids = [f"{r}.{b}" for r in range(1, tournament.rounds + 1) for b in range(1, boards + 1)]
    ids += [gid for playoff in tournament.playoffs for gid in playoff.game_ids()]
    return ids


def started_games(store: Reads, game_ids: list[str]) -> list[Game]:
    return [g for g in (store.game(i) for i in sorted(game_ids, key=game_order)) if g is not None]


def pgn_of_games(
    store: Reads,
    games: list[Game],
    site: str | None = None,
    evals: Mapping[str, EvalAfterPly] | None = None,
) -> str:
    """The games as PGN; ``evals``: by game id, the engine's evaluations to write as
    ``[%eval]`` (the gateway gives those its reader may see)."""
    parts = {g.game_id: _parts(store, g) for g in games}
    clocks = {gid: clocks for gid, (clocks, _) in parts.items()}
    comments = {gid: comments for gid, (_, comments) in parts.items()}
    openings = {g.game_id: o for g in games if (o := game_opening(g)) is not None}
    return games_pgn(games, store.tournament(), clocks, comments, site, evals, openings)


def round_game_ids(store: Reads, round_no: int) -> list[str]:
    """The games of a round of the round robin (``<round>.<board>``)."""
    tournament = store.tournament()
    if tournament is None or not 1 <= round_no <= tournament.rounds:
        rounds = tournament.rounds if tournament else 0
        raise UnknownGame(f"no round {round_no} in this store (rounds 1 to {rounds})")
    boards = table_size(len(tournament.players)) // 2
    return [f"{round_no}.{b}" for b in range(1, boards + 1)]


def event_games(store: Reads) -> list[Game]:
    """Every game with a stream (imported, played or playoff), in round and board order."""
    return started_games(store, store.game_ids())


def store_event_pgn(store: Reads, site: str | None = None) -> str:
    """Every game of the store as PGN, in round and board order."""
    return pgn_of_games(store, event_games(store), site)
