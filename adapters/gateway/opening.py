"""The opening request of a connection, answered in HTTP's words when it cannot be served.

``websockets`` refuses some opening requests before the gateway sees them (with words
about "a WebSocket connection", or by dropping the connection silently).
``answer_http_errors`` puts this module's reading in the protocol's place, so that a
request line too long, too many or too long header lines, or a body the gateway
never takes get a plain HTTP answer (414, 431, 405, 400) and the connection closes; a
request that parses is handed on unchanged (docs/protocol.md)."""

from __future__ import annotations

from collections.abc import Generator
from http import HTTPStatus

from websockets.exceptions import (
    HeaderLineTooLong,
    InvalidMessage,
    RequestLineTooLong,
    TooManyHeaders,
)
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request, Response
from websockets.protocol import Protocol
from websockets.server import ServerProtocol

ALLOWED_METHODS = ("GET", "HEAD")
"""The methods of every resource the gateway serves (all are read-only)."""


def not_allowed(method: str, reply: Response) -> Response:
    """RFC 9110 15.5.6: 405 with the methods the gateway's resources answer; ``reply`` is
    a plain text response to complete (its body is replaced)."""
    status = HTTPStatus.METHOD_NOT_ALLOWED
    body = f"method {method[:20]!r} not allowed: only {', '.join(ALLOWED_METHODS)}\n".encode()
    reply.status_code, reply.reason_phrase, reply.body = status.value, status.phrase, body
    reply.headers["Content-Length"] = str(len(body))
    reply.headers["Allow"] = ", ".join(ALLOWED_METHODS)
    return reply


def answer_http_errors(protocol: ServerProtocol) -> None:
    """Read ``protocol``'s opening request with this module's answers (see above)."""
    protocol.parser = _parse(protocol)
    next(protocol.parser)


def _parse(protocol: ServerProtocol) -> Generator[None]:
    lines: list[bytes] = []

    def read_line(limit: int, too_long: type[Exception]) -> Generator[None, None, bytearray]:
        line = yield from protocol.reader.read_line(limit, too_long)
        lines.append(bytes(line[:40]))
        return line

    try:
        request = yield from Request.parse(read_line)
    except EOFError as exc:  # the client went away: nobody to answer
        protocol.handshake_exc = InvalidMessage("did not receive a valid HTTP request")
        protocol.handshake_exc.__cause__ = exc
        protocol.send_eof()
        protocol.parser = protocol.discard()
        next(protocol.parser)
        yield
        return
    except RequestLineTooLong as exc:
        protocol.handshake_exc = exc
        response = protocol.reject(
            HTTPStatus.REQUEST_URI_TOO_LONG,
            f"URI too long: the request line is longer than {MAX_LINE_LENGTH} bytes\n",
        )
    except (HeaderLineTooLong, TooManyHeaders) as exc:
        protocol.handshake_exc = exc
        response = protocol.reject(
            HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
            f"request header fields too large: a header line is longer than "
            f"{MAX_LINE_LENGTH} bytes, or there are more than {MAX_NUM_HEADERS}\n",
        )
    except Exception as exc:
        protocol.handshake_exc = InvalidMessage("did not receive a valid HTTP request")
        protocol.handshake_exc.__cause__ = exc
        response = _refused(lines, protocol)
    else:
        protocol.events.append(request)
        yield from Protocol.parse(protocol)  # the frames, once the handshake is done
        return
    protocol.send_response(response)
    yield


def _refused(lines: list[bytes], protocol: ServerProtocol) -> Response:
    """A request ``Request.parse`` refused: one with a body (its headers all read, the
    last line empty) gets 405 or 400 by its method; anything else, 400."""
    if len(lines) >= 2 and lines[-1] == b"\r\n":
        method = lines[0].split(b" ", 1)[0].decode("ascii", "replace")
        if method not in ALLOWED_METHODS:
            return not_allowed(method, protocol.reject(HTTPStatus.METHOD_NOT_ALLOWED, ""))
        return protocol.reject(
            HTTPStatus.BAD_REQUEST,
            f"bad request: a {method} request to this server carries no body\n",
        )
    return protocol.reject(HTTPStatus.BAD_REQUEST, "bad request: not an HTTP/1.1 request\n")
