"""Tenants and their API keys (stored as SHA-256 hashes, never in clear)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import psycopg
import psycopg.sql

from memex.db import erasing
from memex.errors import TenantDeleted


def hash_key(key: str) -> str:
    # Keys are 256-bit random strings, so a fast hash is enough: there is nothing to brute-force.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


# The tenant's row held FOR KEY SHARE to the writer's commit: a deletion (mark_deleted, FOR UPDATE)
# waits for the writers that found the tenant live, and a writer that comes after it reads the row
# as the deletion left it. (The foreign keys' own lock on it is taken by the insert, after the test.)
# Read first, inserted only if absent (a new tenant): one statement on the ingest path, as before
# the test (docs/measurements/performance.md, 2026-12-06). Whether the user written for is being
# erased (db/erasing.py) is read in the same statement: a write's checks in one round trip.
_HELD = f"""SELECT deleted_at, {erasing.MARKED} AS erasing FROM tenants WHERE id = %(t)s FOR KEY SHARE"""


def ensure_tenant(conn: psycopg.Connection, tenant_id: str, user_id: str | None = None) -> None:
    """Creates the tenant if new; TenantDeleted when it was deleted (its data is not written again).
    With `user_id`, UserBeingErased when that user's erasure has begun (nothing is written for them)."""
    args = {"t": tenant_id, "u": user_id}
    row = conn.execute(_HELD, args).fetchone()
    if row is None:
        conn.execute("INSERT INTO tenants (id) VALUES (%s) ON CONFLICT DO NOTHING", (tenant_id,))
        row = conn.execute(_HELD, args).fetchone()
    if row["deleted_at"] is not None:
        raise TenantDeleted(f"tenant {tenant_id} was deleted")
    erasing.refuse(row, user_id)


def reopen_tenant(conn: psycopg.Connection, tenant_id: str) -> Any:
    """Creates the tenant, or makes a deleted one live again; when it had been deleted, when."""
    row = conn.execute(
        """INSERT INTO tenants AS t (id) VALUES (%(t)s)
           ON CONFLICT (id) DO UPDATE SET deleted_at = NULL WHERE t.deleted_at IS NOT NULL
           RETURNING (SELECT deleted_at FROM tenants WHERE id = %(t)s) AS was_deleted""",
        {"t": tenant_id}).fetchone()
    return row["was_deleted"] if row else None


def insert_key(conn: psycopg.Connection, tenant_id: str, key: str,
               expires_in: timedelta | None = None) -> dict[str, Any]:
    """Stores the key's hash, expiring `expires_in` from now if given; returns its id and expiry."""
    return conn.execute(
        "INSERT INTO api_keys (key_hash, tenant_id, prefix, expires_at) VALUES (%s, %s, %s, now() + %s)"
        " RETURNING id, expires_at", (hash_key(key), tenant_id, key[:8], expires_in),
    ).fetchone()


# When a key (aliased k) is expired, the one definition the caller's check and a tenant's counts share:
# true or false, never null (a key without expires_at never expires), so that NOT of it is its opposite.
_EXPIRED = "coalesce(k.expires_at <= now(), false)"

# last_used_at is written at most once a minute per key, so that a busy key does not turn every
# request into a write of the same row.
_KEY_HOLDER = f"""
WITH holder AS (
    SELECT k.key_hash, k.id, k.tenant_id, k.rate_limit AS key_limit, k.revoked_at IS NOT NULL AS revoked,
           k.expires_at, {_EXPIRED} AS expired, t.rate_limit AS tenant_limit
    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
    WHERE k.key_hash = %(hash)s
), used AS (
    UPDATE api_keys SET last_used_at = now()
    WHERE key_hash = (SELECT key_hash FROM holder WHERE NOT revoked AND NOT expired)
      AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT id, tenant_id, key_limit, tenant_limit, revoked, expired, expires_at FROM holder
"""


def key_holder(conn: psycopg.Connection, key: str) -> dict[str, Any] | None:
    """The key's id, tenant, revocation, expiry and limits, its use recorded; None for an unknown key."""
    return conn.execute(_KEY_HOLDER, {"hash": hash_key(key)}).fetchone()


def open_tenant(conn: psycopg.Connection, tenant_id: str) -> dict[str, Any]:
    """Whether any key was ever created (`keys_exist`: revoked ones count, revoking every key must not open
    the service to requests without one), and the tenant's own limit (`tenant_limit`) and when it was
    deleted (`deleted_at`), None for a tenant not yet created."""
    return conn.execute(
        "SELECT EXISTS (SELECT 1 FROM api_keys) AS keys_exist, t.rate_limit AS tenant_limit, t.deleted_at"
        " FROM (SELECT 1) one LEFT JOIN tenants t ON t.id = %s", (tenant_id,)).fetchone()


def any_key_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT 1 FROM api_keys) AS present").fetchone()["present"]


def list_keys(conn: psycopg.Connection, tenant_id: str | None) -> list[dict[str, Any]]:
    return conn.execute(
        "SELECT id, prefix, tenant_id, created_at, last_used_at, revoked_at, expires_at, rate_limit FROM api_keys"
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
        "SELECT t.id, t.created_at, t.rate_limit, t.deleted_at,"
        f" count(k.key_hash) FILTER (WHERE k.revoked_at IS NULL AND NOT {_EXPIRED}) AS active_keys,"
        " count(k.key_hash) FILTER (WHERE k.revoked_at IS NOT NULL) AS revoked_keys,"
        f" count(k.key_hash) FILTER (WHERE k.revoked_at IS NULL AND {_EXPIRED}) AS expired_keys"
        " FROM tenants t LEFT JOIN api_keys k ON k.tenant_id = t.id WHERE t.id = %s GROUP BY t.id",
        (tenant_id,)).fetchone()


def mark_deleted(conn: psycopg.Connection, tenant_id: str) -> dict[str, Any] | None:
    """The first step of a tenant's deletion, in one transaction: waits for the writers that found
    the tenant live (ensure_tenant), marks it deleted (the first time kept), revokes its keys and
    drops its rate limit and buckets. None for an unknown tenant. Returns when it was deleted and
    how many keys this revoked."""
    if conn.execute("SELECT id FROM tenants WHERE id = %s FOR UPDATE", (tenant_id,)).fetchone() is None:
        return None
    deleted_at = conn.execute(
        "UPDATE tenants SET deleted_at = coalesce(deleted_at, now()), rate_limit = NULL WHERE id = %s"
        " RETURNING deleted_at", (tenant_id,)).fetchone()["deleted_at"]
    revoked = conn.execute("UPDATE api_keys SET revoked_at = now() WHERE tenant_id = %s AND revoked_at IS NULL",
                           (tenant_id,)).rowcount
    conn.execute("DELETE FROM rate_limit_buckets WHERE tenant_id = %s", (tenant_id,))
    return {"deleted_at": deleted_at, "keys_revoked": revoked}


def users_of(conn: psycopg.Connection, tenant_id: str, limit: int) -> list[str]:
    """Up to `limit` users of the tenant with anything stored: turns, memories (and what triggers
    keep of them), or a bulk job scoped to them."""
    return [r["user_id"] for r in conn.execute(
        """SELECT user_id FROM turns WHERE tenant_id = %(t)s
           UNION SELECT user_id FROM memories WHERE tenant_id = %(t)s
           UNION SELECT user_id FROM backfills WHERE tenant_id = %(t)s AND user_id IS NOT NULL
           UNION SELECT user_id FROM user_vector_indexes WHERE tenant_id = %(t)s
           ORDER BY user_id LIMIT %(n)s""", {"t": tenant_id, "n": limit}).fetchall()]


def erase_remaining(conn: psycopg.Connection, tenant_id: str) -> dict[str, int]:
    """After every user's erasure, whatever row of the tenant is left in any table of the schema but
    its own row and its keys (the jobs over the whole tenant, a trigger's row): every table with a
    tenant_id column, so that a table added later is covered too. Counts by table, nonzero only."""
    tables = [r["table_name"] for r in conn.execute(
        """SELECT c.table_name FROM information_schema.columns c
           JOIN information_schema.tables t USING (table_schema, table_name)
           WHERE c.table_schema = current_schema() AND c.column_name = 'tenant_id'
             AND t.table_type = 'BASE TABLE' AND c.table_name NOT IN ('tenants', 'api_keys')
           ORDER BY c.table_name""").fetchall()]
    erased = {}
    for table in tables:
        count = conn.execute(psycopg.sql.SQL("DELETE FROM {} WHERE tenant_id = %s").format(
            psycopg.sql.Identifier(table)), (tenant_id,)).rowcount
        if count:
            erased[table] = count
    return erased
