"""The examples of ``docs/commands.md``: each command sent to a store prepared for it, and
the answer it gets.

A setting (``SETTINGS``) is the commands that prepare the store, named and said in words;
an example (``EXAMPLES``) is a command, the setting it is sent in and the answer it gets:
the events appended, in order, or the code of its refusal. ``tools/reference.py`` prints
them; ``tests/test_reference_examples.py`` sends every example to a fresh store prepared
by its setting and checks the answer is the one printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools.sample import PLAYERS_BY_ID

Raw = dict[str, Any]

PLAYERS: list[Raw] = PLAYERS_BY_ID
"""The 2013 field (the sample's)."""
ARBITERS: list[Raw] = [
    {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
    {"id": "deputy", "name": "Deputy Arbiter", "role": "deputy"},
    {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
]
FIDE_2013: dict[str, Raw] = {
    "carlsen": {"fide_id": "1503014", "title": "GM"},
    "kramnik": {"fide_id": "4101588", "title": "GM"},
}
"""FIDE ids and titles of the players the examples show them for (every player field)."""
NUMBERS = {
    "carlsen": 1,
    "kramnik": 2,
    "radjabov": 3,
    "grischuk": 4,
    "svidler": 5,
    "ivanchuk": 6,
    "gelfand": 7,
    "aronian": 8,
}
"""Game 1.1 is Carlsen (White) against Aronian."""

CREATE: Raw = {
    "cmd": "create_tournament",
    "tournament": "london-2013",
    "name": "FIDE Candidates Tournament 2013",
    "start_date": "2013-03-15",
    "players": PLAYERS,
    "arbiters": ARBITERS,
}
DRAW: Raw = {"cmd": "draw_lots", "tournament": "london-2013", "numbers": NUMBERS}
START: Raw = {"cmd": "start_game", "game": "1.1", "at": "2013-03-15T14:00:00Z"}


def _move(san: str, at: str) -> Raw:
    return {"cmd": "play_move", "game": "1.1", "move": san, "at": at}


OPENING = [
    _move("e4", "2013-03-15T14:00:31Z"),
    _move("e5", "2013-03-15T14:01:02Z"),
    _move("Nf3", "2013-03-15T14:01:40Z"),
    _move("Nc6", "2013-03-15T14:02:15Z"),
]


@dataclass(frozen=True)
class Setting:
    words: str
    """What the store holds, in a sentence (the reference prints it)."""
    commands: tuple[Raw, ...]


TWO: Raw = {
    "cmd": "create_tournament",
    "tournament": "match-2013",
    "name": "A two-player round robin",
    "start_date": "2013-03-15",
    "cycles": 1,
    "players": [{**p, **FIDE_2013[p["id"]]} for p in PLAYERS if p["id"] in ("carlsen", "kramnik")],
    "arbiters": ARBITERS,
}


def _finished(game: str, at: str, end: str, result: str = "1/2-1/2") -> tuple[Raw, ...]:
    """A game started at ``at`` and its result recorded by the Chief Arbiter at ``end``."""
    return (
        {"cmd": "start_game", "game": game, "at": at},
        {
            "cmd": "declare_result",
            "game": game,
            "result": result,
            "reason": "threefold repetition upheld (9.2)",
            "arbiter": "chief",
            "at": end,
        },
    )


def _playoff(name: str, at: str, seed: str) -> Raw:
    return {"cmd": name, "tournament": "match-2013", "arbiter": "chief", "at": at, "seed": seed}


TIED = (
    TWO,
    {"cmd": "draw_lots", "tournament": "match-2013", "numbers": {"carlsen": 1, "kramnik": 2}},
    *_finished("1.1", "2013-03-15T14:00:00Z", "2013-03-15T18:00:00Z"),
)
RAPID = (
    *TIED,
    _playoff("start_playoff", "2013-04-02T10:00:00Z", "playoff-1"),
    *_finished("P1-rapid-1.1", "2013-04-02T10:30:00Z", "2013-04-02T11:30:00Z"),
    *_finished("P1-rapid-2.1", "2013-04-02T11:45:00Z", "2013-04-02T12:45:00Z"),
)
BLITZ = tuple(
    command
    for series in (1, 2, 3)
    for command in (
        _playoff("advance_playoff", f"2013-04-02T1{series + 2}:00:00Z", f"blitz-{series}"),
        *_finished(
            f"P1-blitz{series}-1.1",
            f"2013-04-02T1{series + 2}:05:00Z",
            f"2013-04-02T1{series + 2}:15:00Z",
        ),
        *_finished(
            f"P1-blitz{series}-2.1",
            f"2013-04-02T1{series + 2}:20:00Z",
            f"2013-04-02T1{series + 2}:30:00Z",
        ),
    )
)
SUDDEN = (*RAPID, *BLITZ, _playoff("advance_playoff", "2013-04-02T16:00:00Z", "lots"))

OPENING_SET = (CREATE, DRAW, START, *OPENING)

SETTINGS: dict[str, Setting] = {
    "empty": Setting("an empty store", ()),
    "created": Setting("the 2013 field and its arbiters entered, no lots drawn", (CREATE,)),
    "drawn": Setting("the 2013 field, lots drawn: game 1.1 is Carlsen-Aronian", (CREATE, DRAW)),
    "started": Setting(
        "the lots drawn; game 1.1 started at 14:00 with both players present",
        (CREATE, DRAW, START),
    ),
    "opening": Setting(
        "game 1.1 started at 14:00, 1. e4 e5 2. Nf3 Nc6 played by 14:02:15",
        (CREATE, DRAW, START, *OPENING),
    ),
    "claimed": Setting(
        "game 1.1 after 2. Nf3 Nc6; White claims a threefold repetition at 14:03 (claim 1)",
        (
            *OPENING_SET,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "threefold_repetition",
                "at": "2013-03-15T14:03:00Z",
            },
        ),
    ),
    "theoretical": Setting(
        "game 1.1 after 2. Nf3 Nc6; White claims a theoretical draw at 14:03 (claim 1)",
        (
            *OPENING_SET,
            {
                "cmd": "claim_draw",
                "game": "1.1",
                "by": "white",
                "kind": "theoretical_draw",
                "at": "2013-03-15T14:03:00Z",
            },
        ),
    ),
    "resigned": Setting(
        "game 1.1 after 2. Nf3 Nc6; Black resigned at 14:03 (1-0)",
        (
            *OPENING_SET,
            {"cmd": "resign", "game": "1.1", "by": "black", "at": "2013-03-15T14:03:00Z"},
        ),
    ),
    "absent": Setting(
        "the lots drawn; game 1.1 started at 14:00 with Aronian (Black) not at the board",
        (CREATE, DRAW, {**START, "present": ["carlsen"]}),
    ),
    "out": Setting(
        "game 1.1 started at 14:00; the Chief Arbiter let Carlsen leave at 14:20 with the Deputy",
        (
            CREATE,
            DRAW,
            START,
            {
                "cmd": "permit_leave",
                "player": "carlsen",
                "arbiter": "chief",
                "accompanied_by": "deputy",
                "at": "2013-03-15T14:20:00Z",
            },
        ),
    ),
    "withdrawn": Setting(
        "the lots drawn; Kramnik withdrew on 20 March",
        (
            CREATE,
            DRAW,
            {
                "cmd": "withdraw",
                "tournament": "london-2013",
                "player": "kramnik",
                "reason": "illness",
                "arbiter": "chief",
                "at": "2013-03-20T12:00:00Z",
            },
        ),
    ),
    "tied": Setting(
        "a two-player round robin (`match-2013`), its one game drawn: first place tied", TIED
    ),
    "rapid": Setting("`match-2013` tied; the playoff's two rapid games drawn (3.7.1 a)", RAPID),
    "sudden": Setting(
        "`match-2013` tied; rapid and three blitz matches drawn; the sudden-death game "
        "`P1-sudden_death-1` paired, its lot drawn (3.7.3 a)",
        SUDDEN,
    ),
}


@dataclass(frozen=True)
class Example:
    """A command sent in a setting, and its answer."""

    setting: str
    command: Raw
    events: tuple[str, ...] = ()
    """The types of the events appended, in order (none: it is refused)."""
    refused: str = ""
    """The code of its refusal (``events`` empty)."""


EXAMPLES: dict[str, Example] = {
    "adjust_clock": Example(
        "opening",
        {
            "cmd": "adjust_clock",
            "game": "1.1",
            "side": "black",
            "delta_ms": 120000,
            "reason": "Laws 7.4 b: two minutes for White's illegal move",
            "arbiter": "chief",
            "at": "2013-03-15T14:02:45Z",
        },
        events=("ClockAdjusted",),
    ),
    "advance_playoff": Example(
        "rapid",
        {
            "cmd": "advance_playoff",
            "tournament": "match-2013",
            "arbiter": "chief",
            "at": "2013-04-02T13:00:00Z",
            "seed": "blitz-1",
        },
        events=("PlayoffStageStarted",),
    ),
    "advise_claim": Example(
        "theoretical",
        {
            "cmd": "advise_claim",
            "game": "1.1",
            "claim": 1,
            "opinion": "not_draw",
            "advisor": "advisor",
            "at": "2013-03-15T14:10:00Z",
        },
        events=("ClaimAdvised",),
    ),
    "agree_draw": Example(
        "opening", {"cmd": "agree_draw", "game": "1.1", "by": "black"}, refused="rule_violation"
    ),
    "check_flags": Example(
        "started", {"cmd": "check_flags", "at": "2013-03-15T16:00:01Z"}, events=("AlertRaised",)
    ),
    "choose_colour": Example(
        "sudden",
        {
            "cmd": "choose_colour",
            "tournament": "match-2013",
            "game": "P1-sudden_death-1",
            "colour": "white",
            "arbiter": "chief",
            "at": "2013-04-02T16:05:00Z",
        },
        events=("SuddenDeathColourChosen",),
    ),
    "claim_draw": Example(
        "opening",
        {
            "cmd": "claim_draw",
            "game": "1.1",
            "by": "white",
            "kind": "threefold_repetition",
            "at": "2013-03-15T14:03:00Z",
        },
        events=("DrawClaimed", "AlertRaised"),
    ),
    "clock_reading": Example(
        "opening",
        {
            "cmd": "clock_reading",
            "game": "1.1",
            "at": "2013-03-15T14:02:30Z",
            "white_ms": 7116000,
            "black_ms": 7134000,
            "running": "white",
            "by": "dgt:13001",
        },
        events=("ClockReadingRecorded",),
    ),
    "correct_moves": Example(
        "opening",
        {
            "cmd": "correct_moves",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "the board read Nf3 for Nc3; the score sheets agree on Nc3",
            "at": "2013-03-15T14:02:30Z",
            "from_ply": 2,
            "moves": ["Nc3", "Nc6"],
        },
        events=("MovesCorrected",),
    ),
    "correct_result": Example(
        "resigned",
        {
            "cmd": "correct_result",
            "game": "1.1",
            "arbiter": "chief",
            "reason": "entered as 1-0; both score sheets say 0-1",
            "at": "2013-03-15T19:05:00Z",
            "result": "0-1",
        },
        events=("ResultCorrected",),
    ),
    "create_tournament": Example(
        "empty",
        {
            "cmd": "create_tournament",
            "tournament": "london-2013",
            "name": "FIDE Candidates Tournament 2013",
            "start_date": "2013-03-15",
            "players": [
                {"id": "carlsen", "name": "Carlsen, Magnus", "federation": "NOR", "rating": 2872},
                {"id": "kramnik", "name": "Kramnik, Vladimir", "federation": "RUS", "rating": 2810},
            ],
            "arbiters": [
                {"id": "chief", "name": "Chief Arbiter", "role": "chief"},
                {"id": "advisor", "name": "Technical Advisor", "role": "advisor"},
            ],
        },
        events=("TournamentCreated",),
    ),
    "declare_result": Example(
        "absent",
        {
            "cmd": "declare_result",
            "game": "1.1",
            "result": "1-0",
            "reason": "Black did not appear within the default time",
            "arbiter": "chief",
            "at": "2013-03-15T15:00:01Z",
            "termination": "default",
        },
        events=("ResultRecorded",),
    ),
    "draw_lots": Example(
        "created",
        {"cmd": "draw_lots", "tournament": "london-2013", "seed": "london-2013"},
        events=("LotsDrawn",),
    ),
    "offer_draw": Example(
        "opening", {"cmd": "offer_draw", "game": "1.1", "by": "white"}, refused="rule_violation"
    ),
    "permit_leave": Example(
        "started",
        {
            "cmd": "permit_leave",
            "player": "carlsen",
            "arbiter": "chief",
            "accompanied_by": "deputy",
            "at": "2013-03-15T14:20:00Z",
        },
        events=("LeavePermitted",),
    ),
    "play_move": Example(
        "started",
        {
            "cmd": "play_move",
            "game": "1.1",
            "move": "e4",
            "at": "2013-03-15T14:00:31Z",
            "white_ms": 7169000,
            "black_ms": 7200000,
            "ply": 1,
        },
        events=("MovePlayed", "ClockReadingRecorded"),
    ),
    "raise_alert": Example(
        "started",
        {
            "cmd": "raise_alert",
            "board": "13001",
            "kind": "board_disconnected",
            "message": "board 13001 stopped answering",
            "game": "1.1",
            "at": "2013-03-15T14:20:00Z",
            "by": "dgt:13001",
        },
        events=("AlertRaised",),
    ),
    "record_illegal_move": Example(
        "opening",
        {
            "cmd": "record_illegal_move",
            "game": "1.1",
            "by": "white",
            "move": "Nxe5?",
            "arbiter": "chief",
            "at": "2013-03-15T14:02:40Z",
        },
        events=("IllegalMoveRecorded", "ClockAdjusted"),
    ),
    "record_incident": Example(
        "started",
        {
            "cmd": "record_incident",
            "game": "1.1",
            "player": "aronian",
            "kind": "device_sounded",
            "arbiter": "chief",
            "at": "2013-03-15T14:10:00Z",
            "details": "Aronian's telephone rang in the playing hall",
            "penalty": "game_lost",
        },
        events=("IncidentRecorded", "ResultRecorded"),
    ),
    "record_score_sheet": Example(
        "drawn",
        {
            "cmd": "record_score_sheet",
            "game": "1.1",
            "round": 1,
            "board": 1,
            "white": "carlsen",
            "black": "aronian",
            "result": "1/2-1/2",
            "moves": ["e4", "e5", "Nf3", "Nc6"],
            "at": "2013-03-15T14:00:00Z",
            "time_control": "40/7200:20/3600:900+30",
        },
        events=(
            "GameStarted",
            "MovePlayed",
            "MovePlayed",
            "MovePlayed",
            "MovePlayed",
            "ResultRecorded",
        ),
    ),
    "renumber_boards": Example(
        "drawn",
        {
            "cmd": "renumber_boards",
            "tournament": "london-2013",
            "boards": {"1": [2, 1, 3, 4]},
            "reason": "the broadcast's board order for round 1",
        },
        events=("BoardsRenumbered",),
    ),
    "reorder_rounds": Example(
        "drawn",
        {
            "cmd": "reorder_rounds",
            "tournament": "london-2013",
            "order": [1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11, 12, 13, 14],
            "reason": "the organisers played the table's round 7 as round 6 (3.2)",
        },
        events=("RoundsReordered",),
    ),
    "resign": Example(
        "opening",
        {"cmd": "resign", "game": "1.1", "by": "black", "at": "2013-03-15T14:03:00Z"},
        events=("ResultRecorded",),
    ),
    "returned": Example(
        "out",
        {"cmd": "returned", "player": "carlsen", "at": "2013-03-15T14:24:00Z"},
        events=("PlayerReturned",),
    ),
    "rule_claim": Example(
        "claimed",
        {
            "cmd": "rule_claim",
            "game": "1.1",
            "claim": 1,
            "decision": "rejected",
            "arbiter": "chief",
            "at": "2013-03-15T14:05:00Z",
        },
        events=("ClaimRuled", "ClockAdjusted"),
    ),
    "rule_default": Example(
        "absent",
        {
            "cmd": "rule_default",
            "game": "1.1",
            "player": "aronian",
            "arbiter": "chief",
            "at": "2013-03-15T15:00:01Z",
        },
        events=("DefaultRuled", "ResultRecorded"),
    ),
    "rule_flag": Example(
        "started",
        {
            "cmd": "rule_flag",
            "game": "1.1",
            "side": "white",
            "arbiter": "chief",
            "at": "2013-03-15T16:00:05Z",
            "decision": "fallen",
        },
        events=("FlagRuled", "ResultRecorded"),
    ),
    "rule_withdrawal_reason": Example(
        "withdrawn",
        {
            "cmd": "rule_withdrawal_reason",
            "player": "kramnik",
            "satisfactory": True,
            "arbiter": "chief",
            "reason": "a medical certificate",
            "at": "2013-03-21T10:00:00Z",
        },
        events=("WithdrawalReasonRuled",),
    ),
    "start_game": Example(
        "drawn",
        {"cmd": "start_game", "game": "1.1", "at": "2013-03-15T14:00:00Z"},
        events=("GameStarted",),
    ),
    "start_playoff": Example(
        "tied",
        {
            "cmd": "start_playoff",
            "tournament": "match-2013",
            "arbiter": "chief",
            "at": "2013-04-02T10:00:00Z",
            "seed": "playoff-1",
        },
        events=("PlayoffStageStarted",),
    ),
    "withdraw": Example(
        "drawn",
        {
            "cmd": "withdraw",
            "tournament": "london-2013",
            "player": "kramnik",
            "reason": "illness",
            "arbiter": "chief",
            "at": "2013-03-20T12:00:00Z",
        },
        events=("PlayerWithdrew",),
    ),
}
"""Command name -> its example (every command has one: the tests check)."""
