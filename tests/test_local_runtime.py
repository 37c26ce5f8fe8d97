"""`python -m infra.local` as a user runs it: over real HTTP, workers in threads, restartable."""

from __future__ import annotations

import errno
import signal
import socket
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import httpx
import pytest

from bench.service import ServiceError, child_env, start, stop
from tests.conftest import ROOT, database_of_its_own, refused_port

# A fresh server's first search loads the embedding model: slow on a busy machine. Each call its
# own connection, so that requests spread over a server's processes.
get = partial(httpx.get, timeout=60)
post = partial(httpx.post, timeout=60)


def _alive(pid: int) -> bool:
    """A process that has exited but is not reaped yet (a zombie) counts as gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Server:
    """`python -m <module>` on a port of its choosing (--port 0), the URL read from what it says at start:
    a port picked free here and bound later by the child could be taken in between, by a server that
    would then answer this test's requests."""

    def __init__(self, home, extra_env: dict[str, str] | None = None, module: str = "infra.local"):
        self.home = home
        self.log_path = home / f"server-{time.monotonic_ns()}.log"
        try:
            self.process, self.url = start(["-m", module, "--home", str(home)], 0, self.log_path,
                                           child_env(extra_env), timeout=90)
        except ServiceError as exc:
            pytest.fail(str(exc))
        self.postgres_pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])

    def output(self) -> str:
        return self.log_path.read_text()

    def stop(self, signum: int = signal.SIGINT) -> int:
        """Ctrl-C (or `signum`): the runtime stops, and the embedded Postgres with it."""
        code = stop(self.process, signum, timeout=30)
        assert not _alive(self.postgres_pid), f"Postgres {self.postgres_pid} still runs:\n{self.output()}"
        return code

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)


def wait_processed(url: str, turn_id: str) -> dict:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = get(f"{url}/v1/turns/{turn_id}").json()
        if status["status"] == "processed":
            return status
        time.sleep(0.3)
    pytest.fail(f"turn {turn_id} not processed: {status}")


def _metric(url: str, name: str, **labels: str) -> float:
    """One sample of GET /metrics (0 when absent), read on a fresh connection."""
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(f"{url}/metrics").text
    return sum(sample.value for family in text_string_to_metric_families(text) for sample in family.samples
               if sample.name == name and sample.labels == labels)


def test_round_trip_over_http_and_persistence_across_restart(tmp_path):
    server = Server(tmp_path)
    try:
        assert "requests without a key go to the default tenant" in server.output()
        assert "memex: extraction and supersession: the offline rules (MEMEX_LLM_BASE_URL" in server.output()
        turn = post(f"{server.url}/v1/turns", json={
            "user_id": "alice", "session_id": "s1",
            "messages": [{"role": "user", "content": "I work at Stripe as an engineer 🚀"}]}).json()
        assert turn["status"] == "queued"
        wait_processed(server.url, turn["turn_id"])
        hits = post(f"{server.url}/v1/search", json={"user_id": "alice", "query": "where does she work"}).json()
        top = [r["content"] for r in hits["results"][:3]]
        assert {"I work at Stripe as an engineer 🚀", "The user's employer is Stripe."} <= set(top)
        # No key made yet: a request naming another host (DNS rebinding) is refused (tests/test_api.py).
        assert get(f"{server.url}/v1/users/alice/memories", headers={"Host": "evil.example"}).status_code == 421
        # GET /metrics covers the workers (threads of this process) as well as the API.
        assert _metric(server.url, "memex_turns_ingested_total", source="api") == 1
        assert _metric(server.url, "memex_records_received_total", queue="extraction") >= 1
        assert _metric(server.url, "memex_queue_age_seconds_count", queue="supersession") >= 1
        assert _metric(server.url, "memex_supersession_verdicts_total", action="coexist") >= 1
        assert _metric(server.url, "memex_search_latency_seconds_count", mode="hybrid") == 1
        assert _metric(server.url, "memex_dlq_depth", queue="extraction") == 0
    finally:
        code = server.stop()
    assert code == 0, server.output()
    assert "memex: stopped" in server.output()

    again = Server(tmp_path)
    try:
        assert get(f"{again.url}/v1/turns/{turn['turn_id']}").json()["status"] == "processed"
        hits = post(f"{again.url}/v1/search", json={"user_id": "alice", "query": "Stripe engineer"}).json()
        assert "I work at Stripe as an engineer 🚀" in [r["content"] for r in hits["results"]]
    finally:
        assert again.stop() == 0, again.output()


def test_two_http_processes_serve_the_same_data_and_ctrl_c_stops_them_all(tmp_path):
    import psutil

    server = Server(tmp_path, {"MEMEX_LOCAL_HTTP_PROCESSES": "2"})
    try:
        children = psutil.Process(server.process.pid).children(recursive=True)
        serving = [c for c in children if c.pid != server.postgres_pid and "python" in c.name().lower()]
        assert len(serving) >= 2, [c.cmdline() for c in children]
        turn = post(f"{server.url}/v1/turns", json={
            "user_id": "alice", "session_id": "s1",
            "messages": [{"role": "user", "content": "I keep bees on the roof."}]}).json()
        wait_processed(server.url, turn["turn_id"])
        # Fresh connections, so that both processes answer some of them.
        for _ in range(6):
            hits = post(f"{server.url}/v1/search", json={"user_id": "alice", "query": "bees"}).json()
            assert "I keep bees on the roof." in [r["content"] for r in hits["results"]]
            # each process built from MEMEX_HOST knows it is on loopback
            assert get(f"{server.url}/v1/users/alice/memories", headers={"Host": "evil.example"}).status_code == 421
        # Whichever process answers /metrics adds up every process's samples (the workers' too).
        for _ in range(4):
            assert _metric(server.url, "memex_search_latency_seconds_count", mode="hybrid") == 6
            assert _metric(server.url, "memex_turns_ingested_total", source="api") == 1
            assert _metric(server.url, "memex_records_received_total", queue="extraction") >= 1
            assert _metric(server.url, "memex_dlq_depth", queue="supersession") == 0
    finally:
        code = server.stop()
    assert code == 0, server.output()
    deadline = time.monotonic() + 15  # uvicorn's supervisor may return while a worker finishes exiting
    while [c for c in serving if _alive(c.pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [c.pid for c in serving if _alive(c.pid)], server.output()


def test_ctrl_c_stops_postgres_after_a_run_that_was_killed(tmp_path):
    """A run killed before its exit handler ran (SIGKILL, a closed terminal) once left a record
    that kept every later run from stopping the server."""
    killed = Server(tmp_path)
    killed.kill()
    again = Server(tmp_path)
    assert again.stop() == 0, again.output()


def test_sigterm_stops_the_runtime_and_postgres_as_ctrl_c_does(tmp_path):
    """systemd, `docker stop` and `kill` send SIGTERM: uvicorn hands it back once it has shut down,
    and Python's default for it ended the process there, the embedded Postgres left running."""
    server = Server(tmp_path)
    code = server.stop(signal.SIGTERM)
    assert "memex: stopped" in server.output()
    assert code == 128 + signal.SIGTERM, server.output()


def test_a_second_run_on_the_same_home_stops_with_a_sentence_naming_the_first(tmp_path):
    """A second run on the same data directory, on another port, served beside the first: its start re-sent
    the first's turns in flight as a last run's unfinished ones, and it emptied the first's metrics directory."""
    first = Server(tmp_path)
    try:
        result = _run_to_exit(tmp_path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.strip().splitlines()[-1] == (
            f"memex: {tmp_path} is served already, by process {first.process.pid} (another make dev on this "
            "MEMEX_HOME): stop it first, or give this run a data directory of its own (MEMEX_HOME, --home)")
        assert "serving on" not in result.stdout and "re-queued" not in result.stdout, result.stdout
        assert get(f"{first.url}/health").json()["db"] == "ok"  # the first's Postgres is untouched
    finally:
        assert first.stop() == 0, first.output()
    again = Server(tmp_path)  # the claim ends with the run that held it
    assert again.stop() == 0, again.output()


def _run_to_exit(home: Path, extra_env: dict[str, str] | None = None, port: int = 0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "infra.local", "--home", str(home), "--port", str(port)],
                          cwd=ROOT, env=child_env(extra_env), capture_output=True, text=True, timeout=120)


def test_a_setting_that_is_not_valid_stops_make_dev_with_its_message(tmp_path):
    result = _run_to_exit(tmp_path, {"MEMEX_RATE_LIMIT": "fast"})
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("memex: MEMEX_RATE_LIMIT: 'fast' is not a rate")


def test_queues_it_cannot_reach_stop_make_dev_with_a_sentence_naming_the_setting(ctx, tmp_path):
    """A queue URL without AWS credentials, or an SQS endpoint nothing listens on, stopped it with
    boto's traceback (NoCredentialsError, a refused connection)."""
    database = {"DATABASE_URL": ctx.db.dsn}  # not the embedded Postgres: the queues are what is tried
    no_credentials = {"AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"), "AWS_CONFIG_FILE": str(tmp_path / "none"),
                      "AWS_EC2_METADATA_DISABLED": "true", "AWS_DEFAULT_REGION": "eu-west-1"}
    queues = {env: f"https://sqs.eu-west-1.amazonaws.com/000000000000/{name}"
              for env, name in (("EXTRACTION_QUEUE_URL", "x"), ("SUPERSESSION_QUEUE_URL", "s.fifo"),
                                ("BACKFILL_QUEUE_URL", "b"))}
    with refused_port() as nowhere:
        closed = {"SQS_ENDPOINT_URL": f"http://127.0.0.1:{nowhere}", "AWS_ACCESS_KEY_ID": "memex-local",
                  "AWS_SECRET_ACCESS_KEY": "memex-local", "AWS_DEFAULT_REGION": "us-east-1"}
        for extra, says in ((no_credentials | queues, "memex: EXTRACTION_QUEUE_URL=https://sqs.eu-west-1.amazonaws.com/"
                             "000000000000/x: no AWS credentials to reach it (NoCredentialsError): set AWS_PROFILE"),
                            (closed, f"memex: SQS_ENDPOINT_URL={closed['SQS_ENDPOINT_URL']}: nothing answers there "
                             "(EndpointConnectionError): start what serves it, or unset SQS_ENDPOINT_URL"),
                            # an endpoint alone, no queue URL set: what to unset is the endpoint
                            (no_credentials | {"SQS_ENDPOINT_URL": closed["SQS_ENDPOINT_URL"]},
                             f"memex: SQS_ENDPOINT_URL={closed['SQS_ENDPOINT_URL']}: no AWS credentials to reach it "
                             "(NoCredentialsError): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (any "
                             "pair does for LocalStack or moto), or unset SQS_ENDPOINT_URL for loopback queues")):
            env = {k: v for k, v in child_env().items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                                                      "AWS_SESSION_TOKEN", "AWS_PROFILE")}
            result = subprocess.run([sys.executable, "-m", "infra.local", "--home", str(tmp_path), "--port", "0"],
                                    cwd=ROOT, env=env | database | extra, capture_output=True,
                                    text=True, timeout=120)
            assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
            assert result.stderr.strip().splitlines()[-1].startswith(says), result.stderr


def test_a_port_in_use_stops_make_dev_with_a_sentence_naming_it(ctx, tmp_path):
    """The MCP port was bound by the thread serving it, whose failure was a log line while the API ran on,
    having said "MCP also on" that port."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _run_to_exit(tmp_path, {"MEMEX_MCP_PORT": str(port), "DATABASE_URL": ctx.db.dsn})
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (f"memex: cannot serve on 127.0.0.1:{port} (--mcp-port, "
                                                      "MEMEX_MCP_PORT): Address already in use"), result.stderr
    assert "MCP also on" not in result.stdout and "serving on" not in result.stdout, result.stdout


def test_an_api_port_in_use_stops_make_dev_before_it_sends_an_unfinished_turn_again(ctx, tmp_path):
    """The start's sweep ran before the port was bound: each run stopped by a port in use sent the user's
    unfinished turn to a loopback queue that died with it, counting towards giving the turn up
    (MEMEX_SWEEP_MAX_REPUBLISH), so that a few such runs failed a turn no worker had tried."""
    from datetime import datetime, timezone

    from memex.db import tenants as tenant_rows
    from memex.db import turns as turn_rows
    from memex.models import TurnIn

    with database_of_its_own(ctx, "port_in_use") as own:
        with own.db.transaction() as conn:
            tenant_rows.ensure_tenant(conn, "t-port", "u1")
            turn_id, _ = turn_rows.insert_turn(conn, "t-port", TurnIn(
                user_id="u1", session_id="s1", messages=[{"role": "user", "content": "I live in Paris."}]),
                datetime.now(timezone.utc))
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            result = _run_to_exit(tmp_path, {"DATABASE_URL": own.db.dsn}, port)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        turn = own.db.connection().execute("SELECT status, republished FROM turns WHERE id = %s", (turn_id,)).fetchone()
        assert (turn["status"], turn["republished"]) == ("queued", 0), (turn, result.stdout)


def test_an_api_port_in_use_stops_make_dev_before_a_worker_takes_a_message(ctx, aws, tmp_path):
    """The workers started before the API's port was bound: a port in use stopped the run with its
    sentence after they had begun taking messages off the queues, which a run that never served
    then handled, or left invisible for a visibility timeout."""
    sqs = aws.client("sqs")
    queues = {env: sqs.create_queue(QueueName=f"edge-{env.split('_')[0].lower()}-{time.monotonic_ns()}")["QueueUrl"]
              for env in ("EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL", "BACKFILL_QUEUE_URL")}
    try:
        for url in queues.values():
            sqs.send_message(QueueUrl=url, MessageBody='{"waiting": "for a worker"}')
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            result = _run_to_exit(tmp_path, {"DATABASE_URL": ctx.db.dsn, "SQS_ENDPOINT_URL": aws.url, **queues}, port)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.strip().splitlines()[-1] == (f"memex: cannot serve on 127.0.0.1:{port} (--port, "
                                                          "MEMEX_PORT): Address already in use"), result.stderr
        for url in queues.values():
            received = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"]).get("Messages", [])
            assert [m["Attributes"]["ApproximateReceiveCount"] for m in received] == ["1"], (url, result.stdout)
    finally:
        for url in queues.values():
            sqs.delete_queue(QueueUrl=url)


def test_a_loopback_sqs_on_a_port_in_use_is_an_error_naming_it():
    """moto bound the port in its server's thread: a port in use ended that thread, and start_moto waited
    forever for the server to be ready. Restarted on its own port, as bench/reliability does, it binds it again."""
    from infra.local.sqs_server import start_moto

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=f"^\\[Errno {errno.EADDRINUSE}\\] cannot serve SQS on 127.0.0.1:{port}: "):
            start_moto(port)
    server, url = start_moto()
    try:
        assert httpx.get(url, timeout=60).status_code < 500  # its connection left in TIME_WAIT
    finally:
        server.stop()
    again, url_again = start_moto(server.port)
    again.stop()
    assert url_again == url


def test_a_data_dir_of_another_major_version_stops_with_a_message_and_is_kept(tmp_path):
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "PG_VERSION").write_text("18\n")
    (pgdata / "base").mkdir()
    (pgdata / "base" / "data").write_bytes(b"rows of a PostgreSQL 18 cluster")
    before = sorted(p.relative_to(pgdata) for p in pgdata.rglob("*"))

    result = _run_to_exit(tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(f"memex: {pgdata} holds a PostgreSQL 18 cluster"), result.stderr
    assert "docs/operations.md" in message and "Nothing was changed" in message
    assert sorted(p.relative_to(pgdata) for p in pgdata.rglob("*")) == before
    assert (pgdata / "base" / "data").read_bytes() == b"rows of a PostgreSQL 18 cluster"


def test_a_data_dir_postgres_cannot_start_stops_with_a_message_and_is_kept(tmp_path):
    pgdata = tmp_path / "pgdata"
    (pgdata / "base").mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text("16\n")
    (pgdata / "base" / "data").write_bytes(b"what is left of a cluster")

    result = _run_to_exit(tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(f"memex: PostgreSQL 16 could not start on {pgdata}"), result.stderr
    assert "docs/operations.md" in message
    assert (pgdata / "PG_VERSION").read_text() == "16\n"
    assert (pgdata / "base" / "data").read_bytes() == b"what is left of a cluster"


def test_a_data_dir_whose_pg_version_names_no_version_stops_with_a_message_and_is_kept(tmp_path):
    """A PG_VERSION of no number stopped `make dev` with a ValueError traceback; "15" gets a message."""
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "PG_VERSION").write_text("sixteen\n")

    result = _run_to_exit(tmp_path)

    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(f"memex: {pgdata / 'PG_VERSION'} names no PostgreSQL version"), result.stderr
    assert "docs/operations.md" in message and "Nothing was changed" in message
    assert (pgdata / "PG_VERSION").read_text() == "sixteen\n"


def test_a_half_written_postmaster_pid_stops_with_a_message_saying_what_to_do(tmp_path):
    """A PostgreSQL that crashed while starting leaves postmaster.pid with some of its lines: the next
    `make dev` stopped with an AssertionError traceback from the wheel."""
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "PG_VERSION").write_text("16\n")
    (pgdata / "postmaster.pid").write_text(f"999999\n{pgdata}\n")

    result = _run_to_exit(tmp_path)

    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(f"memex: {pgdata / 'postmaster.pid'} is half-written"), result.stderr
    assert "delete that file and start again" in message
    assert (pgdata / "postmaster.pid").read_text() == f"999999\n{pgdata}\n"


_OLD_WHEEL = """
import sys, pgserver, psycopg
from memex.db import migrations
# the migrations of the code that ran on that wheel: 0010 needs pgvector >= 0.7, applied on opening
written = [m for m in migrations._migration_files() if m[0] < "0010"]
migrations._migration_files = lambda: written
server = pgserver.get_server(sys.argv[1], cleanup_mode="stop")
with psycopg.connect(server.get_uri(), autocommit=True, prepare_threshold=None) as conn:
    migrations.apply_migrations(conn, 384)
    print(conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0])
"""


def test_a_data_dir_of_the_previous_embedded_postgres_opens_with_pgvector_updated(tmp_path):
    """The previous embedded default (pgserver 0.1.4: PostgreSQL 16.2 + pgvector 0.6.2) wrote the
    data directories users have; they open as they are and get the pgvector the wheel ships."""
    made = subprocess.run([sys.executable, "-c", _OLD_WHEEL, str(tmp_path / "pgdata")], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=120, check=True)
    assert made.stdout.strip() == "0.6.2"

    server = Server(tmp_path)
    try:
        assert "memex: pgvector extension updated from 0.6.2 to 0.8.5" in server.output()
        turn = post(f"{server.url}/v1/turns?wait=true", json={
            "user_id": "alice", "session_id": "s1",
            "messages": [{"role": "user", "content": "My sister lives in Lisbon."}]}).json()
        assert turn["status"] == "processed"
        hits = post(f"{server.url}/v1/search",
                          json={"user_id": "alice", "query": "sister city", "mode": "vector"}).json()
        assert "My sister lives in Lisbon." in [r["content"] for r in hits["results"]]
    finally:
        assert server.stop() == 0, server.output()
