"""The pipeline with an LLM configured, end to end through the HTTP API: the extractor and the judge
talk to the loopback OpenAI double through the real openai client."""

from __future__ import annotations

import dataclasses
import json

import pytest

from memex.extraction.llm import LLMExtractor
from memex.supersession_llm import LLMJudge
from memex_edge.context import build_context
from tests.conftest import Tenant, api_client
from bench.openai_double import OpenAIDouble


@pytest.fixture(scope="module")
def llm():
    with OpenAIDouble() as server:
        yield server


@pytest.fixture(scope="module")
def llm_ctx(ctx, llm):
    settings = dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="test-model", llm_api_key="k")
    return build_context(settings)


@pytest.fixture(scope="module")
def llm_http(llm_ctx):
    with api_client(llm_ctx) as client:
        yield client


def _extraction(key: str, value: str, content: str, quote: str, **extra) -> str:
    item = {"message": 0, "type": "fact", "key": key, "value": value, "subject": "user", "historical": False,
            "content": content, "confidence": 0.95, "quote": quote, **extra}
    return json.dumps({"memories": [item]})


def test_the_llm_extracts_and_supersedes_through_the_api(ctx, llm, llm_ctx, llm_http):
    assert isinstance(llm_ctx.extractor, LLMExtractor) and isinstance(llm_ctx.judge, LLMJudge)
    tenant = Tenant(ctx, llm_http)
    llm.requests.clear()

    llm.script_chat(_extraction("employer", "Stripe", "The user's employer is Stripe.", "I work at Stripe"))
    first = tenant.turn("I work at Stripe", timestamp="2026-01-05T10:00:00Z")
    assert first.status_code == 201, first.text
    assert first.json()["status"] == "processed"
    # the first value of a key: nothing related, so the judge asked nothing
    assert len(llm.chat_requests) == 1

    llm.script_chat(
        _extraction("employer", "Notion", "The user's employer is Notion.", "I just started at Notion"),
        '```json\n{"action": "supersede", "replaces": ["m1"], "reason": "the user changed jobs"}\n```',
    )
    second = tenant.turn("I just started at Notion, left Stripe", timestamp="2026-03-01T10:00:00Z")
    assert second.status_code == 201, second.text
    assert second.json()["status"] == "processed"
    extraction, verdict = llm.chat_requests[1:]
    assert "[0] user: I just started at Notion, left Stripe" in extraction["messages"][1]["content"]
    judge_prompt = verdict["messages"][1]["content"]
    assert '"id": "m1"' in judge_prompt and "The user's employer is Stripe." in judge_prompt
    assert "Notion" in judge_prompt

    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()
    employer = {m["value"]: m for m in listing["memories"] if m["key"] == "employer"}
    assert set(employer) == {"Stripe", "Notion"}
    stripe, notion = employer["Stripe"], employer["Notion"]
    assert stripe["active"] is False and stripe["valid_to"] == "2026-03-01T10:00:00Z"
    assert notion["active"] is True and notion["valid_to"] is None
    assert notion["supersedes"] == stripe["id"]
    assert notion["content"] == "The user's employer is Notion." and notion["confidence"] == 0.95
    assert notion["metadata"]["judge"] == "llm:test-model"
    assert notion["metadata"]["reason"] == "the user changed jobs"
    assert notion["metadata"]["raw_quote"] == "I just started at Notion"
    assert notion["sources"][0]["turn_id"] == second.json()["turn_id"]

    # Search asks the LLM whether the question needs splitting; this one does not.
    llm.script_chat('{"queries": ["where does the user work?"]}')
    results = tenant.search("where does the user work?")
    ids = [r["id"] for r in results]
    assert notion["id"] in ids
    assert stripe["id"] not in ids
    assert not any(r["key"] == "employer" and r["value"] == "Stripe" for r in results)
    assert len(llm.chat_requests) == 4
    assert "where does the user work?" in llm.chat_requests[3]["messages"][1]["content"]


def test_health_names_the_llm(llm_http):
    body = llm_http.get("/health").json()
    assert body["llm"] == "ok" and body["extractor"] == "llm:test-model"
    assert "llm" not in body["degraded"]


def test_an_llm_that_is_down_leaves_the_turn_queued_not_lost(ctx, llm, llm_http, runtime):
    tenant = Tenant(ctx, llm_http)
    for _ in range(3):
        llm.script("/v1/chat/completions", status=500)
    response = tenant.turn("My name is Ada.")
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "queued" and "LLMError" in body["error"]
    queued = tenant.get(f"/v1/turns/{body['turn_id']}").json()
    assert queued["status"] == "queued"
    # Degraded, not down: what was said is stored and searchable at once, before any extraction.
    assert [m["content"] for m in queued["memories"]] == ["My name is Ada."]
    assert [r["content"] for r in tenant.search("Ada", mode="bm25")] == ["My name is Ada."]
    # The job went to the extraction queue; the workers (offline rules here) take it from there.
    runtime.drain()
    status = tenant.get(f"/v1/turns/{body['turn_id']}").json()
    assert status["status"] == "processed" and any(m["value"] == "Ada" for m in status["memories"])


def test_a_memory_that_replaces_several_is_linked_to_each(ctx, llm, llm_http):
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("employer", "Stripe", "The user's employer is Stripe.", "I work at Stripe"))
    tenant.turn("I work at Stripe", timestamp="2026-01-01T00:00:00Z")
    llm.script_chat(_extraction("employer", "Notion", "The user's employer is Notion.", "I also work at Notion"),
                    '{"action": "coexist", "reason": "two part-time jobs"}')
    tenant.turn("I also work at Notion", timestamp="2026-02-01T00:00:00Z")
    llm.script_chat(_extraction("employer", "Globex", "The user's employer is Globex.", "I left both for Globex"),
                    '{"action": "supersede", "replaces": ["m1", "m2"], "reason": "left both jobs"}')
    tenant.turn("I left both for Globex", timestamp="2026-03-01T00:00:00Z")
    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()
    employer = {m["value"]: m for m in listing["memories"] if m["key"] == "employer"}
    assert [v for v, m in employer.items() if m["active"]] == ["Globex"]
    assert all(employer[v]["valid_to"] == "2026-03-01T00:00:00Z" for v in ("Stripe", "Notion"))
    history = tenant.get(f"/v1/memories/{employer['Globex']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Stripe", "Notion", "Globex"]
    assert employer["Globex"]["supersedes"] == employer["Notion"]["id"]  # the latest it replaced
