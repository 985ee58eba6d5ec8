"""The one PGN writer: ``candidates pgn``, ``candidates event-pgn`` and the gateway's live PGN.

Each game is written in the PGN export format with the tags federations and
broadcast platforms read:

- the Seven Tag Roster: ``Event``, ``Site`` (the tournament's, ``Tournament.pgn_site``),
  ``Date``, ``Round`` (the round number alone; a playoff game's stage before
  it, ``rapid 1``), ``White``, ``Black``, ``Result`` (``*`` while in progress);
- ``Board``; ``WhiteTitle``/``BlackTitle``, ``WhiteElo``/``BlackElo``,
  ``WhiteFideId``/``BlackFideId``, ``WhiteFed``/``BlackFed`` where known;
  ``EventDate``, ``TimeControl``, ``Termination`` (the standard's words, once
  the game is over), ``PlyCount``;
- after every move whose clock is known, the mover's remaining time as
  ``[%clk h:mm:ss]`` (written by python-chess, ``GameNode.set_clock``);
- after every move whose position an engine evaluated, ``[%eval 0.35]`` or
  ``[%eval #-3]`` (White's view, ``GameNode.set_eval``), when the caller gives
  the evaluations (``projections.evaluation``; docs/analysis.md);
- ``ECO`` and ``Opening`` when the caller names the opening (a tag already set
  keeps its value);
- the arbiters' record as comments at the ply it happened after (claims,
  rulings, illegal moves, clock penalties: ``projections.pgn_comments``); a
  comment before the first move is the game's opening comment.

Pure: the adapters give the games, their clocks and their comments. All
durations are integer milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import chess
import chess.engine
import chess.pgn

from engine.game.state import Game
from engine.tournament.tournament import Player, Tournament

PGN_TERMINATION = {
    "time_forfeit": "time forfeit",
    "flag_fall_draw": "time forfeit",
    "arbiter_decision": "adjudication",
    "default": "abandoned",
    "illegal_moves": "rules infraction",
    "incorrect_claims": "rules infraction",
    "penalty": "rules infraction",
    "imported": "normal",
}
"""Our termination names -> the PGN standard's Termination values (8.1.1.7); else normal."""

ClockAfterPly = Mapping[int, int]
"""Ply -> the remaining time (ms) of the side that made that move, just after it."""
EvalAfterPly = Mapping[int, tuple[int | None, int | None]]
"""Ply -> the evaluation (centipawns, mate) of the position after that move, White's view."""
GameOpening = tuple[str, str]
"""(ECO code, name) of a game's opening."""
CommentsAtPly = Mapping[int, Sequence[str]]
"""Ply -> comments on what happened after that move (0: before the first move)."""


def pgn_date(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, tz=UTC).strftime("%Y.%m.%d")


def round_and_board(game: Game) -> tuple[str, str]:
    """The Round and Board tags: the game's own numbers, else those of its id."""
    id_round, _, id_board = game.game_id.partition(".")
    round_no = str(game.round) if game.round else (id_round or "?")
    board_no = str(game.board) if game.board else (id_board or "?")
    if game.stage != "tournament":
        round_no = f"{game.stage} {round_no}"
    return round_no, board_no


def _elo(rating: float) -> str:
    return str(int(rating)) if float(rating).is_integer() else f"{rating}"


def _player_tags(headers: chess.pgn.Headers, colour: str, player: Player | None) -> None:
    if player is None:
        return
    if player.title:
        headers[f"{colour}Title"] = player.title
    if player.rating:
        headers[f"{colour}Elo"] = _elo(player.rating)
    if player.fide_id:
        headers[f"{colour}FideId"] = player.fide_id
    if player.federation:
        headers[f"{colour}Fed"] = player.federation


def _comment_text(text: str) -> str:
    """A PGN comment cannot hold a closing brace."""
    return text.replace("}", ")").replace("{", "(")


def game_pgn(
    game: Game,
    tournament: Tournament | None = None,
    *,
    clocks: ClockAfterPly | None = None,
    comments: CommentsAtPly | None = None,
    site: str | None = None,
    evals: EvalAfterPly | None = None,
    opening: GameOpening | None = None,
) -> str:
    """One game as PGN text (export format, no trailing blank line).

    ``site`` overrides the tournament's Site."""
    board = chess.Board(game.initial_fen) if game.initial_fen else chess.Board()
    pgn = chess.pgn.Game()
    players = {p.id: p for p in tournament.players} if tournament else {}
    white, black = players.get(game.white), players.get(game.black)
    round_no, board_no = round_and_board(game)
    headers = pgn.headers
    headers["Event"] = tournament.name if tournament else "?"
    headers["Site"] = site or (tournament.pgn_site() if tournament else "?")
    headers["Date"] = pgn_date(game.started_at_ms) if game.started_at_ms else "????.??.??"
    headers["Round"] = round_no
    headers["White"] = white.name if white else game.white
    headers["Black"] = black.name if black else game.black
    headers["Result"] = game.result
    headers["Board"] = board_no
    _player_tags(headers, "White", white)
    _player_tags(headers, "Black", black)
    if tournament is not None:
        headers["EventDate"] = tournament.start_date.replace("-", ".")
    headers["TimeControl"] = game.time_control
    if opening is not None:
        headers.setdefault("ECO", opening[0])
        headers.setdefault("Opening", opening[1])
    if game.termination and game.result != "*":
        headers["Termination"] = PGN_TERMINATION.get(game.termination, "normal")
    headers["PlyCount"] = str(game.ply)
    if game.initial_fen:
        pgn.setup(board)
    at_ply: dict[int, list[str]] = {}
    for ply, texts in sorted((comments or {}).items()):
        at_ply.setdefault(min(max(0, ply), len(game.moves)), []).extend(texts)
    if at_ply.get(0):
        pgn.comment = " ".join(_comment_text(c) for c in at_ply[0])
    node: chess.pgn.GameNode = pgn
    for ply, uci in enumerate(game.moves, start=1):
        node = node.add_variation(chess.Move.from_uci(uci))
        if at_ply.get(ply):
            node.comment = " ".join(_comment_text(c) for c in at_ply[ply])
        if clocks is not None and ply in clocks:
            node.set_clock(max(0, clocks[ply]) / 1000)
        if evals is not None and ply in evals:
            node.set_eval(_pov_score(*evals[ply]))
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)


def _pov_score(cp: int | None, mate: int | None) -> chess.engine.PovScore:
    score: chess.engine.Score = (
        chess.engine.Mate(mate) if mate is not None else chess.engine.Cp(cp or 0)
    )
    return chess.engine.PovScore(score, chess.WHITE)


def games_pgn(
    games: Sequence[Game],
    tournament: Tournament | None,
    clocks: Mapping[str, ClockAfterPly] | None = None,
    comments: Mapping[str, CommentsAtPly] | None = None,
    site: str | None = None,
    evals: Mapping[str, EvalAfterPly] | None = None,
    openings: Mapping[str, GameOpening] | None = None,
) -> str:
    """Every game, in the order given (round, board), separated by blank lines."""
    clocks, comments = clocks or {}, comments or {}
    evals, openings = evals or {}, openings or {}
    texts = [
        game_pgn(
            g,
            tournament,
            clocks=clocks.get(g.game_id),
            comments=comments.get(g.game_id),
            site=site,
            evals=evals.get(g.game_id),
            opening=openings.get(g.game_id),
        )
        for g in games
    ]
    return "\n\n".join(texts) + ("\n" if texts else "")
