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


class LocalStackError(RuntimeError):
    """LocalStack could not be started; the message says why and where its log is."""


def python(venv: Path = VENV) -> Path:
    path = venv / "bin" / "python"
    if not path.exists():
        raise LocalStackError(f"{path} is missing: run `make localstack-venv` (Python 3.13, "
                              f"infra/localstack/requirements.txt)")
    return path


class LocalStack:
    def __init__(self, port: int, data_dir: Path, services: tuple[str, ...] = RUNTIME_SERVICES,
                 venv: Path = VENV, extra_env: dict[str, str] | None = None):
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"
        self.services = services
        self.data_dir = data_dir.resolve()
        self.log_path = self.data_dir / "localstack.log"
        self._venv = venv
        self._extra_env = extra_env or {}
        self._process: subprocess.Popen | None = None

    def start(self, timeout: float = 180.0) -> "LocalStack":
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
        try:
            wait_ready(self.endpoint, self.services, timeout, alive=lambda: self._process.poll() is None)
        except LocalStackError as exc:
            raise LocalStackError(f"{exc}; see {self.log_path}") from None

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
