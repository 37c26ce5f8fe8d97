"""The state of each dependency (db, queue, embed, llm, rerank) and of the query split, and which ones
run degraded.

A state is "ok", "unconfigured" or "error: <exception type>": never a message or a URL, which
could name internal hosts. Postgres is asked on the request's own connection (`SELECT 1`) every
time. The others are probed in parallel, and their states are cached (but the outcome of memex's
own calls to the LLM or the embedding endpoint, when newer than the probe, is what is reported, and
so is a failure of memex's LLM calls (a timeout, a 5xx, a 4xx: a model it does not serve) until a call
succeeds, whatever its models list says, which an overloaded server still answers): each is at most
CACHE_SECONDS old, a probe gets PROBE_DEADLINE_SECONDS before it counts as a timeout, and a probe
still running is waited on, never started twice. So /health answers within WAIT_SECONDS
(plus Postgres's connect timeout when it is unreachable) and a load balancer polling it costs a
remote dependency one tiny request per half minute: the embedder embeds one word, the reranker
reranks one document, the LLM lists its models (a chat completion would take seconds and cost
tokens), SQS reads one queue attribute.

The status is "error" (503) only when Postgres is down: without the queue, the LLM, the embedder
or the reranker the service still answers, and `degraded` names what it does without (the LLM and
the reranker also when none is configured: the offline rules and the built-in floor do less; the
query split while it backs off after a failure, whatever the LLM's state).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Callable, Hashable

from memex.context import Context
from memex.outcome import LastOutcome
from memex.retrieval import multihop, rerank

CACHE_SECONDS = 30.0
PROBE_DEADLINE_SECONDS = 2.0
# Waited past a probe's own deadline, so that a client's timeout is reported by its own type.
WAIT_SECONDS = PROBE_DEADLINE_SECONDS + 0.5

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memex-health")
_LOCK = threading.Lock()
_PROBES: dict[Hashable, tuple[float, Future]] = {}


def _state_of(probe: Callable[[], None]) -> str:
    try:
        probe()
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is the state to report
        return f"error: {type(exc).__name__}"


def _probed(key: Hashable, probe: Callable[[], None]) -> tuple[float, Future]:
    """When the probe for this configuration started, and its outcome: the cached one, or a
    fresh probe's."""
    now = time.monotonic()
    with _LOCK:
        started, future = _PROBES.get(key, (0.0, None))
        if future is None or (future.done() and now - started > CACHE_SECONDS):
            future = _POOL.submit(_state_of, probe)
            _PROBES[key] = (now, future)
        return _PROBES[key]


def _llm_probe(ctx: Context) -> Callable[[], None]:
    settings = ctx.settings

    def probe() -> None:
        from openai import OpenAI  # only with an LLM configured: it is slow to import

        client = OpenAI(base_url=settings.llm_base_url or None, api_key=settings.llm_api_key or "unused",
                        timeout=PROBE_DEADLINE_SECONDS, max_retries=0)
        client.models.list()

    return probe


def _last_call(ctx: Context, name: str) -> LastOutcome | None:
    """The most recent outcome of memex's own calls to a dependency, where it keeps one."""
    if name == "embed":
        return getattr(ctx.embedder, "outcome", None)
    if name == "llm":
        seen = [c.outcome for c in (getattr(ctx.extractor, "chat", None), getattr(ctx.judge, "chat", None))
                if c is not None and c.outcome.at is not None]
        return max(seen, key=lambda o: o.at, default=None)
    return None


def _database(ctx: Context) -> str:
    try:
        ctx.db.connection().execute("SELECT 1")
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means the database is unusable
        ctx.db.reset()
        return f"error: {type(exc).__name__}"


def health(ctx: Context) -> dict[str, Any]:
    settings = ctx.settings
    reranker = rerank.from_settings(settings)
    pending: dict[str, Future] = {
        "queue": _probed(("queue", settings.extraction_queue_url, settings.sqs_endpoint_url), ctx.publisher.ping),
        "embed": _probed(("embed", settings.embeddings_provider, settings.embeddings_base_url,
                          settings.embeddings_model, settings.embeddings_api_key), ctx.embedder.probe),
    }
    if settings.llm_configured:
        pending["llm"] = _probed(("llm", settings.llm_base_url, settings.llm_model, settings.llm_api_key),
                                 _llm_probe(ctx))
    if reranker is not None:
        pending["rerank"] = _probed(("rerank", reranker), reranker.probe)
    db = _database(ctx)
    deadline = time.monotonic() + WAIT_SECONDS
    states = {"llm": "unconfigured", "rerank": "unconfigured"}
    for name, (started, future) in pending.items():
        try:
            states[name] = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            states[name] = "error: Timeout"
        seen = _last_call(ctx, name)
        if seen is not None and seen.at is not None and (seen.at > started or seen.lasting):
            states[name] = seen.state  # what memex's own calls met since the probe ran, or cannot see
    # The split asks the LLM at search time, with a back-off of its own after a failure (multihop.py):
    # while it lasts searches run without it, though extraction may be fine.
    split = multihop.split_state(settings) if settings.llm_configured and settings.llm_multihop else "unconfigured"
    return {
        "status": "ok" if db == "ok" else "error",
        "db": db,
        "queue": states["queue"],
        "embed": states["embed"],
        "llm": states["llm"],
        "rerank": states["rerank"],
        "split": split,
        "degraded": [name for name in ("queue", "embed", "llm", "rerank") if states[name] != "ok"]
        + (["split"] if split.startswith("error") else []),
        "embedder": f"{settings.embeddings_provider}:{ctx.embedder.name}",
        "extractor": ctx.extractor.name,
        "reranker": (settings.rerank_model or "default") if settings.rerank_configured else "none",
    }
