"""Dashboards and alarms name only metrics memex emits: one vocabulary (shared/memex/metrics.py)
for the CloudWatch dashboard and alarms in template.yaml and the Grafana dashboard in infra/grafana."""

from __future__ import annotations

import json
import re

import pytest

from memex.metrics import ALL, BY_NAME, COUNTER, HISTOGRAM
from tests.conftest import ROOT
from tests.test_template import RESOURCES

GRAFANA = ROOT / "infra" / "grafana" / "memex.json"

def _published_by_aws(metric) -> set[tuple[str, str]]:
    """(namespace, name) of what AWS publishes for `metric`, from its `aws` ("AWS/X A, B")."""
    namespace, _, names = metric.aws.partition(" ")
    return {(namespace, name.strip()) for name in names.split(",")} if metric.aws else set()


AWS_PUBLISHED = set().union(*(_published_by_aws(metric) for metric in ALL))


def _of_type(kind: str) -> dict[str, dict]:
    return {name: r for name, r in RESOURCES.items() if r["Type"] == kind}


ALARMS = _of_type("AWS::CloudWatch::Alarm")


def _dashboard_body() -> dict:
    (dashboard,) = _of_type("AWS::CloudWatch::Dashboard").values()
    body = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    for reference in re.findall(r"\$\{([^}]+)\}", body):
        assert reference.startswith("AWS::") or reference.split(".")[0] in RESOURCES, reference
    return json.loads(re.sub(r"\$\{[^}]+\}", "resolved", body))


def _alarm_metrics() -> list[tuple[str, str, set[str]]]:
    """(namespace, name, dimension names) of every metric an alarm reads."""
    found = []
    for alarm in ALARMS.values():
        properties = alarm["Properties"]
        if "MetricName" in properties:
            found.append((properties["Namespace"], properties["MetricName"],
                          {d["Name"] for d in properties.get("Dimensions", [])}))
        for query in properties.get("Metrics", []):
            if "MetricStat" in query:
                metric = query["MetricStat"]["Metric"]
                found.append((metric["Namespace"], metric["MetricName"], {d["Name"] for d in metric.get("Dimensions", [])}))
    return found


def _dashboard_metrics() -> list[tuple[str, str, set[str]]]:
    """(namespace, name, dimension names) of every metric a dashboard widget plots, SEARCH
    expressions included (their schema {namespace,dimension,...} names the dimensions)."""
    found = []
    for widget in _dashboard_body()["widgets"]:
        for row in widget["properties"].get("metrics", []):
            if isinstance(row[0], dict):
                expression = row[0]["expression"]
                schema, name = re.fullmatch(r"SEARCH\('\{([^}]*)\} MetricName=\"(\w+)\"', '\w+', \d+\)", expression).groups()
                namespace, *dimensions = schema.split(",")
                found.append((namespace, name, set(dimensions)))
            else:
                fields = [field for field in row if not isinstance(field, dict)]
                found.append((fields[0], fields[1], set(fields[2::2])))
    return found


@pytest.mark.parametrize("source", [_alarm_metrics, _dashboard_metrics])
def test_every_metric_the_template_names_is_one_the_code_emits(source):
    named = source()
    assert named
    for namespace, name, dimensions in named:
        if namespace == "Memex":
            metric = BY_NAME.get(name)
            assert metric is not None, f"{name} is not in shared/memex/metrics.py"
            assert not metric.aws, f"{name} is published by AWS ({metric.aws}), not by memex"
            assert dimensions == {"service", *metric.labels}, (name, dimensions)
        else:
            assert (namespace, name) in AWS_PUBLISHED, f"{namespace} {name} is named by no metric's `aws`"


def test_the_alarms_an_operator_needs():
    by_metric = {(namespace, name) for namespace, name, _ in _alarm_metrics()}
    dlq_alarms = [a["Properties"] for a in ALARMS.values()
                  if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"]
    dead_letter_queues = {name for name in RESOURCES if name.endswith("DeadLetterQueue")}
    assert {p["Dimensions"][0]["Value"]["Fn::GetAtt"][0] for p in dlq_alarms} == dead_letter_queues
    assert all(p["Threshold"] == 0 and p["ComparisonOperator"] == "GreaterThanThreshold" for p in dlq_alarms)
    assert ("AWS/ApiGateway", "5xx") in by_metric
    assert ("Memex", "LlmFallbacks") in by_metric and ("Memex", "LlmCalls") in by_metric
    (search,) = [a["Properties"] for a in ALARMS.values() if a["Properties"].get("MetricName") == "SearchLatency"]
    assert search["ExtendedStatistic"] == "p95"
    assert search["Unit"] == BY_NAME["SearchLatency"].unit
    for alarm in ALARMS.values():
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching"


def test_the_dashboard_shows_every_alarm():
    (alarm_widget,) = [w for w in _dashboard_body()["widgets"] if w["type"] == "alarm"]
    dashboard = _of_type("AWS::CloudWatch::Dashboard")
    body = next(iter(dashboard.values()))["Properties"]["DashboardBody"]["Fn::Sub"]
    assert len(alarm_widget["properties"]["alarms"]) == len(ALARMS)
    assert {name for name in ALARMS} == set(re.findall(r"\$\{(\w+)\.Arn\}", body))


def _grafana_series() -> list[tuple[str, set[str]]]:
    """(series name, labels grouped or matched on) of every query of the Grafana dashboard."""
    found = []
    for panel in json.loads(GRAFANA.read_text())["panels"]:
        for target in panel["targets"]:
            expression = target["expr"]
            labels = {label.strip() for group in re.findall(r"by \(([^)]*)\)", expression) for label in group.split(",")}
            labels |= set(re.findall(r"\{(\w+)=", expression))
            labels |= set(re.findall(r"\{\{(\w+)\}\}", target["legendFormat"]))
            for series in re.findall(r"\bmemex_\w+", expression):
                found.append((series, labels - {"le"}))
    return found


def _prometheus_series(metric) -> set[str]:
    base = metric.prometheus_name
    if metric.kind == COUNTER:
        return {f"{base}_total"}
    if metric.kind == HISTOGRAM:
        return {f"{base}_bucket", f"{base}_sum", f"{base}_count"}
    return {base}


def test_every_series_the_grafana_dashboard_names_is_one_the_code_emits():
    series = _grafana_series()
    assert len(series) >= 15
    local = {name: metric for metric in ALL if metric.local for name in _prometheus_series(metric)}
    for name, labels in series:
        assert name in local, f"{name} is not the Prometheus name of a metric in shared/memex/metrics.py"
        assert labels <= set(local[name].labels), (name, labels)


def test_both_dashboards_cover_the_vocabulary():
    """Every metric of the vocabulary is on both dashboards (in AWS, through what AWS publishes
    where the code leaves it to AWS), so a metric added is a metric shown."""
    plotted = {(namespace, name) for namespace, name, _ in _dashboard_metrics()}
    cloudwatch = {name for namespace, name in plotted if namespace == "Memex"}
    cloudwatch |= {metric.name for metric in ALL if _published_by_aws(metric) & plotted}
    grafana = {name for name, _ in _grafana_series()}
    for metric in ALL:
        assert metric.name in cloudwatch, f"{metric.name} is on no CloudWatch widget"
        if metric.local:
            assert grafana & _prometheus_series(metric), f"{metric.prometheus_name} is on no Grafana panel"


def _alarmed_functions(metric_name: str) -> set[str]:
    """The functions whose AWS/Lambda `metric_name` some alarm reads (by FunctionName)."""
    found = set()
    for alarm in ALARMS.values():
        for query in alarm["Properties"].get("Metrics", []):
            metric = query.get("MetricStat", {}).get("Metric", {})
            if (metric.get("Namespace"), metric.get("MetricName")) == ("AWS/Lambda", metric_name):
                found |= {d["Value"]["Ref"] for d in metric["Dimensions"] if d["Name"] == "FunctionName"}
    return found


def test_lambdas_own_failures_and_the_extraction_backlog_are_alarmed():
    # A function Lambda stopped at its timeout, one that failed to start, a batch whose every record
    # failed, an invocation throttled: none reaches memex's metrics, and a worker's shows only in
    # the DLQ alarm about 50 minutes later; an LLM outage's retries wait 12.5 minutes each unseen.
    functions = {name for name, r in RESOURCES.items() if r["Type"] == "AWS::Serverless::Function"}
    assert _alarmed_functions("Errors") == functions
    assert _alarmed_functions("Throttles") == functions
    ages = {a["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]: a["Properties"] for a in ALARMS.values()
            if a["Properties"].get("MetricName") == "ApproximateAgeOfOldestMessage"}
    # The backfill queue's too: a chunk that fails stops its job for an hour at each try, unseen
    # until its last delivery puts it in the DLQ hours later.
    assert set(ages) == {"ExtractionQueue", "BackfillQueue"}
    for queue, age in ages.items():
        # More than one retry's wait (a message that failed once and waits for its next delivery is
        # not news), less than two: SQS stops counting a message as the oldest at its third receive.
        visibility = RESOURCES[queue]["Properties"]["VisibilityTimeout"]
        assert visibility < age["Threshold"] < 2 * visibility and age["Statistic"] == "Maximum", queue
    for alarm in ALARMS.values():
        metrics = alarm["Properties"].get("Metrics", [])
        if alarm["Properties"] in ages.values() or any("AWS/Lambda" in str(q) for q in metrics):
            # a math alarm's expression reads every metric it declares, each filled where it has no value
            assert re.search(r"\((?:README|docs/[\w.-]+\.md), [^)]+\)", alarm["Properties"]["AlarmDescription"])
            expressions = " ".join(q.get("Expression", "") for q in metrics)
            for query in metrics:
                if "MetricStat" in query:
                    assert f"FILL({query['Id']}, 0)" in expressions, query["Id"]


def test_every_worker_running_near_its_timeout_is_alarmed():
    """Lambda stopping a worker at its Timeout is an Error after the fact; a run at 80% of it is the
    warning. Each function's longest run is divided by its own Timeout, so a Timeout changed in the
    template and not in the alarm's expression fails here."""
    (alarm,) = [a["Properties"] for a in ALARMS.values()
                if "Duration" in {q.get("MetricStat", {}).get("Metric", {}).get("MetricName")
                                  for q in a["Properties"].get("Metrics", [])}]
    assert len(alarm["Metrics"]) <= 10  # what one CloudWatch alarm may read
    functions = {name for name, r in RESOURCES.items() if r["Type"] == "AWS::Serverless::Function"}
    workers = {name for name in functions
               if not any(e["Type"] == "HttpApi" for e in RESOURCES[name]["Properties"].get("Events", {}).values())}
    assert _alarmed_functions("Duration") == workers and len(workers) == 7
    (expression,) = [q["Expression"] for q in alarm["Metrics"] if "Expression" in q]
    for query in alarm["Metrics"]:
        if "MetricStat" in query:
            assert query["MetricStat"]["Stat"] == "Maximum"
            function = query["MetricStat"]["Metric"]["Dimensions"][0]["Value"]["Ref"]
            timeout = RESOURCES[function]["Properties"]["Timeout"]
            assert f"FILL({query['Id']}, 0) / {timeout * 1000}" in expression, (function, timeout)
    assert expression.startswith("MAX([")
    assert 0.5 <= alarm["Threshold"] < 1 and alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert re.search(r"\((?:README|docs/[\w.-]+\.md), [^)]+\)", alarm["AlarmDescription"])
