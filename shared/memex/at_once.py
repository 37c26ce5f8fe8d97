"""A worker job's LLM reads run at once, on one pool of threads for the whole process.

An extraction batch's turns are read at once, a supersession batch's users judged at once: one after
another, a full batch waited ten of a slow model's answers and the queues backed up (bench/soak
--llm-delay 2). A pool of MEMEX_LLM_CONCURRENCY threads for each kind of read (a turn's extraction,
a user's judgement) is made at the first batch that needs it and kept: a pool a batch started and
joined threads for every SQS batch. Every invocation of a Lambda environment shares it, and so do
the local runtime's pollers; one a kind, so that a backlog of turns to read does not hold up the
judgements behind it, as the two workers are functions of their own in AWS. The threads hold no
database connection of their own (db/connection.py, borrow_only): they borrow one of
MEMEX_LLM_DB_CONNECTIONS for each stretch of database work, none while the model answers.
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable

from memex.context import Context
from memex.db.connection import borrow_only

_pools: dict[tuple[str, int], ThreadPoolExecutor] = {}  # by kind and size (a test's settings may change it)
_pools_lock = threading.Lock()


def at_once(ctx: Context, kind: str, call: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """`call` of each item on the pool of this `kind` of read, up to `llm_concurrency` at once when an
    LLM is configured (its calls wait on the network; the rules would only contend for the GIL), each
    in a copy of this context so that its chat calls keep the job's time budget. The first exception
    is raised once all are done."""
    size = ctx.settings.llm_concurrency
    if size <= 1 or len(items) <= 1 or not ctx.settings.llm_configured:
        return [call(item) for item in items]  # on this thread, with its own connection
    pool = _pool(kind, size)
    futures = [pool.submit(contextvars.copy_context().run, call, item) for item in items]
    wait(futures)
    return [future.result() for future in futures]


def _pool(kind: str, size: int) -> ThreadPoolExecutor:
    """The process's pool of `size` threads for this kind of read, made at its first use."""
    with _pools_lock:
        pool = _pools.get((kind, size))
        if pool is None:
            pool = _pools[kind, size] = ThreadPoolExecutor(size, thread_name_prefix=f"memex-llm-{kind}",
                                                           initializer=borrow_only)
        return pool
