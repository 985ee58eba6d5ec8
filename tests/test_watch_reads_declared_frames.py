"""``candidates watch`` reads each frame as the type its ``op`` declares
(``adapters.gateway.frames.server_frame``): one declaration per shape, checked where the
frame arrives, the event's own fields kept."""

from __future__ import annotations

import io

import pytest

from adapters.cli.cmd_watch import Printer
from adapters.gateway.frames import FrameError, server_frame

DELTA = {
    "op": "delta",
    "seq": 7,
    "kind": "MovePlayed",
    "game": "1.1",
    "event": {
        "type": "MovePlayed",
        "stream": "game/1.1",
        "version": 3,
        "at": "2013-03-15T14:01:00.000Z",
        "ply": 3,
        "san": "Nf3",
    },
}


def test_a_delta_is_read_as_declared_and_keeps_its_events_own_fields() -> None:
    frame = server_frame(DELTA)
    assert frame["op"] == "delta"
    assert frame["event"].get("san") == "Nf3"
    out = io.StringIO()
    Printer(out).frame(frame)
    assert "2. Nf3" in out.getvalue()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ({**DELTA, "seq": "7"}, "malformed_frame"),
        ({k: v for k, v in DELTA.items() if k != "event"}, "malformed_frame"),
        ({**DELTA, "event": {**DELTA["event"], "at": "yesterday"}}, "malformed_frame"),
        ({"op": "teleport"}, "unknown_op"),
        ({"seq": 1}, "unknown_op"),
    ],
)
def test_a_frame_outside_its_declared_type_is_named_not_read(raw: dict, code: str) -> None:
    with pytest.raises(FrameError) as refused:
        server_frame(raw)
    assert refused.value.code == code
