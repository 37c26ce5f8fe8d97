"""`python -m infra.local`: serve the API on 127.0.0.1:8080 with the workers running."""

from __future__ import annotations

import argparse
import fcntl
import logging
import os
import shutil
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import IO

import uvicorn
from uvicorn.supervisors import Multiprocess

from infra.local.runtime import LocalRuntime, mcp_app, quiet_libraries
from memex.config import ConfigurationError, Settings, load_settings
from memex.context import Context


def hold_home(home: Path) -> IO[str]:
    """This run's claim on `home`, held until the process ends however it ends (a kill -9 too: the kernel
    drops the lock): a second run on the same data directory, on another port, served beside the first,
    re-sent the first's turns in flight as unfinished ones of a last run and emptied the metrics
    directory its processes write to. The claim lasts while the returned file is open."""
    home.mkdir(parents=True, exist_ok=True)
    claim = open(home / "serving.pid", "a+")
    try:
        fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        claim.seek(0)
        holder = claim.read().strip() or "?"
        claim.close()
        raise SystemExit(f"memex: {home} is served already, by process {holder} (another make dev on this MEMEX_HOME): "
                         "stop it first, or give this run a data directory of its own (MEMEX_HOME, --home)") from None
    claim.truncate(0)
    claim.write(f"{os.getpid()}\n")
    claim.flush()
    return claim


def share_metrics_between_processes(home: Path) -> None:
    """With several HTTP processes, Prometheus's multiprocess mode: every process (this one with
    the workers, each HTTP server process) writes its samples under home/prometheus, and /metrics
    adds them up. Set before prometheus-client is imported; emptied so that counters start at zero
    with the run."""
    if load_settings().local_http_processes <= 1:
        return
    directory = home / "prometheus"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)


def parse_args(description: str = "Run memex locally: API, workers, queues, Postgres.") -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default=os.environ.get("MEMEX_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("MEMEX_PORT", "8080")))
    mcp_port = os.environ.get("MEMEX_MCP_PORT")
    parser.add_argument("--mcp-port", type=int, default=int(mcp_port) if mcp_port else None,
                        help="also serve MCP alone on this port (the memex seed's 8001; 0: a free one, said at start)")
    parser.add_argument("--home", type=Path, default=Path(os.environ.get("MEMEX_HOME", ".memex")))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    quiet_libraries()
    # Checked before anything reads the settings: a value that is not valid (MEMEX_RATE_LIMIT=fast)
    # stops the run with its message, never with a traceback from whichever reader met it first.
    try:
        load_settings()
    except ConfigurationError as exc:
        raise SystemExit(f"memex: {exc}") from None
    return args


def main() -> None:
    # SIGTERM (systemd, `docker stop`, kill) ends the run as Ctrl-C does: uvicorn hands the signal back
    # once it has shut down, and Python's default for it ended the process before `serve` stopped the
    # workers and the embedded Postgres.
    signal.signal(signal.SIGTERM, lambda signum, _: sys.exit(128 + signum))
    args = parse_args()
    home = args.home.resolve()
    with hold_home(home):
        share_metrics_between_processes(home)
        ports = listen(args)
        try:
            runtime = LocalRuntime(home).start()
        except ConfigurationError as exc:
            raise SystemExit(f"memex: {exc}") from None
        serve(runtime, args, ports)


def _extraction(settings: Settings) -> str:
    # Said at start: /health's `extractor` was the only place an LLM that did not take was seen.
    if settings.llm_configured:
        return f"the LLM {settings.llm_model} (the offline rules stand in when it gives no answer)"
    return "the offline rules (MEMEX_LLM_BASE_URL and MEMEX_LLM_MODEL set an LLM)"


def embedder_note(ctx: Context) -> str | None:
    """Said at start when the embedder does not answer: /health's `embed` was the only place it was
    seen, while searches ran keyword-only. Its probe is /health's (bounded, ~2 s at most)."""
    try:
        ctx.embedder.probe()
    except Exception as exc:  # noqa: BLE001 - any failure is what to say
        where = "MEMEX_EMBEDDINGS_BASE_URL" if ctx.settings.embeddings_provider != "local" else "the model's package"
        return (f"the embedder {ctx.settings.embeddings_provider}:{ctx.embedder.name} does not answer "
                f"({type(exc).__name__}; check {where}): until it does, searches are keyword-only, POST "
                "/v1/memories answers 503 and turns wait for it (GET /health names its state)")
    return None


def listen(args: argparse.Namespace) -> tuple[socket.socket, socket.socket | None]:
    """The API's port and, if asked, MCP's alone, bound before the runtime starts: a port in use stops the run
    before the start re-sends an unfinished turn (each re-send counts towards giving the turn up) or a worker
    takes a message off a queue."""
    api = listening_socket(args.host, args.port, "--port, MEMEX_PORT")
    # The memex seed's layout: MCP alone on a port of its own, beside the API.
    alone = listening_socket(args.host, args.mcp_port, "--mcp-port, MEMEX_MCP_PORT") if args.mcp_port is not None else None
    return api, alone


def serve(runtime: LocalRuntime, args: argparse.Namespace, ports: tuple[socket.socket, socket.socket | None]) -> None:
    """Serve the API (and MCP) on `ports` (listen) with the runtime's workers running until Ctrl-C, then stop it."""
    from memex.keys import open_mode
    from memex_edge.context import get_context

    for note in runtime.notes:
        print(f"memex: {note}", flush=True)
    print(f"memex: extraction and supersession: {_extraction(get_context().settings)}", flush=True)
    if note := embedder_note(get_context()):
        print(f"memex: {note}", flush=True)
    if open_mode(get_context()):
        print("memex: no API key exists: requests without a key go to the default tenant "
              "(create one with `memex keys create --tenant NAME` to require keys)", flush=True)
    processes = get_context().settings.local_http_processes
    api, alone = ports
    try:
        runtime.run_workers()
        print(f"memex: serving on {address(api)} (MCP at /mcp)", flush=True)
        if alone is not None:
            mcp = uvicorn.Server(uvicorn.Config(mcp_app(args.host), log_level="warning", lifespan="on"))
            threading.Thread(target=mcp.run, kwargs={"sockets": [alone]}, name="mcp-server", daemon=True).start()
            print(f"memex: MCP also on {address(alone)}/mcp", flush=True)
        if processes > 1:
            # Each process its own interpreter (its own GIL, embedder and connections); the queues'
            # workers and the sweep stay here.
            os.environ["MEMEX_HOST"] = args.host
            Multiprocess(uvicorn.Config("infra.local.runtime:http_app", factory=True, workers=processes,
                                        log_level="warning"), sockets=[api]).run()
        else:
            uvicorn.Server(uvicorn.Config(runtime.asgi_app(args.host), log_level="warning")).run(sockets=[api])
    except KeyboardInterrupt:
        pass  # uvicorn hands Ctrl-C back once it has shut down
    finally:
        runtime.stop()
        print("memex: stopped", flush=True)


def listening_socket(host: str, port: int, option: str) -> socket.socket:
    """`host`:`port` bound and listening before anything is served on it, as uvicorn would bind it: so
    that port 0 takes a free port whose number is said at start (what a test or a script starting
    several servers wants), and a port in use stops the run with a sentence naming it, not a log line
    of the thread serving MCP while the API ran on."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(f"memex: cannot serve on {host}:{port} ({option}): {exc.strerror}") from None
    sock.listen(2048)  # uvicorn's backlog
    sock.set_inheritable(True)  # for the HTTP server processes
    return sock


def address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


if __name__ == "__main__":
    main()
