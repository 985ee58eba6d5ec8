"""A DGT board and clock, simulated: the byte stream of a game being played.

``BoardSimulator.script()`` plans what hands and a clock do over time for a game, as
a real board would report it (field changes a scan apart, transients, knocks,
misreads, a dropped link, the lever and the 3.5.1 regulation clock), so that the
adapters are tested on the board's own mess. The script is rendered to bytes
(``raw_stream``) or served live on a pseudo-terminal or a TCP port
(``adapters.dgt.simulated_links``); ``time_scale`` plays it faster. The choreography
is in docs/dgt.md, section 9."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import chess
import chess.pgn

from adapters.dgt import protocol as p
from adapters.dgt.board_codes import PIECE_CODES
from engine.clock.regulation import Clock
from engine.clock.time_control import CLASSICAL_3_5_1, parse_time_control
from engine.side import Side

CONTROL = parse_time_control(CLASSICAL_3_5_1)
"""The clock the simulated games run (3.5.1), from the engine."""
Change = Callable[[float, chess.Square, chess.Piece | None], None]
Settle = Callable[[float], None]


@dataclass(frozen=True)
class Noise:
    transients: bool = True
    knocks: float = 0.0
    """Probability, per ply, of a knocked piece put back."""
    long_knock: float = 0.3
    """Share of knocks that stand long enough for an impossible-position alert."""
    drop_at_ply: int | None = None
    drop_ms: int = 1500
    result_signal: bool = False
    """After the last move, put the kings on the centre squares for the game's result."""
    misread_at_ply: int | None = None
    """1-based ply from which the first move with an intermediate legal square is held there."""
    misread_hold_ms: int = 4000
    held: float = 0.0
    """Probability, per ply, that the mover's hand holds a piece on its way (see
    ``HELD_KINDS``): the piece hovers over the board, is put down a moment on a wrong
    square, a captured piece is held while the capturing one is thought over, a
    promotion's new piece is fetched."""


HELD_KINDS = ("hover", "misplaced", "captured_held", "fetch")
"""What a hand holding a piece does: ``hover`` (lifted, held over the board, then put
down; castling: the king held), ``misplaced`` (put down on an empty square next to
its own for a moment, then moved on), ``captured_held`` (the captured man taken off
first and held before the capturing piece is lifted), ``fetch`` (a promotion: the
pawn is off the board while the new piece is found)."""


@dataclass(frozen=True)
class Step:
    """One thing that happens at ``at_ms``: a field change, a clock reading, a settle
    point (where a host would ask for a dump), the link going down / up; and, for
    whoever measures an adapter, what really happened: a move completed (``ply``), a
    knocked piece left lying until ``until_ms`` (``knocked``: the board genuinely
    shows an impossible position meanwhile, no hand on it)."""

    at_ms: int
    kind: str  # field | clock | settle | drop | restore | ply | knocked
    field: int = 0
    code: int = 0
    left_ms: int = 0
    right_ms: int = 0
    running: str | None = None
    ply: int = 0
    until_ms: int = 0


def _think_times_s(game: chess.pgn.Game | None, plies: int, rng: random.Random) -> list[float]:
    """Seconds used on each ply: from [%clk] when the game has them, else generated."""
    clocks: list[float | None] = []
    if game is not None:
        clocks = [node.clock() for node in game.mainline()]
    out: list[float] = []
    for ply in range(plies):
        if ply < len(clocks) and clocks[ply] is not None and ply >= 2:
            before = clocks[ply - 2]
            now = clocks[ply]
            if before is not None and now is not None:
                number = ply // 2 + 1
                increment_s = CONTROL.period(CONTROL.period_of_move(number)).increment_ms / 1000
                out.append(max(1.0, before - now + increment_s))
                continue
        out.append(rng.choice((2, 5, 15, 40, 90, 180, 400)) * rng.uniform(0.6, 1.4))
    return out


def _intermediate(board: chess.Board, move: chess.Move) -> chess.Square | None:
    """A square on the way of a quiet pawn double push or slide that is itself a legal
    destination (a hand pausing there shows a legal move), else None."""
    if board.is_capture(move) or board.is_castling(move) or move.promotion:
        return None
    piece = board.piece_type_at(move.from_square)
    if piece not in (chess.PAWN, chess.BISHOP, chess.ROOK, chess.QUEEN):
        return None
    for square in chess.SquareSet.between(move.from_square, move.to_square):
        if chess.Move(move.from_square, square) in board.legal_moves:
            return square
    return None


def _captured_square(board: chess.Board, move: chess.Move) -> chess.Square | None:
    """Where the man ``move`` captures stands (en passant: beside the capturing pawn)."""
    if board.is_en_passant(move):
        return chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
    return move.to_square if board.piece_at(move.to_square) is not None else None


def _castling_rook(move: chess.Move) -> tuple[chess.Square, chess.Square]:
    """The rook's squares (from, to) of a castling king's ``move``."""
    rank = chess.square_rank(move.to_square)
    kingside = chess.square_file(move.to_square) == 6
    return chess.square(7 if kingside else 0, rank), chess.square(5 if kingside else 3, rank)


def _clock_at_rate(steps: list[Step], every_ms: int) -> list[Step]:
    """The same script with a clock that speaks only every ``every_ms``: each message
    shows the clock as it last was (presses are seen at the next message)."""
    clocks = [s for s in steps if s.kind == "clock"]
    others = [s for s in steps if s.kind != "clock"]
    if not clocks:
        return steps
    end = max(s.at_ms for s in steps) + every_ms
    out: list[Step] = []
    i = 0
    latest = clocks[0]
    at = clocks[0].at_ms
    while at <= end:
        while i < len(clocks) and clocks[i].at_ms <= at:
            latest = clocks[i]
            i += 1
        out.append(replace(latest, at_ms=at))
        at += every_ms
    merged = others + out
    merged.sort(key=lambda s: s.at_ms)
    return merged


@dataclass
class BoardSimulator:
    moves: Sequence[chess.Move]
    start_fen: str | None = None
    game: chess.pgn.Game | None = None
    serial: str = "31337"
    version: tuple[int, int] = (1, 7)
    white_side: str = "right"
    """Where White's clock stands (``left``/``right``): the protocol knows only sides."""
    rotated: bool = False
    """White sits on the far side: every field is reported as 63 - field."""
    noise: Noise = field(default_factory=Noise)
    seed: int = 2013
    time_scale: float = 1.0
    think_ms: int = 700
    """Wall time between a lever press and the next move's first lift (at scale 1):
    a whole game takes minutes while the clock shows the game's thinking times."""
    real_time: bool = False
    """Think for as long as the clock says (a game takes hours, clock and wall agree)."""
    clock_tick_ms: int = 1000
    clock_every_ms: int | None = None
    """A clock that speaks only every this many ms (None: on every press and tick)."""
    start_delay_ms: int = 500

    @classmethod
    def from_pgn(cls, game: chess.pgn.Game, **kwargs: object) -> BoardSimulator:
        fen = game.headers.get("FEN")
        return cls(
            moves=list(game.mainline_moves()),
            start_fen=fen,
            game=game,
            **kwargs,  # type: ignore[arg-type]
        )

    # --- the plan -------------------------------------------------------------

    def field_of(self, square: chess.Square) -> int:
        return (square ^ 7) if self.rotated else (square ^ 56)

    def initial_codes(self) -> list[int]:
        board = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        codes = [0] * 64
        for square, piece in board.piece_map().items():
            codes[self.field_of(square)] = PIECE_CODES[piece.symbol()]
        return codes

    def misread_ply(self) -> int | None:
        """The 1-based ply the misread of ``noise.misread_at_ply`` falls on (None: none)."""
        first = self.noise.misread_at_ply
        if first is None:
            return None
        board = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        for ply, move in enumerate(self.moves, start=1):
            if ply >= first and _intermediate(board, move) is not None:
                return ply
            board.push(move)
        return None

    def script(self) -> list[Step]:
        rng = random.Random(self.seed)
        scale = self.time_scale
        board = chess.Board(self.start_fen) if self.start_fen else chess.Board()
        steps: list[Step] = []
        t = float(self.start_delay_ms)
        thinks = _think_times_s(self.game, len(self.moves), rng)
        # The regulation clock, in game milliseconds from the start; White's clock starts at t.
        game_ms = 0
        clock = Clock.start(CONTROL, 0)
        misread = self.misread_ply()

        def side_of(colour: chess.Color) -> str:
            white = self.white_side
            return white if colour == chess.WHITE else ("left" if white == "right" else "right")

        def clock_step(at: float, running: chess.Color | None, shown: Clock, when_ms: int) -> None:
            white_ms = shown.remaining_ms(Side.WHITE, when_ms)
            black_ms = shown.remaining_ms(Side.BLACK, when_ms)
            white_left = self.white_side == "left"
            left, right = (white_ms, black_ms) if white_left else (black_ms, white_ms)
            steps.append(
                Step(
                    round(at * scale),
                    "clock",
                    left_ms=left,
                    right_ms=right,
                    running=None if running is None else side_of(running),
                )
            )

        def change(at: float, square: chess.Square, piece: chess.Piece | None) -> None:
            code = PIECE_CODES[piece.symbol()] if piece else 0
            steps.append(Step(round(at * scale), "field", field=self.field_of(square), code=code))

        def settle(at: float) -> None:
            steps.append(Step(round(at * scale), "settle"))

        def knocked(at: float, until: float) -> None:
            steps.append(Step(round(at * scale), "knocked", until_ms=round(until * scale)))

        clock_step(t, chess.WHITE, clock, game_ms)
        for ply, move in enumerate(self.moves):
            mover = board.turn
            side = "white" if mover == chess.WHITE else "black"
            # Thinking: the clock ticks; maybe a knock.
            think_game_ms = round(thinks[ply] * 1000)
            think_wall = (
                float(think_game_ms) if self.real_time else self.think_ms * rng.uniform(0.6, 1.4)
            )
            ticks = max(1, int(think_wall // self.clock_tick_ms))
            for i in range(ticks):
                part = think_game_ms // (ticks + 1)
                clock_step(
                    t + (i + 1) * think_wall / (ticks + 1), mover, clock, game_ms + (i + 1) * part
                )
            if self.noise.knocks and rng.random() < self.noise.knocks:
                t = self._knock(board, rng, t, change, settle, knocked)
            if self.noise.drop_at_ply == ply:
                steps.append(Step(round(t * scale), "drop"))
                steps.append(Step(round((t + self.noise.drop_ms) * scale), "restore"))
            t += think_wall
            t = self._move(board, move, rng, t, change, settle, misread == ply + 1)
            board.push(move)
            steps.append(Step(round(t * scale), "ply", ply=ply + 1))
            settle(t + 1)
            # The lever press: the mover's clock stops (the move completed, 6.7 a), the
            # opponent's runs; the engine's clock credits periods and increments.
            t += rng.uniform(300, 800)
            game_ms += think_game_ms
            clock = clock.complete_move(Side(side), game_ms)
            if board.is_game_over():
                clock = clock.stop(game_ms)
                clock_step(t, None, clock, game_ms)
            else:
                clock_step(t, board.turn, clock, game_ms)
        if self.noise.result_signal and self.game is not None:
            t = self._signal(
                board, self.game.headers.get("Result", "*"), rng, t + 1000, change, settle
            )
        steps.sort(key=lambda s: s.at_ms)
        if self.clock_every_ms is not None:
            steps = _clock_at_rate(steps, self.clock_every_ms)
        return steps

    def _lift_order_capture(self, rng: random.Random) -> bool:
        return rng.random() < 0.5

    def _move(
        self,
        board: chess.Board,
        move: chess.Move,
        rng: random.Random,
        t: float,
        change: Change,
        settle: Settle,
        misread: bool = False,
    ) -> float:
        def gap() -> float:
            return rng.uniform(60, 200)

        def hold() -> float:  # longer than any debounce
            return rng.uniform(700, 1000)

        piece = board.piece_at(move.from_square)
        assert piece is not None
        middle = _intermediate(board, move) if misread else None
        if middle is not None:
            # The piece stands on a square on its way, long enough to be taken for the move.
            change(t, move.from_square, None)
            t += gap()
            change(t, middle, piece)
            settle(t + 1)
            t += self.noise.misread_hold_ms
            change(t, middle, None)
            t += gap()
            change(t, move.to_square, piece)
            return t
        if self.noise.held and rng.random() < self.noise.held:
            return self._held(board, move, rng, t, change)
        if board.is_castling(move):
            king_to = move.to_square
            rook_from, rook_to = _castling_rook(move)
            rook = board.piece_at(rook_from)
            if rng.random() < 0.5:
                # Rook first; with transients, it stands on f1/d1 a while (a legal rook move).
                change(t, rook_from, None)
                t += gap()
                change(t, rook_to, rook)
                if self.noise.transients:
                    settle(t + 1)
                    t += hold()
                else:
                    t += gap()
                change(t, move.from_square, None)
                t += gap()
                change(t, king_to, piece)
            else:
                change(t, move.from_square, None)
                t += gap()
                if self.noise.transients:
                    change(t, rook_to, piece)  # the king slides over f1/d1
                    t += gap()
                    change(t, rook_to, None)
                    t += gap()
                change(t, king_to, piece)
                t += gap()
                change(t, rook_from, None)
                t += gap()
                change(t, rook_to, rook)
            return t
        captured_square = _captured_square(board, move)
        captured_first = captured_square is not None and self._lift_order_capture(rng)
        if captured_first and captured_square is not None:
            change(t, captured_square, None)
            t += gap()
        change(t, move.from_square, None)
        t += gap()
        if self.noise.transients and piece.piece_type in (chess.BISHOP, chess.ROOK, chess.QUEEN):
            path = list(chess.SquareSet.between(move.from_square, move.to_square))
            if move.to_square < move.from_square:
                path.reverse()
            for square in path[:3]:
                change(t, square, piece)
                t += gap() / 2
                change(t, square, None)
                t += gap() / 2
        if (
            self.noise.transients
            and piece.piece_type == chess.PAWN
            and abs(move.to_square - move.from_square) == 16
        ):
            middle = (move.to_square + move.from_square) // 2
            change(t, middle, piece)
            if rng.random() < 0.5:
                settle(t + 1)
                t += hold()
            else:
                t += gap()
            change(t, middle, None)
            t += gap() / 2
        if captured_square == move.to_square and not captured_first:
            change(t, captured_square, None)
            t += gap()
        if move.promotion:
            change(t, move.to_square, chess.Piece(move.promotion, piece.color))
        else:
            change(t, move.to_square, piece)
        if captured_square is not None and not captured_first and captured_square != move.to_square:
            t += gap()
            change(t, captured_square, None)  # en passant: the captured pawn taken last
        return t

    def _held(
        self, board: chess.Board, move: chess.Move, rng: random.Random, t: float, change: Change
    ) -> float:
        """``move`` made by a hand that holds a piece on the way (one of ``HELD_KINDS``).

        Human timings: a piece hovers for a log-normal time (median 1.2 s, one in ten
        over 3.3 s, at most 12 s); a piece put down on a wrong square stays there
        0.25-1.2 s, as long as it takes to see it and slide it on; a new queen is found
        in 1.5-6 s."""

        def gap() -> float:
            return rng.uniform(60, 200)

        def hover() -> float:
            return min(12_000.0, max(300.0, rng.lognormvariate(math.log(1200), 0.8)))

        piece = board.piece_at(move.from_square)
        assert piece is not None
        if board.is_castling(move):
            # The king lifted and held, then put down, then the rook carried over it.
            rook_from, rook_to = _castling_rook(move)
            change(t, move.from_square, None)
            t += hover()
            change(t, move.to_square, piece)
            t += gap()
            change(t, rook_from, None)
            t += gap()
            change(t, rook_to, board.piece_at(rook_from))
            return t
        captured = _captured_square(board, move)
        kinds = ["hover", "misplaced"] + (["captured_held"] if captured is not None else [])
        kind = "fetch" if move.promotion else rng.choice(kinds)
        landed = chess.Piece(move.promotion, piece.color) if move.promotion else piece
        if kind == "captured_held" and captured is not None:
            change(t, captured, None)
            t += hover()
            captured = None
        change(t, move.from_square, None)
        t += gap()
        if kind == "hover":
            t += hover()
        elif kind == "fetch":
            t += rng.uniform(1500, 6000)
        elif kind == "misplaced":
            wrong = [
                sq
                for sq in chess.SquareSet(chess.BB_KING_ATTACKS[move.to_square])
                if board.piece_at(sq) is None and sq != captured
            ]
            if wrong:
                square = rng.choice(wrong)
                change(t, square, piece)
                t += rng.uniform(250, 1200)
                change(t, square, None)
                t += gap()
        if captured is not None:
            change(t, captured, None)
            t += gap()
        change(t, move.to_square, landed)
        return t

    def _knock(
        self,
        board: chess.Board,
        rng: random.Random,
        t: float,
        change: Change,
        settle: Settle,
        knocked: Callable[[float, float], None],
    ) -> float:
        """A piece of the player NOT on move knocked to an empty neighbour, put back."""
        victims = [
            sq
            for sq, pc in board.piece_map().items()
            if pc.color != board.turn and pc.piece_type != chess.KING
        ]
        rng.shuffle(victims)
        for square in victims:
            targets = [
                n
                for n in chess.SquareSet(chess.BB_KING_ATTACKS[square])
                if board.piece_at(n) is None
            ]
            if not targets:
                continue
            target = rng.choice(targets)
            piece = board.piece_at(square)
            change(t, square, None)
            t += rng.uniform(30, 90)
            change(t, target, piece)
            stand = (
                rng.uniform(2500, 3500)
                if rng.random() < self.noise.long_knock
                else rng.uniform(400, 900)
            )
            settle(t + 1)
            knocked(t, t + stand)
            t += stand
            change(t, target, None)
            t += rng.uniform(100, 250)
            change(t, square, piece)
            settle(t + 1)
            return t + rng.uniform(200, 400)
        return t

    def _signal(
        self,
        board: chess.Board,
        result: str,
        rng: random.Random,
        t: float,
        change: Change,
        settle: Settle,
    ) -> float:
        squares = {"1-0": (chess.D5, chess.E4), "0-1": (chess.D4, chess.E5)}.get(
            result, (chess.D4, chess.E4)
        )
        occupied = dict(board.piece_map())
        for colour, target in zip((chess.WHITE, chess.BLACK), squares, strict=True):
            king = board.king(colour)
            assert king is not None
            if occupied.get(target) is not None and target != king:
                change(t, target, None)
                t += rng.uniform(60, 200)
            change(t, king, None)
            t += rng.uniform(60, 200)
            change(t, target, chess.Piece(chess.KING, colour))
            occupied.pop(king, None)
            occupied[target] = chess.Piece(chess.KING, colour)
            t += rng.uniform(60, 200)
        settle(t + 1)
        return t

    # --- byte streams -----------------------------------------------------------

    def raw_stream(self, *, dumps: bool = True, drops: bool = False) -> list[tuple[int, bytes]]:
        """(at_ms, bytes) the host receives: field updates, clock messages and, at
        each settle point, the dump a host asks for (``dumps``). The first dump (the
        start position) comes first. With ``drops`` the bytes sent while the link is
        down are lost."""
        codes = self.initial_codes()
        out: list[tuple[int, bytes]] = [
            (0, p.encode_serial(self.serial)),
            (0, p.encode_board_dump(codes)),
        ]
        down = False
        for step in self.script():
            if step.kind == "drop" and drops:
                down = True
            elif step.kind == "restore" and drops:
                down = False
                out.append((step.at_ms, p.encode_board_dump(codes)))
            elif step.kind == "field":
                codes[step.field] = step.code
                if not down:
                    out.append((step.at_ms, p.encode_field_update(step.field, step.code)))
            elif step.kind == "clock" and not down:
                out.append((step.at_ms, p.encode_clock(step.left_ms, step.right_ms, step.running)))
            elif step.kind == "settle" and dumps and not down:
                out.append((step.at_ms, p.encode_board_dump(codes)))
        return out

    def clock_timed_stream(self) -> list[tuple[int, bytes]]:
        """The board's bytes (no dumps) as a capture whose only time source is the
        clock: every chunk carries the instant of the last clock message before it,
        so what happened between two messages arrives at one instant."""
        out: list[tuple[int, bytes]] = []
        now = 0
        for at_ms, data in self.raw_stream(dumps=False):
            if data and data[0] == p.MSG_BWTIME:
                now = at_ms
            if out and out[-1][0] == now:
                out[-1] = (now, out[-1][1] + data)
            else:
                out.append((now, data))
        return out

    def raw_bytes(self, **kwargs: bool) -> bytes:
        return b"".join(data for _, data in self.raw_stream(**kwargs))


def load_game(pgn_path: str | Path, index: int = 0, round_: str | None = None) -> chess.pgn.Game:
    """The ``index``-th game of a PGN file, or the one whose Round tag is ``round_``."""
    with open(pgn_path, encoding="utf-8") as handle:
        i = 0
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            if (round_ is not None and game.headers.get("Round") == round_) or (
                round_ is None and i == index
            ):
                return game
            i += 1
    raise LookupError(f"no game {round_ or index} in {pgn_path}")
