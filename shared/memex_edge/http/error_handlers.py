"""Which answer each exception gets: the handlers an app registers (domain errors, the rate limit,
validation, the router's own refusals, the database gone), and the 500 for any other."""

from __future__ import annotations

from typing import Callable

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memex.context import Context
from memex.errors import MemexError, Unauthorized
from memex_edge.http.error_answers import (DATABASE_GONE, database_unavailable, error, field_problem, method_not_allowed, no_route,
                                           sent_as_other_than_json, unreadable_body)
from memex_edge.http.rate_limits import RateLimited, too_many_requests
from memex_edge.http.seeds import SeedRoute, is_seed_route
from memex_edge.observability import logger


def add_error_handlers(app: FastAPI, provide: Callable[[], Context]) -> None:
    """Registers on `app` the handler of each exception its routes and its router raise."""

    @app.exception_handler(MemexError)
    async def _domain(request: Request, exc: MemexError) -> JSONResponse:
        message = exc.message
        if exc.status >= 500:
            # the cause (an endpoint's address, its answer) goes to the log only
            logger.error("domain error", extra={"code": exc.code, "detail": exc.message}, exc_info=exc)
        if exc.status == 500:
            message = "internal error"
        # A 401 names the scheme that would be accepted (RFC 9110), as MCP's does.
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
        if exc.retry_after is not None:
            headers = {**(headers or {}), "Retry-After": str(exc.retry_after)}
        return error(exc.status, exc.code, message, headers=headers, detail=message if is_seed_route(request) else None)

    @app.exception_handler(RateLimited)
    async def _rate_limited(request: Request, exc: RateLimited) -> JSONResponse:
        return too_many_requests(exc.decision, seed=is_seed_route(request))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = exc.errors()
        detail = None
        if is_seed_route(request):
            # FastAPI's own shape, without echoing the input back.
            detail = [{"loc": list(p["loc"]), "msg": p["msg"], "type": p["type"]} for p in problems]
        message = sent_as_other_than_json(request.headers.get("content-type"), problems) \
            or "; ".join(field_problem(p) for p in problems)
        return error(422, "validation_error", message, detail=detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = unreadable_body(exc.__cause__)
        if message is not None:
            detail = [{"loc": ["body"], "msg": message, "type": "json_invalid"}] if is_seed_route(request) else None
            return error(422, "validation_error", message, detail=detail)
        if exc.status_code == 404:
            # Routes raise NotFound (a MemexError) for what they do not hold: this is the router's.
            return no_route(request)
        if exc.status_code == 405:
            return method_not_allowed(request, exc)
        code = {400: "bad_request", 404: "not_found"}.get(exc.status_code, "http_error")
        return error(exc.status_code, code, str(exc.detail))

    async def _database_unavailable(request: Request, exc: psycopg.Error) -> JSONResponse:
        return database_unavailable(exc, provide(), seed=is_seed_route(request))

    for gone in DATABASE_GONE:
        app.add_exception_handler(gone, _database_unavailable)


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
                seed = isinstance(route, SeedRoute)
                await error(500, "internal_error", "internal error",
                            detail="internal error" if seed else None)(scope, receive, send)
