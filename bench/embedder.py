"""Measure MiniLMEmbedder throughput: batches of 64 versus one text at a time, plus model load.

Run from the repository root: PYTHONPATH=shared python -m bench.embedder
"""

from __future__ import annotations

import random
import time

from memex.embeddings.minilm import MiniLMEmbedder

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


def main() -> None:
    texts = make_sentences(N_TEXTS)
    embedder = MiniLMEmbedder(batch_size=BATCH_SIZE)

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

    words = [len(t.split()) for t in texts]
    print(f"model: {embedder.name} (dim {embedder.dim})")
    print(f"texts: {len(texts)} sentences, {min(words)}-{max(words)} words, mean {sum(words) / len(words):.1f}")
    print(f"model load (first embed call): {load_s:.2f} s")
    print(f"batch of {BATCH_SIZE}: {len(texts) / batched_s:.1f} embeddings/s ({batched_s:.2f} s)")
    print(f"one at a time: {len(texts) / single_s:.1f} embeddings/s ({single_s:.2f} s)")
    print(f"speed-up from batching: {single_s / batched_s:.1f}x")


if __name__ == "__main__":
    main()
