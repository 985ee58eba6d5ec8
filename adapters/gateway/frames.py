"""Gateway frames: the objects on the wire, each one declared type, and their two encodings.

Frames are maps with an ``op`` (DESIGN.md, "Gateway frames"), each declared here once as
a TypedDict (``CLIENT_FRAMES``, ``SERVER_FRAMES``: ``make docs`` generates
docs/schema/frames.schema.json from them). A websocket message carries one frame, or an
array of frames sent together in one tick. The encoding is chosen per connection at the
opening handshake: msgpack binary messages by default, JSON text messages when the client
asks for the ``json`` subprotocol; both are written by msgspec.

Each frame the server fans out is encoded once per encoding (``Frame``) and
shared by every connection that receives it; a batch is built by
concatenating already encoded frames (a msgpack array header, or JSON
brackets and commas), so no frame is encoded twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict, cast

import msgpack
import msgspec
from msgspec import Meta

from adapters.formats.jsontext import MAX_DEPTH, TextError, check_unicode, unique_keys
from adapters.formats.jsontext import loads as loads_json
from adapters.store.answers import Answer
from adapters.store.queries import IncidentBook
from projections.claims_view import ClaimShown
from projections.evaluation import AnalysisFrame
from projections.game_view import GameObject
from projections.needs import Needs
from projections.shapes import Count, EventWire, Instant, Ordinal
from projections.standings import Standings

Unchecked = Mapping[str, object]
"""A frame as decoded from the wire, not yet checked: its sender's word until the reader
checks each field it reads (the gateway reads a client's into a request, field by field,
with a specific refusal: ``requests``; its declared shape is ``SubscribeFrame``,
``CommandFrame`` or ``PingFrame``)."""

# -- the frames: one declared type each (docs/schema/frames.schema.json is generated from them) --

GamesChosen = Literal["*"] | list[str]
"""Every game (``*``) or the ids of some."""

CLOSED = Meta(extra_json_schema={"additionalProperties": False})
"""A client frame holds its declared fields and no other."""


class SubscribeFrame(TypedDict, total=False):
    """Client: who it is (``token``), which tournament and games, from which ``seq``."""

    op: Required[Literal["subscribe"]]
    games: GamesChosen
    since: int | None
    token: str | None
    tournament: Annotated[
        str, Meta(description="one tournament of the store, or `*` for all (the default)")
    ]
    needs: Annotated[
        bool,
        Meta(
            description="true: the `needs` frames too (what each player needs to finish "
            "first; docs/needs.md)"
        ),
    ]


class CommandBody(TypedDict):
    """A command of the contract (commands.schema.json); the engine decides it and answers
    with a result frame."""

    cmd: str


class CommandFrame(TypedDict):
    """Client: an arbiter's command, answered by a ``result`` frame with the same id."""

    op: Literal["command"]
    id: str
    command: CommandBody


class PingFrame(TypedDict):
    """Client: is the gateway there (answered by ``pong``)."""

    op: Literal["ping"]
    id: NotRequired[str | None]


class TournamentListing(TypedDict):
    id: str
    name: str


Role = Literal["arbiter", "commentator", "public"]
NotResumed = Literal["public", "position_unknown", "too_old"]


class SubscribedFrame(TypedDict):
    """Server: the subscription as the gateway took it; a snapshot or the missed frames
    follow."""

    op: Literal["subscribed"]
    seq: Count
    role: Role
    name: str | None
    games: GamesChosen
    tournament: str
    tournaments: list[TournamentListing]
    delay_ms: Count
    since: int | None
    resumed: bool
    not_resumed: NotRequired[
        Annotated[
            NotResumed,
            Meta(description="with a since that does not resume: why a snapshot follows"),
        ]
    ]


class TournamentShown(TypedDict):
    """A subscribed tournament with its name and standings."""

    id: str
    name: str
    standings: Standings | None


class SnapshotFrame(TypedDict):
    """Server: every game the client follows and the standings, as of ``seq``: those of
    the subscribed tournament (of the store's first when the subscription spans several),
    and each subscribed tournament's in ``tournaments``."""

    op: Literal["snapshot"]
    seq: Count
    games: list[GameObject]
    standings: Standings | None
    tournaments: list[TournamentShown]
    now: Instant
    delay_ms: Count


class DeltaFrame(TypedDict):
    """Server: one event, with the objects it changed riding on the last delta of a batch."""

    op: Literal["delta"]
    seq: Ordinal
    kind: str
    game: str | None
    event: EventWire
    object: NotRequired[GameObject]
    games: NotRequired[list[GameObject]]
    standings: NotRequired[Standings]
    tournament: NotRequired[str]


class AlertFrame(TypedDict, total=False):
    """Server: an alert for the arbiters; later versions of the gateway may add fields (an
    alert that is closed, for instance)."""

    op: Required[Literal["alert"]]
    kind: Required[str]
    seq: int | None
    game: str | None
    tournament: Annotated[
        str, Meta(description="the alert's tournament, when it is not the store's first")
    ]
    key: Annotated[
        str,
        Meta(
            description="what the alert is about: `<game>/...`, `<tournament>/<game>/...` for "
            "a further tournament's game"
        ),
    ]
    closed: bool
    message: str | None
    details: dict[str, object] | None
    """What the alert's raiser recorded with it (``AlertRaised.details``: an open map)."""
    claim: ClaimShown
    at: str
    by: str | None


class ResultFrame(Answer):
    """Server: the answer to a ``command`` frame, with its id."""

    op: Literal["result"]
    id: str | None


ANSWERED = Meta(
    extra_json_schema={
        "oneOf": [
            {"properties": {"ok": {"const": True}}, "required": ["events"]},
            {"properties": {"ok": {"const": False}}, "required": ["error"]},
        ]
    }
)
"""An accepted command lists its events, a refused one its error (a constraint across two
fields, which the types alone do not say)."""


class ErrorFrame(TypedDict):
    """Server: a frame the gateway could not accept."""

    op: Literal["error"]
    code: Annotated[
        str, Meta(description="malformed_frame, unknown_op, invalid_token, forbidden, ...")
    ]
    message: str
    id: NotRequired[str]


class IncidentsFrame(TypedDict):
    """Server: arbiters: a tournament's incident book (who is out of the playing area,
    with whom; every incident and ruling), after a snapshot or a resume and when it
    changes; one frame per subscribed tournament."""

    op: Literal["incidents"]
    seq: int | None
    tournament: Annotated[str, Meta(description="the book's tournament")]
    book: IncidentBook


class PongFrame(TypedDict):
    """Server: the answer to a ``ping``, with its id."""

    op: Literal["pong"]
    id: str | None


class NeedsFrame(TypedDict):
    """Server: what each player needs to finish first and the chances of each
    (docs/needs.md): a tournament's needs object, at start and whenever its standings
    change; the scenarios listed when at most 729 (else `scenarios_omitted`; /api/needs
    lists all)."""

    op: Literal["needs"]
    seq: int | None
    tournament: str
    needs: Needs | None


ClientFrame = SubscribeFrame | CommandFrame | PingFrame
ServerFrame = (
    SubscribedFrame
    | SnapshotFrame
    | DeltaFrame
    | AlertFrame
    | IncidentsFrame
    | AnalysisFrame
    | NeedsFrame
    | ResultFrame
    | ErrorFrame
    | PongFrame
)

CLIENT_FRAMES: dict[str, object] = {
    "subscribe": Annotated[SubscribeFrame, CLOSED],
    "command": Annotated[CommandFrame, CLOSED],
    "ping": Annotated[PingFrame, CLOSED],
}
"""Each client frame's type by its ``op`` (``tools/reference.py`` writes their schema)."""
SERVER_FRAMES: dict[str, object] = {
    "subscribed": SubscribedFrame,
    "snapshot": SnapshotFrame,
    "delta": DeltaFrame,
    "alert": AlertFrame,
    "incidents": IncidentsFrame,
    "analysis": AnalysisFrame,
    "needs": NeedsFrame,
    "result": Annotated[ResultFrame, ANSWERED],
    "error": ErrorFrame,
    "pong": PongFrame,
}
"""Each server frame's type by its ``op``."""


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

    def as_frame(self) -> ErrorFrame:
        return error_frame(self.code, self.message, self.frame_id)


def error_frame(code: str, message: str, frame_id: str | None = None) -> ErrorFrame:
    frame: ErrorFrame = {"op": "error", "code": code, "message": message}
    if frame_id is not None:
        frame["id"] = frame_id
    return frame


def encode_json(obj: object) -> str:
    """JSON text, compact, non-ASCII as it is (msgspec: bench/bench_contract.py)."""
    return msgspec.json.encode(obj).decode()


def encode_msgpack(obj: object) -> bytes:
    return msgspec.msgpack.encode(obj)


def encode(obj: object, encoding: str) -> str | bytes:
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

    body: ServerFrame
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


def server_frame(raw: Unchecked) -> ServerFrame:
    """A server frame as a client reads it, checked against the type its ``op`` declares
    (``SERVER_FRAMES``) and given back as read: an event's own fields, and fields a later
    gateway adds, are kept. FrameError names what does not fit."""
    op = raw.get("op")
    shape = SERVER_FRAMES.get(op) if isinstance(op, str) else None
    if shape is None:
        raise FrameError("unknown_op", f"no server frame has the op {op!r}")
    try:
        msgspec.convert(raw, shape, strict=True)
    except msgspec.ValidationError as error:
        raise FrameError("malformed_frame", f"{op}: {error}") from None
    return cast(ServerFrame, raw)


def messages(message: str | bytes, encoding: str) -> list[Unchecked]:
    """Client side: the frames of one server message (a frame or an array of frames), as
    decoded: what the reader checks where it reads them."""
    obj = decode(message, encoding)
    frames = obj if isinstance(obj, list) else [obj]
    return [f for f in frames if isinstance(f, dict)]
