"""What the user says never reaches the logs: a turn, a search and a recall, with an LLM (the
loopback double) whose answers quote the user and go wrong in every way that gets logged, leave no
trace of the content in any log record at INFO."""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid

import pytest

from memex import pipeline
from memex_edge.context import build_context
from tests.conftest import Tenant, api_client, logging_into
from bench.openai_double import OpenAIDouble


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def texts(self) -> list[str]:
        formatter = logging.Formatter()
        return [record.getMessage() + (formatter.formatException(record.exc_info) if record.exc_info else "")
                for record in self.records]


@pytest.fixture
def logged():
    with logging_into(Records()) as handler:
        yield handler


@pytest.fixture(scope="module")
def llm_http(ctx, llm):
    settings = dataclasses.replace(ctx.settings, llm_base_url=llm.base_url, llm_model="privacy-model",
                                   llm_api_key="k")
    built = build_context(settings)
    with api_client(built) as client:
        yield client


def _extraction(value: str, *, malformed: bool = False) -> str:
    good = {"message": 0, "type": "fact", "key": "employer", "value": value, "subject": "user",
            "historical": False, "content": f"The user's employer is {value}.", "confidence": 0.9,
            "quote": f"I work at {value}"}
    items = [good] + ([{"type": "fact", "content": f"{value} is a mystery", "quote": value}] if malformed else [])
    return json.dumps({"memories": items})


def test_no_content_reaches_the_logs(ctx, llm, llm_http, logged):
    marker = f"Qz{uuid.uuid4().hex[:10]}"
    later = f"{marker}labs"
    tenant = Tenant(ctx, llm_http)
    llm.scripts.clear()

    # an unparseable answer that quotes the user, then an extraction with a malformed item
    llm.script_chat(f"Sure! The user works at {marker}, I think.", _extraction(marker, malformed=True))
    assert tenant.turn(f"I work at {marker}").status_code == 201
    # the judge answers something unusable, quoting both values
    llm.script_chat(_extraction(later), json.dumps({"action": "ponder", "reason": f"{marker} or {later}?"}))
    assert tenant.turn(f"I work at {later} now").status_code == 201
    # the query split answers no list, quoting the question
    llm.script_chat(json.dumps({"queries": f"where is {marker}"}))
    response = tenant.post("/v1/search", {"user_id": tenant.user, "query": f"where is {marker}?"})
    assert response.status_code == 200 and response.json()["results"]
    recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": f"what about {marker}?"})
    assert recalled.status_code == 200 and marker in recalled.json()["context"]

    assert len(llm.chat_requests) >= 5 and logged.records  # the failures were logged...
    leaks = [text for text in logged.texts() if marker in text]
    assert leaks == []  # ...and what the user said was not


def test_a_failure_told_to_the_client_names_no_internal_address(ctx):
    internal = "http://10.9.8.7:8000/v1"
    with OpenAIDouble(dim=384) as embedder:
        for _ in range(4):  # every attempt of the embedder's client
            embedder.script("/v1/embeddings", status=502, body={"error": {"message": f"upstream {internal} down"}})
        settings = dataclasses.replace(ctx.settings, embeddings_provider="openai", embeddings_base_url=embedder.base_url,
                                       embeddings_model="embed-privacy", embedding_dim=384)
        built = build_context(settings)
        with api_client(built) as client:
            tenant = Tenant(ctx, client)
            response = tenant.turn("I work at Stripe.")
            status = tenant.get(f"/v1/turns/{response.json()['turn_id']}")
    assert response.status_code == 202 and "InternalServerError" in response.json()["error"]
    for answer in (response, status):
        assert internal not in answer.text and "10.9.8.7" not in answer.text and "127.0.0.1" not in answer.text


class CountingEmbedder:
    """The test context's embedder, the documents it is asked to embed listed."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.documents: list[str] = []

    def embed(self, texts):
        self.documents.extend(texts)
        return self.inner.embed(texts)


def test_no_tenant_is_spared_an_embedding_by_what_another_wrote(ctx):
    """The write path keeps the vectors of texts it embedded lately: shared between tenants, a
    write's speed would tell one tenant whether another had just said the same words."""
    said = f"My locker code is {uuid.uuid4().hex[:8]}."
    counted = dataclasses.replace(ctx, embedder=CountingEmbedder(ctx.embedder))
    for tenant in ("t-acme", "t-globex", "t-acme", "t-globex"):
        pipeline.embed_distinct(counted, tenant, [said])
    assert counted.embedder.documents == [said, said]
