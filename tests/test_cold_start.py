"""What a cold start loads: each handler in a fresh interpreter, as a new Lambda execution
environment would import it. The embedding model and its tokenizer are loaded by the first
request that embeds, never at import, and never by a request that does not embed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, cloudformation_response_url
from tests.test_template import load_template

HANDLERS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))
# The tokenizer, the weights' reader, and the model code itself.
EMBEDDING_MODULES = ("tokenizers", "safetensors", "memex.embeddings.minilm")
# Loaded only when an LLM is configured (memex.llm, the health probe): slow to import.
LLM_CLIENT = "openai"
# The offline extractor's rules: compiled at import, needed only by a request that extracts.
OFFLINE_RULES = "memex.extraction.offline"

REPORT = """
import json, sys
minilm = sys.modules.get("memex.embeddings.minilm")
print(json.dumps({"modules": sorted(m for m in %r if m in sys.modules),
                  "model_loaded": bool(minilm is not None and minilm._model is not None)}))
"""


def fresh_interpreter(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run([sys.executable, "-c", code + REPORT % ((*EMBEDDING_MODULES, LLM_CLIENT, OFFLINE_RULES),)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_every_handler_is_found():
    in_template = {Path(fn["Properties"]["CodeUri"]).name for fn in load_template()["Resources"].values()
                   if fn["Type"] == "AWS::Serverless::Function"}
    assert set(HANDLERS) == in_template and {"ingest", "search", "sweep", "migrate", "mcp"} <= in_template


@pytest.mark.parametrize("name", HANDLERS)
def test_importing_a_handler_loads_no_model_tokenizer_or_llm_client(name):
    loaded = fresh_interpreter(f"import functions.{name}.app")
    assert loaded == {"modules": [], "model_loaded": False}


INVOKE = """
import json
from functions.{name}.app import handler
from infra.local.lambda_context import LocalLambdaContext
event = json.loads({event!r})
answer = handler(event, LocalLambdaContext({name!r}))
assert {check}, answer
"""


def invoke_fresh(name: str, event: dict, check: str) -> dict:
    return fresh_interpreter(INVOKE.format(name=name, event=json.dumps(event), check=check))


def sample(name: str) -> dict:
    return json.loads((ROOT / "events" / f"{name}.json").read_text())


def http_sample(name: str, key: str) -> dict:
    event = sample(name)
    event["headers"]["authorization"] = f"Bearer {key}"
    return event


def assert_no_model(loaded: dict, name: str) -> None:
    # memex.embeddings.minilm itself may be there: the Context holds an embedder, which costs
    # nothing until it embeds.
    assert not {"tokenizers", "safetensors", LLM_CLIENT, OFFLINE_RULES} & set(loaded["modules"]), (name, loaded)
    assert not loaded["model_loaded"], name


def test_requests_that_do_not_embed_load_no_model(tenant, runtime):
    """The first request of a cold start, on the sample events: storing a turn for later,
    the health check, the sweep. None of them embeds, so none loads the tokenizer or weights."""
    for name, event, check in (
        ("ingest", http_sample("ingest_post_turn", tenant.key), "answer['statusCode'] == 202"),
        ("cleanup", http_sample("cleanup_health", tenant.key), "answer['statusCode'] == 200"),
        ("sweep", sample("sweep"), "'republished' in answer"),
    ):
        assert_no_model(invoke_fresh(name, event, check), name)


def test_the_migrate_handler_loads_no_model(runtime):
    with cloudformation_response_url() as (url, answers):
        event = sample("migrate_create")
        event["ResponseURL"] = url
        loaded = invoke_fresh("migrate", event, "answer is None")
    assert [a["Status"] for a in answers] == ["SUCCESS"]
    assert_no_model(loaded, "migrate")


def test_a_request_that_embeds_loads_the_model_on_demand(tenant, runtime):
    """The other side of the same laziness: a search embeds its query, so the model is there."""
    loaded = invoke_fresh("search", http_sample("search_post", tenant.key), "answer['statusCode'] == 200")
    assert {"tokenizers", "safetensors", "memex.embeddings.minilm"} <= set(loaded["modules"])
    assert loaded["model_loaded"]
    assert OFFLINE_RULES not in loaded["modules"]  # a search extracts nothing
