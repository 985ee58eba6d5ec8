"""The bundled sample: the whole 2013 Candidates, played live into a store, as a replay log.

``build_sample(store)`` plays the 56 real games of London 2013
(``replay_logs/sources/candidates-2013.pgn``) through the DGT board simulator
(``adapters.dgt.simulator``): each game's board sends the bytes of hands
moving pieces and of its clock, a ``BoardSession`` and a ``StoreSink`` turn
them into ``play_move`` and ``clock_reading`` commands as at the venue, and
the arbiters' commands (start, resignations, draw claims, advice, rulings,
the flag check and the arbiter's ruling on the flag it alerts to, Laws 2009
6.8) come in between, the four boards of a round interleaved by
instant as they would reach the engine live. What is real and what is
generated (the header of the log says the same):

- real: the players, their titles, FIDE ids and ratings (FIDE list of March 2013), the
  Site (London ENG), the Chief Arbiter (Werner Stubenvoll), the pairings
  (the Berger numbers of the real drawing of lots, the real order of the
  rounds and the boards as published: 3.2), every move, every result, the dates of the rounds (14:00
  London time);
- generated, deterministically from each game's id: every thinking time and
  so every clock reading (the real clock times were not published; a reading
  a minute while a player thinks and one at every lever press), the hands'
  choreography on the board, the way each game ended when the score sheet
  does not show it (a resignation, a flag fall for Ivanchuk's five losses on
  time, the draw claims the 2012 regulations require: 3.9.2 b), and the
  names of the Deputy Chief Arbiter and the Technical Advisor (their offices stand in).

Two of Ivanchuk's losses on time end, in the published score, with his
opponent on move (the score stops before the flag fell): there the Chief
Arbiter records the time forfeit with that reason, and the audit lists it as an
arbiter override, which it is in the record.

The same inputs give the same bytes: ``python replay_logs/build_sample.py``
rebuilds ``replay_logs/candidates-2013.msgpack``; the build stops with
``SampleError`` if any command is refused, a game ends otherwise than
recorded, or a clock runs out that did not.
"""

from __future__ import annotations

import heapq
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from adapters.cli.cmd_demo import SAMPLE_LOG
from adapters.dgt import protocol as dgt
from adapters.dgt.clocksides import ClockSides
from adapters.dgt.feed import StoreSink
from adapters.dgt.session import BoardSession
from adapters.dgt.simulator import BoardSimulator, _think_times_s
from adapters.formats.pgn_import import player_id, read_games
from adapters.formats.replay_log import export_log
from adapters.store import Store
from adapters.store.sqlite_files import remove_database
from engine.clock.regulation import Clock
from engine.clock.time_control import parse_time_control
from engine.game.state import IN_PROGRESS, position
from engine.rules import profile
from engine.side import Side
from engine.timefmt import format_instant
from engine.tournament.berger_inference import Inferred, infer_numbers

ROOT = Path(__file__).resolve().parents[1]
SOURCE_PGN = ROOT / "replay_logs" / "sources" / "candidates-2013.pgn"

TOURNAMENT = "london-2013"
FIELD = [  # id, name, federation, rating (FIDE, March 2013), FIDE id; every one a GM
    ("aronian", "Aronian, Levon", "ARM", 2809, "13300474"),
    ("gelfand", "Gelfand, Boris", "ISR", 2740, "2805677"),
    ("ivanchuk", "Ivanchuk, Vassily", "UKR", 2757, "14100010"),
    ("kramnik", "Kramnik, Vladimir", "RUS", 2810, "4101588"),
    ("svidler", "Svidler, Peter", "RUS", 2747, "4102142"),
    ("radjabov", "Radjabov, Teimour", "AZE", 2793, "13400924"),
    ("grischuk", "Grischuk, Alexander", "RUS", 2764, "4126025"),
    ("carlsen", "Carlsen, Magnus", "NOR", 2872, "1503014"),
]
PLAYERS_BY_ID = [
    {"id": i, "name": n, "title": "GM", "federation": f, "rating": r, "fide_id": x}
    for i, n, f, r, x in FIELD
]
"""The field with its titles, FIDE ids and FIDE ratings of March 2013; the pairing numbers
come from the games."""
ARBITERS = [
    {"id": "chief", "name": "Stubenvoll, Werner", "role": "chief"},
    {"id": "deputy", "name": "Deputy Chief Arbiter", "role": "deputy"},
    {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
]
"""The Chief Arbiter of London 2013, IA Werner Stubenvoll (AUT); the Deputy and the
Technical Advisor are named by their office only (their names are not in the sources)."""
START_DATE = "2013-03-13"
"""Day 1 of 3.2 (arrivals): the opening on 14 March, round 1 on 15 March 2013, as played."""
LOST_ON_TIME = "ivanchuk"
"""The public record: Ivanchuk lost five games on time (all five of his losses)."""

GENERATED = [
    "every thinking time, and so every clock reading and the instant of every move "
    "(real clock times were not published), and the hands' choreography on the DGT board "
    "simulator; deterministic from each game's id",
    "how each game ended when the score sheet does not show it: resignations, flag falls "
    "(Ivanchuk's five losses on time), the draw claims and rulings 3.9.2 b requires",
    "the names of the Deputy Chief Arbiter and the Technical Advisor (named by their office)",
]
NOTES = (
    "FIDE Candidates Tournament, London, 15 March - 1 April 2013, played under the 2012 "
    "regulations. Players, titles, FIDE ids, ratings, the Site, the Chief Arbiter, pairings, "
    "moves, results and round dates (round 1 on 15 March) are real "
    "(replay_logs/sources/candidates-2013.pgn); what is generated is listed under "
    "'generated'. Built by replay_logs/build_sample.py."
)

CONTROL = parse_time_control(profile("candidates-2012").time_control)
"""3.5.1: 120 min for 40 moves, 60 min for 20, then 15 min for the rest plus 30 s per
move from move 61: the engine's regulation clock (``engine.clock``) keeps every clock
of the sample."""
HANDS_MS = 4_000
"""What a move's choreography (pieces lifted and put down, the lever pressed) costs on
the clock at most, kept in hand by the generated thinking times."""
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
    """The PGN's Round tag (the engine's game id: the same, once the boards are renumbered
    as published)."""


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
            average = self.share[1] * CONTROL.period(0).time_ms(Side.WHITE) / max(1, 40 - self.book)
            think = rng.expovariate(1 / average)
        elif move_no <= 60:
            think = rng.expovariate(
                1 / (self.share[2] * CONTROL.period(1).time_ms(Side.WHITE) / 20)
            )
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
    round played, inferred from the games (``engine.tournament.berger_inference``)."""
    inferred = infer_numbers(
        sorted({g.white for g in games} | {g.black for g in games}),
        [(g.round, g.white, g.black) for g in games],
        cycles=2,
    )
    if inferred is None:
        raise SampleError("the source games are not a double round robin of the Berger table")
    return inferred


def published_boards(
    games: list[SourceGame], pairings: dict[str, tuple[str, str]]
) -> dict[str, tuple[int, ...]]:
    """Round -> the published board of each table board, for the rounds where they differ
    (the source's Round tags are ``<round>.<board>`` as published)."""
    published = {(g.round, g.white, g.black): int(g.game.split(".")[1]) for g in games}
    out: dict[str, tuple[int, ...]] = {}
    for round_no in sorted({g.round for g in games}):
        table = sorted(
            (int(gid.split(".")[1]), players)
            for gid, players in pairings.items()
            if gid.split(".")[0] == str(round_no)
        )
        order = tuple(published.get((round_no, *players), board) for board, players in table)
        if order != tuple(board for board, _ in table):
            out[str(round_no)] = order
    return out


def assign_game_ids(games: list[SourceGame], pairings: dict[str, tuple[str, str]]) -> None:
    """Each source game gets the engine's id of its pairing (the published board, once
    ``BoardsRenumbered`` is recorded); the PGN's Round tag is kept as ``source_id``."""
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


def planned_pgn(src: SourceGame, rng: random.Random, seed: int) -> chess.pgn.Game:
    """The game with a generated ``[%clk]`` after every move: the thinking times the
    DGT board simulator plays it with (3.5.1 periods; Ivanchuk, when he lost on time,
    spends nearly all he has on his last recorded move)."""
    clock = Clock.start(CONTROL, 0)
    now = 0
    plans = {side: ClockPlan(rng, (len(src.moves) + 1) // 2) for side in ("white", "black")}
    loser = {"1-0": "black", "0-1": "white"}.get(src.result)
    on_time = loser is not None and (src.white if loser == "white" else src.black) == LOST_ON_TIME
    # the simulator draws the first move of each side itself (a score's first [%clk]
    # has no earlier reading to subtract from): the same draws, to budget for them
    opening = _think_times_s(None, 2, random.Random(seed))
    pgn = chess.pgn.Game()
    node: chess.pgn.GameNode = pgn
    for index, move in enumerate(src.moves):
        side = "white" if index % 2 == 0 else "black"
        move_no = index // 2 + 1
        left = clock.remaining_ms(Side(side))
        if index < 2:
            think = round(opening[index] * 1000)
        else:
            # the hands and the lever press take a few seconds a move on the clock as well
            think = plans[side].think_ms(move_no, left - HANDS_MS * move_no)
            if on_time and side == loser and index >= len(src.moves) - 2:
                think = max(1000, left - rng.randint(120_000, 240_000))
        now += think
        clock = clock.complete_move(Side(side), now)
        node = node.add_variation(move)
        node.set_clock(clock.remaining_ms(Side(side)) / 1000)
    return pgn


def device_stream(sim: BoardSimulator) -> list[tuple[int, bytes]]:
    """The bytes the simulated board sends (ms from its start), with the clock's times
    kept by a clock in step with the simulated hands.

    The clock charges each move up to the instant the move stands complete on the
    board, the instant the engine records it (6.7 a; the DGT adapter's ``play_move``
    ``at``), and 3.5.1's periods and increments are credited then; the lever press
    that follows 0.3-0.8 s later is reported as it comes. So the generated readings
    agree with the regulation clock to the second (a real press delay would add a few
    hundred milliseconds a move, in either direction)."""
    codes = sim.initial_codes()
    out: list[tuple[int, bytes]] = [
        (0, dgt.encode_serial(sim.serial)),
        (0, dgt.encode_board_dump(codes)),
    ]
    black_side = "left" if sim.white_side == "right" else "right"
    colour_of = {sim.white_side: "white", black_side: "black"}
    clock: Clock | None = None
    board = chess.Board(sim.start_fen) if sim.start_fen else chess.Board()
    for step in sim.script():
        if step.kind == "field":
            codes[step.field] = step.code
            out.append((step.at_ms, dgt.encode_field_update(step.field, step.code)))
        elif step.kind == "settle":
            out.append((step.at_ms, dgt.encode_board_dump(codes)))
        elif step.kind == "ply" and clock is not None and clock.running is not None:
            clock = clock.complete_move(clock.running, step.at_ms)
            board.push(sim.moves[step.ply - 1])
            if board.is_game_over():
                clock = clock.stop(step.at_ms)
        elif step.kind == "clock":
            if clock is None and step.running is not None:
                clock = Clock.start(CONTROL, step.at_ms)  # the arbiter starts White's clock
            shown = {
                side: clock.remaining_ms(Side(side), step.at_ms)
                if clock is not None
                else CONTROL.initial_ms(Side(side))
                for side in ("white", "black")
            }
            # the display shows whole seconds: rounded to the nearest one here
            left = shown[colour_of["left"]] + 500
            right = shown[colour_of["right"]] + 500
            out.append((step.at_ms, dgt.encode_clock(left, right, step.running)))
    return out


@dataclass
class Board:
    """One game on one simulated DGT board, wired to the store as at the venue."""

    src: SourceGame
    number: int
    start_ms: int
    rng: random.Random
    session: BoardSession
    sink: StoreSink
    stream: list[tuple[int, bytes]]


def wire_board(store: Store, src: SourceGame, board_no: int) -> Board:
    rng = random.Random(f"candidates-2013/{src.game}")
    start = src.start_ms + board_no * rng.randint(2_000, 9_000)
    seed = zlib.crc32(src.game.encode())
    sim = BoardSimulator.from_pgn(
        planned_pgn(src, rng, seed),
        serial=f"1300{board_no}",
        seed=seed,
        real_time=True,
        clock_tick_ms=READING_EVERY_MS,
        start_delay_ms=0,
    )
    # the arbiters set every clock up the same way, and the adapter is told which side
    # is White's (docs/dgt.md: configured, rather than inferred from the first presses)
    session = BoardSession(clock_sides=ClockSides.of(sim.white_side))
    # no command ids in the sample: a replay log records play, not transport retries
    sink = StoreSink(store, src.game, session, label=f"board {board_no}", command_ids=False)
    stream = [(start + at, data) for at, data in device_stream(sim)]
    return Board(src, board_no, start, rng, session, sink, stream)


def ending(store: Store, board: Board, now_ms: int) -> list[tuple[int, dict[str, Any]]]:
    """How the game ends once its last recorded move is on the board, decided from the
    store's own state (position, regulation clock) at ``now_ms``."""
    src, rng = board.src, board.rng
    game = store.reads.game(src.game)
    if game is None or game.ply != len(src.moves):
        raise SampleError(
            f"game {src.game}: the board's moves did not all reach the store "
            f"({game.ply if game else 0} of {len(src.moves)}): {list(board.sink.refusals)[:1]}"
        )
    if game.status != IN_PROGRESS:
        return []  # ended by the position itself (5.1, 5.2)
    position_now = position(game)
    to_move = "white" if position_now.turn == chess.WHITE else "black"
    clock = game.clock
    left = clock.remaining_ms(Side(to_move), now_ms) if clock is not None else 3_600_000
    loser = {"1-0": "black", "0-1": "white"}.get(src.result)
    on_time = loser is not None and (src.white if loser == "white" else src.black) == LOST_ON_TIME
    if on_time and loser == to_move and clock is not None:
        falls = clock.flag_falls_at_ms() or now_ms
        # the arbiters' server looks at the flags every second and alerts the desk; the
        # flag is fallen when the arbiter observes it (Laws 2009 6.8), then 6.9
        at = max(falls, now_ms) + rng.randint(500, 1_000)
        seen = at + rng.randint(3_000, 15_000)
        return [
            (at, {"cmd": "check_flags", "game": src.game, "by": "server"}),
            (
                seen,
                {
                    "cmd": "rule_flag",
                    "game": src.game,
                    "side": to_move,
                    "arbiter": "chief",
                    "decision": "fallen",
                    "reason": "the flag fell on the clock at the board",
                },
            ),
        ]
    if on_time:
        return [
            (
                now_ms + within(rng.randint(20_000, 90_000), left),
                {
                    "cmd": "declare_result",
                    "game": src.game,
                    "result": src.result,
                    "termination": "time_forfeit",
                    "reason": f"{loser} lost on time; the published score stops before "
                    "the flag fell",
                    "arbiter": "chief",
                },
            )
        ]
    if loser is not None:
        return [
            (
                now_ms + within(rng.randint(5_000, 120_000), left),
                {"cmd": "resign", "game": src.game, "by": loser},
            )
        ]
    return draw_commands(src, position_now, now_ms, rng, to_move, left)


def within(delay_ms: int, remaining_ms: int) -> int:
    """A pause while the side on move's clock runs, short enough not to flag him (6.9)."""
    return max(200, min(delay_ms, remaining_ms // 2))


def draw_commands(
    src: SourceGame,
    board: chess.Board,
    now: int,
    rng: random.Random,
    side: str,
    remaining_ms: int,
) -> list[tuple[int, dict[str, Any]]]:
    """3.9.2 b: no draw by agreement; the player on move claims, the arbiter rules."""
    kind, intended = draw_claim(board)
    at = now + within(rng.randint(10_000, 60_000), remaining_ms)
    claimant = src.white if side == "white" else src.black
    claim: dict[str, Any] = {"cmd": "claim_draw", "game": src.game, "by": claimant, "kind": kind}
    if intended is not None:
        claim["intended_move"] = intended
    out: list[tuple[int, dict[str, Any]]] = [(at, claim)]
    if kind == "theoretical_draw":
        at += rng.randint(30_000, 120_000)
        out.append(
            (
                at,
                {
                    "cmd": "advise_claim",
                    "game": src.game,
                    "claim": "1",
                    "opinion": "draw",
                    "advisor": "advisor",
                },
            )
        )
    ruling = {
        "cmd": "rule_claim",
        "game": src.game,
        "claim": "1",
        "decision": "accepted",
        "arbiter": "chief",
    }
    out.append((at + rng.randint(10_000, 60_000), ruling))
    return out


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
        apply(
            store,
            draw_at,
            {
                "cmd": "reorder_rounds",
                "tournament": TOURNAMENT,
                "order": list(lots.round_order),
                "reason": "the playing schedule of London 2013 (3.2): rounds 6 and 7 of "
                "the table were played the other way round",
                "by": "chief",
            },
        )
    tournament = store.reads.tournament()
    assert tournament is not None
    boards = published_boards(games, tournament.pairings())
    if boards:
        # 3.2: the boards as London 2013 published them (the PGN's Round tags), so that
        # the sample's 2.1 is the official 2.1, as import-pgn of the same file gives it
        apply(
            store,
            draw_at,
            {
                "cmd": "renumber_boards",
                "tournament": TOURNAMENT,
                "boards": {r: list(order) for r, order in boards.items()},
                "reason": "the boards of each round as London 2013 published them",
                "by": "chief",
            },
        )
        tournament = store.reads.tournament()
        assert tournament is not None
    assign_game_ids(games, tournament.pairings())
    for _, round_games in rounds(games):
        play_round(store, round_games)
        store.seal()
        check_results(store, round_games)
    return store.cache.count()


def play_round(store: Store, round_games: list[SourceGame]) -> None:
    """The round's boards and commands, interleaved by instant as they reach the engine."""
    queue: list[tuple[int, int, str, int, Any]] = []
    order = 0
    boards = [wire_board(store, g, int(g.game.split(".")[1])) for g in round_games]

    def push(at_ms: int, kind: str, index: int, payload: Any) -> None:
        nonlocal order
        order += 1
        heapq.heappush(queue, (at_ms, order, kind, index, payload))

    for index, board in enumerate(boards):
        start = {
            "cmd": "start_game",
            "game": board.src.game,
            "white": board.src.white,
            "black": board.src.black,
            "by": "chief",
        }
        push(board.start_ms, "command", index, start)
        for at_ms, data in board.stream:
            push(at_ms, "bytes", index, data)
        push(board.stream[-1][0] + 5_000, "finish", index, None)
    while queue:
        at_ms, _, kind, index, payload = heapq.heappop(queue)
        board = boards[index]
        if kind == "command":
            apply(store, at_ms, payload)
            continue
        session = board.session
        if kind == "bytes":
            session.receive_data(payload, at_ms)
            session.poll(at_ms)
        else:
            session.poll(at_ms)
            session.finish(at_ms)
        board.sink.deliver(session.observations())
        if kind == "finish":
            for when, command in ending(store, board, at_ms):
                push(when, "command", index, command)


def check_results(store: Store, round_games: list[SourceGame]) -> None:
    """Every game ended as recorded; only Ivanchuk's losses on time (a generated clock
    never runs out by accident)."""
    for game in round_games:
        state = store.reads.game(game.game)
        lost_on_time = LOST_ON_TIME in (game.white, game.black) and game.result == (
            "1-0" if game.black == LOST_ON_TIME else "0-1"
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


def _create() -> dict[str, Any]:
    return {
        "cmd": "create_tournament",
        "tournament": TOURNAMENT,
        "name": "FIDE Candidates Tournament 2013",
        "rules": "candidates-2012",
        "start_date": START_DATE,
        "cycles": 2,
        "site": "London ENG",
        "city": "London",
        "country": "ENG",
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
        remove_database(path)
        with Store(str(path)) as store:
            build_sample(store)
            return export_log(store, target, notes=NOTES, generated=GENERATED)
