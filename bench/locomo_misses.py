"""Where the LoCoMo evidence that recall@10 misses is, on an ingest kept by bench.locomo.

    .venv/bin/python -m bench.locomo_misses --data /work/shared/bench/locomo-dev.json --keep DIR \\
        [--categories multi-hop,open-domain] [--lines misses.jsonl]

DIR is a complete `bench.locomo --keep DIR` ingest of the same data file (its key is checked).
Each question of the categories asked is searched in hybrid and in vector mode (top_k 100, the
API's most) on a server over that ingest, settings at their defaults, and each evidence line not
in the hybrid top 10 is tallied: its hybrid rank band (11-25, 26-50, 51-100, beyond: ranked lower
or below the relevance floor), its vector-only band, whether it shares a content word with the
question, whether the question named its speaker, and, when some other evidence line of the
question is in the top 10, whether it is in that line's session and shares a content word with it.
A content word is 3+ letters and not in a short list of function words; names count as words.
`--lines` writes one JSON line per missed line (question, dia_id, ranks) for reading by hand:
it quotes the data file, so it belongs outside the repository.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import httpx

from bench import locomo
from memex.extraction.vocabulary import FUNCTION_WORDS

DEPTH = 100


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in FUNCTION_WORDS}


def band(rank: int | None, edges: Sequence[int]) -> str:
    """The first band of `edges` holding `rank` ("11-25"...), or "beyond DEPTH" when not ranked."""
    low = 1
    for high in edges:
        if rank is not None and rank <= high:
            return f"{low}-{high}"
        low = high + 1
    return f"beyond {DEPTH}"


def tally_question(qa: dict[str, Any], lines: dict[str, dict[str, Any]], hybrid: list[str],
                   vector: list[str]) -> tuple[Counter[str], list[dict[str, Any]]]:
    """The tallies of one question's missed evidence lines, and the lines themselves."""
    tally: Counter[str] = Counter()
    missed: list[dict[str, Any]] = []
    top = set(hybrid[:10])
    found = [e for e in qa["evidence"] if e in top]
    found_sessions = {e.split(":")[0] for e in found}
    found_words = set().union(*(content_words(lines[e]["text"]) for e in found if e in lines))
    asked = content_words(qa["question"])
    for dia_id in qa["evidence"]:
        if dia_id in top:
            tally["in the top 10"] += 1
            continue
        line = lines.get(dia_id, {})
        words = content_words(line.get("text", ""))
        rank = hybrid.index(dia_id) + 1 if dia_id in hybrid else None
        vector_rank = vector.index(dia_id) + 1 if dia_id in vector else None
        tally["missed"] += 1
        tally[f"missed: hybrid rank {band(rank, (10, 25, 50, DEPTH))}"] += 1
        tally[f"missed: vector rank {band(vector_rank, (10, 50, DEPTH))}"] += 1
        tally["missed: shares a word with the question" if words & asked else "missed: no word of the question"] += 1
        speaker = line.get("speaker", "")
        tally["missed: its speaker named" if speaker and speaker.lower() in qa["question"].lower()
              else "missed: its speaker not named"] += 1
        if found:
            tally["missed, another line found: same session as one" if dia_id.split(":")[0] in found_sessions
                  else "missed, another line found: other session"] += 1
            tally["missed, another line found: shares a word with it" if words & found_words
                  else "missed, another line found: no word in common"] += 1
        else:
            tally["missed, no line of the question found"] += 1
        missed.append({"question": qa["question"], "dia_id": dia_id, "rank": rank, "vector_rank": vector_rank})
    return tally, missed


def main(argv: Sequence[str] | None = None) -> dict[str, Counter[str]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--keep", type=Path, required=True, help="a complete bench.locomo --keep ingest of --data")
    parser.add_argument("--categories", default="multi-hop,open-domain")
    parser.add_argument("--lines", type=Path, help="one JSON line per missed evidence line (outside the repository)")
    args = parser.parse_args(argv)
    raw = args.data.read_bytes()
    samples = json.loads(raw)
    marker = json.loads((args.keep / locomo.MARKER).read_text())
    if not marker.get("complete") or marker.get("key") != locomo.ingest_key(raw, [s["sample_id"] for s in samples]):
        raise SystemExit(f"{args.keep}: not a complete ingest of {args.data} by this code; run bench.locomo --keep first")
    wanted = set(args.categories.split(","))
    tallies: dict[str, Counter[str]] = {}
    missed: list[dict[str, Any]] = []
    with locomo.server_on(args.keep, {}) as url, httpx.Client(base_url=url, timeout=600) as client:
        for sample in samples:
            lines = {d["dia_id"]: d for _, dialog, _ in locomo.sessions(sample["conversation"]) for d in dialog}
            body = {"user_id": f"{marker['tag']}-{sample['sample_id']}", "top_k": DEPTH,
                    "reference_time": locomo.reference_time(sample)}
            for qa in locomo.scored_questions(sample)[0]:
                category = locomo.category_name(qa["category"])
                if category not in wanted:
                    continue
                ranked = {mode: locomo.distinct_dia_ids(client.post(
                    "/v1/search", json={**body, "query": qa["question"], "mode": mode}).raise_for_status().json()["results"])
                    for mode in ("hybrid", "vector")}
                tally, lost = tally_question(qa, lines, ranked["hybrid"], ranked["vector"])
                tallies.setdefault(category, Counter()).update(tally)
                tallies[category]["questions"] += 1
                missed += [{"conversation": sample["sample_id"], "category": category, **m} for m in lost]
    for category, tally in tallies.items():
        print(f"{category}:")
        for name in sorted(tally):
            print(f"  {name:<55}{tally[name]:>6}")
    if args.lines:
        args.lines.write_text("".join(json.dumps(m) + "\n" for m in missed))
    return tallies


if __name__ == "__main__":
    main()
