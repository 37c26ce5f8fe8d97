"""The per-user lock: one user's memory changes one at a time, whatever path changes it.

The FIFO supersession queue serialises the workers, but inline turns, erasure and bulk jobs
decide about the same memories; every transaction that does takes this lock first. Plain inserts
take it too: they update the user's BM25 statistics rows (migration 0005), and a transaction
writing several users' memories takes their locks in sorted order, so none waits on another. An
import's chunk of turns takes its users' locks as well: each turn holds its session's row (migration
0025) to commit, and two chunks writing one user's sessions in other orders would deadlock. It is
transaction-scoped (released at commit or rollback, never leaked by a crashed caller) and is
never held across an LLM call: decide first, then lock, re-check and write.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable

import psycopg


def lock_user(conn: psycopg.Connection, tenant_id: str, user_id: str) -> None:
    # Two 32-bit hashes: a collision only serialises two users that could have run in parallel. Migration
    # 0041's lock_users_and_read_marks takes the same lock (erasing.locks_and_marks): one key for both.
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))", (tenant_id, user_id))


def try_lock_user(conn: psycopg.Connection, tenant_id: str, user_id: str) -> bool:
    """lock_user if no other transaction holds it, else False at once: for work that can wait for a
    later run rather than for the holder (the sweep's job starts behind a long import chunk)."""
    return conn.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s), hashtext(%s)) AS locked",
                        (tenant_id, user_id)).fetchone()["locked"]


def each_user(conn: psycopg.Connection, users: Iterable[tuple[str, str]], until: float | None,
              work: Callable[[str, str], None]) -> bool:
    """`work(tenant_id, user_id)` for each of `users`, each in a transaction of its own under the user's lock
    (`conn` in autocommit: a migration's pass over its rows, user by user). With `until` (a time.monotonic()
    deadline), no user's transaction begins after it (the first always does): False then, with what is done
    committed."""
    for begun, (tenant_id, user_id) in enumerate(users):
        if begun and until is not None and time.monotonic() >= until:
            return False
        with conn.transaction():
            lock_user(conn, tenant_id, user_id)
            work(tenant_id, user_id)
    return True
