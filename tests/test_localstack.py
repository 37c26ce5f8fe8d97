"""LocalStack run without Docker, under `make test-localstack`: `make localstack` as a user runs
it, and template.yaml deployed by CloudFormation onto it (without its Lambda functions, which
LocalStack cannot create without Docker: infra/localstack/stack.py) — the queues are made as the
local runtime makes them, and each function's role may send to exactly the queues its code
publishes to, as IAM itself holds them; MigrateFunction may invoke itself, and its invocation of
itself reaches LocalStack's Lambda API (which cannot run it). Moto has no SAM transform nor IAM
policies to check."""

from __future__ import annotations

import io
import json
import socket
import time
import zipfile

import httpx
import psutil
import pytest

from infra import template
from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import QUEUES, function_module
from infra.local.sqs_server import LOGICAL_IDS, QueueSpec, ensure_queues, free_port
from infra.local.loopback import loopback_endpoint
from tests.conftest import ROOT, database_of_its_own
from tests.test_handlers import _event, _unfinished_0033
from tests.test_local_runtime import Server, _alive, wait_processed
from tests.test_template import FUNCTIONS, PUBLISHERS, _CallGraph, _handler_module

# What a queue is, as opposed to what it is called, holds or when it was made.
_SHAPE = ("FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit", "VisibilityTimeout",
          "MessageRetentionPeriod", "SqsManagedSseEnabled", "DelaySeconds", "ReceiveMessageWaitTimeSeconds")


@pytest.fixture(scope="module")
def localstack_only(aws):
    if aws.kind != "localstack":
        pytest.skip("LocalStack itself (its Python 3.13 virtualenv, CloudFormation, IAM): make test-localstack")


def test_a_port_taken_before_localstack_binds_it_is_told_and_a_free_one_picked_again(localstack_only, tmp_path,
                                                                                     monkeypatch):
    """LocalStack cannot take port 0 (infra/localstack/server.py): a port picked free here could be taken by
    another process before LocalStack bound it, whose gateway then never served while that process answered
    the health checks. A start on a taken port now fails saying so, and one on a port picked free picks another."""
    from infra.local import sqs_server
    from infra.localstack.server import LocalStack, PortTaken

    with socket.socket() as taken:  # another server's, listening
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortTaken, match=f"127.0.0.1:{port} is in use"):
            LocalStack(port, tmp_path / "given", ("sqs",)).start(timeout=120)
        picks, free_port = iter([port]), sqs_server.free_port
        monkeypatch.setattr(sqs_server, "free_port", lambda: next(picks, None) or free_port())
        with LocalStack(None, tmp_path / "picked", ("sqs",)) as localstack:
            assert localstack.port != port
            assert httpx.get(f"{localstack.endpoint}/_localstack/health").status_code == 200


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
                           "WorkerFunctionErrorsAlarm", "ScheduledFunctionErrorsAlarm", "WorkerFunctionThrottlesAlarm",
                           "WorkerFunctionDurationAlarm", "MigrateSelfInvokePolicy")
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


# MigrateFunction continues a long migration by invoking itself (functions/migrate/app.py). LocalStack
# without Docker creates the function but cannot run it (its state is Failed: the runtime is pulled
# through Docker), so the chain itself runs in-process (tests/test_handlers.py); here, what does not
# need it to run: the role's permission, as IAM evaluates it, and the invocation reaching the function
# through LocalStack's Lambda API.
@pytest.fixture(scope="module")
def migrate_function(stack, aws) -> str:
    """The ARN of a MigrateFunction created on LocalStack with the deployed stack's role for it."""
    deployment, _ = stack
    role = aws.client("iam").get_role(RoleName=deployment.resources[deployment.roles["MigrateFunction"]])["Role"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.write(ROOT / "functions" / "migrate" / "app.py", "app.py")
    lambda_api = aws.client("lambda")
    arn = lambda_api.create_function(
        FunctionName=f"{deployment.stack_name}-MigrateFunction", Runtime="python3.13", Role=role["Arn"],
        Handler="app.handler", Code={"ZipFile": code.getvalue()})["FunctionArn"]
    deadline = time.monotonic() + 60
    while (state := lambda_api.get_function_configuration(FunctionName=arn)["State"]) == "Pending":
        assert time.monotonic() < deadline, "the function stayed Pending"
        time.sleep(0.5)
    # Were it Active, LocalStack could run the chain itself: test_handlers' chain test belongs here then.
    assert state == "Failed", state
    return arn


def test_the_migrate_functions_role_may_invoke_that_function_and_no_other(stack, aws, migrate_function):
    """The template's MigrateSelfInvokePolicy (set aside by the deployment: it names the function's
    ARN) put on the deployed role as CloudFormation would, with that ARN, and evaluated by IAM."""
    deployment, _ = stack
    role_id = deployment.roles["MigrateFunction"]
    policy = template.load()["Resources"]["MigrateSelfInvokePolicy"]["Properties"]
    assert policy["Roles"] == [{"Ref": role_id}]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement["Resource"] == {"Fn::GetAtt": ["MigrateFunction", "Arn"]}
    iam, role = aws.client("iam"), deployment.resources[role_id]
    iam.put_role_policy(RoleName=role, PolicyName=policy["PolicyName"],
                        PolicyDocument=json.dumps({**policy["PolicyDocument"],
                                                   "Statement": [{**statement, "Resource": migrate_function}]}))
    assert _allowed(aws, role, "lambda:InvokeFunction") == {migrate_function}
    # IAM's own evaluation of the role's inline policies, on a role holding them alone: LocalStack's
    # simulation fails on the AWS managed policies the role has too, and simulates no custom policy.
    alone = iam.create_role(RoleName="migrate-inline-policies-alone",
                            AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": []}))["Role"]
    for name in iam.list_role_policies(RoleName=role)["PolicyNames"]:
        document = iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"]
        iam.put_role_policy(RoleName=alone["RoleName"], PolicyName=name,
                            PolicyDocument=document if isinstance(document, str) else json.dumps(document))
    other = migrate_function.replace("-MigrateFunction", "-IngestFunction")
    results = iam.simulate_principal_policy(PolicySourceArn=alone["Arn"], ActionNames=["lambda:InvokeFunction"],
                                            ResourceArns=[migrate_function, other])["EvaluationResults"]
    assert {r["EvalResourceName"]: r["EvalDecision"] for r in results} == {migrate_function: "allowed",
                                                                           other: "explicitDeny"}


def test_an_unfinished_migration_invokes_the_function_itself_through_lambdas_api(migrate_function, ctx, monkeypatch):
    """The handler out of time with 0033 unfinished invokes its own ARN (as Lambda gives it in the
    context) through LocalStack's Lambda API: found, and refused only because LocalStack cannot run
    it without Docker; a refused invocation fails the deploy naming why, rather than leaving
    CloudFormation waiting an hour for an answer."""
    migrate = function_module("migrate")
    context = LocalLambdaContext(migrate_function.rsplit(":", 1)[1], timeout_seconds=migrate.UNUSED_SECONDS)
    assert context.invoked_function_arn == migrate_function
    with database_of_its_own(ctx, "chain_localstack") as own, loopback_endpoint("PUT", 200) as (url, answers):
        _unfinished_0033(own, users=2)
        monkeypatch.setattr(migrate, "get_context", lambda: own)
        event = {**_event("migrate_create"), "ResponseURL": url}
        migrate.handler(event, context)
    assert [a["body"]["Status"] for a in answers] == ["FAILED"], answers
    reason = answers[0]["body"]["Reason"]
    assert "(ResourceConflictException) when calling the Invoke operation" in reason, reason
    assert "The function is currently in the following state: Failed" in reason, reason
