"""Concurrent embedding: the served embedder caps BLAS threads, and calls made at the same time
are embedded together with the same vectors they get alone."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from memex.embeddings.coalescing import CoalescingEmbedder
from memex.embeddings.minilm import MiniLMEmbedder

REFERENCE = Path(__file__).parent / "data" / "all-minilm-l6-v2.json"


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [item["text"] for item in json.loads(REFERENCE.read_text(encoding="utf-8"))["items"]]


class _Stop(BaseException):
    """What a Ctrl-C or an exit is to the embedding caller: no Exception."""


class GatedRecorder:
    """A real MiniLM embedder that records each batch it is given and holds its first call until
    the test opens the gate, so that the other callers are all waiting behind it."""

    def __init__(self) -> None:
        self._inner = MiniLMEmbedder()
        self.name, self.dim = self._inner.name, self._inner.dim
        self.batches: list[list[str]] = []
        self.gate = threading.Event()
        self.fail_with: Exception | None = None
        self.refusing = ""  # a word whose texts it raises for, as a local embedder's own error would
        self.stopping = ""  # a word whose texts, embedded on their own, meet a Ctrl-C
        self.holding = ""  # a word whose texts, embedded on their own, wait until `released`
        self.held, self.released = threading.Event(), threading.Event()

    def embed(self, texts):
        self.batches.append(list(texts))
        if len(self.batches) == 1:
            assert self.gate.wait(30)
        if self.fail_with is not None:
            raise self.fail_with
        if self.refusing and any(self.refusing in text for text in texts):
            raise ValueError("this text is refused")
        if self.stopping and all(self.stopping in text for text in texts):
            raise _Stop()
        if self.holding and all(self.holding in text for text in texts):
            self.held.set()
            assert self.released.wait(30)
        return self._inner.embed(texts)

    def probe(self) -> None:
        self._inner.probe()


def _call_all_at_once(embedder: CoalescingEmbedder, recorder: GatedRecorder, texts: list[str]) -> list:
    """Each text embedded from its own thread; the first call is held until all the others are
    waiting. A call's result is its vectors or the exception it raised."""

    def one(text: str):
        try:
            return embedder.embed([text])
        except Exception as exc:
            return exc

    def all_waiting() -> bool:
        # The held batch and the calls queued behind it (the embedder's own list) hold every text.
        queued = sum(len(call.texts) for call in list(embedder._waiting))
        return len(recorder.batches) == 1 and len(recorder.batches[0]) + queued == len(texts)

    with ThreadPoolExecutor(len(texts)) as pool:
        results = pool.map(one, texts)
        deadline = time.monotonic() + 30
        while not all_waiting():
            assert time.monotonic() < deadline, "the callers never all waited behind the first"
            time.sleep(0.01)
        recorder.gate.set()
        return list(results)


def test_served_embedder_caps_blas_threads(ctx):
    ctx.embedder.embed_query("how many threads does numpy use now?")
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas, "numpy's BLAS is not visible to threadpoolctl"
    assert {lib["num_threads"] for lib in blas} == {1}


def test_served_embedder_coalesces(ctx):
    assert isinstance(ctx.embedder.inner, CoalescingEmbedder)  # inside the MeasuredEmbedder


def test_concurrent_calls_are_batched_and_equal_sequential(texts):
    recorder = GatedRecorder()
    embedder = CoalescingEmbedder(recorder)
    concurrent = np.vstack(_call_all_at_once(embedder, recorder, texts))

    assert len(recorder.batches) < len(texts), "no call was batched with another"
    assert sorted(t for batch in recorder.batches for t in batch) == sorted(texts)
    sequential = np.vstack([MiniLMEmbedder().embed([text]) for text in texts])
    # The same tolerance as a batch against one text at a time (test_embedder_minilm.py): float32
    # matmuls of different shapes round differently in the last bits.
    diff = float(np.max(np.abs(concurrent - sequential)))
    assert diff < 1e-5, f"max abs diff {diff:.2e}"


def test_a_failed_batch_fails_each_caller_and_the_next_call_works(texts):
    recorder = GatedRecorder()
    recorder.fail_with = RuntimeError("embedder down")
    embedder = CoalescingEmbedder(recorder)
    results = _call_all_at_once(embedder, recorder, texts[:4])
    assert all(isinstance(r, RuntimeError) for r in results)

    recorder.fail_with = None
    assert embedder.embed([texts[0]]).shape == (1, embedder.dim)
    assert embedder.embed([]).shape == (0, embedder.dim)


def _answer(embedder, text: str):
    """What embedding `text` gave its caller: the vectors, or what was raised."""
    try:
        return embedder.embed([text])
    except BaseException as exc:  # noqa: BLE001 - what the caller got
        return exc


def _gated_first(pool, recorder: GatedRecorder, embedder, text: str):
    """A first call held at the recorder's gate, once it reached it: the calls after it wait to share a batch."""
    first = pool.submit(_answer, embedder, text)
    deadline = time.monotonic() + 30
    while not recorder.batches:
        assert time.monotonic() < deadline, "the first call never reached the embedder"
        time.sleep(0.01)
    return first


def _queued(embedder, n: int) -> None:
    """Waits until `n` texts wait behind the call being embedded."""
    deadline = time.monotonic() + 30
    while sum(len(call.texts) for call in list(embedder._waiting)) < n:
        assert time.monotonic() < deadline, "the callers never waited behind the first"
        time.sleep(0.01)


def test_a_batch_failing_for_one_callers_text_fails_that_caller_alone(texts):
    """Two callers' texts embedded in one batch (another user's turn, a job start), the embedder raising for one
    caller's text (a local embedder's own error): that error went to both, the innocent caller failing for
    another's text, and a job start then taken for refused. Each caller's texts are embedded again on their
    own: only the caller whose text fails gets the error."""
    recorder = GatedRecorder()
    recorder.refusing = "Kayak"
    embedder = CoalescingEmbedder(recorder)

    with ThreadPoolExecutor(3) as pool:
        first = _gated_first(pool, recorder, embedder, texts[0])  # the two after it share the next batch
        innocent, refused = (pool.submit(_answer, embedder, texts[1]),
                             pool.submit(_answer, embedder, "My employer is Kayak: I work there."))
        _queued(embedder, 2)
        recorder.gate.set()
        results = first.result(), innocent.result(), refused.result()
    assert sorted(recorder.batches[1]) == sorted([texts[1], "My employer is Kayak: I work there."])
    assert isinstance(results[2], ValueError)
    assert not isinstance(results[1], Exception), results[1]
    diff = float(np.max(np.abs(results[1] - MiniLMEmbedder().embed([texts[1]]))))
    assert diff < 1e-5, f"max abs diff {diff:.2e}"


def test_a_stop_while_callers_texts_are_embedded_again_leaves_no_caller_without_an_answer(texts):
    """A batch failing for one caller's text is embedded again caller by caller; a Ctrl-C (a BaseException)
    met there left the callers after it with neither vectors nor an error, and their embed returned None."""
    recorder = GatedRecorder()
    recorder.refusing, recorder.stopping = "Kayak", "Stopped"
    embedder = CoalescingEmbedder(recorder)

    with ThreadPoolExecutor(4) as pool:
        first = _gated_first(pool, recorder, embedder, texts[0])  # the three after it share the next batch, in order
        after = []
        for n, text in enumerate(["My employer is Kayak.", "Stopped here.", texts[1]], start=1):
            after.append(pool.submit(_answer, embedder, text))
            _queued(embedder, n)
        recorder.gate.set()
        results = [future.result() for future in after]
    assert not isinstance(first.result(), BaseException)
    assert all(result is not None for result in results), results
    assert any(isinstance(result, _Stop) for result in results), results


def test_a_caller_embedded_again_on_its_own_keeps_no_later_caller_waiting(texts):
    """A batch failing for one caller's text was embedded again caller by caller by the caller holding the
    embedder: a call that came meanwhile waited behind all of them. Each caller embeds its own texts again on its
    own thread, the embedder free: a later call is answered while one of them is still embedding."""
    recorder = GatedRecorder()
    recorder.refusing, recorder.holding = "Kayak", "Held"
    embedder = CoalescingEmbedder(recorder)

    with ThreadPoolExecutor(4) as pool:
        first = _gated_first(pool, recorder, embedder, texts[0])  # the two after it share the next batch
        refused, held = (pool.submit(_answer, embedder, "My employer is Kayak."),
                         pool.submit(_answer, embedder, "Held here."))
        _queued(embedder, 2)
        recorder.gate.set()
        try:
            assert recorder.held.wait(30), "the held caller's text was never embedded again on its own"
            later = pool.submit(_answer, embedder, texts[1])
            answer = later.result(timeout=30)  # a guard against waiting for ever, not a bound on its time
        finally:
            recorder.released.set()
        results = first.result(), refused.result(), held.result()
    assert not isinstance(answer, BaseException), answer
    assert isinstance(results[1], ValueError) and not isinstance(results[2], BaseException), results
