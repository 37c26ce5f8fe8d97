"""Who a request acts for: its API key read and checked, and one request counted against the limit."""

from __future__ import annotations

import re

from memex import keys, rate_limit
from memex.context import Context
from memex.errors import Unauthorized
from memex.metrics import REQUESTS_RATE_LIMITED
from memex.rate_limit import Caller, Decision
from memex_edge.http.rate_limits import RateLimited

_SCHEME_AGAIN = re.compile(r"bearer\b", re.IGNORECASE)


def presented_key(headers) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return (token.strip() if scheme.lower() == "bearer" else "") or None


def admit(ctx: Context, headers) -> tuple[str, Decision | None]:
    """The tenant the request acts for, its key checked and one request counted against its limit.
    Raises Unauthorized, or RateLimited over the limit."""
    caller = key_holder(ctx, headers)
    decision = rate_limit.admit(ctx, caller)
    if decision is not None and not decision.admitted:
        ctx.metrics.record(REQUESTS_RATE_LIMITED)
        raise RateLimited(decision)
    return caller.tenant_id, decision


def key_holder(ctx: Context, headers) -> Caller:
    """Who the request's key is (keys.caller_for), counted against no limit. Raises Unauthorized."""
    presented = presented_key(headers)
    try:
        return keys.caller_for(ctx, presented)
    except Unauthorized:
        if presented is None and headers.get("authorization", "").strip():
            # A key sent without its scheme (`Authorization: mx_…`) or under another one was sent,
            # not missing: said so, or the caller looks for a header that is there.
            raise Unauthorized("the Authorization header holds no Bearer key: send Authorization: Bearer <key>") \
                from None
        if presented is not None and _SCHEME_AGAIN.match(presented):
            # A key set to the header's whole value (MEMEX_API_KEY="Bearer mx_…") is sent with the
            # scheme twice: "invalid API key" would have its owner doubt a key that may well be right.
            raise Unauthorized("the key after Bearer begins with Bearer again: send Authorization: Bearer <key>, "
                               "the key alone") from None
        raise
