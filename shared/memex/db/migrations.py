"""Apply the versioned SQL files in migrations/ once each, in order, under an advisory lock."""

from __future__ import annotations

import re
import time
from importlib import resources

import psycopg
from psycopg.rows import tuple_row

_LOCK_ID = 7_316_001  # arbitrary, constant: serialises concurrent migrators (deploy + local start)
LOCK_WAIT_SECONDS = 1800.0
# The first line of a migration that runs outside a transaction, one statement at a time: an index
# built CONCURRENTLY on a table in use blocks no write while it builds. Each of its statements must
# be safe to run again after a failure half-way (a failed concurrent build leaves an invalid index:
# drop it first).
CONCURRENT = "-- memex: concurrently"


class EmbeddingDimensionMismatch(RuntimeError):
    pass


def _migration_files() -> list[tuple[str, str]]:
    folder = resources.files("memex.db") / "migrations"
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(p.name.removesuffix(".sql"), p.read_text(encoding="utf-8")) for p in files]


def apply_migrations(conn: psycopg.Connection, embedding_dim: int) -> list[str]:
    """Apply pending migrations, each in a transaction of its own (a concurrent one outside any);
    return the versions applied. Safe to run any number of times, by several migrators at once.
    `conn` is in autocommit; rows are read by position through cursors of their own, whatever the
    connection's row factory."""
    applied: list[str] = []
    with conn.cursor(row_factory=tuple_row) as cur:
        _lock(cur)
        try:
            # Building an index over a large table outlasts the sessions' usual statement timeout.
            cur.execute("SET statement_timeout = 0")
            with conn.transaction():
                done = _prepare(cur, embedding_dim)
            for version, sql in _migration_files():
                if version in done:
                    continue
                if sql.startswith(CONCURRENT):
                    for statement in _split(sql):
                        cur.execute(statement)
                    cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                else:
                    with conn.transaction():
                        cur.execute(sql.replace("{embedding_dim}", str(int(embedding_dim))))
                        cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied.append(version)
        finally:
            if not conn.closed and not conn.broken:
                cur.execute("RESET statement_timeout")
                cur.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_ID,))
    return applied


def unknown_versions(conn: psycopg.Connection) -> list[str]:
    """The migrations the database has that this code has no file for: a newer memex applied them
    (then was rolled back). This code serves it all the same, since migrations only add and what
    they add is kept by their own triggers (0021, 0025) and generated columns (0027) whatever code
    writes; but whoever started it should know it runs without them."""
    with conn.cursor(row_factory=tuple_row) as cur:
        recorded = [r[0] for r in cur.execute("SELECT version FROM schema_migrations ORDER BY version")]
    known = {version for version, _ in _migration_files()}
    return [version for version in recorded if version not in known]


def _lock(cur: psycopg.Cursor) -> None:
    """Wait for the migrators' lock by trying it now and then: a migrator blocked in a statement would
    hold a snapshot, and the concurrent index build of the one holding the lock waits for every
    snapshot older than its own, while that migrator waits for the lock: a deadlock."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while not cur.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK_ID,)).fetchone()[0]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"another migrator held the migrations' lock for {LOCK_WAIT_SECONDS:.0f} s")
        time.sleep(0.2)


def _prepare(cur: psycopg.Cursor, embedding_dim: int) -> set[str]:
    """The bookkeeping tables, the embedding size checked against the data's; the versions applied."""
    cur.execute(
        """CREATE TABLE IF NOT EXISTS schema_migrations (
               version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"""
    )
    cur.execute(
        """CREATE TABLE IF NOT EXISTS schema_settings (
               name text PRIMARY KEY, value text NOT NULL)"""
    )
    row = cur.execute("SELECT value FROM schema_settings WHERE name = 'embedding_dim'").fetchone()
    stored_dim = row[0] if row else None
    if stored_dim is None:
        cur.execute(
            "INSERT INTO schema_settings (name, value) VALUES ('embedding_dim', %s)", (str(embedding_dim),)
        )
    elif int(stored_dim) != embedding_dim:
        raise EmbeddingDimensionMismatch(
            f"the database stores {stored_dim}-d embeddings but the configured embedder makes "
            f"{embedding_dim}-d ones; use the embedder the data was written with or re-embed"
        )
    return {r[0] for r in cur.execute("SELECT version FROM schema_migrations").fetchall()}


def _split(sql: str) -> list[str]:
    """The statements of a concurrent migration: each ends with a semicolon at the end of a line."""
    return [statement.strip() for statement in re.split(r";[ \t]*$", sql, flags=re.MULTILINE) if statement.strip()]
