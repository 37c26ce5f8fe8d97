"""Calibration of the relevance floor (shared/memex/retrieval/floor.py) on LoCoMo questions
against off-topic queries.

    python -m bench.floor --data ../shared/bench/locomo-dev.json

Ingests the conversations in-process (embedded Postgres in a temporary folder), then reads
both channels' raw signals for every question with evidence and for a list of off-topic
queries, and prints: the share of questions and of off-topic queries the gate lets through,
and the share of evidence-holding memories the item floor keeps.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from bench import locomo

OFF_TOPIC = [
    "What is the capital of Mongolia?", "How do I fix a segmentation fault in my C++ program?",
    "What's the boiling point of mercury?", "Explain the rules of cricket", "Who won the 1998 world cup?",
    "How many moons does Jupiter have?", "What is the derivative of x squared?", "Translate hello into Japanese",
    "What is the GDP of Canada?", "How do quantum computers factor integers?",
    "Recommend a Kubernetes ingress controller", "What is the half-life of carbon-14?", "Who wrote War and Peace?",
    "What is the tallest mountain in Africa?", "How do I configure an nginx reverse proxy?",
    "Which programming language is best for embedded systems?", "What time zone is Auckland in?",
    "How do vaccines train the immune system?", "What is the population of Lagos?", "Define a monad",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, type=Path)
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    for name in ("DATABASE_URL", "SQS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL",
                 "BACKFILL_QUEUE_URL", "MEMEX_HOME"):
        os.environ.pop(name, None)
    from infra.local.runtime import LocalRuntime

    with tempfile.TemporaryDirectory() as home:
        runtime = LocalRuntime(Path(home)).start()
        try:
            report = calibrate(samples)
        finally:
            runtime.stop()
    print(report)


def calibrate(samples) -> str:
    from memex.db import memories as memory_rows
    from memex.ingest import ingest_turn
    from memex.models import SearchFilters, TurnIn
    from memex.retrieval import floor
    from memex.retrieval.search import _iterative_scan
    from memex_edge.context import get_context

    ctx = get_context()
    conn = ctx.db.connection()

    def signals(user_id: str, query: str):
        scope = ("default", user_id, None, SearchFilters(), False)
        keyword, size = memory_rows.keyword_ranked(conn, *scope, query, 100, ctx.settings.keyword_max_postings)
        vector = memory_rows.vector_ranked(conn, *scope, ctx.embedder.embed([query])[0], 100,
                                           ctx.settings.vector_exact_max if _iterative_scan(ctx) else None,
                                           ctx.settings.vector_ef_search)
        bm25 = {item: floor.bm25_units(score, size) for item, score in keyword}
        similarity = dict(vector)
        return {item: (bm25.get(item), similarity.get(item)) for item in bm25.keys() | similarity.keys()}

    questions = passed = evidence = kept = off_topic = leaked = 0
    for sample in samples:
        user_id = sample["sample_id"]
        for turn in locomo.build_turns(sample, user_id):
            ingest_turn(ctx, "default", TurnIn.model_validate(turn), wait=True)
        dia_of = {}
        for question in locomo.scored_questions(sample)[0]:
            found = signals(user_id, question["question"])
            missing = [item for item in found if item not in dia_of]
            for item, memory in memory_rows.get_many(conn, "default", missing).items():
                dia_of[item] = {s["metadata"].get("dia_id") for s in memory["sources"]}
            questions += 1
            passed += floor.query_passes(found.values())
            for item, (bm25, similarity) in found.items():
                if dia_of.get(item, set()) & set(question["evidence"]):
                    evidence += 1
                    kept += floor.item_passes(bm25, similarity)
        for query in OFF_TOPIC:
            off_topic += 1
            leaked += floor.query_passes(signals(user_id, query).values())
    return (f"gate: {passed / questions:.3f} of {questions} LoCoMo questions pass, "
            f"{leaked / off_topic:.3f} of {off_topic} off-topic queries pass\n"
            f"item floor: keeps {kept / evidence:.3f} of {evidence} evidence-holding memories among the candidates")


if __name__ == "__main__":
    main()
