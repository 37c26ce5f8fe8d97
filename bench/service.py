"""The service under measurement: `python -m infra.local` on a fresh data dir and a free port,
started and stopped by a benchmark."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

import httpx

ROOT = Path(__file__).resolve().parents[1]

# Where a benchmark's (or the test session's) own environment points at a database, queues or AWS,
# or what its runtime set for itself, a child process of this checkout's must not follow.
RUNTIME_VARS = ("DATABASE_URL", "DATABASE_SECRET_ARN", "SQS_ENDPOINT_URL", "AWS_ENDPOINT_URL", "MEMEX_LOCALSTACK",
                "EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL", "BACKFILL_QUEUE_URL", "MEMEX_HOME",
                "MEMEX_REQUIRE_API_KEY", "MEMEX_MAX_RECEIVE_COUNT")


def quiet_in_process_runtime() -> None:
    """Before a benchmark starts a local runtime in its own process: none of the caller's runtime
    settings (RUNTIME_VARS) nor an LLM (the offline path is what is measured), and no Powertools INFO
    lines, EMF output or request lines of the loopback SQS on the benchmark's output."""
    for name in (*RUNTIME_VARS, "MEMEX_LLM_MODEL", "MEMEX_LLM_BASE_URL"):
        os.environ.pop(name, None)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

SERVING = re.compile(r"^memex: serving on (http://\S+) ", re.MULTILINE)


class ServiceError(Exception):
    """The service could not be run or answered wrongly: the measurement is void."""


@contextmanager
def local_server(extra_env: dict[str, str] | None = None, defaults_only: bool = False,
                 timeout: float = 180) -> Iterator[str]:
    """Yields the URL of a fresh service. `defaults_only` also drops every MEMEX_* setting of
    this environment, so that only `extra_env` differs from the defaults."""
    with tempfile.TemporaryDirectory(prefix="memex-bench-") as home:
        with serve(["-m", "infra.local", "--home", str(Path(home) / "memex")], 0, Path(home), extra_env,
                   defaults_only, timeout) as url:
            yield url


@contextmanager
def serve(python_args: list[str], port: int, log_dir: Path, extra_env: dict[str, str] | None = None,
          defaults_only: bool = False, timeout: float = 180) -> Iterator[str]:
    """Runs `python <python_args> --port <port>` (see `start`) until the block ends; its output goes to
    `log_dir`/server.log, whose tail a failure quotes."""
    log_path = log_dir / "server.log"
    process, url = start(python_args, port, log_path, child_env(extra_env, defaults_only), timeout)
    try:
        yield url
    except ServiceError as exc:
        raise ServiceError(f"{exc}\n{_tail(log_path)}") from exc
    finally:
        stop(process)


def start(python_args: list[str], port: int, log_path: Path, env: dict[str, str],
          timeout: float = 180) -> tuple[subprocess.Popen, str]:
    """Starts `python <python_args> --port <port>` from the repository root, its output added to `log_path`
    (a restart's after the start's before it), serving on `port` (0: where this start says it serves, as
    `python -m infra.local --port 0` does): the process and its URL once healthy. A start that fails is
    stopped, its ServiceError quoting the log's tail."""
    with open(log_path, "ab") as log:
        said_from = log.tell()
        # A session of its own: a Ctrl-C at the terminal reaches only us, and we stop the
        # server with exactly one SIGINT (a second one would cut its shutdown short).
        process = subprocess.Popen([sys.executable, *python_args, "--port", str(port)], cwd=ROOT, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}" if port else said_url(log_path, process, timeout, said_from)
        wait_healthy(url, process, timeout)
    except ServiceError as exc:
        stop(process)
        raise ServiceError(f"{exc}\n{_tail(log_path)}") from exc
    return process, url


def stop(process: subprocess.Popen, signum: int = signal.SIGINT, timeout: float = 60) -> int:
    """Stops a server `start` started with `signum` (Ctrl-C by default), killed if it has not
    exited within `timeout` s: its exit code."""
    if process.poll() is None:
        process.send_signal(signum)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def _tail(log_path: Path) -> str:
    return f"--- server log (tail) ---\n{log_path.read_text()[-3000:]}"


def child_env(extra_env: dict[str, str] | None = None, defaults_only: bool = False) -> dict[str, str]:
    """The environment of a process of this checkout's (the server, the CLI): this one's without
    RUNTIME_VARS (and without any MEMEX_* setting if `defaults_only`), with `extra_env`."""
    env = {k: v for k, v in os.environ.items()
           if k not in RUNTIME_VARS and not (defaults_only and k.startswith("MEMEX_"))}
    env.update(extra_env or {})
    # This checkout's code, not the copy of memex the virtualenv has installed (editable, elsewhere).
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "shared"), *filter(None, [env.get("PYTHONPATH")])])
    return env


def settings_env(assignments: Iterable[str]) -> dict[str, str]:
    """The settings a benchmark gives the server it starts, each "MEMEX_X=value"; ValueError names
    the first that is not one."""
    env = {}
    for assignment in assignments:
        variable, sep, value = assignment.partition("=")
        if not sep or not variable.startswith("MEMEX_"):
            raise ValueError(f"{assignment!r}: expected MEMEX_X=value")
        env[variable] = value
    return env


def memex_cli(args: list[str], extra_env: dict[str, str], defaults_only: bool = False, timeout: float = 1800) -> str:
    """`memex <args>` (this checkout's CLI) in the environment child_env makes; its stdout."""
    done = subprocess.run([sys.executable, "-m", "infra.cli", *args], cwd=ROOT, env=child_env(extra_env, defaults_only),
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode:
        raise ServiceError(f"memex {' '.join(args[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def said_url(log_path: Path, process: subprocess.Popen, timeout: float, offset: int = 0) -> str:
    """The URL a server started with `--port 0` says it serves on (`memex: serving on URL`), once said
    in its log after byte `offset` (where this start's output begins in a log that others wrote before)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(log_path, "rb") as log:
            log.seek(offset)
            output = log.read().decode(errors="replace")
        if said := SERVING.search(output):
            return said[1]
        if process.poll() is not None:
            raise ServiceError(f"the server exited with {process.returncode}")
        time.sleep(0.2)
    raise ServiceError(f"the server did not say where it serves within {timeout:.0f} s")


def wait_healthy(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServiceError(f"the server exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise ServiceError(f"the server was not healthy after {timeout:.0f} s")
