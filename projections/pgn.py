"""The one PGN writer: ``candidates pgn``, ``candidates event-pgn`` and the gateway's live PGN.

Each game in the PGN export format with the tags federations and broadcast platforms
read, ``[%clk]`` after every move whose clock is known, ``[%eval]`` where an engine
evaluated the position, the opening when named, and the arbiters' record as comments
at the ply it happened after (``projections.pgn_comments``). Pure: the adapters give
the games, clocks and comments. The tags are listed in docs/protocol.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import chess
import chess.engine
import chess.pgn

from engine.game.state import Game
from engine.scores import nearest_pgn_result
from engine.termination import Termination
from engine.tournament.tournament import Player, Tournament

PGN_TERMINATION = {
    "time_forfeit": "time forfeit",
    "illegal_moves": "rules infraction",
    "incorrect_claims": "rules infraction",
    "penalty": "rules infraction",
}
"""Our termination names -> the PGN standard's Termination values (8.1.1.7: ``abandoned``,
``adjudication``, ``death``, ``emergency``, ``normal``, ``rules infraction``, ``time
forfeit``, ``unterminated``). Every ending by the position, a resignation, an accepted
claim, a draw on a flag against a king that cannot be mated (6.9: not a loss on time)
and an imported score sheet's result is ``normal``; a default and an arbiter's
declaration are read by ``pgn_termination``."""

_DECLARED_WORDS = (
    ("resign", "normal"),
    ("mate", "normal"),
    ("repetition", "normal"),
    ("normal", "normal"),
    ("adjudicat", "adjudication"),
    ("death", "death"),
    ("died", "death"),
    ("emergency", "emergency"),
    ("illness", "emergency"),
    ("evacuat", "emergency"),
    ("abandon", "abandoned"),
    ("default", "rules infraction"),
    ("forfeit", "rules infraction"),
    ("absent", "rules infraction"),
    ("infraction", "rules infraction"),
    ("penalt", "rules infraction"),
    ("flag", "time forfeit"),
    ("on time", "time forfeit"),
    ("time", "time forfeit"),
)
"""Words of an arbiter's declared termination or reason -> the PGN value they describe."""


def pgn_termination(game: Game) -> str:
    """The PGN standard's Termination of a finished game.

    - a game lost by default (Laws 2009 6.6 a, a withdrawal's remaining games, 3.1) is an
      administrative forfeit, ``rules infraction``; a game in progress when its player
      withdrew was ``abandoned``;
    - an arbiter's declaration (``declare_result``, ``correct_result`` with his own words)
      is what its words say it was (a resignation handed to him is ``normal``, a flag
      ``time forfeit``); ``adjudication`` only where the arbiter decided the result
      himself (the words say so, or say nothing else);
    - the rest by ``PGN_TERMINATION``, else ``normal``.
    """
    termination = (game.termination or "").lower()
    if termination == "default":
        return "abandoned" if game.ply > 0 else "rules infraction"
    if termination in PGN_TERMINATION:
        return PGN_TERMINATION[termination]
    if termination == Termination.ARBITER_DECISION:
        return "adjudication"
    if termination in {t.value for t in Termination}:
        return "normal"
    for word, value in _DECLARED_WORDS:
        if word in termination:
            return value
    return "adjudication"  # the arbiter's own words, naming no other ending


ClockAfterPly = Mapping[int, int]
"""Ply -> the remaining time (ms) of the side that made that move, just after it."""
EvalAfterPly = Mapping[int, tuple[int | None, int | None] | tuple[int | None, int | None, str]]
"""Ply -> the evaluation (centipawns, mate) of the position after that move, White's view;
with the FEN it was made for, it is written only where the game's position at that ply is
that one (a correction of the moves leaves it out, never under another position)."""
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


UNKNOWN_VALUES = ("", "?", "-", "????.??.??")
"""Tag values that say nothing (the PGN standard's unknowns)."""
OWN_TAGS = frozenset({"Result", "Termination", "PlyCount", "Round", "Board", "White", "Black"})
"""Tags the engine's record decides, whatever the source file said."""


def _kept_tags(headers: chess.pgn.Headers, tags: Mapping[str, str] | None) -> None:
    """The tags the source file carried (``Site``, ``ECO``, ``Opening``, ``Annotator`` ...),
    written back where the engine knows nothing better: a tag the engine does not write,
    or writes as unknown (the Site of an event created from its games is ``?``; a date
    the file did not know stays ``????.??.??``)."""
    for name, value in (tags or {}).items():
        if name in OWN_TAGS or not value:
            continue
        if headers.get(name, "") in UNKNOWN_VALUES:
            headers[name] = value


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
    known_day = game.started_at_ms and game.date_known
    headers["Date"] = pgn_date(game.started_at_ms) if known_day else "????.??.??"
    headers["Round"] = round_no
    headers["White"] = white.name if white else game.white
    headers["Black"] = black.name if black else game.black
    headers["Result"] = nearest_pgn_result(game.result, game.scores)
    headers["Board"] = board_no
    _player_tags(headers, "White", white)
    _player_tags(headers, "Black", black)
    if tournament is not None and tournament.start_date:
        headers["EventDate"] = tournament.start_date.replace("-", ".")
    headers["TimeControl"] = game.time_control
    if game.termination and game.result != "*":
        headers["Termination"] = pgn_termination(game)
    headers["PlyCount"] = str(game.ply)
    _kept_tags(headers, game.tags)
    if opening is not None:  # the file's own ECO and Opening win over the table's
        headers.setdefault("ECO", opening[0])
        headers.setdefault("Opening", opening[1])
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
            found = evals[ply]
            if len(found) < 3 or same_position(str(found[-1]), node.board().fen()):
                node.set_eval(_pov_score(found[0], found[1]))
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return pgn.accept(exporter)


def same_position(fen: str, other: str) -> bool:
    """The same placement, side to move and castling rights (the move counters and the en
    passant square aside, which writers of FEN set differently)."""
    return fen.split(" ")[:3] == other.split(" ")[:3]


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
