"""`memex tenants delete`: a tenant that leaves takes every row of its own with it, its keys get 401
at once, nothing queued or in flight brings any of it back, and another tenant's rows stay as they were."""

from __future__ import annotations

import dataclasses
import json
import os
import pty
import subprocess
import sys
import threading
import uuid
from datetime import datetime, timezone

import psycopg
import pytest
from psycopg.rows import dict_row

from memex import backfill as bulk
from memex import memories, tenants
from memex.db import tenants as tenant_rows
from memex.db import turns as turn_rows
from memex.errors import TenantDeleted
from memex.models import MemoryIn, TurnIn
from memex_edge.context import build_context
from bench.service import RUNTIME_VARS
from tests.conftest import ROOT, Tenant, api_client, memex_cli, scratch_database
from tests.test_erasure import _marker, _rows_mentioning, texts_kept


def _ids_of(ctx, tenant_id: str) -> list[str]:
    """Every id the tenant's rows hold: users, sessions, turns, messages, memories, bulk jobs."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        return [r[0] for r in conn.execute(
            """SELECT user_id FROM turns WHERE tenant_id = %(t)s UNION SELECT id FROM turns WHERE tenant_id = %(t)s
               UNION SELECT id FROM messages WHERE tenant_id = %(t)s UNION SELECT id FROM memories WHERE tenant_id = %(t)s
               UNION SELECT session_id FROM sessions WHERE tenant_id = %(t)s
               UNION SELECT id FROM backfills WHERE tenant_id = %(t)s""", {"t": tenant_id})]


def _snapshot(ctx, needle: str) -> dict[str, list[str]]:
    """Every row of every table that holds `needle`, as text, in order: compared before and after."""
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")]
        return {table: rows for table in tables if (rows := [r[0] for r in conn.execute(
            f'SELECT t::text FROM "{table}" t WHERE t::text LIKE %s ORDER BY 1', (f"%{needle}%",))])}


def _env(ctx) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": ctx.db.dsn}


def test_a_deleted_tenant_leaves_no_row_and_the_other_tenant_is_untouched(ctx, runtime, tenant, other_tenant, tmp_path):
    words, kept_words = _marker(), _marker()
    tenants.set_limit(ctx, tenant.id, "1000/s")
    second_key = Tenant.__new__(Tenant)
    second_key.__dict__.update(tenant.__dict__, key=memex_cli("keys", "create", "--tenant", tenant.id,
                                                           env=_env(ctx)).stdout.strip())
    second_user = f"u-{uuid.uuid4().hex[:8]}"
    assert tenant.turn(f"I work at Stripe. My locker code is {words}.").status_code == 201
    assert tenant.turn(f"I moved to Lisbon, said {words}.", session="s2").status_code == 201
    assert second_key.turn(f"My dog is called {words.capitalize()}.", user=second_user).status_code == 201
    assert tenant.post("/v1/memories", {"user_id": tenant.user, "content": f"Prefers {words} tea"}).status_code == 201
    imported = tmp_path / "import.jsonl"
    imported.write_text(json.dumps({"user_id": f"u-{uuid.uuid4().hex[:8]}", "session_id": "old", "messages": [
        {"role": "user", "content": f"I was born in Porto, {words}."}]}) + "\n")
    for job in (bulk.new_job("import", tenant.id, path=str(imported)),
                bulk.new_job("reembed", tenant.id, user_id=tenant.user)):
        ctx.publisher.publish_backfill(job)
    assert other_tenant.turn(f"I live in Oslo, said {kept_words}.").status_code == 201
    runtime.drain()
    queued = tenant.turn(f"I also said {words} later.", wait=False).json()["turn_id"]  # in the queue when deleted
    erased_turn = tenant.turn(f"I said {words} in a session erased since.", session="s3").json()["turn_id"]
    assert tenant.delete("/v1/sessions/s3", params={"user_id": tenant.user}).status_code == 200  # its id is kept
    ids = [i for i in _ids_of(ctx, tenant.id) if len(i) > 4] + [erased_turn]
    # the rows the audit must find gone
    assert len(ids) > 10 and {"backfills", "sessions", "memory_stats", "memory_postings", "rate_limit_buckets",
                              "erased_turn_digests"} <= set(_rows_mentioning(ctx, tenant.id))
    other_before = _snapshot(ctx, other_tenant.id)

    done = memex_cli("tenants", "delete", tenant.id, "--yes", env=_env(ctx))
    assert done.returncode == 0, done.stderr
    erased = json.loads(done.stdout)
    assert erased["tenant"] == tenant.id and erased["keys_revoked"] == 2 and erased["users"] == 3
    assert erased["turns"] == 5 and erased["memories"] >= 6
    assert "MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS" in done.stderr
    for key in (tenant, second_key):
        refused = key.get(f"/v1/turns/{queued}")
        assert refused.status_code == 401 and "revoked" in refused.json()["error"]["message"]
    runtime.drain()  # the queued turn's job finds nothing to work on

    assert _rows_mentioning(ctx, words, words.capitalize(), *ids) == {}
    # Only the tenant's row and its revoked keys name it (docs/operations.md: why they are kept).
    assert _rows_mentioning(ctx, tenant.id) == {"tenants": 1, "api_keys": 2}
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        assert conn.execute("SELECT rate_limit, deleted_at IS NOT NULL FROM tenants WHERE id = %s",
                            (tenant.id,)).fetchone() == (None, True)
        assert conn.execute("SELECT count(*) FROM api_keys WHERE tenant_id = %s AND revoked_at IS NULL",
                            (tenant.id,)).fetchone()[0] == 0
    assert _snapshot(ctx, other_tenant.id) == other_before
    assert other_tenant.search(f"where do I live {kept_words}")  # and it still answers

    again = memex_cli("tenants", "delete", tenant.id, "--yes", env=_env(ctx))
    assert again.returncode == 0, again.stderr
    assert {k: v for k, v in json.loads(again.stdout).items() if k not in ("tenant", "deleted_at")} == {
        "keys_revoked": 0, "users": 0, "turns": 0, "memories": 0, "other_rows": {}}
    assert json.loads(again.stdout)["deleted_at"] == erased["deleted_at"]  # the first time kept
    unknown = memex_cli("tenants", "delete", f"t-{uuid.uuid4().hex[:10]}", "--yes", env=_env(ctx))
    assert unknown.returncode == 1 and "no tenant t-" in unknown.stderr and "Traceback" not in unknown.stderr


def test_a_write_let_in_before_the_deletion_is_waited_for_and_erased(ctx, tenant):
    """A request that found the tenant live holds it until it commits: the deletion waits for it and
    erases its turn; a write that comes after is refused."""
    said = _marker()
    writer = psycopg.connect(ctx.db.dsn, row_factory=dict_row)
    try:
        tenant_rows.ensure_tenant(writer, tenant.id)  # the request found the tenant live ...
        answer: dict = {}
        deleting = threading.Thread(target=lambda: answer.update(tenants.delete(ctx, tenant.id)))
        deleting.start()
        deleting.join(timeout=1.0)
        assert deleting.is_alive()  # waiting for the writer's commit
        turn = TurnIn(user_id=tenant.user, session_id="s1", messages=[{"role": "user", "content": f"I said {said}."}])
        turn_rows.insert_turn(writer, tenant.id, turn, datetime.now(timezone.utc))  # ... and stores its turn
        writer.commit()
        deleting.join(timeout=60)
        assert answer["turns"] == 1 and answer["users"] == 1
    finally:
        writer.close()
    assert _rows_mentioning(ctx, said) == {}
    with pytest.raises(TenantDeleted):
        memories.add(ctx, tenant.id, MemoryIn(user_id=tenant.user, content=f"Prefers {said} tea"))
    late = tenant.turn(f"I said {said} again.")
    assert late.status_code == 401
    assert _rows_mentioning(ctx, said) == {}


def test_an_import_queued_before_the_deletion_stores_nothing_and_a_new_key_opens_it_again_empty(
        ctx, runtime, tenant, tmp_path):
    said = _marker()
    imported = tmp_path / "import.jsonl"
    imported.write_text(json.dumps({"user_id": tenant.user, "session_id": "old", "messages": [
        {"role": "user", "content": f"I was born in Porto, {said}."}]}) + "\n")
    job = bulk.new_job("import", tenant.id, path=str(imported))
    ctx.publisher.publish_backfill(job)
    tenants.delete(ctx, tenant.id)
    runtime.drain()
    assert _rows_mentioning(ctx, said, job.backfill_id) == {}

    reopened = memex_cli("keys", "create", "--tenant", tenant.id, env=_env(ctx))
    assert reopened.returncode == 0, reopened.stderr
    assert f"tenant {tenant.id} was deleted at" in reopened.stderr and "live again" in reopened.stderr
    tenant.key = reopened.stdout.strip()
    assert tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"] == []
    assert tenant.turn("I live in Lisbon.").status_code == 201


def test_a_deletion_stopped_half_way_leaves_the_tenant_refused_and_a_second_run_finishes_it(
        ctx, tenant, monkeypatch):
    users = sorted(f"u-{uuid.uuid4().hex[:8]}" for _ in range(3))  # erased in this order
    said = _marker()
    for user in users:
        assert tenant.turn(f"My locker code is {said}.", user=user).status_code == 201
    erase_user = memories.erase_user_rows
    calls = []

    def dies_on_the_second_user(ctx_, tenant_id, user_id):
        calls.append(user_id)
        if len(calls) == 2:
            raise RuntimeError("the machine went down")
        return erase_user(ctx_, tenant_id, user_id)

    monkeypatch.setattr(memories, "erase_user_rows", dies_on_the_second_user)
    with pytest.raises(RuntimeError, match="went down"):
        tenants.delete(ctx, tenant.id)
    monkeypatch.undo()
    assert tenant.get(f"/v1/users/{users[2]}/memories").status_code == 401
    assert _rows_mentioning(ctx, users[0]) == {} and _rows_mentioning(ctx, users[1], users[2])  # half done

    finished = tenants.delete(ctx, tenant.id)
    assert finished["users"] == 2 and finished["keys_revoked"] == 0
    assert _rows_mentioning(ctx, said, *users) == {}


def test_the_process_that_deletes_keeps_none_of_the_tenants_texts(ctx):
    built = build_context(dataclasses.replace(ctx.settings, embeddings_query_cache=16))

    def kept(marker: str) -> list[str]:
        return texts_kept(built, marker)

    with api_client(built) as client:
        tenant = Tenant(ctx, client)
        marker = _marker()
        tenant.turn(f"My locker code is {marker}.")
        tenant.search(f"what is the locker code {marker}?")
        assert len(kept(marker)) >= 2  # what was written, and what was asked
        tenants.delete(built, tenant.id)
        assert kept(marker) == []


def test_tenants_delete_asks_first_and_refuses_to_guess_without_a_terminal(ctx, tenant):
    assert tenant.turn("I live in Lisbon.").status_code == 201
    piped = subprocess.run([sys.executable, "-m", "infra.cli", "tenants", "delete", tenant.id], cwd=ROOT,
                           env=_env(ctx), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
    assert piped.returncode == 1 and "pass --yes" in piped.stderr and "nothing erased" in piped.stderr

    def answered(answer: str) -> subprocess.CompletedProcess:
        terminal, its_end = pty.openpty()
        try:
            os.write(terminal, answer.encode() + b"\n")
            return subprocess.run([sys.executable, "-m", "infra.cli", "tenants", "delete", tenant.id], cwd=ROOT,
                                  env=_env(ctx), stdin=its_end, capture_output=True, text=True, timeout=180)
        finally:
            os.close(terminal)
            os.close(its_end)

    wrong = answered("t-someone-else")
    assert wrong.returncode == 1 and "not confirmed, nothing erased" in wrong.stderr
    assert f"Type the tenant's id ({tenant.id})" in wrong.stdout
    assert tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]  # still there
    right = answered(tenant.id)
    assert right.returncode == 0, right.stderr
    assert json.loads(right.stdout[right.stdout.index("{"):])["users"] == 1
    assert tenant.get(f"/v1/users/{tenant.user}/memories").status_code == 401


def test_the_default_tenant_is_not_deleted_while_requests_without_a_key_act_for_it(ctx, tmp_path):
    """With no key yet (the embedded default), deleting `default` would refuse every request from then
    on: refused, with what to do instead; once a key exists it is a tenant like any other."""
    with scratch_database(ctx, f"open_{uuid.uuid4().hex[:10]}") as url:
        env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS}
        env |= {"DATABASE_URL": url, "MEMEX_HOME": str(tmp_path)}
        done = memex_cli("invoke", "ingest", "events/ingest_post_turn.json", env=env)  # stored without a key
        assert json.loads(done.stdout)["statusCode"] == 202, done.stderr
        refused = memex_cli("tenants", "delete", "default", "--yes", env=env)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr
        assert "default is the tenant of requests without a key" in refused.stderr
        with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM turns WHERE tenant_id = 'default'").fetchone()[0] == 1
        assert memex_cli("keys", "create", "--tenant", "acme", env=env).returncode == 0
        deleted = memex_cli("tenants", "delete", "default", "--yes", env=env)
        assert deleted.returncode == 0, deleted.stderr
        assert json.loads(deleted.stdout)["turns"] == 1


def test_a_deleted_default_tenant_stays_refused_to_requests_without_a_key(ctx, tmp_path):
    """The default tenant can be deleted while no key exists when keys are required (MEMEX_REQUIRE_API_KEY), or
    be a tenant deleted before MEMEX_DEFAULT_TENANT named it. Served again without a key, requests acted for
    it: its reads answered (half-way through a deletion, what was left of it), and an import into it was let
    in, to end in "backfill … not found". Now it stays refused, as its keys are, nothing written; a key makes
    it live again, empty."""
    from memex import keys
    from memex.ingest import ingest_turn
    from tests.conftest import database_of_its_own

    with database_of_its_own(ctx, "deleted_default") as own:  # no key yet
        served = dataclasses.replace(own, settings=dataclasses.replace(own.settings, require_api_key=False))
        default = served.settings.default_tenant
        with served.db.transaction() as conn:
            tenant_rows.ensure_tenant(conn, default)
        required = dataclasses.replace(served, settings=dataclasses.replace(served.settings, require_api_key=True))
        deleted_at = tenants.delete(required, default)["deleted_at"]
        assert not tenants.reachable(served, default)
        with pytest.raises(TenantDeleted, match=f"tenant {default}, which requests without a key act for, was "
                                                f"deleted at {deleted_at}: memex keys create --tenant {default}"):
            keys.caller_for(served, None)
        with pytest.raises(TenantDeleted):  # a write let in before: refused by the tenant's mark, as before
            ingest_turn(served, default, TurnIn(user_id="u1", session_id="s1",
                                                messages=[{"role": "user", "content": "I live in Faro."}]), wait=False)
        assert served.db.connection().execute("SELECT count(*) AS n FROM turns").fetchone()["n"] == 0
        env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS} | {"DATABASE_URL": served.db.dsn}
        history = tmp_path / "history.jsonl"
        history.write_text(json.dumps({"user_id": "u1", "session_id": "s1", "messages": [
            {"role": "user", "content": "I live in Faro."}]}) + "\n")
        refused = memex_cli("backfill", str(history), "--tenant", default, env=env)
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr.strip().startswith(f"memex backfill: tenant {default} was deleted at {deleted_at}")
        assert served.db.connection().execute("SELECT count(*) AS n FROM backfills").fetchone()["n"] == 0
        keys.issue_key(served, default)  # live again, empty, for requests with that key
        assert tenants.reachable(served, default)
