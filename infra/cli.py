"""The `memex` command: API keys, migrations, consolidation, and in-process handler invocation."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def _runtime():
    from infra.local.runtime import LocalRuntime

    return LocalRuntime(Path(os.environ.get("MEMEX_HOME", ".memex")).resolve())


def _local_runtime():
    return _runtime().start()


def keys_create(args: argparse.Namespace) -> None:
    _runtime().start_database()
    from memex.keys import create_key
    from memex_edge.context import get_context

    key = create_key(get_context(), args.tenant)
    print(key)
    print(f"(tenant {args.tenant}; the key is shown once and stored only as a hash)", file=sys.stderr)


def migrate(_: argparse.Namespace) -> None:
    runtime = _runtime()
    runtime.start_database()
    print("\n".join(runtime.notes))


def invoke(args: argparse.Namespace) -> None:
    """Run one function's handler in this process on an event file, like `sam local invoke`."""
    event = json.loads(Path(args.event).read_text(encoding="utf-8"))
    runtime = _local_runtime()
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module
    from memex.keys import open_mode
    from memex_edge.context import get_context

    headers = event.get("headers")
    if isinstance(headers, dict):
        if args.api_key:
            headers["authorization"] = f"Bearer {args.api_key}"
        elif open_mode(get_context()):
            headers.pop("authorization", None)
            headers.pop("Authorization", None)
            print("memex: no API key exists; invoking without one (default tenant)", file=sys.stderr)
    try:
        result = function_module(args.function).handler(event, LocalLambdaContext(args.function))
        print(json.dumps(result, indent=2, default=str))
        if args.drain:
            runtime.drain()
    finally:
        runtime.stop()


def backfill(args: argparse.Namespace) -> None:
    """Enqueue a bulk job on the backfill queue, run the workers until it is done, print its status.
    In AWS, send the same message (`BackfillJob.to_json()`) to the backfill queue."""
    from memex import backfill as bulk
    from memex_edge.context import get_context

    kind = "reembed" if args.reembed else "reextract" if args.reextract else "import"
    if kind == "import" and not args.file:
        raise SystemExit("memex backfill: give a JSON Lines FILE, or --reembed / --reextract")
    runtime = _local_runtime()
    try:
        job = bulk.new_job(kind, args.tenant, path=str(Path(args.file).resolve()) if args.file else None,
                           user_id=args.user)
        ctx = get_context()
        ctx.publisher.publish_backfill(job)
        runtime.drain(timeout=24 * 3600)
        print(json.dumps(bulk.status(ctx, args.tenant, job.backfill_id), indent=2))
    finally:
        runtime.stop()


def consolidate(args: argparse.Namespace) -> None:
    """Run consolidation now for one tenant (or one of its users) and print what it did."""
    _runtime().start_database()
    from memex.consolidation.job import Options, consolidate as run
    from memex_edge.context import get_context

    ctx = get_context()
    options = Options.from_settings(ctx, threshold=args.threshold, min_age_days=args.min_age_days)
    print(json.dumps(run(ctx, args.tenant, args.user, options).to_dict(), indent=2))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="memex")
    commands = parser.add_subparsers(dest="command", required=True)

    keys = commands.add_parser("keys", help="manage API keys").add_subparsers(dest="keys_command", required=True)
    create = keys.add_parser("create", help="create an API key for a tenant")
    create.add_argument("--tenant", required=True)
    create.set_defaults(run=keys_create)

    commands.add_parser("migrate", help="apply pending database migrations").set_defaults(run=migrate)

    run = commands.add_parser("invoke", help="run one Lambda handler in-process on a sample event")
    run.add_argument("function", help="folder name under functions/, e.g. ingest")
    run.add_argument("event", help="path to an event JSON file, e.g. events/ingest_post_turn.json")
    run.add_argument("--api-key", default=os.environ.get("MEMEX_API_KEY", ""))
    run.add_argument("--drain", action="store_true", help="then run the workers until the queues are empty")
    run.set_defaults(run=invoke)

    fill = commands.add_parser("backfill", help="import a JSON Lines file of turns, or re-embed / re-extract")
    fill.add_argument("file", nargs="?")
    fill.add_argument("--tenant", default=os.environ.get("MEMEX_DEFAULT_TENANT", "default"))
    fill.add_argument("--user", help="only this user's data (re-embed / re-extract)")
    which = fill.add_mutually_exclusive_group()
    which.add_argument("--reembed", action="store_true", help="recompute every memory's embedding")
    which.add_argument("--reextract", action="store_true", help="run extraction again over stored turns")
    fill.set_defaults(run=backfill)

    merge = commands.add_parser("consolidate", help="summarise old episodic memories of users over the threshold, now")
    merge.add_argument("--tenant", required=True)
    merge.add_argument("--user", help="only this user (if over the threshold)")
    merge.add_argument("--threshold", type=int, help="active episodic memories a user must exceed "
                                                      "(default MEMEX_CONSOLIDATION_THRESHOLD)")
    merge.add_argument("--min-age-days", type=float, help="only memories said at least this long ago "
                                                           "(default MEMEX_CONSOLIDATION_MIN_AGE_DAYS)")
    merge.set_defaults(run=consolidate)

    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
