"""The metrics port in the local runtime: Prometheus, served at GET /metrics.

Not part of the Lambda layer's dependencies: prometheus-client is installed with the local
runtime (pyproject.toml), and this module is imported only when MEMEX_METRICS=prometheus.

With several HTTP processes (MEMEX_LOCAL_HTTP_PROCESSES > 1) each process writes its samples to
files under PROMETHEUS_MULTIPROC_DIR, which the runtime sets before any process imports
prometheus-client, and /metrics, whichever process answers it, adds up every process's files.
"""

from __future__ import annotations

import os
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

import anyio.to_thread
import psycopg
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, make_asgi_app
from prometheus_client.core import GaugeMetricFamily
from starlette.requests import Request

from memex.errors import Unauthorized
from memex.metrics import ALL, COUNTER, GAUGE, HISTOGRAM, Metric
from memex_edge.context import get_context
from memex_edge.http import database_unavailable, error, key_holder, names_loopback, presented_key

MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR"

disable_created_metrics()  # a `_created` series beside every counter and histogram says nothing here


class PrometheusMetrics:
    """One Prometheus collector per metric of the vocabulary (those recorded locally), in `registry`.
    Gauges the code sets (`record`) are not used across processes: the local runtime's are read at
    scrape time (`ScrapedGauge`)."""

    def __init__(self, registry: CollectorRegistry | None = None):
        self.registry = registry if registry is not None else CollectorRegistry()
        self._collectors: dict[str, Any] = {}
        for metric in ALL:
            if not metric.local or metric.kind == GAUGE:
                continue
            names = dict(name=metric.prometheus_name, documentation=metric.description,
                         labelnames=metric.labels, registry=self.registry)
            if metric.kind == COUNTER:
                self._collectors[metric.name] = Counter(**names)
            elif metric.kind == HISTOGRAM:
                self._collectors[metric.name] = Histogram(**names, buckets=metric.buckets)

    def record(self, metric: Metric, value: float = 1, **labels: str) -> None:
        if set(labels) != set(metric.labels):
            raise ValueError(f"{metric.name} takes labels {metric.labels}, not {tuple(labels)}")
        collector = self._collectors.get(metric.name)
        if collector is None:
            return  # a gauge (read at scrape time) or a Lambda-only metric
        if labels:
            collector = collector.labels(**labels)
        if metric.kind == COUNTER:
            collector.inc(value)
        else:
            collector.observe(value)


class ScrapedGauge:
    """A gauge read when /metrics is scraped (the DLQ depths, the memories without their vector): `values()`
    gives each series' value by its labels' values, in the metric's order (`()` for a gauge without labels)."""

    def __init__(self, metric: Metric, values: Callable[[], dict[tuple[str, ...], float]]):
        self._metric = metric
        self._values = values

    def collect(self):
        family = GaugeMetricFamily(self._metric.prometheus_name, self._metric.description, labels=self._metric.labels)
        for labels, value in self._values().items():
            family.add_metric(list(labels), value)
        yield family


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
    """The scrape as a surface (memex_edge.http.Surface): an ASGI app as an object (a Starlette
    Route calls a plain function with a Request instead), with nothing to start or stop."""

    def __init__(self, app: Any, keyed: bool = False):
        self._app = app
        self._keyed = keyed

    async def __call__(self, scope, receive, send) -> None:
        headers = Request(scope).headers
        # On loopback, a request naming another host is a web page's, by DNS rebinding (or a proxy's):
        # it needs a key, even while the API takes requests without one (no key made yet).
        foreign = not self._keyed and not names_loopback(headers)
        if foreign and presented_key(headers) is None:
            return await error(401, "unauthorized", "missing API key: a scrape naming a host other than 127.0.0.1, "
                               "localhost or [::1] needs one (Authorization: Bearer <key>)",
                               headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
        if self._keyed or foreign:
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
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            return database_unavailable(exc, ctx)
        return None

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        yield

    def refusal(self, response: Any) -> Any:
        """A scrape sends no body; whatever refused one did in memex's shape, kept."""
        return response
