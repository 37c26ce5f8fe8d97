"""Tenants and their API keys (stored as SHA-256 hashes, never in clear)."""

from __future__ import annotations

import hashlib

import psycopg


def hash_key(key: str) -> str:
    # Keys are 256-bit random strings, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def ensure_tenant(conn: psycopg.Connection, tenant_id: str) -> None:
    conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (tenant_id,))


def insert_key(conn: psycopg.Connection, tenant_id: str, key: str) -> None:
    conn.execute(
        "INSERT INTO api_keys (key_hash, tenant_id, prefix) VALUES (%s, %s, %s)",
        (hash_key(key), tenant_id, key[:8]),
    )


def tenant_for_key(conn: psycopg.Connection, key: str) -> str | None:
    row = conn.execute("SELECT tenant_id FROM api_keys WHERE key_hash = %s", (hash_key(key),)).fetchone()
    return row["tenant_id"] if row else None


def any_key_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM api_keys) AS present").fetchone()["present"]
