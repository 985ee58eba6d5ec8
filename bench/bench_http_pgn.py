"""HTTP outputs: requests per second of the live PGN endpoint, with and without 304,
against a bare static file served by the same gateway in the same run.

The gateway runs in its own process (``serve_forever`` with the default
15-minute public delay, so the public PGN is built from the delayed copy of
the log) on a store holding the whole 2013 event (the shipped replay log).
A load generator in this process keeps ``--concurrency`` requests in flight
over loopback for ``--seconds`` per case; each request is a fresh connection
(the gateway answers plain HTTP during the websocket handshake and closes the
connection, as it does for every poller without a proxy in front). Cases:

- ``static``: ``GET /static/style.css`` (a file read and sent): the baseline;
- ``pgn 200``: ``GET /pgn/round/7.pgn`` (the round's four games, ``[%clk]`` after
  every move), the whole body every time;
- ``pgn 304``: the same with ``If-None-Match`` of its ETag (no body);
- ``all 200``: ``GET /pgn/all.pgn`` (56 games, about 250 kB).

    .venv/bin/python bench/bench_http_pgn.py [--seconds 3] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.formats.replay import Pace, replay  # noqa: E402
from adapters.formats.replay_log import read_log  # noqa: E402
from adapters.store import Store  # noqa: E402
from tools.sample import SAMPLE_LOG  # noqa: E402

GATEWAY = textwrap.dedent(
    """
    import asyncio, sys
    from adapters.gateway.server import serve_forever

    def ready(server):
        print(server.sockets[0].getsockname()[1], flush=True)

    asyncio.run(serve_forever(sys.argv[1], "127.0.0.1", 0, None, 900, ready=ready))
    """
)


async def fetch(port: int, request: bytes) -> tuple[int, int]:
    """(status, bytes received) of one request on a fresh connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    data = await reader.read()
    writer.close()
    status = int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else 0
    return status, len(data)


async def load(
    port: int, path: str, headers: str, seconds: float, concurrency: int
) -> tuple[float, int, set[int]]:
    """(requests per second, mean bytes per answer, statuses seen)."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode()
    done, received, statuses = 0, 0, set()
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done, received
        while time.perf_counter() < deadline:
            status, size = await fetch(port, request)
            statuses.add(status)
            done += 1
            received += size

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    return done / elapsed, received // max(1, done), statuses


async def etag_of(port: int, path: str) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        name, _, value = line.decode().partition(":")
        if name.lower() == "etag":
            return value.strip()
    raise RuntimeError(f"no ETag on {path}")


async def run(port: int, seconds: float, concurrency: int) -> list[tuple[str, float, int, set]]:
    etag = await etag_of(port, "/pgn/round/7.pgn")
    cases = [
        ("static  /static/style.css", "/static/style.css", ""),
        ("pgn 200 /pgn/round/7.pgn", "/pgn/round/7.pgn", ""),
        ("pgn 304 /pgn/round/7.pgn", "/pgn/round/7.pgn", f"If-None-Match: {etag}\r\n"),
        ("all 200 /pgn/all.pgn", "/pgn/all.pgn", ""),
    ]
    rows = []
    for name, path, headers in cases:
        await load(port, path, headers, 0.3, concurrency)  # warm up (first build, caches)
        rate, size, statuses = await load(port, path, headers, seconds, concurrency)
        rows.append((name, rate, size, statuses))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = str(Path(tmp) / "event.sqlite")
        with Store(url) as store:
            replay(store, read_log(SAMPLE_LOG).records, Pace(None))
        gateway = subprocess.Popen(
            [sys.executable, "-c", GATEWAY, url],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert gateway.stdout is not None
            port = int(gateway.stdout.readline())
            rows = asyncio.run(run(port, args.seconds, args.concurrency))
        finally:
            gateway.terminate()
            gateway.wait(10)
    baseline = rows[0][1]
    print(
        f"HTTP outputs vs a static file, same gateway, same run; {args.concurrency} in flight, "
        f"{args.seconds:g} s per case, a fresh connection per request, loopback"
    )
    print(f"{'case':<28} {'req/s':>8} {'vs static':>10} {'bytes':>8}  status")
    for name, rate, size, statuses in rows:
        shown = ",".join(str(s) for s in sorted(statuses))
        print(f"{name:<28} {rate:>8.0f} {rate / baseline:>9.2f}x {size:>8}  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
