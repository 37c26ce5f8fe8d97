"""Where an import's time goes: the wall time of the pipeline's steps, summed over the run and
per chunk (`--phases`), and optionally a stand-in embedder that costs next to nothing, to time
everything but the embedder (`--stand-in-embedder`: hash-seeded random unit vectors, so that
nearest neighbours, and therefore some decisions, differ from the real model's).

The steps are timed by wrapping the module functions for the length of the run: a bench's
measurement, never the service's code path."""

from __future__ import annotations

import functools
import os
import time
import zlib
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator

import numpy as np

# (module, function) pairs timed, in the order they are printed; nested steps overlap.
STEPS = [("memex.backfill", "_do_chunk"), ("memex.pipeline", "extract_many"), ("memex.pipeline", "_store_episodic"),
         ("memex.db.memories", "insert_many"), ("memex.pipeline", "resolve_many"),
         ("memex.pipeline", "candidate_vectors"), ("memex.db.memories", "related_active"),
         ("memex.pipeline", "_write"), ("memex.db.memories", "insert"), ("memex.timeline", "_said_before"),
         ("memex.db.backfills", "insert_turns"), ("memex.db.turns", "session_histories")]


@contextmanager
def timed(embedder, stand_in: bool) -> Iterator[dict]:
    """Time the steps and the embedder's calls until the block ends; the figures are in the
    yielded dict: totals {step: [seconds, calls]}, chunks [{step: seconds, "load": 1-minute load}],
    texts (how many texts were embedded)."""
    import importlib

    report: dict = {"totals": defaultdict(lambda: [0.0, 0]), "chunks": [], "texts": 0}
    restore = []

    def wrap(owner, name: str, label: str) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        def step(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                total = report["totals"][label]
                total[0] += time.perf_counter() - started
                total[1] += 1

        setattr(owner, name, step)
        restore.append((owner, name, inner))

    embed = embedder.embed

    def counted(texts):
        report["texts"] += len(texts)
        return _stand_in(texts, embedder.dim) if stand_in else embed(texts)

    embedder.embed = counted
    restore.append((embedder, "embed", embed))
    wrap(embedder, "embed", "embedder")
    for module, name in STEPS:
        wrap(importlib.import_module(module), name, f"{module.removeprefix('memex.')}.{name}")
    backfill = importlib.import_module("memex.backfill")
    chunk = backfill._do_chunk

    def per_chunk(*args, **kwargs):
        before = {label: seconds for label, (seconds, _) in report["totals"].items()}
        try:
            return chunk(*args, **kwargs)
        finally:
            report["chunks"].append({**{label: seconds - before.get(label, 0.0)
                                        for label, (seconds, _) in report["totals"].items()},
                                     "load": os.getloadavg()[0]})

    backfill._do_chunk = per_chunk
    restore.append((backfill, "_do_chunk", chunk))
    try:
        yield report
    finally:
        for owner, name, inner in reversed(restore):
            setattr(owner, name, inner)


def _stand_in(texts, dim: int) -> np.ndarray:
    out = np.empty((len(texts), dim), dtype=np.float32)
    for i, text in enumerate(texts):
        vector = np.random.default_rng(zlib.crc32(text.encode("utf-8", "surrogatepass"))).standard_normal(dim)
        out[i] = vector / np.linalg.norm(vector)
    return out


def print_report(report: dict) -> None:
    print(f"  texts embedded: {report['texts']}")
    for label, (seconds, calls) in sorted(report["totals"].items(), key=lambda kv: -kv[1][0]):
        print(f"  {label:36} {seconds:8.2f} s {calls:7d} calls")
    print("  per chunk: seconds (embedder, episodic insert, decisions, related look-ups), load")
    for i, chunk in enumerate(report["chunks"], 1):
        print(f"  {i:4d} {chunk.get('backfill._do_chunk', 0):7.2f} ({chunk.get('embedder', 0):6.2f} "
              f"{chunk.get('db.memories.insert_many', 0):6.2f} {chunk.get('pipeline.resolve_many', 0):6.2f} "
              f"{chunk.get('db.memories.related_active', 0):6.2f}) {chunk['load']:5.1f}")
