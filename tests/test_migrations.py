"""Migrations apply once, in order, and refuse a database written with another embedding size."""

from __future__ import annotations

import hashlib
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from memex import dedupe, pipeline
from memex.db import sessions
from memex.db.migrations import EmbeddingDimensionMismatch, MigrationBlocked, MigrationUnfinished, apply_migrations
from tests.conftest import scratch_database

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


@contextmanager
def _migrated_database(ctx, name: str) -> Iterator[psycopg.Connection]:
    """A database of its own, every migration applied, dropped afterwards: a test takes it back to
    the schema before the migration it checks."""
    from pgvector.psycopg import register_vector

    with scratch_database(ctx, name) as url, psycopg.connect(url, autocommit=True) as conn:
        apply_migrations(conn, 384)
        register_vector(conn)
        yield conn


def test_a_different_embedding_dimension_is_refused_with_a_clear_error(ctx):
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        with pytest.raises(EmbeddingDimensionMismatch, match="384-d embeddings but the configured embedder makes 1536-d"):
            apply_migrations(conn, 1536)


def test_the_quantised_vectors_are_added_to_a_database_that_has_memories(ctx):
    """Migration 0010 on a database written before it: each memory's sign bits, and their index."""
    import numpy as np

    version = "0010_binary_quantized_vectors"
    with _migrated_database(ctx, "memex_before_0010") as conn:
        # the schema as 0009 left it
        conn.execute("DROP INDEX memories_user_bits")
        conn.execute("ALTER TABLE memories DROP COLUMN embedding_bits")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((5, 384)).astype(np.float32)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for i, vector in enumerate(vectors):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding,
                                                  valid_from)
                            VALUES ('t', %s, 'u', 'episodic', 'message', %s, %s, now())""",
                         (f"m{i}", f"memory {i}", vector))
        assert apply_migrations(conn, 384) == [version]
        stored = dict(conn.execute("SELECT id, embedding_bits::text FROM memories").fetchall())
        assert stored == {f"m{i}": "".join("1" if x > 0 else "0" for x in v) for i, v in enumerate(vectors)}
        assert conn.execute("SELECT to_regclass('memories_user_bits') IS NOT NULL").fetchone()[0]


def test_the_current_facts_read_is_added_to_a_database_that_has_memories(ctx):
    """Migration 0011 on a database written before it: the index of current semantic memories rebuilt
    with the subject as a key, and the look-up's read returning what is current, for each subject."""
    import numpy as np

    version = "0011_current_semantic_lookup"
    with _migrated_database(ctx, "memex_before_0011") as conn:
        # the schema as 0010 left it
        conn.execute("DROP FUNCTION current_semantic_memories")
        conn.execute("DROP INDEX memories_user_current_semantic")
        conn.execute("""CREATE INDEX memories_user_current_semantic ON memories (tenant_id, user_id, key)
                        WHERE active AND memory_type = 'semantic'""")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        vector = np.ones(384, dtype=np.float32)
        for id_, subject, active in (("lisbon", "user", False), ("porto", "user", True), ("ana", "Ana", True)):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content,
                                                  embedding, valid_from, subject, active)
                            VALUES ('t', %s, 'u', 'semantic', 'fact', 'city', %s, %s, %s, now(), %s, %s)""",
                         (id_, id_, f"lives in {id_}", vector, subject, active))
        assert apply_migrations(conn, 384) == [version]
        columns = conn.execute("""SELECT array_agg(a.attname ORDER BY k.n) FROM pg_index i
                                  JOIN pg_class c ON c.oid = i.indexrelid
                                  CROSS JOIN unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                                  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                                  WHERE c.relname = 'memories_user_current_semantic'""").fetchone()[0]
        assert columns == ["tenant_id", "user_id", "subject", "key"]
        for subject, current in (("user", ["porto"]), ("Ana", ["ana"])):
            assert [r[0] for r in conn.execute("SELECT id FROM current_semantic_memories('t', 'u', %s)",
                                               (subject,))] == current


_ENDED = "0015_ended_facts"


def _index_valid(conn: psycopg.Connection, name: str) -> bool | None:
    row = conn.execute("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                       "WHERE c.relname = %s", (name,)).fetchone()
    return row[0] if row else None


def _memory(conn: psycopg.Connection, id_: str) -> None:
    """A message of a user of its own (one user's writes wait for each other on their statistics' row)."""
    conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                    VALUES ('t', %s, %s, 'episodic', 'message', 'said', array_fill(0.1, ARRAY[384])::vector, now())""",
                 (id_, id_))


def test_a_concurrent_migration_builds_its_index_while_the_table_takes_writes(ctx):
    """Migration 0015 builds its index CONCURRENTLY, outside a transaction: while the build waits for
    a writer's open transaction, other writers still write (a plain CREATE INDEX would queue them all
    behind it), and the index ends up valid."""
    import threading
    from psycopg.conninfo import make_conninfo

    with _migrated_database(ctx, "memex_before_0015") as conn:
        conn.execute("DROP INDEX memories_user_ended_facts")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_ENDED,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        url = make_conninfo(ctx.db.dsn, dbname="memex_before_0015")
        with psycopg.connect(url) as open_writer, psycopg.connect(url, autocommit=True) as other_writer:
            _memory(open_writer, "open")  # its transaction stays open
            applied: list[list[str]] = []
            migrator = threading.Thread(target=lambda: applied.append(_apply(url)))
            migrator.start()
            other_writer.execute("SET lock_timeout = '10s'")  # a writer queued behind the build fails
            _wait_for(lambda: conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE "
                                           "'%%CREATE INDEX%%memories_user_ended_facts%%' AND wait_event_type = 'Lock' "
                                           "AND pid <> pg_backend_pid()").fetchone()[0] == 1)
            _memory(other_writer, "meanwhile")
            assert migrator.is_alive()  # still waiting for the open transaction
            open_writer.commit()
            migrator.join(60)
        assert applied == [[_ENDED]]
        assert _index_valid(conn, "memories_user_ended_facts") is True
        assert {r[0] for r in conn.execute("SELECT id FROM memories")} == {"open", "meanwhile"}


def test_a_failed_concurrent_build_is_built_again_and_two_migrators_apply_it_once(ctx):
    """A concurrent build that failed half-way leaves an invalid index: the next migrator drops it and
    builds it again. Two migrators at once: one applies it, the other waits and finds it done."""
    from concurrent.futures import ThreadPoolExecutor
    from psycopg.conninfo import make_conninfo

    with _migrated_database(ctx, "memex_failed_0015") as conn:
        conn.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'memories_user_ended_facts'::regclass")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_ENDED,))
        assert _index_valid(conn, "memories_user_ended_facts") is False
        url = make_conninfo(ctx.db.dsn, dbname="memex_failed_0015")
        with ThreadPoolExecutor(2) as pool:
            results = sorted(pool.map(lambda _: _apply(url), range(2)))
        assert results == [[], [_ENDED]]
        assert _index_valid(conn, "memories_user_ended_facts") is True


def _apply(url: str, **options) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        return apply_migrations(conn, 384, **options)


def _wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_embeddings_stay_in_their_rows_from_0014_on_and_vacuum_full_moves_the_older_ones(ctx):
    """Migration 0014 on a database written before it: a memory whose row passes the TOAST threshold
    keeps its embedding inline (its text goes out of line instead); one written before keeps it in
    the TOAST table until VACUUM FULL rewrites the table, as the migration's comment says."""
    import numpy as np

    version = "0014_inline_embeddings"
    vector_bytes = 4 + 4 * 384  # what the TOAST table holds of a 384-d vector: its dimensions and floats
    with _migrated_database(ctx, "memex_before_0014") as conn:
        conn.execute("ALTER TABLE memories ALTER COLUMN embedding SET STORAGE EXTERNAL")  # pgvector's own
        conn.execute("ALTER TABLE memories RESET (toast_tuple_target)")  # as before 0020
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'memories'").fetchone()[0]

        def vectors_out_of_line() -> int:
            return conn.execute(f"""SELECT count(*) FROM (SELECT chunk_id FROM {toast} GROUP BY chunk_id
                                    HAVING sum(octet_length(chunk_data)) = %s) v""", (vector_bytes,)).fetchone()[0]

        rng = np.random.default_rng(5)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")

        def write(memory_id: str) -> None:
            # a context of random letters, which pglz cannot shrink: the row passes ~2 KB with it
            context = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz "), 1200))
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, context,
                                                  embedding, valid_from)
                            VALUES ('t', %s, 'u', 'episodic', 'message', 'a line said', %s, %s, now())""",
                         (memory_id, context, rng.standard_normal(384).astype(np.float32)))

        write("before")
        assert vectors_out_of_line() == 1
        assert apply_migrations(conn, 384) == [version]
        write("after")
        assert vectors_out_of_line() == 1  # the older row's, not the new one's
        conn.execute("VACUUM FULL memories")
        assert vectors_out_of_line() == 0
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 2


def test_a_memory_keeps_its_text_in_its_row_from_0020_on(ctx):
    """Migration 0020: a memory whose row passes the ~2 KB TOAST threshold with its inline embedding
    (0014) keeps its text in the row, where the keyword channel and the rankings read it without a
    TOAST probe; one written before keeps its text out of line until VACUUM FULL."""
    import numpy as np

    version = "0020_inline_rows"
    with _migrated_database(ctx, "memex_before_0020") as conn:
        conn.execute("ALTER TABLE memories RESET (toast_tuple_target)")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'memories'").fetchone()[0]

        def values_out_of_line() -> int:
            return conn.execute(f"SELECT count(DISTINCT chunk_id) FROM {toast}").fetchone()[0]

        rng = np.random.default_rng(7)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")

        def write(memory_id: str) -> None:
            # a LoCoMo line and the one before it: with the vector, about 2.5 KB of row
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, context,
                                                  embedding, valid_from)
                            VALUES ('t', %s, 'u', 'episodic', 'message', %s, %s, %s, now())""",
                         (memory_id, "Caroline: I went to a LGBTQ support group yesterday and it was so powerful. " * 3,
                          "Melanie: Hey Caroline! Good to see you! How have you been lately, with the kids? " * 3,
                          rng.standard_normal(384).astype(np.float32)))

        write("before")
        before = values_out_of_line()
        assert before > 0
        assert apply_migrations(conn, 384) == [version]
        write("after")
        assert values_out_of_line() == before  # the older row's, none of the new one's
        conn.execute("VACUUM FULL memories")
        assert values_out_of_line() == 0
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 2


def test_the_keys_taken_back_are_read_from_the_links_a_database_has(ctx):
    """Migration 0021 on a database written before it: each link between two semantic facts of one
    user and subject under two keys, with the owner, subject and key of the value taken back; none
    for a link under one key, of two subjects, of two users or to or from a memory that is not a
    fact (a procedural one with a key); and a link written afterwards is kept by the trigger, under
    the same conditions."""
    version = "0021_keys_taken_back"
    with _migrated_database(ctx, "memex_before_0021") as conn:
        # the schema as 0020 left it
        conn.execute("DROP TRIGGER keys_taken_back_insert ON memory_links")
        conn.execute("DROP FUNCTION keys_taken_back_add")
        conn.execute("DROP TABLE keys_taken_back")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, user, subject, key in (("acme", "u", "user", "employer"), ("globex", "u", "user", "employer"),
                                        ("out", "u", "user", "employment_status"),
                                        ("designer", "u", "user", "role"), ("mel", "u", "Melanie", "employment_status"),
                                        ("chef", "u", "Melanie", "role"), ("v", "v", "user", "employment_status"),
                                        ("mel_job", "u", "Melanie", "employer"), ("routine", "u", "user", "habit"),
                                        ("plan", "u", "user", "workout")):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content,
                                                  embedding, valid_from, subject)
                            VALUES ('t', %s, %s, %s, 'fact', %s, %s, %s,
                                    array_fill(0.1, ARRAY[384])::vector, now(), %s)""",
                         (id_, user, "procedural" if id_ in ("routine", "plan") else "semantic", key, id_,
                          f"{key} {id_}", subject))
        for newer, older in (("globex", "acme"), ("out", "globex"), ("out", "designer"), ("mel", "designer"),
                             ("v", "acme"), ("out", "routine"), ("routine", "designer")):
            conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('t', %s, %s)",
                         (newer, older))

        def taken_back() -> list[tuple]:
            return conn.execute("""SELECT memory_id, replaced_id, user_id, subject, key FROM keys_taken_back
                                   ORDER BY memory_id, replaced_id""").fetchall()

        assert apply_migrations(conn, 384) == [version]
        assert taken_back() == [("out", "designer", "u", "user", "role"), ("out", "globex", "u", "user", "employer")]
        conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('t', 'mel', 'chef')")
        conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('t', 'mel', 'mel_job')")
        conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('t', 'out', 'plan')")
        conn.execute("INSERT INTO memory_links (tenant_id, memory_id, replaced_id) VALUES ('t', 'plan', 'acme')")
        assert taken_back()[:2] == [("mel", "chef", "u", "Melanie", "role"),
                                    ("mel", "mel_job", "u", "Melanie", "employer")]
        conn.execute("DELETE FROM memory_links WHERE memory_id = 'mel' AND replaced_id = 'chef'")
        conn.execute("DELETE FROM memories WHERE id = 'designer'")
        assert taken_back() == [("mel", "mel_job", "u", "Melanie", "employer"),
                                ("out", "globex", "u", "user", "employer")]


def test_the_replaced_facts_index_is_built_on_a_database_at_0021(ctx):
    """Migration 0022 on a database written before it: the index holds the user's facts no longer
    current, not their inactive messages nor their current facts, and is valid (built concurrently)."""
    version = "0022_replaced_facts"
    with _migrated_database(ctx, "memex_before_0022") as conn:
        # the schema as 0021 left it
        conn.execute("DROP INDEX memories_user_replaced_facts")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, memory_type, active in (("porto", "semantic", False), ("lisbon", "semantic", True),
                                         ("line", "episodic", False)):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding,
                                                  valid_from, active)
                            VALUES ('t', %s, 'u', %s, 'fact', %s, array_fill(0.1, ARRAY[384])::vector, now(), %s)""",
                         (id_, memory_type, id_, active))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "memories_user_replaced_facts") is True
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        assert [r[0] for r in conn.execute("""SELECT id FROM memories WHERE tenant_id = 't' AND user_id = 'u'
                                              AND NOT active AND memory_type = 'semantic'""")] == ["porto"]
        plan = "\n".join(r[0] for r in conn.execute("""EXPLAIN SELECT id FROM memories WHERE tenant_id = 't'
                                                       AND user_id = 'u' AND NOT active AND memory_type = 'semantic'"""))
        assert "memories_user_replaced_facts" in plan


def test_the_postings_by_use_index_is_built_on_a_database_at_0022(ctx):
    """Migration 0023 on a database written before it: the postings written before are in the index,
    the most used first, and the index is valid (built concurrently)."""
    version = "0023_postings_by_tf"
    with _migrated_database(ctx, "memex_before_0023") as conn:
        # the schema as 0022 left it
        conn.execute("DROP INDEX memory_postings_by_tf")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, content in (("once", "A zebra."), ("twice", "A zebra and a zebra."), ("none", "A lion.")):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                            VALUES ('t', %s, 'u', 'episodic', 'message', %s, array_fill(0.1, ARRAY[384])::vector, now())""",
                         (id_, content))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "memory_postings_by_tf") is True
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        ordered = """SELECT memory_id FROM memory_postings WHERE tenant_id = 't' AND user_id = 'u' AND lexeme = 'zebra'
                     ORDER BY occurrences + 0.5::float8 * context_occurrences DESC, memory_id LIMIT 5"""
        assert [r[0] for r in conn.execute(ordered)] == ["twice", "once"]
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + ordered))
        assert "memory_postings_by_tf" in plan and "Sort" not in plan


def test_the_sessions_indexes_are_built_on_a_database_at_0023(ctx):
    """Migration 0024 on a database written before it: the turns written before are in both indexes,
    which are valid (built concurrently), and turns_user, their prefix, is gone."""
    version = "0024_sessions_in_order"
    with _migrated_database(ctx, "memex_before_0024") as conn:
        # the schema as 0023 left it (turns_user_time is gone since 0025)
        conn.execute("DROP INDEX turns_user_session_time")
        conn.execute("CREATE INDEX turns_user ON turns (tenant_id, user_id, session_id)")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, session, day in (("t1", "s1", 1), ("t2", "s2", 2), ("t3", "s1", 3)):
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                            VALUES ('t', %s, 'u', %s, %s)""", (id_, session, f"2026-03-0{day}T10:00:00Z"))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "turns_user_time") is True and _index_valid(conn, "turns_user_session_time") is True
        assert _index_valid(conn, "turns_user") is None
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        latest = "SELECT id FROM turns WHERE tenant_id = 't' AND user_id = 'u' ORDER BY occurred_at DESC, session_id DESC"
        assert [r[0] for r in conn.execute(latest)] == ["t3", "t2", "t1"]
        assert "turns_user_time" in "\n".join(r[0] for r in conn.execute("EXPLAIN " + latest))
        first = """SELECT id FROM turns WHERE tenant_id = 't' AND user_id = 'u' AND session_id = 's1'
                   ORDER BY occurred_at, id LIMIT 1"""
        assert [r[0] for r in conn.execute(first)] == ["t1"]
        assert "turns_user_session_time" in "\n".join(r[0] for r in conn.execute("EXPLAIN " + first))


def test_the_sessions_rows_count_the_turns_of_a_database_at_0024(ctx):
    """Migration 0025 on a database written before it: a row per session of each user, counted from
    the turns and messages already there, kept by the writes after it; turns_user_time is gone."""
    version = "0025_session_rows"
    with _migrated_database(ctx, "memex_before_0025") as conn:
        # the schema as 0024 left it
        conn.execute("DROP TABLE sessions")
        for name in ("sessions_add_turns", "sessions_add_messages", "sessions_remove_messages", "sessions_remove_turns"):
            conn.execute(f"DROP FUNCTION {name} CASCADE")
        conn.execute("CREATE INDEX turns_user_time ON turns (tenant_id, user_id, occurred_at, session_id)")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t'), ('t2')")
        for id_, tenant, user, session, day, said in (("t1", "t", "u", "s1", 3, 2), ("t2", "t", "u", "s2", 2, 0),
                                                      ("t3", "t", "u", "s1", 1, 1), ("t4", "t", "v", "s1", 4, 1),
                                                      ("t5", "t2", "u", "s1", 5, 3)):
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                            VALUES (%s, %s, %s, %s, %s)""", (tenant, id_, user, session, f"2026-03-0{day}T10:00:00Z"))
            for position in range(said):
                conn.execute("""INSERT INTO messages (tenant_id, id, turn_id, position, role, content)
                                VALUES (%s, %s, %s, %s, 'user', 'Hi.')""", (tenant, f"{id_}-{position}", id_, position))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "turns_user_time") is None
        rows = "SELECT tenant_id, user_id, session_id, turns, messages, extract(day FROM started_at)::int, " \
               "extract(day FROM last_at)::int FROM sessions ORDER BY 1, 2, 3"
        assert conn.execute(rows).fetchall() == [("t", "u", "s1", 2, 3, 1, 3), ("t", "u", "s2", 1, 0, 2, 2),
                                                 ("t", "v", "s1", 1, 1, 4, 4), ("t2", "u", "s1", 1, 3, 5, 5)]
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        VALUES ('t', 't6', 'u', 's2', '2026-03-06T10:00:00Z')""")
        conn.execute("DELETE FROM turns WHERE id = 't3'")
        assert conn.execute(rows).fetchall()[:2] == [("t", "u", "s1", 1, 2, 3, 3), ("t", "u", "s2", 2, 0, 2, 6)]


def test_the_turns_by_agent_index_is_built_on_a_database_at_0025(ctx):
    """Migration 0026 on a database written before it: the turns sent by an agent written before are
    in the index, which is valid (built concurrently), and a session is checked for an agent's turn
    through it."""
    version = "0026_turns_by_agent"
    with _migrated_database(ctx, "memex_before_0026") as conn:
        # the schema as 0025 left it
        conn.execute("DROP INDEX turns_user_agent")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, session, agent, day in (("t1", "s1", "coach", 1), ("t2", "s2", None, 2), ("t3", "s2", "planner", 3),
                                         ("t4", "s3", None, 4)):
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, agent_id, occurred_at)
                            VALUES ('t', %s, 'u', %s, %s, %s)""", (id_, session, agent, f"2026-03-0{day}T10:00:00Z"))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "turns_user_agent") is True
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        took_part = """EXPLAIN SELECT 1 FROM turns WHERE tenant_id = 't' AND user_id = 'u' AND agent_id = 'coach'
                       AND session_id = 's1'"""
        assert "turns_user_agent" in "\n".join(r[0] for r in conn.execute(took_part))
        conn.row_factory = dict_row
        listed = {agent: [s["session_id"] for s in sessions.of_user(conn, "t", "u", 50, None, agent)[0]]
                  for agent in ("coach", "planner", "nobody")}
        assert listed == {"coach": ["s1"], "planner": ["s2"], "nobody": []}


def test_the_keyword_column_is_folded_on_a_database_at_0026(ctx):
    """Migration 0027 on a database written before it: the memories written before are read again
    (accents folded, each Han character a word), and the keyword statistics counted from them anew."""
    version = "0027_folded_text"
    with _migrated_database(ctx, "memex_before_0027") as conn:
        # the schema as 0026 left it
        conn.execute("ALTER TABLE memories DROP COLUMN content_tsv")
        conn.execute("""ALTER TABLE memories ADD COLUMN content_tsv tsvector GENERATED ALWAYS AS (
                            setweight(to_tsvector('english', left(content, 65536)), 'A')
                            || setweight(to_tsvector('english', left(coalesce(context, ''), 16384)), 'D')) STORED""")
        conn.execute("DROP FUNCTION memex_text")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, user, content in (("z", "u", "We moved to Zürich."), ("b", "u", "我在北京工作。"),
                                   ("e", "v", "Zürich again, in Zürich.")):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                            VALUES ('t', %s, %s, 'episodic', 'message', %s, array_fill(0.1, ARRAY[384])::vector, now())""",
                         (id_, user, content))
        postings = "SELECT user_id, lexeme, memory_id, occurrences FROM memory_postings WHERE lexeme = ANY(%s) ORDER BY 1, 2, 3"
        assert sorted(conn.execute(postings, (["zürich", "我在北京工作"],)).fetchall()) == [
            ("u", "zürich", "z", 1), ("u", "我在北京工作", "b", 1), ("v", "zürich", "e", 2)]
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(postings, (["zürich", "我在北京工作"],)).fetchall() == []
        assert sorted(conn.execute(postings, (["zurich", "北", "京"],)).fetchall()) == [
            ("u", "zurich", "z", 1), ("u", "京", "b", 1), ("u", "北", "b", 1), ("v", "zurich", "e", 2)]
        terms = "SELECT user_id, df FROM memory_terms WHERE lexeme = 'zurich' ORDER BY 1"
        assert conn.execute(terms).fetchall() == [("u", 1), ("v", 1)]
        lengths = conn.execute("""SELECT s.length = (SELECT sum(length(m.content_tsv)) FROM memories m
                                                      WHERE m.tenant_id = s.tenant_id AND m.user_id = s.user_id)
                                  FROM memory_stats s ORDER BY s.user_id""").fetchall()
        assert lengths == [(True,), (True,)]
        # written after it, a memory is read the same way
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                        VALUES ('t', 'c', 'u', 'episodic', 'message', 'A café.', array_fill(0.1, ARRAY[384])::vector, now())""")
        assert conn.execute("SELECT memory_id FROM memory_postings WHERE lexeme = 'cafe'").fetchall() == [("c",)]


def test_the_turns_tries_are_noted_from_0029_on_without_rewriting_the_table(ctx):
    """Migration 0029 on a database written before it: the column is added to the catalogue alone
    (the table's file is the same one: no rewrite, constant time however many turns), and the turns
    written before have no try noted (the sweep takes them as before)."""
    version = "0029_turn_tries"
    with _migrated_database(ctx, "memex_before_0029") as conn:
        # the schema as 0028 left it
        conn.execute("ALTER TABLE turns DROP COLUMN tried_at")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        SELECT 't', 'turn' || i, 'u', 's', now() FROM generate_series(1, 2000) i""")
        table_file = "SELECT pg_relation_filenode('turns')"
        before = conn.execute(table_file).fetchone()[0]
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(table_file).fetchone()[0] == before
        assert conn.execute("SELECT count(*), count(tried_at) FROM turns").fetchone() == (2000, 0)


def test_key_expiry_and_tenant_deletion_come_with_0030_without_rewriting_either_table(ctx):
    """Migration 0030 on a database written before it: both columns are added to the catalogue alone
    (the tables' files are the same ones), and the keys made before never expire, the tenants are live."""
    version = "0030_key_expiry_tenant_deletion"
    with _migrated_database(ctx, "memex_before_0030") as conn:
        conn.execute("ALTER TABLE api_keys DROP COLUMN expires_at")
        conn.execute("ALTER TABLE tenants DROP COLUMN deleted_at")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) SELECT 't' || i FROM generate_series(1, 500) i")
        conn.execute("INSERT INTO api_keys (key_hash, tenant_id, prefix) SELECT md5('k' || i), 't' || i, 'mx_' || i"
                     " FROM generate_series(1, 500) i")
        table_files = "SELECT pg_relation_filenode('api_keys'), pg_relation_filenode('tenants')"
        before = conn.execute(table_files).fetchone()
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(table_files).fetchone() == before
        assert conn.execute("SELECT count(*), count(expires_at) FROM api_keys").fetchone() == (500, 0)
        assert conn.execute("SELECT count(*), count(deleted_at) FROM tenants").fetchone() == (500, 0)

# What a search, the sessions listing and the write path read (db/planner_statistics.py, and sessions).
ANALYZED_SOONER = ("memories", "memory_stats", "memory_terms", "memory_postings", "memory_links", "messages",
                   "turns", "sessions")


def test_a_user_written_after_the_last_analyze_is_due_for_autovacuum_from_0032_on(ctx):
    """Migration 0032 on a database written before it: a new user whose rows are 4% of a table the
    statistics have seen makes it due for autovacuum's ANALYZE (more changed rows than the threshold
    plus the scale factor times the rows analysed, as autovacuum reckons it), where the server's
    defaults wait for a tenth; the table itself is not rewritten."""
    version = "0032_analyze_sooner"
    with _migrated_database(ctx, "memex_before_0032") as conn:
        for table in ANALYZED_SOONER:
            conn.execute(f"ALTER TABLE {table} RESET (autovacuum_analyze_scale_factor)")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        SELECT 't', 'a' || i, 'a', 's', now() FROM generate_series(1, 5000) i""")
        # counted before the ANALYZE, as another session's writes would be (this one's wait up to a second)
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("ANALYZE turns")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        SELECT 't', 'b' || i, 'b', 's', now() FROM generate_series(1, 200) i""")

        def due() -> bool:
            # the server's own figures: changes since the last ANALYZE against its rows then
            conn.execute("SELECT pg_stat_force_next_flush()")
            return conn.execute(
                """SELECT s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                          + coalesce((SELECT split_part(o, '=', 2)::float8 FROM unnest(c.reloptions) o
                                      WHERE o LIKE 'autovacuum_analyze_scale_factor=%%'),
                                     current_setting('autovacuum_analyze_scale_factor')::float8) * c.reltuples
                   FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
                   WHERE c.relname = 'turns'""").fetchone()[0]

        assert not due()
        table_file = "SELECT pg_relation_filenode('turns')"
        before = conn.execute(table_file).fetchone()[0]
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(table_file).fetchone()[0] == before
        assert due()
        settings = dict(conn.execute("SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
                                     (list(ANALYZED_SOONER),)).fetchall())
        assert {t: "autovacuum_analyze_scale_factor=0.01" in (o or []) for t, o in settings.items()} == {
            t: True for t in ANALYZED_SOONER}


def _before_0029(conn: psycopg.Connection) -> str:
    """The schema as 0028 left it, a tenant in it; the version 0029 is."""
    version = "0029_turn_tries"
    conn.execute("ALTER TABLE turns DROP COLUMN tried_at")
    conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
    conn.execute("INSERT INTO tenants (id) VALUES ('t')")
    return version


def _has_tried_at(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM information_schema.columns "
                        "WHERE table_name = 'turns' AND column_name = 'tried_at'").fetchone()[0] == 1


_ALTER_WAITING = ("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%%ALTER TABLE turns%%' "
                  "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")


def test_the_turns_offsets_come_with_0035_to_0037_without_rewriting_the_table(ctx):
    """Migrations 0035 to 0037 on a database written before them: the column is added to the
    catalogue alone (the same file: constant time), the turns written before have no offset (their
    users read UTC days, as before), and a user's latest offset is read from the partial index alone,
    built concurrently (valid), which holds only the turns sent with one; of two said at one time, the
    one received last (0037's order; 0036's index is gone)."""
    from memex.db import turns as turn_rows

    versions = ["0035_turn_offsets", "0036_turn_offsets_by_time", "0037_turn_offsets_in_order"]
    with _migrated_database(ctx, "memex_before_0035") as conn:
        # the schema before 0035
        conn.execute("DROP INDEX turns_user_offsets_in_order")
        conn.execute("ALTER TABLE turns DROP COLUMN utc_offset")
        conn.execute("DELETE FROM schema_migrations WHERE version = ANY(%s)", (versions,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        SELECT 't', 'turn' || i, 'u' || (i % 20), 's', now() FROM generate_series(1, 2000) i""")
        table_file = "SELECT pg_relation_filenode('turns')"
        before = conn.execute(table_file).fetchone()[0]
        assert apply_migrations(conn, 384) == versions
        assert conn.execute(table_file).fetchone()[0] == before
        assert _index_valid(conn, "turns_user_offsets_in_order") is True
        assert _index_valid(conn, "turns_user_offsets") is None
        conn.row_factory = dict_row
        assert turn_rows.latest_offset(conn, "t", "u1") is None
        for id_, offset, day in (("tokyo", 540, 2), ("la", -480, 1), ("plain", None, 3)):
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, utc_offset)
                            VALUES ('t', %s, 'u1', 's', %s, %s)""", (id_, f"2026-03-0{day}T10:00:00Z", offset))
        assert turn_rows.latest_offset(conn, "t", "u1") == 540  # the latest said with one, whenever sent
        assert conn.execute("SELECT count(*) AS n FROM turns WHERE utc_offset IS NOT NULL").fetchone()["n"] == 2
        # said at the same time as Tokyo's, received after it (and its id before it: the time received rules)
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, utc_offset, created_at)
                        VALUES ('t', 'a-later', 'u1', 's', '2026-03-02T10:00:00Z', 0, now() + interval '1 second')""")
        assert turn_rows.latest_offset(conn, "t", "u1") == 0
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        plan = "\n".join(r["QUERY PLAN"] for r in conn.execute(
            f"EXPLAIN SELECT {turn_rows.LATEST_OFFSET}", {"t": "t", "u": "u1"}).fetchall())
        assert "Index Only Scan using turns_user_offsets_in_order" in plan, plan
        assert "Sort" not in plan, plan


def test_a_migration_waiting_for_a_lock_stalls_no_writer_and_applies_once_the_holder_lets_go(ctx):
    """An open transaction that read `turns` (an analyst's session) holds its lock while 0029's ALTER
    TABLE waits for it. A writer of `turns` meanwhile is queued behind the ALTER for the migrator's
    lock timeout at most, not for as long as the reader's transaction lives: its insert is done while
    the reader's transaction is still open; once the reader ends, a later try applies the migration."""
    import threading

    from psycopg.conninfo import make_conninfo

    with _migrated_database(ctx, "memex_locked_0029") as conn:
        version = _before_0029(conn)
        url = make_conninfo(ctx.db.dsn, dbname="memex_locked_0029")
        with psycopg.connect(url) as reader, psycopg.connect(url, autocommit=True) as writer:
            reader.execute("SELECT count(*) FROM turns")  # its transaction stays open
            applied: list[list[str]] = []
            migrator = threading.Thread(target=lambda: applied.append(
                _apply(url, lock_timeout=0.5, tries=40, pause=0.2)))
            migrator.start()
            _wait_for(lambda: conn.execute(_ALTER_WAITING).fetchone()[0] == 1)
            # The reader ends only after the insert: a writer stalled until then (a migrator with no lock
            # timeout) fails on its own lock timeout, 20 times the migrator's, not a bound on wall time.
            writer.execute("SET lock_timeout = '10s'")
            writer.execute("INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at) "
                           "VALUES ('t', 'written', 'u', 's', now())")
            reader.commit()
            migrator.join(60)
        assert applied == [[version]]
        assert _has_tried_at(conn)
        assert conn.execute("SELECT id FROM turns").fetchall() == [("written",)]


def test_a_migration_blocked_on_every_try_is_rolled_back_and_names_the_lock_holder(ctx):
    """A lock never let go: after its tries the migrator fails naming the migration and the session
    holding the lock (its pid, the table and the lock's mode), and nothing of the migration stays."""
    from psycopg.conninfo import make_conninfo

    with _migrated_database(ctx, "memex_blocked_0029") as conn:
        version = _before_0029(conn)
        url = make_conninfo(ctx.db.dsn, dbname="memex_blocked_0029")
        with psycopg.connect(url) as reader:
            reader.execute("SELECT count(*) FROM turns")
            pid = reader.info.backend_pid
            with pytest.raises(MigrationBlocked) as blocked:
                _apply(url, lock_timeout=0.3, tries=2, pause=0.1)
            reader.rollback()
        message = str(blocked.value)
        assert f"migration {version} waited 0.3 s for a lock on each of 2 tries" in message
        assert f"pid {pid} (AccessShareLock on turns" in message
        assert not _has_tried_at(conn)
        assert conn.execute("SELECT count(*) FROM schema_migrations WHERE version = %s",
                            (version,)).fetchone()[0] == 0


def test_the_memories_whose_words_0043_reads_anew_are_indexed_again_and_only_they(ctx):
    """Migration 0043 on a database written before it: a word with a zero-width space inside and a
    Korean word with its particle are found by the word after it, with the keyword statistics
    following; a memory in plain English is not written again."""
    version = "0043_hidden_and_attached_words"
    with _migrated_database(ctx, "memex_before_0043") as conn:
        # the function as 0027 made it (what 0042 left)
        folded_text = (MIGRATIONS / "0027_folded_text.sql").read_text()
        conn.execute(folded_text[folded_text.index("CREATE FUNCTION memex_text"):folded_text.index("$f$;") + 4]
                     .replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
        conn.execute("DROP FUNCTION memex_hangul_stems")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, user, content in (("r", "u", "My favourite band is Rad\u200biohead."), ("s", "u", "서울에서 살고 있어요."),
                                   ("e", "u", "I moved to Seoul."), ("k", "v", "서울에 가요. 서울에서 만나요.")):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                            VALUES ('t', %s, %s, 'episodic', 'message', %s, array_fill(0.1, ARRAY[384])::vector, now())""",
                         (id_, user, content))
        postings = "SELECT user_id, lexeme, memory_id, occurrences FROM memory_postings WHERE lexeme = ANY(%s) ORDER BY 1, 2, 3"
        assert conn.execute(postings, (["radiohead", "서울"],)).fetchall() == []
        english = "SELECT xmin::text FROM memories WHERE id = 'e'"
        written = conn.execute(english).fetchone()[0]

        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(postings, (["radiohead", "서울"],)).fetchall() == [
            ("u", "radiohead", "r", 1), ("u", "서울", "s", 1), ("v", "서울", "k", 2)]
        assert conn.execute("SELECT user_id, df FROM memory_terms WHERE lexeme = '서울' ORDER BY 1").fetchall() == [
            ("u", 1), ("v", 1)]
        lengths = conn.execute("""SELECT s.length = (SELECT sum(length(m.content_tsv)) FROM memories m
                                                      WHERE m.tenant_id = s.tenant_id AND m.user_id = s.user_id)
                                  FROM memory_stats s ORDER BY s.user_id""").fetchall()
        assert lengths == [(True,), (True,)]
        assert conn.execute(english).fetchone()[0] == written


def test_the_sweeps_failures_are_noted_from_0044_on_without_rewriting_the_table(ctx):
    """Migration 0044 on a database written before it: the column is added to the catalogue alone (the
    memories' file is the same one: no rewrite, constant time however many memories), and the memories
    written before have no failure noted (the sweep takes those waiting oldest first, as before)."""
    version = "0044_vector_failures"
    with _migrated_database(ctx, "memex_before_0044") as conn:
        conn.execute("ALTER TABLE memories DROP COLUMN vector_failed_at")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, valid_from)
                        SELECT 't', 'm' || i, 'u', 'episodic', 'message', 'line ' || i, now()
                        FROM generate_series(1, 2000) i""")
        table_file = "SELECT pg_relation_filenode('memories')"
        before = conn.execute(table_file).fetchone()[0]
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(table_file).fetchone()[0] == before
        assert conn.execute("SELECT count(*), count(vector_failed_at) FROM memories").fetchone() == (2000, 0)


def test_the_episodic_memories_of_messages_that_show_nothing_go_with_0045_and_only_they(ctx):
    """Migration 0045 on a database written before commit 9ac9976: the memory of an empty, a blank
    and an invisible message (with a speaker's name, "Caroline: ") is deleted, with the keyword
    statistics following; the messages stay, and so does the memory of a message that says something
    (its text after the invisible characters too)."""
    from memex.episodic import shows_nothing

    version = "0045_blank_messages_unremembered"
    said = {"m-empty": (None, ""), "m-blank": (None, " \n\t"), "m-zw": ("Caroline", "\u200b\u00ad\ufeff"),
            "m-arabic": (None, "\u061c\u2066"), "m-hi": (None, "hi"), "m-zwhi": ("Caroline", "\u200bhi")}
    assert [m for m, (_, content) in said.items() if shows_nothing(content)] == ["m-empty", "m-blank", "m-zw",
                                                                                  "m-arabic"]
    with _migrated_database(ctx, "memex_before_0045") as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                        VALUES ('t', 'turn', 'u', 's', '2026-03-01T10:00:00Z')""")
        for position, (message, (name, content)) in enumerate(said.items()):
            conn.execute("""INSERT INTO messages (tenant_id, id, turn_id, position, role, name, content)
                            VALUES ('t', %s, 'turn', %s, 'assistant', %s, %s)""", (message, position, name, content))
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding,
                                                  valid_from, source_turn_id, source_message_id, dedupe_key)
                            VALUES ('t', %s, 'u', 'episodic', 'message', %s, array_fill(0.1, ARRAY[384])::vector,
                                    now(), 'turn', %s, %s)""",
                         (f"mem-{message}", f"{name}: {content}" if name else content, message, f"message:{message}"))
        # a fact keyed like none of them stays whatever it says
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from,
                                              source_message_id)
                        VALUES ('t', 'fact', 'u', 'semantic', 'fact', 'Caroline likes tea.',
                                array_fill(0.1, ARRAY[384])::vector, now(), 'm-empty')""")

        assert apply_migrations(conn, 384) == [version]
        assert conn.execute("SELECT id FROM memories ORDER BY id").fetchall() == [("fact",), ("mem-m-hi",),
                                                                                  ("mem-m-zwhi",)]
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(said)
        lengths = conn.execute("""SELECT s.length = (SELECT sum(length(m.content_tsv)) FROM memories m
                                                      WHERE m.tenant_id = s.tenant_id AND m.user_id = s.user_id)
                                  FROM memory_stats s""").fetchall()
        assert lengths == [(True,)]
        assert conn.execute("SELECT lexeme FROM memory_postings WHERE memory_id LIKE 'mem-m-zw' ").fetchall() == []


def test_the_sweeps_job_start_failures_are_noted_from_0046_on_without_rewriting_the_table(ctx):
    """Migration 0046 on a database written before it: the column is added to the catalogue alone (no
    rewrite, constant time however many memories), and no job to come written before has a failure noted
    (the sweep starts each as before)."""
    version = "0046_job_start_failures"
    with _migrated_database(ctx, "memex_before_0046") as conn:
        conn.execute("ALTER TABLE memories DROP COLUMN start_failed_at")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content, valid_from)
                        SELECT 't', 'm' || i, 'u', 'semantic', 'fact', 'next_job', 'starting at Kayak next week',
                               'line ' || i, now()
                        FROM generate_series(1, 2000) i""")
        table_file = "SELECT pg_relation_filenode('memories')"
        before = conn.execute(table_file).fetchone()[0]
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(table_file).fetchone()[0] == before
        assert conn.execute("SELECT count(*), count(start_failed_at) FROM memories").fetchone() == (2000, 0)


def test_the_keys_in_order_index_replaces_the_keys_index_on_a_database_before_0048(ctx):
    """Migration 0048 on a database written before it: the user's keyed memories are in the new index,
    each key's in the topic channel's order, the index is valid (built concurrently), and the index it
    replaces, its prefix, is gone; a read by key takes the new one."""
    version = "0048_keys_in_order"
    with _migrated_database(ctx, "memex_before_0048") as conn:
        # the schema as it was before
        conn.execute("DROP INDEX memories_user_key_order")
        conn.execute("CREATE INDEX memories_user_key ON memories (tenant_id, user_id, key) WHERE key IS NOT NULL")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, key, importance in (("low", "employer", 0.3), ("high", "employer", 0.8), ("none", None, 0.9),
                                     ("city", "city", 0.5)):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, content, importance,
                                                  valid_from)
                            VALUES ('t', %s, 'u', 'semantic', 'fact', %s, %s, %s, now())""",
                         (id_, key, id_, importance))
        assert apply_migrations(conn, 384) == [version]
        assert _index_valid(conn, "memories_user_key_order") is True
        assert _index_valid(conn, "memories_user_key") is None
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_bitmapscan = off")
        ordered = """SELECT id FROM memories WHERE tenant_id = 't' AND user_id = 'u' AND key = 'employer'
                     ORDER BY importance DESC, valid_from DESC, id LIMIT 5"""
        assert [r[0] for r in conn.execute(ordered)] == ["high", "low"]
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + ordered))
        assert "memories_user_key_order" in plan and "Sort" not in plan


def _favourites_stored_before(conn, version: str, facts: list[tuple[str, str, str, str, int]], pending: dict) -> None:
    """A database as a favourites re-keying migration (0049, 0050) finds it: each fact (id, user, key, value,
    day of March) stored from a processed turn of its own under the dedupe key it was written with, user e
    under erasure, and a turn not yet decided holding `pending` as its candidate."""
    conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
    conn.execute("INSERT INTO tenants (id) VALUES ('t')")
    for id_, user, key, value, day in facts:
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status)
                        VALUES ('t', %s, %s, 's', now(), 'processed')""", (f"turn-{id_}", user))
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content,
                                              valid_from, embedding, source_turn_id, dedupe_key)
                        VALUES ('t', %s, %s, 'semantic', 'preference', %s, %s, %s, %s, %s, %s, %s)""",
                     (id_, user, key, value, value, f"2026-03-0{day}T10:00:00Z", [0.0] * 384, f"turn-{id_}",
                      f"candidate:turn-{id_}:{key}:{value.casefold()}"))
    conn.execute("INSERT INTO user_erasures (tenant_id, user_id) VALUES ('t', 'e')")
    conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status, candidates)
                    VALUES ('t', 'pending', 'u', 's', now(), 'processing', %s)""", (Jsonb([pending]),))


def test_the_favourites_stored_under_the_y_word_of_an_ie_noun_are_filed_under_it_by_0049(ctx):
    """Migration 0049 on a database written before it (0033 applied): a favourite stored as favorite_movy is
    favorite_movie, the one said after it replacing it (linked, ended when that was said), the candidates of a
    turn not yet decided too; a user being erased is left to their erasure (nothing is written for them); what
    0033 re-keyed is left as it is, and the migration run again changes nothing."""
    version = "0049_favourite_ie_nouns"
    with _migrated_database(ctx, "memex_before_0049") as conn:
        _favourites_stored_before(conn, version, [
            ("old", "u", "favorite_movy", "Alien", 1), ("new", "u", "favorite_movie", "Up", 2),
            ("city", "u", "city", "Lisbon", 1), ("erasing", "e", "favorite_movy", "Heat", 1)],
            {"type": "preference", "key": "favorite_cooky", "value": "macarons"})
        state = """SELECT id, key, active, valid_to, dedupe_key FROM memories ORDER BY id"""

        assert apply_migrations(conn, 384) == [version]
        after = conn.execute(state).fetchall()
        assert [(id_, key, active) for id_, key, active, _, _ in after] == [
            ("city", "city", True), ("erasing", "favorite_movy", True), ("new", "favorite_movie", True),
            ("old", "favorite_movie", False)]
        ends = {id_: valid_to for id_, _, _, valid_to, _ in after}
        assert ends["old"] == conn.execute("SELECT valid_from FROM memories WHERE id = 'new'").fetchone()[0]
        assert dict((id_, dedupe) for id_, *_, dedupe in after)["old"] == "candidate:turn-old:favorite_movie:alien"
        assert conn.execute("SELECT memory_id, replaced_id FROM memory_links").fetchall() == [("new", "old")]
        assert conn.execute("SELECT candidates->0->>'key' FROM turns WHERE id = 'pending'").fetchone()[0] == "favorite_cookie"

        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(state).fetchall() == after


def test_the_favourites_stored_under_the_word_an_es_plural_was_read_as_are_filed_under_its_noun_by_0050(ctx):
    """Migration 0050 on a database written before it (0049 applied): a favourite stored as favorite_lense is
    favorite_lens, the one said after it replacing it (linked, ended when that was said), the candidates of a
    turn not yet decided too (favorite_quizz); a user being erased is left to their erasure; what 0049 re-keyed
    and a word of an "-e" plural ("bronzes") are left as they are, and the migration run again changes nothing."""
    version = "0050_favourite_named_nouns"
    with _migrated_database(ctx, "memex_before_0050") as conn:
        _favourites_stored_before(conn, version, [
            ("old", "u", "favorite_lense", "50mm", 1), ("new", "u", "favorite_lens", "35mm", 2),
            ("movie", "u", "favorite_movie", "Alien", 1), ("bronze", "u", "favorite_bronze", "Rodin", 1),
            ("erasing", "e", "favorite_lense", "85mm", 1)],
            {"type": "preference", "key": "favorite_quizz", "value": "pub quizzes"})
        state = """SELECT id, key, active, valid_to, dedupe_key FROM memories ORDER BY id"""

        assert apply_migrations(conn, 384) == [version]
        after = conn.execute(state).fetchall()
        assert [(id_, key, active) for id_, key, active, _, _ in after] == [
            ("bronze", "favorite_bronze", True), ("erasing", "favorite_lense", True), ("movie", "favorite_movie", True),
            ("new", "favorite_lens", True), ("old", "favorite_lens", False)]
        ends = {id_: valid_to for id_, _, _, valid_to, _ in after}
        assert ends["old"] == conn.execute("SELECT valid_from FROM memories WHERE id = 'new'").fetchone()[0]
        assert dict((id_, dedupe) for id_, *_, dedupe in after)["old"] == "candidate:turn-old:favorite_lens:50mm"
        assert conn.execute("SELECT memory_id, replaced_id FROM memory_links").fetchall() == [("new", "old")]
        assert conn.execute("SELECT candidates->0->>'key' FROM turns WHERE id = 'pending'").fetchone()[0] == "favorite_quiz"

        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(state).fetchall() == after


def test_a_tombstone_written_before_0051_names_no_message_and_its_whole_turn_is_left_out_of_an_export(ctx):
    """Migration 0051 on a database written before it: a tombstone's message is not known (its memory is
    gone), so it names none, and an export leaves out its whole turn (turns.erased_messages); one written
    after names its message, and two messages of one turn that said one value are each named."""
    from memex.db import turns as turn_rows

    version = "0051_tombstone_messages"
    with _migrated_database(ctx, "memex_before_0051") as conn:
        # the schema as 0031 left it
        conn.execute("ALTER TABLE tombstones DROP CONSTRAINT tombstones_pkey")
        conn.execute("ALTER TABLE tombstones DROP COLUMN message_id")
        conn.execute("ALTER TABLE tombstones ADD PRIMARY KEY (tenant_id, turn_id, key, subject, value_digest)")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for turn in ("old", "new"):
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at)
                            VALUES ('t', %s, 'u', 's', now())""", (turn,))
        conn.execute("""INSERT INTO tombstones (tenant_id, turn_id, user_id, key, subject, value_digest)
                        VALUES ('t', 'old', 'u', 'city', '', 'd')""")

        assert apply_migrations(conn, 384) == [version]
        for message in ("m1", "m2"):
            conn.execute("""INSERT INTO tombstones (tenant_id, turn_id, user_id, key, subject, value_digest, message_id)
                            VALUES ('t', 'new', 'u', 'city', '', 'd', %s)""", (message,))
        conn.row_factory = dict_row
        assert turn_rows.erased_messages(conn, "t", ["old", "new"]) == {"old": {turn_rows.NO_MESSAGE},
                                                                         "new": {"m1", "m2"}}


_FACT_VALUES = "0052_fact_values"
# A favourite song of 750 Han letters, 3,000 bytes, varied: no compression brings a b-tree entry of
# it under the 2,704 bytes one may take.
_LONG_VALUE = "".join(chr(0x20000 + i * 7919 % 40000) for i in range(750))


def _before_fact_values(conn: psycopg.Connection) -> None:
    """The schema as it was before migration 0052, and facts of two users: one a value too long for
    a b-tree entry."""
    conn.execute("DROP INDEX memories_user_value_grams")
    conn.execute("DROP INDEX memories_user_value_starts")
    conn.execute("DROP FUNCTION memex_value_grams")
    conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_FACT_VALUES,))
    conn.execute("INSERT INTO tenants (id) VALUES ('t')")
    for id_, user, value in (("holds", "u", "Shopify Plus"), ("held", "u", "Dublin"), ("other", "v", "Shopify"),
                             ("none", "u", None), ("long", "u", _LONG_VALUE)):
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content,
                                              valid_from, embedding)
                        VALUES ('t', %s, %s, 'semantic', 'fact', 'likes', %s, %s, now(), %s)""",
                     (id_, user, value, id_, [0.0] * 384))


def test_the_fact_values_indexes_are_built_on_a_database_before_0052(ctx):
    """Migration 0052 on a database written before it, one of whose values is too long for a b-tree
    entry: the users' fact values are in both indexes, which are valid (built concurrently), and a
    chain question's statement reads them: a value holding the text and one held in it, the long one
    either way, not another user's."""
    from memex.db import history

    with _migrated_database(ctx, "memex_before_0052") as conn:
        _before_fact_values(conn)
        assert apply_migrations(conn, 384) == [_FACT_VALUES]
        assert _index_valid(conn, "memories_user_value_grams") is True
        assert _index_valid(conn, "memories_user_value_starts") is True
        conn.execute("SET enable_seqscan = off")
        conn.row_factory = dict_row
        for texts, ids in ((["shopify", "we met in dublin"], ["held", "holds"]),
                           ([f"my favourite song is {_LONG_VALUE}"], ["long"]), ([_LONG_VALUE[100:200]], ["long"])):
            found = history.send_chain_facts(conn, "t", "u", texts, [])()
            assert sorted(row["id"] for row in found) == ids


def test_a_cancelled_concurrent_build_leaves_no_invalid_index(ctx):
    """Migration 0052's index build cancelled while it waits for a writer's open transaction: the
    invalid index the build leaves is dropped before the migration fails (a write would otherwise
    update it until the next migrator drops it), and the migration is not recorded; the next run
    builds both indexes."""
    import threading
    from psycopg.conninfo import make_conninfo

    with _migrated_database(ctx, "memex_cancelled_0052") as conn:
        _before_fact_values(conn)
        url = make_conninfo(ctx.db.dsn, dbname="memex_cancelled_0052")
        failures: list[BaseException] = []

        def migrate() -> None:
            try:
                _apply(url)
            except psycopg.Error as exc:
                failures.append(exc)

        with psycopg.connect(url) as open_writer:
            _memory(open_writer, "open")  # its transaction stays open
            migrator = threading.Thread(target=migrate)
            migrator.start()
            building = ("SELECT pid FROM pg_stat_activity WHERE query LIKE '%%CREATE INDEX%%memories_user_value_grams%%' "
                        "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
            _wait_for(lambda: conn.execute(building).fetchone() is not None)
            assert _index_valid(conn, "memories_user_value_grams") is False
            conn.execute("SELECT pg_cancel_backend(%s)", conn.execute(building).fetchone())
            open_writer.commit()  # the drop waits for it as the build did
            migrator.join(60)
        assert [type(failure) for failure in failures] == [psycopg.errors.QueryCanceled]
        assert _index_valid(conn, "memories_user_value_grams") is None
        assert _index_valid(conn, "memories_user_value_starts") is None
        assert conn.execute("SELECT count(*) FROM schema_migrations WHERE version = %s",
                            (_FACT_VALUES,)).fetchone()[0] == 0
        assert apply_migrations(conn, 384) == [_FACT_VALUES]
        assert _index_valid(conn, "memories_user_value_grams") is True
        assert _index_valid(conn, "memories_user_value_starts") is True


def test_the_dedupe_keys_holding_a_value_past_the_bound_name_its_digest_from_0053_on(ctx):
    """Migration 0053 on a database written before it: a fact's key holding a value longer than dedupe.VALUE_BYTES
    (and its end's, `:over`) names the value's digest, as a redelivery of its turn names it now; a shorter
    value's key, a key whose tail is not the value casefolded (one left under an alias), and a key whose digest
    form another row holds already are left as they are, and the migration run again changes nothing."""
    version = "0053_dedupe_digests"
    long_value = "Straße " + "Ä" * 600
    folded = long_value.casefold()
    with _migrated_database(ctx, "memex_before_0053") as conn:
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        rows = (("long", "favorite_song", long_value, f"candidate:turn-long:favorite_song:{folded}"),
                ("over", "favorite_song", long_value, f"candidate:turn-long:favorite_song:{folded}:over"),
                ("short", "favorite_song", "Yellow", "candidate:turn-short:favorite_song:yellow"),
                ("alias", "city", long_value, f"candidate:turn-alias:current_city:{folded}"),
                ("taken", "favorite_book", long_value, f"candidate:turn-taken:favorite_book:{folded}"),
                ("copy", "favorite_book", long_value,
                 f"candidate:turn-taken:favorite_book:{dedupe.value_named(long_value)}"))
        for id_, key, value, dedupe_key in rows:
            turn = dedupe_key.split(":")[1]
            conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status)
                            VALUES ('t', %s, 'u', 's', now(), 'processed') ON CONFLICT DO NOTHING""", (turn,))
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, key, value, content,
                                                  valid_from, embedding, source_turn_id, dedupe_key)
                            VALUES ('t', %s, 'u', 'semantic', 'preference', %s, %s, 'said', now(), %s, %s, %s)""",
                         (id_, key, value, [0.0] * 384, turn, dedupe_key))
        state = "SELECT id, dedupe_key FROM memories ORDER BY id"
        digest = "sha256:" + hashlib.sha256(folded.encode()).hexdigest()

        assert apply_migrations(conn, 384) == [version]
        after = dict(conn.execute(state).fetchall())
        assert after == {id_: dedupe_key for id_, _, _, dedupe_key in rows} | {
            "long": f"candidate:turn-long:favorite_song:{digest}", "over": f"candidate:turn-long:favorite_song:{digest}:over"}
        turn = {"id": "turn-long", "candidates": [
            {"type": "preference", "key": "favorite_song", "value": long_value, "content": "said", "confidence": 0.9,
             "importance": 0.5, "source_message_id": None, "historical": historical} for historical in (False, True)]}
        assert [key for _, key in pipeline._with_dedupe_keys(turn)] == [after["long"], after["over"]]

        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        assert apply_migrations(conn, 384) == [version]
        assert dict(conn.execute(state).fetchall()) == after


def _before_0054(conn: psycopg.Connection) -> None:
    """memex_text as 0043 made it (what 0053 left), 0054 and 0057 not applied."""
    before = (MIGRATIONS / "0043_hidden_and_attached_words.sql").read_text()
    before = before[before.index("CREATE OR REPLACE FUNCTION memex_text"):]
    conn.execute(before[:before.index("$f$;") + 4])
    conn.execute("DROP FUNCTION memex_emoji_words(text), memex_emoji_words(text, text), memex_emoji_sequences")
    conn.execute("DELETE FROM schema_migrations WHERE version IN (%s, %s)", (_EMOJI_WORDS, _EMOJI_INDEXED))


_EMOJI_WORDS, _EMOJI_INDEXED = "0054_emoji_words", "0057_emoji_words_indexed"
# The words a memory's row holds (content_tsv, 0027's generated column) against those of today's memex_text.
_AS_READ_NOW = """SELECT id, content_tsv = setweight(to_tsvector('english', memex_text(left(content, 65536))), 'A')
                                       || setweight(to_tsvector('english', memex_text(left(coalesce(context, ''), 16384))), 'D')
                  FROM memories ORDER BY id"""


def test_the_memories_holding_an_emoji_are_indexed_again_by_0057_after_0054_and_only_they(ctx):
    """Migrations 0054 and 0057 on a database written before them: 0054 reads emoji as words and writes no
    memory; 0057 then indexes again the memories holding an emoji in their content or in the line they were
    indexed with, a ZWJ sequence one word, with the keyword statistics equal to their computation from the
    memories; a memory without one is not written again, and either migration run again changes nothing."""
    from tests.test_term_stats import _recomputed, _stored

    with _migrated_database(ctx, "memex_before_0054") as conn:
        _before_0054(conn)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        for id_, content, context in (("p", "My favourite food is 🍕", None), ("f", "Our 👨\u200d👩\u200d👧 trip", None),
                                      ("c", "Yes, twice!", "Had the best 🍣 tonight!"), ("e", "I moved to Seoul.", None),
                                      ("z", "Mon café préféré est à Zürich.", None)):
            conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, context, embedding,
                                                  valid_from)
                            VALUES ('t', %s, 'u', 'episodic', 'message', %s, %s, array_fill(0.1, ARRAY[384])::vector,
                                    now())""", (id_, content, context))
        conn.execute("""INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                        VALUES ('t', 'w', 'w', 'episodic', 'message', '🎉 Party!', array_fill(0.1, ARRAY[384])::vector,
                                now())""")
        postings = ("SELECT lexeme, memory_id, occurrences, context_occurrences FROM memory_postings "
                    "WHERE lexeme LIKE 'emoji%' ORDER BY 1")
        assert conn.execute(postings).fetchall() == []
        rows = "SELECT id, xmin::text FROM memories ORDER BY id"
        written = dict(conn.execute(rows).fetchall())

        assert apply_migrations(conn, 384, through=_EMOJI_WORDS) == [_EMOJI_WORDS]
        assert conn.execute("SELECT memex_text('🍕')").fetchone()[0] == " emoji1f355 "
        assert dict(conn.execute(rows).fetchall()) == written
        with pytest.raises(MigrationUnfinished, match=_EMOJI_INDEXED):
            apply_migrations(conn, 384, until=time.monotonic())  # out of time after the first user
        assert [lexeme for lexeme, *_ in conn.execute(postings).fetchall()] == [
            "emoji1f355", "emoji1f363", "emoji1f468x1f469x1f467"]
        assert apply_migrations(conn, 384) == [_EMOJI_INDEXED]
        assert conn.execute(postings).fetchall() == [
            ("emoji1f355", "p", 1, 0), ("emoji1f363", "c", 0, 1), ("emoji1f389", "w", 1, 0),
            ("emoji1f468x1f469x1f467", "f", 1, 0)]
        indexed = dict(conn.execute(rows).fetchall())
        assert {id_ for id_ in written if indexed[id_] != written[id_]} == {"c", "f", "p", "w"}
        assert all(now for _, now in conn.execute(_AS_READ_NOW).fetchall())
        with conn.cursor(row_factory=dict_row) as reading:
            statistics = [_stored(reading, "t", user) for user in ("u", "w")]
            assert statistics == [_recomputed(reading, "t", user) for user in ("u", "w")]

        for version in (_EMOJI_WORDS, _EMOJI_INDEXED):
            conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
            assert apply_migrations(conn, 384) == [version]
        assert dict(conn.execute(rows).fetchall()) == indexed
        with conn.cursor(row_factory=dict_row) as reading:
            assert [_stored(reading, "t", user) for user in ("u", "w")] == statistics


def _commit_once_waited_on(conn: psycopg.Connection, migrator, writer: psycopg.Connection) -> None:
    """A re-indexing migration (0057, 0058) waiting for `writer`'s open transaction to end (or, had it not
    waited, done): the writer commits, and the migration finishes."""
    _wait_for(lambda: not migrator.is_alive() or conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%%virtualxid%%' AND pid <> pg_backend_pid()"
    ).fetchone()[0] == 1, 300)
    writer.commit()
    migrator.join(300)


def test_a_memory_written_while_0054_and_0057_run_is_indexed_with_the_emoji_read_as_words(ctx):
    """A writer that indexed a memory with the function 0054 replaces and commits after 0054 has (its insert
    ran before) and one writing between 0054 and 0057: each memory ends with the words of today's reading, its
    emoji found in the keyword statistics (before 0057, 0054's own statement missed the first: not visible
    to it, and nothing indexed it again)."""
    import threading

    from psycopg.conninfo import make_conninfo

    from memex.db import locks

    with _migrated_database(ctx, "memex_during_0054") as conn:
        _before_0054(conn)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (_EMOJI_INDEXED,))
        url = make_conninfo(ctx.db.dsn, dbname="memex_during_0054")
        insert = """INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, embedding, valid_from)
                    VALUES ('t', %s, %s, 'episodic', 'message', %s, array_fill(0.1, ARRAY[384])::vector, now())"""
        with psycopg.connect(url) as open_writer, psycopg.connect(url, autocommit=True) as later_writer:
            locks.lock_user(open_writer, "t", "u")
            open_writer.execute(insert, ("open", "u", "My favourite food is 🍕"))  # its transaction stays open
            applied: list[list[str]] = []
            migrator = threading.Thread(target=lambda: applied.append(_apply(url, through=_EMOJI_WORDS)))
            migrator.start()
            migrator.join(300)
            assert applied == [[_EMOJI_WORDS]]
            later_writer.execute(insert, ("later", "v", "Tacos 🌮 tonight"))
            conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_EMOJI_INDEXED,))
            migrator = threading.Thread(target=lambda: applied.append(_apply(url)))
            migrator.start()
            _commit_once_waited_on(conn, migrator, open_writer)
        assert applied == [[_EMOJI_WORDS], [_EMOJI_INDEXED]]
        assert conn.execute(_AS_READ_NOW).fetchall() == [("later", True), ("open", True)]
        assert conn.execute("SELECT user_id, memory_id FROM memory_postings WHERE lexeme LIKE 'emoji%' ORDER BY 1").fetchall() == [
            ("u", "open"), ("v", "later")]


_PRESENTED = "0058_presented_emoji_and_missed_words"
_INSERT = """INSERT INTO memories (tenant_id, id, user_id, memory_type, type, content, context, embedding, valid_from)
             VALUES ('t', %s, %s, 'episodic', 'message', %s, %s, array_fill(0.1, ARRAY[384])::vector, now())"""


def _function(migration: str, start: str) -> str:
    """The definition in `migration`'s file that begins with `start`."""
    text = (MIGRATIONS / f"{migration}.sql").read_text()
    text = text[text.index(start):]
    return text[:text.index("$f$;") + 4]


def _before_0058(conn: psycopg.Connection) -> None:
    """memex_emoji_words as 0054 made it (what 0057 left), 0058 not applied."""
    conn.execute(_function(_EMOJI_WORDS, "CREATE OR REPLACE FUNCTION memex_emoji_words(t text) "))
    conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_PRESENTED,))


def test_0058_indexes_again_the_memories_0043_missed_and_those_with_an_emoji_of_vs16_or_a_keycap(ctx):
    """Migration 0058 on a database written before it: the memories holding Hangul or a character that shows
    nothing that a writer racing 0043 indexed with 0027's memex_text, and those holding an emoji that VS16 or a
    keycap makes ("▶️", "1️⃣", read as words from 0058 on), are indexed again with today's words and the keyword
    statistics equal to their computation from the memories; the others are not written again, a run out of
    time continues where it stopped, and the migration run again changes nothing."""
    from tests.test_term_stats import _recomputed, _stored

    with _migrated_database(ctx, "memex_before_0058") as conn:
        _before_0058(conn)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        # written while 0043 ran, with the function it replaced
        conn.execute(_function("0027_folded_text", "CREATE FUNCTION memex_text").replace("CREATE FUNCTION",
                                                                                      "CREATE OR REPLACE FUNCTION"))
        for row in (("s", "u", "서울에서 살고 있어요.", None), ("r", "u", "My favourite band is Rad\u200biohead.", None),
                    ("x", "u", "I moved to Seoul.", None)):
            conn.execute(_INSERT, row)
        conn.execute(_function(_EMOJI_WORDS, "CREATE OR REPLACE FUNCTION memex_text"))
        for row in (("p", "v", "Press ▶️ to start the film", None), ("c", "v", "The first, please", "Pick 1️⃣ or 2️⃣"),
                    ("h", "v", "❤️ 🍕 서울에 가요", None), ("e", "w", "I moved to Seoul.", None)):
            conn.execute(_INSERT, row)
        postings = ("SELECT lexeme, memory_id, occurrences, context_occurrences FROM memory_postings "
                    "WHERE lexeme IN ('서울', 'radiohead', 'emoji25b6', 'emoji31x20e3', 'emoji32x20e3') ORDER BY 1, 2")
        assert conn.execute(postings).fetchall() == [("서울", "h", 1, 0)]
        rows = "SELECT id, xmin::text FROM memories ORDER BY id"
        written = dict(conn.execute(rows).fetchall())

        with pytest.raises(MigrationUnfinished, match=_PRESENTED):
            apply_migrations(conn, 384, until=time.monotonic())  # out of time after the first user
        assert conn.execute("SELECT memex_text('▶️')").fetchone()[0] == " emoji25b6 "
        assert [lexeme for lexeme, *_ in conn.execute(postings).fetchall()] == ["radiohead", "서울", "서울"]
        assert apply_migrations(conn, 384) == [_PRESENTED]
        assert conn.execute(postings).fetchall() == [
            ("emoji25b6", "p", 1, 0), ("emoji31x20e3", "c", 0, 1), ("emoji32x20e3", "c", 0, 1), ("radiohead", "r", 1, 0),
            ("서울", "h", 1, 0), ("서울", "s", 1, 0)]
        indexed = dict(conn.execute(rows).fetchall())
        assert {id_ for id_ in written if indexed[id_] != written[id_]} == {"c", "p", "r", "s"}
        assert all(now for _, now in conn.execute(_AS_READ_NOW).fetchall())
        with conn.cursor(row_factory=dict_row) as reading:
            statistics = [_stored(reading, "t", user) for user in ("u", "v", "w")]
            assert statistics == [_recomputed(reading, "t", user) for user in ("u", "v", "w")]

        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (_PRESENTED,))
        assert apply_migrations(conn, 384) == [_PRESENTED]
        assert dict(conn.execute(rows).fetchall()) == indexed


def test_0058_waits_for_no_transaction_that_holds_no_write_on_its_memories(ctx):
    """A transaction open elsewhere on the server (another database) or only reading memories in this one never
    wrote a row with the function 0058 replaces: 0058 does not wait for it (it waited for every transaction on
    the server, and a session idle in one held a deploy's migration until it ran out of time: review revZ)."""
    with _migrated_database(ctx, "memex_0058_waits_for_writers") as conn:
        _before_0058(conn)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute(_INSERT, ("p", "v", "Press ▶️ to start the film", None))
        with psycopg.connect(ctx.db.dsn) as elsewhere, psycopg.connect(conn.info.dsn) as reader:
            elsewhere.execute("SELECT txid_current()")
            reader.execute("SELECT count(*), txid_current() FROM memories")
            assert apply_migrations(conn, 384, until=time.monotonic() + 5) == [_PRESENTED]
        assert conn.execute("SELECT content_tsv::text LIKE '%%emoji25b6%%' FROM memories WHERE id = 'p'").fetchone()[0]


def test_a_memory_written_while_0058_runs_is_indexed_with_its_emoji_read_as_a_word(ctx):
    """A writer that indexed a memory with the function 0058 replaces and commits after 0058 has committed its
    own (its insert ran before): 0058 waits for it, then indexes the memory again with today's words."""
    import threading

    from psycopg.conninfo import make_conninfo

    from memex.db import locks

    with _migrated_database(ctx, "memex_during_0058") as conn:
        _before_0058(conn)
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        url = make_conninfo(ctx.db.dsn, dbname="memex_during_0058")
        with psycopg.connect(url) as open_writer:
            locks.lock_user(open_writer, "t", "u")
            open_writer.execute(_INSERT, ("open", "u", "Press ▶️ to start the film", None))  # its transaction stays open
            applied: list[list[str]] = []
            migrator = threading.Thread(target=lambda: applied.append(_apply(url)))
            migrator.start()
            _commit_once_waited_on(conn, migrator, open_writer)
        assert applied == [[_PRESENTED]]
        assert conn.execute(_AS_READ_NOW).fetchall() == [("open", True)]
        assert conn.execute("SELECT user_id, memory_id FROM memory_postings WHERE lexeme = 'emoji25b6'").fetchall() == [
            ("u", "open")]


def test_the_erased_turns_and_their_columns_come_with_0056_and_run_again_unchanged(ctx):
    """Migration 0056 on a database written before it: the table of erased turns' ids and keys' digests (the
    digests indexed), the turn an import line named (none for the turns stored before), and a job's count of
    lines naming an erased turn (0 for the jobs before); run again, it changes nothing, an id it has kept
    included."""
    version = "0056_erased_turns"
    with _migrated_database(ctx, "memex_before_0056") as conn:
        conn.execute("DROP TABLE erased_turns")
        conn.execute("ALTER TABLE turns DROP COLUMN imported_from")
        conn.execute("ALTER TABLE backfills DROP COLUMN erased")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status)
                        VALUES ('t', 'turn-1', 'u', 's', now(), 'processed')""")
        conn.execute("INSERT INTO backfills (tenant_id, id, kind, done) VALUES ('t', 'bf-1', 'import', 3)")
        state = """SELECT (SELECT array_agg(imported_from) FROM turns), (SELECT array_agg((done, erased)::text) FROM backfills),
                          (SELECT array_agg((tenant_id, user_id, turn_id, key_digest)::text ORDER BY turn_id)
                           FROM erased_turns),
                          (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes
                           WHERE tablename = 'erased_turns')"""

        assert apply_migrations(conn, 384) == [version]
        indexes = ["erased_turns_keys", "erased_turns_pkey"]
        assert conn.execute(state).fetchone() == ([None], ["(3,0)"], None, indexes)
        conn.execute("INSERT INTO erased_turns (tenant_id, user_id, turn_id, key_digest) VALUES ('t', 'u', 'turn-0', 'd')")
        after = conn.execute(state).fetchone()

        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(state).fetchone() == after == ([None], ["(3,0)"], ["(t,u,turn-0,d)"], indexes)


def test_the_erased_turns_become_digests_with_0059_and_run_again_unchanged(ctx):
    """Migration 0059 on a database written before it: 0056's erased turns, their ids in clear, become digests
    salted with their tenant and user (a key's digest as 0056 kept it: the same salt), 0056's table left empty; the
    turn an import line named (`imported_from`), its digest in `imported_from_digests`, the column left empty (both
    stay for a version before 0059 rolled back onto it). Run again, it changes nothing."""
    version = "0059_erased_turn_digests"
    with _migrated_database(ctx, "memex_before_0059") as conn:
        conn.execute("DROP TABLE erased_turn_digests")
        conn.execute("ALTER TABLE turns DROP COLUMN imported_from_digests")
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        conn.execute("INSERT INTO tenants (id) VALUES ('t')")
        conn.execute("""INSERT INTO turns (tenant_id, id, user_id, session_id, occurred_at, status, imported_from)
                        VALUES ('t', 'turn-1', 'u', 's', now(), 'processed', 'turn-0'),
                               ('t', 'turn-2', 'u', 's', now(), 'processed', NULL)""")
        conn.execute("INSERT INTO erased_turns VALUES ('t', 'u', 'turn-9', 'd9'), ('t', 'u', 'turn-8', NULL)")
        state = """SELECT (SELECT array_agg((imported_from, imported_from_digests)::text ORDER BY id) FROM turns),
                          (SELECT array_agg((turn_digest, key_digest)::text ORDER BY key_digest NULLS FIRST)
                           FROM erased_turn_digests),
                          (SELECT count(*) FROM erased_turns)"""
        digest = lambda said: hashlib.sha256(f"t\x1fu\x1f{said}".encode()).hexdigest()  # noqa: E731
        moved = ([f'(,{{{digest("turn-0")}}})', "(,)"], [f"({digest('turn-8')},)", f"({digest('turn-9')},d9)"], 0)

        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(state).fetchone() == moved
        conn.execute("DELETE FROM schema_migrations WHERE version = %s", (version,))
        assert apply_migrations(conn, 384) == [version]
        assert conn.execute(state).fetchone() == moved


def test_a_users_erasure_finds_the_rolled_back_versions_clear_ids_through_an_index_not_the_tenants_turns(ctx):
    """The erasure's tenant-wide move of what a rolled-back version wrote in clear (db/erasure.py user_chunk)
    reads the rows holding an `imported_from` through 0061's partial index, which holds only those: a tenant's
    turns are not read to find none."""
    with _migrated_database(ctx, "memex_0061") as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(row[0] for row in conn.execute(
            """EXPLAIN UPDATE turns SET imported_from_digests = ARRAY[erased_digest(tenant_id, user_id, imported_from)],
                                        imported_from = NULL
               WHERE tenant_id = 't' AND imported_from IS NOT NULL""").fetchall())
        assert "turns_imported_from_in_clear" in plan, plan
