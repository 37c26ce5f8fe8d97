"""Measure MiniLMEmbedder throughput: batches of 64 versus one text at a time, plus model load,
under each BLAS thread setting, in one run.

Run from the repository root: PYTHONPATH=.:shared python -m bench.embedder [--blas-threads 1,0] [--rounds 1]

`--blas-threads` takes MEMEX_EMBEDDINGS_BLAS_THREADS values: 1 is the default cap, 0 numpy's own
default (one thread per core). The cap is process-wide and kept once the model loads, so each
setting runs in a fresh interpreter; with several rounds the settings alternate, and medians are
printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import random
import time

N_TEXTS = 256
BATCH_SIZE = 64
SEED = 7

_SUBJECTS = [
    "I", "My sister", "Our team lead", "The user", "My landlord", "Caroline", "My partner",
    "The new intern", "Grandma", "My manager at Notion", "Our neighbour", "The client",
]
_PREDICATES = [
    "started learning Portuguese", "stopped drinking coffee", "moved back to Lisbon",
    "keeps forgetting the quarterly report", "really enjoys hiking in the Alps",
    "is allergic to peanuts and shellfish", "signed up for a pottery class",
    "complained about the TypeScript migration", "joined the gym downstairs",
    "bought a vegetarian cookbook", "sold the old apartment in Berlin",
    "adopted a rescue dog called Biscuit", "switched to a standing desk",
    "is planning a surprise party for Mia",
]
_TIMES = [
    "last spring", "yesterday evening", "in 2023", "every Sunday morning", "since the pandemic",
    "two weeks ago", "right after the wedding", "before the conference",
]
_DETAILS = [
    "because the doctor said it would help with sleep",
    "and wants a reminder before the next appointment",
    "although the weather there is usually terrible in November",
    "so please do not suggest it again in future conversations",
    "which surprised everyone at the family dinner",
    "and would like weekly progress notes about it",
    "but only on weekends when the kids are with their father",
    "after reading a long article about it on the train",
]


def make_sentences(n: int, seed: int = SEED) -> list[str]:
    """Deterministic memory-like sentences of 8 to 30 words."""
    rng = random.Random(seed)
    sentences = []
    while len(sentences) < n:
        clauses = [rng.choice(_SUBJECTS), rng.choice(_PREDICATES), rng.choice(_TIMES)]
        clauses += rng.sample(_DETAILS, rng.randint(0, 2))
        sentence = " ".join(clauses)
        if 8 <= len(sentence.split()) <= 30:
            sentences.append(sentence + ".")
    return sentences


def measure(blas_threads: int) -> dict:
    """One fresh interpreter's figures: model load, the texts in batches, then one at a time."""
    from threadpoolctl import threadpool_info

    from memex.embeddings.minilm import MiniLMEmbedder

    texts = make_sentences(N_TEXTS)
    embedder = MiniLMEmbedder(batch_size=BATCH_SIZE, blas_threads=blas_threads)

    start = time.perf_counter()
    embedder.embed(["warm-up"])
    load_s = time.perf_counter() - start

    start = time.perf_counter()
    embedder.embed(texts)
    batched_s = time.perf_counter() - start

    start = time.perf_counter()
    for text in texts:
        embedder.embed([text])
    single_s = time.perf_counter() - start
    threads = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    return {"load_s": load_s, "batched_s": batched_s, "single_s": single_s, "threads_in_use": threads}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--blas-threads", default="1,0",
                        help="comma-separated MEMEX_EMBEDDINGS_BLAS_THREADS values (default 1,0)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child)))
        return

    settings = [int(v) for v in args.blas_threads.split(",")]
    runs: dict[int, list[dict]] = {setting: [] for setting in settings}
    for _ in range(args.rounds):
        for setting in settings:
            result = subprocess.run([sys.executable, "-m", "bench.embedder", "--child", str(setting)],
                                    capture_output=True, text=True, check=True)
            runs[setting].append(json.loads(result.stdout))

    texts = make_sentences(N_TEXTS)
    words = [len(t.split()) for t in texts]
    print(f"model: all-MiniLM-L6-v2 (dim 384), {args.rounds} round(s), medians")
    print(f"texts: {len(texts)} sentences, {min(words)}-{max(words)} words, mean {sum(words) / len(words):.1f}")
    print(f"{'BLAS threads setting':<21} {'in use':>6} {'model load':>10} {'batch of ' + str(BATCH_SIZE):>12} "
          f"{'one at a time':>14} {'batching':>9}")
    for setting, results in runs.items():
        load = statistics.median(r["load_s"] for r in results)
        batched = statistics.median(len(texts) / r["batched_s"] for r in results)
        single = statistics.median(len(texts) / r["single_s"] for r in results)
        in_use = ",".join(str(t) for t in results[0]["threads_in_use"])
        print(f"{setting:<21} {in_use:>6} {load:>9.2f}s {batched:>8.1f} /s {single:>10.1f} /s {batched / single:>8.1f}x")
    print("(embeddings per second; 'in use': numpy's BLAS threads after the model loaded)")


if __name__ == "__main__":
    main()
