"""The write path, the workers and bulk import, measured in one run on an in-process local
runtime (embedded Postgres, SQS on a loopback moto server, the offline extractor and the rules
judge: no LLM).

    .venv/bin/python -m bench.writes [--parts api,workers,import,indexes] [--requests 300]
        [--worker-turns 500] [--import-turns 20000] [--block 1000] [--data ../shared/bench/locomo-dev.json]
        [--phases] [--stand-in-embedder] [--index-writes 300] [--out /tmp/writes.json]

- api: `POST /v1/turns` p50/p95 through the ASGI app against its physical floor (one insert
  transaction + one SQS send), alternating, in the same run (bench/writes/api.py).
- workers: turns/s through the extraction and supersession workers, records ten at a time
  (embedded together) against one at a time, on the same lines (bench/writes/workers.py).
- import: `memex backfill` of a generated file of one-message turns into one user, turns/s per
  block of `--block` turns, first to last (bench/writes/bulk.py). With --data, LoCoMo lines
  stand in for the chatter (read from where they are, never copied). --phases prints where the
  time went, step by step and chunk by chunk; --stand-in-embedder replaces the embedder by one
  that costs next to nothing, to time everything else (bench/writes/phases.py).
- indexes (not in the default parts): a turn's and a memory's insert transaction, p50/p95, with the
  schema as shipped and with one piece of bookkeeping taken off or put back (the sessions' rows,
  the turns' indexes, memory_postings_by_tf), `--index-writes` of each, in alternating blocks
  (bench/writes/indexes.py).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from contextlib import nullcontext

from bench.service import quiet_in_process_runtime
from bench.writes import api, bulk, corpus, indexes, phases, workers


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.writes")
    parser.add_argument("--parts", default="api,workers,import")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--worker-turns", type=int, default=500)
    parser.add_argument("--import-turns", type=int, default=20_000)
    parser.add_argument("--block", type=int, default=1000)
    parser.add_argument("--data", type=Path)
    parser.add_argument("--phases", action="store_true")
    parser.add_argument("--stand-in-embedder", action="store_true")
    parser.add_argument("--index-writes", type=int, default=300)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    parts = args.parts.split(",")
    quiet_in_process_runtime()
    from infra.local.runtime import LocalRuntime

    report: dict = {"blas_threads": os.environ.get("MEMEX_EMBEDDINGS_BLAS_THREADS", "1 (default)"),
                    "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="memex-bench-writes-") as home:
        runtime = LocalRuntime(Path(home) / "memex").start()
        try:
            from memex_edge.context import get_context

            get_context().embedder.embed(["the model loads before anything is timed"])
            if "api" in parts:
                report["api"] = api.run(args.requests)
                _print_api(report["api"])
            if "workers" in parts:
                report["workers"] = workers.run(runtime, args.worker_turns)
                _print_workers(report["workers"])
            if "import" in parts:
                path = corpus.write_file(Path(home) / "history.jsonl", args.import_turns, bulk.USER, args.data)
                timing = (phases.timed(get_context().embedder, args.stand_in_embedder)
                          if args.phases or args.stand_in_embedder else nullcontext())
                with timing as steps:
                    report["import"] = bulk.run(runtime, path, args.block)
                _print_import(report["import"], args.block)
                if steps is not None:
                    phases.print_report(steps)
                    report["import"]["phases"] = steps
            if "indexes" in parts:
                report["indexes"] = indexes.run(args.index_writes)
                _print_indexes(report["indexes"])
        finally:
            runtime.stop()
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, default=str))


def _print_api(r: dict) -> None:
    print(f"\nPOST /v1/turns ({r['requests']} requests, ASGI app, alternating with the floor)")
    print(f"  {'':28} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"  {'POST /v1/turns':28} {r['api']['p50_ms']:8.2f} {r['api']['p95_ms']:8.2f}")
    print(f"  {'floor: insert txn + SQS send':28} {r['floor']['p50_ms']:8.2f} {r['floor']['p95_ms']:8.2f}")
    print(f"  {'ratio':28} {r['ratio_p50']:8.2f} {r['ratio_p95']:8.2f}")


def _print_indexes(r: dict) -> None:
    print(f"\na write's bookkeeping, one piece off or back at a time ({r['users']} users' rows already there)")
    print(f"  {'':70} {'p50 ms':>8} {'p95 ms':>8}")
    for name, v in r["variants"].items():
        print(f"  {name:70} {v['p50_ms']:8.2f} {v['p95_ms']:8.2f}")


def _print_workers(r: dict) -> None:
    print(f"\nworkers, end to end, offline ({r['turns']} one-message turns each)")
    for name in ("batched", "one_by_one"):
        print(f"  {name.replace('_', ' '):28} {r[name]['turns_per_s']:8.1f} turns/s  ({r[name]['seconds']:.1f} s)")
    print(f"  speedup {r['speedup']:.2f}x; same memories written: {'yes' if r['same_memories'] else 'NO'}")


def _print_import(r: dict, block: int) -> None:
    s = r["status"]
    print(f"\nmemex backfill: {s['done']} turns imported ({s['failed']} failed) into one user in {r['seconds']:.1f} s: "
          f"{r['turns_per_s']:.1f} turns/s")
    print(f"  memories: {r['episodic']} episodic, {r['semantic']} semantic ({r['active']} current); "
          f"keys with more than one current value among single-valued keys: {r['doubled_keys']}")
    print(f"  turns/s per block of {block}: " + " ".join(f"{b:.0f}" for b in r["blocks"]))
    first, last = r["blocks"][0], r["blocks"][-1]
    print(f"  last block / first block: {last / first:.2f}; load average (1, 5, 15 min) at the end: "
          + ", ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
