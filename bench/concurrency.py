"""Search throughput alone and under 8 concurrent clients, and the ingest time of 16 small turns,
for each embedder variant, each on a fresh service.

    .venv/bin/python -m bench.concurrency [--data ../shared/bench/locomo-dev.json]
        [--variants before,blas1,coalesce,blas1+coalesce,default] [--lines 120] [--searches 60]

Per variant it starts `python -m infra.local` on a fresh data dir with only that variant's
settings changed from the defaults, ingests `--lines` lines for one user (the first LoCoMo
conversation's, one `POST /v1/turns?wait=true` per session; without --data a synthetic
conversation), runs `--searches` hybrid searches one after another, then the same searches twice
over from 8 concurrent clients, then posts 16 one-line turns from 8 clients and waits until the
workers have processed them all. Ratios are against the first variant listed.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Sequence

import httpx

from bench import api
from bench.embedder import make_sentences
from bench.locomo import build_turns, percentile
from bench.service import local_server

# Each variant's settings; everything else is the default. "before" is the code before the fix.
VARIANTS: dict[str, dict[str, str]] = {
    "before": {"MEMEX_EMBEDDINGS_BLAS_THREADS": "0", "MEMEX_EMBEDDINGS_COALESCE": "false"},
    "blas1": {"MEMEX_EMBEDDINGS_BLAS_THREADS": "1", "MEMEX_EMBEDDINGS_COALESCE": "false"},
    "coalesce": {"MEMEX_EMBEDDINGS_BLAS_THREADS": "0", "MEMEX_EMBEDDINGS_COALESCE": "true"},
    "blas1+coalesce": {"MEMEX_EMBEDDINGS_BLAS_THREADS": "1", "MEMEX_EMBEDDINGS_COALESCE": "true"},
    "blas2+coalesce": {"MEMEX_EMBEDDINGS_BLAS_THREADS": "2", "MEMEX_EMBEDDINGS_COALESCE": "true"},
    "default": {},
}
# What a user's shell may export that would decide the BLAS threads instead of the variant.
BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
CLIENTS = 8
SMALL_TURNS = 16
USER = "bench-concurrency"


def conversation(data: Path | None, lines: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The turn bodies holding the first `lines` lines of one conversation, and its questions."""
    if data is None:
        sentences = make_sentences(lines)
        bodies = [{"user_id": USER, "session_id": f"s{start // 20}",
                   "messages": [{"role": "user", "content": s} for s in sentences[start:start + 20]]}
                  for start in range(0, lines, 20)]
        questions = [f"What about {' '.join(s.split()[1:6])}?" for s in make_sentences(lines, seed=11)]
        return bodies, questions
    sample = json.loads(data.read_text())[0]
    bodies, left = [], lines
    for body in build_turns(sample, USER):
        if left <= 0:
            break
        body["messages"] = body["messages"][:left]
        left -= len(body["messages"])
        bodies.append(body)
    return bodies, [qa["question"] for qa in sample["qa"]]


def _check(response: httpx.Response) -> dict[str, Any]:
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.method} {response.request.url.path}: "
                           f"{response.status_code} {response.text[:500]}")
    return response.json()


def _search(client: httpx.Client, query: str) -> float:
    started = time.perf_counter()
    _check(client.post("/v1/search", json={"user_id": USER, "query": query}))
    return time.perf_counter() - started


def _figures(latencies: Sequence[float], wall: float) -> dict[str, float]:
    return {"rps": len(latencies) / wall, "p50_ms": 1000 * percentile(latencies, 50),
            "p95_ms": 1000 * percentile(latencies, 95)}


def _concurrently(url: str, jobs: Sequence[Any], work) -> tuple[list[Any], float]:
    """Runs `work(client, job)` for every job from CLIENTS threads, each with its own client."""
    local = threading.local()

    def run(job: Any) -> Any:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, timeout=600)
        return work(local.client, job)

    started = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        results = list(pool.map(run, jobs))
    return results, time.perf_counter() - started


def _small_turn(client: httpx.Client, i: int) -> str:
    body = {"user_id": USER, "session_id": "small",
            "messages": [{"role": "user", "content": f"Small note {i}: my locker number is {100 + i}."}]}
    return _check(client.post("/v1/turns", json=body))["turn_id"]


def _wait_processed(client: httpx.Client, turn_ids: Sequence[str], timeout: float = 600) -> None:
    statuses = api.wait_processed(client.get, list(turn_ids), timeout, interval=0.1)
    if not_processed := {t: s for t, s in statuses.items() if s != "processed"}:
        raise RuntimeError(f"small turns not processed (their status after at most {timeout:.0f} s): {not_processed}")


def run_variant(name: str, bodies: Sequence[dict[str, Any]], queries: Sequence[str]) -> dict[str, Any]:
    with local_server(VARIANTS[name], defaults_only=True) as url, \
            httpx.Client(base_url=url, timeout=600) as client:
        started = time.perf_counter()
        for body in bodies:
            _check(client.post("/v1/turns?wait=true", json=body))
        ingest_s = time.perf_counter() - started
        _search(client, "warm-up")

        started = time.perf_counter()
        sequential = [_search(client, q) for q in queries]
        sequential_wall = time.perf_counter() - started
        concurrent, concurrent_wall = _concurrently(url, list(queries) * 2, _search)

        started = time.perf_counter()
        turn_ids, _ = _concurrently(url, range(SMALL_TURNS), _small_turn)
        _wait_processed(client, turn_ids)
        small_s = time.perf_counter() - started
    return {"variant": name, "ingest_s": ingest_s, "sequential": _figures(sequential, sequential_wall),
            "concurrent": _figures(concurrent, concurrent_wall), "small_turns_s": small_s}


def render(rows: Sequence[dict[str, Any]]) -> str:
    base = rows[0]
    lines = [f"| variant | ingest s | 1 client RPS | p50 ms | p95 ms | {CLIENTS} clients RPS | p50 ms | p95 ms "
             f"| {SMALL_TURNS} small turns s | {CLIENTS}-client RPS vs {base['variant']} |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, c = r["sequential"], r["concurrent"]
        lines.append(f"| {r['variant']} | {r['ingest_s']:.1f} | {s['rps']:.1f} | {s['p50_ms']:.0f} | {s['p95_ms']:.0f} "
                     f"| {c['rps']:.1f} | {c['p50_ms']:.0f} | {c['p95_ms']:.0f} | {r['small_turns_s']:.1f} "
                     f"| {c['rps'] / base['concurrent']['rps']:.2f}x |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="a LoCoMo-format JSON file (default: a synthetic conversation)")
    parser.add_argument("--variants", default="before,default", help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--lines", type=int, default=120, help="lines ingested for the one user")
    parser.add_argument("--searches", type=int, default=60, help="searches in the sequential phase")
    args = parser.parse_args(argv)
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown or not names:
        parser.error(f"--variants: unknown {unknown}, choose among {', '.join(VARIANTS)}")
    for var in BLAS_ENV:
        os.environ.pop(var, None)

    bodies, questions = conversation(args.data, args.lines)
    queries = [questions[i % len(questions)] for i in range(args.searches)]
    rows = []
    for name in names:
        row = run_variant(name, bodies, queries)
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(render(rows))
    return rows


if __name__ == "__main__":
    main()
