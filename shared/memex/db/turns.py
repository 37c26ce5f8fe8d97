"""Rows of turns and messages: the raw conversation as the client sent it."""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime
from typing import Any, Collection

import psycopg
from psycopg.types.json import Jsonb

from memex.db import erasing
from memex.errors import IdempotencyConflict, TurnErased
from memex.models import ImportedTurn, TurnIn


# created_at by the row's own clock, not its transaction's: the turns of one batch (an import's chunk)
# are then in the order they were given, which orders turns said at the same time (pipeline._said)
_INSERT_TURN = """INSERT INTO turns (tenant_id, id, user_id, session_id, agent_id, occurred_at, metadata,
                                    idempotency_key, payload_hash, utc_offset, imported_from_digests, created_at)
                 VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, clock_timestamp())
                 ON CONFLICT (tenant_id, user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                 RETURNING id"""
_MESSAGE_COLUMNS = "tenant_id, id, turn_id, position, role, name, content, metadata, subject"
# Messages per statement: one statement for a turn's messages, or an import chunk's thousand, so that
# the sessions' trigger (migration 0025) counts them once, not once a message; and under Postgres's
# 65,535 parameters in one statement.
_MESSAGES_PER_INSERT = 1000


def insert_turn(
    conn: psycopg.Connection, tenant_id: str, turn: TurnIn, occurred_at: datetime
) -> tuple[str, bool]:
    """Store a turn and its messages. Returns (turn_id, created). An idempotency key is the
    user's: repeated with the same payload it returns the first turn's id and stores nothing;
    repeated with another payload it raises IdempotencyConflict; naming a turn the user erased (erased),
    it raises TurnErased, and the caller's transaction, rolled back, keeps nothing of it."""
    turn_id, imported_from = _id_and_origins(turn)
    digest = _payload_hash(turn)
    # The erased keys are read by a statement of their own after the insert, in its round trip: a turn sent
    # again while its session's erasure takes it waits on the row the erasure deletes, then is inserted; a
    # statement begun after that reads what the erasure committed, where the insert's own snapshot did not.
    values = (tenant_id, turn_id, turn.user_id, turn.session_id, turn.agent_id, occurred_at, Jsonb(turn.metadata),
              turn.idempotency_key, digest, turn.utc_offset, imported_from)
    if turn.idempotency_key is None:
        row = conn.execute(_INSERT_TURN, values).fetchone()
    else:
        with conn.pipeline():
            inserted = conn.execute(_INSERT_TURN, values)
            erased_key = conn.execute(_ERASED_KEY, {"t": tenant_id, "u": turn.user_id, "key": turn.idempotency_key})
        row = inserted.fetchone()
        if erased_key.fetchone()["erased"]:
            raise TurnErased.of(turn.idempotency_key)
    if row is None:
        existing = conn.execute(
            "SELECT id, payload_hash FROM turns WHERE tenant_id = %s AND user_id = %s AND idempotency_key = %s",
            (tenant_id, turn.user_id, turn.idempotency_key),
        ).fetchone()
        # Gone since the insert found it: an erasure took it, committed after the erased keys were read.
        if existing is None:
            raise TurnErased.of(turn.idempotency_key)
        # Turns stored before payloads were hashed have none to compare: taken as the same turn.
        if existing["payload_hash"] not in (None, digest):
            raise IdempotencyConflict(
                f"idempotency_key {turn.idempotency_key!r} was already used by this user for a different turn")
        return existing["id"], False
    _insert_messages(conn, _message_rows(tenant_id, turn_id, turn))
    return turn_id, True


def insert_turns(conn: psycopg.Connection, tenant_id: str,
                 turns: list[tuple[TurnIn, datetime]]) -> list[tuple[str, bool] | None]:
    """`insert_turn` for many turns, in pipelined statements rather than a round trip each: for
    each turn, (its id, created), the id the first turn's for a repeated idempotency key, or None
    where the key names a different turn. A turn Postgres refuses raises, as from `insert_turn`.
    Each statement holds its turns' sessions' rows (migration 0025) to commit: a caller writing
    several users' sessions locks those users first, in order (backfills.insert_turns)."""
    rows = [(tenant_id, turn_id, t.user_id, t.session_id, t.agent_id, at, Jsonb(t.metadata), t.idempotency_key,
             _payload_hash(t), t.utc_offset, origins)
            for (t, at), (turn_id, origins) in zip(turns, [_id_and_origins(t) for t, _ in turns])]
    created = []
    with conn.cursor() as cur:
        cur.executemany(_INSERT_TURN, rows, returning=True)
        for _ in rows:
            created.append(cur.fetchone() is not None)
            cur.nextset()
    repeated = [row for row, new in zip(rows, created) if not new]
    existing = {}
    if repeated:
        for r in conn.execute(
            """SELECT t.user_id, t.idempotency_key, t.id, t.payload_hash FROM turns t
               JOIN unnest(%s::text[], %s::text[]) AS k(user_id, idempotency_key)
                 ON t.user_id = k.user_id AND t.idempotency_key = k.idempotency_key
               WHERE t.tenant_id = %s""",
            ([r[2] for r in repeated], [r[7] for r in repeated], tenant_id),
        ).fetchall():
            existing[(r["user_id"], r["idempotency_key"])] = r
    ids = []
    for row, new in zip(rows, created):
        if new:
            ids.append((row[1], True))
            continue
        first = existing[(row[2], row[7])]
        # Turns stored before payloads were hashed have none to compare: taken as the same turn.
        ids.append((first["id"], False) if first["payload_hash"] in (None, row[8]) else None)
    _insert_messages(conn, [m for (turn, _), row, new in zip(turns, rows, created) if new
                            for m in _message_rows(tenant_id, row[1], turn)])
    return ids


def _insert_messages(conn: psycopg.Connection, rows: list[tuple]) -> None:
    for start in range(0, len(rows), _MESSAGES_PER_INSERT):
        chunk = rows[start:start + _MESSAGES_PER_INSERT]
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
        conn.execute(f"INSERT INTO messages ({_MESSAGE_COLUMNS}) VALUES {values}", [v for row in chunk for v in row])


def _message_rows(tenant_id: str, turn_id: str, turn: TurnIn) -> list[tuple]:
    return [(tenant_id, str(uuid.uuid4()), turn_id, i, m.role, m.name, m.content, Jsonb(m.metadata),
             turn.subject_of(m)) for i, m in enumerate(turn.messages)]


def _id_and_origins(turn: TurnIn) -> tuple[str, list[str] | None]:
    """The id a turn is stored under, and its `imported_from_digests`, which its erasure keeps with its own
    (erasure.session): a line of an import (ImportedTurn) naming a turn is stored under that id (backfills.insert_turns
    names one of its own where the id is not the line's to keep); any other turn under a new id."""
    if not isinstance(turn, ImportedTurn):
        return str(uuid.uuid4()), None
    return turn.turn_id or str(uuid.uuid4()), turn.imported_from_digests or None


def erased(conn: psycopg.Connection, tenant_id: str,
           turns: list[tuple[str, str | None, str | None, list[str]]]) -> set[int]:
    """Of these (user id, turn id, idempotency key, imported_from_digests) of import lines, the indexes of those
    naming a turn of that user's an erasure took (erasure.session, erasure.user_chunk), by its id, its key or an
    id it was imported from: another user's line naming it is theirs to store."""
    if not turns:
        return set()
    return {r["n"] - 1 for r in conn.execute(
        """SELECT k.n FROM unnest(%(users)s::text[], %(ids)s::text[], %(keys)s::text[]) WITH ORDINALITY
                               AS k(user_id, id, key, n)
           WHERE EXISTS (SELECT FROM erased_turn_digests e WHERE e.tenant_id = %(t)s
                                                             AND e.turn_digest = erased_digest(%(t)s, k.user_id, k.id))
              OR EXISTS (SELECT FROM erased_turn_digests e WHERE e.tenant_id = %(t)s
                                                             AND e.key_digest = erased_digest(%(t)s, k.user_id, k.key))
           UNION
           SELECT d.n FROM unnest(%(of)s::int[], %(digests)s::text[]) AS d(n, digest)
           WHERE EXISTS (SELECT FROM erased_turn_digests e WHERE e.tenant_id = %(t)s AND e.turn_digest = d.digest)""",
        {"t": tenant_id, "users": [user_id for user_id, *_ in turns], "ids": [turn_id for _, turn_id, _, _ in turns],
         "keys": [key for _, _, key, _ in turns], "of": [n + 1 for n, (*_, ds) in enumerate(turns) for _ in ds],
         "digests": [d for *_, ds in turns for d in ds]}).fetchall()}


def digests(conn: psycopg.Connection, tenant_id: str, turns: list[tuple[str, str]]) -> list[str]:
    """What an erasure keeps of each of these (user id, turn id): the turn's id digested (erased_digest)."""
    return [r["digest"] for r in conn.execute(
        """SELECT erased_digest(%s, k.user_id, k.id) AS digest
           FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS k(user_id, id, n) ORDER BY k.n""",
        (tenant_id, [user_id for user_id, _ in turns], [turn_id for _, turn_id in turns])).fetchall()]


# Whether the idempotency key %(key)s names a turn of the user %(u)s's an erasure took (erased, one key).
_ERASED_KEY = """SELECT EXISTS (SELECT FROM erased_turn_digests WHERE tenant_id = %(t)s
                                   AND key_digest = erased_digest(%(t)s, %(u)s, %(key)s)) AS erased"""


def _payload_hash(turn: TurnIn) -> str:
    """A hash of everything the client sent for the turn, in canonical JSON."""
    # A field added to the contract later is left out while unset, so that a turn sent again with
    # its idempotency key hashes as it did when it was first stored.
    unset = {"user_name"} if turn.user_name is None else set()
    # What the client sends, not an import line's `turn_id` (ImportedTurn): the turn it stores is sent
    # again with its key by POST /v1/turns, which names no turn.
    canonical = json.dumps(turn.model_dump(mode="json", include=set(TurnIn.model_fields),
                                           exclude={"idempotency_key", *unset}), sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", errors="surrogatepass")).hexdigest()


# The offset from UTC, in minutes, of the user's latest turn (by its time, then of those said at one
# time the one received last, as pipeline._said orders them) sent with one (migrations 0035, 0037); a
# scalar subquery, so that a read at a request's start can carry it (user_zone.send_now).
LATEST_OFFSET = """(SELECT utc_offset FROM turns WHERE tenant_id = %(t)s AND user_id = %(u)s
                    AND utc_offset IS NOT NULL ORDER BY occurred_at DESC, created_at DESC, id DESC LIMIT 1)"""


def latest_offset(conn: psycopg.Connection, tenant_id: str, user_id: str) -> int | None:
    """LATEST_OFFSET's; None when no turn of the user's was sent with an offset."""
    return conn.execute(f"SELECT {LATEST_OFFSET} AS utc_offset", {"t": tenant_id, "u": user_id}).fetchone()["utc_offset"]


def get_turn(conn: psycopg.Connection, tenant_id: str, turn_id: str) -> dict[str, Any] | None:
    """The turn's row, and whether its user is being erased (`erasing`, db/erasing.py)."""
    return conn.execute(
        f"SELECT t.*, {erasing.marked('t')} AS erasing FROM turns t WHERE t.tenant_id = %s AND t.id = %s",
        (tenant_id, turn_id)).fetchone()


def stored_as(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> dict[str, str]:
    """The user ids of the turns stored under these ids, whoever's they are, by turn id."""
    if not turn_ids:
        return {}
    return {r["id"]: r["user_id"] for r in conn.execute(
        "SELECT id, user_id FROM turns WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, turn_ids)).fetchall()}


def get_turns(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> list[dict[str, Any]]:
    return conn.execute("SELECT * FROM turns WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, turn_ids)).fetchall()


def lock_turns(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> dict[str, dict[str, Any]]:
    """`lock_turn` for many: those that still exist, by id, locked for this transaction (in id
    order, so that two transactions locking overlapping sets cannot deadlock)."""
    rows = conn.execute(
        f"""SELECT * FROM turns WHERE tenant_id = %s AND id = ANY(%s) AND {erasing.unmarked("turns")}
            ORDER BY id FOR UPDATE""", (tenant_id, turn_ids)
    ).fetchall()
    return {r["id"]: r for r in rows}


def lock_turn(conn: psycopg.Connection, tenant_id: str, turn_id: str) -> dict[str, Any] | None:
    """The turn row, locked for this transaction so two deliveries of one job cannot interleave; None
    when it was erased, or its user is being erased (db/erasing.py): a worker that read it before then
    writes nothing of it, as for a turn erased meanwhile (the erasure takes the turn)."""
    return conn.execute(
        f"SELECT * FROM turns WHERE tenant_id = %s AND id = %s AND {erasing.unmarked('turns')} FOR UPDATE",
        (tenant_id, turn_id)
    ).fetchone()


def messages_of_turns(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Each turn's messages in order (turns without any are absent), in one round trip."""
    found: dict[str, list[dict[str, Any]]] = {}
    for row in conn.execute("SELECT * FROM messages WHERE tenant_id = %s AND turn_id = ANY(%s) ORDER BY turn_id, position",
                            (tenant_id, turn_ids)).fetchall():
        found.setdefault(row["turn_id"], []).append(row)
    return found


def messages_kept(conn: psycopg.Connection, tenant_id: str, message_ids: list[str]) -> set[str]:
    """Which of these messages are still there (an erasure takes a message with its episodic memory)."""
    return {r["id"] for r in conn.execute("SELECT id FROM messages WHERE tenant_id = %s AND id = ANY(%s)",
                                          (tenant_id, message_ids)).fetchall()}


def session_histories(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str], limit: int
                      ) -> dict[str, list[dict[str, Any]]]:
    """For each turn, the last `limit` messages of its session before it, oldest first (context
    for extraction); all the turns' in one round trip."""
    found: dict[str, list[dict[str, Any]]] = {turn_id: [] for turn_id in turn_ids}
    # The outer ORDER BY is what orders them: the lateral's own order (newest first, for its LIMIT)
    # does not survive every plan of the join around it. With more rows in the tables (after other
    # tests, or a busy tenant) Postgres picked one that handed a batch's histories back oldest
    # first, and each message was indexed with the session's first line instead of the one before it.
    for row in conn.execute(
        """SELECT b.turn_id AS for_turn, h.* FROM unnest(%s::text[]) AS b(turn_id)
           JOIN turns t ON t.tenant_id = %s AND t.id = b.turn_id
           CROSS JOIN LATERAL (
               SELECT m.*, p.occurred_at AS said_at FROM messages m
                 JOIN turns p ON p.tenant_id = m.tenant_id AND p.id = m.turn_id
               WHERE p.tenant_id = t.tenant_id AND p.user_id = t.user_id AND p.session_id = t.session_id
                 AND (p.occurred_at, p.id) < (t.occurred_at, t.id)
               ORDER BY p.occurred_at DESC, p.id DESC, m.position DESC LIMIT %s) h
           ORDER BY b.turn_id, h.said_at, h.turn_id, h.position""",
        (turn_ids, tenant_id, limit),
    ).fetchall():
        del row["said_at"]
        found[row.pop("for_turn")].append(row)
    return found


def set_status(
    conn: psycopg.Connection, tenant_id: str, turn_id: str, status: str, error: str | None = None
) -> None:
    conn.execute(
        "UPDATE turns SET status = %s, error = %s, updated_at = now() WHERE tenant_id = %s AND id = %s",
        (status, error, tenant_id, turn_id),
    )


def note_error(conn: psycopg.Connection, tenant_id: str, turn_id: str, error: str) -> None:
    """Why a try at the turn failed, its status unchanged (it is retried)."""
    conn.execute("UPDATE turns SET error = %s, updated_at = now() WHERE tenant_id = %s AND id = %s",
                 (error, tenant_id, turn_id))


def note_not_inline(conn: psycopg.Connection, tenant_id: str, turn_id: str, error: str) -> None:
    """Why a turn asked to be processed inline was queued instead, unless it is done or holds a reason already
    (a first try's, or a worker's, which says more)."""
    conn.execute("UPDATE turns SET error = %s, updated_at = now() WHERE tenant_id = %s AND id = %s "
                 "AND error IS NULL AND status IN ('queued', 'processing')", (error, tenant_id, turn_id))


def note_tries(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> None:
    """A worker began extracting these turns: if it is stopped before it ends (Lambda's timeout), its
    queue delivers them again, and the sweep waits for that (claim_lost). Not an error; `updated_at`,
    the sweep's clock of progress, is left as it was."""
    conn.execute("UPDATE turns SET tried_at = now() WHERE tenant_id = %s AND id = ANY(%s)", (tenant_id, turn_ids))


def store_many_candidates(conn: psycopg.Connection, tenant_id: str,
                          extracted: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """Extraction is done: each turn's candidates wait on it for supersession (none: the turn is
    done). Pipelined, for many turns at once."""
    with conn.cursor() as cur:
        cur.executemany(
            """UPDATE turns SET candidates = %s, extracted_at = now(), updated_at = now(), error = NULL,
                      status = CASE WHEN %s THEN 'processing' ELSE 'processed' END
               WHERE tenant_id = %s AND id = %s""",
            [(Jsonb(candidates) if candidates else None, bool(candidates), tenant_id, turn_id)
             for turn_id, candidates in extracted],
        )


def finish(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> None:
    """Supersession is done for these turns: the candidates are decided and leave no copy behind."""
    conn.execute(
        """UPDATE turns SET status = 'processed', candidates = NULL, resolved_at = now(), updated_at = now(),
                  error = NULL
           WHERE tenant_id = %s AND id = ANY(%s)""",
        (tenant_id, turn_ids),
    )


def tombstones(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> set[tuple[str, str, str, str]]:
    """(turn id, key, subject, value digest) for what the user erased that these turns must not
    bring back (db/erasure.py): a value erased from any turn of their user's after they were
    received; a tombstone from before migration 0031 (subject and digest empty), the whole key of
    its own turn."""
    rows = conn.execute(
        """SELECT u.id AS turn_id, t.key, t.subject, t.value_digest
           FROM turns u
           JOIN tombstones t ON t.tenant_id = u.tenant_id AND t.user_id = u.user_id
           WHERE u.tenant_id = %s AND u.id = ANY(%s)
             AND CASE WHEN t.value_digest = '' THEN t.turn_id = u.id ELSE u.created_at <= t.erased_at END""",
        (tenant_id, turn_ids)).fetchall()
    return {(r["turn_id"], r["key"], r["subject"], r["value_digest"]) for r in rows}


# The message_id of a tombstone that names no message (migration 0051): its whole turn is left out.
NO_MESSAGE = ""


def erased_messages(conn: psycopg.Connection, tenant_id: str, turn_ids: list[str]) -> dict[str, set[str]]:
    """By turn, the messages of these turns that an erased fact was drawn from, as their tombstones name
    them (db/erasure.py), NO_MESSAGE for a tombstone that names none; turns without one are left out."""
    erased: dict[str, set[str]] = {}
    for r in conn.execute("SELECT turn_id, message_id FROM tombstones WHERE tenant_id = %s AND turn_id = ANY(%s)",
                          (tenant_id, turn_ids)).fetchall():
        erased.setdefault(r["turn_id"], set()).add(r["message_id"])
    return erased


# Which unfinished turns are lost (see claim_lost); %(age)s is the age in seconds. Not those of a user
# being erased: a worker would skip them (lock_turns), and the erasure takes them.
_LOST = f"""
    s.status IN ('queued', 'processing') AND {erasing.unmarked("s")}
    AND s.updated_at < now() - make_interval(secs => %(age)s)
    AND CASE WHEN s.status = 'queued' THEN
             (s.tried_at IS NULL OR s.tried_at < now() - make_interval(secs => %(retry)s))
             AND (%(extraction_idle)s
             OR EXISTS (SELECT 1 FROM turns later
                        WHERE later.created_at > s.updated_at + make_interval(secs => %(age)s)
                          AND later.extracted_at IS NOT NULL))
         ELSE
             %(supersession_idle)s OR s.candidates IS NULL
             OR EXISTS (SELECT 1 FROM turns later
                        WHERE later.tenant_id = s.tenant_id AND later.user_id = s.user_id
                          AND later.resolved_at IS NOT NULL AND later.extracted_at > s.extracted_at)
         END
"""


# At most this many lost turns are claimed (and counted) in one sweep run; the rest wait for the next. The
# claimed rows stay locked while they are published, so one run's share is bounded, not all a long outage left.
LOST_PER_RUN = 500

# The queues a lost turn is sent again to, and which is its (claim_lost's `queue`): the supersession queue once
# its extraction is kept.
QUEUES = ("extraction", "supersession")
_QUEUE = "CASE WHEN s.candidates IS NOT NULL AND s.status = 'processing' THEN 'supersession' ELSE 'extraction' END"


def claim_lost(conn: psycopg.Connection, older_than_seconds: int, max_republish: int, *,
               extraction_idle: bool, supersession_idle: bool, retry_seconds: int,
               queues: Collection[str] = QUEUES) -> list[dict[str, Any]]:
    """Unfinished turns of `queues` whose queue message is lost, claimed for one re-publish each; those
    already re-published `max_republish` times (of any queue) are marked failed instead (a turn whose
    handler times out every time would otherwise be sent forever).

    Age alone cannot tell a lost message from one waiting in a backlog, so a turn without progress
    for the given age is taken as lost only on evidence. Waiting for extraction (queued): the
    extraction queue is empty (`extraction_idle`), or it has moved past the turn (a turn created
    well after this one was last published is already extracted). Waiting for supersession
    (processing): the supersession queue is empty, or the user's FIFO group has moved past it (a
    turn of the same user extracted later is already resolved: FIFO order means this one's message
    was consumed). A backlog therefore never fails a turn; each claim resets the turn's clock.

    A queued turn a worker began to extract (its `tried_at`) has a delivery still to come, whether
    the try failed or the worker was stopped mid-batch: SQS hides a received message until its
    visibility timeout, while later turns move the queue past it. It is lost only when
    `retry_seconds` have passed since the try began without another (twice the visibility timeout:
    a message comes back within one of its receive, and its try ends within a sixth of one). An
    `error` alone says no delivery is pending (`?wait=true`'s inline try failed): such a turn whose
    publish was lost is re-sent after the age, as one never tried is.

    The claimed rows are locked, not yet counted: the caller counts those its publish reached the
    queue with (count_republished) in the same transaction, so that a publish that fails (the queue
    down) neither brings the turn nearer `max_republish` nor resets its clock. `republished` in a
    row is the count this re-send makes."""
    params = _lost_params(older_than_seconds, extraction_idle, supersession_idle, retry_seconds, queues)
    # One statement, one snapshot: the turns it marks failed are lost in what its SELECT reads, which leaves them
    # by their count of re-sends.
    return conn.execute(
        f"""WITH failed AS (
                UPDATE turns s SET status = 'failed', updated_at = now(),
                       error = 'its queue message was lost and re-sent ' || s.republished || ' times without progress'
                WHERE {_LOST} AND s.republished >= %(max)s)
            SELECT s.tenant_id, s.id, s.user_id, s.republished + 1 AS republished, {_QUEUE} AS queue
            FROM turns s WHERE {_LOST} AND s.republished < %(max)s AND {_QUEUE} = ANY(%(queues)s)
            ORDER BY s.updated_at LIMIT %(limit)s FOR UPDATE SKIP LOCKED""",
        params | {"max": max_republish},
    ).fetchall()


def count_lost(conn: psycopg.Connection, older_than_seconds: int, queues: Collection[str], *,
               extraction_idle: bool, supersession_idle: bool, retry_seconds: int) -> int:
    """How many unfinished turns of `queues` are lost (claim_lost's, after it: those it marked failed are
    not), up to LOST_PER_RUN, neither claimed nor locked: the sweep's count of those it leaves for its next run."""
    params = _lost_params(older_than_seconds, extraction_idle, supersession_idle, retry_seconds, queues)
    return conn.execute(
        f"""SELECT count(*) AS n FROM (SELECT 1 FROM turns s WHERE {_LOST} AND {_QUEUE} = ANY(%(queues)s)
                                       LIMIT %(limit)s) AS lost""",
        params,
    ).fetchone()["n"]


def _lost_params(older_than_seconds: int, extraction_idle: bool, supersession_idle: bool, retry_seconds: int,
                 queues: Collection[str]) -> dict[str, Any]:
    return {"age": older_than_seconds, "extraction_idle": extraction_idle, "supersession_idle": supersession_idle,
            "retry": retry_seconds, "queues": list(queues), "limit": LOST_PER_RUN}


def count_republished(conn: psycopg.Connection, turns: list[tuple[str, str]]) -> None:
    """These (tenant id, turn id) claimed by claim_lost were sent to their queue again: one more
    re-send each, and their clock of progress starts over."""
    conn.execute(
        """UPDATE turns t SET updated_at = now(), republished = t.republished + 1
           FROM unnest(%s::text[], %s::text[]) AS sent(tenant_id, id)
           WHERE t.tenant_id = sent.tenant_id AND t.id = sent.id""",
        ([tenant_id for tenant_id, _ in turns], [turn_id for _, turn_id in turns]),
    )
