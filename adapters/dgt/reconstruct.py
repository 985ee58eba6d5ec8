"""Moves from board placements: the reconstruction rules, in one place and in order.

A DGT board reports where pieces stand, never moves, turns or rights, so the
reconstructor keeps the game (a python-chess ``Board``) and compares each settled
placement, after the placements that passed before it, with those the game can
reach: a result signal, no change, one legal move, a correction of a provisional
move, two plies at once, a new game, a wrongly confirmed move, a takeback, else an
impossible position for the arbiter. Moves stay provisional until there is evidence
they are complete (the lever, the next move, quiet time); only confirmed moves go to
the store. The rules, orientation and confirmation are in docs/dgt.md, section 4;
the rules' parts stand beside this module (``game_line``, ``placements``, ``lines``,
``result_signals``, ``recovery``, ``board_alerts``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from adapters.dgt.board_alerts import (
    impossible_position,
    new_game,
    position_restored,
    result_signalled,
)
from adapters.dgt.board_codes import rotate_placement
from adapters.dgt.game_line import GameLine
from adapters.dgt.lines import lines_to, two_plies
from adapters.dgt.observations import Observation
from adapters.dgt.placements import START_KEY, changed_squares, placement_text_key, puts_down
from adapters.dgt.recovery import Ambiguous, Recovery, extended, find_recovery, line_recovered
from adapters.dgt.result_signals import before_signal, result_signal
from engine.position_keys import PlacementKey as Key


@dataclass
class MoveReconstructor(GameLine):
    """Keeps the game (``GameLine``) and turns settled placements into observations."""

    start_fen: str | None = None
    moves: Sequence[str] = ()
    orientation: str = "auto"
    """``normal``, ``rotated`` or ``auto`` (latched per game)."""
    alert_after_ms: int = 2000
    """How long an impossible placement must stand before it is reported (0: at once)."""
    confirm_ms: int = 1500
    """Quiet time after which a provisional move is confirmed (at least; see ``quiet_ms``)."""
    timing_resolution_ms: int = 0
    """How finely the input's instants are known (the caller's estimate: the interval of
    the clock's messages when they are the only time source); quiet must outlast it."""
    untimed: bool = False
    """The input has no instants (a plain byte capture): a settled impossible position is
    reported at once, and only order, the lever and the end of input confirm."""
    recover_plies: int = 2
    """Rule 7: how many confirmed plies back a wrongly confirmed move is looked for (0: off)."""
    search_depth: int = 2
    reconcile_depth: int = 4
    """After a reconnection: plies searched for a placement several moves ahead."""
    reconcile_nodes: int = 5_000
    rotated: bool | None = field(init=False, default=None)
    _unknown: str | None = field(init=False, default=None)
    _unknown_since_ms: int = field(init=False, default=0)
    _unknown_alerted: bool = field(init=False, default=False)
    _unknown_settled: bool = field(init=False, default=False)
    _unknown_puts_down: bool = field(init=False, default=False)
    """The unexplained placement shows a piece where the game has none (or another one):
    it can stand by itself. Otherwise it only lacks pieces: a hand holds them."""
    _unknown_ended: bool = field(init=False, default=False)
    """The input ended on the unexplained placement: it stands, whatever it lacks."""
    _alert_open: bool = field(init=False, default=False)
    """An impossible-position alert went out and the board has not matched since."""
    _signalled: str | None = field(init=False, default=None)
    _last_settled: str | None = field(init=False, default=None)
    _reconciling: bool = field(init=False, default=False)
    _candidates: list[list[str]] = field(init=False, default_factory=list)
    _pending: Recovery | None = field(init=False, default=None)
    """A recovery (rule 7) waiting for evidence."""

    def __post_init__(self) -> None:
        self.resume(self.start_fen, self.moves)
        if self.orientation == "normal":
            self.rotated = False
        elif self.orientation == "rotated":
            self.rotated = True
        elif self.orientation != "auto":
            raise ValueError(
                f"orientation must be normal, rotated or auto, not {self.orientation!r}"
            )

    def resume(self, start_fen: str | None, moves: Sequence[str]) -> None:
        """Follow a game from its position after ``moves`` (the store's record, when a
        board is attached to a game already under way); settings are kept."""
        self.start_fen = start_fen
        self.moves = tuple(moves)
        self.start_line(start_fen, self.moves)
        self._unknown = None
        self._unknown_alerted = False
        self._last_settled = None
        self._pending = None
        self._alert_open = False

    # --- reading ------------------------------------------------------------

    def oriented(self, raw: str) -> str:
        """The raw (normal-reading) placement as the game sees it."""
        return rotate_placement(raw) if self.rotated else raw

    @property
    def matches_game(self) -> bool:
        """Does the last placement read follow from the game (no unexplained placement)?"""
        return self._unknown is None

    @property
    def quiet_ms(self) -> int:
        """Quiet time, as the input's instants show it, that confirms a provisional move.

        Instants known only to ``timing_resolution_ms`` (a capture timed by its clock:
        everything between two messages carries the first one's instant) can make
        quiet look up to one resolution longer than it was. Quiet proves a move
        complete only when ``confirm_ms`` of it is certain: ``confirm_ms`` plus the
        resolution, whatever the clock's rate."""
        return self.confirm_ms + max(0, self.timing_resolution_ms)

    @property
    def alert_ms(self) -> int:
        """How long, as the instants show it, an impossible placement must stand before
        it is reported: ``alert_after_ms`` certain, i.e. plus the time resolution (as
        for ``quiet_ms``)."""
        return self.alert_after_ms + max(0, self.timing_resolution_ms)

    @property
    def _unknown_stands(self) -> bool:
        """Is the unexplained placement one that can stand by itself, i.e. not a hand
        holding pieces? A placement that only lacks pieces of the game's position has
        them in a hand (a piece hovering, a captured man held, a promotion's piece being
        fetched): the game goes on from it, it never stands as a position by time."""
        return self._unknown is not None and (self._unknown_puts_down or self._unknown_ended)

    def next_deadline_ms(self) -> int | None:
        """When ``tick`` next has work: an impossible-position alert, a quiet confirmation."""
        deadlines = []
        if self._unknown_stands and self._unknown_settled and not self._unknown_alerted:
            deadlines.append(self._unknown_since_ms + (0 if self.untimed else self.alert_ms))
        if self.provisional_from is not None and self._unknown is None and not self.untimed:
            deadlines.append(self._last_change_ms + self.quiet_ms)
        return min(deadlines) if deadlines else None

    def board_changed(self, at_ms: int) -> None:
        """A square changed on the board (before it settles): quiet starts again."""
        self._last_change_ms = max(self._last_change_ms, at_ms)

    # --- the rules ----------------------------------------------------------

    def settle(
        self, raw: str, at_ms: int, passing: Sequence[tuple[str, int]] = ()
    ) -> list[Observation]:
        """A settled placement (the board held it: debounce, full dump, lever press,
        end of input), read in normal orientation (field 0 = a8).

        ``passing``: the placements the board showed since the last settled one,
        in order, with their instants. Order comes first: unless the settled
        placement is explained at once (one legal move, or a correction of the
        provisional move), the passing placements are read in
        order first (each one that follows from the game by rules 2-5 is taken,
        any other is a moment of a hand's movement and waits), then the settled
        one. So a capture timed only by a slow clock, where several plies arrive
        at one instant, is read move by move.
        """
        out: list[Observation] = []
        if passing and result_signal(raw) is not None:
            passing = before_signal(passing, raw, self.placement)
        if passing and not self._explained_at_once(raw, passing):
            for placement, when_ms in passing:
                if placement != raw:
                    out.extend(self._observe(placement, when_ms, settled=False))
        # The settled placement stands since the change that made it, not since the
        # debounce ended (a dump without changes: since it was read).
        since_ms = passing[-1][1] if passing and passing[-1][0] == raw else at_ms
        out.extend(self._observe(raw, at_ms, settled=True, since_ms=since_ms))
        return out

    def _explained_at_once(self, raw: str, passing: Sequence[tuple[str, int]]) -> bool:
        """Rules 3-4 on the settled placement, without changing anything, when what
        passed cannot tell another story: every passing placement that puts a piece
        down is a move (rules 3-4) of the same piece (a slide, a pawn crossing a
        square). Anything else on the way is order that counts (two rooks
        shuffling, a repetition, a pawn crossing c3 to c4 before an en passant
        capture on c3)."""
        readings = [self.rotated] if self.rotated is not None else [False, True]
        moves = {**self._sibling_map(), **self._successor_map()}
        for rotated in readings:
            key = placement_text_key(rotate_placement(raw) if rotated else raw)
            final = moves.get(key)
            if final is None:
                continue
            current = self._placements[-1]
            for placement, _ in passing:
                seen = placement_text_key(rotate_placement(placement) if rotated else placement)
                if seen == key or not puts_down(current, seen):
                    continue  # the final placement, or a hand in the air
                move = moves.get(seen)
                if move is None or move.from_square != final.from_square:
                    return False
            return True
        return False

    def _observe(
        self, raw: str, at_ms: int, *, settled: bool, since_ms: int | None = None
    ) -> list[Observation]:
        out: list[Observation] = []
        if raw == self._last_settled and (self._unknown is None or not settled):
            return out
        self._last_settled = raw
        if settled:
            signal = result_signal(raw)
            if signal is not None:
                if self._signalled != signal:
                    self._signalled = signal
                    how = "kings on the centre squares"
                    out.append(result_signalled(signal, how, self.ply, at_ms))
                return out
            self._signalled = None
        readings = (
            [self.rotated] if self.rotated is not None else [False, True]
        )  # auto: normal reading first
        keys = {False: placement_text_key(raw)}

        def key(rotated: bool) -> Key:
            if rotated not in keys:
                keys[rotated] = placement_text_key(rotate_placement(raw))
            return keys[rotated]

        for rotated in readings:
            found = self._match(key(rotated), at_ms, settled=settled)
            if found is not None:
                if self.rotated is None:
                    self.rotated = rotated
                out.extend(found)
                self._restored(out, at_ms)
                return out
        placement = self.oriented(raw)
        if not settled and START_KEY not in (key(False), key(True)):
            # A moment of a hand's movement: wait for what follows (a recovery waits too).
            # (The start array set up is never a moment: a new game, even in passing.)
            for rotated in readings:
                found = self._recover(key(rotated), at_ms, settled=False)
                if found is not None:
                    out.extend(found)
                    self._restored(out, at_ms)
                    return out
            self._unknown = placement
            self._unknown_settled = False
            self._unknown_alerted = False
            return out
        # A start array in either orientation is a new game.
        for rotated in (False, True):
            if key(rotated) == START_KEY:
                self._new_game(rotated)
                self._restored(out, at_ms)
                out.append(new_game(rotated, at_ms))
                return out
        for rotated in readings:
            found = self._recover(key(rotated), at_ms, settled=True)
            if found is not None:
                out.extend(found)
                self._restored(out, at_ms)
                return out
        if self._pending is None:
            for rotated in readings:
                found = self._takeback_or_redo(key(rotated), at_ms)
                if found is not None:
                    if self.rotated is None:
                        self.rotated = rotated
                    out.extend(found)
                    self._restored(out, at_ms)
                    return out
        if self._unknown != placement or not self._unknown_settled:
            self._unknown_since_ms = at_ms if since_ms is None else min(since_ms, at_ms)
            self._unknown = placement
            self._unknown_settled = True
            self._unknown_alerted = False
            self._unknown_ended = False
            self._unknown_puts_down = puts_down(self._placements[-1], placement_text_key(placement))
        out.extend(self.tick(at_ms))
        return out

    def tick(self, now_ms: int) -> list[Observation]:
        """Time passes: report a standing impossible position, confirm a quiet move."""
        out: list[Observation] = []
        if (
            self._pending is not None
            and self._unknown is not None
            and self._unknown_settled
            and placement_text_key(self._unknown) == self._pending.placement
            and (self.untimed or now_ms - self._unknown_since_ms >= self.alert_ms)
        ):
            out.extend(self._take_pending(now_ms))
        if self.untimed or now_ms - self._unknown_since_ms >= self.alert_ms:
            out.extend(self._impossible(now_ms))
        if (
            self.provisional_from is not None
            and self._unknown is None
            and not self.untimed
            and now_ms - self._last_change_ms >= self.quiet_ms
        ):
            out.extend(self._confirm(now_ms, "quiet"))
        return out

    def _impossible(self, at_ms: int) -> list[Observation]:
        """The alert for an unexplained placement that stands (once per placement)."""
        if (
            self._unknown is None
            or not self._unknown_stands
            or not self._unknown_settled
            or self._unknown_alerted
        ):
            return []
        self._unknown_alerted = True
        self._alert_open = True
        candidates = self._candidates
        return [impossible_position(self.placement, self._unknown, self.ply, candidates, at_ms)]

    def confirm(self, at_ms: int, reason: str = "clock") -> list[Observation]:
        """The caller knows the move is complete (the mover pressed the clock)."""
        out = self._take_pending(at_ms)
        if self._unknown is not None:
            return out
        out += self._confirm(at_ms, reason)
        if reason == "clock":
            # The press completed the move (Laws 6.7 a): what the board shows later is
            # no misreading of it.
            self._pressed_ply = self.ply
        return out

    def link_restored(self) -> None:
        """The link was down: the next placements may be several plies ahead (rule 5b)."""
        self._reconciling = True

    def finish(self, at_ms: int) -> list[Observation]:
        """End of input: whatever is provisional is as final as it will get, and what
        the board shows stands (pieces still off the board stay off)."""
        self._unknown_ended = True
        out = self._take_pending(at_ms)
        out += self._impossible(at_ms)
        return out + self._confirm(at_ms, "end_of_input")

    # --- internals ----------------------------------------------------------

    def _restored(self, out: list[Observation], at_ms: int) -> None:
        self._reconciling = False
        self._candidates = []
        self._pending = None
        if self._alert_open:
            self._alert_open = False
            out.append(position_restored(self.ply, at_ms))
        self._unknown = None
        self._unknown_alerted = False
        self._unknown_settled = False

    def magic_piece(self, result: str, at_ms: int) -> list[Observation]:
        """A result ("magic") piece was put on the board."""
        if self._signalled == result:
            return []
        self._signalled = result
        return [result_signalled(result, "result piece", self.ply, at_ms)]

    def _match(
        self, placement: Key, at_ms: int, *, settled: bool = True
    ) -> list[Observation] | None:
        """Rules 2-5; None when they do not apply. An empty list: nothing happened.

        A passing placement that only lacks pieces is a hand in the air: rules 5
        and 5b (several plies at once) are not tried on it (an exchange on one
        square, two pieces lifted, would look like one)."""
        if placement == self._placements[-1]:
            return []
        move = self._successor_map().get(placement)
        if move is not None:
            return self._play([move], at_ms)
        corrected = self._correction(placement, at_ms)
        if corrected is not None:
            return corrected
        extended = self._extend_pending(placement, at_ms)
        if extended is not None:
            return extended
        if not puts_down(self._placements[-1], placement) and not (settled and self._reconciling):
            # Pieces in a hand (an exchange on one square, read as two plies, looks the
            # same): only the dump after a reconnection shows moves made meanwhile.
            return None
        if self._pending is not None and not puts_down(self._pending.placement, placement):
            return None  # a hand in the air over the board a recovery waits on
        if self.search_depth >= 2:
            pair = two_plies(self.board, placement)
            if pair is not None:
                return self._play(pair, at_ms)
        if self._reconciling and self.reconcile_depth > 2:
            # Shortest lines first, as for rules 3 and 5: two plies explained by four (a
            # piece's detour) are still two plies.
            lines = lines_to(
                self.board.copy(),
                placement,
                range(3, self.reconcile_depth + 1),
                changed=changed_squares(self._placements[-1], placement),
                max_nodes=self.reconcile_nodes,
            )
            if len(lines) == 1:
                return self._play(lines[0], at_ms)
            if lines:
                self._candidates = [[m.uci() for m in line] for line in lines]
        return None

    def _recover(self, placement: Key, at_ms: int, *, settled: bool) -> list[Observation] | None:
        """Rule 7 (``adapters.dgt.recovery``) as a wait: without timing a settled
        placement (a dump, the lever, the end) takes the recovery at once; otherwise it
        waits (a knocked piece is put back, a capture is under way, a hand goes on) for
        the next move after it, the lever press, ``alert_ms`` of standing or the end of
        the input."""
        found = find_recovery(
            self.board,
            self._placements,
            placement,
            recover_plies=self.recover_plies,
            pressed_ply=self._pressed_ply,
            max_nodes=self.reconcile_nodes,
        )
        if isinstance(found, Ambiguous):
            self._candidates = found.lines
            return None
        if found is None:
            return None
        if settled and self.untimed:
            return self._rewrite(found, at_ms)
        self._pending = found
        return None

    def _extend_pending(self, placement: Key, at_ms: int) -> list[Observation] | None:
        """The board went on from a waiting recovery: one more move after its line."""
        if self._pending is None:
            return None
        longer = extended(self._pending, self.board, placement)
        return self._rewrite(longer, at_ms) if longer is not None else None

    def _take_pending(self, at_ms: int) -> list[Observation]:
        """A waiting recovery that stood, or was ended by the lever or the input's end."""
        if self._pending is None or self._unknown is None:
            return []
        out = self._rewrite(self._pending, at_ms)
        self._restored(out, at_ms)
        return out

    def _rewrite(self, recovery: Recovery, at_ms: int) -> list[Observation]:
        """Take back the plies the recovery replaces and play its line instead."""
        recovered = line_recovered(self.board, recovery, at_ms)
        while self.ply >= recovered.from_ply:
            self._pop()
        out: list[Observation] = [recovered]
        # Whatever is still provisional before the corrected ply: the board went on.
        out.extend(self._confirm(at_ms, "next_move"))
        for i, move in enumerate(recovery.line):
            out.append(self._push(move, at_ms))
            if i < len(recovery.line) - 1:
                out.extend(self._confirm(at_ms, "next_move"))
        self._redo.clear()
        return out

    def _new_game(self, rotated: bool) -> None:
        self.start_over()
        if self.orientation == "auto":
            self.rotated = rotated
