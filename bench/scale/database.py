"""The database under measurement: the embedded Postgres on a data dir under /tmp, the project's
migrations, synthetic users loaded with COPY, the text and vector indexes built afterwards."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from bench.scale import corpus

TENANT = "scale"
# Each user's rows reach the table in this many bursts spread over the whole load, as a year of
# conversations does: one user's memories are scattered over the heap, not stored side by side.
BURSTS = 200
HISTORY_DAYS = 730
COLUMNS = ("tenant_id", "id", "user_id", "session_id", "memory_type", "type", "key", "content", "context",
           "importance", "confidence", "embedding", "valid_from", "created_at")
TYPES = ("text",) * 9 + ("float4", "float4", "vector", "timestamptz", "timestamptz")
# Built after the load, as a bulk import would: maintaining them row by row is what COPY avoids.
DEFERRED_INDEX_METHODS = ("gin", "hnsw")
INDEX_BUILD_SETTINGS = {"maintenance_work_mem": "6GB", "max_parallel_maintenance_workers": "1",
                        "statement_timeout": "0"}

Progress = Callable[[str], None]


@dataclass(frozen=True)
class User:
    id: str
    size: int
    seed: int


def layout(total: int, sizes: list[int], users_per_size: int, extra_sizes: list[int],
           filler_size: int) -> list[User]:
    """The measured users (`users_per_size` of each size), one user of each other size the vector
    threshold is measured at, and filler users up to `total` memories."""
    users = [User(f"u{size}-{i}", size, 0) for size in sizes for i in range(users_per_size)]
    users += [User(f"t{size}", size, 0) for size in extra_sizes if size not in sizes]
    remaining = total - sum(u.size for u in users)
    if remaining < 0:
        raise SystemExit(f"--total {total} is smaller than the measured users' {total - remaining} memories")
    fillers = 0
    while remaining > 0:
        size = min(filler_size, remaining)
        users.append(User(f"f{fillers}", size, 0))
        fillers += 1
        remaining -= size
    return [User(u.id, u.size, seed) for seed, u in enumerate(users, start=1)]


class UserRows:
    """One user's memories, generated burst by burst from the user's own seed: the same user
    comes out the same in any database."""

    def __init__(self, user: User, pool: list[corpus.Text], vectors: np.ndarray, base_seed: int):
        self.user = user
        self._pool = pool
        self._vectors = vectors
        self._episodic = np.array([i for i, t in enumerate(pool) if t.semantic_key is None])
        self._rng = np.random.default_rng([base_seed, user.seed])
        self._done = 0
        self._start = datetime.now(timezone.utc) - timedelta(days=HISTORY_DAYS)

    def burst(self, index: int) -> Iterator[tuple]:
        end = self.user.size * (index + 1) // BURSTS
        n = end - self._done
        if n <= 0:
            return
        picks = self._rng.integers(len(self._pool), size=n)
        contexts = self._episodic[self._rng.integers(len(self._episodic), size=n)]
        vectors = corpus.noisy(self._vectors[picks], self._rng)
        for offset, (pick, context, vector) in enumerate(zip(picks, contexts, vectors)):
            number = self._done + offset
            text = self._pool[pick]
            when = self._start + timedelta(days=HISTORY_DAYS * number / self.user.size)
            if text.semantic_key is None:
                kind, memory_type, key, importance, line_before = "message", "episodic", None, 0.3, self._pool[context].content
            else:
                kind, memory_type, key, importance, line_before = "fact", "semantic", text.semantic_key, 0.8, None
            yield (TENANT, f"{self.user.id}-{number}", self.user.id, f"s{number // 20}", memory_type, kind, key,
                   text.content, line_before, importance, 1.0, vector, when, when)
        self._done = end


class Server:
    """The embedded Postgres on `home`/pgdata; `url(name)` of each of its databases."""

    def __init__(self, home: str):
        from infra.local import embedded_postgres

        self._postgres = embedded_postgres.start(Path(home) / "pgdata")
        self.admin_url = self._postgres.url

    def url(self, dbname: str) -> str:
        return make_conninfo(self.admin_url, dbname=dbname)

    def create_database(self, dbname: str) -> str:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dbname}"')
        return self.url(dbname)

    def setting(self, name: str) -> str:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            return conn.execute(f"SHOW {name}").fetchone()[0]

    def stop(self) -> None:
        self._postgres.release()


def prepare(url: str, embedding_dim: int, through: str | None = None) -> list[tuple[str, str]]:
    """Migrate (up to `through`, a version, if given), add the tenant, and drop the indexes built
    after the load; their definitions."""
    from memex.db.migrations import apply_migrations

    with psycopg.connect(url, autocommit=True) as conn:
        apply_migrations(conn, embedding_dim, through=through)
        conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (TENANT,))
        deferred = conn.execute(
            """SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x
               JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am a ON a.oid = i.relam
               WHERE x.indrelid = 'memories'::regclass AND a.amname = ANY(%s) ORDER BY a.amname""",
            (list(DEFERRED_INDEX_METHODS),)).fetchall()
        for name, _ in deferred:
            conn.execute(f'DROP INDEX "{name}"')
    return deferred


def migrate(url: str, embedding_dim: int) -> list[str]:
    """Apply the migrations a database loaded by an earlier run lacks, then refresh the planner's
    statistics; the versions applied."""
    from memex.db.migrations import apply_migrations

    with psycopg.connect(url, autocommit=True) as conn:
        applied = apply_migrations(conn, embedding_dim)
        conn.execute("SET maintenance_work_mem = '%s'" % INDEX_BUILD_SETTINGS["maintenance_work_mem"])
        conn.execute("VACUUM ANALYZE")
    return applied


def progress_on_stderr() -> Progress:
    """A benchmark's progress: each line on stderr after the seconds since this was called."""
    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {message}", file=sys.stderr, flush=True)

    return progress


@contextmanager
def running(home: str | None, prefix: str) -> Iterator[tuple[Server, str]]:
    """The embedded Postgres, stopped when the block ends, on `home`, or else on a fresh data dir
    under /tmp (its name starting with `prefix`) removed afterwards; yields the server and its home."""
    kept = home is not None
    home = home if kept else tempfile.mkdtemp(prefix=prefix, dir="/tmp")
    server = None
    try:
        server = Server(home)
        yield server, home
    finally:
        if server is not None:
            server.stop()
        if not kept:
            shutil.rmtree(home, ignore_errors=True)


def fill(url: str, users: list[User], texts: list[corpus.Text], vectors: np.ndarray, seed: int, embedding_dim: int,
         progress: Progress, through: str | None = None) -> tuple[list[tuple[str, str]], float]:
    """Migrate `url` (up to `through`, a version, if given) and COPY `users`' memories drawn from the
    pool: the definitions of the indexes to build after (build_indexes) and the load's seconds."""
    definitions = prepare(url, embedding_dim, through)
    return definitions, load(url, [UserRows(u, texts, vectors, seed) for u in users], progress)


def load(url: str, users: list[UserRows], progress: Progress) -> float:
    """COPY every user's rows, burst by burst across users; the seconds it took."""
    total = sum(u.user.size for u in users)
    written, reported, started = 0, 0, time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        for index in range(BURSTS):
            with conn.transaction(), conn.cursor() as cur:
                with cur.copy(f"COPY memories ({', '.join(COLUMNS)}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(list(TYPES))
                    for rows in users:
                        for row in rows.burst(index):
                            copy.write_row(row)
                            written += 1
            if written - reported >= total / 10 or index == BURSTS - 1:
                reported = written
                elapsed = time.perf_counter() - started
                progress(f"loaded {written:,} / {total:,} memories ({written / elapsed:,.0f}/s)")
        seconds = time.perf_counter() - started
        stored = conn.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (TENANT,)).fetchone()[0]
    if stored != total:
        raise RuntimeError(f"{stored:,} memories stored, {total:,} written")
    return seconds


def build_indexes(url: str, definitions: list[tuple[str, str]], progress: Progress) -> dict[str, float]:
    """Create each deferred index (the text index first); seconds per index name."""
    seconds = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for name, value in INDEX_BUILD_SETTINGS.items():
            conn.execute(f"SET {name} = '{value}'")
        for name, definition in definitions:
            progress(f"building {name}")
            with _watch_index_build(url, name, progress):
                started = time.perf_counter()
                conn.execute(definition)
                seconds[name] = time.perf_counter() - started
            progress(f"built {name} in {seconds[name]:.1f} s")
        started = time.perf_counter()
        conn.execute("VACUUM ANALYZE")
        seconds["VACUUM ANALYZE"] = time.perf_counter() - started
    return seconds


class _watch_index_build:
    """Reports a long index build's phase and progress every 30 s, from a connection of its own."""

    def __init__(self, url: str, name: str, progress: Progress, every: float = 30.0):
        self._url, self._name, self._progress, self._every = url, name, progress, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> None:
        self._thread.start()

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        with psycopg.connect(self._url, autocommit=True) as conn:
            while not self._stop.wait(self._every):
                row = conn.execute(
                    """SELECT phase, tuples_done, tuples_total, blocks_done, blocks_total
                       FROM pg_stat_progress_create_index WHERE datname = current_database()""").fetchone()
                if row:
                    phase, tuples_done, tuples_total, blocks_done, blocks_total = row
                    self._progress(f"  {self._name}: {phase}, tuples {tuples_done:,}/{tuples_total:,}, "
                                   f"blocks {blocks_done:,}/{blocks_total:,}")


def relation_sizes(url: str) -> list[tuple[str, str, int]]:
    """(name, what, bytes) of the memories table, its indexes, and the other tables of memories
    (keyword statistics, postings) or of over 1 MB, with their indexes."""
    with psycopg.connect(url, autocommit=True) as conn:
        memories = conn.execute(
            """SELECT 'memories', 'table (heap + TOAST)', pg_table_size('memories')
               UNION ALL
               SELECT i.relname, 'index (' || a.amname || ')', pg_relation_size(i.oid)
               FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am a ON a.oid = i.relam
               WHERE x.indrelid = 'memories'::regclass""").fetchall()
        others = conn.execute(
            r"""SELECT c.relname, 'table + indexes', pg_total_relation_size(c.oid) FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'memories'
                 AND (c.relname LIKE 'memory\_%' OR pg_total_relation_size(c.oid) > 1024 * 1024)
               ORDER BY 3 DESC""").fetchall()
    return [tuple(r) for r in sorted(memories, key=lambda r: -r[2])] + [tuple(r) for r in others]


def environment(url: str, home: str) -> None:
    """Point the project's configuration at this database (the Context reads the environment)."""
    os.environ["MEMEX_HOME"] = home
    for name in ("DATABASE_SECRET_ARN", "SQS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL",
                 "BACKFILL_QUEUE_URL", "MEMEX_LLM_MODEL", "MEMEX_RERANK_BASE_URL"):
        os.environ.pop(name, None)
    os.environ["DATABASE_URL"] = url
