"""A user's sessions page by page (`GET /v1/users/{id}/sessions`'s statement), and what a turn's
insert costs beside it, for this checkout and others in one run.

    PYTHONPATH=.:shared python -m bench.sessions [--source DIR ...] [--turns 20000] [--limit 50]
        [--repeats 5] [--writes 300] [--out /tmp/sessions.json]

`--source` measures other checkouts too (say a clone of main, `git clone -q /work/main /tmp/main`),
each in a fresh interpreter of its own on an embedded Postgres of its own, migrated by its own
migrations and filled with the same rows: checkouts alternate, `--rounds` times. Three users of
`--turns` turns each (two messages a turn), 50 other users of `--turns` turns in all beside them:

- short: sessions of 20 turns (every 7th with a turn said after all the others);
- single: a session a turn;
- long: ten sessions, their turns interleaved;

and a fourth of 200 sessions of 50 turns whatever `--turns`, five of them (spread from the latest to
the oldest) sent by one agent and the others by another: "agent" lists that one agent's
(`?agent_id=`), each session walked checked for a turn of it.

Every page of each user is read (`memex.db.sessions.of_user`, `--limit` sessions a page),
`--repeats` times, each page timed: p50 and p95 a page, milliseconds. The pages themselves are
hashed: the checkouts must answer the same. Then `--writes` turns of two messages, an agent's, are
inserted as `POST /v1/turns` stores them (`ensure_tenant` and `insert_turn`, one transaction), alternating a
turn added to a long session and a turn opening a session of its own, in blocks of 20 with and
without the triggers on turns and messages (the sessions' rows of migration 0025; none before it):
p50 and p95 a turn, milliseconds. Last, the erasure of ten of the long user's sessions and of ten
of the other users, one transaction each (`memex.db.erasure`): p50 and p95, milliseconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TENANT = "bench-sessions"
# What is listed: the user, and the agent whose sessions only.
SHAPES = {"short": ("short", None), "single": ("single", None), "long": ("long", None), "agent": ("agent", "a1")}
AGENT_SESSIONS = (3, 50, 100, 150, 197)
BLOCK = 20


def _fill(conn, turns: int) -> None:
    """The same rows whatever the schema: plain inserts into turns and messages."""
    minute = "timestamptz '2026-01-01T00:00:00Z' + make_interval(mins => g)"
    session_of = {
        "short": "'s' || lpad((g / 20)::text, 6, '0')",
        "single": "'s' || lpad(g::text, 6, '0')",
        "long": "'s' || (g %% 10)",
    }
    conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (TENANT,))
    for shape, session in session_of.items():
        # the short sessions' every 7th has its last turn said after every other turn of the user
        at = (f"CASE WHEN (g / 20) %% 7 = 0 AND g %% 20 = 19 THEN {minute} + make_interval(days => 365) ELSE {minute} END"
              if shape == "short" else minute)
        conn.execute(f"""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                         SELECT %s, %s || '-' || g, %s, {session}, {at} FROM generate_series(0, %s - 1) g""",
                     (TENANT, shape, shape, turns))
    conn.execute(f"""INSERT INTO turns (tenant_id, id, user_id, session_id, agent_id, occurred_at)
                     SELECT %s, 'agent-' || g, 'agent', 's' || lpad((g / 50)::text, 6, '0'),
                            CASE WHEN g / 50 = ANY(%s) THEN 'a1' ELSE 'a2' END, {minute}
                     FROM generate_series(0, 9999) g""", (TENANT, list(AGENT_SESSIONS)))
    conn.execute(f"""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                     SELECT %s, 'other-' || g, 'other-' || (g %% 50), 's' || (g / 1000), {minute}
                     FROM generate_series(0, %s - 1) g""", (TENANT, turns))
    conn.execute("""INSERT INTO messages (tenant_id, id, turn_id, position, role, content)
                    SELECT t.tenant_id, t.id || '-' || p, t.id, p, 'user', 'A line of the conversation.'
                    FROM turns t, generate_series(0, 1) p WHERE t.tenant_id = %s""", (TENANT,))
    conn.execute("ANALYZE turns")
    conn.execute("ANALYZE messages")


def _pages(conn, user_id: str, agent_id: str | None, limit: int) -> tuple[list[list[dict]], list[float]]:
    from memex.db import sessions

    pages, times, after = [], [], None
    while True:
        started = time.perf_counter()
        page, after = sessions.of_user(conn, TENANT, user_id, limit, after, agent_id)
        times.append(time.perf_counter() - started)
        pages.append(page)
        if after is None:
            return pages, times


def _writes(conn, count: int) -> dict[str, list[float]]:
    """A turn's insert transaction, with the triggers on turns and messages and without them."""
    from datetime import datetime, timezone

    from memex.db import tenants as tenant_rows
    from memex.db import turns as turn_rows
    from memex.models import TurnIn

    timed: dict[str, list[float]] = {"with": [], "without": []}
    for i in range(2 * count):
        block = i // BLOCK
        variant = "with" if block % 2 == 0 else "without"
        if i % BLOCK == 0:
            for table in ("turns", "messages"):
                conn.execute(f"ALTER TABLE {table} {'ENABLE' if variant == 'with' else 'DISABLE'} TRIGGER USER")
        session = f"s{i % 10}" if i % 2 == 0 else f"new-{i}"
        turn = TurnIn.model_validate({"user_id": "long", "session_id": session, "agent_id": "writer", "messages": [
            {"role": "user", "content": f"I said this, line {i}."}, {"role": "assistant", "content": "Noted."}]})
        started = time.perf_counter()
        with conn.transaction():
            tenant_rows.ensure_tenant(conn, TENANT)
            turn_rows.insert_turn(conn, TENANT, turn, datetime.now(timezone.utc))
        timed[variant].append(time.perf_counter() - started)
    for table in ("turns", "messages"):
        conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
    return timed


def _erasures(conn) -> dict[str, list[float]]:
    """The long user's ten sessions erased one by one (2,000 turns each, and the turns added by
    `_writes`), then ten of the other users (400 turns each), as the erasure routes erase them."""
    from memex.db import erasure

    timed: dict[str, list[float]] = {"session": [], "user": []}
    for kind, targets in (("session", [("long", f"s{i}") for i in range(10)]),
                          ("user", [(f"other-{i}", None) for i in range(10)])):
        for user_id, session_id in targets:
            started = time.perf_counter()
            with conn.transaction():
                if session_id is None:  # whole, in this one transaction: the chunks as large as the user
                    erasure.begin_user(conn, TENANT, user_id)
                    while not erasure.user_chunk(conn, TENANT, user_id, sys.maxsize)[1]:
                        pass
                else:
                    erasure.session(conn, TENANT, session_id, user_id)
            timed[kind].append(time.perf_counter() - started)
    return timed


def child(turns: int, limit: int, repeats: int, writes: int) -> dict:
    """Run in a fresh interpreter with the measured checkout first on the path."""
    import psycopg
    from psycopg.rows import dict_row

    import memex
    from infra.local.runtime import LocalRuntime

    result: dict = {"memex": str(Path(memex.__file__).resolve().parents[2])}
    with tempfile.TemporaryDirectory(prefix="memex-bench-sessions-") as home:
        os.environ.pop("DATABASE_URL", None)
        runtime = LocalRuntime(Path(home) / "memex")
        runtime.start_database()
        try:
            with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, row_factory=dict_row) as conn:
                started = time.perf_counter()
                _fill(conn, turns)
                result["fill_s"] = time.perf_counter() - started
                for shape, (user_id, agent_id) in SHAPES.items():
                    _pages(conn, user_id, agent_id, limit)  # warms the cache and the plans
                    times: list[float] = []
                    for _ in range(repeats):
                        pages, taken = _pages(conn, user_id, agent_id, limit)
                        times += taken
                    digest = hashlib.sha256(json.dumps(pages, sort_keys=True, default=str).encode()).hexdigest()
                    result[shape] = {"pages": len(pages), "times": times, "digest": digest[:16],
                                     "sessions": sum(len(p) for p in pages)}
                result["writes"] = _writes(conn, writes)
                result["erasure"] = _erasures(conn)
        finally:
            runtime.stop()
    return result


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _run_child(source: Path, args: argparse.Namespace) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), str(source / "shared")]),
           "POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}
    for name in ("DATABASE_URL", "MEMEX_HOME"):
        env.pop(name, None)
    # this file as a script: the measured checkout need not have it
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "--turns", str(args.turns),
                           "--limit", str(args.limit), "--repeats", str(args.repeats), "--writes", str(args.writes)],
                          cwd=source, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{source}: the child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sessions")
    parser.add_argument("--source", type=Path, action="append", default=[])
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.turns, args.limit, args.repeats, args.writes)))
        return
    sources = [ROOT, *(s.resolve() for s in args.source)]
    runs: dict[str, list[dict]] = {str(s): [] for s in sources}
    for _ in range(args.rounds):
        for source in sources:
            runs[str(source)].append(_run_child(source, args))
    report: dict = {"turns": args.turns, "limit": args.limit, "repeats": args.repeats, "rounds": args.rounds,
                    "load": os.getloadavg(), "checkouts": {}}
    for source, results in runs.items():
        summary: dict = {}
        for shape in SHAPES:
            times = [t for r in results for t in r[shape]["times"]]
            summary[shape] = {"pages": results[0][shape]["pages"], "sessions": results[0][shape]["sessions"],
                              "digest": results[0][shape]["digest"],
                              "p50_ms": 1000 * _percentile(times, 50), "p95_ms": 1000 * _percentile(times, 95)}
        for variant in ("with", "without"):
            times = [t for r in results for t in r["writes"][variant]]
            summary[f"turn_{variant}_triggers"] = {"p50_ms": 1000 * _percentile(times, 50),
                                                   "p95_ms": 1000 * _percentile(times, 95), "turns": len(times)}
        for kind in ("session", "user"):
            times = [t for r in results for t in r["erasure"][kind]]
            summary[f"erase_{kind}"] = {"p50_ms": 1000 * _percentile(times, 50), "p95_ms": 1000 * _percentile(times, 95),
                                        "erased": len(times)}
        report["checkouts"][source] = summary
    for source, summary in report["checkouts"].items():
        print(f"\n{source}: a page of {args.limit} sessions (ms), users of {args.turns} turns")
        for shape in SHAPES:
            s = summary[shape]
            print(f"  {shape:7} {s['pages']:4} pages, {s['sessions']:6} sessions: p50 {s['p50_ms']:7.2f}  "
                  f"p95 {s['p95_ms']:7.2f}  pages {s['digest']}")
        for variant in ("with", "without"):
            s = summary[f"turn_{variant}_triggers"]
            print(f"  a turn's insert, {variant} the triggers on turns and messages ({s['turns']}): "
                  f"p50 {s['p50_ms']:.2f}  p95 {s['p95_ms']:.2f}")
        for kind, what in (("session", "a session of 2,000 turns"), ("user", "a user of 400 turns")):
            s = summary[f"erase_{kind}"]
            print(f"  erasing {what} ({s['erased']}): p50 {s['p50_ms']:.2f}  p95 {s['p95_ms']:.2f}")
    digests = {source: tuple(s[shape]["digest"] for shape in SHAPES) for source, s in report["checkouts"].items()}
    report["same_pages"] = len(set(digests.values())) == 1
    print(f"\nthe same pages in every checkout: {report['same_pages']}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    # run as a script (a checkout's child): its folder is no package of the path
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    main()
