"""The quality fixture: what memex knows after short conversations, probe by probe, in both modes;
and what the offline extractor takes from single statements, with its precision and recall.

    .venv/bin/python -m bench.quality [--mode offline|llm|both] [--fixture PATH] [--out FILE.json]
                                      [--parts conversations,extraction] [--statements PATH]

Run it from the repository root (`make quality` runs both modes). For each mode it starts
`python -m infra.local` on a fresh data dir and a free port (every MEMEX_* setting at its default
but the mode's own), sends every turn of the fixture (`bench/quality/conversations.yaml`) with
`POST /v1/turns?wait=true`, so each turn is extracted and resolved inline and in order, then
runs every probe over HTTP and prints a table of passes per category and mode, and the failed
probes with what was seen.

Modes: `offline` is the rules extractor and judge (no LLM configured). `llm` points the service
at the OpenAI-compatible double of `bench/openai_double.py`, served on loopback by this process:
just before each turn is sent, the fixture's scripted replies for that turn are queued (the
extraction JSON, then one verdict per candidate that meets related memories), and after it the
harness checks the pipeline asked for exactly those, about those candidates. A mismatch is a
broken fixture: the run stops and names the turn. Embeddings are the local all-MiniLM-L6-v2 in
both modes.

The extraction part (`bench/quality/statements.yaml`) runs in this process: each statement is one
user message given to the offline extractor (`memex.extraction.offline.OfflineExtractor`), and the
facts it returns are compared with the statement's expected ones. Precision and recall are printed
per category, for the tuning part and the held-out part (statements marked `heldout: true`, not looked
at while the rules were tuned) separately, and for the held-out part without its near-repeats of
tuning statements (NEAR_REPEAT); each held-out round (`round: N`) is reported on its own too (its
explicit statements and what those that state nothing yielded); failures are listed for the tuning
part only.

The exit code is 0 whatever the probes say (this is a measurement); 1 when the service could not
run or refused a request, 2 when the fixture or its LLM script is wrong.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Iterator, Sequence

import httpx
import yaml

from bench import api
from bench.service import ServiceError, local_server

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURE = ROOT / "bench" / "quality" / "conversations.yaml"
DEFAULT_STATEMENTS = ROOT / "bench" / "quality" / "statements.yaml"
PARTS = ("conversations", "extraction")

CATEGORIES = ("fact_evolution", "opinion_arc", "implicit_facts", "corrections", "two_hop", "noise",
              "negation", "numbers")
KINDS = ("search", "history", "active")
MODES = ("offline", "llm")
DEFAULT_TOP_K = 5
LLM_MODEL = "quality-double"

class FixtureError(Exception):
    """The fixture, or its script of LLM replies, does not fit what the pipeline does."""




# --- the fixture ---------------------------------------------------------------------------------

def _rfc3339(value: Any, where: str) -> str:
    if isinstance(value, datetime):  # YAML reads an unquoted timestamp as a datetime
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise FixtureError(f"{where}: `at` is not RFC 3339: {value!r}") from exc
        if moment.tzinfo is None:
            raise FixtureError(f"{where}: `at` has no offset: {value!r}")
    else:
        raise FixtureError(f"{where}: `at` is missing")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _has_user_message(turn: dict[str, Any]) -> bool:
    return any(m["role"] == "user" and str(m.get("content") or "").strip() for m in turn["messages"])


def load_fixture(path: Path) -> list[dict[str, Any]]:
    """The conversations of a fixture file, checked: every mistake is named with where it is."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise FixtureError(f"{path}: {exc}") from exc
    conversations = (data or {}).get("conversations") if isinstance(data, dict) else None
    if not isinstance(conversations, list) or not conversations:
        raise FixtureError(f"{path}: no `conversations` list")
    seen_ids: set[str] = set()
    for c_index, conv in enumerate(conversations):
        where = f"conversation {c_index}"
        if not isinstance(conv, dict) or not conv.get("id") or not conv.get("user"):
            raise FixtureError(f"{where}: needs an `id` and a `user`")
        where = f"conversation {conv['id']}"
        if conv["id"] in seen_ids:
            raise FixtureError(f"{where}: duplicate id")
        seen_ids.add(conv["id"])
        if not conv.get("turns") or not conv.get("probes"):
            raise FixtureError(f"{where}: needs `turns` and `probes`")
        for t_index, turn in enumerate(conv["turns"]):
            _check_turn(turn, f"{where} turn {t_index}")
        for p_index, probe in enumerate(conv["probes"]):
            _check_probe(probe, f"{where} probe {p_index}")
    return conversations


def _check_turn(turn: Any, where: str) -> None:
    if not isinstance(turn, dict) or not turn.get("session") or not turn.get("messages"):
        raise FixtureError(f"{where}: needs `session` and `messages`")
    turn["at"] = _rfc3339(turn.get("at"), where)
    for message in turn["messages"]:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "system", "tool") \
                or not isinstance(message.get("content"), str):
            raise FixtureError(f"{where}: a message needs a role and a content: {message!r}")
    llm = turn.get("llm")
    if llm is None:
        return
    if not isinstance(llm, dict) or set(llm) - {"extraction", "judge"}:
        raise FixtureError(f"{where}: `llm` holds `extraction` and `judge` only")
    extraction = llm.get("extraction")
    if extraction is not None and not (isinstance(extraction, dict) and isinstance(extraction.get("memories"), list)):
        raise FixtureError(f"{where}: llm.extraction must be an object with a `memories` list")
    for entry in llm.get("judge") or []:
        if not isinstance(entry, dict) or "=" not in str(entry.get("candidate") or "") \
                or not isinstance(entry.get("verdict"), dict):
            raise FixtureError(f"{where}: a judge entry needs `candidate: key=value` and a `verdict` object")
    if llm.get("judge") and extraction is None:
        raise FixtureError(f"{where}: judge verdicts without an extraction")


def _check_probe(probe: Any, where: str) -> None:
    if not isinstance(probe, dict):
        raise FixtureError(f"{where}: not a mapping")
    if probe.get("category") not in CATEGORIES:
        raise FixtureError(f"{where}: category must be one of {', '.join(CATEGORIES)}")
    kind = probe.get("kind")
    if kind not in KINDS:
        raise FixtureError(f"{where}: kind must be one of {', '.join(KINDS)}")
    if kind == "search":
        if not probe.get("query"):
            raise FixtureError(f"{where}: a search probe needs a `query`")
        if not (probe.get("contains") or probe.get("excludes") or probe.get("empty")):
            raise FixtureError(f"{where}: a search probe needs `contains`, `excludes` or `empty: true`")
        if probe.get("empty") and probe.get("contains"):
            raise FixtureError(f"{where}: `empty` and `contains` contradict each other")
    else:
        if not probe.get("key") or not isinstance(probe.get("values"), list):
            raise FixtureError(f"{where}: a {kind} probe needs a `key` and a `values` list")
        if kind == "history" and (len(probe["values"]) < 1 or probe["key"] == "*"):
            raise FixtureError(f"{where}: a history probe needs one key and at least one value")


def check_llm_script(conversations: Sequence[dict[str, Any]]) -> None:
    """Every turn with a user message has an extraction reply to give (the extractor always asks)."""
    for conv in conversations:
        for index, turn in enumerate(conv["turns"]):
            llm = turn.get("llm") or {}
            if _has_user_message(turn) and llm.get("extraction") is None:
                raise FixtureError(f"conversation {conv['id']} turn {index}: a user message but no llm.extraction")
            if not _has_user_message(turn) and llm:
                raise FixtureError(f"conversation {conv['id']} turn {index}: no user message, so no LLM call: "
                                   f"remove its `llm`")


def describe(probe: dict[str, Any]) -> str:
    if probe["kind"] == "search":
        wants = []
        if probe.get("contains"):
            wants.append(f"contains {probe['contains']}")
        if probe.get("excludes"):
            wants.append(f"excludes {probe['excludes']}")
        if probe.get("empty"):
            wants.append("empty")
        scope = " semantic" if (probe.get("filters") or {}).get("memory_type") == "semantic" else ""
        return f"search{scope} {probe['query']!r} top {probe.get('top_k', DEFAULT_TOP_K)}: {', '.join(wants)}"
    return f"{probe['kind']} {probe['key']}: {probe['values']}"


# --- the service -----------------------------------------------------------------------------------

def _request(client: httpx.Client, method: str, path: str, **kwargs: Any) -> httpx.Response:
    try:
        response = client.request(method, path, **kwargs)
    except httpx.HTTPError as exc:
        raise ServiceError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
    if response.status_code >= 400:
        raise ServiceError(f"{method} {path}: HTTP {response.status_code} {response.text[:1000]}")
    return response


def _call(client: httpx.Client, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    return _request(client, method, path, **kwargs).json()


@contextmanager
def llm_double() -> Iterator[Any]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.openai_double import OpenAIDouble

    with OpenAIDouble() as double:
        yield double


# --- sending the turns ------------------------------------------------------------------------------

@dataclass
class Script:
    """The chat replies of one turn, in the order the pipeline asks for them."""

    replies: list[str] = field(default_factory=list)
    judged: list[tuple[str, str]] = field(default_factory=list)  # (key, value) of each judged candidate

    @classmethod
    def of(cls, turn: dict[str, Any]) -> "Script":
        llm = turn.get("llm") or {}
        if llm.get("extraction") is None:
            return cls()
        replies = [json.dumps(llm["extraction"], ensure_ascii=False)]
        judged = []
        for entry in llm.get("judge") or []:
            key, _, value = str(entry["candidate"]).partition("=")
            judged.append((key.strip(), value.strip()))
            replies.append(json.dumps(entry["verdict"], ensure_ascii=False))
        return cls(replies, judged)


def _judged_candidate(request: dict[str, Any]) -> str | None:
    """"key=value" of the NEW memory a judge request is about; None for an extraction request."""
    prompt = next((m.get("content") or "" for m in request.get("messages", []) if m.get("role") == "user"), "")
    lines = prompt.splitlines()
    if not lines or lines[0].strip() != "NEW memory:" or len(lines) < 2:
        return None
    try:
        new = json.loads(lines[1])
    except json.JSONDecodeError:
        return "(unreadable judge prompt)"
    return f"{new.get('key')}={new.get('value')}"


def check_script(double: Any, script: Script, requests: list[dict[str, Any]], where: str) -> None:
    """The pipeline asked for exactly the scripted replies, in order, about the scripted candidates."""
    from bench.openai_double import CHAT

    left = len(double.scripts[CHAT])
    double.scripts[CHAT].clear()
    asked = [_judged_candidate(r) for r in requests]
    shown = ", ".join("extraction" if a is None else f"judge {a}" for a in asked) or "nothing"
    expected = ", ".join(["extraction"] * bool(script.replies) + [f"judge {k}={v}" for k, v in script.judged]) \
        or "nothing"
    problem = None
    if len(requests) > len(script.replies):
        problem = (f"the double answered {len(requests) - len(script.replies)} chat request(s) with 500 "
                   f"\"nothing scripted\"")
    elif left:
        problem = f"{left} scripted repl{'y was' if left == 1 else 'ies were'} left unconsumed"
    else:
        if script.replies and asked[0] is not None:
            problem = "the first chat request was not the extraction"
        for (key, value), about in zip(script.judged, asked[1:]):
            if about is None or about.casefold() != f"{key}={value}".casefold():
                problem = f"a verdict scripted for {key}={value} was asked about {about}"
                break
    if problem:
        raise FixtureError(f"{where}: {problem}.\n  scripted: {expected}\n  asked:    {shown}")


def send_turns(client: httpx.Client, conv: dict[str, Any], user_id: str, double: Any | None) -> None:
    for index, turn in enumerate(conv["turns"]):
        where = f"conversation {conv['id']} turn {index} (session {turn['session']}, {turn['at']})"
        body = {"user_id": user_id, "session_id": turn["session"], "timestamp": turn["at"],
                "messages": [{"role": m["role"], "content": m["content"]} for m in turn["messages"]]}
        script = Script.of(turn)
        if double is not None:
            from bench.openai_double import CHAT

            before = len(double.chat_requests)
            double.scripts[CHAT].clear()
            double.script_chat(*script.replies)
        try:
            response = client.post("/v1/turns", params={"wait": "true"}, json=body)
        except httpx.HTTPError as exc:
            raise ServiceError(f"{where}: POST /v1/turns: {type(exc).__name__}: {exc}") from exc
        if double is not None:
            check_script(double, script, double.chat_requests[before:], where)
        if response.status_code != 201:
            raise ServiceError(f"{where}: POST /v1/turns?wait=true: HTTP {response.status_code} {response.text[:1000]}")
        status = response.json().get("status")
        if status != "processed":
            raise ServiceError(f"{where}: the turn is {status}: {response.json().get('error', '')}")


# --- the probes ---------------------------------------------------------------------------------------

def _norm(text: Any) -> str:
    return " ".join(str(text).casefold().split()).strip(" .!")


def probe_search(client: httpx.Client, probe: dict[str, Any], user_id: str, when: str) -> tuple[bool, Any]:
    top_k = int(probe.get("top_k", DEFAULT_TOP_K))
    body: dict[str, Any] = {"user_id": user_id, "query": probe["query"], "top_k": top_k, "reference_time": when}
    if probe.get("filters"):
        body["filters"] = probe["filters"]
    results = _call(client, "POST", "/v1/search", json=body)["results"][:top_k]
    contents = [r["content"] for r in results]
    folded = [c.casefold() for c in contents]
    missing = [s for s in probe.get("contains") or [] if not any(s.casefold() in c for c in folded)]
    unwanted = [s for s in probe.get("excludes") or [] if any(s.casefold() in c for c in folded)]
    passed = not missing and not unwanted and not (probe.get("empty") and results)
    seen: dict[str, Any] = {"results": [f"{r['content'][:100]} ({r['score']:.3f})" for r in results]}
    if missing:
        seen["missing"] = missing
    if unwanted:
        seen["unwanted"] = unwanted
    return passed, seen


def probe_active(client: httpx.Client, probe: dict[str, Any], user_id: str) -> tuple[bool, Any]:
    key = probe["key"]
    active = [m for m in api.memories(partial(_request, client, "GET"), user_id, include_inactive=False)
              if m["memory_type"] == "semantic" and (key == "*" or m["key"] == key)]
    seen = sorted({f"{m['key']}={m['value']}" if key == "*" else str(m["value"]) for m in active})
    passed = {_norm(m["value"]) for m in active} == {_norm(v) for v in probe["values"]}
    return passed, seen


def probe_history(client: httpx.Client, probe: dict[str, Any], user_id: str) -> tuple[bool, Any]:
    key, wanted = probe["key"], [_norm(v) for v in probe["values"]]
    listed = [m for m in api.memories(partial(_request, client, "GET"), user_id, include_inactive=True)
              if m["memory_type"] == "semantic" and m["key"] == key]
    listing = sorted(f"{m['value']} ({'active' if m['active'] else 'inactive'})" for m in listed)
    heads = [m for m in listed if m["active"] and _norm(m["value"]) == wanted[-1]]
    if not heads:
        return False, {"listed": listing, "chain": None}
    best: list[dict[str, Any]] = []
    for head in heads:
        chain = _call(client, "GET", f"/v1/memories/{head['id']}/history")["history"]
        if len(chain) > len(best):
            best = chain
    values = [_norm(m["value"]) for m in best]
    flags_ok = all(not m["active"] for m in best[:-1]) and best[-1]["active"]
    shown = " -> ".join(f"{m['value']} ({'active' if m['active'] else 'inactive'})" for m in best)
    return values == wanted and flags_ok, {"listed": listing, "chain": shown}


def run_probes(client: httpx.Client, conv: dict[str, Any], user_id: str) -> list[dict[str, Any]]:
    when = max(turn["at"] for turn in conv["turns"])
    rows = []
    for index, probe in enumerate(conv["probes"]):
        if probe["kind"] == "search":
            passed, seen = probe_search(client, probe, user_id, when)
        elif probe["kind"] == "active":
            passed, seen = probe_active(client, probe, user_id)
        else:
            passed, seen = probe_history(client, probe, user_id)
        rows.append({"id": f"{conv['id']}/{index}", "conversation": conv["id"], "category": probe["category"],
                     "kind": probe["kind"], "probe": describe(probe), "passed": passed, "seen": seen})
    return rows


# --- a mode, and the run ----------------------------------------------------------------------------

def run_mode(mode: str, conversations: Sequence[dict[str, Any]], tag: str) -> dict[str, Any]:
    started = time.perf_counter()
    with (llm_double() if mode == "llm" else _nothing()) as double:
        env = {"MEMEX_EMBEDDINGS_PROVIDER": "local"}
        if double is not None:
            # The fixture scripts the replies of extraction and of the judge; the query split at
            # search time is tested on its own (tests/test_multihop.py).
            env.update(MEMEX_LLM_BASE_URL=double.base_url, MEMEX_LLM_MODEL=LLM_MODEL, MEMEX_LLM_API_KEY="unused",
                       MEMEX_LLM_MULTIHOP="false")
        # The fixture measures the defaults: of this environment's MEMEX_* settings none is passed
        # on (a key demanded, a reranker would change what is measured), only the mode's own.
        with local_server(env, defaults_only=True) as url, httpx.Client(base_url=url, timeout=httpx.Timeout(300, connect=10)) as client:
            health = _call(client, "GET", "/health")
            expected = f"llm:{LLM_MODEL}" if mode == "llm" else "offline-rules"
            if health.get("extractor") != expected:
                raise ServiceError(f"{mode} mode: /health says extractor={health.get('extractor')!r}, "
                                   f"expected {expected!r}")
            print(f"{mode}: server {url}, extractor {health.get('extractor')}, embedder {health.get('embedder')}",
                  flush=True)
            probes = []
            for conv in conversations:
                user_id = f"{conv['user']}-{tag}"
                t0 = time.perf_counter()
                send_turns(client, conv, user_id, double)
                asked = len(double.chat_requests) if double is not None else 0
                rows = run_probes(client, conv, user_id)
                if double is not None and len(double.chat_requests) > asked:
                    raise FixtureError(f"conversation {conv['id']}: its probes made "
                                       f"{len(double.chat_requests) - asked} chat request(s); the fixture "
                                       f"scripts replies for turns only")
                probes += rows
                print(f"{mode}: {conv['id']}: {len(conv['turns'])} turns, "
                      f"{sum(r['passed'] for r in rows)}/{len(rows)} probes passed "
                      f"in {time.perf_counter() - t0:.1f} s", flush=True)
    by_category = {c: {"passed": sum(p["passed"] for p in probes if p["category"] == c),
                       "total": sum(p["category"] == c for p in probes)} for c in CATEGORIES}
    return {"passed": sum(p["passed"] for p in probes), "total": len(probes), "by_category": by_category,
            "seconds": round(time.perf_counter() - started, 1), "probes": probes}


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


# --- the extraction part ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fact:
    key: str
    value: str
    past: bool = False

    @classmethod
    def parse(cls, text: str, where: str) -> "Fact":
        past = text.startswith("past ")
        key, sep, value = text.removeprefix("past ").partition("=")
        if not sep or not key.strip() or not value.strip():
            raise FixtureError(f"{where}: an expected fact is `key=value` or `past key=value`: {text!r}")
        return cls(key.strip(), value.strip(), past)

    def mark(self) -> tuple[str, str, bool]:
        value = " ".join(str(self.value).casefold().split()).strip(" .!")
        value = re.sub(r"^(?:the|a|an|my) ", "", value)
        return self.key, value, self.past

    def __str__(self) -> str:
        return f"{'past ' if self.past else ''}{self.key}={self.value}"


def load_statements(path: Path) -> list[dict[str, Any]]:
    """The statements of an extraction fixture, checked, with their expected facts parsed."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise FixtureError(f"{path}: {exc}") from exc
    statements = (data or {}).get("statements") if isinstance(data, dict) else None
    if not isinstance(statements, list) or not statements:
        raise FixtureError(f"{path}: no `statements` list")
    for index, item in enumerate(statements):
        where = f"statement {index}"
        if not isinstance(item, dict) or not item.get("cat") or not isinstance(item.get("text"), str) \
                or not isinstance(item.get("expect"), list):
            raise FixtureError(f"{where}: needs `cat`, `text` and an `expect` list")
        if not all(isinstance(text, str) for text in item.get("before", [])):
            raise FixtureError(f"{where}: `before` is a list of earlier messages")
        item["facts"] = [Fact.parse(str(e), where) for e in item["expect"]]
    return statements


def extract_statement(item: dict[str, Any]) -> list[Fact]:
    """What the offline rules take from one statement, as facts keyed like the fixture (a
    participant's keys without their name)."""
    from memex.extraction.offline import OfflineExtractor

    speaker = item.get("speaker")
    message = {"id": "m0", "role": "user", "name": speaker, "subject": speaker, "content": item["text"]}
    # What the user said earlier in the session: a correction re-states a fact of it.
    history = [{"id": f"h{n}", "role": "user", "content": text} for n, text in enumerate(item.get("before", []))]
    found = []
    for candidate in OfflineExtractor().extract([message], history):
        if candidate.ends_only or candidate.only_replacing is not None:
            continue  # filed only when it names a current value, and a statement alone has none
        if candidate.subject != (speaker or "user"):
            found.append(Fact(f"{candidate.subject}:{candidate.key}", candidate.value, candidate.historical))
        else:
            found.append(Fact(candidate.base_key, candidate.value, candidate.historical))
    return found


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


# A held-out statement whose words are this close to a tuning statement's (Jaccard of their word
# sets) is a near-repeat ("I'm thirty-eight." / "I'm thirty-eight years old."): it is reported with
# the held-out part and left out of its "new" column, which counts only phrasings nobody tuned on.
NEAR_REPEAT = 0.6


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w']+", text.casefold()))


def _near_repeat(text: str, tuning: Sequence[set[str]]) -> bool:
    words = _words(text)
    return any(len(words & other) >= NEAR_REPEAT * len(words | other) for other in tuning)


def run_extraction(statements: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Precision and recall of the offline rules per category and part (tuning, held-out, and the
    held-out statements that repeat no tuning statement)."""
    started = time.perf_counter()
    counts: dict[tuple[str, str], dict[str, int]] = {}
    rows = []
    tuning = [_words(item["text"]) for item in statements if not item.get("heldout")]
    for index, item in enumerate(statements):
        part = "heldout" if item.get("heldout") else "tuning"
        parts = [part]
        if part == "heldout" and not _near_repeat(item["text"], tuning):
            parts.append("new")
        found = extract_statement(item)
        expected = {f.mark() for f in item["facts"]}
        got = {f.mark() for f in found}
        kind = "explicit" if item["cat"] != "nothing" else "nothing"
        groups = {item["cat"], "all", kind}
        # A held-out round (`round: N`) is reported on its own too, explicit and nothing: the figure of
        # the rules before and after the round was read.
        rounds = [(kind, f"round {item['round']}")] if part == "heldout" and item.get("round") else []
        for key in [*((group, p) for group in groups for p in parts), *rounds]:
            c = counts.setdefault(key, {"statements": 0, "found": 0, "correct": 0, "expected": 0})
            c["statements"] += 1
            c["found"] += len(got)
            c["correct"] += len(got & expected)
            c["expected"] += len(expected)
        rows.append({"id": index, "category": item["cat"], "part": part, "new": "new" in parts, "text": item["text"],
                     "expected": [str(f) for f in item["facts"]], "found": [str(f) for f in found],
                     "passed": got == expected})
    table = {f"{category}/{part}": {**c, "precision": _ratio(c["correct"], c["found"]),
                                    "recall": _ratio(c["correct"], c["expected"])}
             for (category, part), c in counts.items()}
    return {"statements": len(statements), "by_category": table, "rows": rows,
            "seconds": round(time.perf_counter() - started, 2)}


def render_extraction(result: dict[str, Any]) -> str:
    table = result["by_category"]
    categories = list(dict.fromkeys(k.split("/")[0] for k in table if not k.startswith(("all/", "explicit/"))))
    categories = [c for c in categories if c != "nothing"] + ["explicit", "nothing", "all"]

    def cell(category: str, part: str) -> str:
        c = table.get(f"{category}/{part}")
        if c is None:
            return f"{'':>22}"
        p = "-" if c["precision"] is None else f"{c['precision']:.2f}"
        r = "-" if c["recall"] is None else f"{c['recall']:.2f}"
        return f"{c['statements']:>5} {p:>7} {r:>7}  "

    width = max(len(c) for c in categories) + 2
    lines = [f"offline extraction: {result['statements']} statements ({result['seconds']:.2f} s); "
             "precision = correct / found, recall = correct / expected", "",
             f"{'':<{width}}{'tuning':^22}{'held-out':^22}{'held-out, new':^22}",
             f"{'category':<{width}}" + f"{'n':>5} {'prec':>7} {'recall':>7}  " * 3]
    for category in categories:
        lines.append(f"{category:<{width}}{cell(category, 'tuning')}{cell(category, 'heldout')}{cell(category, 'new')}")
    silent = {part: table.get(f"nothing/{part}", {}).get("found", 0) for part in ("tuning", "heldout")}
    repeats = sum(r["part"] == "heldout" and not r["new"] for r in result["rows"])
    lines += ["", f"facts found in statements that state nothing: {silent['tuning']} (tuning), "
                  f"{silent['heldout']} (held-out)",
              f"held-out, new: the held-out statements but {repeats} whose words overlap a tuning statement's "
              f"by {NEAR_REPEAT:.0%} or more (Jaccard)"]
    rounds = sorted({k.split("/")[1] for k in table if k.split("/")[1].startswith("round ")},
                    key=lambda name: int(name.split()[1]) if name.split()[1].isdigit() else 0)
    if rounds:
        lines += ["", "held-out rounds (`round: N`), each written before the rules were read:"]
    for name in rounds:
        c = table.get(f"explicit/{name}")
        nothing = table.get(f"nothing/{name}", {"statements": 0, "found": 0})
        said = (f"{c['statements']} explicit, precision {c['precision'] or 0:.2f} ({c['correct']} of {c['found']}), "
                f"recall {c['recall']:.2f} ({c['correct']} of {c['expected']})" if c and c["expected"] else
                "no explicit statement")
        lines.append(f"  {name}: {said}; facts found in the {nothing['statements']} that state nothing: "
                     f"{nothing['found']}")
    failed = [r for r in result["rows"] if r["part"] == "tuning" and not r["passed"]]
    if failed:
        lines += ["", "failed (tuning part; the held-out part is not listed):"]
        for r in failed:
            lines.append(f"  [{r['category']}] {r['text']!r}: expected {r['expected']}, found {r['found']}")
    return "\n".join(lines)


def render(report: dict[str, Any]) -> str:
    modes = list(report["modes"])
    used = [c for c in CATEGORIES if any(report["modes"][m]["by_category"][c]["total"] for m in modes)]
    width = max(len(c) for c in used + ["category", "total"]) + 2
    lines = [f"quality: {report['conversations']} conversations, {report['probes']} probes per mode", ""]
    lines.append(f"{'category':<{width}}" + "".join(f"{m:>10}" for m in modes))
    for category in used:
        cells = "".join(f"{'{passed}/{total}'.format(**report['modes'][m]['by_category'][category]):>10}"
                        for m in modes)
        lines.append(f"{category:<{width}}{cells}")
    lines.append(f"{'total':<{width}}" + "".join(
        f"{'{passed}/{total}'.format(**report['modes'][m]):>10}" for m in modes))
    lines.append("")
    lines.append("time: " + ", ".join(f"{m} {report['modes'][m]['seconds']:.1f} s" for m in modes)
                 + f", total {report['total_seconds']:.1f} s")
    for mode in modes:
        failed = [p for p in report["modes"][mode]["probes"] if not p["passed"]]
        if not failed:
            continue
        lines += ["", f"failed ({mode}):"]
        for p in failed:
            lines.append(f"  {p['id']} [{p['category']}] {p['probe']}")
            lines.append(f"      seen: {json.dumps(p['seen'], ensure_ascii=False)}")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("offline", "llm", "both"), default="both")
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--statements", type=Path, default=DEFAULT_STATEMENTS)
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {','.join(PARTS)}")
    parser.add_argument("--out", type=Path, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    args.parts = [p for p in args.parts.split(",") if p]
    if not args.parts or set(args.parts) - set(PARTS):
        parser.error(f"--parts takes {', '.join(PARTS)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    modes = list(MODES) if args.mode == "both" else [args.mode]
    report: dict[str, Any] = {}
    try:
        if "extraction" in args.parts:
            report["extraction"] = run_extraction(load_statements(args.statements))
            print(render_extraction(report["extraction"]), flush=True)
        if "conversations" in args.parts:
            conversations = load_fixture(args.fixture)
            if "llm" in modes:
                check_llm_script(conversations)
            tag = uuid.uuid4().hex[:8]
            results = {mode: run_mode(mode, conversations, tag) for mode in modes}
            report.update({
                "fixture": str(args.fixture),
                "categories": list(CATEGORIES),
                "conversations": len(conversations),
                "probes": sum(len(c["probes"]) for c in conversations),
                "modes": results,
            })
    except FixtureError as exc:
        print(f"\nFIXTURE ERROR: {exc}", file=sys.stderr, flush=True)
        return 2
    except ServiceError as exc:
        print(f"\nSERVICE ERROR: {exc}", file=sys.stderr, flush=True)
        return 1
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if "modes" in report:
        print()
        print(render(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
