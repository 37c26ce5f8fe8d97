"""The metrics port in the local runtime: Prometheus, served at GET /metrics (memex_edge.scrape).

Not part of the Lambda layer's dependencies: prometheus-client is installed with the local
runtime (pyproject.toml), and this module is imported only when MEMEX_METRICS=prometheus. It
records; it knows nothing of HTTP (every process records, the workers' too).

With several HTTP processes (MEMEX_LOCAL_HTTP_PROCESSES > 1) each process writes its samples to
files under PROMETHEUS_MULTIPROC_DIR, which the runtime sets before any process imports
prometheus-client, and /metrics, whichever process answers it, adds up every process's files.
"""

from __future__ import annotations

from typing import Any, Callable

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily

from memex.metrics import ALL, COUNTER, GAUGE, HISTOGRAM, Metric

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
