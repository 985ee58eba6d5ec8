"""Read-only HTTP outputs: the contract's query objects as JSON, and live PGN.

``/api/...`` and ``/pgn/...`` answer for the tournament a query parameter names (the
store's first without it, so a URL keeps its answer when a second event is added),
as the public sees it unless a commentator's or arbiter's token is given. Answers are
cached by what they show, so thousands of pollers cost one build per change, and
carry ``ETag``, ``Last-Modified`` and ``Cache-Control`` for proxies. The routes are in
docs/protocol.md, "HTTP outputs"."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import formatdate
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, quote

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from adapters.formats.event_export import (
    event_game_ids,
    pgn_of_games,
    round_game_ids,
    started_games,
)
from adapters.gateway.analysis_feed import NONE, AnalysisFeed, GameEvals
from adapters.gateway.hub import Channel
from adapters.gateway.tokens import Identity, Tokens, request_token
from adapters.host.clock import wall_clock_ms
from adapters.store import Store, TournamentView, game_order, queries
from adapters.store.names import game_key
from engine.errors import CommandRefused, UnknownGame
from engine.events import game_stream
from engine.game.state import Game
from projections.game_view import GameObject
from projections.pairings import Pairings
from projections.time_use import time_use

JSON_TYPE = "application/json"
PGN_TYPE = "application/x-chess-pgn; charset=utf-8"
DEFAULT_MAX_AGE_S = 1
"""How long a shared cache may keep a public answer (a broadcast polls every few seconds)."""

ROUND_PGN = re.compile(r"^/pgn/round/(\d{1,9})\.pgn$")
"""A round by its number: nine digits at most (a longer one is no round: 404, never
converted)."""
GAME_PGN = re.compile(r"^/pgn/games/([^/]+)\.pgn$")
GAME_JSON = re.compile(r"^/api/games/([^/]+)$")
ROUTES = (
    "see /api/tournaments, /api/tournament, /api/standings, /api/games, /api/games/{id}, "
    "/api/pairings, /api/needs, /pgn/round/{n}.pgn, /pgn/games/{id}.pgn, /pgn/all.pgn"
)
Evals = tuple[str, int, GameEvals]
"""(audience, version, game id -> ply -> (cp, mate)) of a PGN answer's ``[%eval]``."""
NO_EVALS: Evals = (NONE, 0, {})
EVERY_TOURNAMENT = "*"
STORE_JSON = ("/api/tournament", "/api/pairings")
"""JSON read from the store (the public's delayed copy for the public), not the channel."""
"""``?tournament=*``: every tournament of the store (``/api/games`` only)."""


@dataclass
class Cached:
    seq: int
    """The channel's sequence number the answer was last checked at."""
    key: Any
    """What the answer shows (versions): when it is unchanged, the body is too."""
    body: bytes
    etag: str
    modified: str
    evals: int = 0
    """The version of the evaluations a PGN answer carries (``[%eval]``)."""


class NotFound(Exception):
    """A route that names something this store does not hold."""


class UnknownTournamentAsked(NotFound):
    """A ``tournament`` the store does not hold."""


class BadRequest(Exception):
    """A query this route cannot answer (``tournament=*`` where one tournament is meant)."""


class Unauthorized(Exception):
    """A token was given and is not one of the token file's."""


def _etag(body: bytes, tournament: str | None) -> str:
    """A hash of the body and the tournament it answers for: two tournaments' answers
    never share an ETag, even when their bodies are alike (both empty)."""
    digest = hashlib.blake2b(body, digest_size=12)
    digest.update(b"\0" + (tournament or "").encode())
    return '"' + digest.hexdigest() + '"'


def _json(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def pairings_answer(view: TournamentView) -> Pairings:
    """``/api/pairings``: the contract's ``pairings`` object (``queries.pairings_object``),
    each round also listing its ``games`` as ``{game, board, white, black, status,
    result}`` with the players' ids (the shape pollers read before the object was served
    whole)."""
    obj = queries.pairings_object(view)
    for entry in obj["rounds"]:
        entry["games"] = [
            {
                "game": board["game"],
                "board": board["board"],
                "white": board["white"]["player"],
                "black": board["black"]["player"],
                "status": board["status"],
                "result": board["result"],
            }
            for board in entry["boards"]
        ]
    return obj


def output_paths(tournament: str) -> dict[str, str]:
    """The paths of one tournament's outputs (``/api/tournaments``)."""
    q = "?tournament=" + quote(tournament, safe="")
    return {
        "tournament": "/api/tournament" + q,
        "standings": "/api/standings" + q,
        "games": "/api/games" + q,
        "game": "/api/games/{id}" + q,
        "pairings": "/api/pairings" + q,
        "needs": "/api/needs" + q,
        "pgn_round": "/pgn/round/{n}.pgn" + q,
        "pgn_game": "/pgn/games/{id}.pgn" + q,
        "pgn_all": "/pgn/all.pgn" + q,
    }


def _choices(channel: Channel) -> str:
    return ", ".join(map(repr, channel.names)) or "none yet"


class Outputs:
    """Answers the read-only HTTP routes of one gateway."""

    def __init__(
        self,
        tokens: Tokens,
        live: Channel,
        public: Channel,
        stores: Callable[[], tuple[Store | None, Store | None]],
        run_in_reader: Callable[..., Any],
        max_age_s: int = DEFAULT_MAX_AGE_S,
    ) -> None:
        self.tokens = tokens
        self.live, self.public = live, public
        self.stores = stores
        """(live store, public store): read in the reader thread only."""
        self.run_in_reader = run_in_reader
        self.max_age_s = max_age_s
        self.cache: dict[tuple[str, str | None, str], Cached] = {}
        """(channel, tournament, path) -> the answer last built."""
        self.built = 0
        """Bodies built (a benchmark and a test read it)."""
        self.analysis: AnalysisFeed | None = None
        """The engine's evaluations, for ``[%eval]`` in the PGN (who gets which: its
        ``audience``)."""

    def handles(self, path: str) -> bool:
        return path.startswith(("/api/", "/pgn/"))

    def _identity(self, request: Request, query: dict[str, list[str]]) -> Identity | None:
        token = request_token(query, request.headers.get("Authorization", ""))
        if token is None:
            return None
        identity = self.tokens.identify(token)
        if identity is None:
            raise Unauthorized("unknown token: check the token file, or ask without one")
        return identity

    @staticmethod
    def _tournament(channel: Channel, path: str, query: dict[str, list[str]]) -> str | None:
        """The tournament a request is about: ``?tournament=ID``, else the store's first
        (None while the store holds none); ``*`` (every one) for ``/api/games`` only."""
        asked = query.get("tournament")
        if not asked:
            return channel.first
        tid = asked[0]
        if tid == EVERY_TOURNAMENT:
            if path == "/api/games":
                return EVERY_TOURNAMENT
            raise BadRequest(
                f"{path} answers for one tournament: give tournament=ID, one of "
                f"{_choices(channel)} (tournament=* is for /api/games)"
            )
        if tid not in channel.names:
            raise UnknownTournamentAsked(
                f"no tournament {tid!r} in this store; it holds {_choices(channel)} "
                "(see /api/tournaments)"
            )
        return tid

    async def answer(self, request: Request) -> Response:
        path, _, raw_query = request.path.partition("?")
        query = parse_qs(raw_query)
        try:
            identity = self._identity(request, query)
            live = identity is not None
            channel = self.live if live else self.public
            tid = None if path == "/api/tournaments" else self._tournament(channel, path, query)
            evals = self._evals(identity, tid, path)
            cached = self.cache.get((_slot(channel, evals), tid, path))
            if cached is None or cached.seq != channel.seq or cached.evals != evals[1]:
                if (
                    path.startswith("/api/")
                    and path not in STORE_JSON
                    and not GAME_JSON.match(path)
                ):
                    cached = self._refresh_from_channel(channel, tid, path)
                else:
                    cached = await self.run_in_reader(
                        self._refresh, channel, tid, path, live, evals
                    )
        except UnknownTournamentAsked as exc:
            return _error(HTTPStatus.NOT_FOUND, "unknown_tournament", str(exc))
        except NotFound as exc:
            return _error(HTTPStatus.NOT_FOUND, "not_found", str(exc))
        except BadRequest as exc:
            return _error(HTTPStatus.BAD_REQUEST, "malformed_request", str(exc))
        except Unauthorized as exc:
            return _error(HTTPStatus.UNAUTHORIZED, "invalid_token", str(exc))
        headers = Headers()
        headers["ETag"] = cached.etag
        headers["Last-Modified"] = cached.modified
        headers["Cache-Control"] = (
            "private, no-cache" if live else f"public, max-age={self.max_age_s}"
        )
        headers["Access-Control-Allow-Origin"] = "*"
        headers["Vary"] = "Authorization"
        asked = _etags(request.headers.get("If-None-Match", ""))
        if cached.etag in asked or "*" in asked:  # RFC 9110 13.1.2: "*" matches any current
            headers["Content-Length"] = "0"
            return Response(304, "Not Modified", headers, b"")
        headers["Content-Type"] = PGN_TYPE if path.startswith("/pgn/") else JSON_TYPE
        headers["Content-Length"] = str(len(cached.body))
        return Response(200, "OK", headers, cached.body)

    # --- building (reader thread) --------------------------------------------------

    def _refresh_from_channel(self, channel: Channel, tid: str | None, path: str) -> Cached:
        """The JSON of the channel's objects (event loop: the channel is not shared)."""
        return self._store_answer(channel, tid, path, *self._channel_route(channel, tid, path))

    def _evals(self, identity: Identity | None, tid: str | None, path: str) -> Evals:
        """(audience, version, evaluations by game) a PGN answer to this reader carries."""
        if self.analysis is None or not path.startswith("/pgn/"):
            return NO_EVALS
        audience = self.analysis.audience(identity)
        return (audience, *self.analysis.evals(audience, tid))

    def _refresh(
        self, channel: Channel, tid: str | None, path: str, live: bool, evals: Evals = NO_EVALS
    ) -> Cached:
        """An answer read from the store (reader thread)."""
        cached = self.cache.get((_slot(channel, evals), tid, path))
        if cached is not None and cached.seq == channel.seq and cached.evals == evals[1]:
            return cached  # built while this one waited
        live_store, public_store = self.stores()
        store = live_store if live or public_store is None else public_store
        if store is None:
            raise NotFound("the gateway has not read the store yet")
        try:
            if match := GAME_JSON.match(path):
                key, build = self._game_route(channel, store.view(tid), tid, match[1])
            else:
                key, build = self._store_route(store.view(tid), path, evals[2])
        except CommandRefused as exc:  # an unknown game or round, no tournament yet
            raise NotFound(str(exc)) from None
        return self._store_answer(channel, tid, path, key, build, evals)

    def _store_answer(
        self,
        channel: Channel,
        tid: str | None,
        path: str,
        key: Any,
        build: Callable[[], bytes],
        evals: Evals = NO_EVALS,
    ) -> Cached:
        seq = channel.seq
        slot = (_slot(channel, evals), tid, path)
        cached = self.cache.get(slot)
        if cached is not None and cached.key == key and cached.evals == evals[1]:
            cached.seq = seq
            return cached
        body = build()
        self.built += 1
        etag = _etag(body, tid)
        if cached is not None and cached.etag == etag:
            cached.seq, cached.key, cached.evals = seq, key, evals[1]
            return cached
        fresh = Cached(
            seq, key, body, etag, formatdate(wall_clock_ms() / 1000, usegmt=True), evals[1]
        )
        self.cache[slot] = fresh
        return fresh

    def _game_route(
        self, channel: Channel, view: TournamentView, tid: str | None, gid: str
    ) -> tuple[Any, Callable[[], bytes]]:
        """``/api/games/{id}``: the channel's game object with its ``time_use`` (read from
        the channel's store: the public's delayed copy for the public)."""
        game = channel.games.get(game_key(tid, gid, channel.first))
        if game is None:
            where = f"tournament {tid!r}" if tid is not None else "this store"
            raise NotFound(f"no game {gid!r} in {where}")
        return game, lambda: _json({**game, "time_use": time_use(view.stream(game_stream(gid)))})

    @staticmethod
    def _games_of(channel: Channel, tid: str | None) -> list[GameObject]:
        """A tournament's game objects (every tournament's for ``*``), in the store's order
        of tournaments, then round and board."""
        order: dict[str | None, int] = {t: i for i, t in enumerate(channel.names)}
        first = channel.first
        found = [
            g
            for g in channel.games.values()
            if tid == EVERY_TOURNAMENT or g.get("tournament", first) == tid
        ]
        found.sort(
            key=lambda g: (
                order.get(g.get("tournament", first), len(order)),
                game_order(g["game"]),
            )
        )
        return found

    def _channel_route(
        self, channel: Channel, tid: str | None, path: str
    ) -> tuple[Any, Callable[[], bytes]]:
        """(what the answer shows, how to build it) for a JSON path; NotFound if none."""
        if path == "/api/tournaments":
            listed = tuple(channel.names.items())
            return (channel.first, listed), lambda: _json(
                {
                    "default": channel.first,
                    "tournaments": [
                        {"id": t, "name": name, "outputs": output_paths(t)} for t, name in listed
                    ],
                }
            )
        if path == "/api/standings":
            standings = channel.standings.get(tid) if tid is not None else None
            return channel.seq, lambda: _json(standings)
        if path == "/api/needs":
            needs = channel.needs.get(tid) if tid is not None else None
            return (channel.seq, id(needs)), lambda: _json(needs)
        if path == "/api/games":
            games = self._games_of(channel, tid)
            return channel.seq, lambda: _json(games)
        raise NotFound(f"no output at {path}: {ROUTES}")

    def _store_route(
        self, view: TournamentView, path: str, evals: Mapping[str, Any] | None = None
    ) -> tuple[Any, Callable[[], bytes]]:
        """(what the answer shows, how to build it) for a path read from one tournament
        of the store (its view: its streams under the engine's names)."""
        if path == "/api/tournament":
            version = _tournament_version(view)
            return version, lambda: _json(queries.tournament_object(view))
        if path == "/api/pairings":
            seq = view.last_seq()  # what the store (the public's: its delayed copy) holds
            return seq, lambda: _json(pairings_answer(view))
        ids: list[str]
        if match := ROUND_PGN.match(path):
            ids = round_game_ids(view, int(match[1]))
        elif match := GAME_PGN.match(path):
            if view.game(match[1]) is None:
                raise UnknownGame(f"no game {match[1]!r} has started in this tournament")
            ids = [match[1]]
        elif path == "/pgn/all.pgn":
            ids = event_game_ids(view, view.tournament())
        else:
            raise NotFound(f"no output at {path}: {ROUTES}")
        games = started_games(view, ids)
        # the first reading after a move is that move's [%clk] (the device's reading); the
        # readings after it change nothing the PGN shows: one rebuild per move, not per read
        readings = tuple(_read_since_last_move(view, g) for g in games)
        key = (
            _tournament_version(view),
            tuple((g.game_id, g.version) for g in games),
            readings,
        )
        return key, lambda: pgn_of_games(view, games, evals=evals).encode()


def _slot(channel: Channel, evals: Evals) -> str:
    """The cache's name for a channel's answers with these evaluations."""
    return channel.name if evals[0] == NONE else f"{channel.name}+{evals[0]}"


def _read_since_last_move(view: TournamentView, game: Game) -> bool:
    log = view.clock_log(game.game_id)
    return log is not None and log.last is not None and log.last.at_ms >= game.last_at_ms


def _tournament_version(view: TournamentView) -> int:
    tournament = view.tournament()
    return tournament.version if tournament else 0


def _etags(header: str) -> set[str]:
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _error(status: HTTPStatus, code: str, message: str) -> Response:
    body = _json({"error": {"code": code, "message": message}})
    headers = Headers()
    headers["Content-Type"] = JSON_TYPE
    headers["Content-Length"] = str(len(body))
    headers["Cache-Control"] = "no-cache"
    headers["Access-Control-Allow-Origin"] = "*"
    return Response(status.value, status.phrase, headers, body)
