"""GET /metrics in the local runtime: what the Prometheus port (memex_edge.prometheus) recorded, in
every process, and the gauges read at scrape time, as a surface of the local server."""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import anyio.to_thread
from prometheus_client import CollectorRegistry, make_asgi_app
from starlette.requests import Request

from memex.errors import Unauthorized
from memex_edge.context import get_context
from memex_edge.http.admission import key_holder, presented_key
from memex_edge.http.error_answers import DATABASE_GONE, database_unavailable, error
from memex_edge.http.loopback import names_loopback
from memex_edge.prometheus import MULTIPROCESS, PrometheusMetrics


def metrics_app(recorded: PrometheusMetrics, *scrape_time: Any, keyed: bool = False) -> Any:
    """The ASGI app of GET /metrics: what `recorded` holds (every process's, in multiprocess mode)
    and the collectors read at scrape time. `keyed`: a scrape needs what the API's routes need, an
    API key (a server off loopback); on loopback, so does a scrape whose Host names another host."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROCESS):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(recorded.registry)
    for collector in scrape_time:
        registry.register(collector)
    return _Endpoint(make_asgi_app(registry), keyed)


class _Endpoint:
    """The scrape as a surface (memex_edge.http.surfaces.Surface): an ASGI app as an object (a Starlette
    Route calls a plain function with a Request instead), with nothing to start or stop."""

    def __init__(self, app: Any, keyed: bool = False):
        self._app = app
        self._keyed = keyed

    async def __call__(self, scope, receive, send) -> None:
        headers = Request(scope).headers
        if self._keyed or not names_loopback(headers):
            # On loopback, one naming another host needs a key even while the API takes requests without
            # one (no key made yet).
            if not self._keyed and presented_key(headers) is None:
                return await error(401, "unauthorized", "missing API key: a scrape naming a host other than "
                                   "127.0.0.1, localhost or [::1] needs one (Authorization: Bearer <key>)",
                                   headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
            refusal = await self._refused(scope)
            if refusal is not None:
                return await refusal(scope, receive, send)
        await self._app(scope, receive, send)

    async def _refused(self, scope) -> Any:
        """The answer to a scrape whose key the API would refuse (401), or while the keys cannot be
        read (503); None for one it would take. A scrape counts against no tenant's rate limit: the
        server's counts are no tenant's request."""
        ctx = get_context()
        try:
            await anyio.to_thread.run_sync(key_holder, ctx, Request(scope).headers)
        except Unauthorized as exc:
            return error(exc.status, exc.code, exc.message, headers={"WWW-Authenticate": "Bearer"})
        except DATABASE_GONE as exc:
            return database_unavailable(exc, ctx)
        return None

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        yield

    def refusal(self, response: Any) -> Any:
        """A scrape sends no body; whatever refused one did in memex's shape, kept."""
        return response
