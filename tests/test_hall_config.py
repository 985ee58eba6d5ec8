"""The hall's one configuration file (``--config`` / ``$CANDIDATES_CONFIG``): every
process takes the store, the tokens, the delays and its boards from it; an option on
the command line wins over it, and it wins over the environment; a wrong file is one
clear line, never a traceback (docs/operations.md)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.cli import build_parser
from adapters.cli.cmd_serve import resolve
from adapters.cli.hall_config import ConfigError, apply_config, load_config
from adapters.dgt.service import parse_spec

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "hall.toml"

HALL = """
store = "{store}"
tournament = "london-2013"
public_delay_s = 120
future_tolerance_s = 30

[gateway]
host = "0.0.0.0"
port = 9100
flag_check_s = 2

[tokens]
"chief-token-0001" = {{ role = "arbiter", name = "Chief", arbiter = "chief" }}

[dgt]
debounce_ms = 250
auto_correct_arbiter = "chief"

[dgt.groups.a]
boards = ["file:{recording}=1.1"]
livechess = ["ws://127.0.0.1:1982/api/v1.0=31337:1.2"]
"""


def write_hall(tmp_path: Path, store: str = "var/hall.sqlite", recording: str = "r.dgt") -> Path:
    path = tmp_path / "hall.toml"
    path.write_text(HALL.format(store=store, recording=recording), encoding="utf-8")
    return path


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(list(argv))
    apply_config(args)
    return args


def test_the_shipped_template_is_a_valid_configuration() -> None:
    hall = load_config(TEMPLATE)
    assert hall.store and hall.store.startswith("postgresql://")
    assert hall.public_delay_s == 900
    assert hall.tokens is not None and len(hall.tokens) == 3
    assert set(hall.groups) == {"a", "b"}
    for specs in hall.groups.values():
        for spec in specs:
            assert parse_spec(spec).game  # every board names its game


def test_serve_takes_store_tokens_and_delays_from_the_file(tmp_path: Path) -> None:
    path = write_hall(tmp_path)
    args = parsed("--config", str(path), "serve")
    resolve(args)
    assert args.store == "var/hall.sqlite"
    assert args.tournament == "london-2013"
    assert args.future_tolerance == 30
    assert (args.host, args.port, args.public_delay_s, args.flag_check) == ("0.0.0.0", 9100, 120, 2)
    assert args.hall.tokens.identify("chief-token-0001").arbiter_id == "chief"


def test_an_option_given_wins_over_the_file_and_the_file_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_hall(tmp_path)
    monkeypatch.setenv("CANDIDATES_STORE", "elsewhere.sqlite")
    monkeypatch.setenv("CANDIDATES_CONFIG", str(path))
    args = parsed("serve", "--port", "9200", "--public-delay-s", "0")
    resolve(args)
    assert (args.port, args.public_delay_s, args.store) == (9200, 0, "var/hall.sqlite")
    args = parsed("--store", "mine.sqlite", "serve")
    assert args.store == "mine.sqlite"


def test_without_a_file_the_defaults_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CANDIDATES_CONFIG", raising=False)
    args = parsed("serve")
    resolve(args)
    given = (args.host, args.port, args.public_delay_s, args.flag_check)
    assert given == ("127.0.0.1", 8765, 900, 1)
    assert args.hall is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("stor = 'x'\n", "unknown key stor"),
        ("public_delay_s = 'soon'\n", "public_delay_s must be 0 or more seconds"),
        ("[gateway]\nport = -1\n", "gateway.port must be a port number"),
        ("[dgt.groups.a]\nboards = [1]\n", "dgt.groups.a.boards must be a list of strings"),
        ("[dgt.groups.a]\n", "dgt.groups.a lists no boards"),
        ("[tokens]\nshort = { role = 'arbiter' }\n", "shorter than 8 characters"),
        ("store = \n", "is not TOML"),
    ],
)
def test_a_wrong_file_is_named_with_its_key(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "hall.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=named):
        load_config(path)
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--config", str(path), "standings"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("candidates: configuration") and named in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "--config", str(tmp_path / "no.toml"), "init"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "cannot read the configuration" in done.stderr and "Traceback" not in done.stderr


def test_dgt_run_takes_its_boards_from_a_group(tmp_path: Path) -> None:
    missing = tmp_path / "missing.dgt"
    path = write_hall(tmp_path, store=str(tmp_path / "s.sqlite"), recording=str(missing))
    cli = [sys.executable, "-m", "adapters.cli", "--config", str(path), "dgt", "run"]
    done = subprocess.run([*cli, "--group", "z"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "no board group 'z'" in done.stderr and "has a" in done.stderr
    # group a's recording is read (and named) before anything runs
    done = subprocess.run([*cli, "--group", "a"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert str(missing) in done.stderr and "Traceback" not in done.stderr
