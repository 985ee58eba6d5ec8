"""Roles by token: who may command, who sees the live feed, who waits.

The token file (``candidates serve --tokens FILE``, a JSON object by token) gives each
token a role: an ``arbiter`` sends commands and gets the arbiters' alerts (acting as
the arbiter the token names, if any), a ``commentator`` gets the live feed; without a
token a client is public and delayed. Tokens are compared in constant time, so the
time taken does not tell how much of a guess was right (docs/protocol.md)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

from adapters.formats.jsontext import TextError, loads

ARBITER, COMMENTATOR, PUBLIC = "arbiter", "commentator", "public"
ROLES = (ARBITER, COMMENTATOR)


class TokenFileError(ValueError):
    """The token file cannot be read or is not of the documented form."""


@dataclass(frozen=True)
class Identity:
    """Who is on the other end of a connection."""

    role: str
    name: str
    arbiter_id: str | None = None

    @property
    def is_arbiter(self) -> bool:
        return self.role == ARBITER

    @property
    def is_public(self) -> bool:
        return self.role == PUBLIC


ANONYMOUS = Identity(PUBLIC, "public")


class Tokens:
    """Token -> identity, looked up in constant time."""

    def __init__(self, entries: dict[str, Identity] | None = None) -> None:
        self._entries = [(t.encode("utf-8"), i) for t, i in (entries or {}).items()]

    def __len__(self) -> int:
        return len(self._entries)

    def identify(self, token: str) -> Identity | None:
        """The identity of ``token``, or None. Every entry is compared, in constant time."""
        given = token.encode("utf-8")
        found: Identity | None = None
        for known, identity in self._entries:
            if hmac.compare_digest(known, given):
                found = identity
        return found


def request_token(query: dict[str, list[str]], authorization: str) -> str | None:
    """The token an HTTP request carries: ``?token=``, else ``Authorization: Bearer``;
    None without one."""
    given = query.get("token")
    if given:
        return given[0]
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def parse_tokens(raw: object, source: str = "token file") -> Tokens:
    if not isinstance(raw, dict):
        raise TokenFileError(f"{source}: expected a JSON object of token -> {{role, name}}")
    entries: dict[str, Identity] = {}
    for token, spec in raw.items():
        shown = f"{token[:4]}..." if len(token) > 4 else "..."
        if not isinstance(token, str) or len(token) < 8:
            raise TokenFileError(f"{source}: token {shown!r} is shorter than 8 characters")
        if not isinstance(spec, dict):
            raise TokenFileError(f"{source}: token {shown!r} must map to an object")
        role = spec.get("role")
        if role not in ROLES:
            raise TokenFileError(
                f"{source}: token {shown!r} has role {role!r}; expected one of {', '.join(ROLES)}"
            )
        name = spec.get("name") or role
        arbiter = spec.get("arbiter")
        if arbiter is not None and (role != ARBITER or not isinstance(arbiter, str)):
            raise TokenFileError(
                f"{source}: token {shown!r}: 'arbiter' (an arbiter id) is for arbiter tokens only"
            )
        entries[token] = Identity(str(role), str(name), arbiter)
    return Tokens(entries)


def load_tokens(path: str | Path | None) -> Tokens:
    """The tokens of a file, or no tokens at all (everyone is public) without one."""
    if path is None:
        return Tokens()
    try:
        raw = loads(Path(path).read_bytes())
    except OSError as exc:
        raise TokenFileError(f"cannot read the token file {str(path)!r}: {exc}") from None
    except TextError as exc:
        raise TokenFileError(f"token file {str(path)!r}: {exc}") from None
    return parse_tokens(raw, f"token file {str(path)!r}")
