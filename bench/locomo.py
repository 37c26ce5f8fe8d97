"""LoCoMo retrieval benchmark: recall@k of the dialog turns that answer each question.

    .venv/bin/python -m bench.locomo --data /work/shared/bench/locomo-dev.json --out /tmp/locomo.json \\
        [--per-question /tmp/locomo-q.jsonl] [--modes hybrid,bm25,vector] [--limit-conversations N] \\
        [--url http://127.0.0.1:8080 [--api-key mx_...]]

Run it from the repository root. Without --url it starts `python -m infra.local` on a fresh
data dir and a free port, and stops it with SIGINT at the end. Each session of a conversation
becomes one `POST /v1/turns?wait=true` (one message per dialog turn, its dia_id in the message
metadata); each question with evidence becomes one `POST /v1/search` per mode, and the dia_ids
of the results' sources are scored against the question's evidence, as the LoCoMo paper does.

The data file is CC BY-NC (LoCoMo, Maharana et al. 2024): it is read from where it is, never
copied into this repository.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import httpx

from bench.service import local_server


KS = (1, 5, 10, 25, 50)
TOP_K = 50
MODES = ("hybrid", "bm25", "vector")
LATENCY_MODE = "hybrid"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

# Set by a runtime in this process's environment (e.g. under pytest): they would point the
# child server at someone else's database and queues, or demand a key we do not have.
_MONTHS = {name: i for i, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}
_SESSION_DATE = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*", re.IGNORECASE)
_SESSION_KEY = re.compile(r"session_(\d+)")


# --- the data --------------------------------------------------------------------------------

def normalise_evidence(evidence: Iterable[str]) -> list[str]:
    """Distinct dia_ids "D<session>:<turn>", in order. Malformed strings of the dataset are
    repaired: "D8:6; D9:17" -> D8:6, D9:17; "D:11:26" -> D11:26; "D30:05" -> D30:5; a part
    without a session and a turn number ("", "D") is dropped."""
    ids: list[str] = []
    for raw in evidence:
        for part in re.split(r"[;,\s]+", raw):
            numbers = re.findall(r"\d+", part)
            if len(numbers) != 2:
                continue
            dia_id = f"D{int(numbers[0])}:{int(numbers[1])}"
            if dia_id not in ids:
                ids.append(dia_id)
    return ids


def parse_session_date(text: str) -> datetime:
    """"1:56 pm on 8 May, 2023" -> 2023-05-08 13:56 UTC (the dataset gives no zone)."""
    match = _SESSION_DATE.fullmatch(text)
    if match is None or match.group(5).lower() not in _MONTHS:
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    if not (1 <= int(hour) <= 12 and int(minute) < 60):
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour_24 = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    return datetime(int(year), _MONTHS[month.lower()], int(day), hour_24, int(minute), tzinfo=timezone.utc)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions(conversation: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]], datetime]]:
    """(number, dialog turns, date) of each session, in session order. Only `session_N` keys
    count: the file has date keys for sessions that do not exist."""
    found = []
    for key, turns in conversation.items():
        match = _SESSION_KEY.fullmatch(key)
        if match is None or not isinstance(turns, list) or not turns:
            continue
        date_key = f"{key}_date_time"
        if date_key not in conversation:
            raise ValueError(f"{key} has no {date_key}")
        found.append((int(match.group(1)), turns, parse_session_date(conversation[date_key])))
    return sorted(found, key=lambda s: s[0])


def message_of(dialog_turn: dict[str, Any]) -> dict[str, Any]:
    content = dialog_turn.get("text", "")
    if dialog_turn.get("blip_caption"):
        content = f"{content} [shares a photo: {dialog_turn['blip_caption']}]".strip()
    return {"role": "user", "name": dialog_turn["speaker"], "content": content,
            "metadata": {"dia_id": dialog_turn["dia_id"]}}


def build_turns(sample: dict[str, Any], user_id: str) -> list[dict[str, Any]]:
    """The `POST /v1/turns` bodies of one conversation: one per session. The first speaker is the
    user; what the second says of themselves is remembered as theirs (`user_name`)."""
    return [
        {"user_id": user_id, "session_id": f"session_{number}", "timestamp": rfc3339(date),
         "user_name": sample["conversation"]["speaker_a"], "messages": [message_of(t) for t in dialog]}
        for number, dialog, date in sessions(sample["conversation"])
    ]


def reference_time(sample: dict[str, Any]) -> str:
    """The last session's date: questions are asked as of the end of the conversation."""
    return rfc3339(sessions(sample["conversation"])[-1][2])


def scored_questions(sample: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The questions with evidence (normalised) and how many were skipped for having none."""
    kept, skipped = [], 0
    for qa in sample["qa"]:
        evidence = normalise_evidence(qa.get("evidence") or [])
        if not evidence:
            skipped += 1
            continue
        kept.append({"question": qa["question"], "category": int(qa["category"]), "evidence": evidence})
    return kept, skipped


def category_name(category: int) -> str:
    return CATEGORIES.get(category, f"category-{category}")


# --- the metric ------------------------------------------------------------------------------

def distinct_dia_ids(results: Sequence[dict[str, Any]]) -> list[str]:
    """Distinct dia_ids of the results' sources, in rank order (first seen wins); results with
    no dia_id in any source are skipped."""
    seen: list[str] = []
    for result in results:
        for source in result.get("sources") or []:
            dia_id = (source.get("metadata") or {}).get("dia_id")
            if dia_id and dia_id not in seen:
                seen.append(dia_id)
    return seen


def recall_at(evidence: Sequence[str], retrieved: Sequence[str], k: int) -> float:
    """Fraction of the (distinct) evidence ids among the first k retrieved ids."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("recall of a question without evidence")
    return len(wanted & set(retrieved[:k])) / len(wanted)


def aggregate(rows: Sequence[tuple[int, dict[int, float]]], ks: Sequence[int] = KS) -> dict[str, Any]:
    """Mean recall@k over (category, {k: recall}) rows, overall and per category."""
    def means(group: Sequence[dict[int, float]]) -> dict[str, float]:
        return {f"recall@{k}": round(sum(r[k] for r in group) / len(group), 4) if group else 0.0 for k in ks}

    by_category = {}
    for category in sorted({c for c, _ in rows}):
        group = [r for c, r in rows if c == category]
        by_category[category_name(category)] = {**means(group), "questions": len(group)}
    return {**means([r for _, r in rows]), "by_category": by_category}


def percentile(values: Sequence[float], p: float) -> float | None:
    """The p-th percentile (0-100), linear between closest ranks (as numpy's default)."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# --- the server ------------------------------------------------------------------------------

@contextmanager
def running_server(url: str) -> Iterator[str]:
    """A server someone else runs: nothing to start or stop."""
    yield url.rstrip("/")


def _post(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    if response.status_code >= 400:
        raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:1000]}")
    return response.json()


# --- the run ---------------------------------------------------------------------------------

def ingest(client: httpx.Client, samples: Sequence[dict[str, Any]], tag: str) -> float:
    started = time.perf_counter()
    for i, sample in enumerate(samples, start=1):
        t0 = time.perf_counter()
        bodies = build_turns(sample, f"{tag}-{sample['sample_id']}")
        for body in bodies:
            _post(client, "/v1/turns?wait=true", body)
        n_turns = sum(len(b["messages"]) for b in bodies)
        print(f"ingest {i}/{len(samples)} {sample['sample_id']}: {len(bodies)} sessions, {n_turns} turns "
              f"in {time.perf_counter() - t0:.1f} s", flush=True)
    return time.perf_counter() - started


def evaluate(client: httpx.Client, samples: Sequence[dict[str, Any]], tag: str, modes: Sequence[str],
             scoring: dict[str, float] | None = None) -> tuple[list[dict[str, Any]], list[float], int]:
    """Search every question with evidence in every mode: (per-question rows, latencies of the
    LATENCY_MODE searches in ms, questions skipped for having no evidence)."""
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    skipped_total = 0
    for i, sample in enumerate(samples, start=1):
        t0 = time.perf_counter()
        user_id = f"{tag}-{sample['sample_id']}"
        when = reference_time(sample)
        questions, skipped = scored_questions(sample)
        skipped_total += skipped
        for qa in questions:
            row = {"conversation": sample["sample_id"], **qa, "category_name": category_name(qa["category"]),
                   "modes": {}}
            for mode in modes:
                body = {"user_id": user_id, "query": qa["question"], "top_k": TOP_K,
                        "reference_time": when, "mode": mode, **(scoring or {})}
                s0 = time.perf_counter()
                answer = _post(client, "/v1/search", body)
                elapsed_ms = (time.perf_counter() - s0) * 1000
                if mode == LATENCY_MODE:
                    latencies.append(elapsed_ms)
                retrieved = distinct_dia_ids(answer["results"])
                row["modes"][mode] = {"retrieved": retrieved,
                                      "recall": {k: recall_at(qa["evidence"], retrieved, k) for k in KS}}
            rows.append(row)
        print(f"search {i}/{len(samples)} {sample['sample_id']}: {len(questions)} questions x {len(modes)} modes "
              f"in {time.perf_counter() - t0:.1f} s ({skipped} without evidence skipped)", flush=True)
    return rows, latencies, skipped_total


def summarise(rows: Sequence[dict[str, Any]], latencies: Sequence[float], modes: Sequence[str]) -> dict[str, Any]:
    p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
    return {
        "modes": {m: aggregate([(r["category"], r["modes"][m]["recall"]) for r in rows]) for m in modes},
        "latency_ms": {"p50": None if p50 is None else round(p50, 1), "p95": None if p95 is None else round(p95, 1)},
        "questions": len(rows),
    }


def per_question_line(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "conversation": row["conversation"], "question": row["question"], "category": row["category_name"],
        "evidence": row["evidence"],
        "modes": {m: {"top10": v["retrieved"][:10], "recall@5": v["recall"][5], "recall@10": v["recall"][10]}
                  for m, v in row["modes"].items()},
    }


def render(report: dict[str, Any]) -> str:
    modes = list(report["modes"])
    lines = [f"LoCoMo retrieval: {report['conversations']} conversations, {report['questions']} questions "
             f"with evidence ({report['skipped_no_evidence']} without evidence skipped), top_k {TOP_K}", ""]
    lines.append(f"{'mode':<8}" + "".join(f"{f'R@{k}':>8}" for k in KS))
    for mode in modes:
        lines.append(f"{mode:<8}" + "".join(f"{report['modes'][mode][f'recall@{k}']:>8.3f}" for k in KS))
    lines += ["", "recall@5 / recall@10 by category"]
    lines.append(f"{'category':<13}{'n':>5}" + "".join(f"{m:>15}" for m in modes))
    categories = list(report["modes"][modes[0]]["by_category"]) if modes else []
    for name in categories:
        cells = []
        for mode in modes:
            c = report["modes"][mode]["by_category"][name]
            cells.append(f"{c['recall@5']:.3f} / {c['recall@10']:.3f}".rjust(15))
        n = report["modes"][modes[0]]["by_category"][name]["questions"]
        lines.append(f"{name:<13}{n:>5}" + "".join(cells))
    latency = report["latency_ms"]
    lines.append("")
    if latency["p50"] is None:
        lines.append(f"search latency: not measured ({LATENCY_MODE} not among the modes)")
    else:
        lines.append(f"search latency ({LATENCY_MODE}, client side, {report['questions']} searches): "
                     f"p50 {latency['p50']:.1f} ms, p95 {latency['p95']:.1f} ms")
    lines.append(f"ingest {report['ingest_seconds']:.1f} s, total {report['total_seconds']:.1f} s")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file (locomo10.json layout)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON report")
    parser.add_argument("--per-question", type=Path, help="also write one JSON line per question here")
    parser.add_argument("--url", help="use this running server instead of starting one")
    parser.add_argument("--api-key", help="Bearer key for --url")
    parser.add_argument("--limit-conversations", type=int, help="only the first N conversations")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of hybrid,bm25,vector")
    parser.add_argument("--alpha", type=float, help="search alpha (default: the server's)")
    parser.add_argument("--half-life-days", type=float, help="search half_life_days (default: the server's)")
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(args.modes) - set(MODES))
    if unknown or not args.modes:
        parser.error(f"--modes: unknown {unknown}, choose among {', '.join(MODES)}")
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    started = time.perf_counter()
    samples = json.loads(args.data.read_text())
    if args.limit_conversations is not None:
        samples = samples[: args.limit_conversations]
    tag = uuid.uuid4().hex[:8]
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}

    with (running_server(args.url) if args.url else local_server()) as url:
        print(f"server: {url} (run tag {tag})", flush=True)
        with httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(600, connect=10)) as client:
            ingest_seconds = ingest(client, samples, tag)
            scoring = {name: value for name, value in (("alpha", args.alpha), ("half_life_days", args.half_life_days))
                       if value is not None}
            rows, latencies, skipped = evaluate(client, samples, tag, args.modes, scoring)

    report = {
        **summarise(rows, latencies, args.modes),
        "skipped_no_evidence": skipped,
        "conversations": len(samples),
        "data": str(args.data),
        "ingest_seconds": round(ingest_seconds, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.per_question:
        with open(args.per_question, "w") as f:
            for row in rows:
                f.write(json.dumps(per_question_line(row)) + "\n")
    print()
    print(render(report))
    return report


if __name__ == "__main__":
    main()
