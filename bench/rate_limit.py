"""What the Postgres rate limiter costs a request, and whether it holds under contention, on the
embedded Postgres (data dir under /tmp):

    .venv/bin/python -m bench.rate_limit [--requests 2000] [--threads 8] [--logged]

- one caller: latency of `rate_limit.admit` (one INSERT ... ON CONFLICT DO UPDATE ... RETURNING)
  p50 / p99, the same bucket request after request;
- contention: `--threads` threads, each its own connection, on one tenant's bucket (one hot row)
  and then each on a tenant of its own; admissions per second, and how many were admitted
  against a limit of half the requests (never more than the limit plus what refills meanwhile).

--logged runs it on a logged buckets table, to see what the migration's UNLOGGED saves.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path


def _admit_many(ctx, callers, per_thread: int) -> tuple[float, int]:
    from memex import rate_limit

    start = threading.Barrier(len(callers) + 1)
    admitted = [0] * len(callers)

    def run(i: int) -> None:
        ctx.db.connection()
        start.wait()
        for _ in range(per_thread):
            admitted[i] += rate_limit.admit(ctx, callers[i]).admitted
        ctx.db.reset()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(callers))]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began, sum(admitted)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rate_limit")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--logged", action="store_true")
    args = parser.parse_args()

    import os

    os.environ.pop("DATABASE_URL", None)
    from infra.local.runtime import LocalRuntime

    runtime = LocalRuntime(Path(tempfile.mkdtemp(prefix="memex-ratelimit-")))
    runtime.start_database()
    try:
        from memex import rate_limit
        from memex.rate_limit import Caller
        from memex_edge.context import get_context

        ctx = get_context()
        if args.logged:
            ctx.db.connection().execute("ALTER TABLE rate_limit_buckets SET LOGGED")
        one = Caller(f"bench-{uuid.uuid4().hex[:8]}", tenant_limit=f"{args.requests * 10}/h")
        timings = []
        for _ in range(args.requests):
            began = time.perf_counter()
            rate_limit.admit(ctx, one)
            timings.append((time.perf_counter() - began) * 1000)
        timings.sort()
        print(f"one caller, {args.requests} requests: admit p50 {statistics.median(timings):.3f} ms, "
              f"p99 {timings[int(len(timings) * 0.99)]:.3f} ms")

        per_thread = args.requests // args.threads
        total = per_thread * args.threads
        limit = total // 2
        hot = Caller(f"bench-{uuid.uuid4().hex[:8]}", tenant_limit=f"{limit}/h")
        seconds, admitted = _admit_many(ctx, [hot] * args.threads, per_thread)
        print(f"{args.threads} threads, one tenant's bucket: {total / seconds:,.0f} admits/s; "
              f"{admitted} of {total} admitted against a limit of {limit}/h")
        apart = [Caller(f"bench-{uuid.uuid4().hex[:8]}", tenant_limit=f"{total}/h") for _ in range(args.threads)]
        seconds, admitted = _admit_many(ctx, apart, per_thread)
        print(f"{args.threads} threads, a tenant each: {total / seconds:,.0f} admits/s; {admitted} of {total} admitted")
    finally:
        runtime.stop()


if __name__ == "__main__":
    main()
