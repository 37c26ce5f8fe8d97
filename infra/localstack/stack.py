"""template.yaml deployed with CloudFormation onto LocalStack run without Docker, as far as that
goes: everything but Lambda.

Without Docker, LocalStack 4.14 cannot create a Lambda function at all (not only not invoke it):
CreateFunction first downloads its runtime emulator from GitHub, then pulls the runtime's image
through Docker, and the function ends in state Failed. So the SAM template is transformed here
(as `sam deploy` has CloudFormation do), the Lambda resources are set aside with every resource
that needs one (event source mappings, function URLs, the migrations custom resource, the
schedule, the HTTP API's integrations), and the rest is deployed: the queues, their DLQs and
redrive policies, each function's role with its policies. infra/localstack/README.md has the
details; `python -m infra.localstack.stack --with-lambda` shows the full template failing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from dataclasses import dataclass, field

from infra import template

STACK_SERVICES = ("cloudformation", "iam", "sts", "sqs", "s3", "secretsmanager", "lambda", "events", "logs",
                  "cloudwatch")
# Out of reach without Docker (Lambda), or not in LocalStack's community edition (HTTP API).
_UNREACHABLE = ("AWS::Lambda::", "AWS::ApiGatewayV2::")
_SUB_NAME = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}")


@dataclass
class Deployment:
    stack_name: str
    status: str
    reason: str | None
    # logical id -> physical id of what CloudFormation made
    resources: dict[str, str] = field(default_factory=dict)
    # logical id -> type of what was set aside
    set_aside: dict[str, str] = field(default_factory=dict)
    # function logical id -> its role's logical id
    roles: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def transformed(parameters: dict[str, str]) -> dict:
    """The SAM template as CloudFormation sees it after the AWS::Serverless transform. Code
    locations are placeholders: no function is created from them."""
    from samtranslator.translator.transform import transform

    from infra.localstack.bootstrap import ARTIFACT_BUCKET

    source = template.load()
    for name, resource in source["Resources"].items():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if key in properties:
                properties[key] = f"s3://{ARTIFACT_BUCKET}/{name}.zip"

    class NoManagedPolicies:
        """The template names no AWS managed policy the translator would have to look up."""

        def load(self) -> dict:
            return {}

    # The translator builds ARNs for the session's region and refuses to run without one.
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    return transform(source, parameters, NoManagedPolicies())


def _references(value) -> set[str]:
    """The logical ids a CloudFormation value names through Ref, Fn::GetAtt or Fn::Sub."""
    found = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                found.add(inner)
            elif key == "Fn::GetAtt":
                found.add(inner[0] if isinstance(inner, list) else inner.split(".", 1)[0])
            elif key == "Fn::Sub":
                text, names = (inner, {}) if isinstance(inner, str) else (inner[0], inner[1])
                found |= set(_SUB_NAME.findall(text)) - set(names)
                found |= _references(names)
            else:
                found |= _references(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= _references(inner)
    return found


def without_lambda(cfn: dict) -> tuple[dict, dict[str, str]]:
    """The template without its unreachable resources and whatever needs them (transitively);
    returns it and {logical id: type} of what was set aside."""
    resources = cfn["Resources"]
    aside = {name for name, r in resources.items() if r["Type"].startswith(_UNREACHABLE)}
    needs = {name: _references(r) | set([r["DependsOn"]] if isinstance(r.get("DependsOn"), str) else r.get("DependsOn", []))
             for name, r in resources.items()}
    while True:
        more = {name for name in resources if name not in aside and needs[name] & aside}
        if not more:
            break
        aside |= more
    kept = {**cfn, "Resources": {n: r for n, r in resources.items() if n not in aside},
            "Outputs": {n: o for n, o in cfn.get("Outputs", {}).items() if not _references(o) & aside}}
    return kept, {name: resources[name]["Type"] for name in sorted(aside)}


def function_roles(cfn: dict) -> dict[str, str]:
    """Each function's role, by logical id (SAM makes one per function)."""
    return {name: r["Properties"]["Role"]["Fn::GetAtt"][0] for name, r in cfn["Resources"].items()
            if r["Type"] == "AWS::Lambda::Function"}


def deploy(session, stack_name: str, database_secret_arn: str, with_lambda: bool = False,
           timeout: float = 300.0) -> Deployment:
    parameters = {"DatabaseSecretArn": database_secret_arn, "DeployTarget": "localstack"}
    cfn = transformed(parameters)
    roles = function_roles(cfn)
    body, aside = (cfn, {}) if with_lambda else without_lambda(cfn)
    if with_lambda:
        _upload_placeholders(session, cfn)
    # The transformed template is past CreateStack's 51,200-byte limit for a body: it goes by S3.
    from infra.localstack.bootstrap import ARTIFACT_BUCKET, ensure_bucket

    s3 = session.client("s3")
    ensure_bucket(s3, ARTIFACT_BUCKET)
    s3.put_object(Bucket=ARTIFACT_BUCKET, Key=f"{stack_name}.template.json", Body=json.dumps(body).encode())
    client = session.client("cloudformation")
    client.create_stack(StackName=stack_name, TemplateURL=f"{s3.meta.endpoint_url}/{ARTIFACT_BUCKET}/{stack_name}.template.json",
                        Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
                        Capabilities=["CAPABILITY_IAM", "CAPABILITY_NAMED_IAM", "CAPABILITY_AUTO_EXPAND"])
    deadline = time.monotonic() + timeout
    while True:
        stack = client.describe_stacks(StackName=stack_name)["Stacks"][0]
        if not stack["StackStatus"].endswith("_IN_PROGRESS") or time.monotonic() > deadline:
            break
        time.sleep(1)
    made = {r["LogicalResourceId"]: r.get("PhysicalResourceId", "")
            for r in client.describe_stack_resources(StackName=stack_name)["StackResources"]
            if r["ResourceStatus"] == "CREATE_COMPLETE"}
    failures = [f"{e['LogicalResourceId']} ({e['ResourceType']}): {e.get('ResourceStatusReason')}"
                for e in client.describe_stack_events(StackName=stack_name)["StackEvents"]
                if e["ResourceStatus"] == "CREATE_FAILED" and e.get("ResourceStatusReason")]
    return Deployment(stack_name, stack["StackStatus"], stack.get("StackStatusReason"), made, aside, roles, failures)


def _upload_placeholders(session, cfn: dict) -> None:
    """The full template's functions and layer need code in S3 to get as far as CreateFunction."""
    import io
    import zipfile

    from infra.localstack.bootstrap import ensure_bucket

    s3 = session.client("s3")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return {}\n")
    for resource in cfn["Resources"].values():
        code = resource.get("Properties", {}).get("Code") or resource.get("Properties", {}).get("Content")
        if code and "S3Bucket" in code:
            ensure_bucket(s3, code["S3Bucket"])
            s3.put_object(Bucket=code["S3Bucket"], Key=code["S3Key"], Body=buffer.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description="Deploy template.yaml onto an in-process LocalStack and say what happened.")
    parser.add_argument("--with-lambda", action="store_true", help="the whole template, Lambda functions included")
    args = parser.parse_args()
    from pathlib import Path
    import tempfile

    import boto3

    from infra.localstack.bootstrap import database_secret, put_secret
    from infra.localstack.server import LocalStack

    os.environ.update(AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", AWS_DEFAULT_REGION="us-east-1")
    with tempfile.TemporaryDirectory() as data, LocalStack(None, Path(data), STACK_SERVICES) as localstack:
        os.environ["AWS_ENDPOINT_URL"] = localstack.endpoint
        session = boto3.Session()
        secret = put_secret(session.client("secretsmanager"), "memex/db",
                            database_secret("postgresql://memex:memex@127.0.0.1:5432/memex"))
        started = time.monotonic()
        done = deploy(session, "memex", secret, with_lambda=args.with_lambda)
        print(f"stack {done.stack_name}: {done.status} in {time.monotonic() - started:.1f} s"
              + (f" ({done.reason})" if done.reason else ""))
        print(f"created: {len(done.resources)} resources")
        if done.set_aside:
            print("set aside: " + ", ".join(f"{n} ({t})" for n, t in done.set_aside.items()))
        for failure in done.failures:
            print(f"failed: {failure}")


if __name__ == "__main__":
    main()
