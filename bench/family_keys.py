"""Migration 0033 (db/family_keys.py) timed on a large install, as MigrateFunction runs it.

    python -m bench.family_keys [--total 200000] [--sizes 1000,10000,50000] [--filler-size 1000]
        [--pending 1000] [--out results.json]

Starts the embedded Postgres on a fresh data dir under /tmp (removed at the end), applies the
migrations up to 0032 (an install before 0033), COPYs `--total` synthetic memories with bench.scale's
loader (one user of each of `--sizes`, filler users for the rest; a quarter facts, an eighth of those
under `job_title`), then shapes them as an earlier version left them: each fact from a turn of its
own with the dedupe key naming its key; for every other user, the cities said in the first half of
their history filed as `current_city`; each single-valued key's values superseded in turn (the latest
current, the others ended and linked); `--pending` turns extracted and not yet decided, their
candidate under `job_title`. Builds the text and vector indexes, then times `family_keys.migrate`
and, from a connection of its own polling every 10 ms, the longest time one user's lock was held;
then times it again, with nothing left to do (what each run of it pays before its first transaction).
Prints a Markdown table. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

import psycopg

from bench.scale import corpus, database

BEFORE = "0032_analyze_sooner"  # the last migration of an install that has not had 0033
APPLICATION = "memex-bench-family-keys"
# The first half of a user's history is where an earlier version's facts under an alias lie.
SHAPE = [
    # cities said in the first half of every other user's history, as a model filed them then
    """UPDATE memories SET key = 'current_city'
       WHERE memory_type = 'semantic' AND key = 'city' AND abs(hashtext(user_id)) %% 2 = 0
         AND valid_from < now() - make_interval(days => %(half)s)""",
    # each fact from a turn of its own, its value, and the dedupe key naming its key (pipeline._with_dedupe_keys)
    """INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status, extracted_at, resolved_at)
       SELECT tenant_id, id || '-t', user_id, session_id, valid_from, 'processed', valid_from, valid_from
       FROM memories WHERE memory_type = 'semantic'""",
    """UPDATE memories SET value = regexp_replace(content, '^The user(''s)? [a-z_ ]*(is|in|to|likes|thinks) ', ''),
                           source_turn_id = id || '-t'
       WHERE memory_type = 'semantic'""",
    """UPDATE memories SET dedupe_key = 'candidate:' || source_turn_id || ':' || key || ':' || lower(value)
       WHERE memory_type = 'semantic'""",
    # each single-valued key's values superseded in turn: the latest current, the others ended and linked
    """CREATE TEMP TABLE successors AS
       SELECT tenant_id, id, next_id, next_from FROM (
           SELECT tenant_id, id,
                  lead(id) OVER w AS next_id, lead(valid_from) OVER w AS next_from
           FROM memories WHERE memory_type = 'semantic' AND key = ANY(%(single)s)
           WINDOW w AS (PARTITION BY tenant_id, user_id, subject, key ORDER BY valid_from, created_at, id)) s
       WHERE next_id IS NOT NULL""",
    """UPDATE memories m SET active = false, valid_to = s.next_from FROM successors s
       WHERE m.tenant_id = s.tenant_id AND m.id = s.id""",
    """INSERT INTO memory_links (tenant_id, memory_id, replaced_id) SELECT tenant_id, next_id, id FROM successors""",
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--total", type=int, default=200_000, help="memories in the database")
    parser.add_argument("--sizes", default="1000,10000,50000", help="one user of each of these sizes")
    parser.add_argument("--filler-size", type=int, default=1_000, help="memories per filler user")
    parser.add_argument("--pending", type=int, default=1_000, help="turns extracted and not yet decided")
    parser.add_argument("--pool", type=int, default=20_000, help="distinct texts (bench.scale's pool)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache-dir", type=Path, default=corpus.CACHE_DIR,
                        help="where bench.scale keeps the pool's vectors between runs")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    progress = database.progress_on_stderr()
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    users = database.layout(args.total, sizes, 1, [], args.filler_size)
    progress(f"{len(users)} users, {sum(u.size for u in users):,} memories")
    with database.running(None, "memex-family-keys-") as (server, home):
        figures = run(args, users, server, home, progress)
    print(table(figures))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1))
    progress("done")


def run(args, users: list[database.User], server: database.Server, home: str, progress) -> dict:
    url = server.url("postgres")
    database.environment(url, home)
    from memex.config import load_settings
    from memex.db import family_keys
    from memex.extraction.aliases import family_key
    from memex.supersession import holds_several
    from memex_edge.context import build_context

    ctx = build_context(load_settings())
    texts, vectors = corpus.embedded_pool(args.pool, args.seed, ctx.embedder, args.cache_dir, progress)
    definitions, _ = database.fill(url, users, texts, vectors, args.seed, ctx.settings.embedding_dim, progress,
                                   through=BEFORE)
    shaped = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        keys = [r[0] for r in conn.execute("SELECT DISTINCT key FROM memories WHERE key IS NOT NULL")]
        single = [k for k in keys + ["current_city"] if not holds_several(k)]
        with conn.transaction():
            # The keyword statistics' triggers off: they count words, which the shaping does not change,
            # and row by row they would take longer than the load.
            conn.execute("SET LOCAL session_replication_role = replica")
            for statement in SHAPE:
                conn.execute(statement, {"half": database.HISTORY_DAYS // 2, "single": single})
        pending = [(database.TENANT, f"pending-{i}", users[i % len(users)].id) for i in range(args.pending)]
        with conn.cursor() as cur:
            cur.executemany(
                """INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status, extracted_at, candidates)
                   VALUES (%s, %s, %s, 'pending', now(), 'processing', now(), '[{"type": "fact", "key": "job_title",
                     "value": "nurse", "content": "The user is a nurse.", "confidence": 0.9, "importance": 0.7,
                     "source_message_id": null}]')""", pending)
    progress(f"shaped as an earlier version left them in {time.perf_counter() - shaped:.1f} s")
    database.build_indexes(url, definitions, progress)

    aliases = [k for k in keys + ["current_city"] if family_key("user", k) != k]
    count = """SELECT count(*) FILTER (WHERE key = ANY(%(a)s)), count(DISTINCT user_id) FILTER (WHERE key = ANY(%(a)s)),
                      count(*) FILTER (WHERE memory_type = 'semantic'), count(*) FILTER (WHERE memory_type = 'semantic' AND active),
                      count(*), (SELECT count(*) FROM memory_links), (SELECT count(*) FROM turns)
               FROM memories"""
    with psycopg.connect(url, autocommit=True) as conn:
        rekeyed, users_rekeyed, facts, current_before, memories, links_before, turns = conn.execute(count, {"a": aliases}).fetchone()
    progress(f"{rekeyed:,} facts of {users_rekeyed} users under {', '.join(aliases)}; migrating")
    with psycopg.connect(url, autocommit=True, application_name=APPLICATION) as conn, _LongestLock(url) as longest:
        conn.execute("SET statement_timeout = 0")  # as apply_migrations runs it
        began = time.perf_counter()
        family_keys.migrate(conn.cursor())
        seconds = time.perf_counter() - began
        # What every run of it pays before its first transaction (each invocation of a chain of
        # MigrateFunction's): its reads, with nothing left to do.
        began = time.perf_counter()
        family_keys.migrate(conn.cursor())
        seconds_again = time.perf_counter() - began
    with psycopg.connect(url, autocommit=True) as conn:
        left, _, _, current_after, _, links_after, _ = conn.execute(count, {"a": aliases}).fetchone()
        candidates_left = conn.execute("SELECT count(*) FROM turns WHERE candidates::text LIKE '%%job_title%%'").fetchone()[0]
    if left or candidates_left:
        raise RuntimeError(f"{left} facts and {candidates_left} pending turns still under an alias")
    progress(f"migrated in {seconds:.1f} s")
    return {"memories": memories, "users": len(users), "facts": facts, "turns": turns, "pending": args.pending,
            "rekeyed": rekeyed, "users_rekeyed": users_rekeyed, "ended": current_before - current_after,
            "linked": links_after - links_before, "seconds": round(seconds, 2), "seconds_again": round(seconds_again, 2),
            "longest_lock_seconds": round(longest.seconds, 3), "largest_user": max(u.size for u in users)}


class _LongestLock:
    """The longest a transaction of the migrator (its application name) held an advisory lock (a
    user's), sampled every 10 ms from a connection of its own."""

    def __init__(self, url: str):
        self.seconds = 0.0
        self._url, self._stop = url, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _LongestLock:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        with psycopg.connect(self._url, autocommit=True) as conn:
            while not self._stop.wait(0.01):
                held = conn.execute(
                    """SELECT max(extract(epoch FROM clock_timestamp() - a.xact_start)) FROM pg_stat_activity a
                       WHERE a.application_name = %s AND EXISTS (
                           SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted)""",
                    (APPLICATION,)).fetchone()[0]
                self.seconds = max(self.seconds, float(held or 0))


def table(f: dict) -> str:
    per_million = f["seconds"] * 1_000_000 / f["memories"]
    return "\n".join([
        "| memories | users | facts | turns (pending) | facts re-keyed (users) | ended, linked | 0033's time | re-keyed rows/s | memories/s | longest user lock | projected at 1M memories | run again, nothing left |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| {f['memories']:,} | {f['users']:,} (largest {f['largest_user']:,}) | {f['facts']:,} | {f['turns']:,} ({f['pending']:,}) "
        f"| {f['rekeyed']:,} ({f['users_rekeyed']:,}) | {f['ended']:,}, {f['linked']:,} | {f['seconds']:.1f} s "
        f"| {f['rekeyed'] / f['seconds']:,.0f} | {f['memories'] / f['seconds']:,.0f} | {f['longest_lock_seconds']:.2f} s "
        f"| {per_million:.0f} s | {f['seconds_again']:.2f} s |"])


if __name__ == "__main__":
    main()
