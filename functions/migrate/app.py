"""MigrateFunction: the CloudFormation custom resource that applies SQL migrations on every deploy."""

import json
import time
import urllib.request

from memex.db.migrations import MigrationUnfinished, apply_migrations, unknown_versions, unknown_versions_warning
from memex_edge.context import get_context
from memex_edge.observability import logger

# Of the function's time, what a data migration leaves unused (migrations.PYTHON): a user's transaction
# begun just before the deadline runs to its end (migration 0033: 13.0 s for a user of 30,000 memories
# in 200,000, bench.family_keys), the migrations after it run, and CloudFormation must hear the answer
# before Lambda ends the function. Past it, the migration stops with its work kept and the function
# hands the rest to its next invocation (CONTINUATION).
UNUSED_SECONDS = 90.0

# An unfinished migration continues in a new invocation of this function, invoked by itself with
# the same event and this key counting the invocations before it; only the invocation that finishes
# answers CloudFormation. At most MAX_CONTINUATIONS of them: 11 invocations of the template's
# Timeout (300 s) fit the custom resource's ServiceTimeout (3600 s, CloudFormation's maximum) with
# the async invocations' queueing, and their 11 x 210 s of work is four times what migration 0033
# is projected to need at 1M memories (docs/measurements/upgrade.md).
CONTINUATION = "MemexContinuation"
MAX_CONTINUATIONS = 10
# The versions the invocations before this one applied (a migration stopped unfinished leaves those
# before it recorded, and the next invocation does not apply them again): the answer lists them all.
APPLIED = "MemexApplied"
# CloudFormation refuses an answer whose body passes 4,096 bytes, and the deploy then waits for its
# timeout instead of failing with the reason: a longer reason is cut to fit (_answer).
ANSWER_BYTES = 4096
# The rest of a SUCCESS answer (ids, reason, log stream) takes well under half of ANSWER_BYTES. A longer
# list is named by its first and last and counted.
APPLIED_CHARACTERS = 2048


def _applied(versions: list[str]) -> str:
    listed = ",".join(versions) or "none"
    if len(listed) <= APPLIED_CHARACTERS:
        return listed
    return f"{versions[0]} ... {versions[-1]} ({len(versions)} migrations)"


def _answer(event, context, status: str, reason: str, data: dict) -> bytes:
    """The answer's body within ANSWER_BYTES: a reason too long for it (a MigrationBlocked naming many
    lock holders) keeps its start, which names the error, and says it was cut; the log has it whole."""
    def body(shown: str) -> bytes:
        return json.dumps({
            "Status": status,
            "Reason": f"{shown} (log stream {getattr(context, 'log_stream_name', '?')})",
            "PhysicalResourceId": event.get("PhysicalResourceId") or "memex-migrations",
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "Data": data,
        }).encode()

    def cut(kept: int) -> bytes:
        return body(f"{reason[:kept]} ... (cut: the first {kept} of {len(reason)} characters)")

    whole = body(reason)
    if len(whole) <= ANSWER_BYTES:
        return whole
    # The most characters that fit, by bisection: an escaped character (non-ASCII) takes up to 12
    # bytes of the body, so the bytes over do not say how many characters to cut.
    fits, over = 0, len(reason)
    while over - fits > 1:
        middle = (fits + over) // 2
        fits, over = (middle, over) if len(cut(middle)) <= ANSWER_BYTES else (fits, middle)
    return cut(fits)


def _respond(event, context, status: str, reason: str = "", data: dict | None = None) -> None:
    body = _answer(event, context, status, reason, data or {})
    request = urllib.request.Request(event["ResponseURL"], data=body, method="PUT",
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def _continue(event, context, continuation: int, applied: list[str]) -> None:
    """Invokes this very function (its ARN as invoked) with `event` and the versions applied so far
    asynchronously: the invocation that finishes the migrations answers, so this one must not."""
    # Imported here: a deploy whose migrations finish in one run (nearly every one) never loads boto3.
    import boto3
    from botocore.config import Config

    region = context.invoked_function_arn.split(":")[3]
    # boto3's defaults wait a minute per attempt for an unreachable endpoint (a VPC without a route
    # to the Lambda API): the failure must reach CloudFormation within UNUSED_SECONDS.
    config = Config(connect_timeout=5, read_timeout=15, retries={"mode": "standard", "max_attempts": 3})
    boto3.client("lambda", region_name=region, config=config).invoke(
        FunctionName=context.invoked_function_arn, InvocationType="Event",
        Payload=json.dumps({**event, CONTINUATION: continuation, APPLIED: applied}).encode())


@logger.inject_lambda_context
def handler(event, context):
    # Migrations only add; deleting the stack must not drop the data.
    if event["RequestType"] == "Delete":
        _respond(event, context, "SUCCESS", "nothing to do on delete")
        return
    continuation = int(event.get(CONTINUATION, 0))
    earlier = list(event.get(APPLIED, []))
    try:
        ctx = get_context()
        until = time.monotonic() + context.get_remaining_time_in_millis() / 1000 - UNUSED_SECONDS
        try:
            applied = apply_migrations(ctx.db.connection(), ctx.settings.embedding_dim, until=until)
        except MigrationUnfinished as unfinished:
            if continuation >= MAX_CONTINUATIONS:
                raise MigrationUnfinished(f"{unfinished} (after {continuation + 1} invocations of MigrateFunction, "
                                          "the most one deploy waits for)") from unfinished
            logger.info("migrations unfinished: continuing in a new invocation",
                        extra={"continuation": continuation + 1, "reason": str(unfinished)})
            _continue(event, context, continuation + 1, earlier + unfinished.applied)
            return
        # A rollback's deploy over a database a newer version migrated succeeds (migrations only add),
        # but its log says what the database has that this code runs without.
        newer = unknown_versions(ctx.db.connection())
        if newer:
            logger.warning(unknown_versions_warning(newer))
    except Exception as exc:  # noqa: BLE001 - CloudFormation must hear of every failure
        logger.exception("migration failed")
        _respond(event, context, "FAILED", f"{type(exc).__name__}: {exc}")
        return
    _respond(event, context, "SUCCESS", "migrations applied", {"Applied": _applied(earlier + applied)})
