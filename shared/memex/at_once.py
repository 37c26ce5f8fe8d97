"""A worker job's LLM reads run at once, on one pool of threads for the whole process.

An extraction batch's turns are read at once, a supersession batch's users judged at once: one after
another, a full batch waited ten of a slow model's answers and the queues backed up (bench/soak
--llm-delay 2). The pool is made once, at the first batch that needs it, and kept: a pool a batch
started and joined threads for every SQS batch. Every poller of the local runtime and every invocation
of a Lambda environment shares it, so at most MEMEX_LLM_CONCURRENCY chat calls wait at once in a
process. Its threads hold no database connection of their own (db/connection.py, borrow_only): they
borrow one of MEMEX_LLM_DB_CONNECTIONS for each stretch of database work, none while the model answers.
"""

from __future__ import annotations

import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable

from memex.context import Context
from memex.db.connection import borrow_only

_pools: dict[int, ThreadPoolExecutor] = {}  # by size: one in a process whose settings do not change
_pools_lock = threading.Lock()


def at_once(ctx: Context, call: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """`call` of each item, up to `llm_concurrency` at once when an LLM is configured (its calls wait
    on the network; the rules would only contend for the GIL), each in a copy of this context so that
    its chat calls keep the job's time budget. The first exception is raised once all are done."""
    size = ctx.settings.llm_concurrency
    if size <= 1 or len(items) <= 1 or not ctx.settings.llm_configured:
        return [call(item) for item in items]  # on this thread, with its own connection
    pool = _pool(size)
    futures = [pool.submit(contextvars.copy_context().run, call, item) for item in items]
    wait(futures)
    return [future.result() for future in futures]


def _pool(size: int) -> ThreadPoolExecutor:
    """The process's pool of `size` threads, made at its first use."""
    with _pools_lock:
        pool = _pools.get(size)
        if pool is None:
            pool = _pools[size] = ThreadPoolExecutor(size, thread_name_prefix="memex-llm", initializer=borrow_only)
        return pool
