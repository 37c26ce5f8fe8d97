"""The FastAPI app every HTTP function serves: errors in the wire shape, body limit, API keys and
the rate limit.

A 5xx never carries an internal message (hosts, URLs, SQL, Python text): those go to the log."""

from __future__ import annotations

from typing import Any, Callable

import psycopg
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp

from memex import keys, rate_limit
from memex.context import Context
from memex.errors import MemexError
from memex.rate_limit import Decision
from memex.models import FieldError
from memex_edge.context import get_context
from memex_edge.observability import logger, metrics, tracer


# Seconds a client should wait before retrying while the database is unreachable: about what a
# Postgres restart or an RDS failover takes to begin accepting connections again.
DATABASE_RETRY_AFTER = 5


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def context() -> Context:
    """The request's Context; the local runtime and tests override this dependency."""
    return get_context()


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


def too_many_requests(decision: Decision) -> JSONResponse:
    return error(429, "rate_limited",
                 f"rate limit of {decision.rate} exceeded; retry in {decision.retry_after_seconds} s",
                 headers={**rate_limit_headers(decision), "Retry-After": str(decision.retry_after_seconds)})


def record_rate_limited() -> None:
    """Every refused request passes here once: the one place that counts them."""
    metrics.add_metric(name="RequestsRateLimited", unit="Count", value=1)


def presented_key(headers) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return (token.strip() if scheme.lower() == "bearer" else "") or None


def admit(ctx: Context, headers) -> tuple[str, Decision | None]:
    """The tenant the request acts for, its key checked and one request counted against its limit.
    Raises Unauthorized, or RateLimited over the limit."""
    caller = keys.caller_for(ctx, presented_key(headers))
    decision = rate_limit.admit(ctx, caller)
    if decision is not None and not decision.admitted:
        record_rate_limited()
        raise RateLimited(decision)
    return caller.tenant_id, decision


def tenant(request: Request, ctx: Context = Depends(context)) -> str:
    """The dependency of every authenticated route."""
    tenant_id, decision = admit(ctx, request.headers)
    if decision is not None:
        request.scope.setdefault("state", {})[RATE_LIMIT_STATE] = rate_limit_headers(decision)
    return tenant_id


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


class BodyLimit:
    """Refuses bodies over the limit with 413, whether or not Content-Length is sent."""

    def __init__(self, app, max_bytes: Callable[[], int]):
        self.app = app
        # Read on the first request: a handler module builds its app at import, and the
        # Context (settings, secrets, clients) is built only once a request needs it.
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        max_bytes = self.max_bytes()
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            return await self._too_large(scope, receive, send, max_bytes)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > max_bytes:
                return await self._too_large(scope, receive, send, max_bytes)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _too_large(self, scope, receive, send, max_bytes: int):
        response = error(413, "payload_too_large", f"request body exceeds {max_bytes} bytes")
        await response(scope, receive, send)


class UnhandledErrors:
    """Answers an exception no handler took with a 500 in the wire shape, and logs it once, naming
    the route's function. (An `Exception` handler would run in Starlette's outermost middleware,
    which re-raises after answering so that the server logs it a second time.)"""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        started = False

        async def sending(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            endpoint = scope.get("endpoint")
            route = scope.get("route")
            logger.exception("unhandled error", extra={
                "handler": f"{endpoint.__module__}.{endpoint.__qualname__}" if endpoint else None,
                "route": f"{scope.get('method')} {getattr(route, 'path', None) or scope.get('path')}"})
            if not started:
                await error(500, "internal_error", "internal error")(scope, receive, send)


def field_problem(detail: dict[str, Any]) -> str:
    """One validation problem as `field: what is wrong`, the field's path down to a nested key."""
    loc = tuple(str(part) for part in detail["loc"])
    cause = (detail.get("ctx") or {}).get("error")
    if isinstance(cause, FieldError):
        loc += cause.path
    message = detail["msg"].removeprefix("Value error, ")
    return f"{'.'.join(loc) or 'body'}: {message}"


def _connection_lost(exc: psycopg.Error) -> bool:
    # No SQLSTATE: the client lost or never got a connection; 08: connection exception;
    # 57P: the server is shutting down or starting. A statement timeout (57014) leaves it usable.
    return exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P"))


def database_unavailable(exc: psycopg.Error, ctx: Context) -> JSONResponse:
    """503 with Retry-After. Once one connection found the server gone, every thread reconnects."""
    logger.warning("database unavailable", extra={"error": type(exc).__name__, "sqlstate": exc.sqlstate,
                                               "detail": str(exc)})
    if _connection_lost(exc):
        ctx.db.discard_all()
    return error(503, "database_unavailable", "the database is unavailable; retry later",
                 headers={"Retry-After": str(DATABASE_RETRY_AFTER)})


def create_app(*routers: APIRouter, provide: Callable[[], Context] = get_context,
               surfaces: dict[str, ASGIApp] | None = None) -> Any:
    """`routers`: the REST routes. `surfaces`: other ASGI apps, each served at its path as it is
    (MCP at /mcp), inside the same body limit; they answer their own errors."""
    app = FastAPI(title="memex", version="1")
    app.dependency_overrides[context] = provide
    for router in routers:
        app.include_router(router)
    for path, surface in (surfaces or {}).items():
        app.router.routes.append(Route(path, surface))

    @app.exception_handler(MemexError)
    async def _domain(_: Request, exc: MemexError) -> JSONResponse:
        if exc.status >= 500:
            logger.error("domain error", extra={"code": exc.code, "detail": exc.message})
            return error(exc.status, exc.code, "internal error")
        return error(exc.status, exc.code, exc.message)

    @app.exception_handler(RateLimited)
    async def _rate_limited(_: Request, exc: RateLimited) -> JSONResponse:
        return too_many_requests(exc.decision)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error(422, "validation_error", "; ".join(field_problem(e) for e in exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error(exc.status_code, code, str(exc.detail))

    # InterfaceError: psycopg refused to use a connection it already knows is closed.
    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(psycopg.InterfaceError)
    async def _database_unavailable(_: Request, exc: psycopg.Error) -> JSONResponse:
        return database_unavailable(exc, provide())

    app.add_middleware(UnhandledErrors)
    app.add_middleware(RateLimitHeaders)
    return BodyLimit(app, lambda: provide().settings.max_body_bytes)



def lambda_handler(*routers: APIRouter) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of an HTTP function: its routers behind API Gateway via Mangum."""
    return asgi_lambda_handler(create_app(*routers))


def asgi_lambda_handler(app: ASGIApp) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of any ASGI app behind API Gateway. No lifespan: Mangum would run
    it around every invocation, so an app must not need one. Nothing escapes to Mangum, which
    would log it again and answer outside the wire shape."""
    return logger.inject_lambda_context(tracer.capture_lambda_handler(metrics.log_metrics(
        Mangum(UnhandledErrors(app), lifespan="off"))))
