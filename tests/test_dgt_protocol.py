"""The DGT board protocol, byte for byte (docs/dgt.md, "Protocol").

Every vector is built by hand from the documented layout: id byte with bit 7
set, a 14-bit total length that includes the 3 header bytes, payload bytes
below 0x80.
"""

from __future__ import annotations

import chess

from adapters.dgt import protocol as p
from adapters.dgt.board_codes import PIECE_LETTERS, codes_of, field_square_name, field_to_square

START_DUMP_PAYLOAD = bytes(
    [0x08, 0x09, 0x0A, 0x0C, 0x0B, 0x0A, 0x09, 0x08]  # a8..h8: r n b q k b n r
    + [0x07] * 8
    + [0x00] * 32
    + [0x01] * 8
    + [0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]  # a1..h1: R N B Q K B N R
)


def decode(data: bytes) -> list[p.Message]:
    parser = p.DgtParser()
    return parser.feed(data) + parser.flush()


class TestFraming:
    def test_board_dump_is_67_bytes_with_the_length_in_two_7_bit_halves(self) -> None:
        vector = bytes([0x86, 0x00, 0x43]) + START_DUMP_PAYLOAD
        [dump] = decode(vector)
        assert isinstance(dump, p.BoardDump)
        assert dump.placement == chess.STARTING_BOARD_FEN
        assert p.encode_placement(chess.STARTING_BOARD_FEN) == vector

    def test_field_update_field_0_is_a8_and_63_is_h1(self) -> None:
        assert decode(bytes([0x8E, 0x00, 0x05, 0x00, 0x0B])) == [p.FieldUpdate(0, 0x0B)]
        assert field_square_name(0) == "a8"
        assert field_square_name(63) == "h1"
        assert field_square_name(52) == "e2"
        assert field_to_square(52) == chess.E2
        # A board turned 180 degrees: field i is the game square of field 63 - i.
        assert field_to_square(52, rotated=True) == chess.D7

    def test_piece_codes_put_the_king_before_the_queen(self) -> None:
        assert [PIECE_LETTERS[c] for c in range(1, 13)] == list("PRNBKQprnbkq")

    def test_several_messages_in_one_read_and_one_message_over_many_reads(self) -> None:
        stream = (
            p.encode_field_update(52, 0)
            + p.encode_field_update(36, 1)
            + p.encode_serial("12345")
            + p.encode_version(1, 2)
        )
        assert decode(stream) == [
            p.FieldUpdate(52, 0),
            p.FieldUpdate(36, 1),
            p.SerialNumber("12345"),
            p.Version(1, 2),
        ]
        parser = p.DgtParser()
        out: list[p.Message] = []
        for byte in stream:
            out += parser.feed(bytes([byte]))
        assert out == decode(stream)
        assert parser.errors == 0 and parser.messages == 4

    def test_serial_number_in_the_1998_twelve_byte_form_is_accepted(self) -> None:
        vector = bytes([0x91, 0x00, 0x0C]) + b"12345 1.0"
        assert decode(vector) == [p.SerialNumber("12345")]

    def test_long_serial_trademark_bus_address_battery(self) -> None:
        long_serial = bytes([0xA2, 0x00, 0x0D]) + b"0123456789"
        trademark = p.frame(p.MSG_TRADEMARK, b"Digital Game Technology")
        bus = bytes([0x90, 0x00, 0x05, 0x01, 0x02])
        battery = p.frame(p.MSG_BATTERY_STATUS, bytes([72, 0x7F, 0x7F, 1, 2, 0, 0, 0, 2]))
        assert decode(long_serial + trademark + bus + battery) == [
            p.SerialNumber("0123456789", long=True),
            p.Trademark("Digital Game Technology"),
            p.BusAddress(0x82),
            p.BatteryStatus(bytes([72, 0x7F, 0x7F, 1, 2, 0, 0, 0, 2])),
        ]


class TestResynchronisation:
    """Only the id byte has bit 7 set: a reader discards bytes until it sees one."""

    def test_garbage_before_a_message_is_one_counted_error(self) -> None:
        parser = p.DgtParser()
        out = parser.feed(b"\x00\x13\x7f" + p.encode_field_update(12, 7))
        assert [type(m) for m in out] == [p.ProtocolError, p.FieldUpdate]
        assert out[0].reason == "bytes outside a message"  # type: ignore[union-attr]
        assert out[0].offset == 0 and out[0].data == b"\x00\x13\x7f"  # type: ignore[union-attr]
        assert parser.errors == 1

    def test_a_size_byte_with_bit_7_breaks_the_frame_and_parsing_restarts_at_it(self) -> None:
        # The damaged header's "size" byte is really the next message's id.
        vector = bytes([0x8E]) + p.encode_field_update(3, 8)
        out = decode(vector)
        assert isinstance(out[0], p.ProtocolError)
        assert out[0].reason == "frame broken by a byte with bit 7 set"
        assert out[1] == p.FieldUpdate(3, 8)

    def test_a_payload_byte_with_bit_7_breaks_the_frame_without_losing_the_next(self) -> None:
        truncated_dump = bytes([0x86, 0x00, 0x43]) + START_DUMP_PAYLOAD[:20]
        out = decode(truncated_dump + p.encode_field_update(60, 5))
        assert isinstance(out[0], p.ProtocolError)
        assert out[0].offset == 0
        assert out[1] == p.FieldUpdate(60, 5)

    def test_unknown_id_is_dropped_and_the_next_message_read(self) -> None:
        out = decode(bytes([0xFF, 0x00, 0x05, 0x01, 0x02]) + p.encode_version(2, 10))
        assert isinstance(out[0], p.ProtocolError)
        assert out[0].reason == "unknown message id 0xff"
        assert out[-1] == p.Version(2, 10)

    def test_impossible_length_for_a_fixed_size_message_is_an_error(self) -> None:
        out = decode(bytes([0x8E, 0x00, 0x07, 1, 2, 3, 4]) + p.encode_field_update(1, 1))
        assert isinstance(out[0], p.ProtocolError)
        assert out[0].reason == "message 0x8e with impossible length 7"
        assert out[-1] == p.FieldUpdate(1, 1)

    def test_field_beyond_63_and_unknown_piece_codes_are_errors(self) -> None:
        [bad_field] = decode(bytes([0x8E, 0x00, 0x05, 64, 1]))
        [bad_code] = decode(bytes([0x8E, 0x00, 0x05, 10, 0x10]))
        assert isinstance(bad_field, p.ProtocolError)
        assert bad_field.reason == "field update for field 64"
        assert isinstance(bad_code, p.ProtocolError)
        assert bad_code.reason == "field update with unknown piece code 0x10"

    def test_a_frame_cut_by_the_end_of_the_stream_is_reported_at_flush(self) -> None:
        parser = p.DgtParser()
        assert parser.feed(p.encode_placement(chess.STARTING_BOARD_FEN)[:30]) == []
        assert parser.pending() == 30
        [error] = parser.flush()
        assert isinstance(error, p.ProtocolError)
        assert error.reason == "stream ended inside a frame"


class TestBwtime:
    """0x8d: p[0..2] right h/m/s, p[3..5] left h/m/s, p[6] status; minutes and
    seconds in BCD, hours binary."""

    def test_the_documented_example(self) -> None:
        [clock] = decode(bytes.fromhex("8d 00 0a 01 29 55 01 30 00 0b"))
        assert isinstance(clock, p.ClockTimes)
        assert clock.right_ms == (1 * 3600 + 29 * 60 + 55) * 1000
        assert clock.left_ms == 90 * 60 * 1000
        assert clock.running == "right"  # running, right side of the lever up
        assert not clock.no_clock and not clock.battery_low

    def test_lever_left_up_means_the_left_clock_runs_and_bit0_clear_means_stopped(self) -> None:
        [left] = decode(bytes.fromhex("8d 00 0a 00 05 00 00 04 59 01"))
        [stopped] = decode(bytes.fromhex("8d 00 0a 00 05 00 00 04 59 02"))
        assert isinstance(left, p.ClockTimes) and left.running == "left"
        assert left.left_ms == (4 * 60 + 59) * 1000 and left.right_ms == 5 * 60 * 1000
        assert isinstance(stopped, p.ClockTimes) and stopped.running is None

    def test_flags_battery_and_no_clock_bits(self) -> None:
        [clock] = decode(bytes.fromhex("8d 00 0a 10 00 00 41 00 07 24"))
        assert isinstance(clock, p.ClockTimes)
        assert clock.right_flag and clock.left_flag and clock.right_ms == 0
        assert clock.battery_low and clock.no_clock

    def test_not_bcd_or_above_59_is_rejected(self) -> None:
        [bad_bcd] = decode(bytes.fromhex("8d 00 0a 01 2a 00 01 00 00 01"))
        [above] = decode(bytes.fromhex("8d 00 0a 01 60 00 01 00 00 01"))
        assert isinstance(bad_bcd, p.ProtocolError)
        assert bad_bcd.reason == "clock minutes/seconds are not BCD"
        assert isinstance(above, p.ProtocolError)
        assert above.reason == "clock minutes/seconds above 59"

    def test_all_zero_payload_is_the_null_message(self) -> None:
        assert decode(bytes.fromhex("8d 00 0a 00 00 00 00 00 00 00")) == [p.ClockNull()]

    def test_ack_is_told_by_the_0x0a_nibble_and_bit_7s_travel_in_bits_4_and_5(self) -> None:
        # ack0 = 0x10 (normal), ack1 = 0x88 (button pressed, clock-generated), ack3 = 0x33.
        [ack] = decode(bytes.fromhex("8d 00 0a 0a 10 08 2a 00 33 00"))
        assert ack == p.ClockAck(0x10, 0x88, 0x00, 0x33)
        assert ack.ok
        assert p.encode_clock_ack(0x10, 0x88, 0x00, 0x33) == bytes.fromhex(
            "8d 00 0a 0a 10 08 2a 00 33 00"
        )

    def test_encoder_round_trip(self) -> None:
        data = p.encode_clock(5_399_000, 7_200_000, "left")
        [clock] = decode(data)
        assert isinstance(clock, p.ClockTimes)
        assert (clock.left_ms, clock.right_ms, clock.running) == (5_399_000, 7_200_000, "left")


class TestHostCommands:
    def test_single_byte_commands(self) -> None:
        assert p.command(p.SEND_BRD) == b"\x42"
        assert p.command(p.SEND_UPDATE_NICE) == b"\x4b"
        assert p.STARTUP_COMMANDS[0] == p.SEND_UPDATE_NICE  # the board is IDLE until told

    def test_clock_wrapper_counts_every_byte_after_the_size(self) -> None:
        assert p.clock_command(p.CLOCK_VERSION) == bytes.fromhex("2b 03 03 09 00")
        assert p.clock_command(p.CLOCK_BEEP, b"\x08") == bytes.fromhex("2b 04 03 0b 08 00")
        set_and_run = p.clock_set_and_run(5400, 5400, 0x01)
        assert set_and_run == bytes.fromhex("2b 0a 03 0a 01 1e 00 01 1e 00 01 00")


class TestDescribe:
    def test_json_forms(self) -> None:
        assert p.describe(p.FieldUpdate(36, 0)) == {
            "type": "field_update",
            "field": 36,
            "square": "e4",
            "piece": None,
        }
        dump = p.BoardDump((*codes_of("8/8/8/8/8/8/8/K6k")[:63], 0x0E))
        described = p.describe(dump)
        assert described["board_fen"] == "8/8/8/8/8/8/8/K7"
        assert described["magic"] == [{"square": "h1", "result": "1-0"}]
