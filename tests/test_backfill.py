"""Bulk jobs through the backfill queue: a 10,000-turn import, resumable chunks that count
once, bad lines counted as failed, re-embedding and re-extraction, progress over HTTP."""

from __future__ import annotations

import json

import numpy as np

from memex import backfill
from memex.jobs import BackfillJob
from memex.pipeline import indexed_text


def _write(path, turns) -> None:
    path.write_text("".join(json.dumps(t) + "\n" for t in turns), encoding="utf-8")


def test_a_ten_thousand_turn_import_lands_whole_and_in_time_order(tenant, runtime, ctx, tmp_path):
    turns = [{"user_id": f"u{i % 4}", "session_id": f"s{i // 100}",
              "timestamp": f"2025-{1 + i // 1000:02d}-{1 + (i // 40) % 25:02d}T{i % 24:02d}:00:00Z",
              "messages": [{"role": "user", "content": f"note {i}: tea at {i % 97}", "metadata": {"line": i}}]}
             for i in range(10_000)]
    turns[5_000]["messages"][0]["content"] = "I work at Stripe."
    turns[9_000]["messages"][0]["content"] = "I just started at Notion."
    for i in (5_000, 9_000):
        turns[i]["user_id"] = "u_main"
    path = tmp_path / "history.jsonl"
    _write(path, turns)
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=900)

    progress = tenant.get(f"/v1/backfills/{job.backfill_id}").json()
    assert (progress["status"], progress["total"], progress["done"], progress["failed"], progress["remaining"]) \
        == ("done", 10_000, 10_000, 0, 0)
    counts = sum(tenant.get("/v1/memories/count", params={"user_id": f"u{k}"}).json()["count"] for k in range(4))
    assert counts == 9_998
    employer = [m for m in tenant.get("/v1/users/u_main/memories", params={"include_inactive": "true"})
                .json()["memories"] if m["key"] == "employer"]
    assert sorted((m["value"], m["active"]) for m in employer) == [("Notion", True), ("Stripe", False)]
    # The next line of the same session carries this one as its context, so both rank high.
    top = tenant.post("/v1/search", {"user_id": "u1", "query": "note 4321"}).json()["results"][:2]
    hit = next(r for r in top if r["content"] == "note 4321: tea at 53")
    assert hit["sources"][0]["metadata"] == {"line": 4321}
    assert hit["valid_from"] == turns[4321]["timestamp"]


def test_chunks_resume_count_once_and_bad_lines_fail_alone(tenant, ctx, runtime, tmp_path, monkeypatch):
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 3)
    lines = [{"user_id": tenant.user, "session_id": "s", "messages": [{"role": "user", "content": f"line {i}"}]}
             for i in range(7)]
    path = tmp_path / "small.jsonl"
    _write(path, lines)
    with path.open("a") as handle:
        handle.write("{not json\n")
        handle.write(json.dumps({"user_id": tenant.user, "messages": []}) + "\n")
    job = backfill.new_job("import", tenant.id, path=str(path))
    opener = lambda: path.open(encoding="utf-8")  # noqa: E731

    second = backfill.run_chunk(ctx, job, opener)
    assert second is not None and second.offset == "3"
    assert backfill.run_chunk(ctx, job, opener) == second  # a redelivered first chunk ...
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["done"], state["failed"], state["total"], state["remaining"]) == (3, 0, 9, 6)  # ... counts once

    third = backfill.run_chunk(ctx, second, opener)
    assert third is not None and backfill.run_chunk(ctx, third, opener) is None
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"], state["remaining"]) == ("done", 7, 2, 0)
    runtime.drain()
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 7


def test_reembed_rewrites_every_vector_of_the_scope(tenant, ctx, runtime):
    tenant.turn("I live in Porto.")
    tenant.turn("Unrelated words here.", user="someone-else")
    conn = ctx.db.connection()
    conn.execute("UPDATE memories SET embedding = %s WHERE tenant_id = %s",
                 (np.ones(384, dtype=np.float32) / np.sqrt(384), tenant.id))
    job = backfill.new_job("reembed", tenant.id, user_id=tenant.user)
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["done"] == 2
    rows = conn.execute("SELECT user_id, content, context, embedding FROM memories WHERE tenant_id = %s", (tenant.id,)).fetchall()
    for row in rows:
        fresh = ctx.embedder.embed([indexed_text(row["content"], row["context"])])[0]
        expected = fresh if row["user_id"] == tenant.user else np.ones(384) / np.sqrt(384)
        assert np.allclose(row["embedding"].to_numpy(), expected, atol=1e-5), row["content"]


def test_reextract_runs_extraction_again_without_duplicates(tenant, ctx, runtime):
    tenant.turn("I work at Stripe.")
    before = tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"]
    job = backfill.new_job("reextract", tenant.id)
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["status"] == "done"
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == before


def test_backfill_messages_parse_strictly():
    job = BackfillJob.from_json('{"kind": "reembed", "tenant_id": "t", "backfill_id": "b", "offset": "x"}')
    assert job == BackfillJob("reembed", "t", "b", offset="x")
    assert BackfillJob.from_json(job.to_json()) == job
    for body in ('{"kind": "nuke", "tenant_id": "t", "backfill_id": "b"}', '{"kind": "import", "tenant_id": "t"}',
                 '{"kind": "import", "tenant_id": "t", "backfill_id": "b"}', "[]"):
        try:
            BackfillJob.from_json(body)
        except ValueError:
            continue
        raise AssertionError(f"accepted {body}")


def test_unknown_backfill_is_404(tenant):
    assert tenant.get("/v1/backfills/nope").status_code == 404
