"""The whole event as organisers publish it: one PGN with clock times, and a crosstable.

``event_pgn`` writes every game in round and board order with the Seven Tag
Roster plus ``Board``, ``WhiteElo``, ``BlackElo``, ``EventDate``,
``TimeControl``, ``Termination``, ``PlyCount``, and after every move the
mover's clock as broadcasts give it, ``{ [%clk h:mm:ss] }`` (the remaining
time after the move, time-control additions included; milliseconds when any), whenever the clock is
known for that move.

``crosstable`` is the double round-robin table: one row a player in the order
of the standings (points, then 3.7 a-c when the standings give it), each cell
the player's two results against that opponent, in the order played, then
points, wins and Sonneborn-Berger. Pure: the adapter supplies the games, the
clock values and the standings.

All durations are integer milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction

import chess
import chess.pgn

from engine.game import FINISHED, Game
from engine.tournament import Tournament
from projections.clock import clock_text
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
    if white is not None:
        headers["WhiteElo"] = _elo(white.rating)
    if black is not None:
        headers["BlackElo"] = _elo(black.rating)
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


# --- the crosstable ----------------------------------------------------------------

SCORE = {"1-0": (Fraction(1), Fraction(0)), "0-1": (Fraction(0), Fraction(1))}
HALF = Fraction(1, 2)


@dataclass(frozen=True)
class CrosstableRow:
    player: str
    name: str
    federation: str
    rating: float
    cells: dict[str, list[str]]
    """Opponent id -> this player's results against him, in the order played."""
    points: Fraction
    wins: int
    sb: Fraction


def points_of(result: str) -> tuple[Fraction, Fraction] | None:
    """(white, black) points of a finished result; None while unfinished (3.6.1)."""
    if result in SCORE:
        return SCORE[result]
    if result == "1/2-1/2":
        return HALF, HALF
    if result == "0-0":
        return Fraction(0), Fraction(0)
    return None


def crosstable(
    tournament: Tournament, games: Sequence[Game], order: Sequence[str] | None = None
) -> list[CrosstableRow]:
    """Rows in ``order`` (the standings' ranking) or by points; tournament games only."""
    played = sorted(
        (g for g in games if g.stage == "tournament" and g.status == FINISHED),
        key=lambda g: (g.round, g.board),
    )
    points = {p.id: Fraction(0) for p in tournament.players}
    wins = dict.fromkeys(points, 0)
    cells: dict[str, dict[str, list[str]]] = {p: {} for p in points}
    for g in played:
        scored = points_of(g.result)
        if scored is None or g.white not in points or g.black not in points:
            continue
        for player, opponent, score in (
            (g.white, g.black, scored[0]),
            (g.black, g.white, scored[1]),
        ):
            points[player] += score
            wins[player] += score == 1
            cells[player].setdefault(opponent, []).append(_cell(score))
    sb = dict.fromkeys(points, Fraction(0))
    for g in played:
        scored = points_of(g.result)
        if scored is None or g.white not in points or g.black not in points:
            continue
        sb[g.white] += scored[0] * points[g.black]
        sb[g.black] += scored[1] * points[g.white]
    ids = list(order) if order else sorted(points, key=lambda p: (-points[p], -wins[p], -sb[p]))
    ids += [p for p in points if p not in ids]
    by_id = {p.id: p for p in tournament.players}
    return [
        CrosstableRow(
            player=p,
            name=by_id[p].name,
            federation=by_id[p].federation,
            rating=by_id[p].rating,
            cells=cells[p],
            points=points[p],
            wins=wins[p],
            sb=sb[p],
        )
        for p in ids
        if p in by_id
    ]


def _cell(score: Fraction) -> str:
    return "1" if score == 1 else "½" if score == HALF else "0"


def points_text(value: Fraction) -> str:
    whole, rest = divmod(value, 1)
    if rest == 0:
        return str(int(whole))
    if rest == HALF:
        return f"{int(whole)}½" if whole else "½"
    return f"{float(value):.2f}"


def render_crosstable(
    tournament: Tournament,
    rows: Sequence[CrosstableRow],
    decided_by: str | None = None,
    updated_ms: int | None = None,
) -> str:
    """The table as organisers publish it (plain text, one line a player)."""
    width = max((len(r.name) for r in rows), default=10)
    cell_width = max(2 * tournament.cycles, 3)
    numbers = "".join(f"{n:^{cell_width + 1}}" for n in range(1, len(rows) + 1))
    title = tournament.name
    if updated_ms is not None:
        title += f" (as of {datetime.fromtimestamp(updated_ms / 1000, tz=UTC):%Y-%m-%d %H:%M} UTC)"
    lines = [
        title,
        "",
        f"{'#':>2}  {'Player':<{width}}  Fed  Rtg  {numbers} Pts  Wins  SB",
    ]
    for rank, row in enumerate(rows, start=1):
        cells = []
        for other in rows:
            text = (
                "*" * cell_width
                if other.player == row.player
                else "".join(row.cells.get(other.player, []))
            )
            cells.append(f"{text:^{cell_width + 1}}")
        totals = f"{points_text(row.points):>3}  {row.wins:>4}  {points_text(row.sb):>5}"
        lines.append(
            f"{rank:>2}  {row.name:<{width}}  {row.federation:<3} {_elo(row.rating):>4}  "
            f"{''.join(cells)} {totals}"
        )
    if decided_by:
        lines += ["", decided_by]
    return "\n".join(lines) + "\n"
