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
    return _parse(raw, name)


def _parse(raw: dict[str, Any], name: str) -> HallConfig:
    _known(raw, TOP_KEYS, name, "")
    gateway = _table(raw, "gateway", name)
    _known(gateway, GATEWAY_KEYS, name, "gateway.")
    dgt = _table(raw, "dgt", name)
    _known(dgt, DGT_KEYS, name, "dgt.")
    tokens = None
    if "tokens" in raw:
        try:
            tokens = parse_tokens(_table(raw, "tokens", name), f"configuration {name!r}, [tokens]")
        except TokenFileError as exc:
            raise ConfigError(str(exc)) from None
    groups: dict[str, list[str]] = {}
    for group, spec in _table(dgt, "groups", name, "dgt.").items():
        where = f"dgt.groups.{group}"
        if not isinstance(spec, dict):
            raise ConfigError(f"configuration {name!r}: {where} must be a table")
        _known(spec, GROUP_KEYS, name, f"{where}.")
        boards = _strings(spec, "boards", name, where)
        boards += [f"livechess:{url}" for url in _strings(spec, "livechess", name, where)]
        if not boards:
            raise ConfigError(f"configuration {name!r}: {where} lists no boards")
        groups[str(group)] = boards
    serial_games = _table(dgt, "serial_games", name, "dgt.")
    if not all(isinstance(v, str) for v in serial_games.values()):
        raise ConfigError(f"configuration {name!r}: dgt.serial_games maps serials to game ids")
    public_delay = _number(raw, "public_delay_s", name, "")
    flag_check = _number(gateway, "flag_check_s", name, "gateway.")
    future = _number(raw, "future_tolerance_s", name, "")
    port = gateway.get("port")
    if port is not None and (not isinstance(port, int) or isinstance(port, bool) or port < 0):
        raise ConfigError(f"configuration {name!r}: gateway.port must be a port number")
    per_address = gateway.get("max_connections_per_address")
    if per_address is not None and (
        not isinstance(per_address, int) or isinstance(per_address, bool) or per_address < 1
    ):
        raise ConfigError(
            f"configuration {name!r}: gateway.max_connections_per_address must be 1 or more"
        )
    debounce = dgt.get("debounce_ms")
    if debounce is not None and (not isinstance(debounce, int) or debounce < 0):
        raise ConfigError(f"configuration {name!r}: dgt.debounce_ms must be 0 or more")
    return HallConfig(
        path=name,
        store=_string(raw, "store", name, ""),
        tournament=_string(raw, "tournament", name, ""),
        public_delay_s=public_delay,
        future_tolerance_s=future,
        host=_string(gateway, "host", name, "gateway."),
        port=port,
        flag_check_s=flag_check,
        max_connections_per_address=per_address,
        tokens=tokens,
        debounce_ms=debounce,
        auto_correct_arbiter=_string(dgt, "auto_correct_arbiter", name, "dgt."),
        record_dir=_string(dgt, "record_dir", name, "dgt."),
        serial_games={str(k): str(v) for k, v in serial_games.items()},
        groups=groups,
    )


def _known(table: dict[str, Any], keys: set[str], name: str, prefix: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ConfigError(
            f"configuration {name!r}: unknown key {prefix}{unknown[0]} "
            f"(known: {', '.join(prefix + k for k in sorted(keys))})"
        )


def _table(table: dict[str, Any], key: str, name: str, prefix: str = "") -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"configuration {name!r}: {prefix}{key} must be a table")
    return value


def _string(table: dict[str, Any], key: str, name: str, prefix: str) -> str | None:
    value = table.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError(f"configuration {name!r}: {prefix}{key} must be a non-empty string")
    return value


def _number(table: dict[str, Any], key: str, name: str, prefix: str) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"configuration {name!r}: {prefix}{key} must be 0 or more seconds")
    return float(value)


def _strings(table: dict[str, Any], key: str, name: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"configuration {name!r}: {where}.{key} must be a list of strings")
    return list(value)


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
