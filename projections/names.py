"""Names where a person reads: players by their names, arbiters by their office and name.

The events carry ids (``svidler``, ``chief``), the right key for a record and the
wrong word for a reader; ``Names`` is the one place that decides how a person is
named: the name as the source writes it, its display form (the part before a comma,
else the whole name, never cut), an arbiter by office and name. No sentence built
from them assumes a pronoun (docs/tournament.md, "Standings"). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.game.state import Game
from engine.tournament.tournament import Tournament, short_name

OFFICES = {
    "chief": "Chief Arbiter",
    "deputy": "Deputy Chief Arbiter",
    "advisor": "Technical Advisor",
}
"""The offices of 3.9.2 b (the Chief Arbiter, his Deputy, the Technical Advisor)."""


def display_name(name: str) -> str:
    """The display form of a name as the source writes it (see the module docstring):
    ``Svidler`` of ``"Svidler, Peter"``, ``Gukesh D`` of ``"Gukesh D"``."""
    return short_name(name)


def given_first(name: str) -> str:
    """``Geurt Gijssen`` for ``"Gijssen, Geurt"``: a person named in a sentence."""
    surname, comma, given = name.partition(",")
    return f"{given.strip()} {surname.strip()}" if comma and given.strip() else name.strip()


def possessive(name: str) -> str:
    """``Svidler's``; ``Aronian's``; a name ending in s takes an apostrophe only."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


@dataclass(frozen=True)
class Names:
    """Ids -> words, for one tournament (and one game, for its sides)."""

    players: Mapping[str, str] = field(default_factory=dict)
    """Player id -> the name registered (``"Svidler, Peter"``)."""
    arbiters: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Arbiter id -> (name, role)."""
    white: str | None = None
    black: str | None = None
    games: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Game id -> (White, Black) of every game paired, for the sides of an event that
    names its game only (a claim, an illegal move)."""

    @classmethod
    def of(
        cls,
        tournament: Tournament | None,
        game: Game | None = None,
        games: Mapping[str, tuple[str, str]] | None = None,
    ) -> Names:
        players = {p.id: p.name for p in tournament.players} if tournament else {}
        arbiters = {a.id: (a.name, a.role) for a in tournament.arbiters} if tournament else {}
        paired = dict(tournament.pairings()) if tournament else {}
        paired.update(games or {})
        return cls(
            players,
            arbiters,
            game.white if game is not None else None,
            game.black if game is not None else None,
            paired,
        )

    def in_game(self, game_id: str | None) -> Names:
        """The same names, with the sides of that game (when it is known)."""
        pair = self.games.get(game_id or "")
        if pair is None:
            return self
        return Names(self.players, self.arbiters, pair[0], pair[1], self.games)

    def player(self, player_id: str | None) -> str:
        """The player's display name (``Svidler``, ``Gukesh D``), or the id when unknown."""
        if not player_id:
            return "?"
        name = self.players.get(player_id)
        return display_name(name) if name else player_id

    def displayed(self) -> dict[str, str]:
        """Every player id -> the display name."""
        return {pid: display_name(name) for pid, name in self.players.items()}

    def full(self, player_id: str) -> str:
        """The player's whole registered name."""
        return self.players.get(player_id, player_id)

    def arbiter(self, arbiter_id: str | None) -> str:
        """``Chief Arbiter Geurt Gijssen``; ``Arbiter x`` for an id the event does not know
        (an import, a device)."""
        if not arbiter_id:
            return "the arbiter"
        known = self.arbiters.get(arbiter_id)
        if known is None:
            return f"Arbiter {arbiter_id}"
        name, role = known
        name = given_first(name)
        office = OFFICES.get(role, "Arbiter")
        titled = any(word in name for word in ("Arbiter", "Advisor"))
        return name if titled else f"{office} {name}"

    def side_player(self, side: str) -> str | None:
        """The player id of ``white`` / ``black`` in this game, if known."""
        return {"white": self.white, "black": self.black}.get(side)

    def side(self, side: str) -> str:
        """``Svidler (White)``; ``White`` when the game's players are not known; ``both
        players`` for ``both``."""
        colour = {"white": "White", "black": "Black"}.get(side)
        if colour is None:
            return "Both players" if side == "both" else side
        pid = self.side_player(side)
        return f"{self.player(pid)} ({colour})" if pid else colour

    def side_name(self, side: str) -> str:
        """``Svidler``, or ``White`` when the game's players are not known."""
        pid = self.side_player(side)
        return self.player(pid) if pid else {"white": "White", "black": "Black"}.get(side, side)

    def who(self, who: str | None) -> str:
        """A player id, a side or an arbiter id, in words."""
        if who is None:
            return "?"
        if who in ("white", "black", "both"):
            return self.side(who)
        if who in self.players:
            return self.player(who)
        if who in self.arbiters:
            return self.arbiter(who)
        return who
