"""msgpack transcoder for the event store (plugged in by ``TRANSCODER_TOPIC``).

Events hold values only (str, int, float, bool, None, tuples, string-keyed
maps), so no extension types are needed. Arrays decode as tuples, so a
decoded event is equal to the one that was stored.
"""

from __future__ import annotations

import threading
from typing import Any

import msgpack
from eventsourcing.persistence import Transcoder

_packers = threading.local()


def pack(obj: Any) -> bytes:
    """msgpack bytes of ``obj`` (``msgpack.packb``), by a packer kept for each thread:
    ``packb`` makes a new one for every call, a third of an event's encoding."""
    packer = getattr(_packers, "packer", None)
    if packer is None:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True)
    return packer.pack(obj)  # type: ignore[no-any-return]


class MsgpackTranscoder(Transcoder):
    """Encodes event state as msgpack (about half the size of JSON, and faster)."""

    def encode(self, obj: Any) -> bytes:
        return pack(obj)

    def decode(self, data: bytes) -> Any:
        return msgpack.unpackb(data, raw=False, use_list=False, strict_map_key=False)


TOPIC = f"{__name__}:MsgpackTranscoder"
