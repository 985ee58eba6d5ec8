"""``make drill PORT_BASE=N``: the drill's ports in a range the machine allows.

The drill picked its cluster's and its gateways' ports itself (any free one), with no
way to keep them in a range; ``$CANDIDATES_DRILL_PORT_BASE`` (the Makefile sets it from
``PORT_BASE``) makes them the first free ones from N up.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from deploy import cluster
from deploy.runbook import DrillError


def test_ports_from_the_base_up_skipping_one_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        base = taken.getsockname()[1]
        if base > 65535 - 2 * cluster.PORT_RANGE:
            pytest.skip("the kernel's free port is at the top of the range")
        monkeypatch.setenv(cluster.PORT_BASE_ENV, str(base))
        monkeypatch.setattr(cluster, "_given", set())
        ports = [cluster.free_port() for _ in range(3)]
    assert len(set(ports)) == 3 and base not in ports
    assert all(base < port < base + cluster.PORT_RANGE for port in ports)


@pytest.mark.parametrize("base", ["80", "65500", "many"])
def test_a_base_out_of_range_is_said(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    monkeypatch.setenv(cluster.PORT_BASE_ENV, base)
    with pytest.raises(DrillError, match="PORT_BASE"):
        cluster.free_port()


def test_make_drill_passes_port_base() -> None:
    root = Path(__file__).resolve().parents[1]
    dry = subprocess.run(
        ["make", "-n", "-C", str(root), "drill", "PORT_BASE=20000"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"{cluster.PORT_BASE_ENV}=20000" in dry.stdout
