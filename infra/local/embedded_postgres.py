"""An embedded PostgreSQL 16 with pgvector (the pgserver package), its data kept on disk."""

from __future__ import annotations

from pathlib import Path


def start(data_dir: Path) -> str:
    """Start (or join) the server whose data lives in data_dir; return its connection URL.
    The server outlives nothing: pgserver stops it when the last process using it exits."""
    import pgserver

    data_dir.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(data_dir, cleanup_mode="stop")
    return server.get_uri()
