"""``candidates dgt decode|moves|simulate|run`` and the ``.dgt`` recording format."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from adapters.cli import main
from adapters.dgt import protocol as p
from adapters.dgt.recording import MAGIC, Recorder, parse_recording, read_input
from adapters.dgt.simulator import load_game
from adapters.store import Store
from tests.test_dgt_serial import PGN


def run_cli(args: list[str], stdin: bytes | None = None) -> list[dict]:  # type: ignore[type-arg]
    out = subprocess.run(
        [str(Path(sys.executable).parent / "candidates"), *args],
        input=stdin,
        capture_output=True,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.decode().splitlines()]


def placement_after(*moves: str, fen: str | None = None) -> str:
    board = chess.Board(fen) if fen else chess.Board()
    for uci in moves:
        board.push_uci(uci)
    return board.board_fen()


class TestDecode:
    def test_one_json_line_per_message_with_the_documented_fields(self) -> None:
        stream = (
            b"\x00"
            + p.encode_placement(chess.STARTING_BOARD_FEN)
            + p.encode_field_update(52, 0)
            + p.encode_field_update(36, 1)
            + bytes.fromhex("8d 00 0a 01 29 55 01 30 00 0b")
            + p.encode_clock_ack(0x10, 0x0A)
            + p.encode_serial("24680")
            + p.encode_version(1, 7)
        )
        lines = run_cli(["dgt", "decode", "-"], stdin=stream)
        assert [line["type"] for line in lines] == [
            "protocol_error",
            "board_dump",
            "field_update",
            "field_update",
            "clock",
            "clock_ack",
            "serial_number",
            "version",
        ]
        assert lines[1]["board_fen"] == chess.STARTING_BOARD_FEN
        assert lines[2] == {"type": "field_update", "field": 52, "square": "e2", "piece": None}
        assert lines[3]["square"] == "e4" and lines[3]["piece"] == "P"
        clock = lines[4]
        assert (clock["left_ms"], clock["right_ms"], clock["running"]) == (
            5_400_000,
            5_395_000,
            "right",
        )
        assert clock["left_flag"] is False and clock["right_flag"] is False
        assert lines[5]["ok"] is True
        assert lines[6]["serial"] == "24680"
        assert lines[7]["version"] == "1.7"

    def test_a_rotated_dump_is_printed_as_read_in_normal_orientation(self, tmp_path: Path) -> None:
        path = tmp_path / "rot.bin"
        path.write_bytes(p.encode_placement(chess.STARTING_BOARD_FEN, rotated=True))
        [line] = run_cli(["dgt", "decode", str(path)])
        assert line["board_fen"] == "RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr"


class TestMoves:
    def test_every_dump_settles_raw_bytes_and_transients_are_corrected(self) -> None:
        # Castling with the rook put on f1 first, and a pawn paused on e3: each a
        # legal move when its dump arrives, each corrected by what follows.
        fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
        rook_on_f1 = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3KR2"
        stream = b"".join(
            p.encode_placement(pl)
            for pl in (
                placement_after(fen=fen),
                rook_on_f1,
                placement_after("e1g1", fen=fen),
                placement_after("e1g1", "e7e6", fen=fen),
                placement_after("e1g1", "e7e5", fen=fen),
            )
        )
        lines = run_cli(["dgt", "moves", "--start", fen, "-"], stdin=stream)
        assert lines == [
            {"input": "raw", "timed": False, "bytes": len(stream)},
            {"type": "move", "ply": 1, "uci": "h1f1", "san": "Rf1"},
            {"type": "correction", "ply": 1, "replaced": "h1f1", "uci": "e1g1", "san": "O-O"},
            {"type": "move", "ply": 2, "uci": "e7e6", "san": "e6"},
            {"type": "correction", "ply": 2, "replaced": "e7e6", "uci": "e7e5", "san": "e5"},
            {"moves": ["e1g1", "e7e5"]},
        ]

    def test_takeback_and_impossible_position_lines(self) -> None:
        stream = b"".join(
            p.encode_placement(pl)
            for pl in (
                placement_after("e2e4"),
                placement_after("e2e4", "e7e5"),
                placement_after("e2e4", "e7e5", "g1f3"),  # e5 complete: a move followed
                placement_after("e2e4"),  # both taken back
                "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR",  # nothing legal leads here
            )
        )
        lines = run_cli(["dgt", "moves", "-"], stdin=stream)[1:]
        assert lines[0] == {"type": "move", "ply": 1, "uci": "e2e4", "san": "e4"}
        assert lines[3] == {
            "type": "takeback",
            "from_ply": 3,
            "to_ply": 1,
            "undone": ["e7e5", "g1f3"],
        }
        assert lines[4]["type"] == "alert" and lines[4]["kind"] == "impossible_position"
        assert lines[4]["diff"] == [
            {"square": "d2", "expected": "P", "found": None},
            {"square": "d4", "expected": None, "found": "P"},
        ]
        assert lines[-1] == {"moves": ["e2e4"]}

    def test_a_simulated_recording_gives_the_whole_game(self, tmp_path: Path) -> None:
        path = tmp_path / "g.dgt"
        status = main(
            [
                "dgt", "simulate", "--pgn", str(PGN), "--round", "6.3", "--knocks", "0.2",
                "--rotated", "--out", str(path),
            ]
        )  # fmt: skip
        assert status == 0
        lines = run_cli(["dgt", "moves", str(path)])
        expected = [m.uci() for m in load_game(PGN, round_="6.3").mainline_moves()]
        assert lines[0]["input"] == "recording" and lines[0]["timed"] is True
        assert lines[-1] == {"moves": expected}
        assert all("at" in line for line in lines[1:-1])


class TestRecordingFormat:
    def test_layout_magic_header_and_records(self, tmp_path: Path) -> None:
        path = tmp_path / "r.dgt"
        with Recorder(path, 1_000_000, source="/dev/ttyUSB0") as recorder:
            recorder.link_event(1_000_000, "connected")
            recorder.host_bytes(1_000_005, b"\x4b")
            recorder.board_bytes(1_000_250, p.encode_field_update(12, 0))
        data = path.read_bytes()
        assert data.startswith(MAGIC)
        header_end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC) : header_end])
        assert header == {
            "format": "candidates-dgt",
            "version": 1,
            "started_at_ms": 1_000_000,
            "source": "/dev/ttyUSB0",
        }
        body = data[header_end + 1 :]
        assert body[:7] == struct.pack(">BIH", 3, 0, 9) and body[7:16] == b"connected"
        recording = parse_recording(data)
        assert [(r.kind, r.at_ms) for r in recording.records] == [
            (3, 1_000_000),
            (2, 1_000_005),
            (1, 1_000_250),
        ]
        chunks, timed, _ = read_input(data)
        assert timed and chunks == [(1_000_250, p.encode_field_update(12, 0))]

    def test_a_truncated_last_record_is_ignored_and_reported(self, tmp_path: Path) -> None:
        path = tmp_path / "r.dgt"
        with Recorder(path, 0) as recorder:
            recorder.board_bytes(10, b"\x8e\x00\x05\x0c\x00")
            recorder.board_bytes(20, b"\x8e\x00\x05\x0c\x01")
        recording = parse_recording(path.read_bytes()[:-3])
        assert recording.truncated and len(recording.records) == 1

    def test_raw_bytes_are_untimed(self) -> None:
        assert read_input(b"\x86\x00") == ([(0, b"\x86\x00")], False, None)

    def test_a_bad_header_is_a_clear_error(self) -> None:
        with pytest.raises(ValueError, match=r"the \.dgt header is not JSON"):
            parse_recording(MAGIC + b"{not json\n")


def test_dgt_run_feeds_the_store_from_a_recording(tmp_path: Path) -> None:
    from adapters.host.clock import wall_clock_ms
    from engine.timefmt import format_instant

    rec = tmp_path / "g.dgt"
    started = format_instant(wall_clock_ms() - 1000)  # the recording starts now
    assert main(["dgt", "simulate", "--pgn", str(PGN), "--round", "11.2", "--out", str(rec)]) == 0
    store_path = str(tmp_path / "s.sqlite")
    with Store(store_path) as store:
        answer = store.handle(
            {
                "cmd": "start_game",
                "game": "11.2",
                "at": started,
                "white": "ivanchuk",
                "black": "gelfand",
            }
        )
        assert answer["ok"]
    status = main(
        ["--store", store_path, "dgt", "run", "--dgt-file", f"{rec}=11.2", "--speed", "0"]
    )
    assert status == 0
    with Store(store_path) as store:
        game = store.reads.game("11.2")
        assert game is not None
        assert list(game.moves) == [m.uci() for m in load_game(PGN, round_="11.2").mainline_moves()]


def test_dgt_run_refuses_a_bad_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dgt", "run", "--dgt", "/dev/ttyUSB0=1.1@north"]) == 2
    assert "White's clock side is @left or @right, not @north" in capsys.readouterr().err


def test_dgt_record_keeps_every_byte_and_the_recording_replays(tmp_path: Path) -> None:
    import asyncio

    from adapters.cli.cmd_dgt import reconstruct_lines
    from adapters.dgt.simulated_links import TcpLink
    from adapters.dgt.simulator import BoardSimulator

    game = load_game(PGN, round_="6.3")
    sim = BoardSimulator.from_pgn(game, time_scale=0.3, think_ms=300, seed=9)
    sim.moves = sim.moves[:12]
    out = tmp_path / "live.dgt"
    seconds = sim.script()[-1].at_ms / 1000 + 2.5

    async def main() -> int:
        link = TcpLink(port=0)
        board = asyncio.create_task(link.play(sim))
        await link.bound.wait()
        recorder = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "candidates"),
            "dgt", "record", "--dgt", f"tcp://127.0.0.1:{link.port}",
            "--out", str(out), "--seconds", str(seconds),
        )  # fmt: skip
        status = await recorder.wait()
        await board
        await link.close()
        return status

    assert asyncio.run(main()) == 0
    recording = parse_recording(out.read_bytes())
    kinds = {r.kind for r in recording.records}
    assert kinds == {1, 2, 3}
    sent = b"".join(r.data for r in recording.records if r.kind == 2)
    assert sent.startswith(bytes(p.STARTUP_COMMANDS))
    # Replayed with the debounce scaled like the choreography.
    lines = reconstruct_lines(out.read_bytes(), chess.STARTING_FEN, debounce_ms=90)
    assert lines[-1] == {"moves": [m.uci() for m in sim.moves]}
