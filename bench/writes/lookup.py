"""The related look-up against the user's history: a stand-in-embedder import of the generated
file, stopped after chosen chunks to compare the look-up as the pipeline last sent it (the last
330 calls replayed) for the importing user against the same calls for a control user holding
copies of the user's current facts and no history, alternated call by call so that the machine's
load cancels out; with `EXPLAIN (ANALYZE, BUFFERS)` of one call for each, and the table's live and
dead rows. At the end, the same after a VACUUM.

    .venv/bin/python -m bench.writes.lookup [--import-turns 10000] [--at 1,5,10,15] [--out FILE]

A bench's measurement: it wraps the module functions for the length of the run."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.service import quiet_in_process_runtime
from bench.writes import bulk, corpus, phases

REPLAYED = 330  # about one chunk's look-ups


class _Recorder:
    """Stands in for a connection to capture the statement a function sends."""

    def __init__(self):
        self.sent = None

    def execute(self, sql, params):
        self.sent = (sql, params)
        return self

    def fetchall(self):
        return []


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.writes.lookup")
    parser.add_argument("--import-turns", type=int, default=10_000)
    parser.add_argument("--at", default="1,5,10,15", help="chunks (of 500 turns) after which to measure")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    at = {int(x) for x in args.at.split(",")}
    quiet_in_process_runtime()
    from infra.local.runtime import LocalRuntime

    report = []
    with tempfile.TemporaryDirectory(prefix="memex-bench-lookup-") as home:
        runtime = LocalRuntime(Path(home) / "memex").start()
        try:
            import memex.backfill as backfill
            import memex.db.memories as memory_rows
            from memex_edge.context import get_context

            ctx = get_context()
            lookup, chunk = memory_rows.related_active, backfill._do_chunk
            calls: list[tuple] = []
            chunks = [0]

            def recorded(conn, *a, **k):
                calls.append(a)
                return lookup(conn, *a, **k)

            def measured(*a, **k):
                try:
                    return chunk(*a, **k)
                finally:
                    chunks[0] += 1
                    if chunks[0] in at:
                        report.append(_measure(ctx, lookup, calls[-REPLAYED:], str(chunks[0])))

            memory_rows.related_active, backfill._do_chunk = recorded, measured
            try:
                path = corpus.write_file(Path(home) / "history.jsonl", args.import_turns, bulk.USER, None)
                with phases.timed(ctx.embedder, True):
                    bulk.run(runtime, path, 500)
                report.append(_measure(ctx, lookup, calls[-REPLAYED:], "end"))
                ctx.db.connection().execute("VACUUM memories")
                report.append(_measure(ctx, lookup, calls[-REPLAYED:], "end, vacuumed"))
            finally:
                memory_rows.related_active, backfill._do_chunk = lookup, chunk
        finally:
            runtime.stop()
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, default=str))


def _measure(ctx, lookup, sample: list[tuple], label: str) -> dict:
    conn = ctx.db.connection()
    control = f"control-{label}"
    columns = [r["column_name"] for r in conn.execute(
        """SELECT column_name FROM information_schema.columns
           WHERE table_name = 'memories' AND is_generated = 'NEVER' ORDER BY ordinal_position""")]
    copied = {"id": "%(c)s || ':' || id", "user_id": "%(c)s", "dedupe_key": "%(c)s || ':' || dedupe_key",
              "supersedes": "NULL"}
    with ctx.db.transaction() as tx:
        tx.execute(f"""INSERT INTO memories ({', '.join(columns)})
                       SELECT {', '.join(copied.get(c, c) for c in columns)} FROM memories
                       WHERE tenant_id = %(t)s AND user_id = %(u)s AND active AND memory_type = 'semantic'""",
                   {"c": control, "t": bulk.TENANT, "u": bulk.USER})
    times: dict[str, list[float]] = {"user": [], "control": []}
    for turn in range(2):  # each first in one round
        for call in sample:
            pair = [("user", call), ("control", (call[0], control) + call[2:])]
            for who, args in pair if turn == 0 else reversed(pair):
                started = time.perf_counter()
                lookup(conn, *args)
                times[who].append(time.perf_counter() - started)
    stats = conn.execute("SELECT n_live_tup, n_dead_tup, autovacuum_count FROM pg_stat_user_tables "
                         "WHERE relname = 'memories'").fetchone()
    current = conn.execute("""SELECT count(*) AS n FROM memories WHERE tenant_id = %s AND user_id = %s AND active
                              AND memory_type = 'semantic'""", (bulk.TENANT, bulk.USER)).fetchone()["n"]
    row = {"after_chunk": label, "current_facts": current, **stats, "load": os.getloadavg()[0],
           "user_ms_p50": statistics.median(times["user"]) * 1e3,
           "control_ms_p50": statistics.median(times["control"]) * 1e3,
           "plan_user": _explain(conn, lookup, sample[-1]),
           "plan_control": _explain(conn, lookup, (sample[-1][0], control) + sample[-1][2:])}
    row["ratio"] = row["user_ms_p50"] / row["control_ms_p50"]
    print(f"after chunk {label}: {current} current facts, {stats['n_dead_tup']} dead rows, load {row['load']:.1f}: "
          f"look-up p50 {row['user_ms_p50']:.2f} ms against the control's {row['control_ms_p50']:.2f} "
          f"(x{row['ratio']:.2f}); one call: {row['plan_user'][0]} against {row['plan_control'][0]}", flush=True)
    return row


def _explain(conn, lookup, args) -> list[str]:
    recorder = _Recorder()
    lookup(recorder, *args)
    sql, params = recorder.sent
    plan = [r["QUERY PLAN"] for r in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)]
    return [next(line.strip() for line in plan if "Buffers:" in line), plan[-1]] + plan


if __name__ == "__main__":
    main()
