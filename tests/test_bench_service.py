"""bench/service.py: where a server a benchmark started says it serves."""

from __future__ import annotations

import subprocess
import sys

from bench.service import said_url


def test_a_restart_is_found_where_it_says_it_serves_not_where_the_start_before_it_did(tmp_path):
    # bench/reliability's runtime log holds every start's output: each start is on a port of its own
    log = tmp_path / "runtime.log"
    log.write_text("memex: serving on http://127.0.0.1:1111 (MCP at /mcp)\nmemex: stopped\n")
    restart = log.stat().st_size
    with open(log, "a") as out:
        out.write("memex: serving on http://127.0.0.1:2222 (MCP at /mcp)\n")
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        assert said_url(log, process, 30, restart) == "http://127.0.0.1:2222"
        assert said_url(log, process, 30) == "http://127.0.0.1:1111"
    finally:
        process.kill()
        process.wait()
