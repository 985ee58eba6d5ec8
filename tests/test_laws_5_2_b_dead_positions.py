"""Laws 2009 5.2 b: a dead position, "neither player can checkmate the opponent's king with
any series of legal moves", beyond insufficient material: the engine's search, the
arbiter's declaration with its evidence, the audit and the arbiter's report.

The positions are those of real endings: a pawn chain locked across the board with the
kings behind it; the same chain with one pawn that can still break through; bishops of
one colour, shut in by their own pawns or free to take one.
"""

from __future__ import annotations

from typing import Any

import chess
import pytest

from adapters.audit import INFO, RULE, audit_store
from adapters.store import Store
from adapters.store.chain import event_fields
from adapters.store.queries import game_object, report_object
from engine.audit.games import judge_games
from engine.events import MovePlayed, ResultRecorded
from engine.game import dead_position
from engine.game.dead_position import Verdict, search
from engine.side import Side
from tests.game_log import GameLog
from tests.helpers import T0_MS, at, ok, paired_tournament, play, refused

LOCKED = "6k1/8/2p1p1p1/1pPpPpPp/pP1P1P1P/P7/8/6K1 w - - 0 50"
"""Sixteen pawns locked across the board, white on the dark squares, black on the light:
no pawn can move or take, and neither king can cross the chain to reach one. Dead."""

BREAK = "6k1/8/2p1p1p1/1pPpPpPp/pP1P1P2/P6P/8/6K1 w - - 0 50"
"""The same chain, White's h-pawn one square back: ...h4 and Kxh4 open the h-file, and the
h-pawn runs to promote. Not dead."""

SHUT_IN = "7b/3k2p1/4p1Pp/3pPp1P/2pP1P2/1pP5/1P6/B5K1 w - - 0 50"
"""Bishops of one colour (the dark squares), each shut in by its own pawn (Ba1 by b2, Bh8
by g7), the pawns locked, the kings kept apart by the chain. Dead."""

BISHOPS_FREE = "5bk1/8/2p1p1p1/1pPpPpPp/pP1P1P1P/P7/3B4/6K1 w - - 0 50"
"""The locked chain with dark-squared bishops: Black's bishop can take a white pawn (on the
dark squares), which unlocks the chain. Not dead."""


def mates(fen: str, line: tuple[str, ...]) -> chess.Board:
    """The position after ``line`` from ``fen``, each move read as SAN (so legal)."""
    board = chess.Board(fen)
    for san in line:
        board.push_san(san)
    return board


class TestTheSearch:
    def test_5_2_b_kings_and_a_fully_locked_pawn_chain_are_dead(self) -> None:
        found = search(chess.Board(LOCKED))
        assert found.verdict == Verdict.DEAD
        assert 1 < found.positions < found.budget
        assert found.mating_line == () and found.mating_side is None

    def test_5_2_b_the_same_chain_with_a_pawn_break_is_not_dead_and_the_line_mates(
        self,
    ) -> None:
        found = search(chess.Board(BREAK))
        assert found.verdict == Verdict.NOT_DEAD
        end = mates(BREAK, found.mating_line)
        assert end.is_checkmate()
        assert found.mating_side == Side.to_move(not end.turn)
        assert "=Q" in " ".join(found.mating_line)  # the break, then the promotion
        assert found.describe().startswith(f"{found.mating_side} can checkmate")
        assert "50. " in found.describe()  # numbered from the game's own move

    def test_5_2_b_bishops_of_one_colour_shut_in_by_their_own_pawns_are_dead(self) -> None:
        found = search(chess.Board(SHUT_IN))
        assert found.verdict == Verdict.DEAD

    def test_5_2_b_bishops_of_one_colour_that_can_take_a_pawn_are_not_dead(self) -> None:
        found = search(chess.Board(BISHOPS_FREE))
        assert found.verdict == Verdict.NOT_DEAD
        assert mates(BISHOPS_FREE, found.mating_line).is_checkmate()

    def test_5_2_b_insufficient_material_is_dead_without_a_search(self) -> None:
        found = search(chess.Board("8/8/3bk3/8/8/2B5/4K3/8 w - - 0 70"))  # K+B v K+B, one colour
        assert (found.verdict, found.positions) == (Verdict.DEAD, 1)

    def test_5_2_b_the_budget_spent_first_is_unproven_with_the_positions_searched(
        self,
    ) -> None:
        found = search(chess.Board(), budget=500)
        assert (found.verdict, found.positions, found.budget) == (Verdict.UNPROVEN, 500, 500)
        assert "500 positions searched" in found.describe()

    def test_5_2_b_the_search_is_the_same_on_every_run(self) -> None:
        assert search(chess.Board(BREAK)) == search(chess.Board(BREAK))
        with pytest.raises(ValueError, match="at least 1 position"):
            search(chess.Board(), budget=0)


def started_from(store: Store, fen: str) -> None:
    paired_tournament(store)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0), "fen": fen})


def declared(**extra: Any) -> dict[str, Any]:
    cmd = {
        "cmd": "declare_result",
        "game": "1.1",
        "result": "1/2-1/2",
        "termination": "dead_position",
        "reason": "the pawns are locked: neither side can mate (Laws 2009 5.2 b)",
        "arbiter": "chief",
        "at": at(600),
    }
    return {**cmd, **extra}


class TestDeclaredWithTheEnginesEvidence:
    def test_5_2_b_a_dead_position_declared_is_recorded_with_the_evidence(
        self, sqlite_store: Store
    ) -> None:
        started_from(sqlite_store, BREAK)
        play(sqlite_store, "1.1", "h4")  # the last lever closed: now dead
        [ended] = ok(sqlite_store, declared())
        assert (ended["result"], ended["termination"]) == ("1/2-1/2", "dead_position")
        assert ended["at"] == at(600)  # the command's instant: the search reads no clock
        evidence = ended["evidence"]
        assert evidence["verdict"] == "dead" and evidence["fen"].startswith(LOCKED.split()[0])
        assert evidence["budget"] == dead_position.DEFAULT_BUDGET
        assert "none is a checkmate" in evidence["summary"]
        assert game_object(sqlite_store.reads, "1.1")["result"] == "1/2-1/2"

    def test_5_2_b_a_position_that_is_not_dead_is_refused_with_the_mating_line(
        self, sqlite_store: Store
    ) -> None:
        started_from(sqlite_store, BREAK)
        message = refused(sqlite_store, declared(), "rule_violation")
        assert message.startswith("game 1.1 is not a dead position: white can checkmate")
        assert "h8=Q" in message and message.endswith("(article 5.2 b)")
        assert game_object(sqlite_store.reads, "1.1")["status"] == "in_progress"

    @pytest.mark.parametrize("extra", [{"result": "1-0"}, {"result": "0-1", "scores": "0-1/2"}])
    def test_5_2_b_a_dead_position_is_only_a_draw(
        self, sqlite_store: Store, extra: dict[str, str]
    ) -> None:
        started_from(sqlite_store, LOCKED)
        message = refused(sqlite_store, declared(**extra), "rule_violation")
        assert "a dead position is drawn" in message

    def test_5_2_b_unproven_is_recorded_as_the_arbiters_ruling_the_engine_could_not_verify(
        self, sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(dead_position, "DEFAULT_BUDGET", 200)
        started_from(sqlite_store, BREAK)
        [ended] = ok(sqlite_store, declared())
        evidence = ended["evidence"]
        assert (evidence["verdict"], evidence["positions"], evidence["budget"]) == (
            "unproven",
            200,
            200,
        )
        assert "could not verify" in evidence["summary"]
        entries = report_object(sqlite_store.reads)["entries"]
        entry = next(e for e in entries if e["type"] == "ResultRecorded")
        assert entry["article"] == "Laws 2009 5.2 b, 13.1"
        assert "which the engine could not verify" in entry["summary"]

    def test_5_2_b_the_other_draws_carry_no_evidence(self, sqlite_store: Store) -> None:
        started_from(sqlite_store, LOCKED)
        [ended] = ok(sqlite_store, declared(termination="theoretical_draw"))
        assert ended["evidence"] is None


class DeadLog(GameLog):
    """One game's events from a position, with a draw declared for a dead position."""

    def __init__(self, fen: str) -> None:
        super().__init__(fen=fen)

    def declared_dead(self, evidence: dict[str, Any] | None = None) -> DeadLog:
        self.add(
            ResultRecorded,
            result="1/2-1/2",
            termination="dead_position",
            reason="neither side can mate (Laws 2009 5.2 b)",
            arbiter="chief",
            evidence=evidence,
        )
        return self


def findings(log: DeadLog) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in judge_games(log.events).findings]


class TestTheAudit:
    def test_5_2_b_a_dead_position_with_its_evidence_is_no_finding(self) -> None:
        log = DeadLog(BREAK).play("h4")
        log.declared_dead(search(log.board).as_record())
        assert findings(log) == []

    def test_5_2_b_unproven_is_a_note_naming_the_arbiters_ruling(self) -> None:
        log = DeadLog(BREAK)
        log.declared_dead(search(log.board, budget=50).as_record())
        [finding] = judge_games(log.events).findings
        assert (finding.kind, finding.severity) == ("dead_position_unproven", INFO)
        assert finding.message.startswith("chief ruled game 1.1 a dead position")
        assert "50 positions searched" in finding.message

    def test_5_2_b_a_draw_recorded_before_the_evidence_is_searched_by_the_audit(self) -> None:
        dead = DeadLog(BREAK).play("h4").declared_dead()
        assert findings(dead) == []
        not_dead = DeadLog(BREAK).declared_dead()
        [finding] = judge_games(not_dead.events).findings
        assert (finding.kind, finding.severity) == ("draw_without_reason", RULE)
        assert "it is not one: white can checkmate" in finding.message

    def test_5_2_b_evidence_of_another_position_is_not_taken(self) -> None:
        log = DeadLog(BREAK)
        log.declared_dead(search(chess.Board(LOCKED)).as_record())  # the position after h4
        assert [k for k, _ in findings(log)] == ["draw_without_reason"]

    def test_5_2_b_a_store_from_before_the_evidence_loads_and_is_audited(
        self, sqlite_store: Store
    ) -> None:
        """A ``ResultRecorded`` without evidence holds exactly the fields a result had before
        ``evidence`` existed (so stores, logs and hash links from before are the same bytes);
        it loads, and the audit searches its position."""
        started_from(sqlite_store, BREAK)
        play(sqlite_store, "1.1", "h4")
        game = sqlite_store.reads.game("1.1")
        assert game is not None
        old = ResultRecorded(
            originator_id=game.stream,
            originator_version=game.version + 1,
            at_ms=T0_MS + 600_000,
            by="chief",
            result="1/2-1/2",
            termination="dead_position",
            reason="the pawns are locked (Laws 2009 5.2 b)",
            arbiter="chief",
        )
        assert "evidence" not in vars(old)  # stored as before the field existed
        sqlite_store.append([old])
        assert game_object(sqlite_store.reads, "1.1")["result"] == "1/2-1/2"
        stored = sqlite_store.view().stream("game/1.1")[-1]
        assert isinstance(stored, ResultRecorded)
        assert "evidence" not in vars(stored) and stored.evidence is None
        report = audit_store(sqlite_store)
        assert report.exit_status() == 0, [(f.kind, f.message) for f in report.findings]
        assert not [f for f in report.findings if f.record and f.record.stream == "game/1.1"]


def test_the_audit_counts_a_games_plies_from_its_first_move_from_any_position() -> None:
    """``MovePlayed.ply`` is 1 for the game's first move, whatever the starting position's
    move number (``start_game`` with a ``fen`` at move 50): the audit called such a move
    recorded at the wrong ply (an integrity failure) by counting from the FEN's number."""
    log = DeadLog(BREAK).play("h4 Kf8")
    assert [e.ply for e in log.events if isinstance(e, MovePlayed)] == [1, 2]
    assert findings(log) == []


def test_a_result_without_evidence_is_stored_as_a_result_was_before_the_field() -> None:
    """Only a draw for a dead position holds ``evidence``: any other result's stored
    fields, hash link and exported record are those it had before the field existed (the
    shipped 2013 sample is the same bytes), while the contract's form always names it."""
    base: dict[str, Any] = {
        "originator_id": "game/1.1",
        "originator_version": 9,
        "at_ms": T0_MS,
        "by": "chief",
        "result": "1/2-1/2",
        "termination": "dead_position",
    }
    before = ResultRecorded(**base)
    assert "evidence" not in event_fields(before) and before.evidence is None
    assert before.to_wire()["evidence"] is None
    searched = ResultRecorded(**base, evidence=search(chess.Board(LOCKED)).as_record())
    assert event_fields(searched)["evidence"]["verdict"] == "dead"
