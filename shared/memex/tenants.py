"""Tenants as an operator manages them: their own rate limit, and what is in effect for them."""

from __future__ import annotations

from typing import Any

from memex import memories
from memex.context import Context
from memex.db import tenants as tenant_rows
from memex.errors import InvalidInput, NotFound
from memex.keys import open_mode
from memex.models import wire_time
from memex.rate_limit import UNLIMITED, canonical


def set_limit(ctx: Context, tenant_id: str, limit: str | None) -> None:
    """Override the configured default for the tenant (`unlimited` exempts it); None clears the
    override. Raises InvalidRate for a limit that is not a rate."""
    tenant_rows.set_tenant_limit(ctx.db.connection(), tenant_id, None if limit is None else canonical(limit))


def describe(ctx: Context, tenant_id: str) -> dict[str, Any]:
    """The tenant's own limit, the limit in effect, and how many keys it has."""
    row = tenant_rows.tenant(ctx.db.connection(), tenant_id)
    if row is None:
        raise NotFound(f"no tenant {tenant_id}")
    default = ctx.settings.rate_limit
    own = row["rate_limit"]
    return {
        "tenant": row["id"],
        "created_at": wire_time(row["created_at"]),
        "rate_limit": own if own is not None else (str(default) if default else UNLIMITED),
        "rate_limit_source": "tenant override" if own is not None
        else ("MEMEX_RATE_LIMIT" if default else "none configured"),
        "active_keys": row["active_keys"],
        "revoked_keys": row["revoked_keys"],
        "expired_keys": row["expired_keys"],
        "deleted_at": wire_time(row["deleted_at"]) if row["deleted_at"] else None,
    }


def reachable(ctx: Context, tenant_id: str) -> bool:
    """Whether a request can act for the tenant: it is not deleted, and a key was made for it (revoked
    or expired too: a new one reaches its data) or it is the default tenant while requests without a
    key are served. What is written for any other tenant (a misspelt one) no request could read."""
    row = tenant_rows.tenant(ctx.db.connection(), tenant_id)
    if row is not None and row["deleted_at"] is not None:
        # The default tenant too: deleted while keys were required, or named MEMEX_DEFAULT_TENANT
        # since, requests without a key are refused (keys.caller_for).
        return False
    if row is not None and row["active_keys"] + row["revoked_keys"] + row["expired_keys"] > 0:
        return True
    return tenant_id == ctx.settings.default_tenant and open_mode(ctx)


# Users erased per listing of the tenant's users: each in transactions of their own, as
# DELETE /v1/users/{id} erases them, so that no transaction holds a large tenant's rows for long.
USERS_PER_LISTING = 100


def delete(ctx: Context, tenant_id: str) -> dict[str, Any]:
    """Erase everything of the tenant's. First, in one transaction, its keys are revoked (requests
    with them get 401 from then on), its rate limits dropped, and the tenant marked deleted, once
    the writes that were let in before have committed; a write or a queued job that comes after is
    refused (db/tenants.ensure_tenant). Then each user is erased as DELETE /v1/users/{id} erases
    them, in bounded transactions (memories.erase_user_rows), each to the end, and last whatever
    else of the tenant is left in any table. Stopped half-way, the tenant stays refused and running
    it again finishes it; run on a deleted tenant, it erases what is left (nothing) and says so. The tenant's row and its revoked keys stay: see
    docs/operations.md ("Deleting a tenant"). Returns the counts of what it erased."""
    if open_mode(ctx) and tenant_id == ctx.settings.default_tenant:
        # Requests without a key act for it while no key exists: they would be refused from now on.
        raise InvalidInput(f"{tenant_id} is the tenant of requests without a key, which no key has ended yet: "
                           "erase its users with DELETE /v1/users/{id}, or make a key first")
    with ctx.db.transaction() as conn:
        marked = tenant_rows.mark_deleted(conn, tenant_id)
    if marked is None:
        raise NotFound(f"no tenant {tenant_id}")
    erased = {"users": 0, "turns": 0, "memories": 0}
    while users := tenant_rows.users_of(ctx.db.connection(), tenant_id, USERS_PER_LISTING):
        for user_id in users:
            erased_user = memories.erase_user_rows(ctx, tenant_id, user_id)
            for kind in ("turns", "memories"):
                erased[kind] += erased_user.counts[kind]
            erased["users"] += 1
    with ctx.db.transaction() as conn:
        rest = tenant_rows.erase_remaining(conn, tenant_id)
    # Once for all its users, also when none was left to erase (a re-run): what this process read or
    # asked since goes too.
    memories.forget_recent_texts(ctx, tenant_id)
    return {"tenant": tenant_id, "deleted_at": wire_time(marked["deleted_at"]), "keys_revoked": marked["keys_revoked"],
            **erased, "other_rows": rest}
