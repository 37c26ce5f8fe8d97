"""Cold start of every Lambda handler: import time, first and second request, in fresh interpreters.

    PYTHONPATH=.:shared python -m bench.coldstart [--runs 3] [--source DIR ...]

`--source` measures the handlers of other checkouts too (say a worktree of the previous commit,
`git worktree add /tmp/before HEAD~1`), against the same database, interleaved run by run, and
prints each checkout's table and the ratios of import + first call.

One embedded Postgres (migrated) and one loopback moto SQS are started and seeded (an API key,
a processed turn for the sample events' user, queued turns and supersession jobs for the
workers). Then, for each handler and run, a fresh interpreter
  - imports functions/<name>/app.py under `python -X importtime` (total, and the top-level
    packages that took the most time of their own), and
  - in another fresh interpreter, imports it again (timed without -X importtime) and calls its
    handler twice on its sample event from events/, as tests/test_handlers.py does: the first
    call builds the Context, connects, and loads what the request needs; the second is warm.
It also records whether the embedding model was loaded, and when: at import (the handlers that
embed, with MEMEX_EMBEDDER_AT_INIT=true in the environment) or by a call. Import + first call is a
cold invocation's total; the first call alone is what a request waits for once init is off its path
(provisioned concurrency, SnapStart). Figures are medians over the runs, in milliseconds.

Apart from the handlers, the first offline extraction: in a fresh interpreter, the first extraction of
a short turn by the offline rules (which load at that first use: their modules imported, the words each
pattern requires read, the patterns the turn may match compiled) and a second one, wall and CPU time.
Every process that extracts pays it once: an extract worker, a `?wait=true` ingest, `make dev`'s first
turn, a test process.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ROOT / "events"

# handler -> its sample event, in the order of the table
HANDLERS = {
    "ingest": "ingest_post_turn",
    "search": "search_post",
    "recall": "recall_post",
    "cleanup": "cleanup_health",
    "extract_worker": "extract_worker",
    "supersede_worker": "supersede_worker",
    "backfill_worker": "backfill_worker",
    "sweep": "sweep",
    "migrate": "migrate_create",
}
EMBEDDING_MODULES = ("memex.embeddings.minilm", "tokenizers", "safetensors")
TOP_CONTRIBUTORS = 4
FIRST_EXTRACTION = "first_extraction"  # the --child that extracts, beside the handlers
SHORT_TURNS = ("I just started at Notion as a PM.", "My sister moved to Lisbon last year.")


def load_event(name: str) -> dict:
    return json.loads((EVENTS / f"{name}.json").read_text())


# ------------------------------------------------------------------ child: one fresh interpreter


def _with_body(event: dict, body: dict) -> dict:
    event = copy.deepcopy(event)
    event["body"] = json.dumps(body)
    event["headers"]["content-length"] = str(len(event["body"].encode()))
    return event


def _sqs_event(name: str, body: str) -> dict:
    event = load_event(name)
    event["Records"][0]["body"] = body
    event["Records"][0]["messageId"] = str(uuid.uuid4())
    return event


def child_events(name: str, seed: dict) -> list[dict]:
    """The two events the handler is called with: its sample event, made to fit the seeded data."""
    event = load_event(HANDLERS[name])
    if "headers" in event:
        event["headers"]["authorization"] = f"Bearer {seed['key']}"
    if name == "ingest":
        # Two different turns: the same one twice would be answered from the first.
        body = json.loads(event["body"])
        events = []
        for _ in range(2):
            marker = uuid.uuid4().hex[:8]
            message = dict(body["messages"][0], content=f"{body['messages'][0]['content']} ({marker})",
                           metadata={"client_msg_id": marker})
            events.append(_with_body(event, dict(body, messages=[message])))
        return events
    if name == "extract_worker":
        return [_sqs_event(name, json.dumps({"tenant_id": seed["tenant"], "turn_id": t})) for t in seed["extract"]]
    if name == "supersede_worker":
        return [_sqs_event(name, body) for body in seed["supersede"]]
    if name == "backfill_worker":
        return [_sqs_event(name, json.dumps({"kind": "import", "tenant_id": seed["tenant"],
                                             "backfill_id": f"bf-{uuid.uuid4().hex[:8]}",
                                             "path": str(EVENTS / "backfill_sample.jsonl")}))
                for _ in range(2)]
    return [event, copy.deepcopy(event)]


def run_child(name: str, seed: dict) -> dict:
    """Runs in the fresh interpreter: import, then two calls, each timed."""
    import importlib

    events = child_events(name, seed)
    server = None
    if name == "migrate":
        server = _response_url_server()
        for event in events:
            event["ResponseURL"] = f"http://127.0.0.1:{server.server_address[1]}/response"

    started = time.perf_counter()
    module = importlib.import_module(f"functions.{name}.app")
    import_ms = (time.perf_counter() - started) * 1000
    imported_at_import = [m for m in EMBEDDING_MODULES if m in sys.modules]
    minilm = sys.modules.get("memex.embeddings.minilm")
    model_at_import = bool(minilm is not None and minilm._model is not None)

    from infra.local.lambda_context import LocalLambdaContext

    calls = []
    for event in events:
        started = time.perf_counter()
        answer = module.handler(event, LocalLambdaContext(name))
        calls.append((time.perf_counter() - started) * 1000)
        _check(name, answer)
    minilm = sys.modules.get("memex.embeddings.minilm")
    if server is not None:
        server.server_close()
    return {
        "import_ms": import_ms,
        "first_ms": calls[0],
        "second_ms": calls[1],
        "embedding_modules_at_import": imported_at_import,
        "tokenizer_imported": "tokenizers" in sys.modules,
        "model_loaded": bool(minilm is not None and minilm._model is not None),
        "model_at_import": model_at_import,
    }


def first_extraction() -> dict:
    """Runs in the fresh interpreter: two offline extractions of a short turn, each timed."""
    from memex.extraction import OfflineOnFirstUse

    extractor = OfflineOnFirstUse()
    timed = []
    for content in SHORT_TURNS:
        wall, cpu = time.perf_counter(), time.process_time()
        found = extractor.extract([{"id": "m1", "role": "user", "content": content}], [])
        timed.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
        if not found:
            raise RuntimeError(f"the offline extractor found nothing in {content!r}")
    (first_ms, first_cpu_ms), (second_ms, second_cpu_ms) = timed
    return {"first_ms": first_ms, "first_cpu_ms": first_cpu_ms, "second_ms": second_ms, "second_cpu_ms": second_cpu_ms}


def _check(name: str, answer) -> None:
    """A cold start that answers with an error measures nothing."""
    if isinstance(answer, dict) and "statusCode" in answer:
        if answer["statusCode"] >= 300:
            raise RuntimeError(f"{name} answered {answer['statusCode']}: {answer.get('body')}")
    elif isinstance(answer, dict) and answer.get("batchItemFailures"):
        raise RuntimeError(f"{name} failed records: {answer}")


def _response_url_server():
    """CloudFormation's response URL, on loopback, answering every PUT."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class ResponseUrl(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_PUT(self):
            answer = json.loads(self.rfile.read(int(self.headers["content-length"])))
            if answer["Status"] != "SUCCESS":
                raise RuntimeError(f"migrate answered {answer}")
            self.send_response(200)
            self.end_headers()

    server = HTTPServer(("127.0.0.1", 0), ResponseUrl)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ------------------------------------------------------------------ parent


def _python_env(source: Path) -> dict[str, str]:
    """The checkout's handlers, layer code and local runtime first on the path, as in Lambda."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), str(source / "shared")])}
    return env


def import_profile(source: Path, name: str) -> tuple[float, dict[str, float]]:
    """(total ms, self ms per top-level package) of importing the handler under -X importtime."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import functions.{name}.app"],
                            cwd=source, env=_python_env(source), capture_output=True, text=True, check=True)
    total = 0.0
    per_package: dict[str, float] = defaultdict(float)
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if not match:
            continue
        self_us, cumulative_us, _, module = match.groups()
        per_package[module.lstrip().split(".")[0]] += int(self_us) / 1000
        if module == f"functions.{name}.app":
            total = int(cumulative_us) / 1000
    return total, per_package


class Seed:
    """The seeded data the sample events are pointed at: a tenant and its key, a processed turn
    for the events' user, and, fresh for each run, what the workers are given."""

    def __init__(self) -> None:
        from memex import keys
        from memex_edge.context import get_context

        self.ctx = get_context()
        self.tenant = f"t-coldstart-{uuid.uuid4().hex[:8]}"
        self.key = keys.create_key(self.ctx, self.tenant)
        self._ingest("I just started at Notion as a PM.", wait=True)

    def _ingest(self, content: str, wait: bool) -> str:
        from memex import ingest
        from memex.models import TurnIn

        turn = TurnIn.model_validate({"user_id": "u_alice", "session_id": "s_1",
                                      "messages": [{"role": "user", "content": content}]})
        return ingest.ingest_turn(self.ctx, self.tenant, turn, wait)["turn_id"]

    def for_run(self) -> dict:
        """Two queued turns for the extract worker and two supersession jobs."""
        from memex import pipeline
        from memex.jobs import ExtractionJob

        extract = [self._ingest(f"My sister moved to Lisbon ({uuid.uuid4().hex[:6]}).", wait=False)
                   for _ in range(2)]
        supersede = []
        for city in ("Porto", "Madrid"):
            queued = self._ingest(f"I live in {city} now.", wait=False)
            follow_up = pipeline.extract(self.ctx, ExtractionJob(tenant_id=self.tenant, turn_id=queued))
            if follow_up is None:
                raise RuntimeError("the offline extractor found nothing in the seed turn")
            supersede.append(follow_up.to_json())
        return {"tenant": self.tenant, "key": self.key, "extract": extract, "supersede": supersede}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh interpreters per handler (medians)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, action="append", default=[],
                        help="another checkout whose handlers to measure too (repeatable)")
    args = parser.parse_args()
    if args.child == FIRST_EXTRACTION:
        print(json.dumps(first_extraction()))
        return
    if args.child:
        print(json.dumps(run_child(args.child, json.loads(sys.stdin.read()))))
        return
    sources = [ROOT, *(s.resolve() for s in args.source)]

    import logging

    from infra.local.runtime import LocalRuntime

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's line per SQS request
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ["MEMEX_REQUIRE_API_KEY"] = "true"
    with tempfile.TemporaryDirectory() as home:
        runtime = LocalRuntime(Path(home)).start()
        try:
            seed = Seed()
            results = {source: {} for source in sources}
            for name in HANDLERS:
                profiles = defaultdict(list)
                children = defaultdict(list)
                for _ in range(args.runs):
                    for source in sources:
                        profiles[source].append(import_profile(source, name))
                        children[source].append(measure_child(source, name, seed.for_run()))
                for source in sources:
                    results[source][name] = summarise(profiles[source], children[source])
                print(f"  {name} done", file=sys.stderr)
            extractions = defaultdict(list)
            for _ in range(args.runs):
                for source in sources:
                    extractions[source].append(measure_child(source, FIRST_EXTRACTION, {}))
        finally:
            runtime.stop()
    for source in sources:
        print_table(source, results[source], args.runs)
        print_extraction(extractions[source])
    for source in sources[1:]:
        print(f"\n{ROOT.name} / {source}: import + 1st call (a cold invocation), and the 1st call alone:")
        for name, row in results[ROOT].items():
            before = results[source][name]
            total, total_before = row["import_ms"] + row["first_ms"], before["import_ms"] + before["first_ms"]
            print(f"  {name:<17} {total:>6.0f} / {total_before:>6.0f} ms = {total / total_before:.2f}x"
                  f"   {row['first_ms']:>6.0f} / {before['first_ms']:>6.0f} ms = {row['first_ms'] / before['first_ms']:.2f}x")
        for column in ("first_ms", "first_cpu_ms"):
            now = statistics.median(e[column] for e in extractions[ROOT])
            then = statistics.median(e[column] for e in extractions[source])
            print(f"  {'1st extraction' if column == 'first_ms' else '  its CPU':<17} {now:>6.0f} / {then:>6.0f} ms = "
                  f"{now / then:.2f}x")


def measure_child(source: Path, name: str, seed: dict) -> dict:
    # This file run by path (the other checkout may have no bench/coldstart.py), without putting
    # its folder on sys.path.
    code = f"import runpy; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
    result = subprocess.run([sys.executable, "-c", code, "--child", name], cwd=source,
                            env=_python_env(source), input=json.dumps(seed), capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{name} ({source}): the child failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def summarise(profiles: list[tuple[float, dict[str, float]]], children: list[dict]) -> dict:
    packages: dict[str, list[float]] = defaultdict(list)
    for _, per_package in profiles:
        for package, ms in per_package.items():
            packages[package].append(ms)
    top = sorted(((statistics.median(v), k) for k, v in packages.items()), reverse=True)[:TOP_CONTRIBUTORS]
    return {
        "importtime_ms": statistics.median(total for total, _ in profiles),
        "top": top,
        "import_ms": statistics.median(c["import_ms"] for c in children),
        "first_ms": statistics.median(c["first_ms"] for c in children),
        "second_ms": statistics.median(c["second_ms"] for c in children),
        "at_import": sorted({m for c in children for m in c["embedding_modules_at_import"]}),
        "tokenizer": any(c["tokenizer_imported"] for c in children),
        "model": ("import" if any(c["model_at_import"] for c in children)
                  else "call" if any(c["model_loaded"] for c in children) else "no"),
    }


def print_extraction(runs: list[dict]) -> None:
    def median(column: str) -> float:
        return statistics.median(run[column] for run in runs)

    print(f"first offline extraction of a short turn, fresh interpreter, medians of {len(runs)}: "
          f"{median('first_ms'):.0f} ms wall, {median('first_cpu_ms'):.0f} ms CPU; the second "
          f"{median('second_ms'):.0f} ms wall, {median('second_cpu_ms'):.0f} ms CPU")


def print_table(source: Path, rows: dict[str, dict], runs: int) -> None:
    print(f"\n{source}: cold start per handler, medians of {runs} fresh interpreters (ms)")
    header = (f"{'handler':<17} {'importtime':>10} {'import':>7} {'1st call':>9} {'2nd call':>9} "
              f"{'import+1st':>10}  {'tokenizer':>9} {'model':>6}  biggest contributors (self ms, -X importtime)")
    print(header)
    print("-" * len(header))
    for name, row in rows.items():
        top = ", ".join(f"{package} {ms:.0f}" for ms, package in row["top"])
        print(f"{name:<17} {row['importtime_ms']:>10.0f} {row['import_ms']:>7.0f} {row['first_ms']:>9.0f} "
              f"{row['second_ms']:>9.0f} {row['import_ms'] + row['first_ms']:>10.0f}  "
              f"{'yes' if row['tokenizer'] else 'no':>9} {row['model']:>6}  {top}")
    print("tokenizer: whether the tokenizers package was imported by the end of the second call; model: "
          "whether the MiniLM weights were loaded then, at import or by a call")


if __name__ == "__main__":
    main()
