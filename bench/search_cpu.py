"""A search's CPU beyond the embedding: LoCoMo's questions searched in process, on a kept ingest.

    python -m bench.search_cpu --data ../shared/bench/locomo-dev.json --keep DIR \\
        [--per-conversation 30] [--rounds 4] [--top-k 10] [--profile N] [--source OTHER_CHECKOUT]

DIR is a data dir `python -m bench.locomo --keep DIR` ingested (by any checkout: only its memories
are read). Its Postgres is started here, migrated by this checkout, and searched by a child
process per checkout (this one, and --source's) with that checkout's code first on the path and
every MEMEX_* setting at its default, through `memex.retrieval.search.search`, as of the
conversation's end. Each child first searches every question once, untimed: that pass embeds
every text a search asks the embedder for and keeps the vectors, so the timed passes (blocks)
embed nothing, and it gives the answers: the ids of each question's top 10, in order.

Per search, each block measures the wall time, the process's CPU time (time.process_time: the
child runs nothing else) and the round trips to Postgres (pipelines entered plus statements
executed outside one, counted by wrapping psycopg's). With --source, the two checkouts' blocks
alternate, ABBA round by round (A the --source checkout, B this one), and the report gives B/A of
each round's median CPU and wall time, their median and spread over the rounds: a loaded
machine moves one block against another, so only ratios within one run mean anything. It also
says whether both checkouts gave the same answers. --profile N adds one pass per checkout under
cProfile and prints its N functions of most own time, per search and as a share of the pass.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from bench import locomo
from bench.service import ROOT, RUNTIME_VARS


# ------------------------------------------------------------------ the questions


def questions(samples: Sequence[dict[str, Any]], tag: str, per_conversation: int | None) -> list[dict[str, Any]]:
    """The first `per_conversation` questions with evidence of each conversation, as search requests
    of bench.locomo's user for it, as of the conversation's end."""
    asked = []
    for sample in samples:
        kept, _ = locomo.scored_questions(sample)
        for qa in kept[:per_conversation]:
            asked.append({"user_id": f"{tag}-{sample['sample_id']}", "query": qa["question"],
                          "reference_time": locomo.reference_time(sample)})
    return asked


# ------------------------------------------------------------------ child: one checkout's searches


class Once:
    """The embedder, each text embedded once: the first pass asks, later passes are answered from
    what it kept, so the embedder's time is out of what they measure."""

    def __init__(self, embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, Any] = {}

    def embed_queries(self, texts):
        import numpy as np

        missing = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder.embed_queries(missing)))
        return np.stack([self._vectors[text] for text in texts])

    def embed_query(self, text):
        return self.embed_queries([text])[0]

    def __getattr__(self, name):
        return getattr(self._embedder, name)


class RoundTrips:
    """Counts what reaches Postgres and waits for its answer: each pipeline entered (not one nested
    in another) and each statement executed outside a pipeline."""

    def __init__(self) -> None:
        import psycopg

        self.count = 0
        pipeline, execute = psycopg.Connection.pipeline, psycopg.Cursor.execute

        def counted_pipeline(conn, *args, **kwargs):
            self.count += conn._pipeline is None
            return pipeline(conn, *args, **kwargs)

        def counted_execute(cursor, *args, **kwargs):
            self.count += cursor.connection._pipeline is None
            return execute(cursor, *args, **kwargs)

        psycopg.Connection.pipeline = counted_pipeline
        psycopg.Cursor.execute = counted_execute


class Searcher:
    """One checkout's searches, in the child process."""

    def __init__(self, asked: Sequence[dict[str, Any]], top_k: int) -> None:
        from dataclasses import replace

        from memex.models import SearchIn
        from memex.retrieval.search import search
        from memex_edge.context import get_context

        ctx = get_context()
        self.ctx = replace(ctx, embedder=Once(ctx.embedder))
        self.tenant = ctx.settings.default_tenant
        self.search = search
        self.requests = [SearchIn(user_id=q["user_id"], query=q["query"], top_k=top_k, mode="hybrid",
                                  reference_time=q["reference_time"]) for q in asked]
        self.round_trips = RoundTrips()
        self.answers = [self.top(request) for request in self.requests]

    def top(self, request) -> list[str]:
        return [result["id"] for result in self.search(self.ctx, self.tenant, request)["results"][:10]]

    def block(self) -> dict[str, Any]:
        """Every question searched once, each timed: wall and CPU ms, round trips; and whether
        every answer is the first pass's."""
        wall, cpu, trips, same = [], [], [], True
        for request, answer in zip(self.requests, self.answers):
            self.round_trips.count = 0
            started_wall, started_cpu = time.perf_counter(), time.process_time()
            results = self.search(self.ctx, self.tenant, request)["results"]
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started_wall) * 1000)
            trips.append(self.round_trips.count)
            same = same and [result["id"] for result in results[:10]] == answer
        return {"wall_ms": wall, "cpu_ms": cpu, "round_trips": trips, "stable": same}

    def profile(self, top: int) -> list[dict[str, Any]]:
        """The `top` functions of most own time in one pass under cProfile: ms per search, share."""
        profiler = cProfile.Profile()
        profiler.enable()
        for request in self.requests:
            self.search(self.ctx, self.tenant, request)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=io.StringIO()).stats
        total = sum(own for _, _, own, _, _ in stats.values())
        ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
        n = len(self.requests)
        return [{"function": f"{Path(file).name}:{line}({name})", "own_ms": own * 1000 / n,
                 "cumulative_ms": cumulative * 1000 / n, "share": own / total}
                for (file, line, name), (_, _, own, cumulative, _) in ranked]


def run_child() -> None:
    """Reads the job, then one command a line ("block", "profile N", "answers"), one JSON line each."""
    job = json.loads(sys.stdin.readline())
    searcher = Searcher(job["questions"], job["top_k"])
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        if command == "block":
            answer = searcher.block()
        elif command == "profile":
            answer = searcher.profile(int(args[0]))
        else:
            answer = searcher.answers
        print(json.dumps(answer), flush=True)


# ------------------------------------------------------------------ parent


class Checkout:
    """A child process searching with `source`'s code."""

    def __init__(self, source: Path, database_url: str, job: dict[str, Any]) -> None:
        self.source = source
        self.questions = job["questions"]
        env = {k: v for k, v in os.environ.items() if k not in RUNTIME_VARS and not k.startswith("MEMEX_")}
        env.update(DATABASE_URL=database_url, POWERTOOLS_METRICS_DISABLED="true",
                   PYTHONPATH=os.pathsep.join([str(source), str(source / "shared")]))
        # This file run by path: the other checkout may have no bench/search_cpu.py.
        code = f"import runpy; runpy.run_path({str(Path(__file__).resolve())!r}, run_name='__main__')"
        self.process = subprocess.Popen([sys.executable, "-c", code, "--child"], cwd=source, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        self._read()

    def ask(self, command: str) -> Any:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> Any:
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.source}: the child process ended (exit {self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def differences(first: Sequence[list[str]], second: Sequence[list[str]]) -> list[int]:
    """The questions (by index) whose top 10 differ, in ids or order."""
    return [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]


def summary(blocks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """p50 and mean of each measure over every search of the blocks, and each block's p50 CPU and wall."""
    every = {measure: [v for block in blocks for v in block[measure]] for measure in ("wall_ms", "cpu_ms", "round_trips")}
    return {**{f"{measure}_p50": statistics.median(values) for measure, values in every.items()},
            **{f"{measure}_mean": statistics.fmean(values) for measure, values in every.items()},
            "block_cpu_p50": [statistics.median(block["cpu_ms"]) for block in blocks],
            "block_wall_p50": [statistics.median(block["wall_ms"]) for block in blocks],
            "stable": all(block["stable"] for block in blocks), "searches": len(every["cpu_ms"])}


def ratios(before: dict[str, Any], after: dict[str, Any], measure: str) -> dict[str, float]:
    """after / before of each round's block p50, their median and spread."""
    each = [b / a for a, b in zip(before[measure], after[measure], strict=True)]
    return {"median": statistics.median(each), "low": min(each), "high": max(each)}


def render(report: dict[str, Any]) -> str:
    lines = [f"bench.search_cpu: {report['questions']} questions, top_k {report['top_k']}, "
             f"{report['rounds']} blocks a checkout, load {report['load']}"]
    lines.append(f"{'checkout':<46}{'CPU p50 / mean ms':>20}{'wall p50 / mean ms':>22}{'round trips':>13}")
    for name, s in report["checkouts"].items():
        lines.append(f"{name:<46}{s['cpu_ms_p50']:>10.2f} / {s['cpu_ms_mean']:<7.2f}{s['wall_ms_p50']:>12.2f} / "
                     f"{s['wall_ms_mean']:<7.2f}{s['round_trips_mean']:>11.2f}"
                     + ("" if s["stable"] else "  (answers moved between blocks)"))
    if "ratio" in report:
        for measure, r in report["ratio"].items():
            lines.append(f"{measure} this / --source, each round's block p50: median {r['median']:.3f} "
                         f"(spread {r['low']:.3f}-{r['high']:.3f})")
        different = report["different"]
        lines.append("answers: the same top 10 (ids and order) for every question" if not different else
                     f"answers: {len(different)} of {report['questions']} questions' top 10 differ, e.g. "
                     f"{report['differing_questions'][:3]}")
    for name, rows in report.get("profiles", {}).items():
        lines += ["", f"{name}: own time under cProfile, ms a search (cumulative), share of the pass"]
        lines += [f"  {row['own_ms']:>7.3f} ({row['cumulative_ms']:>7.3f})  {row['share']:>6.1%}  {row['function']}"
                  for row in rows]
    return "\n".join(lines)


def measure(checkouts: Sequence[Checkout], rounds: int, profile: int) -> dict[str, Any]:
    """The checkouts' blocks, alternating ABBA round by round; their answers compared."""
    blocks: dict[Checkout, list[dict[str, Any]]] = {checkout: [] for checkout in checkouts}
    loads = []
    for round_ in range(rounds):
        for checkout in checkouts if round_ % 2 == 0 else checkouts[::-1]:
            blocks[checkout].append(checkout.ask("block"))
        loads.append(os.getloadavg()[0])
    summaries = [summary(blocks[checkout]) for checkout in checkouts]
    # named by role too: a checkout measured against itself is two
    names = [f"{'this' if checkout is checkouts[-1] else 'source'}: {checkout.source}" for checkout in checkouts]
    report: dict[str, Any] = {"load": f"{min(loads):.1f}-{max(loads):.1f}", "checkouts": dict(zip(names, summaries))}
    if len(checkouts) == 2:
        before, after = summaries
        report["ratio"] = {"CPU": ratios(before, after, "block_cpu_p50"), "wall": ratios(before, after, "block_wall_p50")}
        answers = [checkout.ask("answers") for checkout in checkouts]
        report["different"] = differences(*answers)
        report["differing_questions"] = [checkouts[0].questions[i]["query"] for i in report["different"]]
    if profile:
        report["profiles"] = {name: checkout.ask(f"profile {profile}") for name, checkout in zip(names, checkouts)}
    return report


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench.search_cpu", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="the LoCoMo file the kept ingest was made of")
    parser.add_argument("--keep", type=Path, help="a data dir `bench.locomo --keep` ingested")
    parser.add_argument("--per-conversation", type=int, default=30, help="questions a conversation (default 30)")
    parser.add_argument("--rounds", type=int, default=4, help="timed blocks a checkout (default 4)")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N functions of most own time")
    parser.add_argument("--source", type=Path, help="another checkout to measure in the same run (A; this one is B)")
    parser.add_argument("--out", type=Path, help="also write the report as JSON here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_child()
        return {}
    if args.data is None or args.keep is None:
        parser.error("--data and --keep are needed")
    tag = json.loads((args.keep / locomo.MARKER).read_text())["tag"]
    asked = questions(json.loads(args.data.read_text()), tag, args.per_conversation)
    job = {"questions": asked, "top_k": args.top_k}
    sources = [*([args.source.resolve()] if args.source else []), ROOT]

    from infra.local.runtime import LocalRuntime

    runtime = LocalRuntime(args.keep / "memex")
    for name in RUNTIME_VARS:
        os.environ.pop(name, None)
    runtime.start_database()
    try:
        checkouts = [Checkout(source, os.environ["DATABASE_URL"], job) for source in sources]
        try:
            report = measure(checkouts, args.rounds, args.profile)
        finally:
            for checkout in checkouts:
                checkout.close()
    finally:
        runtime.stop()
    report.update(questions=len(asked), top_k=args.top_k, rounds=args.rounds)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))
    return report


if __name__ == "__main__":
    main()
