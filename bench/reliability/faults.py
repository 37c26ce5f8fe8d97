"""Faults: the runtime SIGKILLed with turns in flight, Postgres restarted under traffic, the SQS
endpoint down at ingest, the LLM and the embedder answering 500 or hanging. Every accepted turn
must end processed, once; outages answer 503 and heal without restarting the app."""

from __future__ import annotations

import threading
import time
from collections import Counter

import httpx

from bench.openai_double import CHAT, EMBEDDINGS, OpenAIDouble
from bench.reliability.api import Api, accepted
from bench.reliability.report import Result, error_shaped
from bench.reliability.stack import Stack, unique, wait_for

TENANT = "faults"
# The sweep re-publishes what a fault lost: after 3 s, checked every 5 s (the runtime's floor).
RUNTIME_ENV = {"MEMEX_SWEEP_AFTER_SECONDS": "3"}
# Long enough for a message hidden in flight when the runtime died to come back (visibility 30 s).
SETTLE_SECONDS = 90
# API Gateway answers 504 after 30 s: a request held longer by a hanging provider is lost to the client.
GATEWAY_SECONDS = 30


def run(stack: Stack, quick: bool, deadline: float) -> Result:
    result = Result("faults")
    stack.start_runtime(RUNTIME_ENV)
    key = stack.create_key(TENANT)
    figures = Counter()
    families = [("SIGKILL with turns in flight", _sigkill), ("Postgres restart under traffic", _postgres),
                ("SQS down at ingest", _sqs_down)]
    for name, family in families:
        _run_family(result, figures, name, lambda: family(stack, key, quick, result, figures))
    try:
        _providers(stack, key, result, figures)
    except Exception as exc:  # noqa: BLE001 - reported like a fault not survived
        result.check("LLM and embedder faults: ran to the end", False, f"{type(exc).__name__}: {exc}"[:500])
    result.figures.update({"faults injected": figures["injected"], "faults survived": figures["survived"],
                           "turns accepted": figures["accepted"], "turns lost": figures["lost"],
                           "turns duplicated": figures["duplicated"],
                           "unfinished at kill": figures["unfinished at kill"], "503 during outage": figures["503"],
                           "other 5xx or dropped during outage": figures["other 5xx"]})
    stack.stop_runtime()
    return result


def _run_family(result: Result, figures: Counter, name: str, family) -> None:
    """A fault is survived when every check it adds passes."""
    before = len(result.checks)
    figures["injected"] += 1
    try:
        family()
    except Exception as exc:  # noqa: BLE001 - a family that crashes is a fault not survived
        result.check(f"{name}: ran to the end", False, f"{type(exc).__name__}: {exc}"[:500])
    mine = result.checks[before:]
    if mine and all(c.ok for c in mine):
        figures["survived"] += 1


def _settle(stack: Stack, api: Api, turn_ids: list[str], result: Result, figures: Counter, label: str,
            timeout: float = SETTLE_SECONDS) -> None:
    """Every accepted turn ends processed, with each message remembered exactly once."""
    statuses = api.wait_processed(turn_ids, timeout)
    lost = [t for t, s in statuses.items() if s != "processed"]
    duplicated = _duplicated(stack, turn_ids)
    figures["accepted"] += len(turn_ids)
    figures["lost"] += len(lost)
    figures["duplicated"] += duplicated
    result.check(f"{label}: every accepted turn processed ({len(turn_ids)})", not lost,
                 ", ".join(f"{t}={statuses[t]}" for t in lost[:5]))
    result.check(f"{label}: nothing duplicated", duplicated == 0, f"{duplicated} memories written twice")


def _duplicated(stack: Stack, turn_ids: list[str]) -> int:
    """Memories beyond the first for one message and one fact, plus messages with no episodic memory."""
    [(twice,)] = stack.sql(
        """SELECT coalesce(sum(n - 1), 0) FROM (
               SELECT count(*) AS n FROM memories WHERE tenant_id = %s AND source_turn_id = ANY(%s)
               GROUP BY source_message_id, memory_type, key, value HAVING count(*) > 1) d""",
        (TENANT, turn_ids))
    return int(twice)


def _sigkill(stack: Stack, key: str, quick: bool, result: Result, figures: Counter) -> None:
    api = Api(stack.url, key, timeout=10)
    total = 12 if quick else 40
    users = [unique("killuser") for _ in range(4)]
    ids: list[str] = []
    half = threading.Event()

    def post() -> None:
        for i in range(total):
            try:
                turn_id = accepted(api.turn(users[i % 4], "s1", f"I work at Company{i}. Note {unique('zk')}.",
                                            wait=i % 3 == 0))
            except httpx.TransportError:
                turn_id = None  # cut by the kill: never accepted
            if turn_id:
                ids.append(turn_id)
            if len(ids) >= total // 2:
                half.set()

    poster = threading.Thread(target=post)
    poster.start()
    half.wait(60)
    stack.kill_runtime()
    poster.join()
    [(unfinished,)] = stack.sql("SELECT count(*) FROM turns WHERE tenant_id = %s AND id = ANY(%s) AND status <> 'processed'",
                                (TENANT, ids))
    figures["unfinished at kill"] += unfinished
    result.check("SIGKILL: the kill caught accepted turns unfinished", unfinished > 0, "every turn was already done")
    stack.start_runtime()
    api.close()
    api = Api(stack.url, key)
    # Turns accepted but not yet processed when the runtime died are the point of the exercise.
    _settle(stack, api, ids, result, figures, "SIGKILL")
    api.close()


def _postgres(stack: Stack, key: str, quick: bool, result: Result, figures: Counter) -> None:
    api = Api(stack.url, key, timeout=30)
    user = unique("pguser")
    first = accepted(api.turn(user, "s1", "I live in Lisbon.", wait=True))
    pid = stack.runtime_pid
    phase = ["before"]
    seen: dict[str, Counter] = {"before": Counter(), "down": Counter(), "after": Counter()}
    unshaped: list[str] = []
    stop = threading.Event()

    def traffic() -> None:
        calls = [lambda: api.search(user, "where do I live"),
                 lambda: api.http.get(f"/v1/users/{user}/memories"),
                 lambda: api.turn(user, "s1", f"Traffic {unique('zp')}."),
                 lambda: api.http.get("/v1/memories/count", params={"user_id": user})]
        i = 0
        while not stop.is_set():
            current = phase[0]
            try:
                response = calls[i % len(calls)]()
                seen[current][response.status_code] += 1
                if response.status_code >= 400 and not error_shaped(response):
                    unshaped.append(f"{response.status_code} {response.text[:100]}")
            except httpx.TransportError as exc:
                seen[current][type(exc).__name__] += 1
            i += 1
            time.sleep(0.05)

    worker = threading.Thread(target=traffic)
    worker.start()
    time.sleep(1)
    phase[0] = "down"
    stack.stop_postgres()
    time.sleep(3 if quick else 6)
    health = _get(api, "/health")
    stack.start_postgres()
    phase[0] = "after"
    recovered = wait_for(lambda: _ok(api.search(user, "where do I live")), timeout=30)
    stop.set()
    worker.join()
    down = seen["down"]
    # A dropped connection is an answer the client never got: as bad as a 500.
    other_5xx = sum(n for s, n in down.items() if not isinstance(s, int) or (s >= 500 and s != 503))
    figures["503"] += down[503]
    figures["other 5xx"] += other_5xx
    result.check("Postgres down: requests answer 503", down[503] > 0 and other_5xx == 0,
                 f"during the outage: {dict(down)}")
    result.check("Postgres down: answers in the error shape", not unshaped, "; ".join(unshaped[:3]))
    result.check("Postgres down: /health says the database is down",
                 health is not None and health.status_code == 503 and health.json().get("db") not in (None, "ok"),
                 f"{health.status_code} {health.text[:200]}" if health is not None else "no answer")
    result.check("Postgres back: recovered without restarting the app", recovered and stack.runtime_pid == pid,
                 f"recovered={recovered}, same process={stack.runtime_pid == pid}; after: {dict(seen['after'])}")
    later = accepted(api.turn(user, "s1", "I live in Porto now."))
    _settle(stack, api, [t for t in (first, later) if t], result, figures, "Postgres restart")
    api.close()


def _sqs_down(stack: Stack, key: str, quick: bool, result: Result, figures: Counter) -> None:
    api = Api(stack.url, key, timeout=30)
    user = unique("sqsuser")
    stack.stop_sqs()
    responses = [api.turn(user, "s1", f"I have a dog called Rex{i}. Note {unique('zs')}.", wait=i == 0)
                 for i in range(3 if quick else 8)]
    stack.start_sqs()
    ids = [accepted(r) for r in responses]
    result.check("SQS down: every turn accepted", all(ids),
                 "; ".join(f"{r.status_code} {r.text[:100]}" for r in responses if not accepted(r)))
    _settle(stack, api, [t for t in ids if t], result, figures, "SQS down")
    api.close()


def _providers(stack: Stack, key: str, result: Result, figures: Counter) -> None:
    """The runtime on an OpenAI-compatible LLM and embedder (the loopback double), each failing."""
    with OpenAIDouble(dim=384) as double:
        double.chat_default = '{"memories": []}'
        double.hang_seconds = GATEWAY_SECONDS + 15
        stack.stop_runtime()
        stack.start_runtime({**RUNTIME_ENV, "MEMEX_LLM_MODEL": "double-chat", "MEMEX_LLM_BASE_URL": double.base_url,
                             "MEMEX_LLM_API_KEY": "double", "MEMEX_EMBEDDINGS_PROVIDER": "openai",
                             "MEMEX_EMBEDDINGS_BASE_URL": double.base_url, "MEMEX_EMBEDDINGS_MODEL": "double-embed",
                             "MEMEX_EMBEDDING_DIM": "384"})
        api = Api(stack.url, key, timeout=GATEWAY_SECONDS)
        health = _get(api, "/health")
        names = _keys(health.json()) if health is not None and health.status_code == 200 else set()
        wanted = {"db", "queue", "embed", "llm", "rerank"}
        result.check("/health names each dependency (db, queue, embed, llm, rerank)", wanted <= names,
                     f"missing {sorted(wanted - names)}")
        for mode in ("500", "hang"):
            _run_family(result, figures, f"LLM {mode}", lambda: _llm_fault(api, double, mode, stack, result, figures))
            _run_family(result, figures, f"embedder {mode}",
                        lambda: _embed_fault(api, double, mode, stack, result, figures))
        api.close()
        stack.stop_runtime()


def _llm_fault(api: Api, double: OpenAIDouble, mode: str, stack: Stack, result: Result, figures: Counter) -> None:
    label = f"LLM {mode}"
    user, marker = unique("llmuser"), unique("zl")
    double.fail(CHAT, mode)
    try:
        inline = _call(lambda: api.turn(user, "s1", f"I work at Figma. Code word {marker}.", wait=True))
        queued = _call(lambda: api.turn(user, "s2", f"My sister is called Ana. Tag {marker}.", wait=False))
        found = _call(lambda: api.search(user, marker, mode="bm25"))
        health = _get(api, "/health") if mode == "500" else None
    finally:
        double.heal(CHAT)
    if mode == "500":
        result.check(f"{label}: /health lists llm as degraded", _degraded(health, "llm"), _show(health))
    result.check(f"{label}: turns accepted within {GATEWAY_SECONDS} s", accepted(inline) and accepted(queued),
                 f"inline {_show(inline)}; queued {_show(queued)}")
    result.check(f"{label}: the episodic memory is searchable at once",
                 _ok(found) and any(marker in r["content"] for r in found.json()["results"]), _show(found))
    _settle(stack, api, [t for t in (accepted(inline), accepted(queued)) if t], result, figures, label)


def _embed_fault(api: Api, double: OpenAIDouble, mode: str, stack: Stack, result: Result, figures: Counter) -> None:
    label = f"embedder {mode}"
    user, marker = unique("embuser"), unique("ze")
    written = accepted(_call(lambda: api.turn(user, "s1", f"I live in Oslo. Code word {marker}.", wait=True)))
    double.fail(EMBEDDINGS, mode)
    try:
        found = _call(lambda: api.search(user, marker))
        queued = _call(lambda: api.turn(user, "s2", f"I like chess. Tag {marker}.", wait=False))
        health = _get(api, "/health") if mode == "500" else None
    finally:
        double.heal(EMBEDDINGS)
    if mode == "500":
        result.check(f"{label}: /health lists embed as degraded", _degraded(health, "embed"), _show(health))
    degraded = found.json().get("degraded", []) if _ok(found) else []
    result.check(f"{label}: search answers keyword results flagged degraded embed",
                 _ok(found) and "embed" in degraded and any(marker in r["content"] for r in found.json()["results"]),
                 _show(found))
    result.check(f"{label}: turns accepted", accepted(queued) is not None, _show(queued))
    _settle(stack, api, [t for t in (written, accepted(queued)) if t], result, figures, label)


def _keys(body: dict) -> set[str]:
    """Every key of a JSON object, nested ones included."""
    found = set(body)
    for value in body.values():
        if isinstance(value, dict):
            found |= _keys(value)
    return found


def _degraded(health: httpx.Response | None, dependency: str) -> bool:
    return health is not None and dependency in health.json().get("degraded", [])


def _call(request) -> httpx.Response | None:
    try:
        return request()
    except httpx.TransportError:
        return None


def _get(api: Api, path: str) -> httpx.Response | None:
    return _call(lambda: api.http.get(path))


def _ok(response: httpx.Response | None) -> bool:
    return response is not None and response.status_code == 200


def _show(response: httpx.Response | None) -> str:
    return "no answer in time" if response is None else f"{response.status_code} {response.text[:200]}"
