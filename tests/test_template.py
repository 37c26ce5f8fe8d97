"""The SAM template: cfn-lint clean, and the invariants the code and the queues rely on."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import subprocess
from pathlib import Path

import pytest

from infra import template
from memex.config import load_settings
from tests.conftest import ROOT, installed_tool

TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"

RUNTIME = "python3.13"
ARCHITECTURE = "x86_64"
FIFO_BATCH_MAX = 10
VISIBILITY_FACTOR = 6
LAMBDA_DEFAULT_TIMEOUT = 3


TPL = template.load()
RESOURCES: dict = TPL["Resources"]
GLOBAL_FUNCTION: dict = TPL.get("Globals", {}).get("Function", {})
FUNCTIONS = {name: r for name, r in RESOURCES.items() if r["Type"] == "AWS::Serverless::Function"}
QUEUES = {name: r for name, r in RESOURCES.items() if r["Type"] == "AWS::SQS::Queue"}


def fn_prop(function: dict, name: str, default=None):
    """A function property with Globals applied (a function's own value wins)."""
    return function.get("Properties", {}).get(name, GLOBAL_FUNCTION.get(name, default))


def logical_id(ref) -> str:
    """The logical id behind {"Fn::GetAtt": [id, attr]} or {"Ref": id}."""
    if isinstance(ref, dict) and "Fn::GetAtt" in ref:
        return ref["Fn::GetAtt"][0]
    if isinstance(ref, dict) and "Ref" in ref:
        return ref["Ref"]
    raise AssertionError(f"expected !GetAtt or !Ref, got {ref!r}")


def sqs_sources() -> list[tuple[str, str, dict]]:
    """(function, event name, event properties) of every SQS event source."""
    found = []
    for name, function in FUNCTIONS.items():
        for event_name, event in function.get("Properties", {}).get("Events", {}).items():
            if event["Type"] == "SQS":
                found.append((name, event_name, event["Properties"]))
    return found


def consumers() -> dict[str, list[str]]:
    """Queue logical id -> the functions consuming it."""
    result: dict[str, list[str]] = {}
    for function, _, props in sqs_sources():
        result.setdefault(logical_id(props["Queue"]), []).append(function)
    return result


# ---------------------------------------------------------------- (a) cfn-lint

def test_cfn_lint_clean():
    result = subprocess.run(
        [installed_tool("cfn-lint"), str(TEMPLATE)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and not output, f"cfn-lint exit {result.returncode}:\n{output}"


# ---------------------------------------------------------------- (b) invariants

def test_twelve_functions():
    assert len(FUNCTIONS) == 12, sorted(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_code_has_handler(name):
    function = FUNCTIONS[name]
    code_uri = fn_prop(function, "CodeUri")
    assert isinstance(code_uri, str), f"{name}: CodeUri must be a local folder, got {code_uri!r}"
    folder = ROOT / code_uri
    assert folder.is_dir(), f"{name}: CodeUri folder {code_uri} does not exist"
    module, _, attribute = fn_prop(function, "Handler").rpartition(".")
    app = folder / f"{module}.py"
    assert app.is_file(), f"{name}: {app.relative_to(ROOT)} does not exist"
    tree = ast.parse(app.read_text(), filename=str(app))
    # `def handler(event, context)` or a module-level `handler = ...` (e.g. a Mangum app).
    defined = any(
        (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == attribute)
        or (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attribute for t in node.targets))
        or (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == attribute)
        for node in tree.body
    )
    assert defined, f"{name}: {app.relative_to(ROOT)} defines no top-level `{attribute}`"


def test_layer_is_built_for_the_template_runtime():
    makefile = (ROOT / "shared" / "Makefile").read_text()
    version = re.search(r"^LAMBDA_PYTHON_VERSION \?= (\S+)$", makefile, re.MULTILINE)
    assert version and f"python{version.group(1)}" == RUNTIME, "shared/Makefile builds for another Python"


def test_runtime_and_architecture():
    assert GLOBAL_FUNCTION.get("Runtime") == RUNTIME
    assert GLOBAL_FUNCTION.get("Architectures") == [ARCHITECTURE]
    for name, function in FUNCTIONS.items():
        assert fn_prop(function, "Runtime") == RUNTIME, name
        assert fn_prop(function, "Architectures") == [ARCHITECTURE], name
    layer = RESOURCES["SharedLayer"]
    assert layer["Properties"]["CompatibleRuntimes"] == [RUNTIME]
    assert layer["Properties"]["CompatibleArchitectures"] == [ARCHITECTURE]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    assert layer["Metadata"]["BuildArchitecture"] == ARCHITECTURE


def test_every_function_uses_the_shared_layer():
    for name, function in FUNCTIONS.items():
        layers = fn_prop(function, "Layers", [])
        assert {"Ref": "SharedLayer"} in layers, f"{name}: layers {layers}"


def test_every_sqs_source_reports_batch_item_failures():
    sources = sqs_sources()
    assert len(sources) == 3, sources
    for function, event, props in sources:
        assert "ReportBatchItemFailures" in props.get("FunctionResponseTypes", []), f"{function}.{event}"


def test_visibility_timeout_covers_six_consumer_timeouts():
    consumed = consumers()
    assert set(consumed) == {"ExtractionQueue", "SupersessionQueue", "BackfillQueue"}, consumed
    for queue, functions in consumed.items():
        visibility = QUEUES[queue]["Properties"].get("VisibilityTimeout", 30)
        for function in functions:
            timeout = fn_prop(FUNCTIONS[function], "Timeout", LAMBDA_DEFAULT_TIMEOUT)
            assert visibility >= VISIBILITY_FACTOR * timeout, (
                f"{queue}: VisibilityTimeout {visibility} < {VISIBILITY_FACTOR} x {function} Timeout {timeout}"
            )


def test_a_backfill_reads_stalled_only_when_no_delivery_can_still_come():
    """A chunk that failed comes back after the backfill queue's visibility timeout; a job whose next
    chunk merely waits for it must not read "stalled" (and be resumed beside its own retry)."""
    visibility = QUEUES["BackfillQueue"]["Properties"]["VisibilityTimeout"]
    stalled_after = int(GLOBAL_FUNCTION["Environment"]["Variables"]["MEMEX_BACKFILL_STALLED_AFTER_SECONDS"])
    assert stalled_after >= 2 * visibility, (stalled_after, visibility)


def test_every_main_queue_redrives_to_a_dlq():
    consumed = consumers()
    dead_letter_queues = set()
    for queue in consumed:
        policy = QUEUES[queue]["Properties"].get("RedrivePolicy")
        assert policy, f"{queue} has no RedrivePolicy"
        dlq = logical_id(policy["deadLetterTargetArn"])
        assert dlq in QUEUES, f"{queue}: dead-letter target {dlq} is not a queue of this stack"
        assert dlq not in consumed, f"{queue}: dead-letter target {dlq} is consumed by a function"
        max_receive = policy["maxReceiveCount"]
        if isinstance(max_receive, dict):  # !FindInMap into Mappings
            table, key, field = max_receive["Fn::FindInMap"]
            max_receive = TPL["Mappings"][table][key][field]
        assert int(max_receive) == 5, f"{queue}: maxReceiveCount {max_receive}"
        dead_letter_queues.add(dlq)
    assert set(QUEUES) == set(consumed) | dead_letter_queues, "a queue is neither consumed nor a DLQ"


def test_supersession_queue_and_its_dlq_are_fifo():
    main = QUEUES["SupersessionQueue"]["Properties"]
    assert main.get("FifoQueue") is True
    assert main.get("ContentBasedDeduplication") is False
    dlq = logical_id(main["RedrivePolicy"]["deadLetterTargetArn"])
    assert QUEUES[dlq]["Properties"].get("FifoQueue") is True
    for name in ("ExtractionQueue", "BackfillQueue"):
        assert not QUEUES[name]["Properties"].get("FifoQueue"), f"{name} must be a standard queue"


def test_batch_settings():
    for function, event, props in sqs_sources():
        fifo = QUEUES[logical_id(props["Queue"])]["Properties"].get("FifoQueue", False)
        if fifo:
            assert props["BatchSize"] <= FIFO_BATCH_MAX, f"{function}.{event}"
            assert "MaximumBatchingWindowInSeconds" not in props, f"{function}.{event}"
        else:
            assert props.get("MaximumBatchingWindowInSeconds", 0) > 0, f"{function}.{event}"


def test_sweep_runs_every_five_minutes():
    events = FUNCTIONS["SweepFunction"]["Properties"]["Events"]
    schedules = [e["Properties"]["Schedule"] for e in events.values() if e["Type"] == "Schedule"]
    assert schedules == ["rate(5 minutes)"]


def function_named(folder: str) -> str:
    """The template's logical id of the function whose code is functions/<folder>/."""
    found = [name for name, function in FUNCTIONS.items() if fn_prop(function, "CodeUri").rstrip("/") == f"functions/{folder}"]
    assert len(found) == 1, f"functions/{folder}: {found}"
    return found[0]


def events_of(function: str, kind: str) -> list[dict]:
    return [e["Properties"] for e in FUNCTIONS[function]["Properties"].get("Events", {}).values() if e["Type"] == kind]


def _rate_seconds(expression: str) -> int:
    number, unit = re.fullmatch(r"rate\((\d+) (minutes?|hours?|days?)\)", expression).groups()
    return int(number) * {"minute": 60, "hour": 3600, "day": 86400}[unit.rstrip("s")]


def test_scheduled_functions_are_the_local_runtimes_with_the_same_rates():
    from infra.local.runtime import SCHEDULES

    deployed = {name: [e["Schedule"] for e in events_of(name, "Schedule")] for name in FUNCTIONS}
    deployed = {name: rates for name, rates in deployed.items() if rates}
    assert set(deployed) == {function_named(folder) for folder in SCHEDULES}
    for folder, schedule in SCHEDULES.items():
        assert [_rate_seconds(r) for r in deployed[function_named(folder)]] == [schedule.rate_seconds], folder


def test_a_scheduled_function_failing_once_is_alarmed():
    # An hourly run that fails errors at t and at Lambda's two retries (t+1, t+3 minutes): one or two
    # five-minute periods of the hour, never the three in a row the workers' Errors alarm waits for.
    alarms = [r["Properties"] for r in RESOURCES.values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    scheduled = {name for name in FUNCTIONS if events_of(name, "Schedule")}
    assert scheduled >= {"ConsolidateFunction", "VectorIndexesFunction", "SweepFunction"}
    for function in scheduled:
        covering = [alarm for alarm in alarms for query in alarm.get("Metrics", [])
                    if query.get("MetricStat", {}).get("Metric", {}).get("MetricName") == "Errors"
                    and query["MetricStat"]["Metric"]["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function}}]]
        assert covering, f"{function}'s errors are alarmed nowhere"
        for alarm in covering:
            assert alarm["EvaluationPeriods"] == alarm.get("DatapointsToAlarm", 1) == 1, function
            assert alarm["Threshold"] == 0 and alarm["ComparisonOperator"] == "GreaterThanThreshold", function


def test_a_local_run_of_each_function_has_the_timeout_the_template_gives_it():
    """The local scheduler reads each function's Timeout from the template (the sweep sizes its
    erasures by the time left): its own where it names one, the Globals' where it does not."""
    for name, function in FUNCTIONS.items():
        folder = fn_prop(function, "CodeUri").rstrip("/").removeprefix("functions/")
        assert template.function_timeout(folder) == fn_prop(function, "Timeout", LAMBDA_DEFAULT_TIMEOUT), name
    assert template.function_timeout("sweep") == 60 and template.function_timeout("ingest") == GLOBAL_FUNCTION["Timeout"]


def test_each_http_function_is_routed_exactly_the_routes_its_router_serves():
    """A route added to a function's router is reachable in AWS only once the template routes it
    there too (and the local runtime serves every router: HTTP_FUNCTIONS). HEAD, which the app
    answers wherever GET is (memex_edge/http/methods.py), is routed where uptime checks send it."""
    from fastapi import FastAPI

    from infra.local.runtime import HTTP_FUNCTIONS, function_module

    heads = set()
    for folder in HTTP_FUNCTIONS:
        app = FastAPI()
        app.include_router(function_module(folder).router)
        served = {f"{method.upper()} {path}" for path, operations in app.openapi()["paths"].items()
                  for method in operations}
        routed = {f"{e['Method'].upper()} {e['Path']}" for e in events_of(function_named(folder), "HttpApi")}
        head = {route for route in routed if route.startswith("HEAD ")}
        assert {route.replace("HEAD", "GET", 1) for route in head} <= served, folder
        assert served == routed - head, f"{folder}: served only {served - routed}, routed only {routed - served}"
        heads |= head
    assert heads == {"HEAD /health"}


def test_each_surface_has_its_function_routed_at_its_path_for_every_method_it_answers():
    from infra.local.runtime import SURFACES

    for path, folder in SURFACES.items():
        routed = {(e["Method"].upper(), e["Path"]) for e in events_of(function_named(folder), "HttpApi")}
        assert routed == {("POST", path), ("GET", path), ("DELETE", path), ("HEAD", path)}, folder


def test_every_http_function_is_known_to_the_local_runtime():
    from infra.local.runtime import HTTP_FUNCTIONS, SURFACES

    with_routes = {name for name in FUNCTIONS if events_of(name, "HttpApi")}
    assert with_routes == {function_named(f) for f in (*HTTP_FUNCTIONS, *SURFACES.values())}


def test_consolidation_runs_every_hour_one_run_at_a_time():
    function = FUNCTIONS["ConsolidateFunction"]["Properties"]
    schedules = [e["Properties"]["Schedule"] for e in function["Events"].values() if e["Type"] == "Schedule"]
    assert schedules == ["rate(1 hour)"]
    assert function["ReservedConcurrentExecutions"] == 1


def test_migrations_custom_resource_points_at_migrate_function():
    migrations = RESOURCES["Migrations"]
    assert migrations["Type"] == "Custom::Migrations"
    assert logical_id(migrations["Properties"]["ServiceToken"]) == "MigrateFunction"


# ---------------------------------------------------------------- (c) sample events

def http_routes() -> set[str]:
    routes = set()
    for function in FUNCTIONS.values():
        for event in function.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "HttpApi":
                routes.add(f"{event['Properties']['Method'].upper()} {event['Properties']['Path']}")
    return routes


EVENT_FILES = sorted(p for p in EVENTS.iterdir() if p.is_file()) if EVENTS.is_dir() else []


def test_events_folder_has_files():
    assert EVENT_FILES, "events/ is empty"


@pytest.mark.parametrize("path", EVENT_FILES, ids=lambda p: p.name)
def test_event_file_parses(path: Path):
    text = path.read_text()
    if path.suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                json.loads(line)  # raises with the position on a bad line
        return
    event = json.loads(text)
    http = event.get("requestContext", {}).get("http") if isinstance(event, dict) else None
    if http:
        # An API Gateway HTTP API (payload v2.0) event must name a route the template serves.
        assert event["version"] == "2.0"
        assert event["routeKey"] in http_routes(), f"{path.name}: route {event['routeKey']} not in template"
        assert http["method"] == event["routeKey"].split(" ", 1)[0]
        assert http["path"] == event["rawPath"]
        if "body" in event and event["body"] is not None and not event.get("isBase64Encoded"):
            json.loads(event["body"])
    for record in event.get("Records", []) if isinstance(event, dict) else []:
        if record.get("eventSource") == "aws:sqs":
            json.loads(record["body"])


# ---------------------------------------------------------------- (d) queue permissions from the code

PUBLISHERS = {"publish_extraction": "ExtractionQueue", "publish_extractions": "ExtractionQueue",
              "publish_supersession": "SupersessionQueue", "publish_supersessions": "SupersessionQueue",
              "publish_backfill": "BackfillQueue"}


def _names_a_publisher(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in PUBLISHERS


class _CallGraph:
    """The functions of this repository's Python modules and the calls between them, resolved
    through each module's imports (`from memex import backfill` then `backfill.run_chunk(...)`,
    `from memex.ingest import sweep` then `sweep(...)`, and a module's own functions by name).
    Calls through objects other than modules are not followed: `publish_*` methods are recognised
    by name wherever they appear, called or handed on to be called (ingest._republish). A function
    named without being called (a tool or callback handed to a framework) counts as reached."""

    def __init__(self):
        self._trees: dict[str, ast.Module] = {}

    def _tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            parts = module.split(".")
            base = ROOT / "shared" if parts[0].startswith("memex") else ROOT
            path = next((p for p in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py"))
                         if p.is_file()), None)
            self._trees[module] = ast.parse(path.read_text(), filename=str(path)) if path else None
        return self._trees[module]

    def _imports(self, module: str) -> dict[str, tuple[str, str | None]]:
        """Local name -> (module, attribute or None for the module itself)."""
        names = {}
        for node in self._tree(module).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    names[alias.asname or alias.name] = ((submodule, None) if self._tree(submodule) is not None
                                                         else (node.module, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    names[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else
                                                                      alias.name.split(".")[0], None)
        return names

    def _function(self, module: str, name: str) -> ast.AST | None:
        tree = self._tree(module)
        if tree is None:
            return None
        return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
                    None)

    def _callees(self, module: str, body: ast.AST) -> tuple[set[tuple[str, str]], set[str]]:
        imports = self._imports(module)
        callees, published = set(), set()
        for node in ast.walk(body):
            if _names_a_publisher(node):
                published.add(node.attr)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if self._function(module, node.id) is not None:
                    callees.add((module, node.id))
                elif node.id in imports and imports[node.id][1] is not None:
                    callees.add(imports[node.id])
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name):
                if self._function(module, func.id) is not None:
                    callees.add((module, func.id))
                elif func.id in imports and imports[func.id][1] is not None:
                    callees.add(imports[func.id])
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                target = imports.get(func.value.id)
                if target is not None and target[1] is None:
                    callees.add((target[0], func.attr))
        return callees, published

    def published_from(self, module: str) -> tuple[set[str], set[tuple[str, str]]]:
        """The publish_* methods called by anything a module's code can reach, and the
        functions it reaches."""
        seen: set[tuple[str, str]] = set()
        todo, published = self._callees(module, self._tree(module))
        todo = set(todo)
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            function = self._function(*current)
            if function is None:
                continue
            callees, found = self._callees(current[0], function)
            published |= found
            todo |= callees - seen
        return published, seen


def _handler_module(function: dict) -> str:
    return fn_prop(function, "CodeUri").strip("/").replace("/", ".") + "." + fn_prop(function, "Handler").rpartition(".")[0]


def _granted_queues(function: dict) -> set[str]:
    return {logical_id(policy["SQSSendMessagePolicy"]["QueueName"])
            for policy in fn_prop(function, "Policies", []) if isinstance(policy, dict) and "SQSSendMessagePolicy" in policy}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_function_may_send_to_exactly_the_queues_its_code_publishes_to(name):
    published, _ = _CallGraph().published_from(_handler_module(FUNCTIONS[name]))
    assert _granted_queues(FUNCTIONS[name]) == {PUBLISHERS[p] for p in published}, name


def test_every_publish_call_is_reached_from_some_function():
    """Guards the derivation above: a publish it cannot see from any handler means the call
    graph missed a path, and a function's permissions would be checked against too little."""
    graph = _CallGraph()
    reached = set()
    for function in FUNCTIONS.values():
        reached |= graph.published_from(_handler_module(function))[1]
    reached |= {(_handler_module(f), None) for f in FUNCTIONS.values()}
    for path in sorted((ROOT / "shared").rglob("*.py")) + sorted((ROOT / "functions").rglob("app.py")):
        base = ROOT / "shared" if path.is_relative_to(ROOT / "shared") else ROOT
        module = ".".join(path.relative_to(base).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            publishes = any(_names_a_publisher(n) for n in ast.walk(node))
            if publishes and module.startswith("functions."):
                assert (module, None) in reached, f"{module}: no function of the template runs it"
            elif publishes:
                assert (module, node.name) in reached, f"{module}.{node.name} publishes but no function reaches it"


# ---------------------------------------------------------------- (e) privacy and capacity

def _env() -> dict:
    return GLOBAL_FUNCTION["Environment"]["Variables"]


def test_neither_traces_nor_logs_capture_bodies():
    # responses carry memories and errors can quote them; X-Ray would keep both
    for variable in ("POWERTOOLS_TRACER_CAPTURE_RESPONSE", "POWERTOOLS_TRACER_CAPTURE_ERROR"):
        assert _env().get(variable) == "false", variable
        for name, function in FUNCTIONS.items():
            own = function["Properties"].get("Environment", {}).get("Variables", {})
            assert own.get(variable, "false") == "false", f"{name} sets {variable}"
    # nor does the logger write the incoming event (a request body) at INFO
    assert _env().get("POWERTOOLS_LOGGER_LOG_EVENT", "false") == "false"


def test_dead_letters_are_kept_four_days_after_they_die_and_no_longer():
    # SQS counts a dead letter's retention from its first send to the main queue: a DLQ keeping what
    # its main queue keeps gave a message that waited there 3 days one day as a dead letter.
    four_days = 4 * 24 * 3600
    for queue in consumers():
        properties = QUEUES[queue]["Properties"]
        dead_letter_queue = logical_id(properties["RedrivePolicy"]["deadLetterTargetArn"])
        main = properties["MessageRetentionPeriod"]  # stated: SQS's default is no promise the DLQ's can rest on
        kept = QUEUES[dead_letter_queue]["Properties"]["MessageRetentionPeriod"]
        assert kept == main + four_days <= 14 * 24 * 3600, f"{dead_letter_queue} keeps {kept} s, {queue} {main} s"


def test_every_worker_has_reserved_concurrency_matching_its_queue_concurrency():
    parameters = TPL["Parameters"]
    for function, event, props in sqs_sources():
        reserved = FUNCTIONS[function]["Properties"].get("ReservedConcurrentExecutions")
        assert reserved is not None, f"{function} has no reserved concurrency"
        # the event source never sends more concurrent batches than the function may run
        assert props["ScalingConfig"]["MaximumConcurrency"] == reserved, f"{function}.{event}"
        parameter = parameters[logical_id(reserved)]
        assert parameter["Type"] == "Number" and 2 <= parameter["Default"] <= parameter["MaxValue"]
        assert parameter["MinValue"] >= 2  # the SQS event source's MaximumConcurrency floor


def test_api_keys_can_come_from_secrets_that_only_those_functions_may_read():
    conditions = {"LlmApiKeySecretArn": "HasLlmApiKeySecret", "EmbeddingsApiKeySecretArn": "HasEmbeddingsApiKeySecret",
                  "RerankApiKeySecretArn": "HasRerankApiKeySecret"}
    variables = {"LlmApiKeySecretArn": "MEMEX_LLM_API_KEY_SECRET_ARN",
                 "EmbeddingsApiKeySecretArn": "MEMEX_EMBEDDINGS_API_KEY_SECRET_ARN",
                 "RerankApiKeySecretArn": "MEMEX_RERANK_API_KEY_SECRET_ARN"}
    policy = RESOURCES["ApiKeySecretsPolicy"]
    assert policy["Type"] == "AWS::IAM::ManagedPolicy" and policy["Condition"] == "HasApiKeySecrets"
    [statement] = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "secretsmanager:GetSecretValue"
    granted = {entry["Fn::If"][1]["Ref"]: entry["Fn::If"][0] for entry in statement["Resource"]}
    assert granted == conditions  # each secret only when it is given
    for parameter, variable in variables.items():
        assert TPL["Parameters"][parameter]["Default"] == ""
        assert _env()[variable] == {"Ref": parameter}
    attached = {"Fn::If": ["HasApiKeySecrets", {"Ref": "ApiKeySecretsPolicy"}, {"Ref": "AWS::NoValue"}]}
    for name, function in FUNCTIONS.items():  # every function builds the Context that reads them
        assert attached in function["Properties"]["Policies"], name


def test_the_database_certificate_is_verified_in_aws():
    assert _env()["MEMEX_DB_SSLMODE"] == {"Fn::If": ["IsLocalStack", "disable", "verify-full"]}
    assert _env()["MEMEX_DB_SSLROOTCERT"] == {"Ref": "DatabaseSslRootCert"}


def test_an_llm_endpoint_without_its_model_is_refused_at_deploy():
    # memex.config refuses MEMEX_LLM_BASE_URL without MEMEX_LLM_MODEL: every function would fail to start.
    [rule] = TPL["Rules"].values()
    assert rule["RuleCondition"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "LlmBaseUrl"}, ""]}]}
    assert [a["Assert"] for a in rule["Assertions"]] == [{"Fn::Not": [{"Fn::Equals": [{"Ref": "LlmModel"}, ""]}]}]
    assert _env()["MEMEX_LLM_BASE_URL"] == {"Ref": "LlmBaseUrl"} and _env()["MEMEX_LLM_MODEL"] == {"Ref": "LlmModel"}


# ---------------------------------------------------------------- (f) parameters and settings

def _parameter_variables() -> dict[str, str]:
    """Each environment variable a function reads from a template parameter: variable -> parameter."""
    found = {}
    environments = [_env()] + [f["Properties"].get("Environment", {}).get("Variables", {}) for f in FUNCTIONS.values()]
    for variables in environments:
        for variable, value in variables.items():
            if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in TPL["Parameters"]:
                found[variable] = value["Ref"]
    return found


@pytest.mark.parametrize("provider", TPL["Parameters"]["EmbeddingsProvider"]["AllowedValues"])
def test_a_parameter_left_at_its_default_means_what_the_unset_variable_means(provider, monkeypatch):
    # An operator who picks EmbeddingsProvider=openai and leaves EmbeddingDim alone got 384-d columns
    # for text-embedding-3-small's 1536-d vectors: every embedding refused, every turn to the DLQ.
    parameters = TPL["Parameters"]
    defaults = {variable: str(parameters[name]["Default"]) for variable, name in _parameter_variables().items()
                if "Default" in parameters[name] and name != "EmbeddingsProvider"}
    for variable in defaults:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("MEMEX_EMBEDDINGS_PROVIDER", provider)
    unset = dataclasses.asdict(load_settings())
    for variable, value in defaults.items():
        monkeypatch.setenv(variable, value)
    from_defaults = dataclasses.asdict(load_settings())
    assert {k: v for k, v in from_defaults.items() if v != unset[k]} == {}, (
        {k: unset[k] for k, v in from_defaults.items() if v != unset[k]})


def test_only_the_backfill_worker_may_read_the_import_bucket_and_only_when_one_is_given():
    # docs/backfills.md: an import message names an s3_uri, read by the backfill worker; its role had
    # no S3 permission at all, so every import from S3 failed AccessDenied into the DLQ.
    assert TPL["Parameters"]["BackfillImportBucket"]["Default"] == ""
    policy = RESOURCES["BackfillImportPolicy"]
    assert policy["Type"] == "AWS::IAM::ManagedPolicy" and policy["Condition"] == "HasBackfillImportBucket"
    [statement] = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "s3:GetObject"
    assert statement["Resource"] == {"Fn::Sub": "arn:${AWS::Partition}:s3:::${BackfillImportBucket}/*"}
    attached = {"Fn::If": ["HasBackfillImportBucket", {"Ref": "BackfillImportPolicy"}, {"Ref": "AWS::NoValue"}]}
    readers = {name for name, function in FUNCTIONS.items() if attached in function["Properties"]["Policies"]}
    assert readers == {function_named("backfill_worker")}
    # the code that reads S3 is the backfill worker's alone
    assert [p.parent.name for p in (ROOT / "functions").glob("*/app.py") if '"s3"' in p.read_text()] == ["backfill_worker"]


def test_every_document_section_the_template_names_exists():
    # The DLQ alarms sent an operator to "(README, Operating)", a section the README never had; the
    # sections have since moved from the README to docs/ (its "(docs/operations.md, Metrics ...)").
    named = re.findall(r'\((README|docs/[\w.-]+\.md), "?([^")]+)"?\)', TEMPLATE.read_text())
    assert {document for document, _ in named} >= {"docs/operations.md", "docs/backfills.md"}
    for document, section in named:
        path = ROOT / ("README.md" if document == "README" else document)
        headings = [line.lstrip("#").strip() for line in path.read_text().splitlines() if line.startswith("#")]
        assert any(heading.startswith(section) for heading in headings), (document, section)


def test_every_functions_logs_expire():
    # Lambda's own log groups (/aws/lambda/<name>) keep every line forever; the template made none.
    log_group = logical_id(GLOBAL_FUNCTION["LoggingConfig"]["LogGroup"])
    properties = RESOURCES[log_group]["Properties"]
    assert RESOURCES[log_group]["Type"] == "AWS::Logs::LogGroup"
    retention = TPL["Parameters"][logical_id(properties["RetentionInDays"])]
    assert retention["Default"] in retention["AllowedValues"] and retention["Default"] <= 90
    for name, function in FUNCTIONS.items():
        assert fn_prop(function, "LoggingConfig") == GLOBAL_FUNCTION["LoggingConfig"], name


def _literal(value):
    """An environment value as a function reads it: a literal, or a mapping's (!FindInMap)."""
    if isinstance(value, dict) and "Fn::FindInMap" in value:
        table, key, field = value["Fn::FindInMap"]
        return TPL["Mappings"][table][key][field]
    return value


def test_every_functions_statements_end_before_the_function_does(monkeypatch):
    # Every connection's statement_timeout was 30 s and the HTTP functions stop at 29 s: a statement
    # that long had Lambda stop the request (API Gateway's 503) while Postgres worked on.
    for name, function in FUNCTIONS.items():
        variables = {**_env(), **function["Properties"].get("Environment", {}).get("Variables", {})}
        if "MEMEX_DB_STATEMENT_TIMEOUT_MS" in variables:
            monkeypatch.setenv("MEMEX_DB_STATEMENT_TIMEOUT_MS", str(_literal(variables["MEMEX_DB_STATEMENT_TIMEOUT_MS"])))
        else:
            monkeypatch.delenv("MEMEX_DB_STATEMENT_TIMEOUT_MS", raising=False)
        timeout_ms = fn_prop(function, "Timeout", LAMBDA_DEFAULT_TIMEOUT) * 1000
        assert load_settings().db_statement_timeout_ms < timeout_ms, name


def test_the_sweep_may_read_the_queues_attributes_it_reads():
    # The sweep reads each queue's backlog (its evidence that nothing waits there) and the extraction
    # queue's visibility timeout (how long a failed message stays hidden): its role allowed neither,
    # so in AWS both reads were AccessDenied and the sweep worked without its evidence.
    sweep = FUNCTIONS[function_named("sweep")]
    readable = set()
    for policy in fn_prop(sweep, "Policies", []):
        for statement in policy.get("Statement", []) if isinstance(policy, dict) else []:
            if statement["Action"] == "sqs:GetQueueAttributes":
                readable |= {logical_id(r) for r in statement["Resource"]}
    assert readable == {"ExtractionQueue", "SupersessionQueue"}
