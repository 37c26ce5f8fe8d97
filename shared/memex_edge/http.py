"""The HTTP edge every HTTP function serves: one FastAPI app per function, errors in the wire
shape, the body limit, API keys, the rate limit, and the OpenAPI that describes it all.

Where things go:
- a new **route**: on the router of the function that serves it (`functions/<name>/app.py`),
  declared with its `response_model` and its `responses=errors(...)`, and as an `HttpApi` event
  of that function in template.yaml (tests/test_template.py checks both lists agree);
- a new **ASGI surface** (a protocol other than REST, like MCP): an object with `__call__`,
  `lifespan()` and `refusal()` (`Surface`), passed to `create_app(surfaces={path: ...})` by its
  function and by the local runtime (`SURFACES` in infra/local/runtime.py); its lifespan runs around serving;
- a new **scheduled job**: a function whose handler takes the schedule's event, a `Schedule`
  event in template.yaml and an entry in `SCHEDULES` in infra/local/runtime.py.

A 5xx never carries an internal message (hosts, URLs, SQL, Python text): those go to the log."""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any, Callable, Optional, Protocol

import anyio.to_thread
import psycopg
from aws_lambda_powertools.logging import correlation_paths
from fastapi import APIRouter, Depends, FastAPI, Request, Security
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from memex import keys, rate_limit
from memex.context import Context
from memex.errors import MemexError, Unauthorized
from memex.metrics import HTTP_LATENCY, HTTP_REQUESTS, REQUESTS_RATE_LIMITED
from memex.rate_limit import Caller, Decision
from memex.models import ID_RULE, UNPAIRED_SURROGATES, FieldError
from memex_edge.answers import ErrorBody, SeedErrorBody
from memex_edge.context import get_context
from memex_edge.deadline import llm_within
from memex_edge.observability import log_metrics, logger, tracer


# The names a server on loopback is served at (`--host`) and called by (a request's Host).
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LOOPBACK_HOST = re.compile("(?:" + "|".join(re.escape(f"[{name}]" if ":" in name else name) for name in LOOPBACK)
                            + r")(?::\d+)?", re.IGNORECASE)


def names_loopback(headers) -> bool:
    """Whether the request's Host names this machine by a loopback name (any port). A web page whose
    name its owner has made resolve to 127.0.0.1 (DNS rebinding) reaches a server on loopback as its
    own origin, and reads what it is answered, but its Host is still its own name."""
    return _LOOPBACK_HOST.fullmatch(headers.get("host", "")) is not None


# Seconds a client should wait before retrying while the database is unreachable: about what a
# Postgres restart or an RDS failover takes to begin accepting connections again.
DATABASE_RETRY_AFTER = 5


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None,
          detail: Any = None) -> JSONResponse:
    """An error in the wire shape; with `detail`, in a compatibility route's shape (the seed's
    `detail` and memex's `error` beside it)."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if detail is not None:
        body = {"detail": detail, **body}
    return JSONResponse(body, status_code=status, headers=headers)


class SeedRoute(APIRoute):
    """A compatibility route, speaking a seed's API: its errors carry the seed's `detail` (what
    FastAPI's default handlers sent, which the seeds' clients read)."""


MEMORY_SERVICE_SEED = "memory-service seed"
MEMEX_SEED = "memex seed"


def seed_router(seed: str) -> APIRouter:
    """A router of compatibility routes for `seed` (MEMORY_SERVICE_SEED or MEMEX_SEED): thin
    adapters calling the domain functions their v1 counterparts call."""
    return APIRouter(route_class=SeedRoute, tags=[seed])


def _seed_route(request: Request) -> bool:
    return isinstance(request.scope.get("route"), SeedRoute)


_ERRORS = {
    401: "Missing or wrong API key (`Authorization: Bearer <key>`).",
    404: "No such id for this tenant (another tenant's ids are not found either).",
    409: "`idempotency_conflict`: this user already sent the key with a different turn. `user_being_erased`: the "
         "user's erasure began and has not finished (DELETE /v1/users/{id} again goes on with it).",
    413: "Body over `MEMEX_MAX_BODY_BYTES` (1 MiB), refused before it is read whole.",
    422: "Malformed input; the message names each field (`body.messages.0.role: ...`).",
    429: "`rate_limited`: over the tenant's (or key's) rate limit; retry after `Retry-After` seconds. "
         "Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` when a limit applies.",
    503: "`database_unavailable`: Postgres is unreachable; `embedder_unavailable` (`POST /v1/memories`): the embedder "
         "failed and nothing was stored. Retry after `Retry-After` seconds.",
}


def errors(*statuses: int, seed: bool = False) -> dict[int | str, dict[str, Any]]:
    """The error answers of an authenticated route, for its OpenAPI: 401, 422, 429 and 503 always,
    and `statuses` (404, 409, 413) where they occur."""
    model = SeedErrorBody if seed else ErrorBody
    return {status: {"model": model, "description": _ERRORS[status]}
            for status in sorted({401, 422, 429, 503, *statuses})}


async def context(request: Request) -> Context:
    """The request's Context, from the `provide` its app was made with (create_app: get_context, or
    a test's). Not through FastAPI's dependency_overrides: with any override, FastAPI builds every
    dependency of every request again (inspect.signature, their fields). async: a sync dependency
    costs a hop to the thread pool and back, and the Context is built once per process (the local
    runtime builds it before serving; a Lambda environment serves one request at a time). Both
    together: 0.3-0.5 ms of server CPU a request (docs/measurements/performance.md)."""
    return request.app.state.provide()


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


# Declares the scheme in the OpenAPI; the key is read by `admit`, which MCP calls too.
bearer = HTTPBearer(auto_error=False, scheme_name="apiKey",
                    description="An API key (`memex keys create`); it names the tenant the request acts for.")


def tenant(request: Request, ctx: Context = Depends(context),
           _declared: Optional[HTTPAuthorizationCredentials] = Security(bearer)) -> str:
    """The dependency of every authenticated route."""
    tenant_id, decision = admit(ctx, request.headers)
    if decision is not None:
        request.scope.setdefault("state", {})[RATE_LIMIT_STATE] = rate_limit_headers(decision)
    return tenant_id


def known_query(request: Request) -> None:
    """Refuses a query parameter the route does not take, as an unknown field of a body is refused:
    ignored, `?session_id=s1` on a listing that has no such filter would list every session."""
    taken = _query_names(request.scope["route"].dependant)
    unknown = [name for name in dict.fromkeys(request.query_params) if name not in taken]
    if unknown:
        takes = f"it takes {', '.join(taken)}" if taken else "it takes none"
        raise RequestValidationError([{"type": "extra_forbidden", "loc": ("query", name),
                                       "msg": f"not a parameter of this route; {takes}"} for name in unknown])


def _query_names(dependant: Dependant) -> list[str]:
    """The query parameters of a route's function and of its dependencies, in declaration order."""
    names = [param.alias for param in dependant.query_params]
    for sub in dependant.dependencies:
        names += [name for name in _query_names(sub) if name not in names]
    return names


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
    """Refuses bodies over the limit with 413, whether or not Content-Length is sent; at a
    surface's path, in the words of that surface's clients (its `refusal`)."""

    def __init__(self, app, max_bytes: Callable[[], int], surfaces: dict[str, Surface]):
        self.app = app
        # Read on the first request: a handler module builds its app at import, and the
        # Context (settings, secrets, clients) is built only once a request needs it.
        self.max_bytes = max_bytes
        self.surfaces = surfaces

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
        response: Response = error(413, "payload_too_large", f"request body exceeds {max_bytes} bytes")
        surface = self.surfaces.get(scope["path"])
        if surface is not None:
            response = surface.refusal(response)
        await response(scope, receive, send)


class KeylessOnLoopback:
    """On a server bound to loopback, refuses a request without a key whose Host names another host
    while the API answers requests without one (no key made yet, `MEMEX_REQUIRE_API_KEY` off): a web
    page whose name its owner made resolve to 127.0.0.1 (DNS rebinding) read and erased the default
    tenant's memories as its own origin. A request with a key is judged by its key, as anywhere, and
    once keys are required nothing changes. The surfaces judge their own Host (MCP refuses any other,
    /metrics wants a key for it)."""

    def __init__(self, app, context: Callable[[], Context], surfaces: dict[str, Surface]):
        self.app = app
        self.context = context
        self.surfaces = surfaces

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] in self.surfaces:
            return await self.app(scope, receive, send)
        headers = Request(scope).headers
        if names_loopback(headers) or presented_key(headers) is not None:
            return await self.app(scope, receive, send)
        ctx = self.context()
        try:
            keyless = await anyio.to_thread.run_sync(keys.open_mode, ctx)
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            return await database_unavailable(exc, ctx)(scope, receive, send)
        if not keyless:
            return await self.app(scope, receive, send)
        # 421 Misdirected Request (RFC 9110 15.5.20): this server will not answer for the name the
        # request gives it, and MCP's transport, on this same server, answers a foreign Host so too.
        # Not 400 (Starlette's TrustedHostMiddleware): the request is well formed; not 401 or 403:
        # calling the server by its loopback name is as good a remedy as a key.
        host = headers.get("host") or "none"
        await error(421, "misdirected_request",
                    f"this server answers requests without an API key only when they name it 127.0.0.1, "
                    f"localhost or [::1] (this one's Host: {host}): call it so, or create a key "
                    "(memex keys create --tenant NAME) and send it (Authorization: Bearer <key>)")(scope, receive, send)


class TrailingSlash:
    """Answers a path with one trailing slash (`/v1/turns/`, the memex seed's `/mcp/`) as the path
    without it, in place. The router would redirect it instead, to an absolute URL built from the
    request's Host header, which the client does not choose alone (a proxy's, a rebound name's): a
    `Host: evil.example` sent the client, with its key and body, to evil.example."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] == "http" and len(path) > 1 and path.endswith("/"):
            sent = sent_path(scope)
            # Only a slash sent as one: "/v1/users/alice%2F" arrives decoded as "/v1/users/alice/", and
            # cut it would act on alice (a DELETE erased her). Left, no route takes it (no_route).
            if sent is not None and sent.endswith("/"):
                raw = scope.get("raw_path")
                scope = {**scope, "path": path[:-1], "raw_path": raw[:-1] if raw else raw}
        return await self.app(scope, receive, send)


def sent_path(scope) -> str | None:
    """The request's path as the client sent it, percent-encoded: the server's raw path, or under Mangum
    (whose raw_path is None) API Gateway's rawPath; None where neither is known."""
    raw = scope.get("raw_path")
    if raw is not None:
        return raw.decode("latin-1")
    return (scope.get("aws.event") or {}).get("rawPath")


class RequestMetrics:
    """Counts each request by its route (the template, so ids do not make new series) and status,
    and times it (HttpRequests, HttpLatency; in AWS, API Gateway publishes its own)."""

    def __init__(self, app, context: Callable[[], Context]):
        self.app = app
        self.context = context

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = 500  # what the server answers if the app raises before starting a response

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            # The router sets the matched route on the scope it was given, which is this one.
            route = getattr(scope.get("route"), "path", "unmatched")
            recorded = self.context().metrics
            recorded.record(HTTP_REQUESTS, route=route, status=str(status))
            recorded.record(HTTP_LATENCY, time.perf_counter() - started, route=route)


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


def field_problem(detail: dict[str, Any]) -> str:
    """One validation problem as `field: what is wrong`, the field's path down to a nested key."""
    cause = (detail.get("ctx") or {}).get("error")
    if detail.get("type") == "json_invalid":
        # FastAPI puts the parser's offset where a field would go, ("body", 12): "body.12" would
        # read as a field named 12.
        return f"body: not valid JSON ({cause} at character {detail['loc'][-1]})"
    loc = tuple(str(part) for part in detail["loc"])
    if isinstance(cause, FieldError):
        loc += cause.path
    message = detail["msg"].removeprefix("Value error, ")
    if detail.get("type") == "string_unicode":
        # Python's JSON parser lets "\ud800" through, which pydantic refuses in its own words.
        message = UNPAIRED_SURROGATES
    in_query_string = len(loc) > 1 and loc[0] == "query"
    if in_query_string and detail.get("type") == "value_error" and " " in str(detail.get("input", "")):
        # The caller most likely sent an id with a +, which a query string reads as a space. A REST
        # parameter's place is ("query", name); an MCP argument's is its bare name, `query` that of
        # the search's text, which no query string carried.
        message += " (a + in a query string is read as a space: send it as %2B)"
    return f"{'.'.join(loc) or 'body'}: {message}"


def not_utf8(exc: UnicodeDecodeError) -> str:
    """What to fix when a body's bytes are not UTF-8 (JSON's encoding, RFC 8259)."""
    return (f"body: not valid UTF-8 (byte 0x{exc.object[exc.start]:02x} at byte {exc.start}): "
            "send the JSON encoded as UTF-8")


def _sent_as_other_than_json(content_type: str | None, problems: list[dict[str, Any]]) -> str | None:
    """What to fix when a body was refused whole because it was not sent as JSON: FastAPI parses a
    body as JSON only under a JSON content type (or none), and otherwise hands the model raw bytes,
    whose refusal ("Input should be a valid dictionary") does not name the header; `curl -d`
    without `-H` sends application/x-www-form-urlencoded."""
    media_type = (content_type or "").split(";")[0].strip().lower()
    if not media_type or media_type == "application/json" or media_type.endswith("+json"):
        return None
    if not any(tuple(p["loc"]) == ("body",) for p in problems):
        return None
    return f"body: send JSON with content-type: application/json (this request's content-type is {media_type})"


def no_route(request: Request) -> JSONResponse:
    """What the router's bare 404 "Not Found" for a path no route takes left unsaid. An id with a '/'
    (`list_memories("a/b")`, sent as a%2Fb) reaches the router split at it, so no route takes the path:
    a 422 naming the rule ids break, since the route was right and the id was not."""
    if "%2f" in (sent_path(request.scope) or "").lower():
        return error(422, "validation_error", f"path: an id in {request.url.path} holds '/' (sent as %2F), "
                                              f"which no id may: ids are {ID_RULE}")
    return error(404, "not_found", f"no route at {request.url.path}: check the path (an id in it is one "
                                   "URL-encoded segment)")


def method_not_allowed(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """405 naming the methods the path takes, in `Allow` (RFC 9110) and the message. The router
    answers for the first route whose path matched, so its Allow left out the methods of the others
    at that path (DELETE of GET /v1/memories/{id}), and its message said none."""
    probe = {"type": "http", "path": request.scope["path"], "root_path": request.scope.get("root_path", ""),
             "method": ""}
    taken = sorted({method for route in iter_route_contexts(request.app.routes) if route.methods
                    and route.matches(probe)[0] is not Match.NONE for method in route.methods})
    allowed = ", ".join(taken) or (exc.headers or {}).get("Allow", "")
    message = f"{request.method} is not a method of {request.url.path}; it takes {allowed or 'none'}"
    return error(405, "method_not_allowed", message, headers={"Allow": allowed},
                 detail=message if _seed_route(request) else None)


def _connection_lost(exc: psycopg.Error) -> bool:
    # No SQLSTATE: the client lost or never got a connection; 08: connection exception;
    # 57P: the server is shutting down or starting. A statement timeout (57014) leaves it usable.
    return exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P"))


def database_unavailable(exc: psycopg.Error, ctx: Context, seed: bool = False) -> JSONResponse:
    """503 with Retry-After. Once one connection found the server gone, every thread reconnects."""
    logger.warning("database unavailable", extra={"error": type(exc).__name__, "sqlstate": exc.sqlstate,
                                               "detail": str(exc)})
    if _connection_lost(exc):
        ctx.db.discard_all()
    message = "the database is unavailable; retry later"
    return error(503, "database_unavailable", message, headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
                 detail=message if seed else None)


class SurfaceRoute(Route):
    """The route of a surface's path. It names itself the request's route, as an APIRoute does (the
    router leaves a plain Route's unset), so that its requests are counted under its path."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = self
        await super().handle(scope, receive, send)


class Surface(Protocol):
    """An ASGI app served at a path of its own beside the routes (MCP at /mcp). It answers its own
    errors, and `refusal` words those the edge answers before it is reached (a body over the limit:
    memex's error shape) as its clients read them. `lifespan()` is entered once around serving: for
    the process's life under uvicorn, and around each invocation under Mangum (which runs the app's
    lifespan every time)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...

    def lifespan(self) -> AbstractAsyncContextManager[None]: ...

    def refusal(self, response: JSONResponse) -> Response: ...


def create_app(*routers: APIRouter, provide: Callable[[], Context] = get_context,
               surfaces: dict[str, Surface] | None = None, docs: bool = False, loopback: bool = False) -> Any:
    """`routers`: the REST routes. `surfaces`: other ASGI apps, each served at its path, inside the
    same body limit, their lifespans entered by this app's. `docs`: serve /openapi.json and the
    Swagger UI at /docs from installed files (the local runtime; API Gateway routes neither).
    `loopback`: served on a loopback address, where a request without a key must name one while
    the API takes such requests (KeylessOnLoopback)."""
    surfaces = surfaces or {}

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        async with AsyncExitStack() as stack:
            for surface in surfaces.values():
                await stack.enter_async_context(surface.lifespan())
            yield

    app = FastAPI(title="memex", version=API_VERSION, lifespan=lifespan, summary=API_SUMMARY,
                  openapi_url="/openapi.json" if docs else None, docs_url=None, redoc_url=None)
    app.state.provide = provide
    app.router.redirect_slashes = False  # TrailingSlash answers in place, never by the Host header
    for router in routers:
        app.include_router(router, dependencies=[Depends(known_query)])
    for path, surface in surfaces.items():
        app.router.routes.append(SurfaceRoute(path, surface))
    if docs:
        from memex_edge.docs import add_docs

        add_docs(app)

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
        return error(exc.status, exc.code, message, headers=headers, detail=message if _seed_route(request) else None)

    @app.exception_handler(RateLimited)
    async def _rate_limited(request: Request, exc: RateLimited) -> JSONResponse:
        return too_many_requests(exc.decision, seed=_seed_route(request))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = exc.errors()
        detail = None
        if _seed_route(request):
            # FastAPI's own shape, without echoing the input back.
            detail = [{"loc": list(p["loc"]), "msg": p["msg"], "type": p["type"]} for p in problems]
        message = _sent_as_other_than_json(request.headers.get("content-type"), problems) \
            or "; ".join(field_problem(p) for p in problems)
        return error(422, "validation_error", message, detail=detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI's 400 "There was an error parsing the body" for a body in Latin-1 or
            # Windows-1252 ("café" as the single byte 0xe9) said nothing of what to fix.
            message = not_utf8(exc.__cause__)
            detail = [{"loc": ["body"], "msg": message, "type": "json_invalid"}] if _seed_route(request) else None
            return error(422, "validation_error", message, detail=detail)
        if exc.status_code == 404:
            # Routes raise NotFound (a MemexError) for what they do not hold: this is the router's.
            return no_route(request)
        if exc.status_code == 405:
            return method_not_allowed(request, exc)
        code = {400: "bad_request", 404: "not_found"}.get(exc.status_code, "http_error")
        return error(exc.status_code, code, str(exc.detail))

    # InterfaceError: psycopg refused to use a connection it already knows is closed.
    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(psycopg.InterfaceError)
    async def _database_unavailable(request: Request, exc: psycopg.Error) -> JSONResponse:
        return database_unavailable(exc, provide(), seed=_seed_route(request))

    app.add_middleware(UnhandledErrors)
    app.add_middleware(RateLimitHeaders)
    served: ASGIApp = BodyLimit(app, lambda: provide().settings.max_body_bytes, surfaces)
    if loopback:
        served = KeylessOnLoopback(served, provide, surfaces)
    return TrailingSlash(RequestMetrics(served, provide))


# One version for the API over REST (/openapi.json) and MCP (initialize's serverInfo, else empty).
API_VERSION = "1"

API_SUMMARY = ("Long-term memory for AI agents: turns in, memories out (search, recall within a token "
               "budget), kept current. Errors are {\"error\": {code, message}}; the compatibility "
               "routes (tags `memory-service seed`, `memex seed`) add the seed's `detail`.")


def lambda_handler(*routers: APIRouter, surfaces: dict[str, Surface] | None = None) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of an HTTP function: its routes and surfaces behind API Gateway."""
    return asgi_lambda_handler(create_app(*routers, surfaces=surfaces))


def asgi_lambda_handler(app: ASGIApp) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of any ASGI app behind API Gateway. Mangum runs the app's lifespan
    around each invocation, in the invocation's event loop, so what a surface starts in it (MCP's
    session manager and its task group) is running while the request is served. Nothing escapes to
    Mangum, which would log it again and answer outside the wire shape."""
    mangum = Mangum(UnhandledErrors(app), lifespan="on")
    loop: asyncio.AbstractEventLoop | None = None

    # Mangum runs on the thread's current event loop, which Python no longer makes on demand once
    # something (asyncio.run) has unset it, and not at all from 3.14: one loop, kept for the
    # execution environment, is made current for each invocation.
    def invoke(event: dict, context: Any) -> dict:
        nonlocal loop
        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        with llm_within(context):  # the route's thread is handed this context
            return mangum(event, context)

    traced = tracer.capture_lambda_handler(log_metrics(invoke))
    return logger.inject_lambda_context(traced, correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
