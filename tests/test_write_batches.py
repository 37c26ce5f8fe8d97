"""The write path in batches: an SQS batch's records extracted and decided together write what
they would one by one, a redelivered batch writes nothing twice, a bulk import of a file with
repeated keys leaves one current value per key with its history, and the related-memory lookup
reads what a full scan would."""

from __future__ import annotations

import json
import threading
import time
from contextlib import nullcontext

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from infra.local.lambda_context import LocalLambdaContext
from infra.local.poller import QueuePoller, drain, sqs_event
from infra.local.runtime import QUEUES, function_module
from memex import backfill, pipeline
from memex.db import memories as memory_rows
from memex.db import migrations
from memex.db import tenants as tenant_rows
from memex.db import turns as turn_rows
from memex.ingest import ingest_turn
from memex.models import TurnIn
from tests.conftest import import_lines, scratch_database

LINES = ["I live in Lisbon.", "I work at Stripe.", "Had a long day.", "I moved to Porto last month.",
         "My dog's name is Biscuit.", "I just started at Notion.", "I love sushi.", "I'm 34 years old.",
         "I can't stand sushi.", "I live in Berlin now.", "I just turned 35.", "My dog's name is Rollo.",
         "I used to live in Madrid.", "I work at Stripe."]


def _queue(ctx, tenant, user: str) -> list[str]:
    ids = []
    for i, text in enumerate(LINES):
        turn = TurnIn(user_id=user, session_id="s1", timestamp=f"2026-01-{i + 1:02d}T09:00:00Z",
                      messages=[{"role": "user", "content": text}])
        ids.append(ingest_turn(ctx, tenant.id, turn, wait=False)["turn_id"])
    return ids


def _knowledge(ctx, tenant_id: str, user: str) -> list[tuple]:
    rows = ctx.db.connection().execute(
        """SELECT memory_type, key, value, content, context, active, valid_from, valid_to, embedding
           FROM memories WHERE tenant_id = %s AND user_id = %s""", (tenant_id, user)).fetchall()
    return sorted(((r["memory_type"], r["key"], r["value"], r["content"], r["context"], r["active"], r["valid_from"],
                    r["valid_to"], r["embedding"].to_numpy()) for r in rows), key=lambda m: [repr(x) for x in m[:-1]])


def _same(a: list[tuple], b: list[tuple]) -> bool:
    """The same memories, their vectors equal up to float rounding (a batch pads its texts)."""
    return [m[:-1] for m in a] == [m[:-1] for m in b] and all(
        np.allclose(x[-1], y[-1], atol=1e-5) for x, y in zip(a, b))


def _workers(runtime, batch_size: int) -> list[QueuePoller]:
    stop = threading.Event()
    return [QueuePoller(runtime.sqs_client(), runtime.queues[name]["url"], runtime.queues[name]["arn"],
                        function_module(worker).handler, worker, stop, batch_size=batch_size)
            for name, (_, worker, _) in QUEUES.items() if name != "memex-backfill"]


def test_a_batch_of_records_writes_what_one_record_at_a_time_writes(ctx, tenant, runtime):
    _queue(ctx, tenant, "batched")
    extract = _workers(runtime, 10)[0]
    sizes = []
    while size := extract.poll_once():
        sizes.append(size)
    assert max(sizes) > 1  # the turns were extracted several to a batch
    drain(_workers(runtime, 10), timeout=120)
    _queue(ctx, tenant, "alone")
    drain(_workers(runtime, 1), timeout=120)

    batched, alone = _knowledge(ctx, tenant.id, "batched"), _knowledge(ctx, tenant.id, "alone")
    assert _same(batched, alone)
    current = {(m[1], m[2]) for m in batched if m[0] == "semantic" and m[5]}
    assert {("city", "Berlin"), ("employer", "Stripe"), ("age", "35"), ("dislikes", "sushi"),
            ("pet_dog_name", "Biscuit"), ("pet_dog_name", "Rollo")} <= current
    assert ("likes", "sushi") not in current


@pytest.mark.parametrize("said, key, chain", [
    ([("2026-01-02T09:00:00Z", "spring", "I work at Acme."),
      ("2026-01-20T09:00:00Z", "later", "Sorry, I meant Globex, not Acme.")], "employer", [("Acme", False), ("Globex", True)]),
    # a diet denied ends the diet said in the batch, as the one stored
    ([("2026-01-02T09:00:00Z", "spring", "I'm vegan."),
      ("2026-01-20T09:00:00Z", "later", "I'm not vegan.")], "dietary_restriction", [("vegan", False), ("vegan", False)]),
])
def test_a_correction_in_the_batch_of_the_fact_it_corrects_writes_what_two_batches_write(ctx, tenant, runtime, said, key,
                                                                                         chain):
    """"Sorry, I meant Globex, not Acme." (or "I'm not vegan.") in another session, in the SQS batch that
    also holds "I work at Acme." ("I'm vegan."): Globex current and Acme its history (the diet ended), as
    when each turn is a batch of its own."""
    drain(runtime.pollers, timeout=120)  # nothing of earlier tests left on the queues

    def queue(user: str) -> None:
        for timestamp, session, text in said:
            ingest_turn(ctx, tenant.id, TurnIn(user_id=user, session_id=session, timestamp=timestamp,
                                               messages=[{"role": "user", "content": text}]), wait=False)

    queue("batched")
    assert _workers(runtime, 10)[0].poll_once() == 2  # both turns extracted in one batch
    drain(_workers(runtime, 10), timeout=120)
    queue("alone")
    drain(_workers(runtime, 1), timeout=120)

    batched = _knowledge(ctx, tenant.id, "batched")
    assert [(m[2], m[5]) for m in batched if m[0] == "semantic" and m[1] == key] == chain
    assert _same(batched, _knowledge(ctx, tenant.id, "alone"))


def test_a_redelivered_batch_writes_nothing_twice(ctx, tenant, runtime):
    drain(runtime.pollers, timeout=120)  # nothing of earlier tests left on the queues
    turn_ids = _queue(ctx, tenant, tenant.user)
    client = runtime.sqs_client()

    def deliver_twice(queue: str, worker: str) -> int:
        """Every batch on the queue handled twice, as after an invocation that timed out; how many
        records there were."""
        url, arn = runtime.queues[queue]["url"], runtime.queues[queue]["arn"]
        records = 0
        while messages := client.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"],
                                                 VisibilityTimeout=60).get("Messages", []):
            event = sqs_event(messages, arn, "us-east-1")
            for _ in range(2):
                assert function_module(worker).handler(event, LocalLambdaContext(worker)) == {"batchItemFailures": []}
            client.delete_message_batch(QueueUrl=url, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)])
            records += len(messages)
        return records

    assert deliver_twice("memex-extraction", "extract_worker") == len(LINES)
    assert deliver_twice("memex-supersession", "supersede_worker") > 1
    once = _knowledge(ctx, tenant.id, tenant.user)
    assert sum(m[0] == "episodic" for m in once) == len(LINES)  # one per message, not per delivery
    statuses = ctx.db.connection().execute("SELECT status FROM turns WHERE tenant_id = %s AND id = ANY(%s)",
                                           (tenant.id, turn_ids)).fetchall()
    assert {r["status"] for r in statuses} == {"processed"}
    # The same batch a third time, through the pipeline's own entry points: still nothing new.
    follow_ups = pipeline.extract_many(ctx, tenant.id, turn_ids)
    pipeline.resolve_many(ctx, follow_ups)
    assert _same(_knowledge(ctx, tenant.id, tenant.user), once)
    drain(runtime.pollers, timeout=120)
    assert _same(_knowledge(ctx, tenant.id, tenant.user), once)


def test_an_import_with_repeated_keys_leaves_one_current_value_per_key_and_its_chain(ctx, tenant, runtime, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 7)  # decisions span chunks, and transactions within them
    monkeypatch.setattr(pipeline, "TURNS_PER_TRANSACTION", 3)
    cities = ["Lisbon", "Porto", "Berlin", "Porto", "Oslo", "Lisbon", "Vienna"]
    lines = []
    for i, city in enumerate(cities * 3):
        lines.append({"user_id": tenant.user, "session_id": f"s{i // 5}", "timestamp": f"2026-02-{i + 1:02d}T08:00:00Z",
                      "messages": [{"role": "user", "content": f"I live in {city} now."}]})
        lines.append({"user_id": tenant.user, "session_id": f"s{i // 5}", "timestamp": f"2026-02-{i + 1:02d}T09:00:00Z",
                      "messages": [{"role": "user", "content": f"I'm {30 + i % 4} years old."}]})
    import_lines(ctx, tenant, runtime, tmp_path, lines)

    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    for key, last, changes in (("city", "Vienna", 21), ("age", str(30 + 20 % 4), 21)):
        current = [m for m in listed["memories"] if m["key"] == key and m["active"]]
        assert [m["value"] for m in current] == [last]
        chain = tenant.get(f"/v1/memories/{current[0]['id']}/history").json()["history"]
        assert len(chain) == changes == len([m for m in listed["memories"] if m["key"] == key])
        for older, newer in zip(chain, chain[1:]):
            assert older["value"] != newer["value"]
            assert newer["supersedes"] == older["id"] and older["valid_to"] == newer["valid_from"]
    assert {t["status"] for t in ctx.db.connection().execute(
        "SELECT status FROM turns WHERE tenant_id = %s", (tenant.id,)).fetchall()} == {"processed"}


def test_the_related_lookup_reads_what_a_scan_of_every_memory_would(ctx, tenant):
    for text in ("I live in Lisbon.", "I work at Stripe.", "I'm originally from Porto.", "I love sushi.",
                 "I love sushi rolls.", "My dog's name is Biscuit.", "I moved to Porto."):
        tenant.turn(text)
    conn = ctx.db.connection()
    everything = conn.execute("SELECT id, key, active, memory_type, embedding FROM memories WHERE tenant_id = %s",
                              (tenant.id,)).fetchall()
    assert any(not m["active"] for m in everything) and any(m["memory_type"] == "episodic" for m in everything)
    for keys, text in ((["city"], "The user lives in Porto."), (["likes", "dislikes"], "The user likes sushi."),
                       (["hometown"], "The user lives in Porto."), (["employer"], "The user likes sushi rolls.")):
        vector = ctx.embedder.embed([text])[0]
        found = memory_rows.related_active(conn, tenant.id, tenant.user, keys, vector, 0.8, 8)
        scanned = []
        for m in everything:
            if not (m["active"] and m["memory_type"] == "semantic"):
                continue
            similarity = float(np.dot(m["embedding"].to_numpy(), vector))
            if m["key"] in keys or similarity >= 0.8:
                scanned.append((m["key"] not in keys, 1 - similarity, m["id"]))
        assert [m["id"] for m in found] == [i for _, _, i in sorted(scanned)][:8]
        assert found, text


def test_an_imported_chunk_keeps_idempotency_keys_whether_stored_together_or_one_by_one(ctx, tenant, runtime,
                                                                                         tmp_path):
    def line(content: str, key: str | None, **extra) -> dict:
        return {"user_id": tenant.user, "session_id": "s", "idempotency_key": key, **extra,
                "messages": [{"role": "user", "content": content}]}

    for name, bad in (("together", None), ("one-by-one", line("a NUL \u0000 byte", None))):
        key = f"k-{name}"
        lines = [line("I live in Lisbon.", key), line("I live in Lisbon.", key),  # the same turn twice
                 line("I live in Porto.", key),  # another turn under the same key: refused
                 line("I work at Stripe.", None)] + ([bad] if bad else [])
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        job = backfill.new_job("import", tenant.id, path=str(path))
        backfill.run_chunk(ctx, job, function_module("backfill_worker").source_of(job))
        state = backfill.status(ctx, tenant.id, job.backfill_id)
        assert (state["done"], state["failed"]) == (3, 1 + (bad is not None)), name
        stored = ctx.db.connection().execute(
            """SELECT m.content FROM turns t JOIN messages m ON m.tenant_id = t.tenant_id AND m.turn_id = t.id
               WHERE t.tenant_id = %s AND t.idempotency_key = %s""", (tenant.id, key)).fetchall()
        assert [r["content"] for r in stored] == ["I live in Lisbon."], name


def _chains(ctx, tenant_id: str, user: str) -> list[tuple]:
    """Every supersession link of the user, each end named by what it says and when."""
    rows = ctx.db.connection().execute(
        """SELECT n.key AS n_key, n.value AS n_value, n.valid_from AS n_from, n.valid_to AS n_to,
                  o.key AS o_key, o.value AS o_value, o.valid_from AS o_from, o.valid_to AS o_to
           FROM memory_links l JOIN memories n ON n.tenant_id = l.tenant_id AND n.id = l.memory_id
           JOIN memories o ON o.tenant_id = l.tenant_id AND o.id = l.replaced_id
           WHERE l.tenant_id = %s AND n.user_id = %s""", (tenant_id, user)).fetchall()
    return sorted((tuple(r.values()) for r in rows), key=repr)


def test_a_bulk_import_writes_what_the_workers_write(ctx, tenant, runtime, tmp_path, monkeypatch):
    """The same history imported in chunks (decided in the chunk, in transactions of several
    turns) and sent turn by turn through the extraction and supersession workers: the same
    memories, the same current values, the same chains."""
    from bench.writes.corpus import synthetic_lines

    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 40)  # decisions span chunks, and transactions within them
    monkeypatch.setattr(pipeline, "TURNS_PER_TRANSACTION", 7)
    drain(runtime.pollers, timeout=120)
    lines = list(synthetic_lines(160, "imported"))
    import_lines(ctx, tenant, runtime, tmp_path, lines)

    for start in range(0, len(lines), 10):  # ten at a time, so that the workers decide in the order said
        for line in lines[start:start + 10]:
            ingest_turn(ctx, tenant.id, TurnIn(**{**line, "user_id": "sent"}), wait=False)
        drain(_workers(runtime, 10), timeout=120)

    imported, sent = _knowledge(ctx, tenant.id, "imported"), _knowledge(ctx, tenant.id, "sent")
    assert _same(imported, sent)
    semantic = [m for m in imported if m[0] == "semantic"]
    assert sum(m[5] for m in semantic) > 10 and sum(not m[5] for m in semantic) > 10  # current values and history
    assert _chains(ctx, tenant.id, "imported") == _chains(ctx, tenant.id, "sent") != []


def _dead_to_all(conn, xid: str, patience: float = 30.0) -> None:
    """Waits until no other session's snapshot is older than the transaction `xid`, and no
    transaction that began before it is still running: until then the rows it superseded are still
    visible to someone, and no scan may mark their index entries dead (a worker of the session's
    runtime finishing an earlier test's turns holds such a snapshot, or, between two statements of
    its transaction, only an xid). A snapshot counts in this database only; a running xid in any,
    as every snapshot taken since lists it as running."""
    assert xid is not None
    deadline = time.monotonic() + patience
    while True:
        holders = conn.execute(
            """SELECT pid, datname, backend_type, state, left(query, 80) AS query FROM pg_stat_activity
               WHERE pid <> pg_backend_pid()
                 AND ((datname = current_database() AND age(backend_xmin) >= age(%(xid)s::text::xid))
                      OR age(backend_xid) >= age(%(xid)s::text::xid))""", {"xid": xid}).fetchall()
        if not holders:
            return
        assert time.monotonic() < deadline, f"sessions still see the superseded rows: {holders}"
        time.sleep(0.1)


@pytest.mark.parametrize("database", ["the same", "another"])
def test_the_wait_for_superseded_rows_covers_a_transaction_between_its_statements(ctx, database):
    """A transaction that has written and is between two statements (a worker of an earlier test's
    turns, in Python between its writes) holds no snapshot, so no backend_xmin; but its xid is
    running in every snapshot taken since, whatever its database, and no scan marks an entry dead
    past it: the look-up's test below then read every superseded row twice (189 buffers against 30,
    once in a suite). _dead_to_all must wait for such a transaction as for a snapshot."""
    ended = threading.Event()
    own = scratch_database(ctx, "memex_wait_xid") if database == "another" else nullcontext(ctx.db.dsn)
    with own as dsn:
        with psycopg.connect(dsn) as holder:
            holder.execute("SELECT txid_current()")  # an xid, and idle in transaction: no snapshot
            conn = ctx.db.connection()
            with conn.transaction():
                conn.execute("SELECT txid_current()")
                xid = conn.execute("SELECT backend_xid FROM pg_stat_activity WHERE pid = pg_backend_pid()").fetchone()
            seen = conn.execute("SELECT backend_xid, backend_xmin FROM pg_stat_activity WHERE pid = %s",
                                (holder.info.backend_pid,)).fetchone()
            assert seen["backend_xid"] is not None and seen["backend_xmin"] is None

            def end() -> None:
                # set first: the wait may see the transaction gone between the rollback and a set after it
                ended.set()
                holder.rollback()

            timer = threading.Timer(1.0, end)
            timer.start()
            try:
                _dead_to_all(conn, xid["backend_xid"])
                assert ended.is_set()
            finally:
                timer.join()


def test_the_related_lookup_stops_visiting_the_rows_of_superseded_facts(ctx):
    """A superseded fact's entry stays in the index of current facts until VACUUM. A plain index scan
    marks it dead once it finds the row gone; a bitmap scan, which the planner picks once ANALYZE has
    seen a long history, never does. The look-up's read (current_semantic_memories, migration 0011)
    must skip such entries from its second read on, whatever the planner would choose: here the
    session turns plain index scans off to stand in for statistics that favour a bitmap scan.
    In a database of its own: a scan marks an entry dead only if the index page has not changed since
    it read it, and the runtime's workers, still writing an earlier test's turns into the suite's
    database, changed those pages between reads (189 and 179 buffers against 30, in loaded suites)."""
    name, changes, user = "memex_lookup_dead", 300, "u1"
    with scratch_database(ctx, name) as url, psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        migrations.apply_migrations(conn, ctx.embedder.dim)
        register_vector(conn)
        tenant_rows.ensure_tenant(conn, "t1")
        _read_twice_after_superseding(conn, ctx.embedder.dim, "t1", user, changes)


def _read_twice_after_superseding(conn, dim: int, tenant_id: str, user: str, changes: int) -> None:
    conn.execute(
        """INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content, embedding, valid_from)
           SELECT %(t)s, 'city-' || i, %(u)s, 'semantic', 'fact', 'city', 'city ' || i, 'The user lives in city ' || i,
                  array_fill(0.05::real, ARRAY[%(dim)s])::vector, now()
           FROM generate_series(1, %(n)s) i""", {"t": tenant_id, "u": user, "n": changes, "dim": dim})
    with conn.transaction():
        conn.execute("UPDATE memories SET active = false WHERE tenant_id = %s AND id <> %s", (tenant_id, f"city-{changes}"))
        update = conn.execute("SELECT backend_xid FROM pg_stat_activity WHERE pid = pg_backend_pid()").fetchone()
    _dead_to_all(conn, update["backend_xid"])

    def buffers(sql: str) -> int:
        plan = [r["QUERY PLAN"] for r in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, (tenant_id, user))]
        top = next(line for line in plan if "Buffers:" in line)  # the top node's, its children's included
        return sum(int(part.split("=")[1]) for part in top.split(":")[1].split() if "=" in part)

    plain = """SELECT id FROM memories WHERE tenant_id = %s AND user_id = %s AND active AND memory_type = 'semantic'
               AND subject = 'user'"""
    read = "SELECT id FROM current_semantic_memories(%s, %s, 'user')"
    conn.execute("SET enable_indexscan = off")
    try:
        # what the look-up read before 0011, once the planner chose a bitmap scan: every row every time
        assert buffers(plain) >= changes / 10 and buffers(plain) >= changes / 10
        # the first read visits every row and marks their entries dead; without 0011's plain scan no
        # read ever marks them: every read then visits every row
        first, second = buffers(read), buffers(read)
        assert first >= changes / 10 > second, (first, second)
    finally:
        conn.execute("RESET enable_indexscan")
    vector = np.full(dim, 0.05, dtype=np.float32)
    assert [m["id"] for m in memory_rows.related_active(conn, tenant_id, user, ["city"], vector, 0.8, 8)] \
        == [f"city-{changes}"]


def test_turns_said_at_the_same_time_are_decided_in_the_order_they_came(ctx, tenant):
    """Two turns with one timestamp, in one batch whose records come in the other order: the one that
    came last is current for every user, not whichever random turn id sorts first."""
    for n in range(6):
        user = f"same-time-{n}"
        ids = []
        for text in ("I work at Stripe.", "I work at Notion."):
            turn = TurnIn(user_id=user, session_id="s1", timestamp="2026-01-05T09:00:00Z",
                          messages=[{"role": "user", "content": text}])
            with ctx.db.transaction() as conn:
                tenant_rows.ensure_tenant(conn, tenant.id)
                ids.append(turn_rows.insert_turn(conn, tenant.id, turn, turn.timestamp)[0])
        pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, ids[::-1])[::-1])
        current = [m[2] for m in _knowledge(ctx, tenant.id, user) if m[0] == "semantic" and m[1] == "employer" and m[5]]
        assert current == ["Notion"], (n, current)


@pytest.mark.parametrize("plan", ["", "SET LOCAL enable_nestloop = off; SET LOCAL enable_mergejoin = off"])
def test_a_batchs_session_histories_are_oldest_first_whatever_the_plan(ctx, tenant, plan):
    # The extraction of a batch read each turn's history oldest first only when Postgres joined it
    # one way: after other tests had filled the tables it hashed the join, handed the histories back
    # newest first, and the batch indexed "I love sushi." with the session's first line
    # (test_a_batch_of_records_writes_what_one_record_at_a_time_writes, after test_pipeline_llm
    # and test_template). The join methods turned off here make that plan on an empty-ish table.
    ids = _queue(ctx, tenant, "histories")
    with ctx.db.transaction() as conn:
        for statement in filter(None, plan.split("; ")):
            conn.execute(statement)
        histories = turn_rows.session_histories(conn, tenant.id, ids, 10)
    for i, turn_id in enumerate(ids):
        assert [m["content"] for m in histories[turn_id]] == LINES[max(0, i - 10):i], i
        assert "said_at" not in (histories[turn_id] or [{}])[0]
