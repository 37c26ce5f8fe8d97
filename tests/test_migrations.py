"""Migrations apply once, in order, and refuse a database written with another embedding size."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from memex.db.migrations import EmbeddingDimensionMismatch, apply_migrations

MIGRATIONS = Path(__file__).resolve().parents[1] / "shared" / "memex" / "db" / "migrations"


def test_migrations_are_idempotent_and_the_schema_is_there(ctx):
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        assert apply_migrations(conn, 384) == []
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == sorted(p.stem for p in MIGRATIONS.glob("*.sql"))
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'memories'")}
        assert {"memories_embedding", "memories_dedupe"} <= indexes
        # the keyword channel reads the per-user postings (0005), not a global text index
        assert "memories_tsv" not in indexes
        assert conn.execute("SELECT to_regclass('memory_postings_pkey') IS NOT NULL").fetchone()[0]
        kind = conn.execute("""SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                               JOIN pg_am am ON am.oid = c.relam WHERE c.relname = 'memories_embedding'""").fetchone()
        assert kind[0] == "hnsw"


def test_a_different_embedding_dimension_is_refused_with_a_clear_error(ctx):
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        with pytest.raises(EmbeddingDimensionMismatch, match="384-d embeddings but the configured embedder makes 1536-d"):
            apply_migrations(conn, 1536)
