"""Consolidation on LoCoMo: active memories and recall@10 before and after `memex consolidate`.

    .venv/bin/python -m bench.consolidation --data /work/shared/bench/locomo-dev.json \\
        [--similarities 0,0.85] [--max-group N] [--threshold N] [--min-age-days D] [--limit-conversations N] \\
        [--out FILE]

Run it from the repository root. It starts `python -m infra.local` on a fresh data dir, ingests the
conversations once per variant (each variant its own users, so one consolidation does not see
another's), asks every question with evidence (hybrid, top_k 50, as bench.locomo does) of the
first variant's users, then for each variant runs `memex consolidate --tenant default` in its own
process against the same data dir, with MEMEX_CONSOLIDATION_SIMILARITY set to the variant's
similarity (0: the seed's rule alone, word-set Jaccard >= 0.7), counts the active memories again
and asks the questions again. The data file is read from where it is, never copied.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Sequence

import httpx

from bench import locomo
from bench.service import memex_cli, serve

TENANT = "default"
MODE = "hybrid"


def active_memories(client: httpx.Client, samples: Sequence[dict[str, Any]], tag: str) -> int:
    total = 0
    for sample in samples:
        response = client.get("/v1/memories/count", params={"user_id": f"{tag}-{sample['sample_id']}"})
        response.raise_for_status()
        total += response.json()["count"]
    return total


def recall_at_10(client: httpx.Client, samples: Sequence[dict[str, Any]], tag: str) -> tuple[float, int]:
    rows, _, _ = locomo.evaluate(client, samples, tag, [MODE])
    return locomo.aggregate([(r["category"], r["modes"][MODE]["recall"]) for r in rows])["recall@10"], len(rows)


def consolidate(home: Path, similarity: float, samples: Sequence[dict[str, Any]], tag: str,
                threshold: int | None, min_age_days: float | None, max_group: int | None) -> dict[str, int]:
    """`memex consolidate` for each of the variant's users, in a process of its own."""
    env = {"MEMEX_HOME": str(home), "MEMEX_CONSOLIDATION_SIMILARITY": str(similarity)}
    if max_group is not None:
        env["MEMEX_CONSOLIDATION_MAX_GROUP"] = str(max_group)
    flags = [*(["--threshold", str(threshold)] if threshold is not None else []),
             *(["--min-age-days", str(min_age_days)] if min_age_days is not None else [])]
    total: dict[str, int] = {}
    for sample in samples:
        printed = memex_cli(["consolidate", "--tenant", TENANT, "--user", f"{tag}-{sample['sample_id']}", *flags],
                            env, timeout=3600)
        for name, value in json.loads(printed).items():
            total[name] = total.get(name, 0) + value
    return total


def render(report: dict[str, Any]) -> str:
    lines = [f"LoCoMo consolidation: {report['conversations']} conversations, {report['questions']} questions, "
             f"{MODE} recall@10 (top_k {locomo.TOP_K})", "",
             "| rule | active memories before | after | change | recall@10 before | after | change | summaries | merged |",
             "|---|---|---|---|---|---|---|---|---|"]
    for v in report["variants"]:
        rule = "Jaccard >= 0.7" + (f" or cosine >= {v['similarity']}" if v["similarity"] else "")
        lines.append(f"| {rule} | {v['active_before']:,} | {v['active_after']:,} | "
                     f"{(v['active_after'] - v['active_before']) / v['active_before']:+.1%} | "
                     f"{report['recall_before']:.3f} | {v['recall_after']:.3f} | "
                     f"{v['recall_after'] - report['recall_before']:+.3f} | {v['summaries']:,} | {v['merged']:,} |")
    lines.append("")
    lines.append(f"ingest {report['ingest_seconds']:.0f} s, total {report['total_seconds']:.0f} s")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.consolidation", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--similarities", default="0",
                        help="comma-separated MEMEX_CONSOLIDATION_SIMILARITY values, one variant each (0: Jaccard only)")
    parser.add_argument("--threshold", type=int, help="memex consolidate --threshold (default: the setting)")
    parser.add_argument("--min-age-days", type=float, help="memex consolidate --min-age-days (default: the setting)")
    parser.add_argument("--max-group", type=int, help="MEMEX_CONSOLIDATION_MAX_GROUP (default: the setting)")
    parser.add_argument("--limit-conversations", type=int)
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    args = parser.parse_args(argv)
    args.similarities = [float(s) for s in args.similarities.split(",") if s.strip()]
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    started = time.perf_counter()
    samples = json.loads(args.data.read_text())[: args.limit_conversations]
    tags = [uuid.uuid4().hex[:8] for _ in args.similarities]
    with tempfile.TemporaryDirectory(prefix="memex-bench-") as tmp:
        home = Path(tmp) / "memex"
        with serve(["-m", "infra.local", "--home", str(home)], 0, Path(tmp)) as url, \
                httpx.Client(base_url=url, timeout=httpx.Timeout(600, connect=10)) as client:
            ingest_seconds = sum(locomo.ingest(client, samples, tag) for tag in tags)
            recall_before, questions = recall_at_10(client, samples, tags[0])
            variants = []
            for similarity, tag in zip(args.similarities, tags):
                before = active_memories(client, samples, tag)
                counts = consolidate(home, similarity, samples, tag, args.threshold, args.min_age_days,
                                     args.max_group)
                after = active_memories(client, samples, tag)
                recall_after, _ = recall_at_10(client, samples, tag)
                variants.append({"similarity": similarity, "active_before": before, "active_after": after,
                                 "recall_after": recall_after, **counts})
                print(f"variant similarity={similarity}: {before} -> {after} active, recall@10 "
                      f"{recall_before:.4f} -> {recall_after:.4f}", flush=True)
    report = {"conversations": len(samples), "max_group": args.max_group, "questions": questions, "recall_before": recall_before,
              "variants": variants, "data": str(args.data), "ingest_seconds": round(ingest_seconds, 1),
              "total_seconds": round(time.perf_counter() - started, 1)}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")
    print()
    print(render(report))
    return report


if __name__ == "__main__":
    main()
