"""Start LocalStack's own runtime as a child process on loopback, from its pinned virtualenv
(`make localstack-venv` builds it), wait until the services asked for answer, stop it.

LocalStack 4.14 runs outside Docker on Python 3.13 when started as `python -m
localstack.runtime.main`; memex's own virtualenv is Python 3.11, hence a process of its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-localstack"
# What memex uses: queues, the backfill bucket, the database and API-key secrets.
RUNTIME_SERVICES = ("sqs", "s3", "secretsmanager")
# What its gateway logs when its port is taken: it runs on, never serving (its own runtime gives up
# waiting for the gateway after 15 s, and the process stays).
PORT_TAKEN = b"CannotListenError"
# What it prints once its gateway answers on its port (after the bind that may log PORT_TAKEN).
READY = b"Ready."
# Starts on a free port picked here, each taken by another process before LocalStack bound it.
FREE_PORT_ATTEMPTS = 3


class LocalStackError(RuntimeError):
    """LocalStack could not be started; the message says why and where its log is."""


class PortTaken(LocalStackError):
    """Another process holds the port LocalStack was given."""


def python(venv: Path = VENV) -> Path:
    path = venv / "bin" / "python"
    if not path.exists():
        raise LocalStackError(f"{path} is missing: run `make localstack-venv` (Python 3.13, "
                              f"infra/localstack/requirements.txt)")
    return path


class LocalStack:
    """LocalStack on `port`, or with None on a free one picked at start. It cannot take port 0 and say which
    it bound, as memex's servers do: its runtime waits for its gateway on the port it was given (port 0:
    "gave up waiting for gateway server to start on 127.0.0.1:0"), and its queue URLs carry that port
    (LOCALSTACK_HOST). So a port is picked free here, and one another process took before LocalStack bound
    it is replaced by another (FREE_PORT_ATTEMPTS)."""

    def __init__(self, port: int | None, data_dir: Path, services: tuple[str, ...] = RUNTIME_SERVICES,
                 venv: Path = VENV, extra_env: dict[str, str] | None = None):
        self._free_port = port is None
        self._on(port)
        self.services = services
        self.data_dir = data_dir.resolve()
        self.log_path = self.data_dir / "localstack.log"
        self._venv = venv
        self._extra_env = extra_env or {}
        self._process: subprocess.Popen | None = None

    def _on(self, port: int | None) -> None:
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"

    def start(self, timeout: float = 180.0) -> "LocalStack":
        for attempt in range(1, FREE_PORT_ATTEMPTS + 1):
            if self._free_port:
                from infra.local.sqs_server import free_port

                self._on(free_port())
            try:
                return self._start(timeout)
            except PortTaken:
                if not self._free_port or attempt == FREE_PORT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")

    def _start(self, timeout: float) -> "LocalStack":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "LOCALSTACK_", "PYTHON"))},
            "SERVICES": ",".join(self.services),
            "GATEWAY_LISTEN": f"127.0.0.1:{self.port}",
            # Its state, caches and logs under data_dir, not /var/lib/localstack (it takes any
            # container, this one included, for its own image unless told otherwise).
            "OVERRIDE_IN_DOCKER": "0",
            "FILESYSTEM_ROOT": str(self.data_dir / "filesystem"),
            # Nothing leaves the machine: no DNS server of its own, no certificate download, no
            # usage events.
            "DNS_ADDRESS": "0",
            "SKIP_SSL_CERT_DOWNLOAD": "1",
            "DISABLE_EVENTS": "1",
            # Queue URLs on this endpoint (http://127.0.0.1:PORT/queue/REGION/ACCOUNT/NAME), not
            # on *.localhost.localstack.cloud, which needs a DNS server to resolve.
            "LOCALSTACK_HOST": f"127.0.0.1:{self.port}",
            "SQS_ENDPOINT_STRATEGY": "path",
            **self._extra_env,
        }
        self._log = open(self.log_path, "ab")
        self._log_from = self._log.tell()  # this start's output, not an earlier one's
        self._process = subprocess.Popen(
            [str(python(self._venv)), "-m", "localstack.runtime.main"], env=env, cwd=self.data_dir,
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            # Its own process group: a Ctrl-C in the terminal reaches memex, which stops its
            # pollers first and LocalStack after them.
            start_new_session=True, preexec_fn=_die_with_parent)
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        def alive() -> bool:
            if PORT_TAKEN in self._output():
                raise PortTaken(f"127.0.0.1:{self.port} is in use by another process; see {self.log_path}")
            return self._process.poll() is None

        deadline = time.monotonic() + timeout
        try:
            # Its own "Ready." before any answer on the port is taken for its: the process holding the port
            # would answer the health checks while LocalStack is still starting.
            while READY not in self._output():
                if not alive():
                    raise LocalStackError("LocalStack exited")
                if time.monotonic() > deadline:
                    raise LocalStackError(f"LocalStack did not start within {timeout:.0f} s")
                time.sleep(0.25)
            alive()
            wait_ready(self.endpoint, self.services, max(deadline - time.monotonic(), 1.0), alive=alive)
        except PortTaken:
            raise
        except LocalStackError as exc:
            raise LocalStackError(f"{exc}; see {self.log_path}") from None

    def _output(self) -> bytes:
        with open(self.log_path, "rb") as log:
            log.seek(self._log_from)
            return log.read()

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM, then SIGKILL after `grace` seconds: its orderly shutdown takes 10 s or more here
        and has nothing to save (its state lives in memory and dies with it anyway)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self._log.close()

    def __enter__(self) -> "LocalStack":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def wait_ready(endpoint: str, services: tuple[str, ...], timeout: float, alive=lambda: True) -> None:
    """Return once LocalStack at `endpoint` reports every one of `services` available."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise LocalStackError("LocalStack exited")
        try:
            with urllib.request.urlopen(f"{endpoint}/_localstack/health", timeout=2) as response:
                states = json.load(response).get("services", {})
            if all(states.get(name) in ("available", "running") for name in services):
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise LocalStackError(f"LocalStack did not answer on {endpoint} within {timeout:.0f} s")


def _die_with_parent() -> None:
    """A memex killed outright (SIGKILL, a closed terminal) takes LocalStack with it instead of
    leaving it on the port."""
    if sys.platform == "linux":
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
