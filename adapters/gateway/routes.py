"""The gateway's plain HTTP: pages, their files, piece images, ``/status`` and the outputs.

Any request that is not a websocket upgrade comes here (``process_request``): the
live page ``/``, one page per game ``/game/<id>``, the arbiters' view ``/arbiter``, the
hall display ``/display`` (no controls, always the public's delayed feed),
their scripts and styles (``/static/...``), piece images drawn by python-chess,
``/status``, and the read-only outputs ``/api/...`` (JSON) and ``/pgn/...`` (live
PGN) of ``adapters.gateway.outputs``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import NotRequired, TypedDict
from urllib.parse import parse_qs, urlsplit

import chess
import chess.svg
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from adapters.gateway.hub import Channel
from adapters.gateway.opening import ALLOWED_METHODS, not_allowed
from adapters.gateway.outputs import Outputs
from adapters.gateway.reading import Stats
from adapters.gateway.requests import MAX_TOKEN
from adapters.gateway.tokens import Identity, Tokens, request_token

STATIC = Path(__file__).with_name("static")
PAGES = {"/": "index.html", "/arbiter": "arbiter.html", "/display": "display.html"}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
PIECE = re.compile(r"^/pieces/([wb])([KQRBNP])\.svg$")
GAME_PAGE = re.compile(r"^/game/([^/]+)$")


class KeptStatus(TypedDict):
    """The kept state's position and what it saved (``adapters.gateway.kept_state``)."""

    seq: int
    resumed_from: int
    folded_at_start: int
    saves: int
    refused: int


class GatewayStatus(TypedDict):
    """``/status``: the public position and the connections; to a token holder, the live
    position and the delivery counters too."""

    seq: int
    public_delay_ms: int
    clients: int
    public_seq: NotRequired[int]
    delivered_frames: NotRequired[int]
    delivered_messages: NotRequired[int]
    kept: NotRequired[KeptStatus]


class Routes:
    """Answers the plain HTTP requests of one gateway."""

    def __init__(
        self,
        tokens: Tokens,
        live: Channel,
        public: Channel,
        stats: Stats,
        outputs: Outputs,
        clients: Callable[[], int],
    ) -> None:
        self.tokens = tokens
        self.live, self.public = live, public
        self.stats = stats
        self.outputs = outputs
        self.clients = clients
        """How many websocket connections are open."""

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        response = await self._answer(request)
        if request.method == "HEAD":
            # RFC 9110 9.3.2: the headers a GET would get (its Content-Length too), no
            # body: a keep-alive client would read the body as its next response
            response.body = b""
        return response

    async def _answer(self, request: Request) -> Response:
        if request.method not in ALLOWED_METHODS:
            return not_allowed(request.method, _response(HTTPStatus.OK, b"", "text/plain"))
        refused = self._authorization_refused(request)
        if refused is not None:
            return refused
        path = request.path.split("?", 1)[0]
        if self.outputs.handles(path):
            return await self.outputs.answer(request)
        if path in PAGES:
            return _file(STATIC / PAGES[path])
        if GAME_PAGE.match(path):
            return _file(STATIC / "game.html")
        if path.startswith("/static/"):
            name = path.removeprefix("/static/")
            if "/" in name or name.startswith("."):
                return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
            return _file(STATIC / name)
        if match := PIECE.match(path):
            color, symbol = match.groups()
            piece = chess.Piece.from_symbol(symbol if color == "w" else symbol.lower())
            return _response(HTTPStatus.OK, chess.svg.piece(piece).encode(), TYPES[".svg"], 86400)
        if path == "/status":
            query = parse_qs(urlsplit(request.path).query)
            token = request_token(query, request.headers.get("Authorization", ""))
            if token and self._identity(token) is None:
                return _unauthorized("the token is not one of this gateway's")
            body = self.status(request)
            return _response(HTTPStatus.OK, json.dumps(body).encode(), TYPES[".json"])
        return _response(HTTPStatus.NOT_FOUND, f"no page at {path}\n".encode(), "text/plain")

    def _authorization_refused(self, request: Request) -> Response | None:
        """RFC 9110 11.6.2: an ``Authorization`` the gateway does not accept (another
        scheme than ``Bearer``, or a token it does not know) is answered 401, never
        served as if the request were public."""
        header = request.headers.get("Authorization")
        if header is None:
            return None
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token and len(token) <= MAX_TOKEN:
            if self.tokens.identify(token) is not None:
                return None
            why = "the bearer token is not one of this gateway's"
        else:
            why = f"only Authorization: Bearer <token> is accepted, not {scheme[:20]!r}"
        return _unauthorized(why)

    def _identity(self, token: str) -> Identity | None:
        """The identity of a token, None when it is not one of the token file's."""
        return self.tokens.identify(token) if len(token) <= MAX_TOKEN else None

    def status(self, request: Request) -> GatewayStatus:
        """``/status``: what anyone may see (the public position, the connections); the
        live position and the delivery counters only with a commentator's or arbiter's
        token (``?token=`` or ``Authorization: Bearer``), since during the public delay
        they tell how far the games have gone (the counters rise as soon as a live
        event reaches a token holder)."""
        query = parse_qs(urlsplit(request.path).query)
        token = request_token(query, request.headers.get("Authorization", ""))
        identity = self._identity(token) if token else None
        body: GatewayStatus = {
            "seq": self.public.seq,
            "public_delay_ms": self.public.delay_ms,
            "clients": self.clients(),
        }
        if identity is not None and not identity.is_public:
            body["seq"] = self.live.seq
            body["public_seq"] = self.public.seq
            body["delivered_frames"] = self.stats.delivered_frames
            body["delivered_messages"] = self.stats.delivered_messages
            body["kept"] = {
                "seq": self.stats.kept_seq,
                "resumed_from": self.stats.resumed_from,
                "folded_at_start": self.stats.folded_at_start,
                "saves": self.stats.kept_saves,
                "refused": self.stats.kept_refused,
            }
        return body


def _unauthorized(why: str) -> Response:
    """401 (RFC 9110 15.5.2) with the reason, as ``/api/...`` answers a token it does not
    know: a wrong token is never served as if the request were public."""
    headers = Headers()
    headers["WWW-Authenticate"] = 'Bearer realm="candidates"'
    body = json.dumps({"error": {"code": "invalid_token", "message": why}}).encode()
    headers["Content-Type"] = TYPES[".json"]
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    status = HTTPStatus.UNAUTHORIZED
    return Response(status.value, status.phrase, headers, body)


def _response(status: HTTPStatus, body: bytes, content_type: str, max_age: int = 0) -> Response:
    headers = Headers()
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = f"max-age={max_age}" if max_age else "no-cache"
    return Response(status.value, status.phrase, headers, body)


def _file(path: Path) -> Response:
    try:
        body = path.read_bytes()
    except OSError:
        return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
    return _response(HTTPStatus.OK, body, TYPES.get(path.suffix, "application/octet-stream"))
