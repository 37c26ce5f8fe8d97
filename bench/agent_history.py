"""An agent's search and recall when it heard thousands of facts that later ended, against the same
user's unscoped ones, for this checkout and others in one run.

    PYTHONPATH=.:shared python -m bench.agent_history [--source DIR ...] [--sizes 0,1000,10000,50000]
        [--chains 1,10,100] [--others 50000] [--repeats 20] [--budget 5] [--rounds 1] [--explain] [--out /tmp/agent-history.json]

In an agent's scope (`agent_id`) the current facts that replaced one the agent heard count as its
own (retrieval/current_first.py): recall's standing facts (recall_buckets.current_facts) and the
topic channel (memories.topic_statement) ask which those are. This measures that question by the
size of the agent's history. One embedded Postgres, migrated by this checkout and filled once, holds
per size N of `--sizes` and chain length L of `--chains` a user whose agent "coach" heard N facts
that later ended: N / L keys (the first "employer", the others "k1", "k2", ...), each a chain of L
facts the coach heard, each replaced by the next (one memory_links row each, as supersession writes
it: the older fact inactive with its valid_to, the newer one's metadata `decision` "update"), the
last replaced by the current one, which the agent "planner" heard. Beside them the coach's own 200
current facts. N = 0 is one user whatever the chains. Per size N of `--others` and each chain
length, a user of the same rows but for who heard them: the planner heard every fact, the ended
ones too, and the coach only its own 200 (what the coach's scope asks of the planner's history).

`--source` measures other checkouts too (say a clone of main), each in a fresh interpreter with its
code first on the path, against the same database: the checkouts must share its schema (this
checkout's migrations). Checkouts alternate, `--rounds` times. Per user, each timed `--repeats`
times after one untimed pass, or fewer (at least once) when they took `--budget` seconds (a walk of
seconds at 50k), milliseconds p50 / p95 and how many were timed:

- recall's standing facts (`current_facts`, 20), for the coach and unscoped;
- the topic channel's statement for "where does she work?" (keys of topics.asked), coach and unscoped;
- a hybrid search (`memex.retrieval.search.search`, top 10) of "where does she work?", coach and unscoped;
- a recall (`memex.recall.recall`) of the same question, coach and unscoped.

The answers (ids of each) are hashed: the checkouts must give the same. `--explain` adds, for the
largest user of each chain length, EXPLAIN (ANALYZE, BUFFERS) of the coach's two statements.
The HNSW index of memories is dropped before the fill: no user here is past vector_exact_max, so
no search walks it, and its row-by-row maintenance would be most of the fill.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TENANT = "bench-agent-history"
QUESTION = "where does she work?"
OWN = 200
STANDING = 20


def _users(sizes: list[int], chains: list[int], others: list[int]) -> list[tuple[str, int, int, str]]:
    """(user, ended facts, chain length, the agent that heard them)."""
    users = [("none", 0, 1, "coach")] if 0 in sizes else []
    return users + [(f"n{n}-l{length}", n, length, "coach") for length in chains for n in sizes if n] \
        + [(f"other{n}-l{length}", n, length, "planner") for length in chains for n in others if n]


def _fill(conn, users: list[tuple[str, int, int, str]], dim: int) -> None:
    """Rows as the pipeline writes them, in bulk: memories (with an embedding of noise, the same
    for every checkout: setseed) and the memory_links of each chain."""
    conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (TENANT,))
    conn.execute("DROP INDEX IF EXISTS memories_embedding")
    conn.execute("SELECT setseed(0.25)")
    vector = f"ARRAY(SELECT random() - 0.5 FROM generate_series(1, {dim}) WHERE g >= 0)::vector"
    day = "timestamptz '2025-01-01T00:00:00Z' + make_interval(hours => {i})"
    for user, ended, length, heard in users:
        conn.execute(f"""INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, memory_type, type, key,
                                               value, content, importance, embedding, active, valid_from, metadata)
                         SELECT %(t)s, %(u)s || '-own-' || g, %(u)s, 'coach', 'c' || (g / 20), 'semantic', 'fact',
                                'own' || g, 'v' || g, 'The user likes running route ' || g || ' near the river.',
                                0.5, {vector}, true, {day.format(i='g')}, '{{"decision": "add"}}'
                         FROM generate_series(0, %(n)s - 1) g""", {"t": TENANT, "u": user, "n": OWN})
        if not ended:
            continue
        # fact i of key k: i < length `heard`'s, ended by i + 1; i = length the planner's, current
        key = "CASE WHEN g / (%(l)s + 1) = 0 THEN 'employer' ELSE 'k' || (g / (%(l)s + 1)) END"
        step = "g %% (%(l)s + 1)"
        conn.execute(f"""INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, memory_type, type, key,
                                               value, content, importance, embedding, active, valid_from, valid_to,
                                               metadata)
                         SELECT %(t)s, %(u)s || '-' || g, %(u)s, CASE WHEN {step} < %(l)s THEN %(h)s ELSE 'planner' END,
                                CASE WHEN {step} < %(l)s THEN 'c' ELSE 'p' END || (g / 50), 'semantic', 'fact',
                                {key}, 'Company ' || g, 'The user''s ' || {key} || ' is Company ' || g || '.', 0.5,
                                {vector}, {step} = %(l)s, {day.format(i='1000 + ' + step)},
                                CASE WHEN {step} < %(l)s THEN {day.format(i='1001 + ' + step)} END,
                                CASE WHEN {step} = 0 THEN '{{"decision": "add"}}'
                                     ELSE '{{"decision": "update"}}' END::jsonb
                         FROM generate_series(0, %(n)s / %(l)s * (%(l)s + 1) - 1) g""",
                     {"t": TENANT, "u": user, "n": ended, "l": length, "h": heard})
        conn.execute("""INSERT INTO memory_links (tenant_id, memory_id, replaced_id)
                        SELECT %(t)s, %(u)s || '-' || (g + 1), %(u)s || '-' || g
                        FROM generate_series(0, %(n)s / %(l)s * (%(l)s + 1) - 1) g WHERE g %% (%(l)s + 1) < %(l)s""",
                     {"t": TENANT, "u": user, "n": ended, "l": length})
    conn.execute("VACUUM ANALYZE memories")
    conn.execute("VACUUM ANALYZE memory_links")


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class _Explaining:
    """A connection whose execute runs EXPLAIN (ANALYZE, BUFFERS) of the statement instead."""

    def __init__(self, conn):
        self.conn, self.plans = conn, []

    def execute(self, sql, params=None):
        self.plans.append("\n".join(r["QUERY PLAN"] for r in self.conn.execute(
            "EXPLAIN (ANALYZE, BUFFERS) " + sql, params).fetchall()))
        return self.conn.execute("SELECT 1 WHERE false")


def child(users: list[tuple[str, int, int, str]], repeats: int, budget: float, explain: bool) -> dict:
    """Run in a fresh interpreter with the measured checkout first on the path, DATABASE_URL set."""
    from memex.config import load_settings
    from memex.db import memories as memory_rows
    from memex.db import recall_buckets
    from memex.models import RecallIn, SearchFilters, SearchIn
    from memex.recall import recall
    from memex.retrieval import search as search_module
    from memex.retrieval import topics
    from memex_edge.context import build_context

    ctx = build_context(load_settings())
    keys = topics.asked(QUESTION).keys
    calls = {
        "standing": lambda conn, user, agent: recall_buckets.current_facts(conn, TENANT, user, agent, STANDING),
        "topic": lambda conn, user, agent: memory_rows.topic_statement(
            TENANT, user, agent, SearchFilters(), False, keys, search_module.TOPIC_FACTS).run(conn).ranked,
        "search": lambda conn, user, agent: [r["id"] for r in search_module.search(
            ctx, TENANT, SearchIn(user_id=user, query=QUESTION, agent_id=agent))["results"]],
        "recall": lambda conn, user, agent: [c["memory_id"] for c in recall(
            ctx, TENANT, RecallIn(user_id=user, query=QUESTION, agent_id=agent))["citations"]],
    }
    result: dict = {"memex": str(Path(search_module.__file__).resolve().parents[3]), "users": {}, "plans": {}}
    conn = ctx.db.connection()
    for user, *_ in users:
        figures: dict = {}
        for name, call in calls.items():
            for agent in ("coach", None):
                answer = call(conn, user, agent)  # warms the cache and the embedder
                times: list[float] = []
                while len(times) < repeats and (not times or sum(times) < budget):
                    started = time.perf_counter()
                    call(conn, user, agent)
                    times.append(time.perf_counter() - started)
                digest = hashlib.sha256(json.dumps(answer, default=str).encode()).hexdigest()[:16]
                figures[f"{name} {agent or 'unscoped'}"] = {"times": times, "digest": digest, "answers": len(answer)}
        result["users"][user] = figures
        print(f"{user}: " + ", ".join(f"{what} {1000 * statistics.median(f['times']):.1f} ms"
                                      for what, f in figures.items()), file=sys.stderr, flush=True)
    if explain:
        for length, heard in sorted({(length, heard) for _, n, length, heard in users if n}):
            user = max((u for u in users if u[2:] == (length, heard)), key=lambda u: u[1])[0]
            explaining = _Explaining(conn)
            recall_buckets.current_facts(explaining, TENANT, user, "coach", STANDING)
            statement = memory_rows.topic_statement(TENANT, user, "coach", SearchFilters(), False, keys,
                                                    search_module.TOPIC_FACTS)
            result["plans"][user] = {"standing": explaining.plans[0], "topic": "\n".join(
                r["QUERY PLAN"] for r in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement._sql,
                                                      statement._params).fetchall())}
    return result


def _run_child(source: Path, url: str, args: argparse.Namespace) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), str(source / "shared")]),
           "DATABASE_URL": url, "POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}
    for name in [n for n in env if n.startswith("MEMEX_")] + ["SQS_ENDPOINT_URL", "DATABASE_SECRET_ARN"]:
        env.pop(name, None)
    # this file as a script: the measured checkout need not have it
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "--sizes", args.sizes,
                           "--chains", args.chains, "--others", args.others, "--repeats", str(args.repeats),
                           "--budget", str(args.budget),
                           *(["--explain"] if args.explain else [])],
                          cwd=source, env=env, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{source}: the child failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.agent_history")
    parser.add_argument("--source", type=Path, action="append", default=[])
    parser.add_argument("--sizes", default="0,1000,10000,50000")
    parser.add_argument("--chains", default="1,10,100")
    parser.add_argument("--others", default="50000")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    # a plain `kill` must still stop the embedded Postgres and remove its data dir
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    users = _users(_ints(args.sizes), _ints(args.chains), _ints(args.others))
    if args.child:
        print(json.dumps(child(users, args.repeats, args.budget, args.explain)))
        return
    import psycopg

    from infra.local.runtime import LocalRuntime
    from memex.config import load_settings

    sources = [ROOT, *(s.resolve() for s in args.source)]
    runs: dict[str, list[dict]] = {str(s): [] for s in sources}
    with tempfile.TemporaryDirectory(prefix="memex-bench-agent-history-") as home:
        os.environ.pop("DATABASE_URL", None)
        runtime = LocalRuntime(Path(home) / "memex")
        runtime.start_database()
        try:
            url = os.environ["DATABASE_URL"]
            started = time.perf_counter()
            with psycopg.connect(url, autocommit=True) as conn:
                _fill(conn, users, load_settings().embedding_dim)
            print(f"filled in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            for _ in range(args.rounds):
                for source in sources:
                    runs[str(source)].append(_run_child(source, url, args))
        finally:
            runtime.stop()
    report: dict = {"sizes": args.sizes, "chains": args.chains, "others": args.others, "repeats": args.repeats,
                    "budget": args.budget, "rounds": args.rounds,
                    "load": os.getloadavg(), "checkouts": {}, "plans": {}}
    for source, results in runs.items():
        summary: dict = {}
        for user, *_ in users:
            summary[user] = {}
            for what, first in results[0]["users"][user].items():
                times = [t for r in results for t in r["users"][user][what]["times"]]
                summary[user][what] = {"p50_ms": 1000 * statistics.median(times), "timed": len(times),
                                       "p95_ms": 1000 * _percentile(times, 95),
                                       "digest": first["digest"], "answers": first["answers"]}
        report["checkouts"][source] = summary
        report["plans"][source] = results[0]["plans"]
    for source, summary in report["checkouts"].items():
        print(f"\n{source}: p50 / p95 ms (answers)")
        for user, n, length, heard in users:
            cells = "  ".join(f"{what} {s['p50_ms']:.2f}/{s['p95_ms']:.2f} ({s['answers']}, x{s['timed']})"
                              for what, s in summary[user].items())
            print(f"  {user:15} {heard:7} heard {n:6} ended, chain {length:3}: {cells}")
        for user, plans in report["plans"][source].items():
            for what, plan in plans.items():
                print(f"\n  EXPLAIN ANALYZE, {user}, the coach's {what}:\n" + plan)
    digests = {source: tuple(s[u][w]["digest"] for u in s for w in s[u])
               for source, s in report["checkouts"].items()}
    report["same_answers"] = len(set(digests.values())) == 1
    print(f"\nthe same answers in every checkout: {report['same_answers']}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    # run as a script (a checkout's child): its folder is no package of the path
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    main()
