"""Draw claims through the arbiter: regulations 3.9.2 b and 3.7.1.b, Laws 9.2-9.5.

One test per clause or sub-case, named after it. Positions are built from
real move sequences (or a FEN where the clause needs an endgame).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.store import Store
from adapters.store.queries import game_object
from engine.arbiter.claim_verification import verify
from engine.position_keys import position_key
from engine.rules import PROFILES
from tests.helpers import T0_MS, at, ok, paired_tournament, play, refused
from tests.world import World

KNIGHTS_DANCE = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8"
"""Back to the starting position twice: it has occurred three times (plies 0, 4, 8)."""


def started(store: Store, rules: str = "candidates-2012", **extra: Any) -> None:
    paired_tournament(store, rules)
    ok(store, {"cmd": "start_game", "game": "1.1", "at": at(0), **extra})


def declared_draw(**extra: str) -> dict[str, Any]:
    """The arbiter declaring game 1.1 drawn (``declare_result``), with ``extra`` fields."""
    cmd = {"cmd": "declare_result", "game": "1.1", "result": "1/2-1/2", "arbiter": "chief"}
    return {**cmd, "at": at(3000), **extra}


def playoff(store: Store, rules: str = "candidates-2012", stage: str = "rapid") -> None:
    paired_tournament(store, rules)
    ok(
        store,
        {
            "cmd": "start_game",
            "game": "tb-1",
            "white": "carlsen",
            "black": "kramnik",
            "stage": stage,
            # These tests space moves and claims minutes apart; the stage's own
            # control (25 min rapid, 5 min blitz: engine/time_control.py) would
            # make the flags fall, which is not what they are about.
            "time_control": "40/7200:20/3600:900+30",
            "at": at(0),
        },
    )


def after_last(store: Store, game: str, seconds: float) -> str:
    """``at(seconds)``, or a second after the game's last event if that is later: a
    claim and its ruling are held to time order like every game command."""
    state = store.reads.game(game)
    if state is None:
        return at(seconds)
    return at(max(seconds, (state.last_at_ms - T0_MS) / 1000 + 1))


def claim(store: Store, by: str, kind: str, game: str = "1.1", **extra: Any) -> dict[str, Any]:
    when = after_last(store, game, 500)
    events = ok(
        store, {"cmd": "claim_draw", "game": game, "by": by, "kind": kind, "at": when, **extra}
    )
    return json.loads(json.dumps(events[0]))


def rule(
    store: Store, decision: str, claim_id: int | str = 1, game: str = "1.1", **extra: Any
) -> list[dict[str, Any]]:
    cmd = {
        "cmd": "rule_claim",
        "game": game,
        "claim": claim_id,
        "decision": decision,
        "arbiter": "chief",
        "at": after_last(store, game, 600),
    }
    return ok(store, {**cmd, **extra})


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def view(store: Store, game: str = "1.1") -> dict[str, Any]:
    return game_object(store.reads, game)


class TestArt3_9_2_b_NoDrawByAgreement:
    """3.9.2 b: "The players cannot draw a game by agreement." """

    def test_3_9_2_b_draw_offer_refused(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {"cmd": "offer_draw", "game": "1.1", "by": "white", "at": at(3000)},
            "rule_violation",
        )
        assert "cannot draw a game by agreement" in message and "3.9.2 b" in message

    def test_3_9_2_b_draw_acceptance_refused(self, world: World) -> None:
        started(world)
        message = refused(
            world, {"cmd": "agree_draw", "game": "1.1", "by": "black"}, "rule_violation"
        )
        assert message.endswith("(article 3.9.2 b)")

    @pytest.mark.parametrize(
        "extra",
        [{"reason": "draw agreed"}, {"reason": "mutual offer", "termination": "agreement"}],
    )
    def test_3_9_2_b_declared_draw_by_agreement_refused(
        self, world: World, extra: dict[str, str]
    ) -> None:
        started(world)
        message = refused(world, declared_draw(**extra), "rule_violation")
        assert message == "the players cannot draw a game by agreement (article 3.9.2 b)"

    @pytest.mark.parametrize(
        "extra",
        [
            {"reason": "both players asked for a draw"},
            {"reason": "both players asked for a draw", "termination": "arbiter_decision"},
            {"reason": "the players shook hands", "termination": "handshake"},
            {"reason": "a draw offer accepted (Laws 2009 9.1)"},
            {"reason": "mutual consent", "termination": "mutual_consent"},
        ],
    )
    def test_3_9_2_b_a_declared_draw_outside_the_closed_list_is_refused_whatever_the_words(
        self, world: World, extra: dict[str, str]
    ) -> None:
        started(world)
        message = refused(world, declared_draw(**extra), "rule_violation")
        assert message.endswith("(article 3.9.2 b)")
        assert "cannot draw a game by agreement" in message
        assert world.game("1.1").status == "in_progress"

    @pytest.mark.parametrize(
        "extra",
        [
            {
                "reason": "no mate possible: the pawns are locked",
                "termination": "dead_position",
                # 5.2 b: the engine's search must find the position dead (or not decide it)
                "fen": "6k1/8/2p1p1p1/1pPpPpPp/pP1P1P1P/P7/8/6K1 w - - 0 1",
            },
            {"reason": "both stalemated the king", "termination": "stalemate"},
            {"reason": "claim upheld", "termination": "threefold_repetition"},
            {"reason": "a dead position, neither side can mate (Laws 2009 5.2 b)"},
        ],
    )
    def test_3_9_2_b_a_declared_draw_for_a_reason_of_the_laws_is_recorded(
        self, world: World, extra: dict[str, str]
    ) -> None:
        extra = dict(extra)
        fen = extra.pop("fen", None)
        started(world, **({"fen": fen} if fen else {}))
        cmd = {
            "cmd": "declare_result",
            "game": "1.1",
            "result": "1/2-1/2",
            "arbiter": "chief",
            "at": at(3000),
        }
        [ended] = ok(world, {**cmd, **extra})
        assert ended["result"] == "1/2-1/2"
        assert ended["termination"] == extra.get("termination", "arbiter_decision")


class TestArt3_9_2_b_ClaimsThroughTheArbiter:
    """3.9.2 b: a claim is permitted only through the Chief Arbiter (or Deputy)."""

    def test_3_9_2_b_claims_are_numbered_per_game(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        assert claim(world, "black", "threefold_repetition")["claim"] == "1"
        rule(world, "rejected")
        play(world, "1.1", "e5", start_s=700)
        assert claim(world, "aronian", "fifty_moves")["claim"] == "2"

    def test_3_9_2_b_unknown_claim_kind_refused(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "boredom", "at": at(3000)},
            "malformed_command",
        )
        assert "threefold_repetition, fifty_moves, perpetual_check" in message

    def test_3_9_2_b_claimant_must_be_a_player_of_the_game(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "gelfand",
                "kind": "stalemate",
                "at": at(3000),
            },
            "malformed_command",
        )
        assert "(aronian - carlsen)" in message

    @pytest.mark.parametrize("who", ["advisor", "carlsen", "nobody"])
    def test_3_9_2_b_only_the_chief_arbiter_or_deputy_rules(self, world: World, who: str) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        claim(world, "white", "threefold_repetition")
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "accepted",
                "arbiter": who,
                "at": at(600),
            },
            "not_an_arbiter",
        )
        assert f"{who!r} is not the Chief Arbiter or a Deputy" in message

    def test_3_9_2_b_the_deputy_may_rule(self, world: World) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        claim(world, "white", "threefold_repetition")
        events = rule(world, "accepted", arbiter="deputy")
        assert events[0]["arbiter"] == "deputy"

    def test_3_9_2_b_ruling_on_an_unknown_claim_refused(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 3,
                "decision": "accepted",
                "arbiter": "chief",
                "at": at(3000),
            },
            "unknown_claim",
        )
        assert message == "game 1.1 has no claim '3' (claims: none yet)"

    def test_3_9_2_b_a_ruling_is_final(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        rule(world, "rejected")
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "accepted",
                "arbiter": "deputy",
                "reason": "second thoughts",
                "at": at(700),
            },
            "rule_violation",
        )
        assert "has already been ruled rejected by chief; a ruling is final" in message

    def test_3_9_2_b_decision_is_accepted_or_rejected(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "postponed",
                "arbiter": "chief",
                "at": at(600),
            },
            "malformed_command",
        )
        assert "accepted, rejected" in message

    def test_3_9_2_b_accepted_claim_ends_the_game_as_a_draw_named_by_its_kind(
        self, world: World
    ) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        claim(world, "white", "threefold_repetition")
        events = rule(world, "accepted")
        assert types(events) == ["ClaimRuled", "ResultRecorded"]
        assert events[1]["result"] == "1/2-1/2"
        assert events[1]["termination"] == "threefold_repetition"
        shown = view(world)
        assert (shown["status"], shown["result"]) == ("finished", "1/2-1/2")
        assert shown["claims"][0]["status"] == "accepted"

    def test_3_9_2_b_ruling_against_the_verification_needs_a_reason(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        cmd = {
            "cmd": "rule_claim",
            "game": "1.1",
            "claim": 1,
            "decision": "accepted",
            "arbiter": "chief",
            "at": at(600),
        }
        message = refused(world, cmd, "malformed_command")
        assert message == (
            "rule_claim: accepted contradicts the verification of claim 1 "
            "(threefold_repetition by black) (no draw); the arbiter may overrule it, "
            "with a 'reason' for the record"
        )
        events = ok(world, {**cmd, "reason": "the players repeated on the demo board"})
        assert events[0]["override"] is True and events[0]["verified"] is False
        ruling = view(world)["claims"][0]["ruling"]
        assert ruling["override"] is True
        assert ruling["reason"] == "the players repeated on the demo board"

    def test_3_9_2_b_ruling_that_agrees_with_the_verification_is_no_override(
        self, world: World
    ) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        assert rule(world, "rejected")[0]["override"] is False


class TestArt3_9_2_b_TheoreticalDraw:
    """3.9.2 b: other theoretical draws, declared (or not) after consulting the advisor."""

    WRONG_BISHOP = "7k/8/8/7P/5K2/8/8/3B4 b - - 0 60"
    """Rook's pawn with the bishop of the wrong colour: a book draw that no
    automatic rule recognises (python-chess sees mating material)."""

    def _claimed(self, store: Store, by: str = "black") -> dict[str, Any]:
        started(store, fen=self.WRONG_BISHOP)
        return claim(store, by, "theoretical_draw")

    def advise(self, store: Store, opinion: str, advisor: str = "advisor") -> list[dict[str, Any]]:
        return ok(
            store,
            {
                "cmd": "advise_claim",
                "game": "1.1",
                "claim": 1,
                "opinion": opinion,
                "advisor": advisor,
                "at": at(550),
            },
        )

    def test_3_9_2_b_theoretical_draw_has_no_verdict(self, world: World) -> None:
        event = self._claimed(world)
        assert event["verified"] is None
        assert event["evidence"]["material"] == {"white": "KBP", "black": "K"}

    def test_3_9_2_b_ruling_waits_for_the_technical_advisor(self, world: World) -> None:
        self._claimed(world)
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "accepted",
                "arbiter": "chief",
                "at": at(600),
            },
            "rule_violation",
        )
        assert "after consulting the Technical Advisor" in message

    @pytest.mark.parametrize("who", ["chief", "deputy", "carlsen"])
    def test_3_9_2_b_only_the_technical_advisor_advises(self, world: World, who: str) -> None:
        self._claimed(world)
        message = refused(
            world,
            {
                "cmd": "advise_claim",
                "game": "1.1",
                "claim": 1,
                "opinion": "draw",
                "advisor": who,
                "at": at(550),
            },
            "not_an_arbiter",
        )
        assert f"{who!r} is not the Technical Advisor" in message

    def test_3_9_2_b_opinion_is_draw_or_not_draw(self, world: World) -> None:
        self._claimed(world)
        message = refused(
            world,
            {
                "cmd": "advise_claim",
                "game": "1.1",
                "claim": 1,
                "opinion": "probably",
                "advisor": "advisor",
                "at": at(550),
            },
            "malformed_command",
        )
        assert "draw, not_draw" in message

    def test_3_9_2_b_declared_after_the_advisors_opinion(self, world: World) -> None:
        self._claimed(world)
        assert types(self.advise(world, "draw")) == ["ClaimAdvised"]
        events = rule(world, "accepted")
        assert events[0]["verified"] is True and events[0]["override"] is False
        assert events[1]["termination"] == "theoretical_draw"
        assert view(world)["claims"][0]["advice"]["opinion"] == "draw"

    def test_3_9_2_b_declined_theoretical_draw_is_not_an_incorrect_claim(
        self, world: World
    ) -> None:
        self._claimed(world)
        self.advise(world, "not_draw")
        events = rule(world, "rejected")
        assert types(events) == ["ClaimRuled"]
        assert events[0]["incorrect_claims"] == 0
        shown = view(world)
        assert shown["incorrect_claims"] == {"white": 0, "black": 0}
        assert shown["status"] == "in_progress"

    def test_3_9_2_b_ruling_against_the_advisor_is_an_override(self, world: World) -> None:
        self._claimed(world)
        self.advise(world, "not_draw")
        refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "accepted",
                "arbiter": "chief",
                "at": at(600),
            },
            "malformed_command",
        )
        events = rule(world, "accepted", reason="the Chief Arbiter's own analysis")
        assert events[0]["override"] is True

    def test_3_9_2_b_theoretical_draw_claimed_by_both_players(self, world: World) -> None:
        event = self._claimed(world, by="both")
        assert event["side"] == "both"
        assert view(world)["claims"][0]["by"] == "both"

    def test_3_9_2_b_only_a_theoretical_draw_is_claimed_by_both(self, world: World) -> None:
        started(world)
        refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "both",
                "kind": "perpetual_check",
                "at": at(3000),
            },
            "malformed_command",
        )


class TestArt3_9_2_b_PerpetualCheck:
    """3.9.2 b: perpetual check, the arbiter's judgement on the evidence."""

    FEN = "r6k/p6p/8/8/8/8/5PPP/3Q2K1 w - - 0 30"
    """White, a rook down, can check from d4 and g4 for ever."""

    def test_3_9_2_b_perpetual_check_evidence(self, world: World) -> None:
        started(world, fen=self.FEN)
        play(world, "1.1", "Qd4+ Kg8 Qg4+ Kh8 Qd4+ Kg8 Qg4+ Kh8 Qd4+")
        event = claim(world, "black", "perpetual_check")
        assert event["verified"] is None
        evidence = event["evidence"]
        assert evidence["checking_side"] == "white"
        assert evidence["consecutive_checks"] == 5
        assert evidence["check_plies"] == [1, 3, 5, 7, 9]
        assert evidence["most_repeated"] == 3
        assert evidence["repetitions"][0]["after"] == ["30. Qd4+", "32. Qd4+", "34. Qd4+"]

    def test_3_9_2_b_perpetual_check_ruled_by_the_arbiter(self, world: World) -> None:
        started(world, fen=self.FEN)
        play(world, "1.1", "Qd4+ Kg8 Qg4+ Kh8")
        claim(world, "white", "perpetual_check")
        events = rule(world, "accepted")
        assert events[0]["override"] is False
        assert events[1]["termination"] == "perpetual_check"

    def test_3_9_2_b_no_check_no_perpetual(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4 e5")
        event = claim(world, "white", "perpetual_check")
        assert event["verified"] is False
        assert event["evidence"]["note"] == "neither side gave check with its last move"


class TestArt3_9_2_b_FinishedPositions:
    """3.9.2 b stalemate and insufficient material: Laws 5.2 a, 5.2 b / 9.6."""

    def test_5_2_a_a_game_started_in_stalemate_is_drawn_at_once_and_takes_no_claim(
        self, world: World
    ) -> None:
        """Stalemate ends the game (5.2 a): a game started from one is drawn at its start,
        and a stalemate claim there is refused as a claim in a finished game."""
        started(world, fen="7k/5Q2/6K1/8/8/8/8/8 b - - 0 70")
        game = game_object(world, "1.1")
        assert (game["result"], game["termination"]) == ("1/2-1/2", "stalemate")
        when = after_last(world, "1.1", 500)
        stale = {"cmd": "claim_draw", "game": "1.1", "by": "black", "kind": "stalemate"}
        refused(world, {**stale, "at": when}, "game_not_in_progress")

    def test_5_2_a_stalemate_claim_refuted_when_moves_remain(self, world: World) -> None:
        started(world)
        assert claim(world, "white", "stalemate")["verified"] is False

    def test_5_2_b_a_game_started_without_mating_material_is_drawn_at_once(
        self, world: World
    ) -> None:
        """No sequence of legal moves can mate (5.2 b, K+N v K): the game is drawn at its
        start, and a claim of insufficient material there is refused as too late."""
        started(world, fen="8/8/4k3/8/8/3NK3/8/8 w - - 0 70")
        game = game_object(world, "1.1")
        assert (game["result"], game["termination"]) == ("1/2-1/2", "insufficient_material")
        when = after_last(world, "1.1", 500)
        dead = {"cmd": "claim_draw", "game": "1.1", "by": "white", "kind": "insufficient_material"}
        refused(world, {**dead, "at": when}, "game_not_in_progress")

    def test_5_2_b_insufficient_material_refuted_with_mating_material(self, world: World) -> None:
        started(world, fen="8/8/4k3/8/8/3RK3/8/8 b - - 0 70")
        event = claim(world, "black", "insufficient_material")
        assert event["verified"] is False
        assert event["evidence"]["white_can_mate"] is True

    def test_8_1_no_intended_move_outside_9_2_and_9_3(self, world: World) -> None:
        started(world, fen="7k/5Q2/8/6K1/8/8/8/8 w - - 0 70")
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "stalemate",
                "intended_move": "Kg6",
                "at": at(3000),
            },
            "rule_violation",
        )
        assert "only to claim a draw under 9.2 or 9.3" in message and "8.1" in message


class TestLaws9_2ThreefoldRepetition:
    """Laws 2009 9.2: the same position for at least the third time."""

    def test_9_2_a_intended_move_completing_the_third_occurrence(self, world: World) -> None:
        started(world)
        play(world, "1.1", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1")
        event = claim(world, "black", "threefold_repetition", intended_move="Ng8")
        assert event["verified"] is True
        assert event["intended_san"] == "Ng8"
        evidence = event["evidence"]
        assert evidence["rule"] == "9.2 a" and evidence["basis"] == "after_intended_move"
        assert evidence["after_intended_move"]["plies"] == [0, 4, 8]
        assert evidence["now"]["count"] == 2

    def test_9_2_a_accepted_intended_move_recorded_not_played(self, world: World) -> None:
        started(world)
        play(world, "1.1", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1")
        claim(world, "black", "threefold_repetition", intended_move="f6g8")
        events = rule(world, "accepted")
        assert "MovePlayed" not in types(events)
        shown = view(world)
        assert shown["ply"] == 7
        assert shown["claims"][0]["intended_move"] == "Ng8"

    def test_9_2_b_position_that_has_just_appeared_a_third_time(self, world: World) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        event = claim(world, "white", "threefold_repetition")
        assert event["verified"] is True
        assert event["evidence"]["now"]["after"] == ["start", "2... Ng8", "4... Ng8"]

    def test_9_2_only_the_player_having_the_move_claims(self, world: World) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "black",
                "kind": "threefold_repetition",
                "at": at(500),
            },
            "rule_violation",
        )
        assert message == (
            "only the player having the move may claim threefold_repetition: white is to "
            "move in game 1.1, not black (article 9.2)"
        )

    def test_9_2_intended_move_must_be_legal(self, world: World) -> None:
        started(world)
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "threefold_repetition",
                "intended_move": "Ke2",
                "at": at(3000),
            },
            "illegal_move",
        )
        assert "'Ke2'" in message

    def test_9_2_positions_differ_once_a_castling_right_is_lost(self, world: World) -> None:
        # After 2. Ke2 Ke7 3. Ke1 Ke8 the pieces stand as after 1... e5, but
        # neither side may castle any more: not the same position.
        started(world)
        play(world, "1.1", "e4 e5 Ke2 Ke7 Ke1 Ke8 Ke2 Ke7 Ke1 Ke8")
        event = claim(world, "white", "threefold_repetition")
        assert event["verified"] is False
        assert event["evidence"]["now"]["plies"] == [6, 10]

    def test_9_2_same_position_key_ignores_an_en_passant_square_without_a_capture(self) -> None:
        import chess

        after_e4 = chess.Board()
        after_e4.push_san("e4")
        placed = chess.Board(after_e4.fen().replace(" e3 ", " - "))
        assert position_key(after_e4) == position_key(placed)


class TestLaws9_3FiftyMoves:
    """Laws 2009 9.3: the last 50 moves by each player without a pawn move or capture."""

    def test_9_3_a_intended_move_completes_fifty_moves(self, world: World) -> None:
        started(world, fen="8/8/4k3/8/8/3RK3/8/8 w - - 99 80")
        event = claim(world, "white", "fifty_moves", intended_move="Rd1")
        assert event["verified"] is True
        assert event["evidence"]["after_intended_move"]["moves_each"] == 50

    def test_9_3_b_fifty_moves_already_made(self, world: World) -> None:
        started(world, fen="8/8/4k3/8/8/3RK3/8/8 w - - 100 80")
        event = claim(world, "white", "fifty_moves")
        assert event["verified"] is True and event["evidence"]["basis"] == "now"

    def test_9_3_a_pawn_move_as_intended_move_restarts_the_count(self, world: World) -> None:
        started(world, fen="8/8/4k3/8/8/3RK2P/8/8 w - - 99 80")
        event = claim(world, "white", "fifty_moves", intended_move="h4")
        assert event["verified"] is False
        assert event["evidence"]["after_intended_move"]["plies_without_pawn_move_or_capture"] == 0

    def test_9_3_count_since_the_last_capture(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4 d5 exd5 Nf6 Nf3 Nxd5")
        event = claim(world, "white", "fifty_moves")
        assert event["verified"] is False
        assert event["evidence"]["now"]["since"] == "3... Nxd5"


class TestLaws9_5IncorrectClaim:
    """Laws 9.5: an incorrect claim gives the opponent time; the game continues."""

    def test_9_5_incorrect_claim_gives_the_opponent_three_minutes(self, world: World) -> None:
        started(world)
        play(world, "1.1", "Nf3 Nf6 Ng1")
        claim(world, "black", "threefold_repetition", intended_move="Ng8")
        events = rule(world, "rejected")
        assert types(events) == ["ClaimRuled", "ClockAdjusted", "MovePlayed"]
        adjusted = events[1]
        assert (adjusted["side"], adjusted["delta_ms"]) == ("white", 180_000)
        assert "(Laws 2009 9.5)" in adjusted["reason"]
        assert not any(e["type"] == "ClockAdjusted" and e["side"] == "black" for e in events)
        assert events[2]["san"] == "Ng8"
        shown = view(world)
        assert shown["incorrect_claims"] == {"white": 0, "black": 1}
        assert shown["status"] == "in_progress"

    def test_9_5_3_fide_2023_incorrect_claim_gives_two_minutes(self, world: World) -> None:
        started(world, rules="fide-2023")
        play(world, "1.1", "e4")
        claim(world, "black", "fifty_moves")
        events = rule(world, "rejected")
        assert events[1]["delta_ms"] == 120_000
        assert "(Laws 2023 9.5.3)" in events[1]["reason"]

    def test_9_5_no_limit_on_incorrect_claims_in_tournament_games(self, world: World) -> None:
        started(world)
        for number, move in enumerate(["e4", "Nf3", "Bc4", "O-O"], start=1):
            play(world, "1.1", move, start_s=number * 1000)
            claim(world, "black", "fifty_moves")
            rule(world, "rejected", claim_id=number)
            play(
                world,
                "1.1",
                ["e5", "Nc6", "Bc5", "Nf6"][number - 1],
                start_s=number * 1000 + 5,
            )
        shown = view(world)
        assert shown["incorrect_claims"]["black"] == 4
        assert shown["status"] == "in_progress"

    def test_9_5_no_move_while_a_claim_is_pending(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        message = refused(
            world,
            {"cmd": "play_move", "game": "1.1", "move": "e5", "at": at(510)},
            "rule_violation",
        )
        assert message == (
            "claim 1 (threefold_repetition by black) is pending in game 1.1: the game is "
            "paused and no move can be made until the arbiter rules on it (article 9.5)"
        )

    def test_9_5_no_second_claim_while_one_is_pending(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "stalemate",
                "at": at(3000),
            },
            "rule_violation",
        )
        assert "no other claim can be made" in message

    def test_9_5_claim_lapses_when_the_game_ends_before_the_ruling(self, world: World) -> None:
        started(world)
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        ok(world, {"cmd": "resign", "game": "1.1", "by": "black", "at": at(520)})
        assert view(world)["claims"][0]["status"] == "lapsed"
        message = refused(
            world,
            {
                "cmd": "rule_claim",
                "game": "1.1",
                "claim": 1,
                "decision": "rejected",
                "arbiter": "chief",
                "at": at(600),
            },
            "game_not_in_progress",
        )
        assert "lapsed: the game ended (1-0, resignation) before a ruling" in message

    def test_9_5_intended_move_played_after_rejection_may_end_the_game(self, world: World) -> None:
        started(world)
        play(world, "1.1", "f3 e5 g4")
        claim(world, "black", "threefold_repetition", intended_move="Qh4#")
        events = rule(world, "rejected")
        assert types(events) == ["ClaimRuled", "ClockAdjusted", "MovePlayed", "ResultRecorded"]
        assert (events[3]["result"], events[3]["termination"]) == ("0-1", "checkmate")

    def test_9_5_losing_illegal_move_while_a_claim_is_pending_lapses_it(self, world: World) -> None:
        started(world, rules="fide-2023")
        play(world, "1.1", "e4")
        claim(world, "black", "threefold_repetition")
        for _ in range(2):
            ok(
                world,
                {
                    "cmd": "record_illegal_move",
                    "game": "1.1",
                    "by": "white",
                    "arbiter": "chief",
                    "at": at(510),
                },
            )
        shown = view(world)
        assert (shown["result"], shown["termination"]) == ("0-1", "illegal_moves")
        assert shown["claims"][0]["status"] == "lapsed"


class TestArt3_7_1_b_3PlayoffClaims:
    """3.7.1.b.3: tie-break games: +3 minutes, at most two incorrect claims."""

    @pytest.mark.parametrize("rules", ["candidates-2012", "fide-2023"])
    def test_3_7_1_b_3_incorrect_claim_adds_three_minutes(self, world: World, rules: str) -> None:
        playoff(world, rules)
        play(world, "tb-1", "e4")
        claim(world, "black", "threefold_repetition", game="tb-1")
        events = rule(world, "rejected", game="tb-1")
        assert (events[1]["side"], events[1]["delta_ms"]) == ("white", 180_000)
        assert events[1]["reason"].endswith("(3.7.1.b.3)")

    def test_3_7_1_b_3_the_game_continues_with_the_intended_move(self, world: World) -> None:
        playoff(world)
        play(world, "tb-1", "e4")
        claim(world, "black", "threefold_repetition", game="tb-1", intended_move="c5")
        events = rule(world, "rejected", game="tb-1")
        assert events[-1]["type"] == "MovePlayed" and events[-1]["san"] == "c5"
        assert view(world, "tb-1")["moves"] == ["e4", "c5"]

    @pytest.mark.parametrize("stage", ["rapid", "blitz", "sudden_death"])
    def test_3_7_1_b_3_third_incorrect_claim_loses(self, world: World, stage: str) -> None:
        playoff(world, stage=stage)
        for number, (white, black) in enumerate([("e4", "e5"), ("Nf3", "Nc6")], start=1):
            play(world, "tb-1", white, start_s=number * 1000)
            claim(world, "black", "fifty_moves", game="tb-1")
            events = rule(world, "rejected", claim_id=number, game="tb-1")
            assert types(events) == ["ClaimRuled", "ClockAdjusted"]
            play(world, "tb-1", black, start_s=number * 1000 + 5)
        play(world, "tb-1", "Bb5", start_s=5000)
        claim(world, "black", "threefold_repetition", game="tb-1", intended_move="a6")
        events = rule(world, "rejected", claim_id=3, game="tb-1")
        assert types(events) == ["ClaimRuled", "ResultRecorded"]
        assert events[1]["result"] == "1-0"
        assert events[1]["termination"] == "incorrect_claims"
        assert events[1]["reason"] == "3rd incorrect claim by black (3.7.1.b.3)"
        shown = view(world, "tb-1")
        assert shown["incorrect_claims"] == {"white": 0, "black": 3}
        assert shown["moves"][-1] == "Bb5"

    def test_3_7_1_b_3_counts_are_per_player(self, world: World) -> None:
        playoff(world)
        moves = ["e4", "e5", "Nf3", "Nc6"]
        for number, move in enumerate(moves, start=1):
            side = "white" if number % 2 else "black"
            claim(world, side, "fifty_moves", game="tb-1")
            rule(world, "rejected", claim_id=number, game="tb-1")
            play(world, "tb-1", move, start_s=number * 1000)
        shown = view(world, "tb-1")
        assert shown["incorrect_claims"] == {"white": 2, "black": 2}
        assert shown["status"] == "in_progress"


class TestArt3_7_1_b_4ClaimsAfterTheEnd:
    """3.7.1.b.4: once a game has ended, no claim for irregularities is accepted."""

    def test_3_7_1_b_4_no_claim_once_the_game_has_ended(self, world: World) -> None:
        playoff(world)
        play(world, "tb-1", "f3 e5 g4 Qh4#")
        message = refused(
            world,
            {
                "cmd": "claim_draw",
                "game": "tb-1",
                "by": "white",
                "kind": "stalemate",
                "at": at(100),
            },
            "game_not_in_progress",
        )
        assert message == (
            "game tb-1 has ended (0-1, checkmate): no claim can be made once a game is "
            "over (article 3.7.1.b.4)"
        )

    def test_3_7_1_b_4_no_irregularity_once_the_game_has_ended(self, world: World) -> None:
        playoff(world)
        play(world, "tb-1", "f3 e5 g4 Qh4#")
        message = refused(
            world,
            {
                "cmd": "record_illegal_move",
                "game": "tb-1",
                "by": "black",
                "arbiter": "chief",
                "at": at(100),
            },
            "rule_violation",
        )
        assert message.endswith("(article 3.7.1.b.4)")


class TestVerificationIsPure:
    """The verification reads only the game's moves: same game, same answer."""

    def test_verification_is_stored_with_the_claim(self, world: World) -> None:
        started(world)
        play(world, "1.1", KNIGHTS_DANCE)
        game = world.game("1.1")
        assert game is not None
        expected = verify(game, "threefold_repetition")
        claim(world, "white", "threefold_repetition")
        stored = world.game("1.1")
        assert stored is not None
        assert stored.record.claims[0].verified is expected.verified
        assert stored.record.claims[0].evidence == expected.evidence

    def test_profiles_name_their_claim_penalties(self) -> None:
        assert PROFILES["candidates-2012"].penalties.incorrect_claim_ms == 180_000
        assert PROFILES["fide-2023"].penalties.incorrect_claim_ms == 120_000
        assert PROFILES["candidates-2012"].penalties.incorrect_claim_loses_at is None
        for name in PROFILES:
            assert PROFILES[name].penalties_for("rapid").incorrect_claim_loses_at == 3
