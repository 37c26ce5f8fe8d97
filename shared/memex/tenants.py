"""Tenants as an operator manages them: their own rate limit, and what is in effect for them."""

from __future__ import annotations

from typing import Any

from memex.context import Context
from memex.db import tenants as tenant_rows
from memex.errors import NotFound
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
    }
