"""What a cold start loads: each handler in a fresh interpreter, as a new Lambda execution
environment would import it. The embedding model and its tokenizer are loaded by the first
request that embeds, or at import by the functions that embed on nearly every invocation when
MEMEX_EMBEDDER_AT_INIT is on (as template.yaml sets it), and never by a function or a request
that does not embed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from infra import template
from infra.local.loopback import loopback_endpoint
from tests.conftest import ROOT, database_of_its_own

HANDLERS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))
# The tokenizer, the weights' reader, and the model code itself.
EMBEDDING_MODULES = ("tokenizers", "safetensors", "memex.embeddings.minilm")
# Loaded only when an LLM is configured (memex.llm, the health probe): slow to import.
LLM_CLIENT = "openai"
# The offline extractor's rules: slow to import, needed only by a request that extracts.
OFFLINE_RULES = "memex.extraction.offline"
# The functions that load the model at init with MEMEX_EMBEDDER_AT_INIT: each embeds on nearly
# every invocation. The others (ingest and cleanup among them) never load it at import.
EMBED_AT_INIT = {"search", "recall", "extract_worker", "supersede_worker", "backfill_worker"}
AT_INIT = {"MEMEX_EMBEDDER_AT_INIT": "true"}

REPORT = """
import json, sys
minilm = sys.modules.get("memex.embeddings.minilm")
print(json.dumps({"modules": sorted(m for m in %r if m in sys.modules),
                  "model_loaded": bool(minilm is not None and minilm._model is not None)}))
"""


def fresh_interpreter(code: str, **settings: str) -> dict:
    env = {**os.environ, **settings, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run([sys.executable, "-c", code + REPORT % ((*EMBEDDING_MODULES, LLM_CLIENT, OFFLINE_RULES),)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_template_loads_the_embedder_at_init():
    assert template.load()["Globals"]["Function"]["Environment"]["Variables"]["MEMEX_EMBEDDER_AT_INIT"] == "true"


def test_every_handler_is_found():
    in_template = {Path(fn["Properties"]["CodeUri"]).name for fn in template.load()["Resources"].values()
                   if fn["Type"] == "AWS::Serverless::Function"}
    assert set(HANDLERS) == in_template and {"ingest", "search", "sweep", "migrate", "mcp"} <= in_template


@pytest.mark.parametrize("name", HANDLERS)
def test_importing_a_handler_loads_no_model_tokenizer_or_llm_client(name):
    loaded = fresh_interpreter(f"import functions.{name}.app", MEMEX_EMBEDDER_AT_INIT="false")
    assert loaded == {"modules": [], "model_loaded": False}


@pytest.mark.parametrize("name", HANDLERS)
def test_with_the_embedder_at_init_only_the_functions_that_embed_load_it_at_import(name):
    loaded = fresh_interpreter(f"import functions.{name}.app", **AT_INIT)
    if name in EMBED_AT_INIT:
        assert {"tokenizers", "safetensors", "memex.embeddings.minilm"} <= set(loaded["modules"])
        assert loaded["model_loaded"]
        assert not {LLM_CLIENT, OFFLINE_RULES} & set(loaded["modules"])
    else:
        assert loaded == {"modules": [], "model_loaded": False}


def test_the_embedder_failing_at_init_leaves_it_to_the_first_request():
    """A setting the Context refuses fails no init: the import goes on without the model, and the
    first request meets the error again, answered in its own shape."""
    loaded = fresh_interpreter("import functions.search.app", **AT_INIT, MEMEX_METRICS="nonsense")
    assert not loaded["model_loaded"]


INVOKE = """
import json
from functions.{name}.app import handler
from infra.local.lambda_context import LocalLambdaContext
event = json.loads({event!r})
answer = handler(event, LocalLambdaContext({name!r}))
assert {check}, answer
"""


def invoke_fresh(name: str, event: dict, check: str, **settings: str) -> dict:
    return fresh_interpreter(INVOKE.format(name=name, event=json.dumps(event), check=check), **settings)


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


@pytest.mark.parametrize("settings", [{}, AT_INIT], ids=["default", "embedder at init"])
def test_requests_that_do_not_embed_load_no_model(ctx, tenant, runtime, settings):
    """The first request of a cold start, on the sample events: storing a turn for later,
    the health check, the sweep. None of them embeds, so none loads the tokenizer or weights,
    whether or not the functions that embed load them at init."""
    for name, event, check in (
        ("ingest", http_sample("ingest_post_turn", tenant.key), "answer['statusCode'] == 202"),
        ("cleanup", http_sample("cleanup_health", tenant.key), "answer['statusCode'] == 200"),
    ):
        assert_no_model(invoke_fresh(name, event, check, **settings), name)
    # The sweep reads every tenant's rows, and embeds the memories it finds without a vector: on the
    # suite's database it would embed those other modules' tests left behind.
    with database_of_its_own(ctx, "cold_sweep") as own:
        loaded = invoke_fresh("sweep", sample("sweep"), "'republished' in answer", **settings, DATABASE_URL=own.db.dsn)
    assert_no_model(loaded, "sweep")


def test_the_migrate_handler_loads_no_model(runtime):
    with loopback_endpoint("PUT", 200) as (url, answers):
        event = sample("migrate_create")
        event["ResponseURL"] = url
        loaded = invoke_fresh("migrate", event, "answer is None")
    assert [a["body"]["Status"] for a in answers] == ["SUCCESS"]
    assert_no_model(loaded, "migrate")


@pytest.mark.parametrize("settings", [{}, AT_INIT], ids=["default", "embedder at init"])
def test_a_request_that_embeds_loads_the_model_on_demand(tenant, runtime, settings):
    """The other side of the same laziness: a search embeds its query, so the model is there
    (loaded by the request, or already at init)."""
    loaded = invoke_fresh("search", http_sample("search_post", tenant.key), "answer['statusCode'] == 200",
                          **settings)
    assert {"tokenizers", "safetensors", "memex.embeddings.minilm"} <= set(loaded["modules"])
    assert loaded["model_loaded"]
    assert OFFLINE_RULES not in loaded["modules"]  # a search extracts nothing


def test_telling_a_local_embedders_failure_from_an_endpoints_loads_no_llm_client():
    """embeddings.on_its_side (and down, which asks it first) knows an endpoint's errors only once
    its module is loaded: a process with the local embedder, whose call failed (a job start's, a fill's), tells
    its failure with no import of the `openai` client (slow to import, and never needed without an endpoint)."""
    loaded = fresh_interpreter("""
from memex import embeddings
from memex.embeddings.minilm import MiniLMEmbedder

class Failing(MiniLMEmbedder):
    def embed(self, texts):
        raise RuntimeError("out of memory")

embedder = Failing()
try:
    embedder.embed(["My employer is Kayak: I work there."])
except RuntimeError as exc:
    failure = exc
assert embeddings.on_its_side(failure) is None and not embeddings.down(embedder, failure)
assert embeddings.on_its_side(TimeoutError()) is embeddings.OnItsSide.PASSING
""")
    assert LLM_CLIENT not in loaded["modules"]
