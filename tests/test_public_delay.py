"""The public delay has one owner (``adapters.host.public_delay``): one default, one flag
(``--public-delay-s``), read by the gateway, the DGT feed and the boards' correction policy
alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli import build_parser
from adapters.cli.cmd_dgt import correction_policy
from adapters.cli.cmd_serve import resolve
from adapters.cli.hall_config import apply_config
from adapters.dgt.feed import StoreSink
from adapters.dgt.service import CorrectionPolicy
from adapters.gateway.server import Gateway
from adapters.host import public_delay


@pytest.mark.parametrize("command", [["serve"], ["dgt", "run", "--dgt", "/dev/null=1.1"]])
def test_one_flag_sets_the_one_setting_in_seconds(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = build_parser()
    # not given: None, so that the configuration's setting (else the one default) applies
    assert parser.parse_args([*command]).public_delay_s is None
    assert parser.parse_args([*command, "--public-delay-s", "2.5"]).public_delay_s == 2.5
    assert parser.parse_args([*command, "--public-delay-s", "0"]).public_delay_s == 0
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--help"])
    shown = capsys.readouterr().out
    assert "--public-delay-s SECONDS" in shown and "--public-delay SECONDS" not in shown


def test_a_negative_delay_is_refused_by_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", "--public-delay-s", "-1"])
    assert stopped.value.code == 2
    assert "must be 0 or more seconds, got '-1'" in capsys.readouterr().err


def test_the_gateway_the_feed_and_the_policy_share_one_default() -> None:
    assert public_delay.DEFAULT_MS == 15 * 60 * 1000
    assert Gateway("unused.sqlite").delay_ms == public_delay.DEFAULT_MS
    assert CorrectionPolicy().public_delay_ms == public_delay.DEFAULT_MS
    sink_default = StoreSink.__dataclass_fields__["public_delay_ms"].default
    assert sink_default == public_delay.DEFAULT_MS
    assert Gateway("unused.sqlite", public_delay_s=1.5).delay_ms == 1500


@pytest.mark.parametrize("given", [[], ["--public-delay-s", "5"]])
def test_one_hall_s_gateway_boards_and_policy_read_one_delay(
    given: list[str], tmp_path: Path
) -> None:
    """``serve --dgt`` and ``dgt run`` with the hall's configuration: the gateway's public
    feed, the boards' feed and their correction policy hold the same delay (the file's,
    or the command line's when given), and the policy's arbiter is the file's."""
    hall = tmp_path / "hall.toml"
    hall.write_text('public_delay_s = 42\n[dgt]\nauto_correct_arbiter = "chief"\n')
    wanted_ms = 5000 if given else 42000
    parser = build_parser()
    serve = parser.parse_args(["--config", str(hall), "serve", "--dgt", "/dev/null=1.1", *given])
    apply_config(serve)
    resolve(serve)
    gateway_ms = Gateway("unused.sqlite", public_delay_s=serve.public_delay_s).delay_ms
    boards = parser.parse_args(
        ["--config", str(hall), "dgt", "run", "--dgt", "/dev/null=1.1", *given]
    )
    apply_config(boards)
    assert gateway_ms == wanted_ms
    assert correction_policy(serve) == CorrectionPolicy("chief", wanted_ms)
    assert correction_policy(boards) == CorrectionPolicy("chief", wanted_ms)
