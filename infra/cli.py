"""The `memex` command: API keys and tenants, migrations, backfills and exports, consolidation,
in-process handler invocation, and the MCP server over stdio."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path


RATE_HELP = "N/s, N/min, N/h or N/day (e.g. 50/s, 600/min), or unlimited"
KEY_ID_HELP = "the key's id, as `memex keys list` shows it (key_...)"
_SAMPLE_KEY = "mx_example_key"  # the placeholder in events/*.json
MCP_URL = "http://127.0.0.1:8080/mcp"  # where `make dev` serves MCP
_UNITS = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1), "s": timedelta(seconds=1)}
# A hundred years: longer is "never", which is a key without an expiry; and timedelta overflows near 2.7M years.
LONGEST = timedelta(days=36500)


class InvalidDuration(ValueError):
    """An --expires-in that is not a whole number of days, hours, minutes or seconds, or is out of range."""


def duration(text: str) -> timedelta:
    """`90d`, `12h`, `30m`, `45s` as a timedelta; InvalidDuration naming the value otherwise."""
    match = re.fullmatch(r"([0-9]+)([dhms])", text.strip())
    if match is None:
        raise InvalidDuration(f"--expires-in: {text!r} is not a duration: a whole number and a unit, d, h, m or s "
                              "(e.g. 90d, 12h)")
    unit = _UNITS[match.group(2)]
    # Compared in whole units first: a timedelta of too many days overflows before it can be compared.
    if not 0 < int(match.group(1)) <= LONGEST // unit:
        raise InvalidDuration(f"--expires-in: {text!r} is out of range: more than 0s and at most "
                              f"{LONGEST.days}d (a key without --expires-in never expires)")
    return int(match.group(1)) * unit


def _runtime():
    # A command's stdout is its answer (JSON for most): metrics stay off unless asked for, since the
    # default, EMF, writes a line to stdout for each labelled metric (an embedding call's latency).
    os.environ.setdefault("MEMEX_METRICS", "off")
    # For the same reason the workers a command runs (backfill, invoke) log to stderr, where
    # Powertools would write to stdout, and the libraries' chatter is left out, as in `make dev`.
    # stderr is the command's progress and errors: the workers' INFO lines (a JSON "backfill chunk
    # done" a chunk) are left out too, unless POWERTOOLS_LOG_LEVEL asks for them.
    from memex_edge.observability import logger

    logger.registered_handler.setStream(sys.stderr)
    logger.setLevel(os.environ.get("POWERTOOLS_LOG_LEVEL") or "WARNING")
    from infra.local.runtime import LocalRuntime, quiet_libraries

    quiet_libraries()

    return LocalRuntime(Path(os.environ.get("MEMEX_HOME", ".memex")).resolve())


def _local_runtime():
    return _runtime().start()


def _operator_context():
    """The Context of the configured database (embedded by default), migrated."""
    _runtime().start_database()
    from memex_edge.context import get_context

    return get_context()


def keys_create(args: argparse.Namespace) -> None:
    from memex.keys import issue_key

    # Checked before the database is started: a typo costs nothing.
    expires_in = duration(args.expires_in) if args.expires_in is not None else None
    ctx = _operator_context()
    issued = issue_key(ctx, args.tenant, expires_in)
    print(issued.secret)
    expiry = f"; it expires at {_when(issued.expires_at)}" if issued.expires_at else ""
    print(f"(key {issued.id} for tenant {args.tenant}{expiry}; the secret is shown once and stored only as a hash)",
          file=sys.stderr)
    if issued.reopened_deleted_at:
        print(f"memex: tenant {args.tenant} was deleted at {_when(issued.reopened_deleted_at)}; this key makes it "
              "live again, with nothing of what it had", file=sys.stderr)
    if issued.ended_open_mode:
        default = ctx.settings.default_tenant
        if args.tenant == default:
            print(f"memex: this is the first API key: requests without a key are refused from now on; the "
                  f"{default} tenant's data (what was stored without a key) is reachable with this key.",
                  file=sys.stderr)
        else:
            print(f"memex: this is the first API key: requests without a key are refused from now on, so the "
                  f"{default} tenant's data (everything stored without a key until now) is out of reach until "
                  f"you make a key for it: memex keys create --tenant {default}", file=sys.stderr)


def _when(value) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%SZ") if value is not None else "-"


def keys_list(args: argparse.Namespace) -> None:
    from memex.keys import list_keys
    from memex.models import wire_time

    rows = list_keys(_operator_context(), args.tenant)
    if args.json:
        # The rows' only values JSON has no type for are their times: sent as every answer sends them.
        print(json.dumps(rows, indent=2, default=wire_time))
        return
    table = [("ID", "PREFIX", "TENANT", "CREATED", "LAST USED", "REVOKED", "EXPIRES", "LIMIT")]
    table += [(row["id"], row["prefix"] + "…", row["tenant_id"], _when(row["created_at"]), _when(row["last_used_at"]),
               _when(row["revoked_at"]), _when(row["expires_at"]), row["rate_limit"] or "tenant's") for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


def keys_revoke(args: argparse.Namespace) -> None:
    from memex.keys import revoke_key

    revoked = revoke_key(_operator_context(), args.id)
    print(f"revoked {revoked['id']} (tenant {revoked['tenant_id']}) at {_when(revoked['revoked_at'])}: "
          f"requests with it now get 401")


def keys_set_limit(args: argparse.Namespace) -> None:
    from memex.keys import set_key_limit

    set_key_limit(_operator_context(), args.id, args.rate)
    print(f"key {args.id}: {args.rate}, in a bucket of its own" if args.rate
          else f"key {args.id}: counted in its tenant's limit again")


def tenants_set_limit(args: argparse.Namespace) -> None:
    from memex.tenants import describe, set_limit

    ctx = _operator_context()
    set_limit(ctx, args.tenant, args.rate)
    print(json.dumps(describe(ctx, args.tenant), indent=2))


def tenants_show(args: argparse.Namespace) -> None:
    from memex.tenants import describe

    print(json.dumps(describe(_operator_context(), args.tenant), indent=2))


def tenants_delete(args: argparse.Namespace) -> None:
    from memex import tenants

    if not args.yes:
        if not sys.stdin.isatty():
            raise SystemExit(f"memex tenants delete: nothing asked, nothing erased: pass --yes to erase tenant "
                             f"{args.tenant} without a question (stdin is not a terminal to ask on)")
        print(f"This erases every turn, message, memory and job of tenant {args.tenant} and revokes its keys, "
              "for good.", file=sys.stderr)
        try:
            answer = input(f"Type the tenant's id ({args.tenant}) to go on: ")
        except EOFError:
            answer = ""
        if answer.strip() != args.tenant:
            raise SystemExit("memex tenants delete: not confirmed, nothing erased")
    erased = tenants.delete(_operator_context(), args.tenant)
    print(json.dumps(erased, indent=2))
    print("memex: this process keeps none of its texts; a running server's processes drop what they keep "
          "of them (recent vectors, query cache) within MEMEX_RECENT_TEXTS_MAX_AGE_SECONDS", file=sys.stderr)


def migrate(_: argparse.Namespace) -> None:
    runtime = _runtime()
    runtime.start_database()
    print("\n".join(runtime.notes))


def invoke(args: argparse.Namespace) -> None:
    """Run one function's handler in this process on an event file, like `sam local invoke`."""
    event = json.loads(Path(args.event).read_text(encoding="utf-8"))
    runtime = _local_runtime()
    from infra import template
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.loopback import loopback_endpoint
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
        elif _SAMPLE_KEY in str(headers.get("authorization", headers.get("Authorization", ""))):
            # the events/ files carry a placeholder, which a service with keys answers with 401
            print(f"memex: API keys exist and the event carries the sample key {_SAMPLE_KEY}: pass --api-key KEY "
                  "(or MEMEX_API_KEY; `make invoke KEY=...`)", file=sys.stderr)
    try:
        # the deployed function's Timeout, as `sam local invoke` gives it
        context = LocalLambdaContext(args.function, timeout_seconds=template.function_timeout(args.function))
        handler = function_module(args.function).handler
        if "ResponseURL" in event:
            # A CloudFormation custom resource's event (migrate): its ResponseURL is an AWS address the
            # handler PUTs its answer to. Here a loopback stand-in takes it, and the answer is shown.
            with loopback_endpoint("PUT", 200) as (url, answers):
                result = handler({**event, "ResponseURL": url}, context)
            for answer in answers:
                print("memex: the custom resource's answer, as CloudFormation would get it at the event's "
                      "ResponseURL:", file=sys.stderr)
                print(json.dumps(answer["body"], indent=2))
        else:
            result = handler(event, context)
            print(json.dumps(result, indent=2, default=str))
        if args.drain:
            runtime.drain()
    finally:
        runtime.stop()


class _Progress:
    """While `memex backfill` waits, its job's counts on stderr (stdout is its answer alone): a line
    when they changed, every `seconds` at most, between the workers' batches, and the last counts
    when it ends. Lines, not a redrawn one, so a scripted run's log says how far it got as a
    terminal does."""

    def __init__(self, ctx, tenant_id: str, backfill_id: str, seconds: float):
        self._ctx, self._tenant_id, self._backfill_id, self._seconds = ctx, tenant_id, backfill_id, seconds
        self._due = time.monotonic() + seconds
        self._shown: str | None = None

    def __call__(self) -> None:
        if self._seconds > 0 and time.monotonic() >= self._due:
            self._due = time.monotonic() + self._seconds
            self.show()

    def show(self) -> None:
        from memex import backfill as bulk
        from memex.errors import NotFound

        if self._seconds <= 0:
            return
        try:
            job = bulk.status(self._ctx, self._tenant_id, self._backfill_id)
        except NotFound:
            return  # its first chunk has not begun
        unit = {"import": "lines", "reembed": "memories", "reextract": "turns"}[job["kind"]]
        line = (f"memex backfill {self._backfill_id}: {job['done'] + job['failed'] + job['erased']}"
                f"{'/' + str(job['total']) if job['total'] else ''} {unit}, {job['done']} done "
                f"({job['already_stored']} already stored), {job['erased']} erased, {job['failed']} failed, "
                f"{job['status']}")
        if line != self._shown:
            print(line, file=sys.stderr, flush=True)
            self._shown = line


class _CtrlC:
    """Ctrl-C on an import whose queues are this process's own, taken between the workers' batches.
    Raised where it landed, it could land in a database call, which psycopg answers by cancelling
    the query: the chunk's delivery failed, was retried, and the import went on as if never asked
    to stop. A second Ctrl-C stops at once, wherever it lands."""

    def __init__(self) -> None:
        self.asked = False

    def __enter__(self) -> "_CtrlC":
        self._previous = signal.signal(signal.SIGINT, self._ask)
        return self

    def __exit__(self, *exc) -> None:
        signal.signal(signal.SIGINT, self._previous)

    def _ask(self, signum, frame) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def check(self) -> None:
        if self.asked:
            raise KeyboardInterrupt


def _unreachable(ctx, tenant: str) -> str:
    from memex.errors import NotFound
    from memex.tenants import describe

    try:
        deleted_at = describe(ctx, tenant)["deleted_at"]
    except NotFound:
        deleted_at = None
    if deleted_at:
        return (f"memex backfill: tenant {tenant} was deleted at {deleted_at}: memex keys create --tenant {tenant} "
                "makes it live again, empty, to import into")
    return (f"memex backfill: tenant {tenant} has no API key, so nothing stored for it could be read: check its "
            f"name (memex keys list), or make its key first: memex keys create --tenant {tenant}")


def backfill(args: argparse.Namespace) -> None:
    """Enqueue a bulk job on the backfill queue, run the workers until it is done, print its status.
    In AWS, send the same message (`BackfillJob.to_json()`) to the backfill queue."""
    from memex import backfill as bulk
    from memex.errors import NotFound, UserBeingErased
    from memex.tenants import reachable
    from memex_edge.context import get_context

    kind = "reembed" if args.reembed else "reextract" if args.reextract else "import"
    if kind == "import" and not args.file:
        raise SystemExit("memex backfill: give a JSON Lines FILE, or --reembed / --reextract")
    if kind != "import" and args.file:
        flag = f"--{kind}"
        raise SystemExit(f"memex backfill: {flag} works on what is stored and reads no file: give FILE to import "
                         f"it, or {flag} without it")
    if args.file and not Path(args.file).is_file():
        # The workers would read it only once queued: five failed deliveries later, with nothing to say.
        what = "a directory, not a JSON Lines file" if Path(args.file).is_dir() else "no such file"
        raise SystemExit(f"memex backfill: {args.file}: {what}")
    runtime = _local_runtime()
    try:
        job = bulk.new_job(kind, args.tenant, path=str(Path(args.file).resolve()) if args.file else None,
                           user_id=args.user)
        ctx = get_context()
        if not reachable(ctx, args.tenant):
            # It would run to "done" storing what no key would ever read, or (a deleted tenant) end
            # with "backfill bf_… not found".
            raise SystemExit(_unreachable(ctx, args.tenant))
        if args.resume:
            try:
                job = bulk.resume(ctx, job, args.resume)
            except (NotFound, UserBeingErased, ValueError) as exc:
                raise SystemExit(f"memex backfill: {exc}") from None
        ctx.publisher.publish_backfill(job)
        progress = _Progress(ctx, args.tenant, job.backfill_id, args.progress)
        ctrl_c = _CtrlC() if runtime.queues_die_with_it else None

        def between() -> None:
            progress()
            if ctrl_c is not None:
                ctrl_c.check()

        try:
            with ctrl_c or contextlib.nullcontext():
                runtime.drain(timeout=24 * 3600, between=between)
        except KeyboardInterrupt:
            if not runtime.queues_die_with_it:
                raise  # the next chunk's message waits in the configured queue for a worker
            # The next chunk's message was on this process's own queue, gone with it: left
            # "running", the job would say so for ever, and a traceback would be all Ctrl-C said.
            if bulk.status(ctx, args.tenant, job.backfill_id)["status"] in ("running", "stalled"):  # not if it ended
                again = ("; the lines already stored count as already_stored, none is stored twice"
                         if kind == "import" else "")
                bulk.mark_failed(ctx, job, f"interrupted (Ctrl-C) before the end: run the same command again{again}; "
                                           f"or add --resume {job.backfill_id} to go on with this job")
            print(json.dumps(bulk.status(ctx, args.tenant, job.backfill_id), indent=2))
            raise SystemExit(130) from None
        progress.show()
        print(json.dumps(bulk.status(ctx, args.tenant, job.backfill_id), indent=2))
    finally:
        runtime.stop()


def export(args: argparse.Namespace) -> None:
    """Write a user's turns as `memex backfill` imports them, to --out or stdout."""
    _runtime().start_database()
    from memex import export as turns_out
    from memex.errors import UserBeingErased
    from memex_edge.context import get_context

    ctx = get_context()
    written, left_out = 0, turns_out.LeftOut()
    try:
        with _written_to(args.out) as out:
            for line in turns_out.lines(ctx, args.tenant, args.user, args.agent, args.as_user, left_out):
                out.write(line + "\n")
                written += 1
    except UserBeingErased as exc:
        raise SystemExit(f"memex export: {exc.message}") from None
    where = args.out or "stdout"
    print(f"memex export: {written} turn{'' if written == 1 else 's'} of user {args.user} (tenant {args.tenant}) to {where}"
          + (f"; left out: {left_out}" if str(left_out) else "")
          + (f"; import them with: memex backfill {args.out} --tenant {args.tenant}" if args.out else ""),
          file=sys.stderr)


@contextlib.contextmanager
def _written_to(path: str | None):
    """stdout, or a file that appears whole or not at all: an export stopped half way (an erasure
    begun, Ctrl-C) leaves no file an import would take for the user's whole history."""
    if path is None:
        yield sys.stdout
        return
    partial = Path(f"{path}.partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            yield out
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def consolidate(args: argparse.Namespace) -> None:
    """Run consolidation now for one tenant (or one of its users) and print what it did."""
    _runtime().start_database()
    from memex.consolidation.job import Options, consolidate as run
    from memex_edge.context import get_context

    ctx = get_context()
    options = Options.from_settings(ctx, threshold=args.threshold, min_age_days=args.min_age_days)
    print(json.dumps(run(ctx, args.tenant, args.user, options).to_dict(), indent=2))


def mcp(args: argparse.Namespace) -> None:
    """Speak MCP on stdin and stdout for a host that starts its servers as commands, through the
    running server at --url."""
    if not args.url.startswith(("http://", "https://")):
        # Else every request would fail as a connection error that never says why.
        raise SystemExit(f"memex mcp: {args.url!r} is not an http:// or https:// address (e.g. {MCP_URL})")
    from infra.mcp_stdio import serve

    serve(args.url, os.environ.get("MEMEX_API_KEY") or None)


def _tenant_argument(command: argparse.ArgumentParser, what: str) -> None:
    """--tenant, by default the tenant of requests without a key, as the server takes it."""
    command.add_argument("--tenant", default=os.environ.get("MEMEX_DEFAULT_TENANT", "default"),
                         help=f"{what} (default: %(default)s, the tenant of requests without a key)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memex", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    keys = commands.add_parser("keys", help="manage API keys").add_subparsers(dest="keys_command", required=True)
    create = keys.add_parser("create", help="create an API key for a tenant (the first key ends keyless access)")
    create.add_argument("--tenant", required=True, help="the tenant the key's requests act for")
    create.add_argument("--expires-in", metavar="DURATION",
                        help="the key gets 401 after this long: N followed by d, h, m or s (e.g. 90d, 12h); "
                             "without it the key never expires")
    create.set_defaults(run=keys_create)
    listing = keys.add_parser("list", help="list API keys (never their secrets)")
    listing.add_argument("--tenant", help="only this tenant's keys")
    listing.add_argument("--json", action="store_true", help="a JSON array instead of a table")
    listing.set_defaults(run=keys_list)
    revoke = keys.add_parser("revoke", help="revoke an API key: it gets 401 from now on")
    revoke.add_argument("id", help=KEY_ID_HELP)
    revoke.set_defaults(run=keys_revoke)
    key_limit = keys.add_parser("set-limit", help="give a key a rate limit (and bucket) of its own")
    key_limit.add_argument("id", help=KEY_ID_HELP)
    key_limit.add_argument("rate", help=RATE_HELP)
    key_limit.set_defaults(run=keys_set_limit)
    key_clear = keys.add_parser("clear-limit", help="count a key in its tenant's limit again")
    key_clear.add_argument("id", help=KEY_ID_HELP)
    key_clear.set_defaults(run=keys_set_limit, rate=None)

    tenants = commands.add_parser("tenants", help="tenants' rate limits, and deleting a tenant").add_subparsers(
        dest="tenants_command", required=True)
    show = tenants.add_parser("show", help="a tenant's rate limit in effect and its keys")
    show.add_argument("tenant", help="the tenant's id (a key's TENANT in `memex keys list`)")
    show.set_defaults(run=tenants_show)
    tenant_limit = tenants.add_parser("set-limit", help="override MEMEX_RATE_LIMIT for a tenant")
    tenant_limit.add_argument("tenant", help="the tenant's id")
    tenant_limit.add_argument("rate", help=RATE_HELP)
    tenant_limit.set_defaults(run=tenants_set_limit)
    tenant_clear = tenants.add_parser("clear-limit", help="the tenant follows MEMEX_RATE_LIMIT again")
    tenant_clear.add_argument("tenant", help="the tenant's id")
    tenant_clear.set_defaults(run=tenants_set_limit, rate=None)
    remove = tenants.add_parser("delete", help="erase everything of a tenant's and revoke its keys (a customer "
                                "who leaves); asks first")
    remove.add_argument("tenant", help="the tenant's id")
    remove.add_argument("--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)")
    remove.set_defaults(run=tenants_delete)

    commands.add_parser("migrate", help="apply pending database migrations").set_defaults(run=migrate)

    run = commands.add_parser("invoke", help="run one Lambda handler in-process on a sample event")
    run.add_argument("function", help="folder name under functions/, e.g. ingest")
    run.add_argument("event", help="path to an event JSON file, e.g. events/ingest_post_turn.json")
    run.add_argument("--api-key", default=os.environ.get("MEMEX_API_KEY", ""),
                     help="defaults to $MEMEX_API_KEY, which keeps the key out of the process list")
    run.add_argument("--drain", action="store_true", help="then run the workers until the queues are empty")
    run.set_defaults(run=invoke)

    fill = commands.add_parser("backfill", help="import a JSON Lines file of turns, or re-embed / re-extract")
    fill.add_argument("file", nargs="?", help="JSON Lines, one turn per line as POST /v1/turns takes it "
                      "(user_id, session_id, messages, and its timestamp to keep when it was said)")
    _tenant_argument(fill, "the tenant to import into or work on")
    fill.add_argument("--user", help="only this user's data: their memories or turns (re-embed / re-extract), "
                                     "their lines of FILE (another user's line fails, named by its line number)")
    fill.add_argument("--resume", metavar="BACKFILL_ID",
                      help="go on with this job from the chunk it stopped at (a killed or interrupted command; "
                           "the job's status says stalled or failed), instead of starting a new one")
    fill.add_argument("--progress", type=float, default=5.0, metavar="SECONDS",
                      help="print the job's counts to stderr while it runs, when they changed, every SECONDS "
                           "at most (default: %(default)s; 0: only the answer at the end)")
    which = fill.add_mutually_exclusive_group()
    which.add_argument("--reembed", action="store_true", help="recompute every memory's embedding")
    which.add_argument("--reextract", action="store_true", help="run extraction again over stored turns")
    fill.set_defaults(run=backfill)

    out = commands.add_parser("export", help="write a user's turns as JSON Lines, as `memex backfill` imports them "
                              "(the user's data to take out, to restore into the same user, or to move to another "
                              "user or data directory)")
    out.add_argument("--user", required=True, help="the user whose turns to export")
    _tenant_argument(out, "the user's tenant")
    out.add_argument("--agent", help="only the turns this agent sent")
    out.add_argument("--as-user", metavar="USER",
                     help="write the lines for this user instead, so that `memex backfill` imports them as theirs")
    out.add_argument("--out", metavar="FILE", help="the file to write (default: stdout); written whole or not at all")
    out.set_defaults(run=export)

    merge = commands.add_parser("consolidate", help="summarise old episodic memories of users over the threshold, now")
    _tenant_argument(merge, "the tenant whose users to consolidate")
    merge.add_argument("--user", help="only this user (if over the threshold)")
    merge.add_argument("--threshold", type=int, help="active episodic memories a user must exceed "
                                                      "(default MEMEX_CONSOLIDATION_THRESHOLD)")
    merge.add_argument("--min-age-days", type=float, help="only memories said at least this long ago "
                                                           "(default MEMEX_CONSOLIDATION_MIN_AGE_DAYS)")
    merge.set_defaults(run=consolidate)

    stdio = commands.add_parser("mcp", help="the MCP server over stdio (for Claude Desktop, Cline, Zed): a bridge "
                                "to a running server's /mcp, with the key in $MEMEX_API_KEY")
    stdio.add_argument("--url", default=os.environ.get("MEMEX_MCP_URL") or MCP_URL,
                       help=f"the server's MCP endpoint (default: $MEMEX_MCP_URL, else {MCP_URL}, `make dev`'s; "
                            "in AWS the stack's McpUrl)")
    stdio.set_defaults(run=mcp)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    from memex.config import ConfigurationError
    from memex.errors import InvalidInput, NotFound
    from memex.rate_limit import InvalidRate

    try:
        args.run(args)
    except (ConfigurationError, InvalidRate, InvalidInput, InvalidDuration, NotFound) as exc:
        raise SystemExit(f"memex: {getattr(exc, 'message', exc)}") from None


if __name__ == "__main__":
    main()
