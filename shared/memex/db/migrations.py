"""Apply the versioned SQL files in migrations/ once each, in order, under an advisory lock."""

from __future__ import annotations

from importlib import resources

import psycopg
from psycopg.rows import tuple_row

_LOCK_ID = 7_316_001  # arbitrary, constant: serialises concurrent migrators (deploy + local start)


class EmbeddingDimensionMismatch(RuntimeError):
    pass


def _migration_files() -> list[tuple[str, str]]:
    folder = resources.files("memex.db") / "migrations"
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(p.name.removesuffix(".sql"), p.read_text(encoding="utf-8")) for p in files]


def apply_migrations(conn: psycopg.Connection, embedding_dim: int) -> list[str]:
    """Apply pending migrations; return the versions applied. Safe to run any number of times.
    Rows are read by position through a cursor of its own, whatever the connection's row factory."""
    applied: list[str] = []
    with conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:
        # Building an index over a large table outlasts the sessions' usual statement timeout.
        cur.execute("SET LOCAL statement_timeout = 0")
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_ID,))
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
        done = {r[0] for r in cur.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, sql in _migration_files():
            if version in done:
                continue
            cur.execute(sql.replace("{embedding_dim}", str(int(embedding_dim))))
            cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
            applied.append(version)
    return applied

