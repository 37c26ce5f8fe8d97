"""LocalStack run without Docker, under `make test-localstack`: `make localstack` as a user runs
it, and template.yaml deployed by CloudFormation onto it (without its Lambda functions, which
LocalStack cannot create without Docker: infra/localstack/stack.py) — the queues are made as the
local runtime makes them, and each function's role may send to exactly the queues its code
publishes to, as IAM itself holds them. Moto has no SAM transform nor IAM policies to check."""

from __future__ import annotations

import json

import httpx
import psutil
import pytest

from infra.local.runtime import QUEUES
from infra.local.sqs_server import LOGICAL_IDS, QueueSpec, ensure_queues, free_port
from tests.test_local_runtime import Server, _alive, wait_processed
from tests.test_template import FUNCTIONS, PUBLISHERS, _CallGraph, _handler_module

# What a queue is, as opposed to what it is called, holds or when it was made.
_SHAPE = ("FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit", "VisibilityTimeout",
          "MessageRetentionPeriod", "SqsManagedSseEnabled", "DelaySeconds", "ReceiveMessageWaitTimeSeconds")


@pytest.fixture(scope="module")
def localstack_only(aws):
    if aws.kind != "localstack":
        pytest.skip("LocalStack itself (its Python 3.13 virtualenv, CloudFormation, IAM): make test-localstack")


def test_make_localstack_serves_on_its_queues_and_secret_and_ctrl_c_stops_it_all(localstack_only, tmp_path):
    server = Server(tmp_path, {"MEMEX_LOCALSTACK_PORT": str(free_port())}, module="infra.localstack")
    localstack = [c for c in psutil.Process(server.process.pid).children(recursive=True)
                  if "localstack.runtime.main" in " ".join(c.cmdline())]
    try:
        assert len(localstack) == 1, server.output()
        for note in ("queue memex-supersession: http://127.0.0.1:", "bulk imports: s3://memex-backfill",
                     "database secret: arn:aws:secretsmanager:"):
            assert note in server.output()
        user = "José.Ñ_" + "ü" * 150  # its FIFO group id goes through LocalStack's checks
        turn = httpx.post(f"{server.url}/v1/turns", json={
            "user_id": user, "session_id": "s1",
            "messages": [{"role": "user", "content": "I work at Stripe as an engineer."}]}).json()
        wait_processed(server.url, turn["turn_id"])  # through both queues, Postgres read from the secret
        hits = httpx.post(f"{server.url}/v1/search", json={"user_id": user, "query": "where does the user work"}).json()
        assert "The user's employer is Stripe." in [r["content"] for r in hits["results"]]
    finally:
        code = server.stop()
    assert code == 0, server.output()
    assert "memex: LocalStack stopped" in server.output()
    assert not _alive(localstack[0].pid)


@pytest.fixture(scope="module")
def stack(aws, localstack_only):
    import boto3

    from infra.localstack import stack as deployer
    from infra.localstack.bootstrap import database_secret, put_secret

    session = boto3.Session()
    secret = put_secret(session.client("secretsmanager"), "memex/stack-db",
                        database_secret("postgresql://memex:memex@db.internal:5432/memex"))
    return deployer.deploy(session, "memex-stack", secret), secret


def _queue(aws, url: str) -> dict[str, str]:
    return aws.client("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]


def test_the_template_deploys_all_but_what_needs_lambda(stack):
    deployment, _ = stack
    assert deployment.status == "CREATE_COMPLETE", (deployment.reason, deployment.failures)
    # Lambda and the HTTP API, and what cannot be without them (the dashboard and the 5xx alarm
    # name the API, the functions' errors, throttles and durations alarms name the functions, and the
    # migrate function's permission to invoke itself names its ARN): nothing else is left out.
    assert all(t.startswith(("AWS::Lambda::", "AWS::ApiGatewayV2::", "AWS::Events::Rule", "Custom::"))
               or name in ("Dashboard", "Http5xxRateAlarm", "HttpFunctionErrorsAlarm", "HttpFunctionThrottlesAlarm",
                           "WorkerFunctionErrorsAlarm", "WorkerFunctionThrottlesAlarm", "WorkerFunctionDurationAlarm",
                           "MigrateSelfInvokePolicy")
               for name, t in deployment.set_aside.items()), deployment.set_aside
    for alarm in ("DlqExtractionAlarm", "DlqSupersessionAlarm", "DlqBackfillAlarm", "SearchLatencyP95Alarm",
                  "LlmFallbackRateAlarm", "ExtractionQueueAgeAlarm", "BackfillQueueAgeAlarm"):
        assert alarm in deployment.resources, alarm
    assert set(deployment.roles.values()) <= set(deployment.resources)
    for logical_id in ("ExtractionQueue", "SupersessionQueue", "BackfillQueue", "ExtractionDeadLetterQueue",
                       "SupersessionDeadLetterQueue", "BackfillDeadLetterQueue"):
        assert logical_id in deployment.resources


def test_the_deployed_queues_are_the_ones_the_local_runtime_makes(stack, aws):
    """Same attributes, redrive to the matching DLQ with the same receive count: the local
    runtime's queues (moto or LocalStack) behave as the stack's will."""
    deployment, _ = stack
    sqs = aws.client("sqs")
    deployed = {n: deployment.resources[n] for n in LOGICAL_IDS.values()}
    local = ensure_queues(sqs, [QueueSpec(f"shape-{name}", fifo, int(_queue(aws, deployed[LOGICAL_IDS[name]])["VisibilityTimeout"]))
                                for name, (_, _, fifo) in QUEUES.items()], max_receive_count=5,
                          logical_ids={f"shape-{name}": logical for name, logical in LOGICAL_IDS.items()})
    for name, logical_id in LOGICAL_IDS.items():
        theirs, ours = _queue(aws, deployed[logical_id]), _queue(aws, local[f"shape-{name}"]["url"])
        assert {k: theirs.get(k) for k in _SHAPE} == {k: ours.get(k) for k in _SHAPE}, name
        their_redrive, our_redrive = json.loads(theirs["RedrivePolicy"]), json.loads(ours["RedrivePolicy"])
        # The template's count is a string (a mapping value); LocalStack hands it back as given.
        assert int(their_redrive["maxReceiveCount"]) == int(our_redrive["maxReceiveCount"]) == 5
        their_dlq = _queue(aws, deployment.resources[logical_id.replace("Queue", "DeadLetterQueue")])
        assert their_redrive["deadLetterTargetArn"] == their_dlq["QueueArn"]
        assert {k: their_dlq.get(k) for k in _SHAPE} == {k: _queue(aws, local[f"shape-{name}"]["dlq_url"]).get(k)
                                                         for k in _SHAPE}, f"{name} DLQ"


def _allowed(aws, role_name: str, action: str) -> set[str]:
    """The resources the role's inline policies allow `action` on (a trailing * in the policy's
    action matching, as IAM does)."""
    iam = aws.client("iam")
    found = set()
    for policy_name in iam.list_role_policies(RoleName=role_name)["PolicyNames"]:
        document = iam.get_role_policy(RoleName=role_name, PolicyName=policy_name)["PolicyDocument"]
        document = json.loads(document) if isinstance(document, str) else document
        for statement in document["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if statement["Effect"] == "Allow" and any(
                    a == action or (a.endswith("*") and action.startswith(a[:-1])) for a in actions):
                resources = statement["Resource"]
                found |= set(resources if isinstance(resources, list) else [resources])
    return found


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_role_may_send_to_exactly_the_queues_its_code_publishes_to(stack, aws, name):
    deployment, _ = stack
    published, _ = _CallGraph().published_from(_handler_module(FUNCTIONS[name]))
    expected = {_queue(aws, deployment.resources[PUBLISHERS[p]])["QueueArn"] for p in published}
    assert _allowed(aws, deployment.resources[deployment.roles[name]], "sqs:SendMessage") == expected


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_role_may_read_the_database_secret(stack, aws, name):
    deployment, secret = stack
    assert secret in _allowed(aws, deployment.resources[deployment.roles[name]], "secretsmanager:GetSecretValue")
