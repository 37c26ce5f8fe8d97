"""The metrics port in Lambda: CloudWatch embedded metric format (EMF) through Powertools.

A metric without labels joins the invocation's metric set, which `log_metrics` flushes when the
handler returns (one EMF line for all of them, dimension `service`). A labelled one is written at
once as its own EMF line, its labels as dimensions beside `service`: Powertools applies a metric
set's dimensions to every metric in it. Metrics AWS publishes itself (`Metric.aws`: API Gateway's
requests, SQS's queue depths) are left to AWS.
"""

from __future__ import annotations

from aws_lambda_powertools import Metrics as PowertoolsMetrics
from aws_lambda_powertools import single_metric
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from memex.metrics import Metric


class EmfMetrics:
    def __init__(self, metrics: PowertoolsMetrics):
        self._metrics = metrics

    def record(self, metric: Metric, value: float = 1, **labels: str) -> None:
        if set(labels) != set(metric.labels):
            raise ValueError(f"{metric.name} takes labels {metric.labels}, not {tuple(labels)}")
        if metric.aws:
            return
        unit = MetricUnit[metric.unit]
        if not labels:
            self._metrics.add_metric(name=metric.name, unit=unit, value=value)
            return
        if is_metrics_disabled():
            return
        dimensions = {"service": str(self._metrics.service), **{k: str(v) for k, v in labels.items()}}
        with single_metric(name=metric.name, unit=unit, value=value, namespace=self._metrics.namespace,
                           default_dimensions=dimensions):
            pass
