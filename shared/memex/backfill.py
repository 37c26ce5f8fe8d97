"""Bulk jobs over a tenant's data in resumable chunks: import history (JSON Lines, one turn per
line, original timestamps), re-embed memories, re-extract turns after a model change.

Each chunk is one queue message; it does its work idempotently, records its progress once, and
sends the message for the next chunk. An import reads its source from the byte offset where the
chunk begins, never from the start. A line's idempotency key is the hash of its bytes and its
offset, so re-importing a file stores nothing twice while a new file at the same path is a new
import; a line naming a turn its user has (`turn_id`, written by `memex export`) is that turn, and one
naming a turn a session's erasure took from its user is counted erased, never stored. A
line that is not a valid turn, that Postgres refuses, or (an import run for a user) that is another
user's, is counted failed alone, logged by its byte offset, and kept on the job with its line
number (the first FAILURES_KEPT).
A job whose chain of messages died (a killed `memex backfill`) reads back as stalled, and
`resume` goes on with it from its position.

A duplicated or redelivered chunk message neither repeats the chunk nor forks a second chain.
The delivery takes the chunk's lock in Postgres (a session lock: it dies with a crashed
worker's connection), then reads the job's row:

- `position` is this chunk's offset: the chunk is due. It is done, `position` advances once
  (counting once), the next message is sent, then marked sent.
- `advanced_from` is this chunk's offset and the next message is not marked sent: an earlier
  delivery advanced and died before it sent (or before it marked). This delivery sends the next
  message, so the job never stalls; at worst the next chunk gets a second message, which the
  same rules drop.
- anything else: the chunk was done and its successor sent, or the job ended: nothing to do.

A delivery that finds the lock taken drops its message: the holder finishes the chunk, and if
the holder dies, its own message comes back after the visibility timeout and finds the lock free.

The delivery that finishes the job analyses the tables a search reads (db/planner_statistics.py):
a redelivery finds the job done and does nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import math
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from pydantic import ValidationError

from memex import embedded_text, pipeline
from memex.context import Context
from memex.db import backfills as backfill_rows
from memex.db import cursors
from memex.db import erasing
from memex.db import memories as memory_rows
from memex.db import planner_statistics
from memex.db import tenants as tenant_rows
from memex.errors import NotFound, TenantDeleted, UserBeingErased
from memex.jobs import BackfillJob, ExtractionJob, SupersessionJob
from memex.metrics import TURNS_INGESTED
from memex.models import FieldError, ImportedTurn, what_is_wrong, wire_time

log = logging.getLogger(__name__)

LINES_PER_CHUNK = 500
MEMORIES_PER_CHUNK = 512
TURNS_PER_CHUNK = 100
# A job keeps its first failed lines, so that a builder can mend and re-send exactly those without
# the log; bounded because every status poll and listing page reads the row, and a file of a
# million lines in the wrong format would otherwise store a million reasons. `failed` counts all.
FAILURES_KEPT = 100
# A failure's reason is the log's; a line with many wrong fields names each, which a listing of
# fifty jobs would carry a hundred times each.
REASON_CHARS = 500

# Opens an import's source at a byte offset and yields its bytes from there, in pieces of any
# size (the caller knows files and S3; the domain does not).
Source = Callable[[int], Iterable[bytes]]


class _Chunk(NamedTuple):
    position: str  # where the next chunk begins
    done: int
    failed: int
    more: bool
    already_stored: int = 0  # of `done`, lines an earlier import had stored: nothing new for them
    lines: int = 0  # lines read, blank ones included (an import's)
    failures: tuple[dict[str, Any], ...] = ()  # the failed lines, in the file's order (an import's)
    erased: int = 0  # lines naming a turn their user erased: neither done nor failed, not stored


def new_job(kind: str, tenant_id: str, path: str | None = None, s3_uri: str | None = None,
            user_id: str | None = None) -> BackfillJob:
    return BackfillJob(kind, tenant_id, f"bf_{uuid.uuid4().hex[:16]}", path, s3_uri, user_id)


def run_chunk(ctx: Context, job: BackfillJob, source: Source | None = None) -> None:
    """Do this chunk if it is due and send the message for the next one (see the module's
    docstring for what a repeated message does). A chunk of a deleted tenant's job is dropped: it
    would store the tenant's data again (db/tenants.ensure_tenant refuses it)."""
    try:
        _run_chunk(ctx, job, source)
    except TenantDeleted:
        log.warning("backfill %s: its tenant was deleted; the chunk is dropped", job.backfill_id)


def _run_chunk(ctx: Context, job: BackfillJob, source: Source | None) -> None:
    _ensure_row(ctx, job, source)
    conn = ctx.db.connection()
    if not backfill_rows.hold_chunk(conn, job.tenant_id, job.backfill_id, job.offset):
        return
    try:
        row = backfill_rows.get(conn, job.tenant_id, job.backfill_id)
        if row is None or row["status"] != "running":  # None: its user erased (_ensure_row)
            return
        if row["position"] == job.offset:
            # This message arrived, so no redelivery of the previous chunk needs to send it again.
            with ctx.db.transaction() as tx:
                backfill_rows.mark_sent(tx, job.tenant_id, job.backfill_id, job.offset)
            follow_up = _do_chunk(ctx, job, source, row["lines_read"])
        elif row["advanced_from"] == job.offset and not row["next_sent"]:
            follow_up = job.next(row["position"])
        else:
            return
        if follow_up is not None:
            ctx.publisher.publish_backfill(follow_up)
            with ctx.db.transaction() as tx:
                backfill_rows.mark_sent(tx, job.tenant_id, job.backfill_id, follow_up.offset)
    finally:
        backfill_rows.release_chunk(conn, job.tenant_id, job.backfill_id, job.offset)


def status(ctx: Context, tenant_id: str, backfill_id: str) -> dict[str, Any]:
    row = backfill_rows.get(ctx.db.connection(), tenant_id, backfill_id)
    if row is None:
        raise NotFound(f"backfill {backfill_id} not found")
    # A job of a user being erased is refused as the listing of their jobs is: its row goes with them.
    erasing.refuse(row, row["user_id"])
    return _progress(row, ctx.settings.backfill_stalled_after_seconds)


def listing(ctx: Context, tenant_id: str, user_id: str | None, limit: int, cursor: str | None) -> dict[str, Any]:
    """The tenant's backfills, the newest first; with `user_id`, only the jobs scoped to that user
    (a job over the whole tenant has none, and is listed only without the filter)."""
    # Whether the filter is given is part of the listing: no user id may pass for its absence.
    of = cursors.listing("backfills", tenant_id, user_id is None, user_id or "")
    rows, next_cursor = cursors.page(
        of, cursor, lambda after: backfill_rows.of_tenant(ctx.db.connection(), tenant_id, user_id, limit, after))
    stalled_after = ctx.settings.backfill_stalled_after_seconds
    return {"backfills": [_progress(row, stalled_after) for row in rows], "next_cursor": next_cursor}


def resume(ctx: Context, job: BackfillJob, backfill_id: str) -> BackfillJob:
    """The message that goes on with job `backfill_id` from the chunk it stopped at, when its chain
    of messages died (a killed `memex backfill`) or it was interrupted; `job` says what the caller
    means to run, which must be what the job ran. It does no harm if the chain is alive: the chunk's
    lock and position drop a message that is not due."""
    row = backfill_rows.get(ctx.db.connection(), job.tenant_id, backfill_id)
    if row is None:
        raise NotFound(f"backfill {backfill_id} not found")
    if (row["kind"], row["source"], row["user_id"]) != (job.kind, job.source, job.user_id):
        raise ValueError(f"backfill {backfill_id} is a {row['kind']} of {row['source'] or 'the tenant'}"
                         f"{' for ' + row['user_id'] if row['user_id'] else ''}, not this one")
    if row["status"] == "done":
        raise ValueError(f"backfill {backfill_id} is done: nothing to resume")
    # Nothing is written for a user being erased (db/erasing.py): reopened, the job's record would go on
    # naming them, and a chunk of it delivered after the erasure took it would make it again.
    with ctx.db.transaction() as conn:
        reopened = backfill_rows.reopen(conn, job.tenant_id, backfill_id)
        erased = not reopened and bool(row["user_id"]) and bool(erasing.marked_users(conn, job.tenant_id,
                                                                                     [row["user_id"]]))
    if erased:
        raise UserBeingErased(f"backfill {backfill_id} is of user {row['user_id']}, whose erasure is under way:"
                              " it is not resumed (its record goes with the user's last rows)")
    if not reopened:
        raise ValueError(f"backfill {backfill_id} finished or was deleted meanwhile: nothing to resume")
    return dataclasses.replace(job, backfill_id=backfill_id).next(row["position"])


def _progress(row: dict[str, Any], stalled_after: int) -> dict[str, Any]:
    total = row["total"] or 0
    # jsonb keeps an object's keys in its own order; the answer's are the route's.
    failures = [{"line": f["line"], "offset": f["offset"], "reason": f["reason"]} for f in row["failures"]]
    status = row["status"]
    if status == "running" and datetime.now(timezone.utc) - row["updated_at"] > timedelta(seconds=stalled_after):
        status = "stalled"  # derived, never stored: a chunk that finishes after all makes it "running" again
    return {
        "backfill_id": row["id"], "kind": row["kind"], "status": status, "source": row["source"],
        "user_id": row["user_id"], "total": total, "done": row["done"], "failed": row["failed"],
        "remaining": max(0, total - row["done"] - row["failed"] - row["erased"]),
        "already_stored": row["already_stored"], "erased": row["erased"],
        "error": row["error"], "failures": failures, "failures_not_kept": row["failed"] - len(failures),
        "created_at": wire_time(row["created_at"]), "updated_at": wire_time(row["updated_at"]),
    }


def mark_failed(ctx: Context, job: BackfillJob, error: str) -> None:
    with ctx.db.transaction() as conn:
        backfill_rows.fail(conn, job.tenant_id, job.backfill_id, error[:2000])


def _ensure_row(ctx: Context, job: BackfillJob, source: Source | None) -> None:
    """The job's row, made by its first chunk. Not by a later chunk of a job run for a user, which finds
    none only when that user's erasure has taken it since, nor for a user being erased (create): a row
    naming them would be left behind (db/erasing.py). The chunk then finds no row and is dropped."""
    conn = ctx.db.connection()
    if backfill_rows.get(conn, job.tenant_id, job.backfill_id) is not None or (job.user_id and job.offset):
        return
    if job.kind == "import":
        total = sum(1 for line in _split_lines(source(0)) if line.strip())
    else:
        total = backfill_rows.count_scope(conn, "memories" if job.kind == "reembed" else "turns",
                                          job.tenant_id, job.user_id)
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, job.tenant_id)
        backfill_rows.create(conn, job.tenant_id, job.backfill_id, job.kind, job.source, job.user_id, total)


def _do_chunk(ctx: Context, job: BackfillJob, source: Source | None, lines_read: int | None) -> BackfillJob | None:
    """The chunk's work, then its progress recorded once; the next chunk's job if this delivery
    advanced the position and there is more to do. `lines_read` is how many lines come before the
    chunk (None when not known)."""
    if job.kind == "import":
        chunk = _import_chunk(ctx, job, source, lines_read)
    elif job.kind == "reembed":
        chunk = _reembed_chunk(ctx, job)
    else:
        chunk = _reextract_chunk(ctx, job)
    with ctx.db.transaction() as conn:
        advanced = backfill_rows.advance(conn, job.tenant_id, job.backfill_id, job.offset, chunk.position,
                                         chunk.done, chunk.failed, finished=not chunk.more,
                                         already_stored=chunk.already_stored, lines=chunk.lines,
                                         failures=chunk.failures, failures_kept=FAILURES_KEPT, erased=chunk.erased)
    if advanced and job.kind == "import":  # once per chunk, however often it is delivered
        ctx.metrics.record(TURNS_INGESTED, chunk.done - chunk.already_stored, source="import")
    if advanced and not chunk.more:
        _analyze(ctx, job)
    return job.next(chunk.position) if advanced and chunk.more else None


def _analyze(ctx: Context, job: BackfillJob) -> None:
    """Once the job is done (only the delivery that finished it gets here), the searched tables'
    statistics, so that a search right after an import is planned for what it imported. On a
    connection of its own, without the statement timeout. Not the job's failure if it fails: the
    data is stored, and autovacuum analyses later."""
    try:
        with ctx.db.maintenance() as conn:
            planner_statistics.analyze_searched_tables(conn)
    except Exception:  # noqa: BLE001 - statistics only make plans better
        log.exception("analysing the searched tables after backfill %s failed", job.backfill_id)


def _import_chunk(ctx: Context, job: BackfillJob, source: Source, lines_read: int | None) -> _Chunk:
    position = int(job.offset or 0)
    lines = _split_lines(source(position))
    chunk = list(itertools.islice(lines, LINES_PER_CHUNK))
    more = next(lines, None) is not None
    turns, places, failures = [], [], []
    for index, raw in enumerate(chunk):
        at, position = position, position + len(raw)
        if not raw.strip():
            continue
        # Which line and why, so that it can be mended and imported again; never what it says.
        place = (at, None if lines_read is None else lines_read + index + 1)
        try:
            turn = _turn_of(raw, at, ctx.settings.max_body_bytes)
        except ValueError as exc:  # not UTF-8, not JSON, NaN or Infinity, not a valid turn
            failures.append(_failure(place, f"not a turn ({_why(exc)})"))
            log.warning("backfill %s: the line at byte %d is not a turn (%s)", job.backfill_id, at, _why(exc))
            continue
        if job.user_id and turn.user_id != job.user_id:
            # A job run for a user is theirs: listed under them, gone with their erasure. Stored, another
            # user's line would outlive its own job record, named on no job of its user's.
            failures.append(_failure(place, f"not stored (another user's line: this import is of user "
                                            f"{job.user_id}'s lines only)"))
            log.warning("backfill %s: the line at byte %d is another user's", job.backfill_id, at)
            continue
        turns.append(turn)
        places.append(place)
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, job.tenant_id)
        turn_ids, refused, already_stored, erased = backfill_rows.insert_turns(conn, job.tenant_id, turns)
    for index in erased:
        log.info("backfill %s: the line at byte %d names a turn its user erased: not stored", job.backfill_id,
                 places[index][0])
    for index, why in refused:
        failures.append(_failure(places[index], f"not stored ({why})"))
        log.warning("backfill %s: the line at byte %d was not stored (%s)", job.backfill_id, places[index][0], why)
    try:
        follow_ups = pipeline.extract_many(ctx, job.tenant_id, turn_ids)
    except Exception:  # noqa: BLE001 - the turns are stored: the extraction workers take them one by one
        log.exception("extracting a chunk of backfill %s failed; its turns go to the extraction queue", job.backfill_id)
        for turn_id in turn_ids:
            ctx.publisher.publish_extraction(ExtractionJob(job.tenant_id, turn_id))
        follow_ups = []
    _decide(ctx, job, follow_ups)
    return _Chunk(str(position), len(turn_ids), len(failures), more, already_stored, len(chunk),
                  tuple(sorted(failures, key=lambda failure: failure["offset"])), len(erased))


def _failure(place: tuple[int, int | None], reason: str) -> dict[str, Any]:
    offset, line = place
    if len(reason) > REASON_CHARS:
        reason = reason[:REASON_CHARS - 1] + "…"
    return {"offset": offset, "line": line, "reason": reason}


def _decide(ctx: Context, job: BackfillJob, follow_ups: list[SupersessionJob]) -> None:
    """Supersession for the chunk's turns, here and in the order they were said: a queue message
    per turn would cost more than the decision. If it fails, the turns not yet decided go to
    the supersession queue (a turn already decided is skipped there)."""
    try:
        pipeline.resolve_many(ctx, follow_ups)
    except Exception:  # noqa: BLE001 - the candidates are stored on the turns: the workers take them
        log.exception("deciding a chunk of backfill %s failed; its turns go to the supersession queue",
                      job.backfill_id)
        for follow_up in follow_ups:
            ctx.publisher.publish_supersession(follow_up)


def _turn_of(raw: bytes, offset: int, max_bytes: int) -> ImportedTurn:
    """The turn a line holds; ValueError when it holds none."""
    body = raw.rstrip(b"\r\n")
    if len(body) > max_bytes:
        # POST /v1/turns refuses such a body (413): a line would otherwise store a message no
        # request can, and every search and recall that finds it would carry it whole.
        raise ValueError(f"it is {len(body)} bytes, over MEMEX_MAX_BODY_BYTES ({max_bytes}), "
                         "which POST /v1/turns refuses with 413")
    # A file saved with a byte order mark starts with one; it is not part of the first line. Nor is
    # the newline: a line cut short would be "Invalid control character", not "Unterminated string".
    text = body.decode("utf-8-sig" if offset == 0 else "utf-8")
    data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    if not isinstance(data, dict):
        raise ValueError("a line must be a JSON object")
    if not data.get("idempotency_key"):
        content = hashlib.sha256(body).hexdigest()
        data["idempotency_key"] = f"backfill:{content}:{offset}"
    return ImportedTurn.model_validate(data)


def _why(exc: ValueError) -> str:
    """What is wrong with a line, as the API's 422 words it (`messages.0.role: Input should be …`),
    without the input pydantic's own text repeats."""
    if not isinstance(exc, ValidationError):
        return f"{type(exc).__name__}: {exc}"
    problems = []
    for detail in exc.errors():
        cause = (detail.get("ctx") or {}).get("error")
        loc = tuple(map(str, detail["loc"])) + (cause.path if isinstance(cause, FieldError) else ())
        problems.append(f"{'.'.join(loc) or 'line'}: {what_is_wrong(detail)}")
    return "; ".join(problems)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _split_lines(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a byte stream, each with its newline, so their lengths add up to offsets."""
    buffer = bytearray()
    for piece in pieces:
        searched = len(buffer)  # a long line is scanned once, not once per piece
        buffer += piece
        start = 0
        while (cut := buffer.find(b"\n", searched)) >= 0:
            yield bytes(buffer[start:cut + 1])
            start = searched = cut + 1
        del buffer[:start]
    if buffer:
        yield bytes(buffer)


def _reembed_chunk(ctx: Context, job: BackfillJob) -> _Chunk:
    rows = backfill_rows.memory_ids_after(ctx.db.connection(), job.tenant_id, job.user_id, job.offset,
                                          MEMORIES_PER_CHUNK + 1)
    more = len(rows) > MEMORIES_PER_CHUNK
    rows = rows[:MEMORIES_PER_CHUNK]
    vectors = ctx.embedder.embed([embedded_text.of(r["content"], r["context"], memory_type=r["memory_type"],
                                                   subject=r["subject"]) for r in rows])
    with ctx.db.transaction() as conn:
        memory_rows.set_embeddings(conn, job.tenant_id, list(zip(rows, vectors)))
    return _Chunk(rows[-1]["id"] if rows else job.offset, len(rows), 0, more)


def _reextract_chunk(ctx: Context, job: BackfillJob) -> _Chunk:
    turn_ids = backfill_rows.turn_ids_after(ctx.db.connection(), job.tenant_id, job.user_id, job.offset,
                                            TURNS_PER_CHUNK + 1)
    more = len(turn_ids) > TURNS_PER_CHUNK
    turn_ids = turn_ids[:TURNS_PER_CHUNK]
    _decide(ctx, job, pipeline.extract_many(ctx, job.tenant_id, turn_ids, again=True))
    return _Chunk(turn_ids[-1] if turn_ids else job.offset, len(turn_ids), 0, more)
