"""What the campaign runs against, each part a thing it can break: an embedded Postgres and a
loopback SQS owned by this process, and `python -m infra.local` as a child process using them.

Owning Postgres and SQS here (rather than letting the runtime start its own) is what lets a
scenario stop either under traffic, SIGKILL the runtime and restart it on the same data, and
read every table directly for the erasure audit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlparse

import psycopg

from bench.service import child_env, memex_cli, start
from infra.local import embedded_postgres
from infra.local.runtime import QUEUES
from infra.local.sqs_server import QueueSpec, ensure_queues, start_moto

AWS_ENV = {"AWS_ACCESS_KEY_ID": "memex-local", "AWS_SECRET_ACCESS_KEY": "memex-local",
           "AWS_DEFAULT_REGION": "us-east-1"}
# Local runtime's queue visibility timeout (LocalRuntime's default): a message in flight when
# the runtime dies comes back after this long.
VISIBILITY_TIMEOUT = 30


class Stack:
    def __init__(self, home: Path):
        self.home = home
        self.runtime_log = home / "runtime.log"
        self.postgres = embedded_postgres.start(home / "pgdata")
        self.dsn = self.postgres.url
        self._sqs_port = 0  # moto's choice at the first start, kept for restarts
        self._moto = None
        self.sqs_endpoint = ""
        self.start_sqs()
        self._process: subprocess.Popen | None = None
        self._runtime_env: dict[str, str] = {}
        self.url = ""

    # --- the runtime -------------------------------------------------------------------------

    def start_runtime(self, extra_env: dict[str, str] | None = None, timeout: float = 120) -> str:
        """Start `python -m infra.local` on our Postgres and SQS; `extra_env` is kept for restarts."""
        if extra_env is not None:
            self._runtime_env = dict(extra_env)
        env = child_env({**AWS_ENV, "DATABASE_URL": self.dsn, "SQS_ENDPOINT_URL": self.sqs_endpoint,
                         "MEMEX_REQUIRE_API_KEY": "true", **self._runtime_env}, defaults_only=True)
        # Every start's output in one log; in a session of its own, so that a SIGKILL reaches the runtime alone.
        self._process, self.url = start(["-m", "infra.local", "--home", str(self.home / "runtime")], 0,
                                        self.runtime_log, env, timeout)
        return self.url

    @property
    def runtime_pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def kill_runtime(self) -> None:
        """SIGKILL: no shutdown, no flush, whatever was in flight is cut."""
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait()

    def stop_runtime(self) -> None:
        if self._process is not None and self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGINT)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill_runtime()

    # --- Postgres ----------------------------------------------------------------------------

    def stop_postgres(self) -> None:
        """A fast shutdown: every connection of the runtime is dropped by the server."""
        self.postgres.pg_ctl("-w", "-m", "fast", "stop")

    def start_postgres(self) -> None:
        # The server listens only on its socket directory, as the embedded Postgres started it.
        socket_dir = parse_qs(urlparse(self.dsn).query)["host"][0]
        self.postgres.pg_ctl("-w", "-o", f'-h "" -k {socket_dir}', "-l", str(self.home / "pgdata" / "log"), "start")

    def sql(self, query: str, params: Any = None) -> list[tuple]:
        with psycopg.connect(self.dsn, autocommit=True, prepare_threshold=None) as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    # --- SQS ---------------------------------------------------------------------------------

    def start_sqs(self) -> None:
        """(Re)start the loopback SQS on the same port; a restarted moto has lost its queues, so
        they are created again under the same names (and so the same URLs)."""
        for name, value in AWS_ENV.items():
            os.environ.setdefault(name, value)
        self._moto, self.sqs_endpoint = start_moto(self._sqs_port)
        self._sqs_port = self._moto.port
        ensure_queues(self.sqs(), [QueueSpec(name, fifo, VISIBILITY_TIMEOUT) for name, (_, _, fifo) in QUEUES.items()],
                      max_receive_count=5)

    def stop_sqs(self) -> None:
        if self._moto is not None:
            self._moto.stop()
            self._moto = None

    def sqs(self):
        import boto3

        return boto3.client("sqs", endpoint_url=self.sqs_endpoint, region_name=AWS_ENV["AWS_DEFAULT_REGION"],
                            aws_access_key_id=AWS_ENV["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=AWS_ENV["AWS_SECRET_ACCESS_KEY"])

    def queue_url(self, name: str) -> str:
        fifo = QUEUES[name][2]
        return self.sqs().get_queue_url(QueueName=name + (".fifo" if fifo else ""))["QueueUrl"]

    def queued_messages(self) -> int:
        """Messages in the work queues, visible or in flight (dead letters excluded)."""
        client, total = self.sqs(), 0
        for name in QUEUES:
            attributes = client.get_queue_attributes(QueueUrl=self.queue_url(name), AttributeNames=[
                "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
            total += sum(int(v) for v in attributes.values())
        return total

    # --- tenants and clients -----------------------------------------------------------------

    def create_key(self, tenant: str) -> str:
        """A key made the way an operator makes one: `memex keys create` against our database."""
        return memex_cli(["keys", "create", "--tenant", tenant], {"DATABASE_URL": self.dsn},
                         timeout=120).strip().splitlines()[-1]

    def consolidate(self, tenant: str, user: str) -> dict[str, int]:
        """`memex consolidate` for one user, now, whatever their size or the memories' age."""
        return json.loads(memex_cli(["consolidate", "--tenant", tenant, "--user", user, "--threshold", "0",
                                     "--min-age-days", "0"], {"DATABASE_URL": self.dsn}, timeout=300))

    def close(self) -> None:
        """Stop everything, Postgres included: its data directory is about to be removed."""
        self.stop_runtime()
        self.stop_sqs()
        try:
            self.stop_postgres()
        except subprocess.CalledProcessError:
            pass  # a scenario that failed mid-outage left it stopped


@contextmanager
def stack(home: Path) -> Iterator[Stack]:
    running = Stack(home)
    try:
        yield running
    finally:
        running.close()


def unique(prefix: str) -> str:
    """A token no other row holds, kept whole by Postgres's text search (letters then digits)."""
    return f"{prefix}{uuid.uuid4().hex[:12]}"


def wait_for(predicate, timeout: float, interval: float = 0.5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
