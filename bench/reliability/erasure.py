"""Erasure audit: erase a memory, a session and a user (with an imported history), then read
every table the catalog lists (every row cast to text) for what was erased, its content markers
and its ids; then redeliver the erased turns' jobs, re-extract the tenant, let the queues run
dry and read again: nothing may come back."""

from __future__ import annotations

import json
import time

from psycopg import sql

from bench.reliability.api import Api, accepted
from bench.reliability.report import Result
from bench.reliability.stack import Stack, unique, wait_for
from infra.local.runtime import QUEUES
from memex import backfill
from memex.jobs import ExtractionJob

TENANT = "erasure"
# The raw conversation: erasing one memory leaves the message it came from (erasing the session
# or the user removes it).
CONVERSATION = {"messages"}


def run(stack: Stack, quick: bool, deadline: float) -> Result:
    result = Result("erasure")
    stack.start_runtime({"MEMEX_SWEEP_AFTER_SECONDS": "5"})
    api = Api(stack.url, stack.create_key(TENANT))
    erased: list[tuple[str, str, set[str]]] = []  # (what, marker or id, tables exempt)
    turns: list[str] = []

    # A memory: the user's line, whose text the assistant's reply also holds as its context.
    user = unique("eraseuser")
    marker_m = unique("zm")
    turn = accepted(api.turn(user, unique("sess"), f"My locker code is {marker_m}.", wait=True))
    reply = api.http.post("/v1/turns?wait=true", json={"user_id": user, "session_id": "s-reply", "messages": [
        {"role": "user", "content": f"Remember my badge number {marker_m}."},
        {"role": "assistant", "content": "Noted, I will keep that in mind."}]})
    turns += [t for t in (turn, accepted(reply)) if t]
    refused = []
    for memory in api.memories(user):
        if marker_m in memory["content"]:
            erasing = api.http.delete(f"/v1/memories/{memory['id']}")
            if erasing.status_code not in (200, 204):
                refused.append(f"{erasing.status_code} {erasing.text[:200]}")
            erased.append(("memory id", memory["id"], set()))
    result.check("memories erased", not refused and any(what == "memory id" for what, _, _ in erased),
                 "; ".join(refused) or "no memory held the marker")
    erased.append(("memory content", marker_m, CONVERSATION))

    # A summary: three lines that repeat each other, consolidated into one summary; erasing the
    # line with the marker takes the summary with it (its text held the marker).
    summed, marker_c = unique("consuser"), unique("zc")
    for line in ("We watched the harbour boats drift past at sunset again",
                 "We watched the harbour boats drift past at sunset again today",
                 f"We watched the harbour boats drift past at sunset again {marker_c}"):
        turns.append(accepted(api.turn(summed, unique("sess"), line, wait=True, timestamp="2025-01-10T10:00:00Z")))
    merged = stack.consolidate(TENANT, summed)
    summary = [m for m in api.memories(summed, include_inactive=False) if m["type"] == "summary"]
    result.check("consolidation summarised the three lines", merged["merged"] == 3 and len(summary) == 1
                 and marker_c in summary[0]["content"], f"{merged}, summaries {summary}")
    source = next((m for m in api.memories(summed) if m["type"] == "message" and marker_c in m["content"]), None)
    erasing = api.http.delete(f"/v1/memories/{source['id']}") if source else None
    result.check("a summarised line erased", erasing is not None and erasing.status_code in (200, 204))
    erased += [("summarised content", marker_c, set())] + [("summary id", m["id"], set()) for m in summary]

    # A session: the middle of a chain Lisbon -> Porto -> Berlin, and a turn still queued.
    middle, marker_s = unique("sess"), unique("zs")
    for session, city, at in ((unique("sess"), "Lisbon", "2026-01-10T09:00:00Z"),
                              (middle, f"Porto. My gate code is {marker_s}", "2026-02-10T09:00:00Z"),
                              (unique("sess"), "Berlin", "2026-03-10T09:00:00Z")):
        turns.append(accepted(api.turn(user, session, f"I live in {city}.", wait=True, timestamp=at)))
    turns.append(accepted(api.turn(user, middle, f"My gate code is still {marker_s}.")))
    erasing = api.http.delete(f"/v1/sessions/{middle}", params={"user_id": user})
    result.check("session erased", erasing.status_code in (200, 204), f"{erasing.status_code} {erasing.text[:200]}")
    erased += [("session content", marker_s, set()), ("session id", middle, set())]
    cities = sorted(m["value"] for m in api.memories(user, include_inactive=False) if m.get("key") == "city")
    result.check("erasing a chain's middle resurrects nothing (Berlin alone is current)", cities == ["Berlin"],
                 f"active cities {cities}")

    # A user: turns processed and one still queued, a memory written directly.
    gone, marker_u = unique("goneuser"), unique("zu")
    turns.append(accepted(api.turn(gone, unique("sess"), f"I work at Figma. My pin is {marker_u}.", wait=True)))
    api.http.post("/v1/memories", json={"user_id": gone, "content": f"Prefers tea, pin {marker_u}"})
    turns.append(accepted(api.turn(gone, unique("sess"), f"My pin is {marker_u}, remember it.")))
    # ... and an import of the user's history, one line of it broken.
    history = stack.home / f"{gone}.jsonl"
    history.write_text(json.dumps({"user_id": gone, "session_id": unique("sess"), "timestamp": "2025-06-01T10:00:00Z",
                                   "messages": [{"role": "user", "content": f"I grew up in Oslo, pin {marker_u}."}]})
                       + f'\n{{"user_id": "{gone}", "messages": [{{"content": "pin {marker_u}\n')
    _enqueue(stack, "backfill_worker", backfill.new_job("import", TENANT, path=str(history), user_id=gone).to_json())
    result.check("the import ran", wait_for(lambda: stack.queued_messages() == 0, timeout=60))
    erasing = api.http.delete(f"/v1/users/{gone}")
    result.check("user erased", erasing.status_code in (200, 204), f"{erasing.status_code} {erasing.text[:200]}")
    erased += [("user content", marker_u, set()), ("user id", gone, set())]

    wait_for(lambda: stack.queued_messages() == 0, timeout=60)
    left = _audit(stack, erased)
    result.check("after erasure: no row holds what was erased", not left, _show(left))

    # Redelivery: every erased turn's extraction job arrives again, as SQS may deliver it, and the
    # tenant is re-extracted (what follows an extractor change).
    for turn_id in filter(None, turns):
        _enqueue(stack, "extract_worker", ExtractionJob(TENANT, turn_id).to_json())
    _enqueue(stack, "backfill_worker", backfill.new_job("reextract", TENANT).to_json())
    drained = wait_for(lambda: stack.queued_messages() == 0, timeout=60)
    time.sleep(1)
    back = _audit(stack, erased)
    result.check("the queues ran dry after redelivery", drained)
    result.check("after redelivery: nothing came back", not back, _show(back))
    result.figures.update({"tables audited": len(_tables(stack)), "rows left": sum(back.values()) + sum(left.values())})
    api.close()
    stack.stop_runtime()
    return result


def _enqueue(stack: Stack, worker: str, body: str) -> None:
    name = next(name for name, (_, consumer, _) in QUEUES.items() if consumer == worker)
    stack.sqs().send_message(QueueUrl=stack.queue_url(name), MessageBody=body)


def _tables(stack: Stack) -> list[tuple[str, str]]:
    return stack.sql("""SELECT table_schema, table_name FROM information_schema.tables
                        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
                        ORDER BY 1, 2""")


def _audit(stack: Stack, erased: list[tuple[str, str, set[str]]]) -> dict[str, int]:
    """Rows holding each erased thing, per table: {"what in schema.table": rows}."""
    found = {}
    for schema, table in _tables(stack):
        for what, needle, exempt in erased:
            if table in exempt:
                continue
            query = sql.SQL("SELECT count(*) FROM {}.{} AS r WHERE r::text ILIKE %s").format(
                sql.Identifier(schema), sql.Identifier(table))
            [(rows,)] = stack.sql(query, (f"%{needle}%",))
            if rows:
                found[f"{what} in {schema}.{table}"] = rows
    return found


def _show(found: dict[str, int]) -> str:
    return ", ".join(f"{rows} rows: {where}" for where, rows in found.items())
