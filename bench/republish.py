"""The sweep's re-publish of lost turns: how many SQS requests and how long for N stuck turns, on an
in-process local runtime (embedded Postgres, SQS on a loopback moto server).

    python -m bench.republish [--turns 200] [--rounds 3] [--out FILE.json]

Each round stores N turns whose publish was lost (stored, never sent: `queued`), times one
`memex.ingest.sweep` over them, then takes their messages off the queue and marks the turns processed, so that every
round starts from the same state. The requests are counted from botocore's own events. Run it on two
checkouts (PYTHONPATH) one after the other to compare them: it calls no function a version lacks.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from bench.service import quiet_in_process_runtime

TENANT = "bench-republish"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.republish")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    quiet_in_process_runtime()
    import boto3

    # Registered on the default session before any client is made: every SQS client made from it counts.
    requests: Counter = Counter()
    boto3.setup_default_session()
    boto3.DEFAULT_SESSION.events.register("before-call.sqs", lambda model, **_: requests.update([model.name]))
    from infra.local.runtime import LocalRuntime

    rounds = []
    with tempfile.TemporaryDirectory(prefix="memex-bench-republish-") as home:
        runtime = LocalRuntime(Path(home) / "memex").start()
        try:
            for _ in range(args.rounds):
                rounds.append(_round(runtime, args.turns, requests))
        finally:
            runtime.stop()
    report = {"turns": args.turns, "rounds": rounds,
              "seconds_median": sorted(r["seconds"] for r in rounds)[len(rounds) // 2]}
    print(json.dumps(report))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


def _round(runtime, turns: int, requests: Counter) -> dict:
    from memex.db import tenants as tenant_rows
    from memex.db import turns as turn_rows
    from memex.ingest import sweep
    from memex.models import TurnIn
    from memex_edge.context import get_context

    ctx = get_context()
    ids = []
    with ctx.db.transaction() as conn:
        tenant_rows.ensure_tenant(conn, TENANT)
        for n in range(turns):
            turn = TurnIn(user_id=f"user-{n % 20}", session_id="s1",
                          messages=[{"role": "user", "content": f"My dog number {n} is called Rex."}])
            turn_id, _ = turn_rows.insert_turn(conn, TENANT, turn, datetime.now(timezone.utc))
            ids.append(turn_id)
    requests.clear()
    started = time.perf_counter()
    sent = sweep(ctx, older_than_seconds=0)
    seconds = time.perf_counter() - started
    counted = dict(requests)
    client, url = runtime.sqs_client(), runtime.queues["memex-extraction"]["url"]
    while messages := client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages"):
        client.delete_message_batch(QueueUrl=url, Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                                                           for n, m in enumerate(messages)])
    with ctx.db.transaction() as conn:
        turn_rows.finish(conn, TENANT, ids)
    return {"republished": sent, "seconds": round(seconds, 4), "requests": counted}


if __name__ == "__main__":
    main()
