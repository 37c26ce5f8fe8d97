"""Load test of the running local runtime beside an S2-style pipeline, on the same data,
embedder and Postgres, in one run.

    .venv/bin/python -m bench.load --data ../shared/bench/locomo-dev.json [--users 50]
        [--spawn-rate 10] [--duration 60] [--curve 5,10,20,50,80] [--curve-duration 20]
        [--warm-up 5] [--levers coalesce-off,processes-2] [--plot load.png] [--out load.json]

One embedded Postgres under a fresh temporary home serves both pipelines. memex
(`python -m infra.local`, default settings) ingests the conversations through `POST /v1/turns`
and answers every LoCoMo question with evidence (bench.locomo's protocol: top_k 50, asked as of
the conversation's end) for its recall@10; S2's table is then filled with memex's memories of
the same users (the same texts, vectors and times) and bench/load/s2.py serves it in a process
of its own, answering the same questions. Each pipeline runs the memex seed's scenario
(bench/load/scenario.py: `--users` virtual users spawned at `--spawn-rate`/s for `--duration`
s, 100-300 ms think time, a quarter of the requests writes), then one shorter run per point of
the saturation curve, the two pipelines' runs taken in turns; after each run the benchmark waits
until memex's workers have processed every turn written. Each `--levers` variant is memex on the
same database with that setting changed, its recall@10 measured as memex's, under the main
scenario, followed by a run of the default settings to compare it with. Without --data, small synthetic conversations (smoke test).
The LoCoMo file is read where it is, never copied. With --plot, draws the saturation curve.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import httpx

from bench.load import report, s2
from bench.load.data import Replay, conversations, user_id
from bench.load.scenario import Pipeline, Scenario, run
from bench.locomo import TOP_K, distinct_dia_ids, evaluate, ingest, recall_at, reference_time, scored_questions
from bench.service import local_server, serve

TAG = "load"
TENANT = "default"  # memex's tenant for requests without a key (open mode)
RECALL_K = 10
WARM_UP_USERS = 8
SETTLE_TIMEOUT = 300
MAX_CONNECTIONS = 400
# Each lever: the memex settings that differ from the defaults.
LEVERS: dict[str, dict[str, str]] = {
    "coalesce-off": {"MEMEX_EMBEDDINGS_COALESCE": "false"},
    "processes-2": {"MEMEX_LOCAL_HTTP_PROCESSES": "2"},
    "query-cache": {"MEMEX_EMBEDDINGS_QUERY_CACHE": "4096"},
    "prepared": {"MEMEX_DB_PREPARED_STATEMENTS": "true"},
    "keyword-first": {"MEMEX_SEARCH_KEYWORD_FIRST": "true"},
}


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    if response.status_code >= 400:
        raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:500]}")
    return response.json()


def memex_recall(url: str, samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    with httpx.Client(base_url=url, timeout=600) as client:
        rows, _, _ = evaluate(client, samples, TAG, ["hybrid"])
    return {"recall@10": _mean([r["modes"]["hybrid"]["recall"][RECALL_K] for r in rows]), "questions": len(rows)}


def dia_ids_of_memories(dsn: str, users: Sequence[str]) -> dict[str, str]:
    """memory id -> the dia_id of the message it came from (what memex's results' sources say)."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            """SELECT m.id, msg.metadata->>'dia_id' FROM memories m
               JOIN messages msg ON msg.tenant_id = m.tenant_id AND msg.id = m.source_message_id
               WHERE m.tenant_id = %s AND m.user_id = ANY(%s)""", (TENANT, list(users))).fetchall()
    return {memory_id: dia_id for memory_id, dia_id in rows if dia_id}


def s2_recall(url: str, samples: Sequence[dict[str, Any]], dia_ids: dict[str, str],
              alpha: float = s2.ALPHA) -> dict[str, Any]:
    """The same questions, top_k and reference time as memex_recall, scored the same way."""
    recalls = []
    with httpx.Client(base_url=url, timeout=600) as client:
        for sample in samples:
            for qa in scored_questions(sample)[0]:
                answer = _post(client, "/s2/memories/search", {
                    "user_id": user_id(TAG, sample), "query": qa["question"], "top_k": TOP_K,
                    "reference_time": reference_time(sample), "alpha": alpha})
                as_sources = [{"sources": [{"metadata": {"dia_id": dia_ids.get(r["id"])}}]} for r in answer["results"]]
                recalls.append(recall_at(qa["evidence"], distinct_dia_ids(as_sources), RECALL_K))
    return {"recall@10": _mean(recalls), "questions": len(recalls)}


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def room_for_servers(postgres: Any) -> None:
    """Up to three servers share this Postgres at once (memex, S2 or a lever's memex), and each
    process keeps one connection per request thread it has used (up to 40): more than the
    default 100 connections, which are for one server."""
    import psycopg

    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET max_connections = {MAX_CONNECTIONS}")
    postgres.pg_ctl("restart", "-w", "-m", "fast")
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        if int(conn.execute("SHOW max_connections").fetchone()[0]) != MAX_CONNECTIONS:
            raise RuntimeError("the embedded Postgres did not take max_connections")


def backlog(dsn: str) -> int:
    import psycopg

    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT count(*) FROM turns WHERE status IN ('queued', 'processing')").fetchone()[0]


def measured(pipeline: Pipeline, scenario: Scenario, postgres: Any, seed: int = 1) -> dict[str, Any]:
    """One run, then the wait until memex's workers have processed every turn it wrote: a write is
    answered before its extraction, whose work must not spill into the next run. The CPU the
    pipeline's server and Postgres spent, per request, counts that backlog too: the S2-style
    pipeline does the same work inside its requests."""
    before = cpu_seconds(pipeline.url, postgres.data_dir)
    result = run(pipeline, scenario, seed)
    result["backlog_after_s"], result["backlog_left"] = settle(postgres.url)
    after = cpu_seconds(pipeline.url, postgres.data_dir)
    requests = result["endpoints"]["total"]["requests"] or 1
    if before and after:
        result["cpu_ms_per_request"] = {side: round(1000 * (after[side] - before[side]) / requests, 1)
                                        for side in after}
    print(report.render_run(result), flush=True)
    return result


def cpu_seconds(url: str, data_dir: Path) -> dict[str, float]:
    """CPU seconds (user + system) spent so far by the server listening at `url` (with its child
    processes) and by the Postgres of `data_dir` (postmaster and backends). A process that ended
    counts through its parent's times of children it reaped (a backend whose connection closed,
    which alone would make the total fall). Empty where this user
    may not see which process listens (psutil needs the rights to read other processes' sockets)."""
    import psutil

    port = int(url.rsplit(":", 1)[1])
    try:
        listeners = {c.pid for c in psutil.net_connections(kind="tcp")
                     if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid}
    except psutil.AccessDenied:
        return {}
    if len(listeners) != 1:
        return {}
    [listener] = listeners
    postmaster = int((Path(data_dir) / "postmaster.pid").read_text().split()[0])

    def tree(pid: int) -> float:
        total = 0.0
        root = psutil.Process(pid)
        for process in [root, *root.children(recursive=True)]:
            try:
                times = process.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total

    return {"server": tree(listener), "postgres": tree(postmaster)}


def settle(dsn: str) -> tuple[float, int]:
    """Waits (at most SETTLE_TIMEOUT) until no turn waits for the workers: (seconds, turns left)."""
    started = time.monotonic()
    while backlog(dsn) and time.monotonic() - started < SETTLE_TIMEOUT:
        time.sleep(0.5)
    return round(time.monotonic() - started, 1), backlog(dsn)


def _warm_up(pipeline: Pipeline, seconds: float) -> None:
    """Unmeasured: each server process loads the model on its first embedding, and a process
    gets its first request only once enough connections are open."""
    import random

    with httpx.Client(base_url=pipeline.url, timeout=120) as client:
        for make in (pipeline.search, pipeline.write):
            request = make(random.Random(0))
            _post(client, request.path, request.body)
    if seconds > 0:
        run(pipeline, Scenario(users=WARM_UP_USERS, spawn_rate=WARM_UP_USERS, duration=seconds), seed=0)


def _curve(text: str) -> list[int]:
    return [int(users) for users in text.split(",") if users.strip()]


def _levers(text: str) -> list[str]:
    levers = [lever.strip() for lever in text.split(",") if lever.strip()]
    unknown = sorted(set(levers) - set(LEVERS))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {unknown}, choose among {', '.join(LEVERS)}")
    return levers


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="a LoCoMo-format JSON file (default: small synthetic conversations)")
    parser.add_argument("--limit-conversations", type=int, help="only the first N conversations")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--spawn-rate", type=float, default=10.0)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of the main scenario")
    parser.add_argument("--curve", type=_curve, default="5,10,20,50,80", help="users at each point of the saturation curve")
    parser.add_argument("--curve-duration", type=float, default=20.0, help="seconds per point of the curve")
    parser.add_argument("--warm-up", type=float, default=5.0, help="unmeasured seconds of load before each pipeline's runs")
    parser.add_argument("--levers", type=_levers, default="", help=f"comma-separated memex variants, of {', '.join(LEVERS)}")
    parser.add_argument("--plot", type=Path,
                        help="draw the plot here (none by default: the README's is docs/perf/load.png)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    scenario = Scenario(users=args.users, spawn_rate=args.spawn_rate, duration=args.duration)
    samples = conversations(args.data, args.limit_conversations)
    replay = Replay(samples, TAG)
    started = time.perf_counter()

    from infra.local import embedded_postgres
    from memex.config import load_settings

    results: dict[str, Any] = {"data": str(args.data) if args.data else "synthetic", "conversations": len(samples),
                               "scenario": vars(scenario) | {"think": list(scenario.think)}}
    with tempfile.TemporaryDirectory(prefix="memex-load-") as home:
        postgres = embedded_postgres.start(Path(home) / "pgdata")
        room_for_servers(postgres)
        database = {"DATABASE_URL": postgres.url}
        try:
            with local_server(database, defaults_only=True) as memex_url:
                with httpx.Client(base_url=memex_url, timeout=httpx.Timeout(600, connect=10)) as client:
                    results["ingest_s"] = round(ingest(client, samples, TAG), 1)
                results["memex_recall"] = memex_recall(memex_url, samples)
                results["s2_rows"] = s2.load_memories(postgres.url, TENANT, replay.users, load_settings().embedding_dim)

                with serve(["-m", "bench.load.s2"], 0, Path(home), database, defaults_only=True) as s2_url:
                    dia_ids = dia_ids_of_memories(postgres.url, replay.users)
                    results["s2_recall"] = s2_recall(s2_url, samples, dia_ids)
                    # What its recency weight costs it: the same candidates ranked by cosine alone.
                    results["s2_recall_cosine_only"] = s2_recall(s2_url, samples, dia_ids, alpha=1.0)
                    # Taken in turns, each pipeline's runs beside the other's: the machine's other
                    # load drifts less between them.
                    memex, other = replay.memex(memex_url), replay.s2(s2_url)
                    for pipeline in (memex, other):
                        _warm_up(pipeline, args.warm_up)
                    settle(postgres.url)
                    for pipeline in (memex, other):
                        results[pipeline.name] = {"main": measured(pipeline, scenario, postgres), "curve": []}
                    for users in args.curve:
                        point = Scenario(users=users, spawn_rate=max(scenario.spawn_rate, users / 2),
                                         duration=args.curve_duration, think=scenario.think,
                                         write_share=scenario.write_share)
                        for pipeline in (memex, other):
                            results[pipeline.name]["curve"].append(measured(pipeline, point, postgres, seed=users))

                # Each lever beside a run of the default settings just after it.
                results["levers"] = {}
                for lever in args.levers:
                    with local_server({**database, **LEVERS[lever]}, defaults_only=True) as url:
                        variant = replay.memex(url, f"memex {lever}")
                        # a lever may change what a search finds, not only how fast
                        results["levers"][lever] = {"recall": memex_recall(url, samples)}
                        _warm_up(variant, args.warm_up)
                        settle(postgres.url)
                        results["levers"][lever]["variant"] = measured(variant, scenario, postgres)
                    results["levers"][lever]["default"] = measured(memex, scenario, postgres)
        finally:
            postgres.release()

    results["total_s"] = round(time.perf_counter() - started, 1)
    if args.plot:
        report.plot(results, args.plot)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    print()
    print(report.render(results))
    if args.plot:
        print(f"\nplot: {args.plot}")
    return results


if __name__ == "__main__":
    main()
