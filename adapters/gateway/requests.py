"""What a client asks, read from its frames: pure code, testable without a socket.

A client sends ``subscribe`` (who it is, which tournament, which games, from which
sequence number), ``command`` (an arbiter's command of the contract) and ``ping``
(docs/protocol.md). Each is checked here into a value the websocket session acts
on, or refused with a ``FrameError`` whose code and message the client gets back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from adapters.gateway.frames import FrameError, Unchecked
from adapters.gateway.tokens import ANONYMOUS, Identity, Tokens
from adapters.store.names import game_key
from engine.commands import REGISTRY
from engine.fields import INT_LIMIT

MAX_FRAME_ID = 128
"""Longest frame ``id`` (characters): it is echoed in every answer."""
MAX_TOKEN = 512
MAX_GAMES = 512
"""Most game ids one subscription may name."""
MAX_GAME_ID = 64
OPS = ("subscribe", "command", "ping")


@dataclass(frozen=True)
class SubscribeRequest:
    """A ``subscribe`` frame, checked: who, which games and tournaments (None: all), and
    the sequence number the client has seen (None: a fresh snapshot)."""

    identity: Identity
    games: frozenset[str] | None
    since: int | None
    tournaments: frozenset[str] | None
    needs: bool = False
    """The ``needs`` frames too (what each player needs to finish first)."""


@dataclass(frozen=True)
class CommandRequest:
    """A ``command`` frame, checked: its id (echoed in the result) and the command as
    the arbiter's token allows it."""

    frame_id: str
    command: Mapping[str, object]
    """The command as the client sent it (the store's door reads and checks it)."""


def frame_op(frame: object) -> str:
    """The ``op`` of a decoded frame, one of ``OPS``; FrameError otherwise."""
    if not isinstance(frame, dict):
        raise FrameError(
            "malformed_frame", f"a frame is a map with an 'op', got {type(frame).__name__}"
        )
    op = frame.get("op")
    if op not in OPS:
        raise FrameError(
            "unknown_op",
            f"unknown op {shown(op)}; a client sends 'subscribe' or 'command'",
            frame_id(frame, required=False),
        )
    return str(op)


def parse_subscribe(
    frame: Unchecked, tokens: Tokens, names: Mapping[str, str], first: str | None
) -> SubscribeRequest:
    """A ``subscribe`` frame against the tournaments the gateway knows (``names``: id ->
    name, ``first``: the store's first) and the token file."""
    tournament = frame.get("tournament", "*")
    tournaments: frozenset[str] | None
    if tournament == "*" or tournament is None:
        tournaments = None
    elif isinstance(tournament, str) and tournament:
        if tournament not in names:
            known = ", ".join(map(repr, names)) or "none yet"
            raise FrameError(
                "unknown_tournament",
                f"no tournament {tournament!r} in this store (it holds {known}); not subscribed",
            )
        tournaments = frozenset([tournament])
    else:
        raise FrameError(
            "malformed_frame",
            f"'tournament' must be \"*\" or a tournament id, got {tournament!r}",
        )
    games = frame.get("games", "*")
    chosen: frozenset[str] | None
    if games == "*":
        chosen = None
    elif (
        isinstance(games, list)
        and len(games) <= MAX_GAMES
        and all(isinstance(g, str) and 0 < len(g) <= MAX_GAME_ID for g in games)
    ):
        # game ids of the subscribed tournament (or keys ``<tournament>/<id>``)
        only = next(iter(tournaments)) if tournaments else None
        chosen = frozenset(game_key(only, g, first) for g in games)
    else:
        raise FrameError(
            "malformed_frame",
            f"'games' must be \"*\" or a list of at most {MAX_GAMES} game ids of at most "
            f"{MAX_GAME_ID} characters, got {shown(games)}",
        )
    since = frame.get("since")
    if since is not None and (
        isinstance(since, bool) or not isinstance(since, int) or abs(since) > INT_LIMIT
    ):
        raise FrameError(
            "malformed_frame",
            f"'since' must be a sequence number (|n| <= 2**53 - 1), got {shown(since)}",
        )
    token = frame.get("token")
    identity = ANONYMOUS
    if token is not None:
        if not isinstance(token, str) or len(token) > MAX_TOKEN:
            raise FrameError(
                "malformed_frame", f"'token' must be a string of at most {MAX_TOKEN} characters"
            )
        found = tokens.identify(token)
        if found is None:
            raise FrameError(
                "invalid_token", "unknown token: not subscribed (check the token file)"
            )
        identity = found
    needs = frame.get("needs", False)
    if not isinstance(needs, bool):
        raise FrameError("malformed_frame", f"'needs' must be true or false, got {shown(needs)}")
    return SubscribeRequest(identity, chosen, since, tournaments, needs)


def parse_command(frame: Unchecked, identity: Identity, subscribed: bool) -> CommandRequest:
    """A ``command`` frame from a connection with ``identity`` (``subscribed``: it has
    subscribed): only an arbiter's, a map of the contract, acting as the token's arbiter."""
    fid = frame_id(frame, required=True)
    assert fid is not None
    if not subscribed:
        raise FrameError(
            "not_subscribed",
            "subscribe first (with an arbiter token), then send commands; nothing was appended",
            fid,
        )
    if not identity.is_arbiter:
        raise FrameError(
            "forbidden",
            f"only an arbiter may send commands; this connection is {identity.role} "
            "(subscribe with an arbiter token first); nothing was appended",
            fid,
        )
    command = frame.get("command")
    if not isinstance(command, dict):
        raise FrameError("malformed_frame", "'command' must be a map of the contract", fid)
    return CommandRequest(fid, as_arbiter(identity, command, fid))


def as_arbiter(identity: Identity, command: Unchecked, fid: str) -> Unchecked:
    """A token bound to an arbiter id acts as that arbiter, and only as that one."""
    arbiter = identity.arbiter_id
    if arbiter is None:
        return command
    given = command.get("arbiter")
    if given is not None and given != arbiter:
        raise FrameError(
            "forbidden",
            f"this token acts as arbiter {arbiter!r}, not {given!r}; nothing was appended",
            fid,
        )
    spec = REGISTRY.get(str(command.get("cmd")))
    if given is None and spec is not None and spec.field("arbiter") is not None:
        return {**command, "arbiter": arbiter}
    return command


def frame_id(frame: Unchecked, *, required: bool) -> str | None:
    """The frame's ``id``: a string of 1 to ``MAX_FRAME_ID`` characters (echoed back in
    the answer), else FrameError; None when absent and not required."""
    fid = frame.get("id")
    if fid is None and not required:
        return None
    if not isinstance(fid, str) or not 0 < len(fid) <= MAX_FRAME_ID:
        raise FrameError(
            "malformed_frame",
            f"a frame's 'id' must be a string of 1 to {MAX_FRAME_ID} characters"
            + ("" if required else " (or absent)"),
        )
    return fid


def shown(value: object) -> str:
    """A client's value in a message: its repr, cut short (never echo megabytes)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
