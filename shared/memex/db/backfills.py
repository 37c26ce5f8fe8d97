"""Rows of bulk jobs: their progress counters and the position they resume from."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import Any, NamedTuple

import psycopg

from memex.db import erasing
from memex.db import turns as turn_rows
from memex.errors import IdempotencyConflict
from memex.models import ImportedTurn


def create(conn: psycopg.Connection, tenant_id: str, backfill_id: str, kind: str, source: str | None,
           user_id: str | None, total: int) -> None:
    """The job's row; none for a job run for a user being erased (db/erasing.py)."""
    conn.execute(
        f"""INSERT INTO backfills (tenant_id, id, kind, source, user_id, total, position)
            SELECT %(t)s, %(id)s, %(kind)s, %(source)s, %(u)s, %(total)s, '' WHERE NOT {erasing.MARKED}
            ON CONFLICT DO NOTHING""",
        {"t": tenant_id, "id": backfill_id, "kind": kind, "source": source, "u": user_id, "total": total},
    )


def get(conn: psycopg.Connection, tenant_id: str, backfill_id: str) -> dict[str, Any] | None:
    """The job's row, and whether the user it is scoped to is being erased (`erasing`, db/erasing.py)."""
    return conn.execute(f"SELECT b.*, {erasing.marked('b')} AS erasing FROM backfills b WHERE b.tenant_id = %s AND b.id = %s",
                        (tenant_id, backfill_id)).fetchone()


def of_tenant(conn: psycopg.Connection, tenant_id: str, user_id: str | None, limit: int,
              after: tuple[datetime, str] | None) -> tuple[list[dict[str, Any]], tuple[datetime, str] | None]:
    """The tenant's backfills (only `user_id`'s when given), the newest first, keyset-paginated after
    (created_at, id), with the key of the page's last row when more follow; UserBeingErased, read in the
    same statement, when `user_id` is being erased (db/erasing.py). No index of its own: a tenant's
    bulk jobs are few (each one an operator's import or re-run), and the primary key's tenant prefix
    reads them all."""
    clauses, params = ["tenant_id = %(t)s"], {"t": tenant_id, "u": user_id, "limit": limit + 1}
    if user_id is not None:
        clauses.append("user_id = %(u)s")
    if after is not None:
        clauses.append("(created_at, id) < (%(at)s, %(id)s)")
        params["at"], params["id"] = after
    page = ("SELECT * FROM backfills WHERE " + " AND ".join(clauses)
            + " ORDER BY created_at DESC, id DESC LIMIT %(limit)s")
    rows = erasing.rows(conn.execute(erasing.with_mark(page, "created_at DESC, id DESC"), params).fetchall(),
                        user_id or "")
    last = rows[limit - 1] if len(rows) > limit else None
    return rows[:limit], (last["created_at"], last["id"]) if last else None


def hold_chunk(conn: psycopg.Connection, tenant_id: str, backfill_id: str, offset: str) -> bool:
    """Take the chunk's lock for this session, or say that another delivery holds it. A session
    lock, not a lease: it outlives the chunk's transactions and dies with a crashed worker's
    connection, so no clock decides when a chunk counts as abandoned."""
    return conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS held",
                        (_chunk_key(tenant_id, backfill_id, offset),)).fetchone()["held"]


def release_chunk(conn: psycopg.Connection, tenant_id: str, backfill_id: str, offset: str) -> None:
    if not (conn.closed or conn.broken):  # a lost connection took its locks with it
        conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))",
                     (_chunk_key(tenant_id, backfill_id, offset),))


def _chunk_key(tenant_id: str, backfill_id: str, offset: str) -> str:
    return json.dumps(["backfill-chunk", tenant_id, backfill_id, offset])


def advance(conn: psycopg.Connection, tenant_id: str, backfill_id: str, expected: str, position: str,
            done: int, failed: int, finished: bool, already_stored: int = 0, lines: int = 0,
            failures: list[dict[str, Any]] = (), failures_kept: int = 0, erased: int = 0) -> bool:
    """Count a chunk once: only the delivery that finds the position where the chunk began moves
    it on, so a redelivered chunk adds nothing to the counters, nor its `failures` to the job's
    (of which the job keeps the first `failures_kept`). Until its message is marked sent, the next
    chunk is owed by the chunk that advanced."""
    row = conn.execute(
        """UPDATE backfills SET position = %s, advanced_from = %s, next_sent = %s, done = done + %s,
                  failed = failed + %s, already_stored = already_stored + %s, erased = erased + %s,
                  updated_at = now(), lines_read = lines_read + %s,
                  failures = failures || coalesce(
                      (SELECT jsonb_agg(f ORDER BY n) FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS t(f, n)
                       WHERE n <= %s - jsonb_array_length(failures)), '[]'),
                  status = CASE WHEN %s THEN 'done' ELSE status END
           WHERE tenant_id = %s AND id = %s AND position = %s AND status = 'running' RETURNING id""",
        (position, expected, finished, done, failed, already_stored, erased, lines, json.dumps(list(failures)),
         failures_kept, finished, tenant_id, backfill_id, expected),
    ).fetchone()
    return row is not None


def mark_sent(conn: psycopg.Connection, tenant_id: str, backfill_id: str, position: str) -> None:
    """The message for the chunk at `position` is on the queue (it was sent, or it arrived)."""
    conn.execute(
        "UPDATE backfills SET next_sent = true WHERE tenant_id = %s AND id = %s AND position = %s AND NOT next_sent",
        (tenant_id, backfill_id, position),
    )


class Stored(NamedTuple):
    """What insert_turns did with an import's turns."""
    turn_ids: list[str]  # the turns stored, or found already stored
    refused: list[tuple[int, str]]  # each refused turn's index with why (never what it says)
    already_stored: int  # of `turn_ids`, those stored before
    erased: list[int]  # the indexes of the turns naming one their user erased: not stored


def insert_turns(conn: psycopg.Connection, tenant_id: str, turns: list[ImportedTurn]) -> Stored:
    """Store the turns, all in one savepoint and pipelined; if Postgres refuses one of them, each
    in a savepoint of its own instead, so that the one that cannot be stored is skipped without
    undoing the others. A turn naming (`turn_id`) a turn its user has is that one, found stored
    (already_stored: an earlier import of the same lines, or an export of the same user's turns); one naming
    a turn no one in the tenant has is stored under that id (a restore of a lost turn: the next export names
    it as the last did; as one naming another user's when another user's import stored that id meanwhile); one
    naming another user's, under an id of its own; one
    naming a turn an erasure took from its user, by its id, an id it was imported from or its idempotency key
    (a line read again carries the key it was stored with), is not stored (turns.erased). A turn
    whose idempotency key names another turn is refused. The turns' users are locked first, in order,
    for the whole transaction: each turn holds its session's row (migration 0025), and two imports
    writing one user's sessions in other orders would otherwise deadlock. A turn of a user being
    erased is refused (db/erasing.py), read under their lock, in the locks' round trip: POST /v1/turns
    answers 409 for it; the erased turns are read under it too, after the session's erasure commits."""
    being_erased = erasing.locks_and_marks(conn, tenant_id, [turn.user_id for turn in turns])
    refused = [(i, _BEING_ERASED) for i, turn in enumerate(turns) if turn.user_id in being_erased]
    places = [i for i, turn in enumerate(turns) if turn.user_id not in being_erased]
    # A line naming another user's turn (an export given to this user) is stored under an id of its own, that one
    # being theirs, keeping what an erasure keeps of it (a digest salted with this user, no id of theirs): this
    # user's erasure of it then holds back the line again. Not the digests the line carries: salted with the user
    # whose turn it was, this user's erasure would keep them, and hold back that user's restore of their own turn.
    # Its id derives from that digest (_moved), read with the ids the lines name: a chunk delivered again finds it.
    named = [i for i in places if turns[i].turn_id]
    digest = dict(zip(named, turn_rows.digests(conn, tenant_id, [(turns[i].user_id, turns[i].turn_id)
                                                                 for i in named]) if named else []))
    owner = turn_rows.stored_as(conn, tenant_id, sorted({turns[i].turn_id for i in named}
                                                        | {_moved_id(d) for d in digest.values()}))
    found_erased = turn_rows.erased(conn, tenant_id, [(turns[i].user_id, turns[i].turn_id, turns[i].idempotency_key,
                                                       turns[i].imported_from_digests) for i in places])
    erased = [i for n, i in enumerate(places) if n in found_erased]
    places = [i for n, i in enumerate(places) if n not in found_erased]
    # A line naming a turn no one has (lost, or another tenant's) is stored under its id, as its export named it:
    # the first of the chunk's lines naming it, which later ones find as one stored before. So is a line naming
    # another user's turn, under the id derived for it.
    # A line stored before under its derived id is that turn, whoever has the one it names now: its user may have
    # erased it since, and the line must not claim that id.
    was_moved = {i for i in places if turns[i].turn_id and owner.get(_moved_id(digest[i])) == turns[i].user_id}
    claimed = {}
    for i in places:
        if i not in was_moved and turns[i].turn_id and turns[i].turn_id not in owner:
            owner[turns[i].turn_id], claimed[turns[i].turn_id] = turns[i].user_id, i
    moved = {i for i in places if i in was_moved or (turns[i].turn_id and owner[turns[i].turn_id] != turns[i].user_id)}
    stored_id = {i: _moved_id(digest[i]) if i in moved else turns[i].turn_id for i in places if turns[i].turn_id}
    for i in sorted(moved):
        if stored_id[i] not in owner:
            owner[stored_id[i]], claimed[stored_id[i]] = turns[i].user_id, i
    mine = {i for i, turn_id in stored_id.items() if owner[turn_id] == turns[i].user_id and claimed.get(turn_id) != i}
    found = [(stored_id[i], False) for i in places if i in mine]
    places = [i for i in places if i not in mine]
    dated = [(turns[i] if i not in moved else _moved(turns[i], digest[i]),
              turns[i].timestamp or datetime.now(timezone.utc)) for i in places]
    try:
        with conn.transaction():
            stored = turn_rows.insert_turns(conn, tenant_id, dated)
        refused += [(places[i], _ANOTHER_TURN) for i, s in enumerate(stored) if s is None]
    except _REFUSED:
        stored = []
        for i, (turn, occurred_at) in zip(places, dated):
            try:
                stored.append(_insert_one(conn, tenant_id, turn, occurred_at))
            except IdempotencyConflict:
                refused.append((i, _ANOTHER_TURN))
            except _REFUSED as exc:
                # The error's class, not its message: Postgres's message may quote the value.
                refused.append((i, f"Postgres refused it: {type(exc).__name__}"))
    stored = found + [s for s in stored if s is not None]
    return Stored([turn_id for turn_id, _ in stored], refused, sum(not created for _, created in stored), erased)


def _moved(turn: ImportedTurn, moved_from: str) -> ImportedTurn:
    """A line naming another user's turn, as it is stored: under an id of its own (_moved_id), keeping `moved_from`,
    the digest of the turn it names (turn_rows.digests), and nothing it carries (insert_turns)."""
    return turn.model_copy(update={"turn_id": _moved_id(moved_from), "imported_from_digests": [moved_from]})


def _moved_id(moved_from: str) -> str:
    """The id a line naming another user's turn is stored under: the same for the same line of the same user's, as
    `moved_from` is salted with the tenant and that user, so that the line delivered again finds it stored."""
    return str(uuid.uuid5(_MOVED, moved_from))


_MOVED = uuid.UUID("6d1f0a52-3c8e-4f7b-9a41-2e5b8c7d9f03")


def _insert_one(conn: psycopg.Connection, tenant_id: str, turn: ImportedTurn,
                occurred_at: datetime) -> tuple[str, bool]:
    """insert_turn in a savepoint of its own. A line claiming an id no turn had when its chunk read them, which
    another user's import stored meanwhile (the primary key refuses it once that import commits), names another
    user's turn: it is stored as such a line is (_moved), not refused. (A line of the same user's finds that turn by
    its idempotency key.)"""
    try:
        with conn.transaction():
            return turn_rows.insert_turn(conn, tenant_id, turn, occurred_at)
    except psycopg.errors.UniqueViolation as exc:
        if turn.turn_id is None or exc.diag.constraint_name != "turns_pkey":
            raise
    [moved_from] = turn_rows.digests(conn, tenant_id, [(turn.user_id, turn.turn_id)])
    with conn.transaction():
        return turn_rows.insert_turn(conn, tenant_id, _moved(turn, moved_from), occurred_at)


_ANOTHER_TURN = "its idempotency_key names another turn"
_BEING_ERASED = "its user is being erased"
_REFUSED = (psycopg.DataError, psycopg.IntegrityError, psycopg.errors.ProgramLimitExceeded)


def fail(conn: psycopg.Connection, tenant_id: str, backfill_id: str, error: str) -> None:
    conn.execute(
        "UPDATE backfills SET status = 'failed', error = %s, updated_at = now() WHERE tenant_id = %s AND id = %s",
        (error, tenant_id, backfill_id),
    )


def reopen(conn: psycopg.Connection, tenant_id: str, backfill_id: str) -> bool:
    """A job resumed: running again from its position, its progress counted as it stood. Its
    `updated_at` starts the wait for a chunk to finish again. Not a job of a user being erased
    (db/erasing.py): False then, as when the job is done or gone."""
    return conn.execute(
        f"""UPDATE backfills b SET status = 'running', error = NULL, next_sent = true, updated_at = now()
            WHERE b.tenant_id = %s AND b.id = %s AND b.status <> 'done' AND {erasing.unmarked('b')}""",
        (tenant_id, backfill_id),
    ).rowcount == 1


def memory_ids_after(conn: psycopg.Connection, tenant_id: str, user_id: str | None, after: str,
                     limit: int) -> list[dict[str, Any]]:
    return conn.execute(
        """SELECT id, content, context, memory_type, subject FROM memories
           WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)
             AND id > %s ORDER BY id LIMIT %s""",
        (tenant_id, user_id, user_id, after, limit),
    ).fetchall()


def turn_ids_after(conn: psycopg.Connection, tenant_id: str, user_id: str | None, after: str,
                   limit: int) -> list[str]:
    rows = conn.execute(
        """SELECT id FROM turns WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)
             AND id > %s ORDER BY id LIMIT %s""",
        (tenant_id, user_id, user_id, after, limit),
    ).fetchall()
    return [r["id"] for r in rows]


def count_scope(conn: psycopg.Connection, table: str, tenant_id: str, user_id: str | None) -> int:
    assert table in ("memories", "turns")
    return conn.execute(
        f"SELECT count(*) AS n FROM {table} WHERE tenant_id = %s AND (%s::text IS NULL OR user_id = %s)",
        (tenant_id, user_id, user_id),
    ).fetchone()["n"]
