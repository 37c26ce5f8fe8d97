"""The year trial: one synthetic user talks to an agent once a day for a year, through
`python -m infra.local` (a fresh home, a free port, default settings: the offline extractor and the
rules judge), and is then asked what a long-lived user's agent would ask.

    .venv/bin/python -m bench.year [--days 365] [--turns-per-day 3,10] [--checkpoints 30,180,240,365]
        [--via api|backfill] [--consolidated-at DAY] [--seed 1] [--repeats 3] [--out year.md] [--json year.json]

Each day is a session of 3-10 turns (a user line and the agent's reply, POST /v1/turns with the
day's `timestamp`, without wait), sent in order; the year ends yesterday, so that consolidation's
minimum age applies as it would to a real user's history. At each checkpoint day the workers are let
finish (every turn `processed`), memories are counted, and the questions whose answers she has said
by then (bench/year/questions.py: her current facts, where she worked or lived before, when she
moved, what she said in the first days and never again) are searched (top 10, hybrid, `--repeats`
times for the latency) and recalled (her life now, 500 tokens). At the end: the supersession chains
of her employers and cities (every earlier value inactive, the next one's `supersedes` naming it),
then `memex consolidate` for her (the command, on the server's home; with `--consolidated-at DAY`, first
one as the hourly job would have run on that day, and then the one of today) and the questions again, and
the summaries it wrote that join lines naming two different employers or cities (a move's or a job's
line whose date a summary then replaces by its latest line's), and those that read the same text
as another (a line said many times, summarised again and again). `--via backfill` imports the year
with `memex backfill` (one POST /v1/turns body a line) before the server starts, and asks once, at
the end.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence

import httpx

from bench import api
from bench.locomo import percentile
from bench.service import memex_cli, serve
from bench.year.life import Life, Turn, generate, timestamp
from bench.year.questions import questions, rank

USER = "year-user"
RECALL_QUERY = "what should the agent know about her life right now?"


def turn_body(turn: Turn, index: int, start: datetime) -> dict[str, Any]:
    return {"user_id": USER, "session_id": f"day-{turn.day + 1:03d}", "timestamp": timestamp(start, turn.day, index),
            "idempotency_key": f"{USER}-{turn.day}-{index}",
            "messages": [{"role": "user", "content": turn.user}, {"role": "assistant", "content": turn.assistant}]}


class Trial:
    def __init__(self, url: str, life: Life, start: datetime, repeats: int):
        self.client = httpx.Client(base_url=url, timeout=httpx.Timeout(120, connect=5))
        self.life, self.start, self.repeats = life, start, repeats
        self.pending: list[str] = []
        self.ingest_s = 0.0
        self.turns = 0

    def post_days(self, days: range) -> None:
        started = time.monotonic()
        for day in days:
            for i, turn in enumerate(self.life.days[day]):
                response = self.client.post("/v1/turns", json=turn_body(turn, i, self.start))
                response.raise_for_status()
                self.pending.append(response.json()["turn_id"])
                self.turns += 1
        failed = self.drain()
        self.ingest_s += time.monotonic() - started
        if failed:
            raise SystemExit(f"turns not processed: {failed[:5]}")

    def drain(self, timeout: float = 900) -> list[str]:
        """The turns not processed (failed, or still waiting after `timeout` s)."""
        statuses = api.wait_processed(self.client.get, self.pending, timeout, interval=1)
        self.pending = [t for t, status in statuses.items() if status != "processed"]
        return self.pending

    def count(self, include_inactive: bool) -> int:
        return self.client.get("/v1/memories/count", params={"user_id": USER, "include_inactive": include_inactive}
                               ).json()["count"]

    def ask(self, day: int) -> dict[str, Any]:
        asked, latencies = [], []
        for question in questions(self.life, day):
            for repeat in range(self.repeats):
                began = time.perf_counter()
                response = self.client.post("/v1/search", json={"user_id": USER, "query": question.query, "top_k": 10})
                latencies.append((time.perf_counter() - began) * 1000)
                response.raise_for_status()
                if repeat == 0:
                    results = response.json()["results"]
                    asked.append({"kind": question.kind, "query": question.query, "answer": question.answer,
                                  "rank": rank(question, results, self.start),
                                  "top": [r["content"] for r in results[:3]]})
        recall = self.client.post("/v1/recall", json={"user_id": USER, "query": RECALL_QUERY, "max_tokens": 500}).json()
        life, cur = self.life, Life.current
        facts = {"employer": cur(life.employers, day), "city": cur(life.cities, day),
                 "partner": life.partner[1] if life.partner[0] <= day else None,
                 "daughter": life.child[1] if life.child[0] <= day else None,
                 "cat": life.cat[1] if life.cat[0] <= day else None, "diet": cur(life.diets, day)}
        in_context = {k: v.lower() in recall["context"].lower() for k, v in facts.items() if v}
        return {"day": day, "questions": asked, "search_ms": {"p50": round(percentile(latencies, 50), 1),
                                                             "p95": round(percentile(latencies, 95), 1),
                                                             "n": len(latencies)},
                "recall": {"tokens": recall["token_count"], "in_context": in_context, "context": recall["context"]}}

    def memories(self) -> list[dict[str, Any]]:
        return api.memories(self.client.get, USER)


def chains(life: Life, memories: list[dict[str, Any]]) -> dict[str, Any]:
    """For employer and city: each value said after the first must supersede the one before, which
    is inactive; the last alone is current."""
    out: dict[str, Any] = {}
    for key, said in (("employer", [v for _, v in life.employers]), ("city", [v for _, v in life.cities])):
        facts = [m for m in memories if m.get("key") == key and m.get("memory_type") == "semantic"]
        by_id = {m["id"]: m for m in facts}
        links, problems = 0, []
        for before, after in zip(said, said[1:]):
            old = [m for m in facts if (m.get("value") or "").lower() == before.lower()]
            new = [m for m in facts if (m.get("value") or "").lower() == after.lower()]
            if not old or not new:
                problems.append(f"{before} -> {after}: no fact for {'/'.join(v for v, f in ((before, old), (after, new)) if not f)}")
                continue
            linked = any(by_id.get(m.get("supersedes") or "", {}).get("value", "").lower() == before.lower()
                         for m in new)
            if linked and not any(m["active"] for m in old):
                links += 1
            else:
                problems.append(f"{before} -> {after}: " + ("old still active; " if any(m["active"] for m in old) else "")
                                + ("" if linked else f"{after} supersedes " + repr([by_id.get(m.get('supersedes') or '', {}).get('value') for m in new])))
        active = sorted({m["value"] for m in facts if m["active"]})
        out[key] = {"links": links, "of": len(said) - 1, "active": active, "problems": problems}
    return out


def joined(life: Life, memories: list[dict[str, Any]]) -> list[str]:
    """The active summaries whose text names two of her employers or two of her cities."""
    found = []
    for m in memories:
        if m["active"] and m.get("type") == "summary":
            for said in ([v for _, v in life.employers], [v for _, v in life.cities]):
                if sum(value in m["content"] for value in said) > 1:
                    found.append(f"{m['content'][:160]} (valid_from {m['valid_from'][:10]})")
                    break
    return found


def alike(memories: list[dict[str, Any]]) -> dict[str, int]:
    """The active summaries, and those of them whose text another active summary reads too (one
    line said many times summarised again and again)."""
    texts = Counter(m["content"] for m in memories if m["active"] and m.get("type") == "summary")
    return {"summaries": sum(texts.values()), "alike": sum(n for n in texts.values() if n > 1),
            "texts_repeated": sum(n > 1 for n in texts.values())}


def memex_command(home: Path, *args: str) -> tuple[str, float]:
    """`memex <args>` on the server's home (its embedded Postgres): stdout and the seconds it took."""
    began = time.monotonic()
    printed = memex_cli(list(args), {"MEMEX_HOME": str(home)}, defaults_only=True)
    return printed, time.monotonic() - began


def backfill(life: Life, start: datetime, home: Path) -> tuple[int, float]:
    """The year as a backfill file, imported: the turns and the seconds the import took."""
    path = home.parent / "year.jsonl"
    with open(path, "w") as out:
        for day in life.days:
            for i, turn in enumerate(day):
                out.write(json.dumps(turn_body(turn, i, start)) + "\n")
    printed, seconds = memex_command(home, "backfill", str(path))
    status = json.loads(printed)
    if status.get("status") != "done" or status.get("failed"):
        raise SystemExit(f"memex backfill: {printed[-2000:]}")
    return status["done"], seconds


def run(args: argparse.Namespace) -> dict[str, Any]:
    low, high = (int(n) for n in args.turns_per_day.split(","))
    life = generate(args.seed, args.days, (low, high))
    today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    start = today - timedelta(days=args.days)
    checkpoints = sorted({min(int(c), args.days) for c in args.checkpoints.split(",")})
    result: dict[str, Any] = {"days": args.days, "turns_per_day": [low, high], "seed": args.seed, "via": args.via,
                              "checkpoints": [], "load_average": None}
    with ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memex-year-")))
        imported = backfill(life, start, home / "memex") if args.via == "backfill" else None
        url = stack.enter_context(serve(["-m", "infra.local", "--home", str(home / "memex")], 0, home,
                                        defaults_only=True))
        trial = Trial(url, life, start, args.repeats)
        done = 0
        if imported:
            trial.turns, trial.ingest_s = imported
            checkpoints, done = [args.days], args.days
        for checkpoint in checkpoints:
            trial.post_days(range(done, checkpoint))
            done = checkpoint
            point = {"active": trial.count(False), "with_history": trial.count(True), "turns": trial.turns,
                     "ingest_s": round(trial.ingest_s, 1), **trial.ask(checkpoint - 1)}
            result["checkpoints"].append(point)
            print(f"day {checkpoint}: {trial.turns} turns in {trial.ingest_s:.0f} s, {point['active']} active memories "
                  f"({point['with_history']} with history), search p50 {point['search_ms']['p50']} ms", flush=True)
        everything = trial.memories()
        result["chains"] = chains(life, everything)
        result["kinds"] = _kinds(everything)
        if args.consolidated_at:
            # A run as the hourly job would have made on that day: it summarises what was old enough
            # then; the run below finds the lines said since, some of them said before that run too.
            printed, seconds = memex_command(home / "memex", "consolidate", "--tenant", "default", "--user", USER,
                                             "--min-age-days", str(args.days - args.consolidated_at + 30))
            result["earlier_consolidation"] = {**json.loads(printed), "day": args.consolidated_at,
                                               "seconds": round(seconds, 1)}
        printed, seconds = memex_command(home / "memex", "consolidate", "--tenant", "default", "--user", USER)
        result["consolidation"] = {**json.loads(printed), "seconds": round(seconds, 1)}
        result["after_consolidation"] = {"active": trial.count(False), "with_history": trial.count(True),
                                         **trial.ask(args.days - 1)}
        after = trial.memories()
        result["joined"] = joined(life, after)
        result["alike"] = alike(after)
        result["load_average"] = os.getloadavg()
    return result


def _kinds(memories: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in memories:
        label = f"{m['memory_type']}{'' if m['active'] else ' (inactive)'}"
        counts[label] = counts.get(label, 0) + 1
    return counts


def _scores(point: dict[str, Any]) -> dict[str, str]:
    out = {}
    for kind in ("current", "history", "early"):
        asked = [q for q in point["questions"] if q["kind"] == kind]
        if asked:
            first = sum(q["rank"] == 1 for q in asked)
            top5 = sum(q["rank"] is not None and q["rank"] <= 5 for q in asked)
            out[kind] = f"{first}/{len(asked)} / {top5}/{len(asked)}"
    return out


def render(result: dict[str, Any]) -> str:
    lines = [f"year: {result['days']} days, {result['turns_per_day'][0]}-{result['turns_per_day'][1]} turns a day, "
             f"seed {result['seed']}, via {result['via']}", "",
             "| day | turns | ingest s | turns/s | active memories | with history | search p50 / p95 ms | "
             "current @1 / @5 | history @1 / @5 | early @1 / @5 | recall 500 tokens: current facts in it |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = [*result["checkpoints"], {**result["after_consolidation"], "after": True}]
    for p in rows:
        s = _scores(p)
        held = p["recall"]["in_context"]
        label = f"{p['day'] + 1}" + (" after consolidation" if p.get("after") else "")
        rate = f"{p['turns'] / p['ingest_s']:.1f}" if p.get("turns") else ""
        lines.append(f"| {label} | {p.get('turns', '')} | {p.get('ingest_s', '')} | {rate} | {p['active']} | "
                     f"{p['with_history']} | {p['search_ms']['p50']} / {p['search_ms']['p95']} | {s.get('current', '')} | "
                     f"{s.get('history', '')} | {s.get('early', '')} | {sum(held.values())}/{len(held)} "
                     f"(missing: {', '.join(k for k, v in held.items() if not v) or 'none'}) |")
    lines += ["", f"memories at the end: {json.dumps(result['kinds'])}",
              *([f"consolidation on day {result['earlier_consolidation']['day']}: "
                 f"{json.dumps(result['earlier_consolidation'])}"] if result.get("earlier_consolidation") else []),
              f"consolidation: {json.dumps(result['consolidation'])}",
              f"summaries naming two of her employers or cities: {len(result['joined'])}",
              f"active summaries: {result['alike']['summaries']}, of which {result['alike']['alike']} read the same "
              f"text as another ({result['alike']['texts_repeated']} texts)"]
    lines += [f"  - {line}" for line in result["joined"][:10]]
    lines.append("")
    for key, chain in result["chains"].items():
        lines.append(f"{key} chain: {chain['links']}/{chain['of']} links right, active {chain['active']}")
        lines += [f"  - {problem}" for problem in chain["problems"]]
    for p in rows:
        wrong = [q for q in p["questions"] if q["rank"] != 1]
        label = f"day {p['day'] + 1}" + (" after consolidation" if p.get("after") else "")
        lines += ["", f"{label}: not at rank 1 ({len(wrong)} of {len(p['questions'])})"]
        lines += [f"  - [{q['kind']}] {q['query']} -> {q['answer']}: rank {q['rank']}; top: "
                  + " | ".join(t[:80] for t in q["top"]) for q in wrong]
    lines += ["", f"load average at the end: {result['load_average']}"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.year", description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--turns-per-day", default="3,10", help="the fewest and most turns a day")
    parser.add_argument("--checkpoints", default="30,180,240,365", help="days after which the questions are asked")
    parser.add_argument("--via", choices=("api", "backfill"), default="api",
                        help="POST /v1/turns day by day, or one `memex backfill` of the year")
    parser.add_argument("--repeats", type=int, default=3, help="times each search is timed")
    parser.add_argument("--consolidated-at", type=int, metavar="DAY",
                        help="also consolidate as on this day (lines 30 days old then) before the run at the end")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="also write the report here")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    result = run(args)
    report = render(result)
    if args.out:
        args.out.write_text(report + "\n")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
