"""Whether a user is being erased: the mark (user_erasures, migration 0034) a user's erasure sets in its
first transaction and clears in its last (db/erasure.py), as SQL. A read of a request folds it into a
statement it runs anyway: a search's first round trip and a turn's tenant check read MARKED beside what
they read; a memory's or a turn's read by id reads `marked(alias)` of its row (a missing row is a 404
first); a listing of one user's rows reads them through `with_mark`, which answers the mark whether or
not the user has rows. A worker's turns and a re-embedding's rows are read or written only where their
user is unmarked, by a statement run after the user's lock; a write of a request and an import's chunk
read it in the round trip that takes the lock (locks_and_marks: migration 0041's function reads it in a
statement of its own once the locks are held). A request refuses such a
user (409); a worker, an import, a consolidation or a re-embedding skips their rows as it skips rows
erased meanwhile: what it read before the mark is not written, and the message that brought it is done,
not retried."""

from __future__ import annotations

from typing import Any

import psycopg

from memex.errors import UserBeingErased

# Whether the user named by the parameters %(t)s (tenant) and %(u)s (user) is being erased.
MARKED = "EXISTS (SELECT 1 FROM user_erasures WHERE tenant_id = %(t)s AND user_id = %(u)s)"


def marked(alias: str) -> str:
    """A condition on the rows `alias` (with tenant_id and user_id): their user is being erased."""
    return (f"EXISTS (SELECT 1 FROM user_erasures e WHERE e.tenant_id = {alias}.tenant_id"
            f" AND e.user_id = {alias}.user_id)")


def unmarked(alias: str) -> str:
    """A condition on the rows `alias` (with tenant_id and user_id): their user is not being erased."""
    return f"NOT {marked(alias)}"


def with_mark(sql: str, order: str) -> str:
    """`sql` (a statement of the rows of the user the parameters %(t)s and %(u)s name) with the mark read
    in the same statement, in `order` (of its columns' names): its rows, each with the mark, or when there
    are none (or the user is being erased, whose rows are not read) one row of NULLs but the mark, so that
    a user with no rows answers it too. `rows` reads them."""
    return (f"SELECT r.*, mark.erasing FROM (SELECT {MARKED} AS erasing) mark"
            f" LEFT JOIN LATERAL (SELECT true AS is_row, s.* FROM ({sql}) s) r ON NOT mark.erasing"
            f" ORDER BY {order}")


def rows(read: list[dict[str, Any]], user_id: str) -> list[dict[str, Any]]:
    """The rows of a statement of `with_mark`, as `sql` read them; UserBeingErased when its mark says so."""
    refuse(read[0], user_id)
    return [{k: v for k, v in r.items() if k not in ("is_row", "erasing")} for r in read if r["is_row"]]


def refuse(row: dict[str, Any], user_id: str) -> None:
    """UserBeingErased when a row read with `MARKED AS erasing` says the user is being erased."""
    if row["erasing"]:
        raise UserBeingErased.of(user_id)


def marked_users(conn: psycopg.Connection, tenant_id: str, users: list[str]) -> set[str]:
    """Which of the tenant's `users` are being erased."""
    return {row["user_id"] for row in conn.execute(
        "SELECT user_id FROM user_erasures WHERE tenant_id = %s AND user_id = ANY(%s)", (tenant_id, users)).fetchall()}


def lock_unless_marked(conn: psycopg.Connection, tenant_id: str, user_id: str) -> None:
    """The user's lock (locks.lock_user), then UserBeingErased when their erasure has begun and not
    finished: part of what they had may be gone already, so nothing is written for them. In one statement
    (locks_and_marks)."""
    if locks_and_marks(conn, tenant_id, [user_id]):
        raise UserBeingErased.of(user_id)


def locks_and_marks(conn: psycopg.Connection, tenant_id: str, users: list[str]) -> set[str]:
    """The users' locks (as locks.lock_user takes them, in sorted order: no two callers wait on each other),
    then which of them are being erased, in one statement (migration 0041's function, which reads the mark
    by a statement of its own once the locks are held: a statement that took a lock and read the mark
    itself would, having waited for an erasure's first transaction to commit, read the mark as it was
    before; tests/test_erasure.py races them). One round trip, where the lock and the mark took two; a
    pipeline of the two statements took one too, but cost more than the round trip it saved on loopback
    (docs/measurements/erasure.md)."""
    return set(conn.execute("SELECT lock_users_and_read_marks(%s, %s) AS marked",
                            (tenant_id, sorted(set(users)))).fetchone()["marked"])
