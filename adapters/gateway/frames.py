"""Gateway frames: the objects on the wire and their two encodings.

Frames are maps with an ``op`` (DESIGN.md, "Gateway frames"). A websocket
message carries one frame, or an array of frames sent together in one tick.
The encoding is chosen per connection at the opening handshake: msgpack
binary messages by default, JSON text messages when the client asks for the
``json`` subprotocol.

Each frame the server fans out is encoded once per encoding (``Frame``) and
shared by every connection that receives it; a batch is built by
concatenating already encoded frames (a msgpack array header, or JSON
brackets and commas), so no frame is encoded twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from adapters.formats.jsontext import MAX_DEPTH, TextError, check_unicode, unique_keys
from adapters.formats.jsontext import loads as loads_json

JSON = "json"
MSGPACK = "msgpack"
MAX_FRAME_DEPTH = MAX_DEPTH
"""Deepest nesting of maps and arrays in a client frame (a command frame needs 4);
JSON text is measured before it is parsed."""


class FrameError(Exception):
    """A client sent a frame the gateway cannot accept (answered with an error frame)."""

    def __init__(self, code: str, message: str, frame_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.frame_id = frame_id

    def as_frame(self) -> dict[str, Any]:
        return error_frame(self.code, self.message, self.frame_id)


def error_frame(code: str, message: str, frame_id: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"op": "error", "code": code, "message": message}
    if frame_id is not None:
        frame["id"] = frame_id
    return frame


def _json_default(value: object) -> object:
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def encode_json(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_json_default)


def encode_msgpack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def encode(obj: Any, encoding: str) -> str | bytes:
    return encode_json(obj) if encoding == JSON else encode_msgpack(obj)


def decode(message: str | bytes, encoding: str) -> Any:
    """A client message as a Python object; FrameError if it cannot be decoded: not
    UTF-8, not JSON or msgpack, nested deeper than ``MAX_FRAME_DEPTH``, or holding
    text that is not Unicode (a lone surrogate such as ``"\\ud800"``)."""
    if encoding == JSON or isinstance(message, str):
        # JSON text; also tolerated on a msgpack connection (a person typing into a tool)
        try:
            return loads_json(message, MAX_FRAME_DEPTH)
        except TextError as exc:
            hint = (
                ""
                if encoding == JSON
                else " (a text message on a msgpack connection must be JSON; ask for the "
                "'json' subprotocol to speak JSON)"
            )
            raise FrameError("malformed_frame", f"{exc}{hint}") from None
    try:
        value = msgpack.unpackb(
            message, raw=False, strict_map_key=False, object_pairs_hook=unique_keys
        )
    except TextError as exc:
        raise FrameError("malformed_frame", str(exc)) from None
    except Exception as exc:  # msgpack raises several unrelated types on garbage
        raise FrameError("malformed_frame", f"not msgpack: {exc}") from None
    if _depth(value) > MAX_FRAME_DEPTH:
        raise FrameError("malformed_frame", f"frame nested deeper than {MAX_FRAME_DEPTH} levels")
    keys = _keys_not_text(value)
    if keys:
        raise FrameError(
            "malformed_frame",
            f"a map's keys are strings, as in JSON; got the key {shown_key(keys[0])}",
        )
    try:
        check_unicode(value)
    except TextError as exc:
        raise FrameError("malformed_frame", str(exc)) from None
    return value


def _keys_not_text(value: Any) -> list[object]:
    """The first key of a map in ``value`` that is not a string, alone in a list; empty
    when there is none (msgpack allows any key; a frame is what JSON can say, so a
    client's map is keyed by strings only)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str):
                    return [key]
                todo.append(inner)
        elif isinstance(item, list | tuple):
            todo.extend(item)
    return []


def shown_key(key: object) -> str:
    """A key as a refusal shows it: its type and a short repr."""
    text = repr(key)
    return f"{type(key).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _depth(value: Any) -> int:
    """Nesting depth of maps and arrays, without recursion."""
    deepest = 0
    todo = [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level)
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            deepest = max(deepest, level)
            todo.extend((v, level + 1) for v in item)
    return deepest


def _array_header(n: int) -> bytes:
    if n < 16:
        return bytes([0x90 | n])
    if n < 1 << 16:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


@dataclass
class Frame:
    """A server frame fanned out to many connections, encoded at most once per encoding."""

    body: dict[str, Any]
    seq: int = 0
    game: str | None = None
    audience: str = "all"
    """``all`` (every subscriber of the game), ``arbiter`` (alerts) or ``commentary`` (the
    engine's analysis: everyone but arbiters)."""
    broad: bool = False
    """Sent to every subscriber whatever games they chose (it carries standings or games)."""
    tournament: str | None = None
    """The tournament the frame is about (a client may subscribe to one tournament)."""
    _cache: dict[str, str | bytes] = field(default_factory=dict, repr=False)

    def encoded(self, encoding: str) -> str | bytes:
        data = self._cache.get(encoding)
        if data is None:
            data = self._cache[encoding] = encode(self.body, encoding)
        return data


def batch(frames: Sequence[Frame], encoding: str) -> str | bytes:
    """One message for several frames: the frame itself when alone, else an array."""
    if len(frames) == 1:
        return frames[0].encoded(encoding)
    if encoding == JSON:
        return "[" + ",".join(str(f.encoded(JSON)) for f in frames) + "]"
    parts = [_array_header(len(frames))]
    parts.extend(bytes(f.encoded(MSGPACK)) for f in frames)  # type: ignore[arg-type]
    return b"".join(parts)


MESSAGE_BYTES = 512 * 1024
"""The most frames batched into one server message take (encoded): what waits for a client
is sent as several messages rather than one that passes a client's limit (the websocket
libraries' default is 1 MiB). A single frame larger than this goes alone."""


def batches(
    frames: Sequence[Frame], encoding: str, limit: int = MESSAGE_BYTES
) -> list[str | bytes]:
    """``frames`` as messages (``batch``) of at most ``limit`` bytes each, in order."""
    out: list[str | bytes] = []
    group: list[Frame] = []
    size = 0
    for frame in frames:
        length = len(frame.encoded(encoding))
        if group and size + length > limit:
            out.append(batch(group, encoding))
            group, size = [], 0
        group.append(frame)
        size += length + 1
    if group:
        out.append(batch(group, encoding))
    return out


def messages(message: str | bytes, encoding: str) -> list[dict[str, Any]]:
    """Client side: the frames of one server message (a frame or an array of frames)."""
    obj = decode(message, encoding)
    frames = obj if isinstance(obj, list) else [obj]
    return [f for f in frames if isinstance(f, dict)]
