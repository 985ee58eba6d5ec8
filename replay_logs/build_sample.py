"""Build replay_logs/candidates-2013.msgpack from replay_logs/sources/candidates-2013.pgn.

    python replay_logs/build_sample.py [OUT]

Deterministic: the same sources and engine give the same bytes. What is real
and what is generated is written in the log's header (see tools/sample.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.sample import SAMPLE_LOG, write_sample


def main() -> int:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE_LOG
    started = time.perf_counter()
    count = write_sample(target)
    print(f"{target}: {count} events in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
