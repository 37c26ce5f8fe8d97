"""`python -m infra.local` as a user runs it: over real HTTP, workers in threads, restartable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from infra.local.sqs_server import free_port
from tests.conftest import ROOT

# What the test session's own runtime put in the environment must not leak into the child.
_RUNTIME_VARS = {"DATABASE_URL", "SQS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL",
                 "BACKFILL_QUEUE_URL", "MEMEX_HOME", "MEMEX_REQUIRE_API_KEY", "MEMEX_MAX_RECEIVE_COUNT"}


class Server:
    def __init__(self, home):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in _RUNTIME_VARS}
        self.log = open(home / f"server-{self.port}.log", "w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "infra.local", "--home", str(home), "--port", str(self.port)],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.output()
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        pytest.fail(f"server did not become healthy:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=30)
        self.log.flush()
        return code


def _wait_processed(url: str, turn_id: str) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = httpx.get(f"{url}/v1/turns/{turn_id}").json()
        if status["status"] == "processed":
            return status
        time.sleep(0.3)
    pytest.fail(f"turn {turn_id} not processed: {status}")


def test_round_trip_over_http_and_persistence_across_restart(tmp_path):
    server = Server(tmp_path)
    try:
        assert "requests without a key go to the default tenant" in server.output()
        turn = httpx.post(f"{server.url}/v1/turns", json={
            "user_id": "alice", "session_id": "s1",
            "messages": [{"role": "user", "content": "I work at Stripe as an engineer 🚀"}]}).json()
        assert turn["status"] == "queued"
        _wait_processed(server.url, turn["turn_id"])
        hits = httpx.post(f"{server.url}/v1/search", json={"user_id": "alice", "query": "where does she work"}).json()
        top = [r["content"] for r in hits["results"][:3]]
        assert {"I work at Stripe as an engineer 🚀", "The user's employer is Stripe."} <= set(top)
    finally:
        code = server.stop()
    assert code == 0, server.output()
    assert "memex: stopped" in server.output()

    again = Server(tmp_path)
    try:
        assert httpx.get(f"{again.url}/v1/turns/{turn['turn_id']}").json()["status"] == "processed"
        hits = httpx.post(f"{again.url}/v1/search", json={"user_id": "alice", "query": "Stripe engineer"}).json()
        assert "I work at Stripe as an engineer 🚀" in [r["content"] for r in hits["results"]]
    finally:
        assert again.stop() == 0, again.output()
