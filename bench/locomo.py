"""LoCoMo retrieval benchmark: recall@k of the dialog turns that answer each question.

    .venv/bin/python -m bench.locomo --data /work/shared/bench/locomo-dev.json --out /tmp/locomo.json \\
        [--per-question /tmp/locomo-q.jsonl] [--modes hybrid,bm25,vector] [--limit-conversations N] \\
        [--keep /tmp/locomo-ingested] [--variant NAME:MEMEX_X=1,MEMEX_Y=2 ...] \\
        [--url http://127.0.0.1:8080 [--api-key mx_...]]

Run it from the repository root. Without --url it starts `python -m infra.local` (its settings
at their defaults: the shell's MEMEX_* variables are not passed on) on a data dir and a port of its choosing,
and stops it with SIGINT at the end. Each session of a conversation becomes one
`POST /v1/turns?wait=true` (one message per dialog turn, its dia_id in the message metadata);
each question with evidence becomes one `POST /v1/search` per mode, and the dia_ids of the
results' sources are scored against the question's evidence, as the LoCoMo paper does.

--keep DIR keeps the ingested data dir and reuses it: ingest is most of a run's cost, and the
search phase can then be rerun alone. The dir is keyed on the data file, the conversations
taken and the code that writes memories (see INGEST_CODE; its syntax, comments and docstrings
aside); a dir whose key differs is ingested again from scratch, and a non-empty dir this
benchmark did not make is refused.

--variant NAME:ENV=VALUE,... (repeatable) also measures the search under those settings (one
server each, over the same ingested data); "default" (no overrides) is always measured. With
several variants the report adds leave-one-conversation-out: for each conversation, the variant
with the best hybrid recall@10 on the other conversations is picked and measured on it; the
held-out figures, averaged over all questions, stand beside the default's whole-file figure.

The data file is CC BY-NC (LoCoMo, Maharana et al. 2024): it is read from where it is, never
copied into this repository.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import json
import re
import shutil
import tempfile
import textwrap
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import httpx

from bench.service import ROOT, serve, settings_env
from memex.time_phrases import MONTH_NUMBER, MONTHS


KS = (1, 5, 10, 25, 50)
TOP_K = 50
MODES = ("hybrid", "bm25", "vector")
LATENCY_MODE = "hybrid"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

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
    if match is None or match.group(5).lower() not in MONTHS:
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    if not (1 <= int(hour) <= 12 and int(minute) < 60):
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour_24 = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    return datetime(int(year), MONTH_NUMBER[month.lower()], int(day), hour_24, int(minute), tzinfo=timezone.utc)


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


def per_question_line(variant: str, row: dict[str, Any]) -> dict[str, Any]:
    """A line of --per-question (its help says what it holds)."""
    return {
        "variant": variant, "conversation": row["conversation"], "question": row["question"], "category": row["category_name"],
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
    ingest = "reused" if report.get("ingest_reused") else f"{report['ingest_seconds']:.1f} s"
    lines.append(f"ingest {ingest}, total {report['total_seconds']:.1f} s")
    return "\n".join(lines)


# --- the kept data dir -----------------------------------------------------------------------

# What decides the memories an ingest writes: a change here makes a kept dir stale. Search code
# is left out on purpose: rerunning the search over the same memories is what --keep is for.
INGEST_CODE = ("shared/memex/pipeline.py", "shared/memex/ingest.py", "shared/memex/timeline.py",
               "shared/memex/time_phrases.py", "shared/memex/jobs.py", "shared/memex/embedded_text.py",
               "shared/memex/episodic.py", "shared/memex/filler.py", "shared/memex/standalone.py",
               "shared/memex/supersession.py", "shared/memex/supersession_llm.py", "shared/memex/extraction",
               "shared/memex/embeddings", "shared/memex/consolidation", "shared/memex/db/migrations",
               "shared/memex/db/turns.py")
MARKER = "locomo-ingest.json"


def ingest_key(data: bytes, sample_ids: Sequence[str]) -> str:
    """The key of an ingest: the data file, the conversations taken, the code that writes
    memories and how this benchmark turns a conversation into turns; the Python as its syntax tree
    (_code), so that a change of comments, docstrings or layout alone keeps a kept dir."""
    digest = hashlib.sha256(data)
    digest.update(json.dumps(list(sample_ids)).encode())
    for name in INGEST_CODE:
        path = ROOT / name
        for file in sorted(path.rglob("*.py") if path.is_dir() else [path]) + \
                sorted(path.rglob("*.sql") if path.is_dir() else []):
            digest.update(str(file.relative_to(ROOT)).encode())
            digest.update(_code(file.read_text()) if file.suffix == ".py" else file.read_bytes())
    for function in (build_turns, message_of, sessions):
        digest.update(_code(textwrap.dedent(inspect.getsource(function))))
    return digest.hexdigest()


def _code(source: str) -> bytes:
    """Python `source` as what it does: its syntax tree, without its comments, its docstrings (read by no
    code that writes memories) and its layout."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and ast.get_docstring(node, clean=False) is not None:
            node.body = node.body[1:]
    return ast.dump(tree).encode()


def prepare_kept(directory: Path, key: str) -> str | None:
    """The run tag of a complete ingest kept in `directory` under `key`; None when it must be
    ingested (again): the dir is then emptied. A non-empty dir without our marker is refused."""
    marker = directory / MARKER
    if marker.exists():
        kept = json.loads(marker.read_text())
        if kept.get("key") == key and kept.get("complete"):
            return kept["tag"]
        print(f"{directory}: {'stale' if kept.get('key') != key else 'incomplete'} ingest, ingesting again", flush=True)
        shutil.rmtree(directory)
    elif directory.exists() and any(directory.iterdir()):
        raise SystemExit(f"--keep {directory}: not empty and not made by this benchmark; refusing to touch it")
    directory.mkdir(parents=True, exist_ok=True)
    return None


def write_marker(directory: Path, key: str, tag: str, complete: bool, ingest_seconds: float | None = None) -> None:
    (directory / MARKER).write_text(json.dumps(
        {"key": key, "tag": tag, "complete": complete, "ingest_seconds": ingest_seconds}) + "\n")


@contextmanager
def server_on(home: Path, extra_env: dict[str, str]) -> Iterator[str]:
    """The service over the data dir `home` (made if new), its settings at their defaults but
    for `extra_env`."""
    with serve(["-m", "infra.local", "--home", str(home / "memex")], 0, home, extra_env, defaults_only=True) as url:
        yield url


# --- variants and leave-one-conversation-out ---------------------------------------------------

DEFAULT_VARIANT = "default"


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """"name:MEMEX_A=1,MEMEX_B=x" -> ("name", {"MEMEX_A": "1", "MEMEX_B": "x"})."""
    name, _, assignments = text.partition(":")
    try:
        env = settings_env(filter(None, (p.strip() for p in assignments.split(","))))
    except ValueError:
        raise ValueError(f"--variant {text!r}: expected NAME:MEMEX_X=value,...") from None
    if not name or name == DEFAULT_VARIANT and env:
        raise ValueError(f"--variant {text!r}: a name other than {DEFAULT_VARIANT!r} is needed")
    return name, env


def mean_recall(rows: Sequence[dict[str, Any]], mode: str, k: int) -> float:
    return sum(r["modes"][mode]["recall"][k] for r in rows) / len(rows) if rows else 0.0


def leave_one_out(rows_by_variant: dict[str, Sequence[dict[str, Any]]], mode: str = LATENCY_MODE,
                  pick_k: int = 10) -> dict[str, Any]:
    """For each conversation, the variant with the best mean recall@`pick_k` over the other
    conversations' questions (ties: the earlier variant), and its rows on that conversation. The
    held-out rows of every fold together give the leave-one-out figures, averaged over questions
    as the whole-file figures are."""
    variants = list(rows_by_variant)
    conversations = list(dict.fromkeys(r["conversation"] for r in rows_by_variant[variants[0]]))
    folds, held_out = [], []
    for conversation in conversations:
        def tuning(variant: str) -> float:
            return mean_recall([r for r in rows_by_variant[variant] if r["conversation"] != conversation], mode, pick_k)

        chosen = max(variants, key=lambda v: (tuning(v), -variants.index(v)))
        rows = [r for r in rows_by_variant[chosen] if r["conversation"] == conversation]
        held_out += rows
        folds.append({"conversation": conversation, "chosen": chosen, "tuning_recall@10": round(tuning(chosen), 4),
                      "held_out_recall@10": round(mean_recall(rows, mode, 10), 4), "questions": len(rows)})
    return {"folds": folds, **aggregate([(r["category"], r["modes"][mode]["recall"]) for r in held_out])}


def render_variants(report: dict[str, Any]) -> str:
    lines = ["", f"variants ({LATENCY_MODE}): whole file R@5 / R@10, multi-hop R@10, latency p50 / p95 ms"]
    for name, variant in report["variants"].items():
        summary = variant["modes"][LATENCY_MODE]
        latency = variant["latency_ms"]
        lines.append(f"  {name:<24}{summary['recall@5']:>7.3f} /{summary['recall@10']:.3f}"
                     f"{summary['by_category'].get('multi-hop', {}).get('recall@10', 0):>9.3f}"
                     f"{latency['p50']:>10.1f} /{latency['p95']:.1f}   {variant['env'] or ''}")
    loo = report.get("leave_one_out")
    if loo:
        lines += ["", "leave-one-conversation-out (chosen on the other conversations by R@10):"]
        for fold in loo["folds"]:
            lines.append(f"  {fold['conversation']:<10} chose {fold['chosen']:<24} tuning R@10 {fold['tuning_recall@10']:.3f}"
                         f"  held-out R@10 {fold['held_out_recall@10']:.3f} ({fold['questions']} questions)")
        default = report["variants"][DEFAULT_VARIANT]["modes"][LATENCY_MODE]
        lines.append(f"  leave-one-out R@5 {loo['recall@5']:.3f}, R@10 {loo['recall@10']:.3f}; "
                     f"default whole file R@5 {default['recall@5']:.3f}, R@10 {default['recall@10']:.3f}")
        lines.append(f"  {'category':<13}{'LOO R@5 / R@10':>18}{'default R@5 / R@10':>22}")
        for name, c in loo["by_category"].items():
            d = default["by_category"][name]
            lines.append(f"  {name:<13}{c['recall@5']:>10.3f} / {c['recall@10']:.3f}{d['recall@5']:>14.3f} / {d['recall@10']:.3f}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file (locomo10.json layout)")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON report")
    parser.add_argument("--per-question", type=Path,
                        help="also write here one JSON line per question and variant (every --variant, not only "
                             "the default): variant, conversation, question, category (its name), evidence (its "
                             "dia_ids), and modes: for each mode, top10 (the first ten distinct dia_ids of the results, in rank "
                             "order), recall@5 and recall@10")
    parser.add_argument("--url", help="use this running server instead of starting one")
    parser.add_argument("--api-key", help="Bearer key for --url")
    parser.add_argument("--limit-conversations", type=int, help="only the first N conversations")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, of hybrid,bm25,vector")
    parser.add_argument("--alpha", type=float, help="search alpha (default: the server's)")
    parser.add_argument("--half-life-days", type=float, help="search half_life_days (default: the server's)")
    parser.add_argument("--keep", type=Path, help="keep the ingested data dir here and reuse it when still valid")
    parser.add_argument("--variant", action="append", default=[], help="NAME:MEMEX_X=value,... (repeatable)")
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = sorted(set(args.modes) - set(MODES))
    if unknown or not args.modes:
        parser.error(f"--modes: unknown {unknown}, choose among {', '.join(MODES)}")
    try:
        args.variants = dict([(DEFAULT_VARIANT, {})] + [parse_variant(v) for v in args.variant])
    except ValueError as exc:
        parser.error(str(exc))
    if args.url and len(args.variants) > 1:
        parser.error("--variant needs a server of our own (not --url)")
    if args.url and args.keep:
        parser.error("--keep needs a server of our own (not --url)")
    if len(args.variants) > 1 and LATENCY_MODE not in args.modes:
        parser.error(f"--variant compares {LATENCY_MODE} searches: include it in --modes")
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    started = time.perf_counter()
    raw = args.data.read_bytes()
    samples = json.loads(raw)
    if args.limit_conversations is not None:
        samples = samples[: args.limit_conversations]
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    scoring = {name: value for name, value in (("alpha", args.alpha), ("half_life_days", args.half_life_days))
               if value is not None}
    timeout = httpx.Timeout(600, connect=10)

    def client(url: str) -> httpx.Client:
        return httpx.Client(base_url=url, headers=headers, timeout=timeout)

    variants: dict[str, dict[str, Any]] = {}
    with data_dir(args.keep) as home:
        key = ingest_key(raw, [s["sample_id"] for s in samples])
        tag = None if args.url else prepare_kept(home, key) if args.keep else None
        ingest_seconds = 0.0
        if tag is None:
            tag = uuid.uuid4().hex[:8]
            if not args.url:
                write_marker(home, key, tag, complete=False)
            with (running_server(args.url) if args.url else server_on(home, {})) as url, client(url) as c:
                print(f"server: {url} (run tag {tag}), ingesting", flush=True)
                ingest_seconds = ingest(c, samples, tag)
                if args.url:
                    rows, latencies, skipped = evaluate(c, samples, tag, args.modes, scoring)
                    variants[DEFAULT_VARIANT] = {"env": {}, "rows": rows, "latencies": latencies}
            if not args.url:
                write_marker(home, key, tag, complete=True, ingest_seconds=round(ingest_seconds, 1))
        else:
            print(f"{home}: reusing the ingest of run {tag}", flush=True)
        for name, env in args.variants.items():
            if name in variants:
                continue
            with server_on(home, env) as url, client(url) as c:
                print(f"variant {name} {env or ''}: {url}", flush=True)
                modes = args.modes if name == DEFAULT_VARIANT else [LATENCY_MODE]
                rows, latencies, skipped = evaluate(c, samples, tag, modes, scoring)
                variants[name] = {"env": env, "rows": rows, "latencies": latencies}

    default = variants[DEFAULT_VARIANT]
    report = {
        **summarise(default["rows"], default["latencies"], args.modes),
        "skipped_no_evidence": skipped,
        "conversations": len(samples),
        "data": str(args.data),
        "ingest_seconds": round(ingest_seconds, 1),
        "ingest_reused": ingest_seconds == 0.0,
        "total_seconds": round(time.perf_counter() - started, 1),
    }
    if len(variants) > 1:
        report["variants"] = {name: {"env": v["env"], **summarise(v["rows"], v["latencies"], [LATENCY_MODE])}
                              for name, v in variants.items()}
        report["leave_one_out"] = leave_one_out({name: v["rows"] for name, v in variants.items()})
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.per_question:
        with open(args.per_question, "w") as f:
            for name, v in variants.items():
                for row in v["rows"]:
                    f.write(json.dumps(per_question_line(name, row)) + "\n")
    print()
    print(render(report))
    if "variants" in report:
        print(render_variants(report))
    return report


@contextmanager
def data_dir(keep: Path | None) -> Iterator[Path]:
    """The kept data dir, or a fresh one removed at the end."""
    if keep is not None:
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="memex-bench-") as directory:
        yield Path(directory)


if __name__ == "__main__":
    main()
