"""One configuration file for every process of a hall (docs/operations.md).

``candidates --config hall.toml COMMAND`` (or ``$CANDIDATES_CONFIG``) reads a TOML
file of what the gateways, the board readers and the arbiters' tools of one hall
share (the store, the tournament, the public delay, the tokens, the board readers'
groups), so each setting is given once. A command-line option wins over the file,
and the file over the environment and the defaults. Every key is checked: a bad file
is a ``ConfigError`` naming the file and the key, never a traceback. The keys are in
docs/operations.md; the template is deploy/hall.toml."""

from __future__ import annotations

import argparse
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.gateway.tokens import TokenFileError, Tokens, parse_tokens

CONFIG_ENV = "CANDIDATES_CONFIG"

TOP_KEYS = {
    "store",
    "tournament",
    "public_delay_s",
    "future_tolerance_s",
    "gateway",
    "tokens",
    "dgt",
}
GATEWAY_KEYS = {"host", "port", "flag_check_s", "max_connections_per_address"}
DGT_KEYS = {"debounce_ms", "auto_correct_arbiter", "record_dir", "serial_games", "groups"}
GROUP_KEYS = {"boards", "livechess"}


class ConfigError(ValueError):
    """The configuration file cannot be read or is not of the documented form."""


@dataclass(frozen=True)
class HallConfig:
    """What one hall's processes share, read from one file."""

    path: str
    store: str | None = None
    tournament: str | None = None
    public_delay_s: float | None = None
    future_tolerance_s: float | None = None
    host: str | None = None
    port: int | None = None
    flag_check_s: float | None = None
    max_connections_per_address: int | None = None
    tokens: Tokens | None = None
    debounce_ms: int | None = None
    auto_correct_arbiter: str | None = None
    record_dir: str | None = None
    serial_games: dict[str, str] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """Board readers' groups: name -> source specs (``--dgt`` / ``livechess:`` forms)."""


def config_path(explicit: str | None) -> str | None:
    """The file to read: ``--config``, else ``$CANDIDATES_CONFIG``, else none."""
    return explicit or os.environ.get(CONFIG_ENV) or None


def load_config(path: str | Path) -> HallConfig:
    """Read and check the file; ConfigError with the file and key when it is wrong."""
    name = str(path)
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration {name!r}: {exc.strerror}") from None
    except UnicodeError:
        raise ConfigError(f"configuration {name!r} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration {name!r} is not TOML: {exc}") from None
    return _parse(Table(raw, name))


class Table:
    """A table of the file as TOML reads it (its values not checked yet), with where it
    is (the file, the key's prefix) to name a wrong key; each value is checked as read."""

    def __init__(self, raw: dict[str, Any], name: str, prefix: str = "") -> None:
        self.raw, self.name, self.prefix = raw, name, prefix

    def fail(self, key: str, what: str) -> ConfigError:
        return ConfigError(f"configuration {self.name!r}: {self.prefix}{key} {what}")

    def known(self, keys: set[str]) -> None:
        unknown = sorted(set(self.raw) - keys)
        if unknown:
            raise ConfigError(
                f"configuration {self.name!r}: unknown key {self.prefix}{unknown[0]} "
                f"(known: {', '.join(self.prefix + k for k in sorted(keys))})"
            )

    def table(self, key: str) -> Table:
        value = self.raw.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        return Table(value, self.name, f"{self.prefix}{key}.")

    def tables(self) -> list[tuple[str, Table]]:
        """Every value a table (``dgt.groups``: one table per group)."""
        found = []
        for key, value in self.raw.items():
            if not isinstance(value, dict):
                raise self.fail(key, "must be a table")
            found.append((str(key), Table(value, self.name, f"{self.prefix}{key}.")))
        return found

    def string(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise self.fail(key, "must be a non-empty string")
        return value

    def number(self, key: str) -> float | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise self.fail(key, "must be 0 or more seconds")
        return float(value)

    def whole(self, key: str, least: int, what: str) -> int | None:
        """A whole number of at least ``least`` (None: not given)."""
        value = self.raw.get(key)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < least
        ):
            raise self.fail(key, what)
        return value

    def strings(self, key: str) -> list[str]:
        value = self.raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(key, "must be a list of strings")
        return list(value)

    def string_map(self, what: str) -> dict[str, str]:
        """Every value a string (``dgt.serial_games``: serial -> game id)."""
        if not all(isinstance(v, str) for v in self.raw.values()):
            raise ConfigError(f"configuration {self.name!r}: {self.prefix.rstrip('.')} {what}")
        return {str(k): str(v) for k, v in self.raw.items()}


def _parse(top: Table) -> HallConfig:
    name = top.name
    top.known(TOP_KEYS)
    gateway = top.table("gateway")
    gateway.known(GATEWAY_KEYS)
    dgt = top.table("dgt")
    dgt.known(DGT_KEYS)
    tokens = None
    if "tokens" in top.raw:
        try:
            tokens = parse_tokens(top.table("tokens").raw, f"configuration {name!r}, [tokens]")
        except TokenFileError as exc:
            raise ConfigError(str(exc)) from None
    groups: dict[str, list[str]] = {}
    for group, spec in dgt.table("groups").tables():
        spec.known(GROUP_KEYS)
        boards = spec.strings("boards")
        boards += [f"livechess:{url}" for url in spec.strings("livechess")]
        if not boards:
            raise ConfigError(f"configuration {name!r}: dgt.groups.{group} lists no boards")
        groups[group] = boards
    serial_games = dgt.table("serial_games").string_map("maps serials to game ids")
    return HallConfig(
        path=name,
        store=top.string("store"),
        tournament=top.string("tournament"),
        public_delay_s=top.number("public_delay_s"),
        future_tolerance_s=top.number("future_tolerance_s"),
        host=gateway.string("host"),
        port=gateway.whole("port", 0, "must be a port number"),
        flag_check_s=gateway.number("flag_check_s"),
        max_connections_per_address=gateway.whole(
            "max_connections_per_address", 1, "must be 1 or more"
        ),
        tokens=tokens,
        debounce_ms=dgt.whole("debounce_ms", 0, "must be 0 or more"),
        auto_correct_arbiter=dgt.string("auto_correct_arbiter"),
        record_dir=dgt.string("record_dir"),
        serial_games=serial_games,
        groups=groups,
    )


def apply_config(args: argparse.Namespace) -> HallConfig | None:
    """Read the file ``args.config`` (or ``$CANDIDATES_CONFIG``) names and fill the global
    options the command line left out (store, tournament, future tolerance); the
    subcommands read the rest through ``setting``. ``args.hall`` is the configuration."""
    path = config_path(getattr(args, "config", None))
    hall = load_config(path) if path else None
    args.hall = hall
    if hall is None:
        return None
    if getattr(args, "store", None) is None and hall.store is not None:
        args.store = hall.store
    if getattr(args, "tournament", None) is None and hall.tournament is not None:
        args.tournament = hall.tournament
    if getattr(args, "future_tolerance", None) is None and hall.future_tolerance_s is not None:
        args.future_tolerance = hall.future_tolerance_s
    return hall


def setting(args: argparse.Namespace, option: str, key: str, default: Any) -> Any:
    """An option's value: the command line's, else the configuration's ``key``, else
    ``default`` (options that read the configuration default to None)."""
    given = getattr(args, option, None)
    if given is not None:
        return given
    hall: HallConfig | None = getattr(args, "hall", None)
    if hall is not None:
        value = getattr(hall, key)
        if value is not None:
            return value
    return default
