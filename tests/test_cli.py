"""The `memex` command: key creation against the configured database, and `invoke`."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

from bench.service import RUNTIME_VARS
from memex.keys import create_key
from tests.conftest import ROOT, memex_cli, scratch_database


def test_keys_create_makes_a_key_that_maps_to_its_tenant(ctx, http):
    done = memex_cli("keys", "create", "--tenant", "cli-tenant", env={**os.environ, "DATABASE_URL": ctx.db.dsn})
    assert done.returncode == 0, done.stderr
    key = done.stdout.strip()
    assert key.startswith("mx_") and len(key) > 40
    headers = {"Authorization": f"Bearer {key}"}
    created = http.post("/v1/memories", json={"user_id": "u", "content": "via a CLI key"}, headers=headers)
    assert created.status_code == 201
    from memex.memories import count

    assert count(ctx, "cli-tenant", "u", None) == 1


def test_invoke_runs_a_handler_on_a_sample_event(tmp_path):
    # Without XDG_RUNTIME_DIR, as in a container or an ssh session: the embedded Postgres starts
    # without a warning about it.
    env = {k: v for k, v in os.environ.items() if k not in (*RUNTIME_VARS, "XDG_RUNTIME_DIR")}
    env["MEMEX_HOME"] = str(tmp_path)
    done = memex_cli("invoke", "ingest", "events/ingest_post_turn.json", "--drain", env=env)
    assert done.returncode == 0, done.stderr
    assert "XDG_RUNTIME_DIR" not in done.stderr
    response = json.loads(done.stdout)
    assert response["statusCode"] == 202, response
    assert "invoking without one (default tenant)" in done.stderr

    turn_id = json.loads(response["body"])["turn_id"]
    event = json.loads((ROOT / "events/ingest_get_turn.json").read_text())
    event["rawPath"] = event["requestContext"]["http"]["path"] = f"/v1/turns/{turn_id}"
    (tmp_path / "get.json").write_text(json.dumps(event))
    done = memex_cli("invoke", "ingest", str(tmp_path / "get.json"), env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(json.loads(done.stdout)["body"])["status"] == "processed"


def test_invoke_says_which_key_to_pass_when_keys_exist(empty_database, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in (*RUNTIME_VARS, "MEMEX_API_KEY")}
    env |= {"DATABASE_URL": empty_database, "MEMEX_HOME": str(tmp_path)}
    key = memex_cli("keys", "create", "--tenant", "acme", env=env).stdout.strip()
    refused = memex_cli("invoke", "search", "events/search_count.json", env=env)
    assert json.loads(refused.stdout)["statusCode"] == 401
    assert "the event carries the sample key mx_example_key: pass --api-key KEY" in refused.stderr
    answered = memex_cli("invoke", "search", "events/search_count.json", "--api-key", key, env=env)
    assert json.loads(answered.stdout)["statusCode"] == 200, answered.stdout
    assert "sample key" not in answered.stderr


def test_invoke_migrate_on_its_sample_event_shows_the_answer_it_would_send_cloudformation(empty_database, tmp_path):
    """The sample event's ResponseURL is an AWS address: the handler's PUT to it ended every local
    invoke in a traceback (URLError offline; online, a request to AWS). A loopback stand-in takes it,
    and the answer is printed (the handler's deployed PUT: test_handlers)."""
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS}
    env |= {"DATABASE_URL": empty_database, "MEMEX_HOME": str(tmp_path)}
    done = memex_cli("invoke", "migrate", "events/migrate_create.json", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    event = json.loads((ROOT / "events/migrate_create.json").read_text())
    assert (answer["Status"], answer["RequestId"], answer["Data"]) == ("SUCCESS", event["RequestId"], {"Applied": "none"})
    assert "custom resource's answer" in done.stderr and "Traceback" not in done.stderr


def test_consolidate_defaults_to_the_default_tenant_as_backfill_and_export_do(ctx, tenant):
    """`memex consolidate` alone stopped at argparse ("the following arguments are required: --tenant")
    where backfill and export take the tenant of requests without a key (MEMEX_DEFAULT_TENANT, else default)."""
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS}
    env |= {"DATABASE_URL": ctx.db.dsn, "MEMEX_DEFAULT_TENANT": tenant.id, "MEMEX_CONSOLIDATION_THRESHOLD": "100000"}
    done = memex_cli("consolidate", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["users"] == 0


def test_export_counts_one_turn_as_one_turn(ctx, tenant):
    assert tenant.turn("I live in Oslo.").status_code == 201
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    done = memex_cli("export", "--tenant", tenant.id, "--user", tenant.user, env=env)
    assert done.returncode == 0, done.stderr
    assert f"memex export: 1 turn of user {tenant.user} (tenant {tenant.id}) to stdout" in done.stderr


@pytest.fixture
def empty_database(ctx):
    """A database of its own on the test server, with no key in it yet."""
    with scratch_database(ctx, f"keys_{uuid.uuid4().hex[:10]}") as url:
        yield url


def test_the_first_key_warns_about_the_default_tenant_and_keys_list_and_revoke(empty_database):
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": empty_database}
    first = memex_cli("keys", "create", "--tenant", "acme", env=env)
    assert first.returncode == 0, first.stderr
    assert "the default tenant's data" in first.stderr and "memex keys create --tenant default" in first.stderr
    second = memex_cli("keys", "create", "--tenant", "default", env=env)
    assert second.returncode == 0 and "first API key" not in second.stderr
    secrets = [first.stdout.strip(), second.stdout.strip()]

    listed = memex_cli("keys", "list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [row["tenant_id"] for row in rows] == ["acme", "default"]
    assert [row["prefix"] for row in rows] == [secret[:8] for secret in secrets]
    assert all(row["revoked_at"] is None and row["id"].startswith("key_") for row in rows)

    revoked = memex_cli("keys", "revoke", rows[0]["id"], env=env)
    assert revoked.returncode == 0 and "now get 401" in revoked.stdout
    table = memex_cli("keys", "list", env=env)
    assert table.returncode == 0
    lines = table.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "PREFIX", "TENANT"] and len(lines) == 3
    columns = dict(zip(re.split(r"\s{2,}", lines[0]), re.split(r"\s{2,}", lines[1])))
    assert columns["ID"] == rows[0]["id"] and columns["LAST USED"] == "-"
    assert columns["REVOKED"].endswith("Z") and columns["REVOKED"] >= columns["CREATED"]
    for secret in secrets:
        assert secret not in listed.stdout + table.stdout + first.stderr + second.stderr
    unknown = memex_cli("keys", "revoke", "key_000000000000", env=env)
    assert unknown.returncode == 1 and "no API key 'key_000000000000'" in unknown.stderr
    empty = memex_cli("keys", "set-limit", "", "1/min", env=env)
    assert empty.returncode == 1 and "no API key ''" in empty.stderr


def test_tenants_set_limit_show_and_clear(ctx):
    env = {**os.environ, "DATABASE_URL": ctx.db.dsn, "MEMEX_RATE_LIMIT": "600/min"}
    done = memex_cli("tenants", "set-limit", "cli-limits", "50/s", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rate_limit"] == "50/s"
    from memex.tenants import describe

    assert describe(ctx, "cli-limits")["rate_limit_source"] == "tenant override"
    cleared = memex_cli("tenants", "clear-limit", "cli-limits", env=env)
    assert json.loads(cleared.stdout)["rate_limit"] == "600/min"
    shown = json.loads(memex_cli("tenants", "show", "cli-limits", env=env).stdout)
    assert shown["rate_limit_source"] == "MEMEX_RATE_LIMIT" and shown["active_keys"] == 0
    assert shown["created_at"].endswith("Z")  # the one time form the API answers in

    bad = memex_cli("tenants", "set-limit", "cli-limits", "50/fortnight", env=env)
    assert bad.returncode == 1 and "'50/fortnight' is not a rate" in bad.stderr and "Traceback" not in bad.stderr
    misconfigured = memex_cli("tenants", "show", "cli-limits", env={**env, "MEMEX_RATE_LIMIT": "fast"})
    assert misconfigured.returncode == 1 and "Traceback" not in misconfigured.stderr
    assert "MEMEX_RATE_LIMIT: 'fast' is not a rate" in misconfigured.stderr


def test_backfill_prints_only_its_answer_on_stdout(ctx, tmp_path):
    """`memex backfill … | jq` works: the worker's log lines and moto's request log go to stderr."""
    history = tmp_path / "history.jsonl"
    good = json.dumps({"user_id": "cli-user", "session_id": "s1", "timestamp": "2025-01-10T10:00:00Z",
                       "messages": [{"role": "user", "content": "I live in Lisbon."}]})
    history.write_text(good + "\n{oops\n")
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    create_key(ctx, "cli-backfill")
    done = memex_cli("backfill", str(history), "--tenant", "cli-backfill", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["status"], answer["done"], answer["failed"]) == ("done", 1, 1)
    # The failed line is named in the answer, not only in the log.
    assert answer["failures"] == [{"line": 2, "offset": len(good) + 1, "reason": "not a turn (JSONDecodeError: "
                                   "Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"}]
    assert answer["failures_not_kept"] == 0
    # stderr is progress and errors: the worker's INFO lines ("backfill chunk done", one a chunk) were
    # printed among them.
    assert "backfill chunk done" not in done.stderr
    assert not [line for line in done.stderr.splitlines() if '"level":"INFO"' in line.replace(" ", "")]
    assert '"POST / HTTP/1.1"' not in done.stderr



_PROGRESS = re.compile(r"memex backfill (bf_\w+): (\d+)/(\d+) lines, (\d+) done \((\d+) already stored\), (\d+) erased, (\d+) failed, (\w+)")


def test_backfill_says_how_far_it_is_on_stderr_while_it_runs(ctx, tmp_path):
    """It printed nothing until the end: a builder polled GET /v1/backfills from another terminal."""
    history = tmp_path / "history.jsonl"
    history.write_text("".join(json.dumps({"user_id": f"cli-p{i % 5}", "session_id": "s1",
                                           "messages": [{"role": "user", "content": f"Line {i}: I live in Braga."}]})
                               + "\n" for i in range(1200)) + "{oops\n")
    tenant = f"cli-progress-{uuid.uuid4().hex[:8]}"
    create_key(ctx, tenant)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    done = memex_cli("backfill", str(history), "--tenant", tenant, "--progress", "0.2", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # stdout is the answer alone
    lines = [m.groups() for m in map(_PROGRESS.match, done.stderr.splitlines()) if m]
    assert {line[0] for line in lines} == {answer["backfill_id"]}
    counts = [tuple(map(int, line[1:7])) for line in lines]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)  # a line when they changed
    assert all(total == 1201 for _, total, *_ in counts)
    assert any(0 < seen < 1201 for seen, *_ in counts), counts  # while it ran, not only at the end
    assert counts[-1] == (1201, 1201, 1200, 0, 0, 1) and lines[-1][-1] == answer["status"] == "done"

    quiet = memex_cli("backfill", str(history), "--tenant", tenant, "--progress", "0", env=env)
    assert json.loads(quiet.stdout)["already_stored"] == 1200
    assert "memex backfill bf_" not in quiet.stderr


def test_backfill_of_a_backup_says_how_many_of_its_lines_name_a_turn_erased_since(ctx, tmp_path):
    """A restore by `memex backfill` of an export written before a session's erasure: the erased session's
    line is counted `erased` in its progress and its answer, and not stored."""
    from memex import export, memories

    tenant, user = f"cli-erased-{uuid.uuid4().hex[:8]}", "cli-user"
    create_key(ctx, tenant)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    history, backup = tmp_path / "history.jsonl", tmp_path / "backup.jsonl"
    history.write_text("".join(json.dumps({"user_id": user, "session_id": session, "messages": [
        {"role": "user", "content": content}]}) + "\n" for session, content in (("gone", "I work at Acme."),
                                                                               ("kept", "I have a cat."))))
    assert memex_cli("backfill", str(history), "--tenant", tenant, env=env).returncode == 0
    backup.write_text("".join(line + "\n" for line in export.lines(ctx, tenant, user)))
    assert memories.erase_session(ctx, tenant, "gone", user)["turns"] == 1

    done = memex_cli("backfill", str(backup), "--tenant", tenant, "--progress", "0.2", env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["done"], answer["already_stored"], answer["erased"], answer["failed"]) == (1, 1, 1, 0)
    assert [m.groups()[1:] for m in map(_PROGRESS.match, done.stderr.splitlines()) if m][-1] == (
        "2", "2", "1", "1", "1", "0", "done")
    assert [json.loads(line)["session_id"] for line in export.lines(ctx, tenant, user)] == ["kept"]


def test_an_import_stopped_with_ctrl_c_says_so_and_the_same_command_finishes_it(ctx, tmp_path):
    """Ctrl-C printed a traceback and left the job "running" for ever: its next chunk's message was
    on the command's own loopback queue, gone with it."""
    history = tmp_path / "history.jsonl"
    history.write_text("".join(json.dumps({"user_id": f"cli-u{i % 7}", "session_id": "s1",
                                           "timestamp": f"2025-01-10T10:{i % 60:02d}:00Z",
                                           "messages": [{"role": "user", "content": f"Line {i}: I live in Lisbon."}]})
                               + "\n" for i in range(1500)))
    tenant = f"cli-stop-{uuid.uuid4().hex[:8]}"
    create_key(ctx, tenant)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    command = [sys.executable, "-m", "infra.cli", "backfill", str(history), "--tenant", tenant]
    running = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 170
        while not ctx.db.connection().execute("SELECT 1 FROM backfills WHERE tenant_id = %s AND done > 0",
                                               (tenant,)).fetchone():
            assert running.poll() is None and time.monotonic() < deadline, "the import never got past a chunk"
            time.sleep(0.2)
        running.send_signal(signal.SIGINT)
        stdout, stderr = running.communicate(timeout=120)
    finally:
        running.kill()
    assert running.returncode == 130, stderr
    assert "Traceback" not in stderr
    stopped = json.loads(stdout)
    assert stopped["status"] == "failed" and 0 < stopped["done"] < 1500
    assert stopped["error"].startswith("interrupted (Ctrl-C) before the end: run the same command again")
    assert stopped["error"].endswith(f"or add --resume {stopped['backfill_id']} to go on with this job")

    again = memex_cli("backfill", str(history), "--tenant", tenant, env=env)
    assert again.returncode == 0, again.stderr
    finished = json.loads(again.stdout)
    assert (finished["status"], finished["done"], finished["failed"]) == ("done", 1500, 0)
    assert finished["already_stored"] >= stopped["done"]
    turns = ctx.db.connection().execute("SELECT count(*) AS n FROM turns WHERE tenant_id = %s", (tenant,)).fetchone()
    assert turns["n"] == 1500


def test_an_import_killed_with_kill_9_goes_on_under_its_own_id_with_resume(ctx, tmp_path):
    """Killed, the command could mark nothing: the job said "running" for ever, and the same command
    started a second job beside it."""
    history = tmp_path / "history.jsonl"
    history.write_text("".join(json.dumps({"user_id": f"cli-k{i % 7}", "session_id": "s1",
                                           "messages": [{"role": "user", "content": f"Line {i}: I live in Porto."}]})
                               + "\n" for i in range(1500)))
    tenant = f"cli-kill-{uuid.uuid4().hex[:8]}"
    create_key(ctx, tenant)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    command = [sys.executable, "-m", "infra.cli", "backfill", str(history), "--tenant", tenant]
    running = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 170
        while not (row := ctx.db.connection().execute("SELECT id, done FROM backfills WHERE tenant_id = %s AND done > 0",
                                                      (tenant,)).fetchone()):
            assert running.poll() is None and time.monotonic() < deadline, "the import never got past a chunk"
            time.sleep(0.2)
        running.send_signal(signal.SIGKILL)
        running.wait(timeout=60)
    finally:
        running.kill()

    elsewhere = tmp_path / "other.jsonl"
    elsewhere.write_text(history.read_text())
    refused = memex_cli("backfill", str(elsewhere), "--tenant", tenant, "--resume", row["id"], env=env)
    assert refused.returncode == 1 and "not this one" in refused.stderr
    again = memex_cli("backfill", str(history), "--tenant", tenant, "--resume", row["id"], env=env)
    assert again.returncode == 0, again.stderr
    finished = json.loads(again.stdout)
    assert (finished["backfill_id"], finished["status"], finished["done"], finished["failed"]) == (
        row["id"], "done", 1500, 0)
    jobs = ctx.db.connection().execute("SELECT count(*) AS n FROM backfills WHERE tenant_id = %s", (tenant,)).fetchone()
    turns = ctx.db.connection().execute("SELECT count(*) AS n FROM turns WHERE tenant_id = %s", (tenant,)).fetchone()
    assert (jobs["n"], turns["n"]) == (1, 1500)


def test_resuming_a_job_of_a_user_being_erased_says_so_and_resumes_nothing(ctx, tmp_path):
    """It used to reopen the job and send its next chunk for a user whose erasure was under way."""
    from memex import backfill
    from memex.db import backfills as backfill_rows
    from memex.db import erasure
    from memex.db import tenants as tenant_rows

    tenant, user = f"cli-erasing-{uuid.uuid4().hex[:8]}", "u-erasing"
    create_key(ctx, tenant)
    job = backfill.new_job("reembed", tenant, user_id=user)
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, tenant)
        backfill_rows.create(conn, tenant, job.backfill_id, job.kind, None, user, 1)
        backfill_rows.fail(conn, tenant, job.backfill_id, "interrupted (Ctrl-C) before the end")
        erasure.begin_user(conn, tenant, user)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    done = memex_cli("backfill", "--reembed", "--tenant", tenant, "--user", user, "--resume", job.backfill_id, env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == (f"memex backfill: backfill {job.backfill_id} is of user {user}, whose erasure is "
                                   "under way: it is not resumed (its record goes with the user's last rows)")
    assert backfill_rows.get(ctx.db.connection(), tenant, job.backfill_id)["status"] == "failed"


def test_backfill_into_a_tenant_no_key_reaches_is_refused_and_stores_nothing(ctx, tmp_path):
    """A misspelt --tenant (or none, once keys exist) ran the import to "done" into a tenant no key
    could read; a deleted tenant's is refused saying so."""
    history = tmp_path / "history.jsonl"
    history.write_text(json.dumps({"user_id": "u1", "session_id": "s1", "messages": [
        {"role": "user", "content": "I live in Faro."}]}) + "\n")
    tenant = f"cli-typo-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    refused = memex_cli("backfill", str(history), "--tenant", tenant, env=env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip() == (f"memex backfill: tenant {tenant} has no API key, so nothing stored for it could "
                                      f"be read: check its name (memex keys list), or make its key first: "
                                      f"memex keys create --tenant {tenant}")
    conn = ctx.db.connection()
    for table in ("turns", "backfills"):
        assert conn.execute(f"SELECT count(*) AS n FROM {table} WHERE tenant_id = %s", (tenant,)).fetchone()["n"] == 0

    create_key(ctx, tenant)
    done = memex_cli("backfill", str(history), "--tenant", tenant, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["done"] == 1

    # A deleted tenant's import ended with "memex: backfill bf_… not found".
    from memex import tenants

    deleted_at = tenants.delete(ctx, tenant)["deleted_at"]
    gone = memex_cli("backfill", str(history), "--tenant", tenant, env=env)
    assert gone.returncode == 1 and gone.stdout == ""
    assert gone.stderr.strip() == (f"memex backfill: tenant {tenant} was deleted at {deleted_at}: memex keys create "
                                   f"--tenant {tenant} makes it live again, empty, to import into")


def test_backfill_of_a_file_that_is_not_there_says_so_at_once(tmp_path):
    # It used to queue the job anyway: five deliveries of a FileNotFoundError traceback over two
    # minutes, then "backfill bf_… not found".
    missing = tmp_path / "histroy.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"MEMEX_HOME": str(tmp_path)}
    done = memex_cli("backfill", str(missing), "--tenant", "cli-backfill", env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == f"memex backfill: {missing}: no such file"


@pytest.mark.parametrize("kind", ["--reembed", "--reextract"])
def test_backfill_of_a_file_with_reembed_or_reextract_is_refused(ctx, tmp_path, kind):
    # `memex backfill FILE --reembed` ignored FILE and re-embedded the whole tenant (qa6).
    history = tmp_path / "history.jsonl"
    history.write_text(json.dumps({"user_id": "u1", "session_id": "s1", "messages": [
        {"role": "user", "content": "I live in Faro."}]}) + "\n")
    tenant = f"cli-both-{uuid.uuid4().hex[:8]}"
    create_key(ctx, tenant)
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": ctx.db.dsn}
    refused = memex_cli("backfill", str(history), kind, "--tenant", tenant, env=env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip() == (f"memex backfill: {kind} works on what is stored and reads no file: give "
                                      f"FILE to import it, or {kind} without it")
    assert ctx.db.connection().execute("SELECT count(*) AS n FROM backfills WHERE tenant_id = %s",
                                       (tenant,)).fetchone()["n"] == 0


def test_backfill_of_a_directory_says_it_is_one(tmp_path):
    # `memex backfill .` said "no such file" of a directory that plainly exists.
    env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"MEMEX_HOME": str(tmp_path)}
    done = memex_cli("backfill", str(tmp_path), "--tenant", "cli-backfill", env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == f"memex backfill: {tmp_path}: a directory, not a JSON Lines file"


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def test_every_argument_of_every_command_says_what_it_is():
    from infra.cli import build_parser

    # A group of commands is explained by its commands' own help lines.
    unexplained = [(" ".join(path), action.dest) for path, parser in _commands(build_parser())
                   for action in parser._actions
                   if not isinstance(action, argparse._SubParsersAction) and not action.help]
    unexplained += [(" ".join(path), command.dest) for path, parser in _commands(build_parser())
                    for action in parser._actions if isinstance(action, argparse._SubParsersAction)
                    for command in action._choices_actions if not command.help]
    assert unexplained == []
    # What --help shows a new user, the default tenant of a backfill included.
    done = memex_cli("backfill", "--help", env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert "(default: default, the tenant of requests without a key)" in " ".join(done.stdout.split())
