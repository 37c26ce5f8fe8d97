"""MigrateFunction: the CloudFormation custom resource that applies SQL migrations on every deploy."""

import json
import time
import urllib.request

from memex.db.migrations import apply_migrations, unknown_versions, unknown_versions_warning
from memex_edge.context import get_context
from memex_edge.observability import logger

# Of the function's time, what a data migration leaves unused (migrations.PYTHON): a user's transaction
# begun just before the deadline runs to its end (migration 0033: 13.0 s for a user of 30,000 memories
# in 200,000, bench.family_keys), the migrations after it run, and CloudFormation must hear the answer
# before Lambda ends the function. Past it, the migration stops with its work kept and the deploy
# fails saying so; the next deploy continues it.
UNUSED_SECONDS = 90.0


def _respond(event, context, status: str, reason: str = "", data: dict | None = None) -> None:
    body = json.dumps({
        "Status": status,
        "Reason": f"{reason} (log stream {getattr(context, 'log_stream_name', '?')})",
        "PhysicalResourceId": event.get("PhysicalResourceId") or "memex-migrations",
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "Data": data or {},
    }).encode()
    request = urllib.request.Request(event["ResponseURL"], data=body, method="PUT",
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


@logger.inject_lambda_context
def handler(event, context):
    # Migrations only add; deleting the stack must not drop the data.
    if event["RequestType"] == "Delete":
        _respond(event, context, "SUCCESS", "nothing to do on delete")
        return
    try:
        ctx = get_context()
        until = time.monotonic() + context.get_remaining_time_in_millis() / 1000 - UNUSED_SECONDS
        applied = apply_migrations(ctx.db.connection(), ctx.settings.embedding_dim, until=until)
        # A rollback's deploy over a database a newer version migrated succeeds (migrations only add),
        # but its log says what the database has that this code runs without.
        newer = unknown_versions(ctx.db.connection())
        if newer:
            logger.warning(unknown_versions_warning(newer))
    except Exception as exc:  # noqa: BLE001 - CloudFormation must hear of every failure
        logger.exception("migration failed")
        _respond(event, context, "FAILED", f"{type(exc).__name__}: {exc}")
        return
    _respond(event, context, "SUCCESS", "migrations applied", {"Applied": ",".join(applied) or "none"})
