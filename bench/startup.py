"""Time from `make dev` to a healthy /health, on a machine where `make install` has run.

    python -m bench.startup [--runs 3]

Each run starts `make dev` on a port of its choosing (MEMEX_PORT=0, the URL read from what it says)
with a fresh MEMEX_HOME (first start: creates the embedded Postgres cluster) and then again on the
same home (restart), and stops it with Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.service import ROOT, said_url


def time_to_healthy(home: Path) -> float:
    env = {**os.environ, "MEMEX_HOME": str(home), "MEMEX_PORT": "0"}
    env.pop("DATABASE_URL", None)
    log_path = home / "make-dev.log"
    started = time.perf_counter()
    with open(log_path, "ab") as log:
        said_from = log.tell()  # the restart's own line, not the first start's
        process = subprocess.Popen(["make", "dev"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        url = said_url(log_path, process, 300, said_from)
        while True:
            if process.poll() is not None:
                raise RuntimeError("make dev exited before it was healthy")
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    return time.perf_counter() - started
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    finally:
        # A `make dev` that exited on its own took its group with it: its failure is what to report.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    first, again = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as home:
            first.append(time_to_healthy(Path(home)))
            again.append(time_to_healthy(Path(home)))
    print(f"make dev -> healthy, fresh data dir: median {statistics.median(first):.1f} s "
          f"(runs: {', '.join(f'{t:.1f}' for t in first)})")
    print(f"make dev -> healthy, restart:        median {statistics.median(again):.1f} s "
          f"(runs: {', '.join(f'{t:.1f}' for t in again)})")


if __name__ == "__main__":
    main()
