"""API keys: creation, listing and revocation, and the mapping of a presented key to its caller."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memex.context import Context
from memex.db import tenants as tenant_rows
from memex.errors import NotFound, TenantDeleted, Unauthorized
from memex.models import wire_time
from memex.rate_limit import Caller, canonical

PREFIX = "mx_"


@dataclass(frozen=True)
class IssuedKey:
    id: str
    secret: str
    # True when this was the first key: requests without a key, which acted for the default
    # tenant until now, are refused from here on, and the default tenant's data is reachable
    # only with a key made for it.
    ended_open_mode: bool
    expires_at: datetime | None = None
    # When the tenant had been deleted (`memex tenants delete`): this key makes it live again, empty.
    reopened_deleted_at: datetime | None = None


def issue_key(ctx: Context, tenant_id: str, expires_in: timedelta | None = None) -> IssuedKey:
    """A new key for the tenant (created if new, live again if deleted), expiring after `expires_in`
    if given. The secret is shown once; only its hash is kept."""
    secret = PREFIX + secrets.token_urlsafe(32)
    with ctx.db.transaction() as conn:
        was_open = not tenant_rows.any_key_exists(conn)
        was_deleted = tenant_rows.reopen_tenant(conn, tenant_id)
        key = tenant_rows.insert_key(conn, tenant_id, secret, expires_in)
    return IssuedKey(key["id"], secret, ended_open_mode=was_open and not ctx.settings.require_api_key,
                     expires_at=key["expires_at"], reopened_deleted_at=was_deleted)


def create_key(ctx: Context, tenant_id: str) -> str:
    """A new key's secret (see issue_key)."""
    return issue_key(ctx, tenant_id).secret


def caller_for(ctx: Context, presented_key: str | None) -> Caller:
    """Who a request acts for. Without keys configured in the embedded default, every request
    belongs to the default tenant, unless it was deleted (TenantDeleted); otherwise a valid, unrevoked
    key is required. The database is asked only where it decides: a request without a key is refused
    without it once keys are required, so what answers any Host then (/health, /docs) does so while
    Postgres is down too."""
    if presented_key:
        holder = tenant_rows.key_holder(ctx.db.connection(), presented_key)
        if holder is None:
            raise Unauthorized("invalid API key")
        if holder["revoked"]:
            raise Unauthorized("this API key has been revoked")
        if holder["expired"]:
            raise Unauthorized(f"this API key expired at {wire_time(holder['expires_at'])}")
        return Caller(holder["tenant_id"], holder["id"], holder["key_limit"], holder["tenant_limit"])
    if not ctx.settings.require_api_key:
        default = tenant_rows.open_tenant(ctx.db.connection(), ctx.settings.default_tenant)
        if not default["keys_exist"]:
            if default["deleted_at"] is not None:
                # Deleted while keys were required, or named MEMEX_DEFAULT_TENANT since: refused as its
                # keys are, and not read half-erased (a deletion stopped half-way).
                raise TenantDeleted(
                    f"tenant {ctx.settings.default_tenant}, which requests without a key act for, was deleted at "
                    f"{wire_time(default['deleted_at'])}: memex keys create --tenant {ctx.settings.default_tenant} "
                    "makes it live again, empty, for requests with that key")
            return Caller(ctx.settings.default_tenant, tenant_limit=default["tenant_limit"])
    raise Unauthorized("missing API key: send Authorization: Bearer <key>")


def open_mode(ctx: Context) -> bool:
    """True when requests without a key are served (embedded default, no key created yet)."""
    return not ctx.settings.require_api_key and not tenant_rows.any_key_exists(ctx.db.connection())


def keyless_answered(ctx: Context) -> bool:
    """Whether caller_for lets a request without a key in: in open mode, and not while the default
    tenant it would act for is deleted (open mode then serves no request)."""
    try:
        caller_for(ctx, None)
    except Unauthorized:
        return False
    return True


def list_keys(ctx: Context, tenant_id: str | None = None) -> list[dict[str, Any]]:
    """Every key (or a tenant's), by id and the first characters of its secret; never the secret."""
    return tenant_rows.list_keys(ctx.db.connection(), tenant_id)


def revoke_key(ctx: Context, key_id: str) -> dict[str, Any]:
    """From now on the key gets 401. Revocation is final: make a new key instead of restoring one."""
    revoked = tenant_rows.revoke_key(ctx.db.connection(), key_id)
    if revoked is None:
        raise NotFound(f"no API key {key_id!r}")
    return revoked


def set_key_limit(ctx: Context, key_id: str, limit: str | None) -> None:
    """Give the key a bucket of its own at `limit` (`unlimited` exempts it), or with None count
    it in its tenant's bucket again."""
    if not tenant_rows.set_key_limit(ctx.db.connection(), key_id, None if limit is None else canonical(limit)):
        raise NotFound(f"no API key {key_id!r}")
