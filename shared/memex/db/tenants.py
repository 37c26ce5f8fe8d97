"""Tenants and their API keys (stored as SHA-256 hashes, never in clear)."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg


def hash_key(key: str) -> str:
    # Keys are 256-bit random strings, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def ensure_tenant(conn: psycopg.Connection, tenant_id: str) -> None:
    conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (tenant_id,))


def insert_key(conn: psycopg.Connection, tenant_id: str, key: str) -> str:
    """Stores the key's hash; returns the key's id."""
    return conn.execute(
        "INSERT INTO api_keys (key_hash, tenant_id, prefix) VALUES (%s, %s, %s) RETURNING id",
        (hash_key(key), tenant_id, key[:8]),
    ).fetchone()["id"]


# last_used_at is written at most once a minute per key, so that a busy key does not turn every
# request into a write of the same row.
_KEY_HOLDER = """
WITH holder AS (
    SELECT k.key_hash, k.id, k.tenant_id, k.rate_limit AS key_limit, k.revoked_at IS NOT NULL AS revoked,
           t.rate_limit AS tenant_limit
    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
    WHERE k.key_hash = %(hash)s
), used AS (
    UPDATE api_keys SET last_used_at = now()
    WHERE key_hash = (SELECT key_hash FROM holder WHERE NOT revoked)
      AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT id, tenant_id, key_limit, tenant_limit, revoked FROM holder
"""


def key_holder(conn: psycopg.Connection, key: str) -> dict[str, Any] | None:
    """The key's id, tenant, revocation and limits, its use recorded; None for an unknown key."""
    return conn.execute(_KEY_HOLDER, {"hash": hash_key(key)}).fetchone()


def open_tenant_limit(conn: psycopg.Connection, tenant_id: str) -> tuple[bool, str | None]:
    """Whether any key was ever created (revoked ones count: revoking every key must not open the
    service to requests without one), and the tenant's own limit."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM api_keys) AS present,"
        " (SELECT rate_limit FROM tenants WHERE id = %s) AS tenant_limit", (tenant_id,)).fetchone()
    return row["present"], row["tenant_limit"]


def any_key_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM api_keys) AS present").fetchone()["present"]


def list_keys(conn: psycopg.Connection, tenant_id: str | None) -> list[dict[str, Any]]:
    return conn.execute(
        "SELECT id, prefix, tenant_id, created_at, last_used_at, revoked_at, rate_limit FROM api_keys"
        " WHERE %(tenant)s::text IS NULL OR tenant_id = %(tenant)s ORDER BY tenant_id, created_at",
        {"tenant": tenant_id}).fetchall()


def revoke_key(conn: psycopg.Connection, key_id: str) -> dict[str, Any] | None:
    """Revokes the key (a second revocation keeps the first time); None for an unknown id."""
    return conn.execute(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s"
        " RETURNING id, tenant_id, revoked_at", (key_id,)).fetchone()


def set_key_limit(conn: psycopg.Connection, key_id: str, limit: str | None) -> bool:
    return conn.execute("UPDATE api_keys SET rate_limit = %s WHERE id = %s", (limit, key_id)).rowcount == 1


def set_tenant_limit(conn: psycopg.Connection, tenant_id: str, limit: str | None) -> None:
    conn.execute("INSERT INTO tenants (id, rate_limit) VALUES (%s, %s)"
                 " ON CONFLICT (id) DO UPDATE SET rate_limit = excluded.rate_limit", (tenant_id, limit))


def tenant(conn: psycopg.Connection, tenant_id: str) -> dict[str, Any] | None:
    return conn.execute(
        "SELECT t.id, t.created_at, t.rate_limit,"
        " count(k.key_hash) FILTER (WHERE k.revoked_at IS NULL) AS active_keys,"
        " count(k.key_hash) FILTER (WHERE k.revoked_at IS NOT NULL) AS revoked_keys"
        " FROM tenants t LEFT JOIN api_keys k ON k.tenant_id = t.id WHERE t.id = %s GROUP BY t.id",
        (tenant_id,)).fetchone()
