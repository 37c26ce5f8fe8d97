"""One lazily opened Postgres connection per execution environment (per thread locally).

Lambda runs one request at a time per environment, so a single connection is right there;
the local runtime serves requests from a thread pool, so each thread keeps its own. That pool
ends a thread idle for 10 s (anyio's workers) and starts new ones for the next burst, so a thread's
connection outlives it: it waits among the spares for the next thread that has none. A new session
costs a connect and a first search with cold catalog caches (~7 ms more of Postgres CPU:
docs/measurements/performance.md).
No prepared statements unless asked for (`prepared_statements`): RDS Proxy pins sessions that
use them. Every session starts with a statement timeout and an idle-in-transaction timeout (libpq
`options`), so that neither a runaway query nor a function frozen mid-transaction holds locks and a connection.

The threads that wait on an LLM for a worker job (memex/at_once.py) hold none of their own: ten of them
each keeping a connection idle through a model's answer made a supersession environment open eleven,
times the function's concurrency, against RDS's max_connections. They borrow one of at most
`loaned_connections` (MEMEX_LLM_DB_CONNECTIONS) for each stretch of database work (`borrowed`).
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import Callable, Iterator

import psycopg
from pgvector.psycopg import register_vector
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row


class Database:
    def __init__(self, dsn_provider: Callable[[], str], *, statement_timeout_ms: int = 30_000,
                 idle_in_transaction_timeout_ms: int = 60_000, prepared_statements: bool = False,
                 spare_connections: int = 8, loaned_connections: int = 2):
        self._dsn_provider = dsn_provider
        # psycopg prepares a statement at its fifth execution on a connection (its default)
        self._prepare_threshold = 5 if prepared_statements else None
        # TimeZone=UTC: psycopg hands a timestamptz back in the session's zone, and for "UTC" as
        # datetime.timezone.utc, whose arithmetic is 3-8x a ZoneInfo's ("Etc/UTC", which initdb
        # takes from the system: the embedded server's); a search does it for hundreds of rows.
        # The same instants: every answer sends its times in UTC (models.wire_time).
        self._options = (f"-c statement_timeout={int(statement_timeout_ms)} "
                         f"-c idle_in_transaction_session_timeout={int(idle_in_transaction_timeout_ms)} "
                         "-c TimeZone=UTC")
        self._dsn: str | None = None
        self._local = threading.local()
        self._generation = 0
        self._spare_limit = spare_connections
        self._spares: list[tuple[psycopg.Connection, int]] = []  # with their generation
        self._spares_lock = threading.Lock()
        self._loans = threading.BoundedSemaphore(loaned_connections)  # a loan given back joins the spares

    @property
    def dsn(self) -> str:
        if self._dsn is None:
            self._dsn = self._dsn_provider()
        return self._dsn

    def _open(self) -> psycopg.Connection:
        conn = psycopg.connect(
            self.dsn, autocommit=True, prepare_threshold=self._prepare_threshold, row_factory=dict_row,
            connect_timeout=10, options=self._options,
            # named in pg_stat_activity (unless the DSN names it): an operator counts memex's connections
            fallback_application_name="memex",
        )
        try:
            register_vector(conn)
        except psycopg.ProgrammingError:
            # The vector type does not exist before the first migration creates the extension.
            pass
        return conn

    def connection(self) -> psycopg.Connection:
        loan = getattr(self._local, "loan", None)
        if loan is not None:
            return loan
        if getattr(_borrowers, "only", False):
            raise RuntimeError("a thread that waits on the LLM uses the database only through Database.borrowed()")
        conn = getattr(self._local, "conn", None)
        if (conn is not None and self._local.generation != self._generation
                and conn.info.transaction_status == TransactionStatus.IDLE):
            conn.close()
        if conn is None or conn.closed or conn.broken:
            self._forget_handover()
            conn = self._spare() or self._open()
            self._local.conn = conn
            self._local.generation = self._generation
            # When this thread is gone, its connection goes to the spares (or is closed).
            self._local.handover = weakref.finalize(threading.current_thread(), self._keep, conn, self._generation)
        return conn

    @contextmanager
    def borrowed(self) -> Iterator[psycopg.Connection]:
        """In a borrowing thread (`borrow_only`), one of at most `loaned_connections` connections as
        this thread's for the scope, waiting for one when all are lent; given back at its end, whatever
        raised (closed if it broke or was left mid-transaction). In any other thread, its own
        connection: a job run inline (MEMEX_LLM_CONCURRENCY=1) keeps to one."""
        if not getattr(_borrowers, "only", False) or getattr(self._local, "loan", None) is not None:
            yield self.connection()
            return
        with self._loans:
            generation = self._generation
            conn = self._spare() or self._open()
            self._local.loan = conn
            try:
                yield conn
            finally:
                self._local.loan = None
                self._keep(conn, generation)

    def _spare(self) -> psycopg.Connection | None:
        """The most recently kept spare still usable (of this generation, open, idle), if any."""
        while True:
            with self._spares_lock:
                if not self._spares:
                    return None
                conn, generation = self._spares.pop()
            if generation == self._generation and _usable(conn):
                return conn
            conn.close()

    def _keep(self, conn: psycopg.Connection, generation: int) -> None:
        with self._spares_lock:
            # not one left mid-transaction (a loan whose scope raised inside one)
            if len(self._spares) < self._spare_limit and generation == self._generation and _usable(conn):
                self._spares.append((conn, generation))
                return
        conn.close()

    def _forget_handover(self) -> None:
        handover = getattr(self._local, "handover", None)
        if handover is not None:
            handover.detach()
            self._local.handover = None

    def discard_all(self) -> None:
        """Have every thread open a fresh connection at its next use (one not inside a
        transaction): once one connection found the server gone, the others are dead too."""
        self._generation += 1
        with self._spares_lock:
            spares, self._spares = self._spares, []
        for conn, _ in spares:
            conn.close()

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """A transaction on this thread's connection (a borrowing thread's loan for its length:
        `borrowed`). A connection that broke is replaced on the next call, so a failed request or
        batch is retried on a fresh one."""
        with self.borrowed() as conn, conn.transaction():
            yield conn

    @contextmanager
    def maintenance(self, **settings: str) -> Iterator[psycopg.Connection]:
        """A connection of its own, in autocommit and without the statement timeout, with these
        session settings: for long work that must run outside a transaction (CREATE INDEX
        CONCURRENTLY), away from the connection requests share. Closed at the end."""
        options = " ".join(f"-c {name}={value}" for name, value in {"statement_timeout": "0", **settings}.items())
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10, options=options) as conn:
            yield conn

    def reset(self) -> None:
        """Close this thread's connection (not handed to the spares)."""
        self._forget_handover()
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            try:
                conn.close()
            finally:
                self._local.conn = None


_borrowers = threading.local()


def borrow_only() -> None:
    """Mark this thread as one that holds no connection of its own: it uses the database only through
    `Database.borrowed()` (a thread of memex/at_once.py's pool; its initializer)."""
    _borrowers.only = True


def connection_lost(exc: BaseException) -> bool:
    """The server is out of reach: psycopg lost or never got a connection (no SQLSTATE), a connection
    exception (08), the server shutting down or starting (57P). A statement timeout (57014) leaves the
    connection usable, and a statement that failed says nothing of the server."""
    return isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)) and (
        exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P")))


def _usable(conn: psycopg.Connection) -> bool:
    return not conn.closed and not conn.broken and conn.info.transaction_status == TransactionStatus.IDLE
