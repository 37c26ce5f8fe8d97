"""The app an HTTP function serves: its routes and surfaces assembled with the error handlers, the
body limit, the rate-limit headers, HEAD where GET is, the metrics and, on loopback, the Host rule."""

from __future__ import annotations

from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Callable

from fastapi import APIRouter, Depends, FastAPI
from starlette.types import ASGIApp

from memex.context import Context
from memex_edge.context import get_context
from memex_edge.http.body_limit import BodyLimit
from memex_edge.http.dependencies import known_query
from memex_edge.http.error_handlers import UnhandledErrors, add_error_handlers
from memex_edge.http.loopback import KeylessOnLoopback
from memex_edge.http.methods import HeadAsGet
from memex_edge.http.openapi import API_SUMMARY, API_VERSION, MISDIRECTED
from memex_edge.http.rate_limits import RateLimitHeaders
from memex_edge.http.request_metrics import RequestMetrics
from memex_edge.http.surfaces import Surface, SurfaceRoute
from memex_edge.http.trailing_slash import TrailingSlash


def create_app(*routers: APIRouter, provide: Callable[[], Context] = get_context,
               surfaces: dict[str, Surface] | None = None, docs: bool = False, loopback: bool = False) -> Any:
    """`routers`: the REST routes. `surfaces`: other ASGI apps, each served at its path, inside the
    same body limit, their lifespans entered by this app's. `docs`: serve /openapi.json and the
    Swagger UI at /docs from installed files (the local runtime; API Gateway routes neither), the
    document declaring the 421 on loopback while a request can get it (memex_edge.docs).
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
                  openapi_url=None, docs_url=None, redoc_url=None)
    app.state.provide = provide
    app.router.redirect_slashes = False  # TrailingSlash answers in place, never by the Host header
    for router in routers:
        app.include_router(router, dependencies=[Depends(known_query)], responses=MISDIRECTED if loopback else None)
    for path, surface in surfaces.items():
        app.router.routes.append(SurfaceRoute(path, surface))
    if docs:
        from memex_edge.docs import add_docs

        add_docs(app, loopback)
    add_error_handlers(app, provide)

    app.add_middleware(UnhandledErrors)
    app.add_middleware(RateLimitHeaders)
    served: ASGIApp = BodyLimit(app, lambda: provide().settings.max_body_bytes, surfaces)
    if loopback:
        served = KeylessOnLoopback(served, provide, surfaces)
    return TrailingSlash(HeadAsGet(RequestMetrics(served, provide), app.routes))
