"""The opening request of a connection, answered in HTTP's words when it cannot be served.

Every connection to the gateway begins with an HTTP/1.1 request: a websocket
upgrade or a plain ``GET`` (``adapters.gateway.routes``). ``websockets`` reads
it (``ServerProtocol.parse``) and refuses some requests before the gateway
sees them: a request line longer than 8,192 bytes with a 414 that speaks of "a
WebSocket connection", header lines too long or too many with a 431 in the
same words, a request with a body (``POST``, ``PUT`` with ``Content-Length`` or
``Transfer-Encoding``) or a malformed one by dropping the connection without a
word. ``answer_http_errors(protocol)`` puts this module's reading in its place
(the sans-I/O protocol's ``parser``, replaced before any byte is read): the
same ``Request.parse``, then

- a request line too long: ``414 URI Too Long`` (RFC 9110 15.5.15);
- header lines too long, or more than 128: ``431 Request Header Fields Too Large``
  (RFC 6585 5);
- a body with a method other than ``GET``/``HEAD``: ``405 Method Not Allowed``
  with ``Allow: GET, HEAD`` (RFC 9110 15.5.6), as for the same method without one;
- a body with ``GET`` or ``HEAD``: ``400 Bad Request`` (nothing the gateway serves
  takes one);
- anything else that is not an HTTP/1.1 request: ``400 Bad Request``.

Each answer is plain text and closes the connection. A request that parses is
handed on unchanged (to ``process_request``, then the websocket handshake).
"""

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
