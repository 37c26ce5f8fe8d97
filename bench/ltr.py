"""Learning the final order of hybrid search (retrieval/learned.py): fitting it and measuring it.

    .venv/bin/python -m bench.locomo --data ../shared/bench/locomo-dev.json --keep /tmp/locomo-kept \\
        --modes hybrid --out /tmp/locomo.json          # the ingest, once
    .venv/bin/python -m bench.ltr --collect --data ../shared/bench/locomo-dev.json --keep /tmp/locomo-kept \\
        --candidates /tmp/ltr-candidates.jsonl [--env MEMEX_X=VALUE ...] [--out /tmp/ltr.json]
    .venv/bin/python -m bench.ltr --candidates /tmp/ltr-candidates.jsonl    # again, from what was collected

--collect starts the service over a data dir that `python -m bench.locomo --keep DIR` ingested (its
settings at their defaults but for --env, the learned order off) and asks every question with evidence as a hybrid search, top_k 50;
each result's score parts and what else the service knows of it at the point where it orders the
candidates (the memory's type, length, speaker, time, the turn and message it was said in) go to --candidates, one JSON line per
question. That file holds the dataset's questions: keep it outside the repository.

Then, offline: the features of each candidate (learned.FEATURES), a pairwise logistic regression with an L2
penalty (evidence above non-evidence of the same question), and recall@5/10 of three orders: the
service's own, the learned one leave-one-conversation-out (fitted on four conversations, its
penalty chosen among PENALTIES by the same leave-one-out inside those four, scored on the fifth)
and the learned one fitted on the whole file (optimistic: scored on what it was fitted on), whose
weights, printed last, are learned.WEIGHTS; "shipped" is the order under learned.WEIGHTS as they are.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

import httpx
import numpy as np

from bench.locomo import (KS, LATENCY_MODE, MARKER, TOP_K, aggregate, distinct_dia_ids, percentile, recall_at,
                          reference_time, scored_questions, server_on)
from bench.service import settings_env
from memex.db.memories import Found
from memex.retrieval import learned

PENALTIES = (1.0, 10.0, 100.0, 1000.0)
# What --collect asks is the blend's own order: the model learns to re-order it.
LEARNED_OFF = {"MEMEX_SEARCH_LEARNED": "0"}

# --- collecting --------------------------------------------------------------------------------

def candidate_of(result: dict[str, Any]) -> dict[str, Any]:
    metadata = result.get("metadata") or {}
    source = (result.get("sources") or [{}])[-1]
    return {"dia_ids": distinct_dia_ids([result]), "score_parts": result["score_parts"],
            "memory_type": result["memory_type"], "content": result["content"],
            "speaker": metadata.get("name") or (result["subject"] if result["subject"] != "user" else None),
            "subject": result["subject"], "valid_from": result["valid_from"],
            # the turn and the message it was said in, or (a fact) drawn from: its moment
            "turn_id": source.get("turn_id"), "message_id": source.get("message_id")}


def collect(data: Path, keep: Path, out: Path, env: dict[str, str]) -> None:
    samples = json.loads(data.read_bytes())
    tag = json.loads((keep / MARKER).read_text())["tag"]
    with server_on(keep, {**env, **LEARNED_OFF}) as url, \
            httpx.Client(base_url=url, timeout=600) as client, open(out, "w") as f:
        for sample in samples:
            t0 = time.perf_counter()
            questions, _ = scored_questions(sample)
            when = reference_time(sample)
            for qa in questions:
                body = {"user_id": f"{tag}-{sample['sample_id']}", "query": qa["question"], "top_k": TOP_K,
                        "reference_time": when, "mode": LATENCY_MODE}
                response = client.post("/v1/search", json=body)
                response.raise_for_status()
                f.write(json.dumps({"conversation": sample["sample_id"], **qa, "reference_time": when,
                                    "candidates": [candidate_of(r) for r in response.json()["results"]]}) + "\n")
            print(f"{sample['sample_id']}: {len(questions)} questions in {time.perf_counter() - t0:.1f} s", flush=True)


# --- features ------------------------------------------------------------------------------------

def prepared(questions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question with its feature matrix and labels (a candidate is evidence when one of its
    dia_ids is)."""
    out = []
    for q in questions:
        now = datetime.fromisoformat(q["reference_time"].replace("Z", "+00:00"))
        found = [Found(datetime.fromisoformat(c["valid_from"].replace("Z", "+00:00")), c["score_parts"]["importance"],
                       c["content"], c["speaker"], c["subject"], c["turn_id"], c["message_id"], c["memory_type"])
                 for c in q["candidates"]]
        rows = learned.features(q["question"], now, [(c["score_parts"], f) for c, f in zip(q["candidates"], found)])
        X = np.array(rows, dtype=float).reshape(len(found), len(learned.FEATURES))
        y = np.array([bool(set(c["dia_ids"]) & set(q["evidence"])) for c in q["candidates"]], dtype=bool)
        out.append({**q, "X": X, "y": y, "found": found})
    return out


def reorder_cost(questions: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Milliseconds of learned.reorder over each question's candidates, as the service holds them
    (in-process, one question at a time)."""
    times = []
    for q in questions:
        now = datetime.fromisoformat(q["reference_time"].replace("Z", "+00:00"))
        scored = [(str(i), c["score_parts"]["score"], c["score_parts"]) for i, c in enumerate(q["candidates"])]
        found = {str(i): row for i, row in enumerate(q["found"])}
        started = time.perf_counter()
        learned.reorder(q["question"], now, scored, found)
        times.append((time.perf_counter() - started) * 1000)
    return {"p50": round(percentile(times, 50), 3), "p95": round(percentile(times, 95), 3), "max": round(max(times), 3)}


# --- the model -----------------------------------------------------------------------------------

def pairs(questions: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """x_evidence - x_other for every (evidence, non-evidence) pair of a question, each question's
    pairs weighted to sum to 1 (a question with many candidates does not count for more)."""
    diffs, weights = [], []
    for q in questions:
        pos, neg = q["X"][q["y"]], q["X"][~q["y"]]
        if len(pos) == 0 or len(neg) == 0:
            continue
        d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, pos.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), 1.0 / len(d)))
    return np.vstack(diffs), np.concatenate(weights)


def standardiser(questions: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    X = np.vstack([q["X"] for q in questions])
    mean, std = X.mean(axis=0), X.std(axis=0)
    return mean, np.where(std > 1e-9, std, 1.0)


def fit(questions: Sequence[dict[str, Any]], penalty: float) -> np.ndarray:
    """Weights on the raw features: pairwise logistic loss + penalty/2 |w|^2 on standardised
    features, by Newton's method (convex, a few dozen features)."""
    mean, std = standardiser(questions)
    D, weights = pairs(questions)
    D = D / std
    w = np.zeros(D.shape[1])
    for _ in range(50):
        z = D @ w
        p = 1.0 / (1.0 + np.exp(-z))
        gradient = -D.T @ (weights * (1 - p)) + penalty * w
        hessian = (D * (weights * p * (1 - p))[:, None]).T @ D + penalty * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w / std


def reordered(q: dict[str, Any], w: np.ndarray) -> list[dict[str, Any]]:
    scores = q["X"] @ w
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [q["candidates"][i] for i in order]


def recalls(q: dict[str, Any], candidates: Sequence[dict[str, Any]]) -> dict[int, float]:
    retrieved = [d for c in candidates for d in c["dia_ids"]]
    retrieved = list(dict.fromkeys(retrieved))
    return {k: recall_at(q["evidence"], retrieved, k) for k in KS}


def mean_at(questions: Sequence[dict[str, Any]], w: np.ndarray, k: int = 10) -> float:
    return sum(recalls(q, reordered(q, w))[k] for q in questions) / len(questions)


def choose_penalty(questions: Sequence[dict[str, Any]]) -> float:
    """The penalty with the best leave-one-conversation-out R@10 within `questions`."""
    conversations = list(dict.fromkeys(q["conversation"] for q in questions))

    def held_out(penalty: float) -> float:
        total = 0.0
        for c in conversations:
            w = fit([q for q in questions if q["conversation"] != c], penalty)
            total += sum(recalls(q, reordered(q, w))[10] for q in questions if q["conversation"] == c)
        return total / len(questions)

    return max(PENALTIES, key=held_out)


def report(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    conversations = list(dict.fromkeys(q["conversation"] for q in questions))
    current = [(q["category"], recalls(q, q["candidates"])) for q in questions]
    held_out, folds = [], []
    for c in conversations:
        train = [q for q in questions if q["conversation"] != c]
        penalty = choose_penalty(train)
        w = fit(train, penalty)
        test = [q for q in questions if q["conversation"] == c]
        held_out += [(q["category"], recalls(q, reordered(q, w))) for q in test]
        folds.append({"conversation": c, "penalty": penalty, "held_out_recall@10": round(mean_at(test, w), 4),
                      "current_recall@10": round(sum(recalls(q, q["candidates"])[10] for q in test) / len(test), 4)})
    penalty = choose_penalty(questions)
    w = fit(questions, penalty)
    whole = [(q["category"], recalls(q, reordered(q, w))) for q in questions]
    shipped_weights = np.array([learned.WEIGHTS[name] for name in learned.FEATURES])
    shipped = [(q["category"], recalls(q, reordered(q, shipped_weights))) for q in questions]
    return {"current": aggregate(current, KS), "leave_one_out": {**aggregate(held_out, KS), "folds": folds},
            "whole_file": {**aggregate(whole, KS), "penalty": penalty}, "shipped": aggregate(shipped, KS),
            "weights": dict(zip(learned.FEATURES, (round(float(v), 4) for v in w)))}


def render(result: dict[str, Any]) -> str:
    """The figures, the cost of re-ordering and the whole-file weights (report() and reorder_ms)."""
    lines = [f"{'order':<14}{'R@5':>7}{'R@10':>7}{'R@25':>7}  multi-hop R@5 / R@10"]
    for name in ("current", "leave_one_out", "whole_file", "shipped"):
        r = result[name]
        mh = r["by_category"].get("multi-hop", {})
        lines.append(f"{name:<14}{r['recall@5']:>7.3f}{r['recall@10']:>7.3f}{r['recall@25']:>7.3f}"
                     f"  {mh.get('recall@5', 0):.3f} / {mh.get('recall@10', 0):.3f}")
    lines.append("")
    for fold in result["leave_one_out"]["folds"]:
        lines.append(f"  {fold['conversation']:<10} penalty {fold['penalty']:<6} held-out R@10 "
                     f"{fold['held_out_recall@10']:.3f} (current {fold['current_recall@10']:.3f})")
    lines.append("")
    lines.append("category       current R@5/R@10   LOO R@5/R@10   whole R@5/R@10")
    for cat, c in result["current"]["by_category"].items():
        lo, wh = result["leave_one_out"]["by_category"][cat], result["whole_file"]["by_category"][cat]
        lines.append(f"{cat:<14} {c['recall@5']:.3f} / {c['recall@10']:.3f}    {lo['recall@5']:.3f} / "
                     f"{lo['recall@10']:.3f}  {wh['recall@5']:.3f} / {wh['recall@10']:.3f}")
    lines.append("")
    cost = result["reorder_ms"]
    lines.append(f"learned.reorder in-process: p50 {cost['p50']:.2f} ms, p95 {cost['p95']:.2f} ms, max {cost['max']:.2f} ms")
    lines.append("")
    lines.append("weights (whole file), for learned.WEIGHTS:")
    lines.append("{" + ", ".join(f'"{k}": {v:.3g}' for k, v in result["weights"].items()) + "}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ltr", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="the LoCoMo file (with --collect)")
    parser.add_argument("--keep", type=Path, help="a data dir `bench.locomo --keep` ingested (with --collect)")
    parser.add_argument("--candidates", type=Path, required=True, help="the collected candidates (JSON lines)")
    parser.add_argument("--collect", action="store_true", help="collect the candidates first")
    parser.add_argument("--env", action="append", default=[], metavar="MEMEX_X=VALUE",
                        help="a setting of the service --collect starts (repeatable; the others at their defaults)")
    parser.add_argument("--out", type=Path, help="write the figures and weights here as JSON")
    args = parser.parse_args(argv)
    try:
        args.env = settings_env(args.env)
    except ValueError as exc:
        parser.error(f"--env {exc}")
    if args.collect and (args.keep is None or args.data is None):
        parser.error("--collect needs --keep and --data")
    if args.env and not args.collect:
        parser.error("--env sets the service of --collect")
    if LEARNED_OFF.keys() & args.env.keys():
        parser.error("--env: --collect asks for the blend's own order (MEMEX_SEARCH_LEARNED=0)")
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    if args.collect:
        collect(args.data, args.keep, args.candidates, args.env)
    questions = prepared([json.loads(line) for line in args.candidates.read_text().splitlines()])
    result = {**report(questions), "reorder_ms": reorder_cost(questions)}
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(render(result))
    return result


if __name__ == "__main__":
    main()
