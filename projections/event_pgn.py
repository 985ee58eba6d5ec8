"""The whole event as organisers publish it: one PGN with clock times.

``event_pgn`` writes every game in round and board order with the Seven Tag
Roster plus ``Board``, ``WhiteElo``, ``BlackElo`` (with ``WhiteTitle``, ``BlackTitle``,
``WhiteFideId``, ``BlackFideId`` when the player has them), ``EventDate``,
``TimeControl``, ``Termination``, ``PlyCount``, and after every move the
mover's clock as broadcasts give it, ``{ [%clk h:mm:ss] }`` (the remaining
time after the move, time-control additions included; milliseconds when any), whenever the clock is
known for that move.

Pure: the adapter supplies the games and the clock values. The standings and
crosstable that go with it are ``projections.standings``'s.

All durations are integer milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import chess
import chess.pgn

from engine.game.state import Game
from engine.timefmt import clock_text
from engine.tournament.tournament import Tournament
from projections.pgn import PGN_TERMINATION, pgn_date

ClockAfterPly = Mapping[int, int]
"""Ply -> the remaining time (ms) of the side that made that move, just after it."""


def clk(remaining_ms: int) -> str:
    """The ``[%clk]`` form, as ``candidates pgn`` writes it (``projections.clock``)."""
    return clock_text(max(0, remaining_ms))


def game_round_board(game_id: str) -> tuple[str, str]:
    round_no, _, board = game_id.partition(".")
    return round_no or "?", board or "?"


def event_game_pgn(
    game: Game,
    tournament: Tournament | None,
    clocks: ClockAfterPly | None = None,
    site: str = "?",
) -> str:
    """One game of the event, with ``[%clk]`` after every move whose clock is known."""
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    pgn = chess.pgn.Game()
    players = {p.id: p for p in tournament.players} if tournament else {}
    white, black = players.get(game.white), players.get(game.black)
    round_no, board_no = game_round_board(game.game_id)
    headers = pgn.headers
    headers["Event"] = tournament.name if tournament else "?"
    headers["Site"] = site
    headers["Date"] = pgn_date(game.started_at_ms) if game.started_at_ms else "????.??.??"
    headers["Round"] = round_no if game.stage == "tournament" else f"{game.stage} {round_no}"
    headers["White"] = white.name if white else game.white
    headers["Black"] = black.name if black else game.black
    headers["Result"] = game.result
    headers["Board"] = board_no
    for side, player in (("White", white), ("Black", black)):
        if player is not None:
            headers[f"{side}Elo"] = _elo(player.rating)
            if player.title:
                headers[f"{side}Title"] = player.title
            if player.fide_id:
                headers[f"{side}FideId"] = player.fide_id
    if tournament is not None:
        headers["EventDate"] = tournament.start_date.replace("-", ".")
    headers["TimeControl"] = game.time_control
    if game.termination:
        headers["Termination"] = PGN_TERMINATION.get(game.termination, "normal")
    headers["PlyCount"] = str(game.ply)
    if game.initial_fen:
        pgn.setup(board)
    node: chess.pgn.GameNode = pgn
    for ply, uci in enumerate(game.moves, start=1):
        node = node.add_variation(chess.Move.from_uci(uci))
        if clocks is not None and ply in clocks:
            node.comment = f"[%clk {clk(clocks[ply])}]"
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)


def _elo(rating: float) -> str:
    return str(int(rating)) if float(rating).is_integer() else f"{rating}"


def event_pgn(
    games: Sequence[Game],
    tournament: Tournament | None,
    clocks: Mapping[str, ClockAfterPly] | None = None,
    site: str = "?",
) -> str:
    """Every game, in the order given (round, board), separated by blank lines."""
    clocks = clocks or {}
    return "\n\n".join(
        event_game_pgn(g, tournament, clocks.get(g.game_id), site) for g in games
    ) + ("\n" if games else "")
