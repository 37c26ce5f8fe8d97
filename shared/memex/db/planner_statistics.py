"""The planner's statistics of the tables a search reads, refreshed when a bulk job has written
them: autovacuum analyses these tables once 50 rows and a hundredth of each have changed (migration
0032; the server's default is a tenth), and checks once a minute, so right after an import it has either not
come yet or last saw a fraction of the rows. Without statistics the planner misjudges how many rows
a user has and picks plans that cost a search several times its CPU (docs/measurements/performance.md,
2026-12-04 third and fourth stops)."""

from __future__ import annotations

import psycopg

# What the search's statements read and an import, a re-embedding or a re-extraction writes (the
# BM25 statistics' tables through memories' triggers). Tenants, keys and the user indexes' list
# are not written by a bulk job.
SEARCHED_TABLES = ("memories", "memory_stats", "memory_terms", "memory_postings", "memory_links", "messages", "turns")


def analyze_searched_tables(conn: psycopg.Connection) -> None:
    """ANALYZE reads a bounded sample of each table (300 × default_statistics_target rows), so it
    costs about the same at a thousand rows as at a million. SKIP_LOCKED passes over a table whose
    lock another maintenance holds (autovacuum analysing it already, or the index job building a
    user's index concurrently, which would make this wait for minutes) rather than wait."""
    conn.execute(f"ANALYZE (SKIP_LOCKED) {', '.join(SEARCHED_TABLES)}")
