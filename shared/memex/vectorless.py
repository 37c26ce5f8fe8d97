"""Memories waiting for their vector: who leaves them, who fills them in, and how many there are.

Two paths store or leave a memory without its vector. A worker embedding a turn while the embedder
fails stores its messages without theirs (migration 0040, pipeline._store_episodic; the job's retry
fills them). An erasure that takes the line another memory was indexed with (its context, the line
it answers) takes that memory's vector too, in the same transaction: it was made from the erased
words as well. A user asking for their words to go expects them gone when the answer comes, not an
error because a model of meanings is unreachable, and not a vector of them kept until it answers; the
memory left is found by its words meanwhile, and a vector of its own words is made after the commit
(embed_after_erasure), or, the embedder down, by the sweep. So an erasure never waits for the
embedder, nor fails with it. The sweep (fill) takes any memory left without its vector, oldest first,
one it failed to embed after the others: a turn whose every delivery failed is filled too, where it waited
for `memex backfill`, and a memory the embedder refuses holds up no other.
MemoriesWithoutVector says how many wait (record_waiting)."""

from __future__ import annotations

import logging
import time
from typing import Any

from memex import embedded_text, embeddings
from memex.context import Context
from memex.db import vectorless as vectorless_rows
from memex.errors import public_description
from memex.metrics import MEMORIES_WITHOUT_VECTOR
from memex.transaction_time import TransactionTime

log = logging.getLogger(__name__)

# Texts embedded in one call (and filled in one transaction): what a worker embeds for a turn or two.
BATCH = 64
# Memories one sweep reads at most: enough for the messages of an outage's turns in a few runs, and a
# bound on a run that the time (TransactionTime) would otherwise be alone to give.
ROWS_PER_SWEEP = 2000


def embed_after_erasure(ctx: Context, rows: list[dict[str, Any]]) -> None:
    """After an erasure's commit: vectors for the memories whose context it took (their rows as
    db/erasure returns them, their vectors already gone). The embedder failing, they wait for the sweep."""
    if not rows:
        return
    try:
        _fill(ctx, rows)
    except Exception as exc:  # noqa: BLE001 - the erasure is done; the sweep embeds them
        log.warning("the embedder failed (%s): %d memories whose context was erased wait for their vector, "
                    "which the sweep fills in", public_description(exc), len(rows))
        record_waiting(ctx)


def fill(ctx: Context, seconds: float, *, embedder_down: bool = False) -> int:
    """The sweep's: vectors for the memories without one (vectorless_rows.waiting's order), beginning no batch
    that would end past `seconds` (TransactionTime); a batch failing, one of its rows is set back (_set_back)
    and the rest wait for the next run. `embedder_down`: the run found the embedder failing on its side
    before (its job starts), and it is not asked: the call would wait out its attempts again. Returns how many
    were filled, and records how many still wait. Each batch is read afresh: those filled leave the rows
    waiting, and one an erasure changed after its read is read again as it is now."""
    within, filled, read = TransactionTime(seconds), 0, 0
    while not embedder_down and read < ROWS_PER_SWEEP and within.allows():
        began = time.monotonic()
        rows = vectorless_rows.waiting(ctx.db.connection(), BATCH)
        if not rows:
            break
        read += len(rows)
        try:
            filled += _fill(ctx, rows)
        except Exception as exc:  # noqa: BLE001 - the next run tries again
            log.warning("the embedder failed (%s): the memories without their vector wait for the next sweep",
                        public_description(exc))
            filled += _set_back(ctx, rows, one_a_call=not embeddings.down(ctx.embedder, exc))
            break
        within.took(time.monotonic() - began)
    record_waiting(ctx)
    return filled


def _set_back(ctx: Context, rows: list[dict[str, Any]], one_a_call: bool) -> int:
    """After their batch failed: one of these rows waits behind every other from now on (vectorless_rows.failed).
    A memory the embedder never takes failed its batch at every run, first of the oldest: no memory after it
    was filled again. `one_a_call` (the failure may be a row's: a text refused, an endpoint's 400), the rows
    are embedded one a call up to the first that fails, which is the one: the others are filled in this run.
    Else (the embedder down: its own failure, and a probe failing too, embeddings.down) no call is made, asking
    it again would wait out its attempts again, and the first waits behind the others. An endpoint answering
    5xx to one text only (some self-hosted servers do, to a text too long) answers the probe: its rows are
    embedded one a call, as for a 400; set back without a call, that text would fail every batch it is in,
    and while every row waiting fits in one, nothing would be filled again.
    Returns how many were filled."""
    failing, filled = rows[0] if len(rows) == 1 or not one_a_call else None, 0
    for row in rows if failing is None else ():
        try:
            filled += _fill(ctx, [row])
        except Exception:  # noqa: BLE001 - refused, or the embedder is down: it waits behind the others
            failing = row
            break
    if failing is not None:
        with ctx.db.transaction() as conn:
            vectorless_rows.failed(conn, failing)
    return filled


def _fill(ctx: Context, rows: list[dict[str, Any]]) -> int:
    """Embed these rows as every writer embeds them (embedded_text, with their context) and write the
    vectors, with no lock held while the embedder works."""
    filled = 0
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        vectors = ctx.embedder.embed([embedded_text.of(r["content"], r["context"], memory_type=r["memory_type"],
                                                       subject=r["subject"]) for r in batch])
        with ctx.db.transaction() as conn:
            filled += vectorless_rows.fill(conn, list(zip(batch, vectors)))
    return filled


def record_waiting(ctx: Context) -> None:
    """MemoriesWithoutVector now (every tenant's): one count over index memories_without_vector. A gauge,
    so best effort: called after an erasure's commit or beside an embedder's failure, its own failure must
    not become the request's answer nor hide the error being raised."""
    try:
        ctx.metrics.record(MEMORIES_WITHOUT_VECTOR, vectorless_rows.count(ctx.db.connection()))
    except Exception as exc:  # noqa: BLE001 - the next sweep records it again
        log.warning("could not count the memories without their vector (%s)", public_description(exc))
