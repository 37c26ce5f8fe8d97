"""A tenant's rate limit on the wire: the 429 over it, and the RateLimit-* headers on every answer."""

from __future__ import annotations

from typing import Callable

from fastapi.responses import JSONResponse

from memex.rate_limit import Decision
from memex_edge.http.error_answers import error

# Where a request's RateLimit-* headers wait for its answer, whatever answers it (route or error).
RATE_LIMIT_STATE = "memex.rate_limit_headers"


class RateLimited(Exception):
    def __init__(self, decision: Decision):
        super().__init__("rate limit exceeded")
        self.decision = decision


def rate_limit_headers(decision: Decision) -> dict[str, str]:
    """The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers): the quota, what is left of
    it, and the seconds until it is whole again; the policy says the quota's window in seconds."""
    return {"RateLimit-Limit": str(decision.rate.requests), "RateLimit-Remaining": str(decision.remaining),
            "RateLimit-Reset": str(decision.reset_seconds),
            "RateLimit-Policy": f"{decision.rate.requests};w={decision.rate.period_seconds}"}


def too_many_requests(decision: Decision, seed: bool = False) -> JSONResponse:
    message = f"rate limit of {decision.rate} exceeded; retry in {decision.retry_after_seconds} s"
    return error(429, "rate_limited", message, detail=message if seed else None,
                 headers={**rate_limit_headers(decision), "Retry-After": str(decision.retry_after_seconds)})


def with_headers(send, headers: Callable[[], dict[str, str] | None]):
    """`send`, adding `headers()` (when any) to the response's start."""

    async def sending(message):
        if message["type"] == "http.response.start":
            extra = headers()
            if extra:
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k.lower().encode(), v.encode()) for k, v in extra.items())]}
        await send(message)

    return sending


class RateLimitHeaders:
    """Puts the RateLimit-* headers the `tenant` dependency left in the request's state on the
    answer, whether a route or an error handler made it."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        state = scope.setdefault("state", {})
        return await self.app(scope, receive, with_headers(send, lambda: state.get(RATE_LIMIT_STATE)))
