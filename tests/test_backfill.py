"""Bulk jobs through the backfill queue: a 10,000-turn import, resumable chunks that count
once and send one successor whatever is delivered twice or dies half-way, bad lines counted as
failed alone, line identity, reads from a byte offset (files and S3), re-embedding and
re-extraction, progress over HTTP."""

from __future__ import annotations

import dataclasses
import itertools
import json

import numpy as np
import pytest
from botocore.exceptions import ClientError

from infra.local.runtime import function_module
from memex import backfill, export, memories, pipeline
from memex.jobs import BackfillJob
from memex import embedded_text
from memex_edge.sqs import SqsPublisher

BACKFILL_WORKER = function_module("backfill_worker")


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


def _sent(runtime) -> list[BackfillJob]:
    """The chunk messages sent since the last call, taken off the real backfill queue."""
    client, url = runtime.sqs_client(), runtime.queues["memex-backfill"]["url"]
    jobs = []
    while messages := client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for message in messages:
            jobs.append(BackfillJob.from_json(message["Body"]))
            client.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return jobs


def _line(user: str, content: str, **message) -> str:
    return json.dumps({"user_id": user, "session_id": "s", "messages": [{"role": "user", "content": content, **message}]})


def _run_to_the_end(ctx, runtime, job: BackfillJob) -> None:
    """Each chunk delivered twice, as SQS may: every chunk sends one successor, never two."""
    pending = [job]
    while pending:
        chunk = pending.pop()
        for _ in range(2):
            backfill.run_chunk(ctx, chunk, BACKFILL_WORKER.source_of(chunk))
        pending = _sent(runtime)
        assert len(pending) <= 1, pending


def test_chunks_count_once_send_one_successor_and_bad_lines_fail_alone(tenant, ctx, runtime, tmp_path, monkeypatch):
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 3)
    good = [_line(tenant.user, f"line {i}") for i in range(7)]
    bad = ["{not json", json.dumps({"user_id": tenant.user, "messages": []}), "[1, 2]",
           _line(tenant.user, "a NUL \u0000 byte"), _line(tenant.user, "x", metadata={"v": float("nan")}),
           _line(tenant.user, "y").replace('"y"', '"y", "metadata": {"v": 1e999}'),
           _line(tenant.user, "caf\u00e9").replace("\\u00e9", "\udcff")]
    path = tmp_path / "small.jsonl"
    with path.open("wb") as handle:
        for good_line, bad_line in itertools.zip_longest(good, bad):
            for line in (good_line, bad_line):
                if line is not None:
                    handle.write(line.encode("utf-8", errors="surrogateescape") + b"\n")
    job = backfill.new_job("import", tenant.id, path=str(path))
    source = BACKFILL_WORKER.source_of(job)

    backfill.run_chunk(ctx, job, source)
    [second] = _sent(runtime)
    assert second.offset == str(len(b"".join(path.read_bytes().splitlines(keepends=True)[:3])))
    backfill.run_chunk(ctx, job, source)  # a duplicated first chunk ...
    assert _sent(runtime) == []  # ... forks no second chain
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["done"], state["failed"], state["total"], state["remaining"]) == (2, 1, 14, 11)  # ... counts once

    _run_to_the_end(ctx, runtime, second)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"], state["remaining"]) == ("done", 7, 7, 0)
    runtime.drain()
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 7


def test_a_bad_line_is_named_in_the_log_by_its_byte_offset_and_what_is_wrong_never_what_it_says(
        tenant, ctx, runtime, tmp_path, caplog):
    """`failed: 3` alone left whoever imports a long export to find the lines by hand."""
    good = _line(tenant.user, "I live in Lisbon.")
    role = json.dumps({"user_id": tenant.user, "session_id": "s1",
                       "messages": [{"role": "human", "content": "my secret is 1234"}]})
    nul = _line(tenant.user, "x", metadata={"a": "nul \u0000"})
    lines = [good, role, "{not json", nul]
    path = tmp_path / "named.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    offsets = [sum(len(line.encode()) + 1 for line in lines[:i]) for i in range(len(lines))]
    job = backfill.new_job("import", tenant.id, path=str(path))
    with caplog.at_level("WARNING", logger="memex.backfill"):
        backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    said = [r.getMessage() for r in caplog.records if r.name == "memex.backfill"]
    assert said == [
        f"backfill {job.backfill_id}: the line at byte {offsets[1]} is not a turn (messages.0.role: Input should be "
        "'user', 'assistant', 'system' or 'tool')",
        f"backfill {job.backfill_id}: the line at byte {offsets[2]} is not a turn (JSONDecodeError: Expecting property "
        "name enclosed in double quotes: line 1 column 2 (char 1))",
        f"backfill {job.backfill_id}: the line at byte {offsets[3]} is not a turn (messages.0.metadata.a: must not "
        "contain the NUL character (U+0000))",
    ]
    assert not any("secret" in line for line in said)
    assert backfill.status(ctx, tenant.id, job.backfill_id)["failed"] == 3


def test_a_line_cut_short_is_said_to_be_cut_short():
    """The line's own newline went to the parser: a string cut short read "Invalid control character",
    which sent the reader looking for a character that is not there."""
    for ending in (b"\n", b"\r\n", b""):
        with pytest.raises(ValueError) as refused:
            backfill._turn_of(b'{"user_id": "u1", "messages": [{"role": "user", "content": "I live in' + ending, 0, 1000)
        assert backfill._why(refused.value).startswith("JSONDecodeError: Unterminated string starting at: line 1")


@pytest.mark.parametrize("messages,said", [
    ("[]", "messages: List should have at least 1 item, not 0"),
    ('[{"role": "user", "content": "a\\ud800b"}]', "messages.0.content: must not contain unpaired surrogates"),
])
def test_a_lines_fields_are_told_what_is_wrong_as_the_api_says_it(messages, said):
    """A line's reason is the API's 422 for the same body: pydantic's "after validation" and its own words
    for a lone surrogate were the API's before it mended them, and the lines' too."""
    with pytest.raises(ValueError) as refused:
        backfill._turn_of(b'{"user_id": "u1", "session_id": "s", "messages": ' + messages.encode() + b"}", 0, 1000)
    assert backfill._why(refused.value).startswith(said), backfill._why(refused.value)


def test_a_line_over_the_apis_body_limit_fails_alone_named_by_its_byte_offset(tenant, ctx, runtime, tmp_path, caplog):
    """A 1.4 MB message, which POST /v1/turns refuses with 413, was imported whole: an episodic
    memory of 1.4 MB that every search finding it carried."""
    limit = ctx.settings.max_body_bytes
    huge = _line(tenant.user, "x " * (limit // 2))
    lines = [_line(tenant.user, "I live in Lisbon."), huge, _line(tenant.user, "I work at Acme.")]
    path = tmp_path / "huge.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    with caplog.at_level("WARNING", logger="memex.backfill"):
        backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    said = [r.getMessage() for r in caplog.records if r.name == "memex.backfill"]
    assert said == [f"backfill {job.backfill_id}: the line at byte {len(lines[0]) + 1} is not a turn (ValueError: "
                    f"it is {len(huge)} bytes, over MEMEX_MAX_BODY_BYTES ({limit}), which POST /v1/turns refuses "
                    "with 413)"]
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 2, 1)
    runtime.drain()
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    assert listed and max(len(m["content"]) for m in listed) < limit


def test_a_line_postgres_refuses_or_whose_key_names_another_turn_is_named_in_the_log_by_its_byte_offset(
        tenant, ctx, runtime, tmp_path, caplog, monkeypatch):
    """Refused at the insert, after validation, a line was only a count: its chunk's insert did not
    know where it began. Both the pipelined insert (a key conflict) and the turn-by-turn retry (a
    value Postgres refuses) name it."""
    def keyed(content: str, key: str) -> str:
        return json.dumps({"user_id": tenant.user, "session_id": "s", "idempotency_key": key,
                           "messages": [{"role": "user", "content": content}]})

    parse = backfill._turn_of

    def a_validation_gap(raw, offset, max_bytes):  # what the validation would let through and Postgres refuses
        turn = parse(raw, offset, max_bytes)
        if b"smuggled" not in raw:
            return turn
        message = turn.messages[0].model_copy(update={"content": "my secret \u0000"})
        return turn.model_copy(update={"messages": [message]})

    def import_lines(name: str, lines: list[str]) -> tuple[BackfillJob, list[int], list[str]]:
        path = tmp_path / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        offsets = [sum(len(line.encode()) + 1 for line in lines[:i]) for i in range(len(lines))]
        job = backfill.new_job("import", tenant.id, path=str(path))
        caplog.clear()
        with caplog.at_level("WARNING", logger="memex.backfill"):
            backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
        return job, offsets, [r.getMessage() for r in caplog.records if r.name == "memex.backfill"]

    job, offsets, said = import_lines("conflict.jsonl", [
        keyed("I live in Lisbon.", "k1"), keyed("my secret is 1234", "k1"), keyed("I work at Acme.", "k2")])
    assert said == [f"backfill {job.backfill_id}: the line at byte {offsets[1]} was not stored "
                    "(its idempotency_key names another turn)"]
    assert backfill.status(ctx, tenant.id, job.backfill_id)["failed"] == 1

    monkeypatch.setattr(backfill, "_turn_of", a_validation_gap)
    job, offsets, said = import_lines("refused.jsonl", [
        keyed("I have a cat.", "k3"), keyed("smuggled", "k4"), keyed("my secret is 5678", "k1")])
    assert said == [
        f"backfill {job.backfill_id}: the line at byte {offsets[1]} was not stored (Postgres refused it: "
        "DataError)",
        f"backfill {job.backfill_id}: the line at byte {offsets[2]} was not stored (its idempotency_key names "
        "another turn)",
    ]
    assert not any("secret" in line for line in said)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["done"], state["failed"]) == (1, 2)


def test_the_job_names_its_first_failed_lines_once_however_often_a_chunk_is_delivered(
        tenant, ctx, runtime, tmp_path, monkeypatch):
    """`failed: 3` was all the job said: which lines, and why, were only in the log, and a builder
    who no longer had the log could not re-send exactly those."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 3)
    monkeypatch.setattr(backfill, "FAILURES_KEPT", 3)
    keyed = json.dumps({"user_id": tenant.user, "session_id": "s", "idempotency_key": "k1",
                        "messages": [{"role": "user", "content": "my secret is 1234"}]})
    lines = [keyed.replace("my secret is 1234", "I live in Lisbon."),
             json.dumps({"user_id": tenant.user, "session_id": "s",
                         "messages": [{"role": "human", "content": "my secret is 99"}]}),
             keyed, "", "{not json", _line(tenant.user, "I work at Acme."), _line(tenant.user, "nul \u0000")]
    path = tmp_path / "failures.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    offsets = [sum(len(line.encode()) + 1 for line in lines[:i]) for i in range(len(lines))]
    job = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, job)  # every chunk delivered twice

    state = tenant.get(f"/v1/backfills/{job.backfill_id}").json()
    assert (state["status"], state["done"], state["failed"]) == ("done", 2, 4)
    assert state["failures"] == [  # in the file's order, the line refused at the insert among them
        {"line": 2, "offset": offsets[1],
         "reason": "not a turn (messages.0.role: Input should be 'user', 'assistant', 'system' or 'tool')"},
        {"line": 3, "offset": offsets[2], "reason": "not stored (its idempotency_key names another turn)"},
        {"line": 5, "offset": offsets[4], "reason": "not a turn (JSONDecodeError: Expecting property name enclosed "
                                                    "in double quotes: line 1 column 2 (char 1))"},
    ]
    assert state["failures_not_kept"] == 1
    assert "secret" not in json.dumps(state)
    assert _listed(tenant)[0]["failures"] == state["failures"]


def test_lines_postgres_would_refuse_fail_alone_through_the_worker_and_a_bom_is_no_bad_line(tenant, ctx, runtime, tmp_path):
    path = tmp_path / "refused.jsonl"
    good = _line(tenant.user, "good")
    path.write_text("\n".join([good, good.replace('"good"}', '"bad", "metadata": {"v": NaN}}'),
                               _line(tenant.user, "nul \u0000")]) + "\n", encoding="utf-8-sig")
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain()
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 1, 2)


class _FailsOn:
    """An extractor that fails on one message (an LLM that errors on it) and reads the rest."""

    name = "fails-on"

    def __init__(self, inner, poison: str):
        self._inner, self._poison = inner, poison

    def extract(self, messages, history, known=()):
        if any(self._poison in m["content"] for m in messages):
            raise RuntimeError("the extractor failed on this message")
        return self._inner.extract(messages, history)


def test_a_turn_whose_extraction_fails_does_not_hold_back_its_chunk(tenant, ctx, runtime, tmp_path):
    """The chunk stores every turn and hands the ones whose extraction failed to the extraction
    workers instead of failing whole; there they are extracted again."""
    path = tmp_path / "poison.jsonl"
    path.write_text(_line(tenant.user, "I live in Lisbon.") + "\n" + _line(tenant.user, "I work at Poisonco.") + "\n",
                    encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    failing = dataclasses.replace(ctx, extractor=_FailsOn(ctx.extractor, "Poisonco"))
    backfill.run_chunk(failing, job, BACKFILL_WORKER.source_of(job))
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 2, 0)
    runtime.drain()  # the workers, whose extractor works, take the handed-over turn
    statuses = ctx.db.connection().execute("SELECT status FROM turns WHERE tenant_id = %s ORDER BY status",
                                           (tenant.id,)).fetchall()
    assert [r["status"] for r in statuses] == ["processed", "processed"]
    values = {m["value"] for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]}
    assert {"Lisbon", "Poisonco"} <= values


class _Killed(BaseException):
    """`kill -9` where the process stood: nothing after it runs, no handler sees it."""


class _SweptMeanwhile:
    """An extractor that, when it reads the message naming `word`, first lets another delivery
    (the sweep's re-sent message, `?wait=true`) take the same turn through the whole pipeline and
    read it otherwise, as an LLM asked twice may; then gives its own reading."""

    name = "swept-meanwhile"

    def __init__(self, inner, other, tenant_id: str, word: str):
        self._inner, self._other, self._tenant_id, self._word, self.swept = inner, other, tenant_id, word, []

    def extract(self, messages, history, known=()):
        turn_id = messages[0]["turn_id"]
        if any(self._word in m["content"] for m in messages) and turn_id not in self.swept:
            self.swept.append(turn_id)
            pipeline.process_inline(self._other, self._tenant_id, turn_id)
        return self._inner.extract(messages, history)


class _ReadsOtherwise:
    """An extractor that reads `word` as `other` (a second LLM answer for the same line)."""

    name = "reads-otherwise"

    def __init__(self, inner, word: str, other: str):
        self._inner, self._word, self._other = inner, word, other

    def extract(self, messages, history, known=()):
        return self._inner.extract([{**m, "content": m["content"].replace(self._word, self._other)}
                                    for m in messages], history)


def test_a_rerun_after_a_kill_extracts_the_stored_lines_in_its_chunk_and_a_turn_swept_meanwhile_once(
        tenant, ctx, runtime, tmp_path, monkeypatch):
    """`memex backfill` killed after its chunk stored the turns and before it extracted them: the same
    command again finds them stored and extracts them in its own chunk (their memories there when the
    chunk returns, no message left for the extraction workers), and a turn that another delivery
    extracts meanwhile (the sweep re-sent it) keeps that delivery's reading alone: the chunk's own,
    an LLM's second answer, wrote a second employer from the same line."""
    lines = ["I live in Lisbon.", "I work at Acme.", "entry 3"]
    path = tmp_path / "killed-mid-chunk.jsonl"
    path.write_text("".join(_line(tenant.user, line) + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))

    def killed(*args, **kwargs):
        raise _Killed

    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "extract_many", killed)
        with pytest.raises(_Killed):
            backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    conn = ctx.db.connection()

    def turns() -> list[tuple[str, bool]]:
        return [(r["status"], r["candidates"] is None) for r in conn.execute(
            "SELECT status, candidates FROM turns WHERE tenant_id = %s AND user_id = %s ORDER BY created_at",
            (tenant.id, tenant.user)).fetchall()]

    assert turns() == [("queued", True)] * 3  # stored, not extracted, nothing on any queue

    sweep = dataclasses.replace(ctx, extractor=_ReadsOtherwise(ctx.extractor, "Acme", "Initech"))
    swept = _SweptMeanwhile(ctx.extractor, sweep, tenant.id, "Acme")
    again = backfill.new_job("import", tenant.id, path=str(path))
    backfill.run_chunk(dataclasses.replace(ctx, extractor=swept), again, BACKFILL_WORKER.source_of(again))

    assert len(swept.swept) == 1
    state = backfill.status(ctx, tenant.id, again.backfill_id)
    assert (state["status"], state["done"], state["already_stored"]) == ("done", 3, 3)
    assert turns() == [("processed", True)] * 3
    rows = conn.execute(
        """SELECT memory_type, key, value, content, count(*) AS n FROM memories WHERE tenant_id = %s AND user_id = %s
           GROUP BY memory_type, key, value, content ORDER BY memory_type, content""",
        (tenant.id, tenant.user)).fetchall()
    assert [(r["memory_type"], r["content"], r["n"]) for r in rows if r["memory_type"] == "episodic"] \
        == [("episodic", line, 1) for line in sorted(lines)]
    assert {(r["key"], r["value"], r["n"]) for r in rows if r["memory_type"] == "semantic"} \
        == {("city", "Lisbon", 1), ("employer", "Initech", 1)}


def test_a_restore_into_the_same_user_stores_its_lost_turn_once_whatever_is_delivered_twice_or_dies(
        tenant, other_tenant, ctx, runtime, tmp_path, monkeypatch):
    """An export imported into its own user by the worker: a delivery killed after its chunk stored the
    lost turn, before it extracted it, then the chunk delivered twice: every turn once (the lost one
    found by its line's key, the others by the turns the lines name), nothing failed. Imported into
    another tenant, a keyed line is stored as sent: its key sent again by the client finds it."""
    def said(content: str, **extra) -> str:
        response = tenant.turn(content, **extra)
        assert response.status_code == 201, response.text
        return response.json()["turn_id"]

    said("I have a cat.", timestamp="2025-03-01T10:00:00+01:00", idempotency_key="k-cat")
    said("I live in Lisbon.", timestamp="2025-03-02T10:00:00Z")
    lost = said("I work at Acme.", timestamp="2025-03-03T10:00:00Z")
    said("I play the drums.", idempotency_key="k-drums")  # no timestamp: the line carries when it was received
    path = tmp_path / "restore.jsonl"
    path.write_text("".join(line + "\n" for line in export.lines(ctx, tenant.id, tenant.user)), encoding="utf-8")
    with ctx.db.transaction() as conn:
        conn.execute("DELETE FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, lost))

    job = backfill.new_job("import", tenant.id, path=str(path))
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "extract_many", lambda *args, **kwargs: (_ for _ in ()).throw(_Killed()))
        with pytest.raises(_Killed):
            backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    _run_to_the_end(ctx, runtime, job)
    runtime.drain()

    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["already_stored"], state["failed"]) == ("done", 4, 4, 0)
    turns = tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"]
    assert [(t["messages"][0]["content"], t["status"]) for t in turns] == [
        ("I have a cat.", "processed"), ("I live in Lisbon.", "processed"), ("I work at Acme.", "processed"),
        ("I play the drums.", "processed")]
    facts = [(m["key"], m["value"]) for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
             if m["key"]]
    assert sorted(facts) == [("city", "Lisbon"), ("employer", "Acme"), ("hobby", "drums"), ("pet_kind", "cat")]

    elsewhere = backfill.new_job("import", other_tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, elsewhere)
    assert backfill.status(ctx, other_tenant.id, elsewhere.backfill_id)["done"] == 4
    cat = next(t for t in other_tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"]
               if t["idempotency_key"] == "k-cat")
    again = other_tenant.turn("I have a cat.", user=tenant.user, timestamp="2025-03-01T10:00:00+01:00",
                              idempotency_key="k-cat")
    assert again.status_code == 201, again.text
    assert again.json()["turn_id"] == cat["turn_id"]


def test_a_line_giving_a_users_turn_to_another_user_is_stored_for_them_beside_the_users_own_in_one_chunk(
        tenant, ctx, runtime, tmp_path):
    """A tenant-wide file holding a user's backup line and the same line given to another user (their
    `turn_id` naming the first user's turn): the first is that turn, found stored; the second is
    stored for the other user, whose turn it is not, in the same chunk as alone."""
    response = tenant.turn("I have a cat.", timestamp="2025-03-01T10:00:00Z")
    assert response.status_code == 201, response.text
    [line] = [json.loads(line) for line in export.lines(ctx, tenant.id, tenant.user)]
    other = f"{tenant.user}-copy"
    path = tmp_path / "two.jsonl"
    _write(path, [line, {**line, "user_id": other}])
    job = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, job)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["done"], state["already_stored"], state["failed"]) == (2, 1, 0)
    [copied] = tenant.get(f"/v1/users/{other}/turns").json()["turns"]
    assert copied["turn_id"] != line["turn_id"] and copied["messages"][0]["content"] == "I have a cat."


def test_a_line_giving_a_users_turn_to_another_user_keeps_no_id_of_theirs_past_their_erasure(
        tenant, ctx, runtime, tmp_path):
    """The other user's turn, stored from a line naming the first user's turn, does not keep that id as
    the turn it was imported from: the first user's erasure then leaves no row naming their turns."""
    named = tenant.turn("I have a cat.").json()["turn_id"]
    [line] = [json.loads(line) for line in export.lines(ctx, tenant.id, tenant.user)]
    path = tmp_path / "given.jsonl"
    _write(path, [{**line, "user_id": f"{tenant.user}-copy"}])
    _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))
    while not memories.erase_user(ctx, tenant.id, tenant.user).finished:
        pass
    with ctx.db.transaction() as conn:
        [copied] = conn.execute("SELECT t.*, erased_digest(t.tenant_id, t.user_id, %s) AS moved_from FROM turns t"
                                " WHERE t.tenant_id = %s AND t.user_id = %s",
                                (named, tenant.id, f"{tenant.user}-copy")).fetchall()
    assert copied.pop("imported_from_digests") == [copied.pop("moved_from")]
    assert named not in json.dumps(copied, default=str)


@pytest.mark.parametrize("erased_between", [False, True])
def test_a_line_naming_another_users_turn_delivered_again_is_found_stored(tenant, ctx, erased_between):
    """A chunk whose insert committed and whose worker died before counting it (`advance`) is delivered again: its
    line naming another user's turn (an export `--as-user`), stored under an id derived from the turn it names, is
    found stored, not stored a second time (a duplicate turn, its facts extracted twice), also when that user
    erased their turn between the deliveries (the line then named an id no one had, and claimed it: review revAE)."""
    from memex.db import backfills as backfill_rows
    from memex.models import ImportedTurn

    copy = f"{tenant.user}-copy"
    assert tenant.turn("I have a cat.").status_code == 201
    [line] = [ImportedTurn.model_validate_json(line) for line in export.lines(ctx, tenant.id, tenant.user, as_user=copy)]
    deliveries = []
    for delivery in range(2):
        if delivery and erased_between:
            while not memories.erase_user(ctx, tenant.id, tenant.user).finished:
                pass
        with ctx.db.transaction() as conn:
            deliveries.append(backfill_rows.insert_turns(conn, tenant.id, [line]))
    [stored] = tenant.get(f"/v1/users/{copy}/turns").json()["turns"]
    assert [d.turn_ids for d in deliveries] == [[stored["turn_id"]]] * 2 and stored["turn_id"] != line.turn_id
    assert [d.already_stored for d in deliveries] == [0, 1]


def test_a_line_carrying_what_are_not_digests_or_too_many_is_not_a_turn(tenant, ctx, runtime, tmp_path):
    """`imported_from_digests` holds digests (64 lowercase hex digits, as an erasure keeps them), at most 16: a line
    carrying an id in clear, or more, fails naming the field, and stores nothing."""
    digest = "ab" * 32
    lines = [{"user_id": tenant.user, "session_id": "s", "messages": [{"role": "user", "content": "I have a cat."}],
              "imported_from_digests": said} for said in (["turn-1"], [digest.upper()], [digest] * 17, [digest] * 16)]
    path = tmp_path / "digests.jsonl"
    _write(path, lines)
    job = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, job)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["done"], state["failed"]) == (1, 3)
    pattern = "imported_from_digests.0: String should match pattern '^[0-9a-f]{64}$'"
    assert [f["reason"] for f in state["failures"]] == [
        f"not a turn ({pattern})", f"not a turn ({pattern})",
        "not a turn (imported_from_digests: List should have at most 16 items, not 17)"]


def test_two_users_imports_claiming_one_free_id_at_once_store_both_lines(tenant, ctx):
    """Two imports for different users, each a line naming an id no turn has (each user's restore of a lost turn the
    same file gave both): the first stores its line under that id; the second, which waited on that row, stores its
    line as one naming another user's turn (an id of its own, the digest of the one it names), not refused."""
    import threading
    import time

    import psycopg
    from psycopg.rows import dict_row

    from memex.db import backfills as backfill_rows
    from memex.models import ImportedTurn

    other = f"{tenant.user}-b"
    for user in (tenant.user, other):
        assert tenant.turn("hello", session="s", user=user).status_code == 201
    line = lambda user: ImportedTurn(user_id=user, session_id="s", turn_id="lost-turn-1",  # noqa: E731
                                     messages=[{"role": "user", "content": "I have a cat."}])
    out = {}
    with psycopg.connect(ctx.db.dsn, row_factory=dict_row) as first, \
            psycopg.connect(ctx.db.dsn, row_factory=dict_row) as second, \
            psycopg.connect(ctx.db.dsn, autocommit=True) as watcher:
        def run_second():
            with second.transaction():
                out["second"] = backfill_rows.insert_turns(second, tenant.id, [line(other)])

        with first.transaction():
            out["first"] = backfill_rows.insert_turns(first, tenant.id, [line(tenant.user)])
            waiting = threading.Thread(target=run_second)
            waiting.start()
            deadline = time.monotonic() + 60
            while not watcher.execute("""SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'
                                         AND datname = current_database()
                                         AND query LIKE 'INSERT INTO turns%%'""").fetchone()[0]:
                assert waiting.is_alive() and time.monotonic() < deadline, ("never waited on the row", out)
                time.sleep(0.02)
        waiting.join(timeout=60)
    assert not waiting.is_alive()
    assert out["first"].turn_ids == ["lost-turn-1"]
    [moved] = out["second"].turn_ids
    assert out["second"].refused == [] and moved != "lost-turn-1"
    with ctx.db.transaction() as conn:
        row = conn.execute("SELECT user_id, imported_from_digests AS d,"
                           " erased_digest(tenant_id, user_id, 'lost-turn-1') AS named FROM turns WHERE tenant_id = %s AND id = %s", (tenant.id, moved)).fetchone()
    assert row["user_id"] == other and row["d"] == [row["named"]]
    with ctx.db.transaction() as conn:  # the second import's chunk delivered again: that line found stored
        again = backfill_rows.insert_turns(conn, tenant.id, [line(other)])
    assert (again.turn_ids, again.already_stored) == ([moved], 1)


def test_a_restore_counts_each_line_naming_an_erased_turn_once_whatever_is_delivered_twice(
        tenant, ctx, runtime, tmp_path, monkeypatch):
    """Through the worker, two lines a chunk and every chunk delivered twice: the lines naming the turns of a
    session erased since the export are counted `erased` once each and stored by no delivery."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 2)
    for session, content in (("gone", "I work at Acme."), ("kept", "I have a cat."), ("gone", "I live in Porto.")):
        assert tenant.turn(content, session=session).status_code == 201
    path = tmp_path / "backup.jsonl"
    path.write_text("".join(line + "\n" for line in export.lines(ctx, tenant.id, tenant.user)), encoding="utf-8")
    assert tenant.delete("/v1/sessions/gone", params={"user_id": tenant.user}).status_code == 200

    job = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, job)
    runtime.drain()
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert {k: state[k] for k in ("status", "total", "done", "already_stored", "erased", "failed", "remaining")} == {
        "status": "done", "total": 3, "done": 1, "already_stored": 1, "erased": 2, "failed": 0, "remaining": 0}
    assert [t["session_id"] for t in tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"]] == ["kept"]
    facts = [(m["key"], m["value"]) for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
             if m["key"]]
    assert facts == [("pet_kind", "cat")]


def _state(ctx, tenant, job: BackfillJob) -> dict:
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    return {k: state[k] for k in ("status", "done", "already_stored", "erased", "failed")}


def _sessions_and_facts(tenant) -> tuple[list[str], list[tuple[str, str]]]:
    turns = tenant.get(f"/v1/users/{tenant.user}/turns").json()["turns"]
    memories = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    return [t["session_id"] for t in turns], [(m["key"], m["value"]) for m in memories if m["key"]]


def test_a_chunk_retried_after_its_session_was_erased_stores_none_of_its_lines_again(
        tenant, ctx, runtime, tmp_path, monkeypatch):
    """A plain file's line (no `turn_id`) is known by its key alone, `backfill:<sha256>:<offset>`: a delivery
    killed once its turns were stored and before its progress was, the session erased, then SQS's retry of
    the chunk finds the line's key erased with the session (review revS)."""
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"user_id": tenant.user, "session_id": "gone",
                                "messages": [{"role": "user", "content": "I work at Acme."}]}) + "\n")
    job = backfill.new_job("import", tenant.id, path=str(path))
    with monkeypatch.context() as patch:
        patch.setattr(backfill.backfill_rows, "advance", lambda *args, **kwargs: (_ for _ in ()).throw(_Killed()))
        with pytest.raises(_Killed):
            backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    runtime.drain()
    assert _sessions_and_facts(tenant) == (["gone"], [("employer", "Acme")])
    assert tenant.delete("/v1/sessions/gone", params={"user_id": tenant.user}).json()["deleted"]["turns"] == 1

    backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))  # SQS delivers the message again
    runtime.drain()
    assert _state(ctx, tenant, job) == {"status": "done", "done": 0, "already_stored": 0, "erased": 1, "failed": 0}
    assert _sessions_and_facts(tenant) == ([], [])


def test_a_plain_file_imported_again_after_its_session_was_erased_stores_none_of_its_lines(
        tenant, ctx, runtime, tmp_path):
    """Its line carries the same key again (its bytes and offset): counted `erased`, the other session's line
    found stored."""
    path = tmp_path / "plain.jsonl"
    _write(path, [{"user_id": tenant.user, "session_id": "gone", "messages": [{"role": "user", "content": "I work at Acme."}]},
                  {"user_id": tenant.user, "session_id": "kept", "messages": [{"role": "user", "content": "I have a cat."}]}])
    _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))
    runtime.drain()
    assert tenant.delete("/v1/sessions/gone", params={"user_id": tenant.user}).json()["deleted"]["turns"] == 1

    again = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, again)
    runtime.drain()
    assert _state(ctx, tenant, again) == {"status": "done", "done": 1, "already_stored": 1, "erased": 1, "failed": 0}
    assert _sessions_and_facts(tenant) == (["kept"], [("pet_kind", "cat")])


def test_a_crash_between_advancing_and_sending_neither_stalls_nor_forks(tenant, ctx, runtime, tmp_path, monkeypatch):
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 2)
    path = tmp_path / "crash.jsonl"
    path.write_text("".join(_line(tenant.user, f"entry {i}") + "\n" for i in range(5)), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    source = BACKFILL_WORKER.source_of(job)
    # The send itself fails for real (a queue that does not exist) after the chunk advanced.
    dying = dataclasses.replace(ctx, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, backfill_queue_url=ctx.settings.backfill_queue_url + "-missing")))
    with pytest.raises(ClientError):
        backfill.run_chunk(dying, job, source)
    assert backfill.status(ctx, tenant.id, job.backfill_id)["done"] == 2
    assert _sent(runtime) == []

    backfill.run_chunk(ctx, job, source)  # the redelivery sends what the dead delivery owed ...
    [second] = _sent(runtime)
    backfill.run_chunk(ctx, job, source)  # ... once
    assert _sent(runtime) == []
    _run_to_the_end(ctx, runtime, second)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 5, 0)


def test_a_job_started_before_lines_were_counted_names_its_failures_by_offset_alone(tenant, ctx, runtime, tmp_path,
                                                                                   monkeypatch):
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 2)
    lines = [_line(tenant.user, "entry 1"), _line(tenant.user, "entry 2"), "{oops"]
    path = tmp_path / "old.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    with ctx.db.transaction() as conn:  # as migration 0028 leaves a job that was running
        conn.execute("UPDATE backfills SET lines_read = NULL WHERE tenant_id = %s AND id = %s",
                     (tenant.id, job.backfill_id))
    _run_to_the_end(ctx, runtime, *_sent(runtime))
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert state["failures"] == [{"line": None, "offset": sum(len(line) + 1 for line in lines[:2]),
                                  "reason": "not a turn (JSONDecodeError: Expecting property name enclosed in "
                                            "double quotes: line 1 column 2 (char 1))"}]


def test_a_job_whose_chain_died_reads_stalled_and_resumes_from_where_it_stopped(tenant, ctx, runtime, tmp_path,
                                                                                 monkeypatch):
    """After `kill -9` of `memex backfill`, its loopback queue dead with it, the job said "running"
    for ever and nothing could go on with it: the same command started another job."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 2)
    path = tmp_path / "killed.jsonl"
    path.write_text("".join(_line(tenant.user, f"entry {i}") + "\n" for i in range(5)) + "{oops\n", encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    assert len(_sent(runtime)) == 1  # the next chunk's message, lost with the process that held it
    assert backfill.status(ctx, tenant.id, job.backfill_id)["status"] == "running"

    bound = ctx.settings.backfill_stalled_after_seconds
    with ctx.db.transaction() as conn:
        conn.execute("UPDATE backfills SET updated_at = updated_at - make_interval(secs => %s) "
                     "WHERE tenant_id = %s AND id = %s", (bound + 1, tenant.id, job.backfill_id))
    assert tenant.get(f"/v1/backfills/{job.backfill_id}").json()["status"] == "stalled"

    other = backfill.new_job("import", tenant.id, path=str(tmp_path / "another.jsonl"))
    with pytest.raises(ValueError, match="not this one"):
        backfill.resume(ctx, other, job.backfill_id)
    resumed = backfill.resume(ctx, backfill.new_job("import", tenant.id, path=str(path)), job.backfill_id)
    first_chunk = b"".join(path.read_bytes().splitlines(keepends=True)[:2])
    assert (resumed.backfill_id, resumed.offset) == (job.backfill_id, str(len(first_chunk)))
    ctx.publisher.publish_backfill(resumed)
    runtime.drain()
    state = tenant.get(f"/v1/backfills/{job.backfill_id}").json()
    assert (state["status"], state["done"], state["failed"], state["already_stored"]) == ("done", 5, 1, 0)
    assert state["failures"][0]["line"] == 6  # counted on from where it stopped
    stored = ctx.db.connection().execute("SELECT count(*) AS n FROM turns WHERE tenant_id = %s AND user_id = %s",
                                         (tenant.id, tenant.user)).fetchone()
    assert stored["n"] == 5
    with pytest.raises(ValueError, match="is done"):
        backfill.resume(ctx, backfill.new_job("import", tenant.id, path=str(path)), job.backfill_id)


def test_a_user_erased_while_an_import_runs_comes_back_with_the_lines_after_the_erasure(tenant, ctx, runtime, tmp_path,
                                                                                        monkeypatch):
    """What docs/backfills.md says (decided, not refused: refusing them would keep the erased
    user's id on record past the erasure): the erasure takes what was stored, the job's later lines
    store the user again, and importing the file again after the erasure stores none of the lines it
    took: it kept their keys' digests (`backfill:<sha256>:<offset>`), which the lines carry again."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 2)
    path = tmp_path / "migration.jsonl"
    path.write_text("".join(_line(tenant.user, f"entry {i}") + "\n" for i in range(4)), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    assert tenant.delete(f"/v1/users/{tenant.user}").json()["deleted"]["turns"] == 2
    _run_to_the_end(ctx, runtime, *_sent(runtime))

    def stored() -> list[str]:
        return [m["content"] for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
                if m["memory_type"] == "episodic"]

    assert backfill.status(ctx, tenant.id, job.backfill_id)["done"] == 4
    assert sorted(stored()) == ["entry 2", "entry 3"]
    again = backfill.new_job("import", tenant.id, path=str(path))
    _run_to_the_end(ctx, runtime, again)
    state = backfill.status(ctx, tenant.id, again.backfill_id)
    assert (state["done"], state["already_stored"], state["erased"]) == (2, 2, 2)
    assert sorted(stored()) == ["entry 2", "entry 3"]


def test_an_import_for_one_user_stores_only_their_lines_and_its_record_names_no_other(tenant, ctx, runtime, tmp_path):
    """`memex backfill FILE --user z1` of a file with z1's and z2's lines stored both and filed the job as
    z1's (qa6): z1's erasure then took the record of a job that stored z2's data. Another user's line
    fails alone, its reason naming neither that user nor what the line says."""
    other = f"{tenant.user}-other"
    path = tmp_path / "two-users.jsonl"
    path.write_text(_line(tenant.user, "I live in Faro.") + "\n" + _line(other, "I live in Porto.") + "\n",
                    encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path), user_id=tenant.user)
    _run_to_the_end(ctx, runtime, job)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["user_id"], state["done"], state["failed"]) == (tenant.user, 1, 1), state
    offset = len(_line(tenant.user, "I live in Faro.")) + 1
    assert state["failures"] == [{"line": 2, "offset": offset, "reason": (
        f"not stored (another user's line: this import is of user {tenant.user}'s lines only)")}]
    assert tenant.get(f"/v1/users/{other}/memories").json()["memories"] == []
    assert [m["content"] for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
            if m["memory_type"] == "episodic"] == ["I live in Faro."]
    assert [b["backfill_id"] for b in _listed(tenant, user_id=tenant.user)] == [job.backfill_id]


def test_a_new_file_at_the_same_path_is_imported_and_the_same_file_is_not_imported_twice(tenant, ctx, runtime, tmp_path):
    path = tmp_path / "export.jsonl"

    def import_file(*contents: str) -> dict:
        path.write_text("".join(_line(tenant.user, c) + "\n" for c in contents), encoding="utf-8")
        job = backfill.new_job("import", tenant.id, path=str(path))
        ctx.publisher.publish_backfill(job)
        runtime.drain()
        return backfill.status(ctx, tenant.id, job.backfill_id)

    def stored() -> list[str]:
        return sorted(m["content"] for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"])

    def imported() -> float:  # TurnsIngested counts what an import stored, not what was there
        return ctx.metrics.registry.get_sample_value("memex_turns_ingested_total", {"source": "import"}) or 0.0

    before = imported()
    first = import_file("Alpha notes.", "Bravo notes.")
    assert (first["done"], first["already_stored"], imported() - before) == (2, 0, 2)
    again = import_file("Alpha notes.", "Bravo notes.")
    assert (again["done"], again["already_stored"], imported() - before) == (2, 2, 2)  # nothing new
    assert stored() == ["Alpha notes.", "Bravo notes."]
    new = import_file("Charlie notes.", "Delta notes.", "Echo notes.")
    assert (new["done"], new["already_stored"], imported() - before) == (3, 0, 5)
    assert stored() == ["Alpha notes.", "Bravo notes.", "Charlie notes.", "Delta notes.", "Echo notes."]


def test_each_chunk_reads_s3_from_its_byte_offset(tenant, ctx, runtime, aws, monkeypatch):
    """Once the first chunk is done, its bytes are overwritten (same length, no line breaks): a
    chunk that re-read the object from the start and counted lines would import the wrong ones."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 3)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", aws.url)
    s3 = aws.client("s3")
    bucket = f"imports-{tenant.id}"
    s3.create_bucket(Bucket=bucket)
    lines = [(_line(tenant.user, f"record {i}") + "\n").encode() for i in range(8)]
    s3.put_object(Bucket=bucket, Key="history.jsonl", Body=b"".join(lines))
    job = backfill.new_job("import", tenant.id, s3_uri=f"s3://{bucket}/history.jsonl")

    backfill.run_chunk(ctx, job, BACKFILL_WORKER.source_of(job))
    done = len(b"".join(lines[:3]))
    s3.put_object(Bucket=bucket, Key="history.jsonl", Body=b"x" * done + b"".join(lines[3:]))
    runtime.drain()  # the next chunks, through the real worker

    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 8, 0)
    contents = {m["content"] for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]}
    assert contents == {f"record {i}" for i in range(8)}


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
    rows = conn.execute("SELECT user_id, content, context, memory_type, subject, embedding FROM memories"
                        " WHERE tenant_id = %s", (tenant.id,)).fetchall()
    for row in rows:
        fresh = ctx.embedder.embed([embedded_text.of(row["content"], row["context"], memory_type=row["memory_type"],
                                                     subject=row["subject"])])[0]
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


def _pets(tenant, user: str) -> list[tuple[str, str, bool]]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    return sorted((m["value"], m["content"], m["active"]) for m in listed["memories"] if m["key"] == "pet_dog_name")


def test_a_pet_named_and_said_dead_in_one_import_chunk_is_ended(tenant, ctx, runtime, tmp_path):
    """"Pickle passed away last week." in a later line of the chunk that names the dog: the dog ends, as
    when the lines come one by one (the name was not stored yet when the chunk read which pets the death
    may name). Only a line said before, of the same user, counts; each chunk delivered twice."""
    def line(user: str, day: int, content: str, session: str) -> dict:
        return {"user_id": user, "session_id": session, "timestamp": f"2026-01-{day:02d}T09:00:00Z",
                "messages": [{"role": "user", "content": content}]}

    path = tmp_path / "pets.jsonl"
    _write(path, [line(tenant.user, 20, "Pickle passed away last week.", "later"),  # said after, listed first
                  line(tenant.user, 2, "My dog Pickle loves the beach.", "spring"),
                  line("early", 1, "Pickle passed away last week.", "a"),  # before that user names the dog
                  line("early", 2, "My dog Pickle loves the beach.", "b"),
                  line("another", 21, "Pickle passed away last week.", "c")])  # another user's dog
    _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))

    assert _pets(tenant, tenant.user) == [("Pickle", "The user used to have a dog named Pickle.", False),
                                          ("Pickle", "The user's dog is named Pickle.", False)]
    assert _pets(tenant, "early") == [("Pickle", "The user's dog is named Pickle.", True)]
    assert _pets(tenant, "another") == []


def _killed_after_its_first_line(ctx, monkeypatch, tenant, path) -> None:
    """The import's first chunk killed once its first line was extracted (its candidates kept on the turn,
    not yet decided) and before the next line's."""
    extract_many = pipeline.extract_many

    def killed(ctx, tenant_id, turn_ids, **kwargs):
        extract_many(ctx, tenant_id, turn_ids[:1], **kwargs)
        raise _Killed

    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "extract_many", killed)
        with pytest.raises(_Killed):
            first = backfill.new_job("import", tenant.id, path=str(path))
            backfill.run_chunk(ctx, first, BACKFILL_WORKER.source_of(first))


def test_a_rerun_after_a_kill_sees_the_pet_its_chunk_named_before_the_kill(tenant, ctx, runtime, tmp_path, monkeypatch):
    """Killed once the dog's line was extracted (its candidates kept on the turn, not yet decided) and
    before the death's: the same command again ends the dog, from the candidates its line kept."""
    path = tmp_path / "killed-between.jsonl"
    _write(path, [{"user_id": tenant.user, "session_id": session, "messages": [{"role": "user", "content": said}]}
                  for session, said in [("spring", "My dog Pickle loves the beach."),
                                        ("later", "Pickle passed away last week.")]])
    _killed_after_its_first_line(ctx, monkeypatch, tenant, path)
    assert _pets(tenant, tenant.user) == []  # extracted, not decided
    _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))
    assert _pets(tenant, tenant.user) == [("Pickle", "The user used to have a dog named Pickle.", False),
                                          ("Pickle", "The user's dog is named Pickle.", False)]


def _employers(tenant, user: str) -> list[tuple[str, str, bool, str, str | None]]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500}).json()
    return sorted((m["value"], m["content"], m["active"], m["valid_from"], m["valid_to"])
                  for m in listed["memories"] if m["key"] == "employer")


_WORK = ("2026-01-02T09:00:00Z", "spring", "I work at Acme.")
_MEANT = ("2026-01-20T09:00:00Z", "later", "Sorry, I meant Globex, not Acme.")


def _said_alone(tenant, user: str, *said: tuple[str, str, str]) -> None:
    """What the lines give sent one by one, each decided before the next is read."""
    for timestamp, session, content in said:
        assert tenant.turn(content, user=user, session=session, timestamp=timestamp).status_code == 201


def test_a_correction_of_a_fact_said_earlier_in_the_same_import_chunk_corrects_it(tenant, ctx, runtime, tmp_path):
    """"Sorry, I meant Globex, not Acme." in a later line (another session) of the chunk that says "I work at
    Acme.": the employer is Globex, Acme its history, as when the two lines come one by one (Acme was not
    stored yet when the chunk read which facts hold the wrong value). Only a line said before, of the same
    user, counts; each chunk delivered twice."""
    def line(user: str, said: tuple[str, str, str]) -> dict:
        timestamp, session, content = said
        return {"user_id": user, "session_id": session, "timestamp": timestamp,
                "messages": [{"role": "user", "content": content}]}

    early = (_WORK[0].replace("01-02", "01-21"), "after", _WORK[2])  # said after the correction
    path = tmp_path / "meant.jsonl"
    _write(path, [line(tenant.user, _MEANT), line(tenant.user, _WORK),  # said after, listed first
                  line("early", _MEANT), line("early", early),
                  line("another", _MEANT)])
    _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))
    _said_alone(tenant, "alone", _WORK, _MEANT)
    _said_alone(tenant, "early-alone", _MEANT, early)

    assert [(value, active) for value, _, active, _, _ in _employers(tenant, tenant.user)] \
        == [("Acme", False), ("Globex", True)]
    assert _employers(tenant, tenant.user) == _employers(tenant, "alone")
    assert [(value, active) for value, _, active, _, _ in _employers(tenant, "early")] == [("Acme", True)]
    assert _employers(tenant, "early") == _employers(tenant, "early-alone")
    assert _employers(tenant, "another") == []


def test_a_rerun_after_a_kill_corrects_the_fact_its_chunk_said_before_the_kill(tenant, ctx, runtime, tmp_path,
                                                                              monkeypatch):
    """Killed once "I work at Acme."'s line was extracted (its candidates kept on the turn, not yet decided)
    and before the correction's: the same command again corrects it, from the candidates its line kept,
    and files nothing twice."""
    path = tmp_path / "killed-before-meant.jsonl"
    _write(path, [{"user_id": tenant.user, "session_id": session, "timestamp": timestamp,
                   "messages": [{"role": "user", "content": said}]} for timestamp, session, said in (_WORK, _MEANT)])
    _killed_after_its_first_line(ctx, monkeypatch, tenant, path)
    assert _employers(tenant, tenant.user) == []  # extracted, not decided
    for _ in range(2):
        _run_to_the_end(ctx, runtime, backfill.new_job("import", tenant.id, path=str(path)))
    _said_alone(tenant, "alone", _WORK, _MEANT)
    assert [(value, active) for value, _, active, _, _ in _employers(tenant, tenant.user)] \
        == [("Acme", False), ("Globex", True)]
    assert _employers(tenant, tenant.user) == _employers(tenant, "alone")


def test_backfill_messages_parse_strictly():
    job = BackfillJob.from_json('{"kind": "reembed", "tenant_id": "t", "backfill_id": "b", "offset": "x"}')
    assert job == BackfillJob("reembed", "t", "b", offset="x")
    assert BackfillJob.from_json(job.to_json()) == job
    for body in ('{"kind": "nuke", "tenant_id": "t", "backfill_id": "b"}', '{"kind": "import", "tenant_id": "t"}',
                 '{"kind": "import", "tenant_id": "t", "backfill_id": "b"}', "[]",
                 '{"kind": "import", "tenant_id": "t", "backfill_id": "b", "path": "p", "offset": "12x"}',
                 '{"kind": "reembed", "tenant_id": "t", "backfill_id": "b", "offset": 7}'):
        try:
            BackfillJob.from_json(body)
        except ValueError:
            continue
        raise AssertionError(f"accepted {body}")


def test_unknown_backfill_is_404(tenant):
    assert tenant.get("/v1/backfills/nope").status_code == 404


def _listed(tenant, **params) -> list[dict]:
    """Every backfill the listing shows, page after page of two."""
    pages, cursor = [], None
    while True:
        page = tenant.get("/v1/backfills", params={**params, "limit": 2, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        pages += page.json()["backfills"]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            return pages


def test_a_lost_backfill_id_is_found_in_the_tenants_listing_newest_first(tenant, other_tenant, ctx):
    """A client that lost a job's id lists the tenant's jobs, or one user's; a job over the whole
    tenant has no user and is listed only without the filter; cursors continue their own listing."""
    others = f"{tenant.user}-other"
    jobs = [backfill.new_job("reembed", tenant.id, user_id=tenant.user),
            backfill.new_job("reextract", tenant.id, user_id=others),
            backfill.new_job("reembed", tenant.id),
            backfill.new_job("reextract", tenant.id, user_id=tenant.user)]
    for job in jobs:
        backfill.run_chunk(ctx, job)
    progress = {job.backfill_id: tenant.get(f"/v1/backfills/{job.backfill_id}").json() for job in jobs}
    newest_first = sorted(progress, key=lambda i: (progress[i]["created_at"], i), reverse=True)

    everything = _listed(tenant)
    assert [b["backfill_id"] for b in everything] == newest_first
    assert everything == [progress[i] for i in newest_first]  # each as its own GET answers it
    assert [b["backfill_id"] for b in _listed(tenant, user_id=tenant.user)] == [
        i for i in newest_first if progress[i]["user_id"] == tenant.user] and len(jobs) > 2
    assert [b["user_id"] for b in _listed(tenant, user_id=others)] == [others]
    assert _listed(tenant, user_id="nobody") == []
    assert _listed(other_tenant) == []

    cursor = tenant.get("/v1/backfills", params={"limit": 1}).json()["next_cursor"]
    refused = tenant.get("/v1/backfills", params={"user_id": tenant.user, "cursor": cursor})
    assert refused.status_code == 422 and "another listing" in refused.json()["error"]["message"]
    assert other_tenant.get("/v1/backfills", params={"cursor": cursor}).status_code == 422
    assert tenant.get("/v1/backfills", params={"user": tenant.user}).status_code == 422


# The tables a search's plans read that a bulk job writes (db/planner_statistics.py).
SEARCHED = ("memories", "memory_stats", "memory_terms", "memory_postings", "memory_links", "messages", "turns")


def _last_analyze(ctx) -> dict:
    """When each searched table was last analysed by a command (autovacuum's passes count apart,
    in last_autoanalyze), and how many rows its statistics assume."""
    rows = ctx.db.connection().execute(
        """SELECT s.relname, s.last_analyze, s.analyze_count, c.reltuples FROM pg_stat_user_tables s
           JOIN pg_class c ON c.oid = s.relid WHERE s.relname = ANY(%s)""", (list(SEARCHED),)).fetchall()
    return {r["relname"]: (r["last_analyze"], r["analyze_count"], r["reltuples"]) for r in rows}


@pytest.mark.parametrize("kind", ["import", "reembed"])
def test_a_finished_backfill_leaves_the_searched_tables_analysed_once(kind, tenant, ctx, runtime, tmp_path, monkeypatch):
    """Right after a bulk job, before autovacuum's first pass, the planner has no statistics for
    what the job wrote and picks plans that cost a search several times its CPU (the record, 2026-12-04
    third stop): the job's last chunk analyses the tables. A redelivered last chunk analyses nothing again."""
    monkeypatch.setattr(backfill, "LINES_PER_CHUNK", 3)
    monkeypatch.setattr(backfill, "MEMORIES_PER_CHUNK", 3)
    path = tmp_path / "analysed.jsonl"
    _write(path, [{"user_id": tenant.user, "session_id": "s", "messages": [
        {"role": "user", "content": f"I moved to city {i}." if i % 2 else f"Notes on topic {i}."}]} for i in range(7)])
    if kind == "reembed":
        ctx.publisher.publish_backfill(backfill.new_job("import", tenant.id, path=str(path)))
        runtime.drain()
    started = ctx.db.connection().execute("SELECT now() AS t").fetchone()["t"]
    before = _last_analyze(ctx)
    job = backfill.new_job(kind, tenant.id, path=str(path) if kind == "import" else None, user_id=tenant.user)

    chunks = [job]
    while True:
        backfill.run_chunk(ctx, chunks[-1], BACKFILL_WORKER.source_of(chunks[-1]))
        following = _sent(runtime)
        if not following:
            break
        chunks.extend(following)
    assert len(chunks) >= 3  # the tables are analysed once the job is done, not after every chunk
    analysed = _last_analyze(ctx)
    assert set(analysed) == set(SEARCHED)
    for table, (last, count, tuples) in analysed.items():
        assert last is not None and last >= started, table
        assert count == before[table][1] + 1, table
        assert tuples >= 0, table  # -1: never analysed
    assert analysed["memories"][2] >= 7

    backfill.run_chunk(ctx, chunks[-1], BACKFILL_WORKER.source_of(chunks[-1]))  # the last chunk, redelivered
    assert _sent(runtime) == []
    assert _last_analyze(ctx) == analysed
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", state["total"], 0)
    assert state["total"] >= 7


class _Counted:
    """An extractor that notes each turn it reads (with an LLM configured, each is a call)."""

    name = "counted"

    def __init__(self, inner):
        self._inner, self.read = inner, []

    def extract(self, messages, history, known=()):
        self.read.append(messages[0]["turn_id"])
        return self._inner.extract(messages, history)


def _record(message_id: str, body: str, queue: str, receive_count: int = 1) -> dict:
    return {"messageId": message_id, "receiptHandle": f"rh-{message_id}", "body": body, "messageAttributes": {},
            "md5OfBody": "", "eventSource": "aws:sqs", "awsRegion": "us-east-1",
            "attributes": {"ApproximateReceiveCount": str(receive_count), "SentTimestamp": "1767225600000"},
            "eventSourceARN": f"arn:aws:sqs:us-east-1:000000000000:{queue}"}


def test_a_chunk_stopped_by_its_lambda_is_never_sent_again_by_the_sweep_and_its_return_reads_nothing_twice(
        tenant, ctx, runtime, tmp_path, monkeypatch):
    """The backfill worker stopped by Lambda's timeout mid-chunk: its turns stored and noted as tried,
    none extracted. Its message comes back after the backfill queue's visibility timeout (3,700 s in
    template.yaml); the sweep, which reads the extraction queue's (750 s), re-sends the turns 1,500 s
    after their try. That is safe, and sooner: the sweep sends no chunk (only the turns, to the
    extraction queue); the extraction workers read each turn once; the returning chunk stores no
    line again, reads none of them again, and finishes the job; every memory is written once."""
    from infra.local.lambda_context import LocalLambdaContext
    from memex.ingest import sweep

    client = runtime.sqs_client()
    extraction = client.create_queue(QueueName="memex-extraction-stopped-chunk",
                                     Attributes={"VisibilityTimeout": "750"})["QueueUrl"]
    backfills = client.create_queue(QueueName="memex-backfill-stopped-chunk",
                                    Attributes={"VisibilityTimeout": "3700"})["QueueUrl"]
    counted = _Counted(ctx.extractor)
    queued = dataclasses.replace(ctx, extractor=counted, publisher=SqsPublisher(dataclasses.replace(
        ctx.settings, extraction_queue_url=extraction, backfill_queue_url=backfills)))
    lines = ["I live in Lisbon.", "I work at Acme.", "I have a dog named Rex."]
    path = tmp_path / "stopped-mid-chunk.jsonl"
    path.write_text("".join(_line(tenant.user, line) + "\n" for line in lines), encoding="utf-8")
    job = backfill.new_job("import", tenant.id, path=str(path))
    monkeypatch.setattr(BACKFILL_WORKER, "get_context", lambda: queued)

    def stopped(*args, **kwargs):  # where the LLM is asked
        raise _Killed

    chunk = _record("chunk", job.to_json(), "memex-backfill-stopped-chunk")
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "_extracted", stopped)
        with pytest.raises(_Killed):
            BACKFILL_WORKER.handler({"Records": [chunk]}, LocalLambdaContext("backfill_worker"))
    conn = ctx.db.connection()
    turns = "SELECT id, status, tried_at IS NOT NULL AS tried FROM turns WHERE tenant_id = %s ORDER BY created_at"
    ids = [r["id"] for r in conn.execute(turns, (tenant.id,)).fetchall()]
    assert [(r["status"], r["tried"]) for r in conn.execute(turns, (tenant.id,)).fetchall()] == [("queued", True)] * 3

    # 1,600 s on: past twice the extraction queue's visibility timeout, within the backfill queue's.
    with ctx.db.transaction() as tx:
        tx.execute("UPDATE turns SET updated_at = now() - interval '1600 s', tried_at = now() - interval '1600 s' "
                   "WHERE tenant_id = %s", (tenant.id,))
    sweep(queued, older_than_seconds=120)
    assert client.get_queue_attributes(QueueUrl=backfills, AttributeNames=["ApproximateNumberOfMessages"])[
        "Attributes"]["ApproximateNumberOfMessages"] == "0"  # no chunk sent again
    sent = []
    while batch := client.receive_message(QueueUrl=extraction, MaxNumberOfMessages=10).get("Messages", []):
        sent += batch
    mine = [m for m in sent if json.loads(m["Body"])["tenant_id"] == tenant.id]
    assert sorted(json.loads(m["Body"])["turn_id"] for m in mine) == sorted(ids)

    extract_worker = function_module("extract_worker")
    monkeypatch.setattr(extract_worker, "get_context", lambda: queued)
    records = [_record(m["MessageId"], m["Body"], "memex-extraction-stopped-chunk") for m in mine]
    assert extract_worker.handler({"Records": records}, LocalLambdaContext("extract_worker")) == {"batchItemFailures": []}
    assert sorted(counted.read) == sorted(ids)

    # 3,700 s after it was received, the chunk's message comes back.
    counted.read.clear()
    chunk["attributes"]["ApproximateReceiveCount"] = "2"
    assert BACKFILL_WORKER.handler({"Records": [chunk]}, LocalLambdaContext("backfill_worker")) == {"batchItemFailures": []}
    assert counted.read == []
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["already_stored"]) == ("done", 3, 3)
    runtime.drain()
    assert [(r["id"], r["status"]) for r in conn.execute(turns, (tenant.id,)).fetchall()] == [(i, "processed") for i in ids]
    rows = conn.execute("""SELECT memory_type, coalesce(key, content) AS what, count(*) AS n FROM memories
                           WHERE tenant_id = %s GROUP BY 1, 2""", (tenant.id,)).fetchall()
    assert sorted(r["what"] for r in rows if r["memory_type"] == "episodic") == sorted(lines)
    assert len([r for r in rows if r["memory_type"] == "semantic"]) >= 2
    assert all(r["n"] == 1 for r in rows), rows
    for url in (extraction, backfills):
        client.delete_queue(QueueUrl=url)



def _contexts(ctx, tenant_id: str, user_id: str, sessions: list[str]) -> list[tuple]:
    return [(r["session_id"], r["content"], r["context"]) for r in ctx.db.connection().execute(
        """SELECT m.session_id, m.content, m.context FROM memories m JOIN messages g
             ON g.tenant_id = m.tenant_id AND g.id = m.source_message_id
           WHERE m.tenant_id = %s AND m.user_id = %s AND m.memory_type = 'episodic' AND m.session_id = ANY(%s)
           ORDER BY m.valid_from, g.position""", (tenant_id, user_id, sessions)).fetchall()]


def test_a_year_imported_in_chunks_indexes_each_line_with_the_context_the_api_gives_it(tenant, ctx, runtime, tmp_path):
    """A year of days (a session each) imported in chunks of 500 turns, then its last days sent
    through POST /v1/turns for another user: every line has the same context on both paths, the
    line said just before it in its session (docs/measurements/year.md: the import once indexed
    lines with the session's oldest line of the ten it read, not its newest)."""
    said = ["I started a new job at Shopify today.", "The weather was lovely this afternoon.",
            "Thanks, that helps a lot!", "What should I cook tonight?", "It rained all day, stayed in."]
    replies = ["Noted!", "Happy to help with that.", "Here's an idea: keep it simple tonight."]
    turns = [{"user_id": "imported", "session_id": f"day-{day:03d}",
              "timestamp": f"{2024 + day // 336}-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T08:{10 * i:02d}:00Z",
              "messages": [{"role": "user", "content": said[(day + i) % len(said)]},
                           {"role": "assistant", "content": replies[(day + 2 * i) % len(replies)]}]}
             for day in range(400) for i in range(5)]
    path = tmp_path / "year.jsonl"
    _write(path, turns)
    job = backfill.new_job("import", tenant.id, path=str(path))
    ctx.publisher.publish_backfill(job)
    runtime.drain(timeout=600)
    last_days = turns[-15:]
    for turn in last_days:
        assert tenant.post("/v1/turns?wait=true", {**turn, "user_id": "sent"}).status_code in (200, 201)

    sessions = sorted({turn["session_id"] for turn in last_days})
    imported, sent = _contexts(ctx, tenant.id, "imported", sessions), _contexts(ctx, tenant.id, "sent", sessions)
    assert len(imported) == 30 and sum(context is not None for _, _, context in sent) >= 10
    assert imported == sent
