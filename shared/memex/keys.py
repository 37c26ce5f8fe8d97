"""API keys: creation, and the mapping of a presented key to its tenant."""

from __future__ import annotations

import secrets

from memex.context import Context
from memex.db import tenants as tenant_rows
from memex.errors import Unauthorized

PREFIX = "mx_"


def create_key(ctx: Context, tenant_id: str) -> str:
    """A new key for the tenant (created if new). The key is shown once; only its hash is kept."""
    key = PREFIX + secrets.token_urlsafe(32)
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, tenant_id)
        tenant_rows.insert_key(conn, tenant_id, key)
    return key


def tenant_for(ctx: Context, presented_key: str | None) -> str:
    """The tenant a request acts for. Without keys configured in the embedded default, every
    request belongs to the default tenant; otherwise a valid key is required."""
    conn = ctx.db.connection()
    if presented_key:
        tenant_id = tenant_rows.tenant_for_key(conn, presented_key)
        if tenant_id is not None:
            return tenant_id
        raise Unauthorized("invalid API key")
    if not ctx.settings.require_api_key and not tenant_rows.any_key_exists(conn):
        return ctx.settings.default_tenant
    raise Unauthorized("missing API key: send Authorization: Bearer <key>")


def open_mode(ctx: Context) -> bool:
    """True when requests without a key are served (embedded default, no key created yet)."""
    return not ctx.settings.require_api_key and not tenant_rows.any_key_exists(ctx.db.connection())
