"""Apply the versioned SQL files in migrations/ once each, in order, under an advisory lock.

A migration's statements (in a transaction; a CONCURRENT one's index builds wait for older
transactions by design) wait at most LOCK_TIMEOUT_SECONDS for a table's lock: an ALTER TABLE that
waits behind a long transaction (a big import, an analyst's open session) would otherwise queue
every later read and write of that table behind itself for as long as that transaction lives. On
the timeout its transaction is rolled back (nothing of it stays), the service goes on, and the
migration is tried again after a pause, up to LOCKED_TRIES times; then `MigrationBlocked` names
the migration and the sessions holding locks on the tables it names."""

from __future__ import annotations

import importlib
import logging
import re
import time
from importlib import resources

import psycopg
from psycopg import errors
from psycopg.rows import tuple_row

log = logging.getLogger(__name__)

_LOCK_ID = 7_316_001  # arbitrary, constant: serialises concurrent migrators (deploy + local start)
LOCK_WAIT_SECONDS = 1800.0
# The first line of a migration that runs outside a transaction, one statement at a time: an index
# built CONCURRENTLY on a table in use blocks no write while it builds. Each of its statements must
# be safe to run again after a failure half-way (a failed concurrent build leaves an invalid index:
# drop it first).
CONCURRENT = "-- memex: concurrently"
# The first line of a data migration that needs the domain's own rules (a key filed as
# extraction/aliases.py files it): the module named after it does the work, outside any transaction as a
# concurrent migration's statements are, its `migrate(cur, until)` taking each user's rows in a transaction of
# their own under that user's lock (db/locks.py) rather than every user's at once. It must be safe to
# run again after a failure half-way. It begins no transaction after `until` (a time.monotonic()
# deadline, or None) and returns False if it stopped with work left: the migration is not recorded, the
# later ones wait, and the next run continues it (MigrationUnfinished). The file's other lines say what it does,
# and may hold statements: they run first, in a transaction of their own committed before the module's work (a
# new reading of the rows that every writer uses from then on, migration 0058), and again on a run that continues
# it, so they too must be safe to run again (CREATE OR REPLACE).
PYTHON = "-- memex: python "
# A writer queued behind a migration waiting for a lock waits this long at most (then the
# migration steps back). Not applied to concurrent migrations: CREATE INDEX CONCURRENTLY waits for
# every older transaction by design, as a lock wait, and blocks no write while it does.
LOCK_TIMEOUT_SECONDS = 5.0
# Tries of a migration that meets a held lock, a pause between each: with the timeout, about two
# minutes in all, within MigrateFunction's 300 s (template.yaml), so that CloudFormation hears why.
LOCKED_TRIES = 12
LOCKED_PAUSE_SECONDS = 5.0


class MigrationBlocked(RuntimeError):
    """A migration met a lock held by another session on every try."""


class MigrationUnfinished(RuntimeError):
    """A data migration ran out of its time with work left; what it did is kept and the next run of
    the migrations continues it. `applied`: the versions this run applied before it stopped (recorded:
    the next run does not apply them again, so only this run can say it did)."""

    def __init__(self, message: str, applied: list[str] | None = None):
        super().__init__(message)
        self.applied = list(applied or [])


class EmbeddingDimensionMismatch(RuntimeError):
    pass


def _migration_files() -> list[tuple[str, str]]:
    folder = resources.files("memex.db") / "migrations"
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(p.name.removesuffix(".sql"), p.read_text(encoding="utf-8")) for p in files]


def apply_migrations(conn: psycopg.Connection, embedding_dim: int, *, lock_timeout: float = LOCK_TIMEOUT_SECONDS,
                     tries: int = LOCKED_TRIES, pause: float = LOCKED_PAUSE_SECONDS,
                     through: str | None = None, until: float | None = None) -> list[str]:
    """Apply pending migrations, each in a transaction of its own (a concurrent one outside any);
    return the versions applied. With `through` (a version), none after it: an install of that
    version, as a benchmark of a later migration starts from. With `until` (a time.monotonic()
    deadline), a data migration that would run past it stops with its work kept and
    `MigrationUnfinished` is raised: the next call continues it (PYTHON's comment). Safe to run any
    number of times, by several migrators at once.
    `conn` is in autocommit; rows are read by position through cursors of their own, whatever the
    connection's row factory. A migration whose lock waits pass `lock_timeout` is rolled back and
    tried again after `pause`, `tries` times in all (the module's docstring)."""
    applied: list[str] = []
    with conn.cursor(row_factory=tuple_row) as cur:
        _lock(cur, until)
        try:
            # Building an index over a large table outlasts the sessions' usual statement timeout.
            cur.execute("SET statement_timeout = 0")
            with conn.transaction():
                done = _prepare(cur, embedding_dim)
            for version, sql in _migration_files():
                if through is not None and version > through:
                    break
                if version in done:
                    continue
                if sql.startswith(CONCURRENT):
                    for statement in _split(sql):
                        _build_or_drop(cur, statement)
                    cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                elif sql.startswith(PYTHON):
                    with conn.transaction():
                        cur.execute(sql)
                    if not importlib.import_module(sql[len(PYTHON):].splitlines()[0].strip()).migrate(cur, until):
                        raise MigrationUnfinished(
                            f"migration {version} ran out of time with work left; what it did is kept: "
                            "run the migrations again (deploy again) to continue it", applied)
                    cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                else:
                    _apply_waiting_briefly(conn, cur, version, sql.replace("{embedding_dim}", str(int(embedding_dim))),
                                           lock_timeout, tries, pause)
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


def unknown_versions_warning(versions: list[str]) -> str:
    """What a start (`make dev`, `memex migrate`) and a deploy's MigrateFunction say of unknown_versions."""
    return (f"the database has migrations this version of memex does not know ({', '.join(versions)}): "
            "a newer version applied them; this one serves it as it is, without what they added")


def _lock(cur: psycopg.Cursor, until: float | None) -> None:
    """Wait for the migrators' lock by trying it now and then: a migrator blocked in a statement would
    hold a snapshot, and the concurrent index build of the one holding the lock waits for every
    snapshot older than its own, while that migrator waits for the lock: a deadlock. Past `until`
    the wait ends in MigrationUnfinished, as a data migration's would: a deploy's MigrateFunction
    invoked twice (Lambda retries an event) hands the wait on to its next invocation instead of
    being ended by Lambda without an answer."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while not cur.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK_ID,)).fetchone()[0]:
        if until is not None and time.monotonic() > until:
            raise MigrationUnfinished("another migrator holds the migrations' lock: run the migrations again "
                                      "(deploy again) to continue after it")
        if time.monotonic() > deadline:
            raise TimeoutError(f"another migrator held the migrations' lock for {LOCK_WAIT_SECONDS:.0f} s")
        time.sleep(0.2)


def _apply_waiting_briefly(conn: psycopg.Connection, cur: psycopg.Cursor, version: str, sql: str,
                           lock_timeout: float, tries: int, pause: float) -> None:
    for attempt in range(1, tries + 1):
        try:
            with conn.transaction():
                # SET LOCAL: the setting ends with the transaction, whatever becomes of it.
                cur.execute(f"SET LOCAL lock_timeout = '{int(lock_timeout * 1000)}ms'")
                cur.execute(sql)
                cur.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
            return
        except errors.LockNotAvailable:
            holders = _holders(cur, sql)
            if attempt == tries:
                raise MigrationBlocked(
                    f"migration {version} waited {lock_timeout:g} s for a lock on each of {tries} tries and was rolled "
                    f"back each time; held by {holders or 'a session that has ended since'}") from None
            log.warning("migration %s waited %g s for a lock held by %s; rolled back, tried again in %g s (try %d of %d)",
                        version, lock_timeout, holders or "a session that has ended since", pause, attempt, tries)
            time.sleep(pause)


def _holders(cur: psycopg.Cursor, sql: str) -> str:
    """The other sessions holding locks on the tables `sql` names, oldest transaction first: their pid
    (for pg_terminate_backend), the table and lock, how long their transaction has been open, their
    state and application. Never their query, which may quote what a user said."""
    named = set(re.findall(r"\w+", sql.lower()))
    rows = cur.execute(
        """SELECT a.pid, c.relname, l.mode, extract(epoch FROM now() - a.xact_start)::int, a.state,
                  a.application_name
           FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.granted AND l.locktype = 'relation' AND l.pid <> pg_backend_pid()
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           ORDER BY a.xact_start NULLS LAST, a.pid""").fetchall()
    return "; ".join(f"pid {pid} ({mode} on {table}, its transaction open {age} s, {state}"
                     + (f", application {application!r}" if application else "") + ")"
                     for pid, table, mode, age, state, application in rows if table in named)


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


_BUILT = re.compile(r"^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
                    re.IGNORECASE | re.MULTILINE)


def _build_or_drop(cur: psycopg.Cursor, statement: str) -> None:
    """Run a concurrent migration's statement; if it is an index build that fails (cancelled, a
    deadlock, a row the index refuses), drop the invalid index it leaves, then raise: until the next
    migrator drops it, every write of the table would still update it, and fail where the build
    did."""
    try:
        cur.execute(statement)
    except psycopg.Error:
        built = _BUILT.search(statement)
        if built and not cur.connection.broken and cur.execute(
                "SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(%s) AND NOT indisvalid",
                (built.group(1),)).fetchone():
            cur.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {built.group(1)}")
        raise


def _split(sql: str) -> list[str]:
    """The statements of a concurrent migration: each ends with a semicolon at the end of a line."""
    return [statement.strip() for statement in re.split(r";[ \t]*$", sql, flags=re.MULTILINE) if statement.strip()]
