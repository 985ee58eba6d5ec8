"""The bundled sample: the whole 2013 Candidates, played live into a store, as a replay log.

``build_sample(store)`` plays the 56 real games of London 2013
(``replay_logs/sources/candidates-2013.pgn``) through the engine's own
commands, round by round, the four boards of a round interleaved by the
instant of each command as they would reach the engine live. What is real and
what is generated (the header of the log says the same):

- real: the players, their ratings (FIDE list of March 2013), the pairings
  (the Berger numbers of the real drawing of lots), every move, every result,
  the dates of the rounds (14:00 London time);
- generated, deterministically from each game's id: the instant of every move
  and so every clock reading (the real clock times were not published), the
  way each game ended when the score sheet does not show it (a resignation, a
  flag fall for Ivanchuk's five losses on time, the draw claims the 2012
  regulations require: 3.9.2 b), and the arbiters' names.

Two of Ivanchuk's losses on time end, in the published score, with his
opponent on move (the score stops before the flag fell): there the Chief
Arbiter records the time forfeit with that reason, and the audit lists it as an
arbiter override, which it is in the record.

The same inputs give the same bytes: ``python replay_logs/build_sample.py``
rebuilds ``replay_logs/candidates-2013.msgpack``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from adapters.pgn_import import player_id, read_games
from adapters.replay_log import export_log
from adapters.store import Store
from engine.berger_inference import Inferred, infer_numbers
from engine.commands import SPECS
from engine.events import TOURNAMENT_STREAM, RoundsReordered
from engine.timefmt import format_instant

ROOT = Path(__file__).resolve().parents[1]
SOURCE_PGN = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"
SAMPLE_LOG = ROOT / "replay_logs" / "candidates-2013.msgpack"

TOURNAMENT = "london-2013"
PLAYERS_BY_ID = [
    {"id": "aronian", "name": "Aronian, Levon", "federation": "ARM", "rating": 2809},
    {"id": "gelfand", "name": "Gelfand, Boris", "federation": "ISR", "rating": 2740},
    {"id": "ivanchuk", "name": "Ivanchuk, Vassily", "federation": "UKR", "rating": 2757},
    {"id": "kramnik", "name": "Kramnik, Vladimir", "federation": "RUS", "rating": 2810},
    {"id": "svidler", "name": "Svidler, Peter", "federation": "RUS", "rating": 2747},
    {"id": "radjabov", "name": "Radjabov, Teimour", "federation": "AZE", "rating": 2793},
    {"id": "grischuk", "name": "Grischuk, Alexander", "federation": "RUS", "rating": 2764},
    {"id": "carlsen", "name": "Carlsen, Magnus", "federation": "NOR", "rating": 2872},
]
"""The field with its FIDE ratings of March 2013; the pairing numbers come from the games."""
ARBITERS = [
    {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
    {"id": "deputy", "name": "Deputy Chief Arbiter", "role": "deputy"},
    {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
]
LOST_ON_TIME = "ivanchuk"
"""The public record: Ivanchuk lost five games on time (all five of his losses)."""

GENERATED = [
    "the instant of every move, and so every clock reading (real clock times were not "
    "published); deterministic from each game's id",
    "how each game ended when the score sheet does not show it: resignations, flag falls "
    "(Ivanchuk's five losses on time), the draw claims and rulings 3.9.2 b requires",
    "the arbiters' names",
]
NOTES = (
    "FIDE Candidates Tournament, London, 15 March - 1 April 2013, played under the 2012 "
    "regulations. Players, ratings, pairings, moves, results and round dates are real "
    "(replay_logs/sources/candidates-2013.pgn); what is generated is listed under "
    "'generated'. Built by replay_logs/build_sample.py."
)

PERIODS = ((40, 7_200_000), (20, 3_600_000), (None, 900_000))
"""3.5.1: 120 min for 40 moves, 60 min for 20, then 15 min for the rest..."""
INCREMENT_FROM_MOVE = 61
INCREMENT_MS = 30_000
"""... plus 30 s per move starting from move 61."""
READING_EVERY_MS = 60_000
"""A clock reading while a player thinks (the DGT clock reports every second; the
sample keeps one a minute, and one at every move, to stay small)."""


def round_start_ms(date_tag: str) -> int:
    """14:00 London time on the PGN date: GMT until 31 March 2013, then BST."""
    day = datetime.strptime(date_tag, "%Y.%m.%d").replace(tzinfo=UTC)
    hour = 13 if day >= datetime(2013, 3, 31, tzinfo=UTC) else 14
    return int(day.replace(hour=hour).timestamp() * 1000)


class SampleError(Exception):
    """The sources and the engine disagree (a refused command, a pairing that differs)."""


@dataclass
class SourceGame:
    game: str
    round: int
    white: str
    black: str
    result: str
    moves: list[chess.Move]
    start_ms: int
    source_id: str = ""
    """The PGN's Round tag (the engine's game id follows the table's boards)."""


def source_games(path: Path = SOURCE_PGN) -> list[SourceGame]:
    out: list[SourceGame] = []
    with open(path, encoding="utf-8") as handle:
        for pgn in read_games(handle):
            h = pgn.headers
            out.append(
                SourceGame(
                    game=h["Round"],
                    round=int(h["Round"].split(".")[0]),
                    white=player_id(h["White"]),
                    black=player_id(h["Black"]),
                    result=h["Result"],
                    moves=list(pgn.mainline_moves()),
                    start_ms=round_start_ms(h["Date"]),
                )
            )
    return out


@dataclass
class Timeline:
    """One game's commands, each at its instant."""

    game: str
    commands: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    order: int = 0

    def add(self, at_ms: int, cmd: dict[str, Any]) -> None:
        self.order += 1
        self.commands.append((at_ms, self.order, {**cmd, "at": format_instant(at_ms)}))


class ClockPlan:
    """Think times that use a plausible share of each period of 3.5.1."""

    def __init__(self, rng: random.Random, moves_per_side: int) -> None:
        self.rng = rng
        self.book = rng.randint(6, 14)
        self.share = {1: rng.uniform(0.55, 0.95), 2: rng.uniform(0.4, 0.9)}
        self.reserve_ms = rng.randint(20_000, 240_000)
        """What the player keeps in hand for the moves left before the control."""
        self.moves = moves_per_side

    def think_ms(self, move_no: int, remaining_ms: int) -> int:
        rng = self.rng
        if move_no <= self.book:
            think = rng.uniform(2, 45) * 1000
        elif move_no <= 40:
            average = self.share[1] * 7_200_000 / max(1, 40 - self.book)
            think = rng.expovariate(1 / average)
        elif move_no <= 60:
            think = rng.expovariate(1 / (self.share[2] * 3_600_000 / 20))
        else:
            think = rng.uniform(10, 55) * 1000
        # never let the flag fall by accident: spread what is left over the moves
        # still to make before the control, keeping the reserve
        to_control = 41 - move_no if move_no <= 40 else 61 - move_no if move_no <= 60 else 1
        spare = max(0, remaining_ms - self.reserve_ms * min(1, to_control - 1))
        cap = spare / to_control * (3 if to_control > 1 else 0.5)
        return max(500, min(int(think), int(cap), remaining_ms - 1_000))


def drawing_of_lots(games: list[SourceGame]) -> Inferred:
    """The Berger numbers of the real drawing of lots (3.4.1) and the table round each
    round played, inferred from the games (``engine.berger_inference``)."""
    inferred = infer_numbers(
        sorted({g.white for g in games} | {g.black for g in games}),
        [(g.round, g.white, g.black) for g in games],
        cycles=2,
    )
    if inferred is None:
        raise SampleError("the source games are not a double round robin of the Berger table")
    return inferred


def assign_game_ids(games: list[SourceGame], pairings: dict[str, tuple[str, str]]) -> None:
    """Each source game gets the engine's id of its pairing (the published board order
    of a round is not the table's); the PGN's Round tag is kept as ``source_id``."""
    by_players = {
        (int(game_id.split(".")[0]), white, black): game_id
        for game_id, (white, black) in pairings.items()
    }
    for game in games:
        game_id = by_players.get((game.round, game.white, game.black))
        if game_id is None:
            raise SampleError(
                f"game {game.game} ({game.white} - {game.black}) is not paired in round "
                f"{game.round}"
            )
        game.source_id, game.game = game.game, game_id


def supports(command: str, field_name: str | None = None) -> bool:
    spec = SPECS.get(command)
    if spec is None:
        return False
    return field_name is None or field_name in spec or f"{field_name}?" in spec


def game_timeline(src: SourceGame, board_no: int) -> Timeline:
    rng = random.Random(f"candidates-2013/{src.game}")
    line = Timeline(src.game)
    start = src.start_ms + board_no * rng.randint(2_000, 9_000)
    line.add(
        start,
        {
            "cmd": "start_game",
            "game": src.game,
            "white": src.white,
            "black": src.black,
            "by": "chief",
        },
    )
    remaining = {"white": PERIODS[0][1], "black": PERIODS[0][1]}
    plans = {side: ClockPlan(rng, (len(src.moves) + 1) // 2) for side in ("white", "black")}
    loser = {"1-0": "black", "0-1": "white"}.get(src.result)
    on_time = loser is not None and (src.white if loser == "white" else src.black) == LOST_ON_TIME
    with_readings = supports("clock_reading")
    clocks_on_moves = supports("play_move", "white_ms")
    board = chess.Board()
    now = start
    for index, move in enumerate(src.moves):
        side = "white" if index % 2 == 0 else "black"
        move_no = index // 2 + 1
        think = plans[side].think_ms(move_no, remaining[side])
        last_of_loser = on_time and side == loser and index >= len(src.moves) - 2
        if last_of_loser:
            # the loser on time spends nearly all he has before his last recorded move
            think = max(1000, remaining[side] - rng.randint(2_000, 15_000))
        if with_readings:
            for elapsed in range(READING_EVERY_MS, think, READING_EVERY_MS):
                reading = dict(remaining)
                reading[side] -= elapsed
                line.add(now + elapsed, _reading(src.game, reading, side))
        now += think
        remaining[side] -= think
        if move_no == 40:
            remaining[side] += PERIODS[1][1]
        elif move_no == 60:
            remaining[side] += PERIODS[2][1]
        if move_no >= INCREMENT_FROM_MOVE:
            remaining[side] += INCREMENT_MS
        cmd: dict[str, Any] = {"cmd": "play_move", "game": src.game, "move": move.uci()}
        if clocks_on_moves:
            cmd.update(white_ms=remaining["white"], black_ms=remaining["black"])
        cmd["by"] = f"dgt:{2013_000 + src.round * 10 + board_no}"
        line.add(now, cmd)
        board.push(move)
    _ending(line, src, board, now, remaining, rng, loser, on_time)
    return line


def _reading(game: str, remaining: dict[str, int], running: str | None) -> dict[str, Any]:
    return {
        "cmd": "clock_reading",
        "game": game,
        "white_ms": max(0, remaining["white"]),
        "black_ms": max(0, remaining["black"]),
        "running": running,
        "by": "dgt",
    }


def _ending(
    line: Timeline,
    src: SourceGame,
    board: chess.Board,
    now: int,
    remaining: dict[str, int],
    rng: random.Random,
    loser: str | None,
    on_time: bool,
) -> None:
    if board.is_checkmate() or board.is_stalemate() or board.is_insufficient_material():
        return  # the engine ends the game by the position itself (5.1, 5.2)
    to_move = "white" if board.turn == chess.WHITE else "black"
    if loser is not None and on_time and loser == to_move:
        flag_at = now + remaining[loser]
        if supports("check_flags"):
            # the clock shows 0:00; the engine records the flag fall from the reading (6.9)
            reading = dict(remaining)
            reading[loser] = 0
            line.add(flag_at + rng.randint(200, 1_000), _reading(src.game, reading, loser))
            return
        line.add(
            flag_at + 1000,
            {
                "cmd": "declare_result",
                "game": src.game,
                "result": src.result,
                "termination": "time_forfeit",
                "reason": f"{loser}'s flag fell (Laws 6.9)",
                "arbiter": "chief",
            },
        )
        return
    if loser is not None and on_time:
        line.add(
            now + rng.randint(20_000, 90_000),
            {
                "cmd": "declare_result",
                "game": src.game,
                "result": src.result,
                "termination": "time_forfeit",
                "reason": f"{loser} lost on time; the published score stops before the flag fell",
                "arbiter": "chief",
            },
        )
        return
    if loser is not None:
        line.add(
            now + within(rng.randint(5_000, 120_000), remaining[to_move]),
            {"cmd": "resign", "game": src.game, "by": loser},
        )
        return
    _draw(line, src, board, now, rng, to_move, remaining[to_move])


def within(delay_ms: int, remaining_ms: int) -> int:
    """A pause while the side on move's clock runs, short enough not to flag him (6.9)."""
    return max(200, min(delay_ms, remaining_ms // 2))


def _draw(
    line: Timeline,
    src: SourceGame,
    board: chess.Board,
    now: int,
    rng: random.Random,
    side: str,
    remaining_ms: int,
) -> None:
    """3.9.2 b: no draw by agreement; the player on move claims, the arbiter rules."""
    kind, intended = draw_claim(board)
    at = now + within(rng.randint(10_000, 60_000), remaining_ms)
    if supports("claim_draw") and supports("rule_claim"):
        claimant = src.white if side == "white" else src.black
        claim: dict[str, Any] = {
            "cmd": "claim_draw",
            "game": src.game,
            "by": claimant,
            "kind": kind,
        }
        if intended is not None:
            claim["intended_move"] = intended
        line.add(at, claim)
        if kind == "theoretical_draw" and supports("advise_claim"):
            at += rng.randint(30_000, 120_000)
            line.add(
                at,
                {
                    "cmd": "advise_claim",
                    "game": src.game,
                    "claim": "1",
                    "opinion": "draw",
                    "advisor": "advisor",
                },
            )
        line.add(
            at + rng.randint(10_000, 60_000),
            {
                "cmd": "rule_claim",
                "game": src.game,
                "claim": "1",
                "decision": "accepted",
                "arbiter": "chief",
            },
        )
        return
    line.add(
        at,
        {
            "cmd": "declare_result",
            "game": src.game,
            "result": "1/2-1/2",
            "termination": kind,
            "reason": f"{side} claimed a draw ({kind}); the Chief Arbiter accepted it",
            "arbiter": "chief",
        },
    )


def draw_claim(board: chess.Board) -> tuple[str, str | None]:
    """The claim the player on move can make (Laws 9.2, 9.3), with the move he writes
    down when the draw comes only with it; else a theoretical draw (3.9.2 b)."""
    if board.is_repetition(3):
        return "threefold_repetition", None
    if board.is_fifty_moves():
        return "fifty_moves", None
    for move in board.legal_moves:
        board.push(move)
        try:
            if board.is_repetition(3):
                return "threefold_repetition", move.uci()
            if board.is_fifty_moves():
                return "fifty_moves", move.uci()
        finally:
            board.pop()
    return "theoretical_draw", None


def rounds(games: list[SourceGame]) -> Iterator[tuple[int, list[SourceGame]]]:
    for round_no in sorted({g.round for g in games}):
        yield round_no, sorted((g for g in games if g.round == round_no), key=lambda g: g.game)


def build_sample(store: Store, source: Path = SOURCE_PGN) -> int:
    """Play the whole event into an empty store; return the number of stored events."""
    games = source_games(source)
    first = min(g.start_ms for g in games)
    apply(store, first - 86_400_000, _create())
    lots = drawing_of_lots(games)
    draw_at = first - 86_400_000 + 3_600_000
    apply(
        store,
        draw_at,
        {"cmd": "draw_lots", "tournament": TOURNAMENT, "numbers": lots.numbers, "by": "chief"},
    )
    if lots.round_order != tuple(range(1, len(lots.round_order) + 1)):
        # 3.2: London 2013 played the table's rounds 6 and 7 the other way round
        tournament = store.tournament()
        assert tournament is not None
        store.append(
            [
                RoundsReordered(
                    originator_id=TOURNAMENT_STREAM,
                    originator_version=tournament.version + 1,
                    at_ms=draw_at,
                    by="chief",
                    order=lots.round_order,
                    reason="the playing schedule of London 2013 (3.2): rounds 6 and 7 of "
                    "the table were played the other way round",
                )
            ]
        )
    tournament = store.tournament()
    assert tournament is not None
    assign_game_ids(games, tournament.pairings())
    for _, round_games in rounds(games):
        lines = [game_timeline(g, int(g.game.split(".")[1])) for g in round_games]
        merged = sorted(
            (
                (at, index, order, cmd)
                for index, line in enumerate(lines)
                for at, order, cmd in line.commands
            ),
        )
        for _, _, _, cmd in merged:
            apply(store, None, cmd)
        store.seal()
        for game in round_games:
            state = store.game(game.game)
            lost_on_time = LOST_ON_TIME in (game.white, game.black) and game.result in (
                "1-0" if game.black == LOST_ON_TIME else "0-1",
            )
            if state is not None and (state.termination == "time_forfeit") != lost_on_time:
                raise SampleError(
                    f"game {game.game} ended {state.termination}: only Ivanchuk's losses "
                    "were on time (a generated clock ran out)"
                )
            if state is None or state.result != game.result:
                raise SampleError(
                    f"game {game.game} ({game.source_id or game.game} of the source) ended "
                    f"{state.result if state else 'unplayed'}, the record says {game.result}"
                )
    return store.count()


def _create() -> dict[str, Any]:
    return {
        "cmd": "create_tournament",
        "tournament": TOURNAMENT,
        "name": "FIDE Candidates Tournament 2013",
        "rules": "candidates-2012",
        "start_date": "2013-03-14",
        "cycles": 2,
        "players": PLAYERS_BY_ID,
        "arbiters": ARBITERS,
        "by": "organiser",
    }


def apply(store: Store, at_ms: int | None, cmd: dict[str, Any]) -> None:
    if at_ms is not None:
        cmd = {**cmd, "at": format_instant(at_ms)}
    answer = store.handle(cmd)
    if not answer["ok"]:
        raise SampleError(f"the engine refused {cmd}: {answer['error']}")


def write_sample(target: Path = SAMPLE_LOG, work: Path | None = None) -> int:
    """Build the sample in a fresh SQLite store and export it to ``target``."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="candidates-sample-") as tmp:
        path = Path(work or tmp) / "sample.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        with Store(str(path)) as store:
            build_sample(store)
            return export_log(store, target, notes=NOTES, generated=GENERATED)
