"""What each piece of a write's bookkeeping costs: a turn's insert transaction (as `POST /v1/turns`
stores it: `ensure_tenant` and `insert_turn`, two messages) and a memory's (as `memories.add` writes
it: the user's lock and `memories.insert`), with the schema as shipped and with one piece taken off
or put back, in alternating blocks on one database:

- the sessions' rows (migration 0025): its triggers on turns and messages disabled;
- turns_user_time (0024's walk by time, dropped by 0025): built again, as main kept it;
- turns_user_session_time (0024): turns_user, the index it replaced, in its place;
- memory_postings_by_tf (0023): dropped.

The tables hold `users` users' turns and memories first (20 of each a user), so that the indexes
are not empty. p50 and p95 a transaction, milliseconds; the cost of a piece is the difference from
"as shipped" in the same run."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone
from typing import Any

import numpy as np

from bench.locomo import percentile

TENANT = "bench-indexes"
BLOCK = 20

# (name, the table written, SQL that changes the schema, SQL that puts it back)
VARIANTS: list[tuple[str, str, list[str], list[str]]] = [
    ("turn: as shipped", "turns", [], []),
    ("turn: without the sessions' rows (0025)", "turns",
     ["ALTER TABLE turns DISABLE TRIGGER sessions_turns_inserted",
      "ALTER TABLE messages DISABLE TRIGGER sessions_messages_inserted"],
     ["ALTER TABLE turns ENABLE TRIGGER sessions_turns_inserted",
      "ALTER TABLE messages ENABLE TRIGGER sessions_messages_inserted"]),
    ("turn: with turns_user_time (0024, dropped by 0025)", "turns",
     ["CREATE INDEX turns_user_time ON turns (tenant_id, user_id, occurred_at, session_id)"],
     ["DROP INDEX turns_user_time"]),
    ("turn: turns_user in place of turns_user_session_time (before 0024)", "turns",
     ["DROP INDEX turns_user_session_time", "CREATE INDEX turns_user ON turns (tenant_id, user_id, session_id)"],
     ["DROP INDEX turns_user",
      "CREATE INDEX turns_user_session_time ON turns (tenant_id, user_id, session_id, occurred_at, id)"]),
    ("memory: as shipped", "memories", [], []),
    ("memory: without memory_postings_by_tf (0023)", "memories", ["DROP INDEX memory_postings_by_tf"],
     ["CREATE INDEX memory_postings_by_tf ON memory_postings (tenant_id, user_id, lexeme, "
      "(occurrences + 0.5::float8 * context_occurrences) DESC, memory_id)"]),
]


def run(count: int, users: int = 1000) -> dict[str, Any]:
    """`count` transactions of each variant, on the started local runtime of this process."""
    from memex.db import locks
    from memex.db import memories as memory_rows
    from memex.db import tenants as tenant_rows
    from memex.db import turns as turn_rows
    from memex_edge.context import get_context

    from bench.writes.corpus import synthetic_lines

    ctx = get_context()
    dim = ctx.settings.embedding_dim
    rng = np.random.default_rng(7)
    lines = [line["messages"][0]["content"] for line in synthetic_lines(4000, "bench-indexes", seed=3)]
    conn = ctx.db.connection()
    with ctx.db.transaction():
        tenant_rows.ensure_tenant(conn, TENANT)
        for start in range(0, users, 100):
            turn_rows.insert_turns(conn, TENANT, [(_turn(f"u{u}", f"s{u}-{i % 4}", lines[(u + i) % len(lines)]),
                                                   datetime.now(timezone.utc))
                                                  for u in range(start, min(start + 100, users)) for i in range(20)])
            memory_rows.insert_many(conn, TENANT, [_memory(f"u{u}", lines[(u * 7 + i) % len(lines)], rng, dim)
                                                   for u in range(start, min(start + 100, users)) for i in range(20)])
    conn.execute("ANALYZE turns, messages, memories, memory_postings")
    timed: dict[str, list[float]] = {name: [] for name, *_ in VARIANTS}
    i = 0
    for _ in range(-(-count // BLOCK)):
        for name, table, change, restore in VARIANTS:
            for sql in change:
                conn.execute(sql)
            for _ in range(BLOCK):
                i += 1
                user = f"u{i % users}"
                started = time.perf_counter()
                with ctx.db.transaction():
                    if table == "turns":
                        tenant_rows.ensure_tenant(conn, TENANT)
                        turn_rows.insert_turn(conn, TENANT, _turn(user, f"s{i % users}-{i % 4}", lines[i % len(lines)],
                                                                  "Noted."), datetime.now(timezone.utc))
                    else:
                        locks.lock_user(conn, TENANT, user)
                        memory_rows.insert(conn, TENANT, _memory(user, lines[i % len(lines)], rng, dim))
                timed[name].append(time.perf_counter() - started)
            for sql in restore:
                conn.execute(sql)
    summary = {name: {"p50_ms": 1000 * percentile(values, 50), "p95_ms": 1000 * percentile(values, 95),
                      "transactions": len(values)} for name, values in timed.items()}
    return {"variants": summary, "users": users}


def _turn(user: str, session: str, *contents: str):
    from memex.models import TurnIn

    return TurnIn.model_validate({"user_id": user, "session_id": session,
                                  "messages": [{"role": "user" if i == 0 else "assistant", "content": c}
                                               for i, c in enumerate(contents)]})


def _memory(user: str, content: str, rng: np.random.Generator, dim: int) -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "user_id": user, "memory_type": "episodic", "type": "message",
            "content": content, "embedding": rng.standard_normal(dim).astype(np.float32),
            "valid_from": datetime.now(timezone.utc)}
