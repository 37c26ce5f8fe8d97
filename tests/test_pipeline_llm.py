"""The pipeline with an LLM configured, end to end through the HTTP API: the extractor and the judge
talk to the loopback OpenAI double through the real openai client."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time

import httpx
import openai
import psycopg
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from infra.local.lambda_context import LocalLambdaContext
from infra.local.runtime import function_module
from memex import pipeline
from memex.extraction.llm import LLMExtractor
from memex.db import turns as turn_rows
from memex.ingest import ingest_turn, sweep
from memex.jobs import ExtractionJob, SupersessionJob
from memex.models import TurnIn
from memex.supersession_llm import LLMJudge
from memex_edge.context import build_context
from memex_edge.http.app import create_app
from memex_edge.http.lambda_entry import asgi_lambda_handler
from memex_edge.sqs import SqsPublisher
from tests.conftest import ROOT, Refusing, Tenant, WrappedEmbedder, api_client
from bench.openai_double import CHAT, EMBEDDINGS, OpenAIDouble


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
    assert notion["metadata"]["extractor"] == stripe["metadata"]["extractor"] == "llm:test-model"
    assert notion["metadata"]["reason"] == "LLM judge: supersede"
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
    # Degraded, not down: what was said is stored and searchable at once, before any extraction;
    # the answer and the turn's GET say so alike, and the GET still says why it is queued.
    assert [m["content"] for m in queued["memories"]] == ["My name is Ada."]
    assert queued == body
    assert [r["content"] for r in tenant.search("Ada", mode="bm25")] == ["My name is Ada."]
    # The job went to the extraction queue; the workers (offline rules here) take it from there.
    runtime.drain()
    status = tenant.get(f"/v1/turns/{body['turn_id']}").json()
    assert status["status"] == "processed" and any(m["value"] == "Ada" for m in status["memories"])
    assert "error" not in status


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


def test_a_role_said_with_its_employer_ends_when_the_llm_judge_replaces_the_employer(ctx, llm, llm_http):
    """The LLM judge decides the employer; the role said with the old one ends with it, as under the
    rules (pipeline._end_what_ended_with), and the judge is asked nothing more about it."""
    tenant = Tenant(ctx, llm_http)
    quote = "I'm a support lead at Zendesk."
    items = [{"message": 0, "type": "fact", "key": key, "value": value, "subject": "user", "historical": False,
              "content": content, "confidence": 0.9, "quote": quote}
             for key, value, content in [("employer", "Zendesk", "The user's employer is Zendesk."),
                                         ("role", "support lead", "The user's job title is support lead.")]]
    llm.script_chat(json.dumps({"memories": items}))
    tenant.turn(quote, timestamp="2026-01-01T00:00:00Z")
    asked = len(llm.chat_requests)
    llm.script_chat(_extraction("employer", "Intercom", "The user's employer is Intercom.",
                                "I started at Intercom last week."),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "the user changed jobs"}')
    tenant.turn("I started at Intercom last week.", timestamp="2026-02-01T00:00:00Z")
    assert len(llm.chat_requests) == asked + 2
    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()
    roles = sorted((m for m in listing["memories"] if m["key"] == "role"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in roles] == [("support lead", False), ("support lead", False)]
    held, ended = roles
    assert ended["supersedes"] == held["id"] and held["valid_to"] == "2026-02-01T00:00:00Z"
    assert ended["metadata"]["judge"] == "llm:test-model"
    assert ended["metadata"]["extractor"] == "llm:test-model"  # read with the employer that ended it
    assert "'Zendesk'" in ended["metadata"]["reason"] and "'Intercom'" in ended["metadata"]["reason"]


def test_a_person_the_user_mentions_is_the_users_fact_naming_them_and_a_participant_keeps_theirs(ctx, llm, llm_http):
    """`subject` is for named participants of the conversation (issue 11): what the model files
    under someone the user only mentions becomes the user's fact naming them, as the offline rules
    file it ("The user's partner Sam is a nurse.", partner_sam_role); the user's own name is the user."""
    tenant = Tenant(ctx, llm_http)
    said = ["My partner Sam is a nurse and works at Acme.", "I work at Globex."]
    items = [{"message": message, "type": "fact", "key": key, "value": value, "subject": subject,
              "historical": False, "content": content, "confidence": 0.9, "quote": said[message]}
             for message, key, value, subject, content in [
                 (0, "role", "nurse", "Sam", "The user's partner Sam is a nurse."),
                 (0, "partner_sam_employer", "Acme", "Sam", "The user's partner Sam works at Acme."),
                 (0, "partner_name", "Sam", "Caroline", "The user's partner is named Sam."),
                 (1, "employer", "Globex", "Melanie", "Melanie's employer is Globex.")]]
    llm.script_chat(json.dumps({"memories": items}))
    response = tenant.post("/v1/turns?wait=true", {
        "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline", "timestamp": "2026-01-01T00:00:00Z",
        "messages": [{"role": "user", "name": "Caroline", "content": said[0]},
                     {"role": "user", "name": "Melanie", "content": said[1]}]})
    assert response.status_code == 201, response.text
    system = llm.chat_requests[-1]["messages"][0]["content"]
    assert "partner_sam_role" in system and "The user's partner Sam is a nurse." in system
    listing = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert sorted((m["subject"], m["key"], m["value"]) for m in listing if m["memory_type"] == "semantic") == [
        ("Melanie", "melanie_employer", "Globex"), ("user", "partner_name", "Sam"),
        ("user", "partner_sam_employer", "Acme"), ("user", "partner_sam_role", "nurse")]


# ---- the LLM path files what the offline rules file, and ends it the same way (issue 11) ----------------

def _items(quote: str, *facts: tuple) -> str:
    """An extraction answer in the prompt's documented shape: (key, value, content) or (key, value,
    content, extra fields) for each memory of the one message `quote`."""
    return json.dumps({"memories": [
        {"message": 0, "type": "relation" if fact[0].endswith("_name") else "fact", "key": fact[0], "value": fact[1],
         "subject": "user", "historical": False, "content": fact[2], "confidence": 0.9, "quote": quote,
         **(fact[3] if len(fact) > 3 else {})} for fact in facts]})


def _memories_by_key(tenant: Tenant) -> dict[str, list[dict]]:
    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    found: dict[str, list[dict]] = {}
    for memory in sorted(listing, key=lambda m: m["created_at"]):
        if memory["memory_type"] == "semantic":
            found.setdefault(memory["key"], []).append(memory)
    return found


def _current(memories: list[dict]) -> list[str]:
    return [m["value"] for m in memories if m["active"]]


def _partner_sam(tenant: Tenant, llm) -> None:
    said = "My partner Sam is a nurse at Acme."
    # What a model may answer besides the documented "partner_sam_role": the job filed under Sam.
    llm.script_chat(_items(said, ("partner_name", "Sam", "The user's partner is named Sam."),
                           ("partner_sam_role", "nurse", "The user's partner Sam is a nurse."),
                           ("employer", "Acme", "The user's partner Sam works at Acme.", {"subject": "Sam"})))
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z").status_code == 201


def test_a_break_up_in_the_prompts_shape_ends_the_partner_and_what_was_said_of_them(ctx, llm, llm_http):
    """"I broke up with Sam." as the prompt documents it (partner_name Sam, historical) ends Sam as the
    current partner, as the offline rules' former partner does, and Sam's job ends with the
    partnership (pipeline._end_what_ended_with), whichever key shape the model filed it under."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    _partner_sam(tenant, llm)
    system = llm.chat_requests[0]["messages"][0]["content"]
    assert "I broke up with Sam" in system and "<relation>_<name>_role" in system
    said = "I broke up with Sam."
    llm.script_chat(_items(said, ("partner_name", "Sam", "The user's former partner is Sam.", {"historical": True})))
    assert tenant.turn(said, timestamp="2026-02-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert _current(found["partner_name"]) == []
    assert [m["value"] for m in found["partner_name"]] == ["Sam", "Sam"]
    for key, value in [("partner_sam_role", "nurse"), ("partner_sam_employer", "Acme")]:
        held, ended = found[key]
        assert (held["value"], held["active"], held["valid_to"]) == (value, False, "2026-02-01T00:00:00Z")
        assert ended["supersedes"] == held["id"] and ended["content"].startswith("The user's former partner Sam ")
    assert "sam_employer" not in found
    llm.reset()


def test_we_broke_up_ends_the_partner_by_rule_without_asking(ctx, llm, llm_http):
    """"We broke up." (relationship_status single) takes back the current partner by rule, as under
    the offline rules' judge: the model is not asked, which may take a status and a name for two
    unrelated facts and keep both."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    _partner_sam(tenant, llm)
    asked = len(llm.chat_requests)
    said = "We broke up last month."
    llm.script_chat(_items(said, ("relationship_status", "single", "The user is single.")),
                    '{"action": "coexist", "replaces": [], "reason": "a status and a name are different facts"}')
    assert tenant.turn(said, timestamp="2026-02-01T00:00:00Z").status_code == 201
    assert len(llm.chat_requests) == asked + 1  # the extraction only
    found = _memories_by_key(tenant)
    assert _current(found["relationship_status"]) == ["single"] and _current(found["partner_name"]) == []
    assert _current(found["partner_sam_role"]) == []
    llm.scripts.clear()  # the verdict nobody asked for
    # and a partner named later takes back "single", by rule too
    said = "My girlfriend Alex is moving in."
    llm.script_chat(_items(said, ("partner_name", "Alex", "The user's partner is named Alex.")),
                    '{"action": "coexist", "replaces": [], "reason": "different facts"}')
    assert tenant.turn(said, timestamp="2026-03-01T00:00:00Z").status_code == 201
    assert len(llm.chat_requests) == asked + 2
    found = _memories_by_key(tenant)
    assert _current(found["relationship_status"]) == [] and _current(found["partner_name"]) == ["Alex"]
    llm.reset()


def test_two_cats_named_in_one_message_are_both_kept(ctx, llm, llm_http):
    """"We have two cats, Miso and Tofu." in the prompt's shape (one pet_cat_name each, and the
    count): both names stay current, as the offline rules keep them; the model is not asked whether
    one name said beside the other replaces it."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "We have two cats, Miso and Tofu."
    llm.script_chat(_items(said, ("pet_cat_name", "Miso", "The user's cat is named Miso."),
                           ("pet_cat_name", "Tofu", "The user's cat is named Tofu."),
                           ("pet_cat_count", "2", "The user has 2 cats.")),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "the cat is called Tofu"}')
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z").status_code == 201
    system = llm.chat_requests[0]["messages"][0]["content"]
    assert "pet_<kind>_name" in system and "pet_<kind>_count" in system
    found = _memories_by_key(tenant)
    assert sorted(_current(found["pet_cat_name"])) == ["Miso", "Tofu"] and _current(found["pet_cat_count"]) == ["2"]
    assert len(llm.chat_requests) == 1
    llm.reset()


def test_a_name_left_alone_in_the_prompts_shape_ends_only_the_current_partner(ctx, llm, llm_http):
    """"I'm no longer with Sam." may be a partner or a firm: filed as the offline rules file it
    (partner_name Sam, historical, ends_only), it ends Sam only if Sam is the current partner, and
    while the partner is Alex it files nothing; by rule, the model not asked."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "My partner is Alex."
    llm.script_chat(_items(said, ("partner_name", "Alex", "The user's partner is named Alex.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = "I'm no longer with Sam."
    llm.script_chat(_items(said, ("partner_name", "Sam", "The user's former partner is Sam.",
                                  {"historical": True, "ends_only": True})),
                    '{"action": "keep_old", "replaces": [], "reason": "Sam is a former partner"}')
    assert tenant.turn(said, timestamp="2026-02-01T00:00:00Z").status_code == 201
    assert len(llm.chat_requests) == 2
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in found["partner_name"]] == [("Alex", True)]
    llm.reset()


def test_the_judges_own_words_are_stored_nowhere(ctx, llm, llm_http, caplog):
    """A usable verdict's `reason` is the model's text, which may quote the user or another memory (its
    value, which that memory's erasure would not reach): the memory's `metadata.reason` names the
    action instead, and the text is in no row and no log line."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("employer", "Stripe", "The user's employer is Stripe.", "I work at Stripe"))
    assert tenant.turn("I work at Stripe", timestamp="2026-01-05T10:00:00Z").status_code == 201
    llm.script_chat(_extraction("employer", "Notion", "The user's employer is Notion.", "I just started at Notion"),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "Qz7 left Stripe for Notion"}')
    with caplog.at_level(logging.DEBUG):
        assert tenant.turn("I just started at Notion", timestamp="2026-03-01T10:00:00Z").status_code == 201
    [notion] = [m for m in _memories_by_key(tenant)["employer"] if m["value"] == "Notion"]
    assert notion["metadata"]["reason"] == "LLM judge: supersede" and notion["supersedes"]
    with psycopg.connect(ctx.db.dsn) as conn:
        assert conn.execute("SELECT count(*) FROM memories WHERE tenant_id = %s AND metadata::text LIKE '%%Qz7%%'",
                            (tenant.id,)).fetchone()[0] == 0
    assert not [r.getMessage() for r in caplog.records if "Qz7" in r.getMessage()]
    llm.reset()


def test_a_corrected_name_replaces_the_wrong_one_by_rule(ctx, llm, llm_http):
    """"Sorry, my dog is Rollo, not Rolo." in the prompt's shape (pet_dog_name Rollo, corrects Rolo)
    replaces Rolo under a key that holds several names, as the offline rules' correction does; the
    model is not asked, which may take Rollo for a second dog."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "My dog is Rolo."
    llm.script_chat(_items(said, ("pet_dog_name", "Rolo", "The user's dog is named Rolo.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = "Sorry, my dog is Rollo, not Rolo."
    llm.script_chat(_items(said, ("pet_dog_name", "Rollo", "The user's dog is named Rollo.", {"corrects": "Rolo"})),
                    '{"action": "coexist", "replaces": [], "reason": "a second dog"}')
    assert tenant.turn(said, timestamp="2026-01-02T00:00:00Z").status_code == 201
    assert "corrects" in llm.chat_requests[0]["messages"][0]["content"]
    assert len(llm.chat_requests) == 2
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in found["pet_dog_name"]] == [("Rolo", False), ("Rollo", True)]
    llm.reset()


def test_a_pets_death_said_by_its_name_alone_shows_the_model_the_pets_it_may_name(ctx, llm, llm_http):
    """"Pickle passed away last week." in a session that never names Pickle: the model is shown the user's
    current pets, the prompt says what such a death is (the pet's name as history), and the dog ends.
    Shown only to a turn that says a death by a name: the others' prompts are the conversation alone."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "My dog Pickle loves the beach."
    llm.script_chat(_items(said, ("pet_dog_name", "Pickle", "The user's dog is named Pickle.")))
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z", session="spring").status_code == 201
    said = "Pickle passed away last week."
    llm.script_chat(_items(said, ("pet_dog_name", "Pickle", "The user used to have a dog named Pickle.",
                                  {"historical": True})))
    assert tenant.turn(said, timestamp="2026-02-15T00:00:00Z", session="later").status_code == 201
    named, death = [request["messages"] for request in llm.chat_requests[:2]]
    assert "KNOWN" not in named[1]["content"]
    assert "KNOWN facts" in death[1]["content"] and "- pet_dog_name: Pickle" in death[1]["content"]
    assert "KNOWN" in death[0]["content"] and "historical" in death[0]["content"]
    pet = _memories_by_key(tenant)["pet_dog_name"]
    assert [(m["value"], m["active"]) for m in pet] == [("Pickle", False), ("Pickle", False)]
    assert pet[1]["supersedes"] == pet[0]["id"] and pet[0]["valid_to"][:10] == "2026-02-15"
    llm.reset()


def test_a_diet_denied_in_a_later_session_shows_the_model_the_diet_it_may_end(ctx, llm, llm_http):
    """"I'm not vegan." in a session that never said the diet: the model is shown the user's current diet
    (as one session shows it the earlier message), and what it answers, the diet as history, ends it."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "I'm vegan."
    llm.script_chat(_items(said, ("dietary_restriction", "vegan", "The user is vegan.")))
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z", session="spring").status_code == 201
    said = "I'm not vegan."
    llm.script_chat(_items(said, ("dietary_restriction", "vegan", "The user used to be vegan.", {"historical": True})))
    assert tenant.turn(said, timestamp="2026-02-15T00:00:00Z", session="later").status_code == 201
    stated, denied = [request["messages"] for request in llm.chat_requests[:2]]
    assert "KNOWN" not in stated[1]["content"]
    assert "KNOWN facts" in denied[1]["content"] and "- dietary_restriction: vegan" in denied[1]["content"]
    diet = _memories_by_key(tenant)["dietary_restriction"]
    assert [(m["value"], m["active"]) for m in diet] == [("vegan", False), ("vegan", False)]
    assert diet[1]["supersedes"] == diet[0]["id"] and diet[0]["valid_to"][:10] == "2026-02-15"
    llm.reset()


def _diet(message: int, quote: str, value: str, content: str, **extra) -> dict:
    return {"message": message, "type": "fact", "key": "dietary_restriction", "value": value, "subject": "user",
            "historical": False, "content": content, "confidence": 0.9, "quote": quote, **extra}


def test_a_diet_denied_in_the_turn_that_said_it_ends_it_as_the_prompt_says(ctx, llm, llm_http):
    """"I'm vegan now." then "I'm not vegan." in one turn, answered as the prompt says a denial is (the
    value itself, historical and ends_only): the diet and its end, both kept, the diet ended. Before, the
    extractor kept one item per key and value, the end alone, which ended nothing current: no diet filed."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = ["I'm vegan now.", "I'm not vegan."]
    llm.script_chat(json.dumps({"memories": [
        _diet(0, said[0], "vegan", "The user is vegan."),
        _diet(1, said[1], "vegan", "The user used to be vegan.", historical=True, ends_only=True)]}))
    assert tenant.turn(*said, timestamp="2026-01-01T00:00:00Z").status_code == 201
    system = llm.chat_requests[0]["messages"][0]["content"]
    assert 'A denial ("I\'m not vegan.", "I\'m not a smoker") is the value denied' in system
    diet = _memories_by_key(tenant)["dietary_restriction"]
    assert [(m["value"], m["active"], m["content"]) for m in diet] == [
        ("vegan", False, "The user is vegan."), ("vegan", False, "The user used to be vegan.")]
    assert diet[1]["supersedes"] == diet[0]["id"] and diet[0]["valid_to"] is not None
    llm.reset()


def test_a_diet_the_model_answers_with_not_is_read_as_the_prompts_denial(ctx, llm, llm_http):
    """A model that answers "I'm not vegan." as the value "not vegan" (what the prompt says never to): read as
    the denial the offline rules file, it ends the vegan diet held; with no diet held it files nothing. Before,
    "not vegan" stood current beside "vegan"."""
    llm.reset()
    held, never = Tenant(ctx, llm_http), Tenant(ctx, llm_http)
    llm.script_chat(json.dumps({"memories": [_diet(0, "I'm vegan.", "vegan", "The user is vegan.")]}))
    assert held.turn("I'm vegan.", timestamp="2026-01-01T00:00:00Z").status_code == 201
    for tenant in (held, never):
        llm.script_chat(json.dumps({"memories": [_diet(0, "I'm not vegan.", "not vegan", "The user is not vegan.")]}))
        assert tenant.turn("I'm not vegan.", timestamp="2026-02-01T00:00:00Z").status_code == 201
    diet = _memories_by_key(held)["dietary_restriction"]
    assert [(m["value"], m["active"]) for m in diet] == [("vegan", False), ("vegan", False)]
    assert diet[1]["supersedes"] == diet[0]["id"] and diet[0]["valid_to"][:10] == "2026-02-01"
    assert "dietary_restriction" not in _memories_by_key(never)
    llm.reset()


def test_a_correction_in_a_later_session_shows_the_model_the_fact_it_corrects(ctx, llm, llm_http):
    """"I said Tuesday but I meant Thursday." in a session that never said Tuesday: the model is shown the
    user's current fact holding Tuesday, the prompt says what such a correction is, and the appointment
    is Thursday, Tuesday its history."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "My dentist appointment is on Tuesday."
    llm.script_chat(_items(said, ("event_dentist_appointment", "Tuesday", "The user's dentist appointment is on Tuesday.")))
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z", session="monday").status_code == 201
    said = "I said Tuesday but I meant Thursday."
    llm.script_chat(_items(said, ("event_dentist_appointment", "Thursday", "The user's dentist appointment is on Thursday.",
                                  {"corrects": "Tuesday"})))
    assert tenant.turn(said, timestamp="2026-01-08T00:00:00Z", session="later").status_code == 201
    stated, corrected = [request["messages"] for request in llm.chat_requests[:2]]
    assert "KNOWN" not in stated[1]["content"]
    assert "- event_dentist_appointment: Tuesday" in corrected[1]["content"]
    assert "I meant Thursday" in corrected[0]["content"]
    found = _memories_by_key(tenant)["event_dentist_appointment"]
    assert [(m["value"], m["active"]) for m in found] == [("Tuesday", False), ("Thursday", True)]
    llm.reset()


def test_a_correction_in_the_batch_that_states_the_fact_shows_the_model_that_fact(llm_ctx, llm, llm_http):
    """"Sorry, I meant Globex, not Acme." extracted in one batch (an import chunk, an SQS batch) with the
    earlier turn of another session that says "I work at Acme.": read after it, with its Acme shown as
    KNOWN (not stored yet when the batch began), and Globex replaces Acme as when each turn comes alone."""
    llm.reset()
    tenant = Tenant(llm_ctx, llm_http)
    stated, meant = "I work at Acme.", "Sorry, I meant Globex, not Acme."
    llm.script_chat(_items(stated, ("employer", "Acme", "The user works at Acme.")))
    llm.script_chat(_items(meant, ("employer", "Globex", "The user works at Globex.", {"corrects": "Acme"})))
    ids = []
    for said, timestamp, session in ((stated, "2026-01-02T09:00:00Z", "spring"), (meant, "2026-01-20T09:00:00Z", "later")):
        turn = TurnIn(user_id=tenant.user, session_id=session, timestamp=timestamp,
                      messages=[{"role": "user", "content": said}])
        with llm_ctx.db.transaction() as conn:
            ids.append(turn_rows.insert_turn(conn, tenant.id, turn, turn.timestamp)[0])
    pipeline.resolve_many(llm_ctx, pipeline.extract_many(llm_ctx, tenant.id, ids))
    first, second = [request["messages"] for request in llm.chat_requests[:2]]
    assert stated in first[1]["content"] and "KNOWN" not in first[1]["content"]
    assert meant in second[1]["content"] and "- employer: Acme" in second[1]["content"]
    found = _memories_by_key(tenant)["employer"]
    assert [(m["value"], m["active"]) for m in found] == [("Acme", False), ("Globex", True)]
    llm.reset()


# ---- what the LLM path lacked against the offline rules (issue 11, llmpath) ----------------------------


def test_a_change_between_two_names_replaces_only_the_current_one(ctx, llm, llm_http):
    """"I switched from Adobe to Figma." may be a job or a tool: filed as the offline rules file it
    (employer Figma, only_replacing Adobe), it replaces Adobe when Adobe is the current employer, and
    while the employer is Notion it files nothing; by rule, the model not asked (a scripted
    "supersede" would have made Figma the employer in Notion's place)."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "I work at Notion."
    llm.script_chat(_items(said, ("employer", "Notion", "The user's employer is Notion.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = "I switched from Adobe to Figma."
    llm.script_chat(_items(said, ("employer", "Figma", "The user's employer is Figma.", {"only_replacing": "Adobe"})),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "a new job"}')
    assert tenant.turn(said, timestamp="2026-02-01T00:00:00Z").status_code == 201
    assert "only_replacing" in llm.chat_requests[0]["messages"][0]["content"]
    assert len(llm.chat_requests) == 2
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in found["employer"]] == [("Notion", True)]
    llm.reset()

    tenant = Tenant(ctx, llm_http)
    said = "I work at Adobe."
    llm.script_chat(_items(said, ("employer", "Adobe", "The user's employer is Adobe.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = "I switched from Adobe to Figma."
    llm.script_chat(_items(said, ("employer", "Figma", "The user's employer is Figma.", {"only_replacing": "Adobe"})),
                    '{"action": "coexist", "replaces": [], "reason": "a tool"}')
    assert tenant.turn(said, timestamp="2026-02-01T00:00:00Z").status_code == 201
    assert len(llm.chat_requests) == 2
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in found["employer"]] == [("Adobe", False), ("Figma", True)]
    llm.reset()


def test_a_key_the_model_invents_holds_several_values_as_its_family_does(ctx, llm, llm_http):
    """A rabbit's breed is of the family pet_<kind>_breed, which holds several: two breeds said in one
    message both stay, by rule, as two dogs' breeds do (the model is not asked whether one replaces
    the other)."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "We have two rabbits, a Rex and a Lop."
    llm.script_chat(_items(said, ("pet_rabbit_breed", "Rex", "The user's rabbit is a Rex."),
                           ("pet_rabbit_breed", "Lop", "The user's rabbit is a Lop.")),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "the breed is Lop"}')
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z").status_code == 201
    assert len(llm.chat_requests) == 1
    found = _memories_by_key(tenant)
    assert sorted(_current(found["pet_rabbit_breed"])) == ["Lop", "Rex"]
    llm.reset()


def _melanie_says_she_is_a_teacher(ctx, llm, llm_http) -> Tenant:
    """A tenant whose user, Caroline, has a participant, Melanie, who said in session s1 that she is a
    teacher (the model files it as hers)."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "I'm a teacher."
    llm.script_chat(json.dumps({"memories": [
        {"message": 0, "type": "fact", "key": "role", "value": "teacher", "subject": "Melanie", "historical": False,
         "content": "Melanie is a teacher.", "confidence": 0.9, "quote": said}]}))
    assert tenant.post("/v1/turns?wait=true", {
        "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline", "timestamp": "2026-01-01T00:00:00Z",
        "messages": [{"role": "user", "name": "Melanie", "content": said}]}).status_code == 201
    return tenant


def test_a_participants_fact_said_by_the_user_in_a_later_session_is_theirs(ctx, llm, llm_http):
    """What the user says of Melanie, a participant of an earlier session, in a session she is not in
    (the model files it under "melanie_role"): Melanie's fact, as her own "I'm a teacher" was, so
    that it replaces it, rather than the user's fact beside hers."""
    tenant = _melanie_says_she_is_a_teacher(ctx, llm, llm_http)
    # what a model may answer of her in a session she is not in: her name, or the user, as the subject
    for when, (value, subject) in enumerate([("nurse", "Melanie"), ("doctor", "user")], start=2):
        said = f"Melanie is a {value} now."
        llm.script_chat(_items(said, ("melanie_role", value, f"Melanie is a {value}.", {"subject": subject})),
                        '{"action": "supersede", "replaces": ["m1"], "reason": "a new job"}')
        assert tenant.turn(said, session=f"s{when}", timestamp=f"2026-0{when}-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert [(m["subject"], m["value"], m["active"]) for m in found["melanie_role"]] == [
        ("Melanie", "teacher", False), ("Melanie", "nurse", False), ("Melanie", "doctor", True)]
    llm.reset()


def test_a_participants_fact_under_another_word_in_a_later_session_replaces_theirs(ctx, llm, llm_http):
    """As above, the model's own word for the key after her name ("melanie_job", "melanie_occupation"):
    her role, replacing it, not a fact beside it (the extractor, which sees one session, does not know
    her; the pipeline places it by the user's memories)."""
    tenant = _melanie_says_she_is_a_teacher(ctx, llm, llm_http)
    for when, (key, value, subject) in enumerate([("melanie_job", "nurse", "Melanie"),
                                                  ("melanie_occupation", "doctor", "user")], start=2):
        said = f"Melanie is a {value} now."
        llm.script_chat(_items(said, (key, value, f"Melanie is a {value}.", {"subject": subject})),
                        '{"action": "supersede", "replaces": ["m1"], "reason": "a new job"}')
        assert tenant.turn(said, session=f"s{when}", timestamp=f"2026-0{when}-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert set(found) == {"melanie_role"}
    assert [(m["subject"], m["value"], m["active"]) for m in found["melanie_role"]] == [
        ("Melanie", "teacher", False), ("Melanie", "nurse", False), ("Melanie", "doctor", True)]
    llm.reset()


def test_a_fact_of_the_partner_said_in_a_later_turn_is_keyed_as_the_partners(ctx, llm, llm_http):
    """"Sam got a job as a nurse." in a later turn, filed under Sam's name alone (sam_role): the user's
    memories say Sam is the partner, so it is partner_sam_role, as "My partner Sam is a nurse." is, and
    it ends with the partnership."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "My partner is Sam."
    llm.script_chat(_items(said, ("partner_name", "Sam", "The user's partner is named Sam.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = "Sam got a job as a nurse."
    llm.script_chat(_items(said, ("sam_role", "nurse", "The user's partner Sam is a nurse.")))
    assert tenant.turn(said, session="s2", timestamp="2026-01-15T00:00:00Z").status_code == 201
    said = "I broke up with Sam."
    llm.script_chat(_items(said, ("partner_name", "Sam", "The user's former partner is Sam.", {"historical": True})))
    assert tenant.turn(said, session="s3", timestamp="2026-02-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert "sam_role" not in found
    held, ended = found["partner_sam_role"]
    assert (held["value"], held["active"], held["valid_to"]) == ("nurse", False, "2026-02-01T00:00:00Z")
    assert ended["content"] == "The user's former partner Sam was a nurse."
    llm.reset()


def test_a_fact_of_a_partner_whose_name_is_too_long_for_its_key_never_outlives_the_partnership(ctx, llm, llm_http):
    """The model files what is said of the partner under their name (a person only mentioned): with the
    partner named in the same answer, "partner_<their name>_role" past the bound was shortened as a
    participant's key is ("partner_maximilian_…_<digest>_role"); in a later session, "<their name>_role"
    shortened ("maximilian_…_<digest>_role") was not recognised as the partner's and stayed the user's.
    The end of the partnership, looking for the whole key as the offline rules write it, met neither: both
    jobs stayed current after the break-up. Both are keyed as the offline rules key them, whole, past the
    bound, and dropped as theirs are (placement.relation_key)."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    name = "Maximilian Alexander Fitzgerald Montgomery Worthington Jones"
    said = f"My partner {name} is a nurse."
    llm.script_chat(_items(said, ("partner_name", name, f"The user's partner is named {name}."),
                           ("role", "nurse", f"The user's partner {name} is a nurse.", {"subject": name})))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    said = f"{name} got a job as a teacher."
    llm.script_chat(_items(said, ("role", "teacher", f"The user's partner {name} is a teacher.", {"subject": name})))
    assert tenant.turn(said, session="s2", timestamp="2026-01-15T00:00:00Z").status_code == 201
    said = f"I broke up with {name}."
    llm.script_chat(_items(said, ("partner_name", name, f"The user's former partner is {name}.", {"historical": True})))
    assert tenant.turn(said, session="s3", timestamp="2026-02-01T00:00:00Z").status_code == 201
    assert [(key, m["value"]) for key, found in _memories_by_key(tenant).items() for m in found if m["active"]] == []
    llm.reset()


def test_a_move_the_model_files_under_another_word_for_the_city_replaces_the_city(ctx, llm, llm_http):
    """A small model files "I live in Paris" as city and "I moved to Rome" as current_city: both stayed
    current under two keys. The model's word is the family's key, and the move replaces the city."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_items("I live in Paris", ("city", "Paris", "The user lives in Paris.")))
    assert tenant.turn("I live in Paris.", timestamp="2026-01-01T00:00:00Z").status_code == 201
    llm.script_chat(_items("I moved to Rome", ("current_city", "Rome", "The user lives in Rome.")),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "a move"}')
    assert tenant.turn("I moved to Rome.", timestamp="2026-02-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert "current_city" not in found
    paris, rome = found["city"]
    assert (paris["value"], paris["active"], rome["value"], rome["active"]) == ("Paris", False, "Rome", True)
    assert rome["supersedes"] == paris["id"]
    llm.reset()


def test_a_fact_of_a_participant_past_the_fiftieth_is_placed_too(ctx, llm, llm_http):
    """A user whose conversations had sixty participants (an import of a group's talk): what the model
    files under the last one's name alone in a later session is still theirs, whatever their place in
    the list of the user's participants."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    names = [f"Guest {i:02d}" for i in range(59)] + ["Zoe"]
    said = "I'm a teacher."
    llm.script_chat(json.dumps({"memories": [
        {"message": i, "type": "fact", "key": "role", "value": "teacher", "subject": name, "historical": False,
         "content": f"{name} is a teacher.", "confidence": 0.9, "quote": said} for i, name in enumerate(names)]}))
    assert tenant.post("/v1/turns?wait=true", {
        "user_id": tenant.user, "session_id": "s1", "user_name": "Caroline", "timestamp": "2026-01-01T00:00:00Z",
        "messages": [{"role": "user", "name": name, "content": said} for name in names]}).status_code == 201
    said = "Zoe is a nurse now."
    llm.script_chat(_items(said, ("zoe_role", "nurse", "Zoe is a nurse.")),
                    '{"action": "supersede", "replaces": ["m1"], "reason": "a new job"}')
    assert tenant.turn(said, session="s2", timestamp="2026-02-01T00:00:00Z").status_code == 201
    found = _memories_by_key(tenant)
    assert [(m["subject"], m["value"], m["active"]) for m in found["zoe_role"]] == [
        ("Zoe", "teacher", False), ("Zoe", "nurse", True)]
    llm.reset()


def test_a_participants_fact_under_a_name_longer_than_a_key_has_one_key_whichever_the_model_answers(
        ctx, llm, llm_http):
    """A participant whose name alone is longer than a key (68 characters): the model's "city" was cut at
    the bound into the key of any other fact of theirs, and its "<their name>_city" dropped as too long.
    Either answer, and the second said of them by the user in a session they are not in (placed by the
    user's memories), is their city under one key (jobs.subject_key), each replacing the one before; so is
    the key as the prompt shows it known, shortened, answered back of the user (it stayed the user's fact)."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    name = "Bartholomew Montgomery Fitzwilliam Archibald Worthington-Smythe Jude"
    whole = "bartholomew_montgomery_fitzwilliam_archibald_worthington_smythe_jude"
    shortened = "bartholomew_montgomery_fitzwilliam_archibald_be47ecc9_city"
    for when, (said, key, subject, speaker) in enumerate([
            ("I live in Paris.", "city", name, name), ("I moved to Lyon.", f"{whole}_city", name, name),
            (f"{name} moved to Rome.", f"{whole}_city", "user", "Caroline"),
            (f"{name} moved to Oslo.", shortened, "user", "Caroline")], start=1):
        value = said.split()[-1].rstrip(".")
        llm.script_chat(_items(said, (key, value, f"{name} lives in {value}.", {"subject": subject})),
                        *['{"action": "supersede", "replaces": ["m1"], "reason": "a move"}'] * (when > 1))
        assert tenant.post("/v1/turns?wait=true", {
            "user_id": tenant.user, "session_id": f"s{when}", "user_name": "Caroline",
            "timestamp": f"2026-0{when}-01T00:00:00Z",
            "messages": [{"role": "user", "name": speaker, "content": said}]}).status_code == 201
    found = _memories_by_key(tenant)
    assert list(found) == [shortened]
    assert [(m["subject"], m["value"], m["active"]) for m in found[shortened]] == [
        (name, "Paris", False), (name, "Lyon", False), (name, "Rome", False), (name, "Oslo", True)]
    llm.reset()


def test_an_llm_down_on_the_last_delivery_leaves_the_offline_rules_facts_not_a_failed_turn(
        ctx, llm, llm_ctx, llm_http, runtime, monkeypatch):
    # Five deliveries of an LLM outage (2.5 minutes on `make dev`) used to fail the turn: its messages
    # stayed searchable, but "I work at Stripe." never became the employer, however long after the
    # LLM came back. The last delivery now extracts with the offline rules instead.
    tenant = Tenant(ctx, llm_http)
    lost = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")))
    turn = TurnIn(user_id=tenant.user, session_id="s1", messages=[{"role": "user", "content": "I work at Stripe."}])
    turn_id = ingest_turn(lost, tenant.id, turn, wait=False)["turn_id"]
    worker = function_module("extract_worker")
    monkeypatch.setattr(worker, "get_context", lambda: llm_ctx)
    job = ExtractionJob(tenant.id, turn_id).to_json()

    def deliver(count: int) -> dict:
        record = {"messageId": "x1", "receiptHandle": "rh-x1", "body": job, "messageAttributes": {}, "md5OfBody": "",
                  "attributes": {"ApproximateReceiveCount": str(count), "SentTimestamp": "1767225600000"},
                  "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction",
                  "awsRegion": "us-east-1"}
        return worker.handler({"Records": [record]}, LocalLambdaContext("extract_worker"))

    def facts() -> list[tuple[str, str]]:
        return [(m["key"], m["value"]) for m in semantic()]

    def semantic() -> list[dict]:
        listing = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
        return [m for m in listing if m["memory_type"] == "semantic"]

    llm.fail(CHAT, "500")
    try:
        with pytest.raises(BatchProcessingError, match="LLMError"):
            deliver(1)  # an early delivery is retried: the LLM may be back for the next
        assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] != "failed"
        assert facts() == []
        asked = len(llm.chat_requests)
        assert deliver(llm_ctx.settings.max_receive_count) == {"batchItemFailures": []}
        assert len(llm.chat_requests) > asked  # the LLM was asked first
    finally:
        llm.heal(CHAT)
    runtime.drain()
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "processed" and not status.get("error")
    assert facts() == [("employer", "Stripe")]
    # The fact says what read it: not the LLM this service is configured with, so a user can find
    # (a search filter on metadata) what an outage left to the rules and have the LLM read it again.
    stripe = semantic()[0]
    assert stripe["metadata"]["extractor"] == "offline-rules" != llm_ctx.extractor.name
    found = tenant.search("employer", filters={"metadata": {"extractor": "offline-rules"}})
    assert [r["id"] for r in found] == [stripe["id"]]


def test_an_answer_of_malformed_items_only_is_read_by_the_rules_at_once_not_processed_without_facts(
        ctx, llm, llm_http):
    """`{"memories": [{"message": 7, ...}]}` (no such message) answered 201 processed with only the
    episodic memory: "I work at Stripe." never became the employer. It is no answer, and asking again is
    answered alike: the offline rules read the turn at once and file the fact."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("employer", "Stripe", "The user's employer is Stripe.", "I work at Stripe", message=7))
    response = tenant.turn("I work at Stripe.")
    assert response.status_code == 201 and response.json()["status"] == "processed", response.text
    assert len(llm.chat_requests) == 1
    [stripe] = _memories_by_key(tenant)["employer"]
    assert stripe["value"] == "Stripe" and stripe["metadata"]["extractor"] == "offline-rules"
    llm.reset()


def test_a_reextraction_with_a_turn_the_model_invents_a_fact_for_is_done_not_failed(ctx, llm, llm_ctx, llm_http):
    """A small model answering every prompt with the same fact drops it as invented for "ok cool,
    thanks!" (its quote is not there): that turn is read by the offline rules, and the re-extraction's
    chunk is done, not failed at every delivery (review revT)."""
    from memex import backfill

    tenant = Tenant(ctx, llm_http)
    for text in ("I work at Stripe.", "ok cool, thanks!"):
        ingest_turn(ctx, tenant.id, TurnIn(user_id=tenant.user, session_id="s1",
                                           messages=[{"role": "user", "content": text}]), wait=True)
    llm.reset()
    llm.script_chat(*[_extraction("employer", "Stripe", "The user's employer is Stripe.", "I work at Stripe")] * 4)
    job = backfill.new_job("reextract", tenant.id, user_id=tenant.user)
    backfill.run_chunk(llm_ctx, job)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"], state["failed"]) == ("done", 2, 0), state
    llm.reset()


@pytest.mark.parametrize("refused", ["too long", "a refusal", "content filter"])
def test_a_turn_the_llm_refuses_as_asked_is_extracted_by_the_offline_rules_at_once(ctx, llm, llm_http, refused):
    """A turn past a small model's context is refused 400 on every delivery, and a model that declines
    a turn (`message.refusal`, or its content cut by a filter) declines it again: it was queued and asked
    again until the last one (about 50 minutes in AWS) before the offline rules read it; now they read
    it at once, and its facts say so."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    if refused == "too long":
        llm.script(CHAT, status=400, body={"error": {"message": "This model's maximum context length is 4096 tokens",
                                                     "code": "context_length_exceeded"}})
    else:
        llm.script_refusal("I can't help with that." if refused == "a refusal" else None)
    response = tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z")
    assert response.status_code == 201 and response.json()["status"] == "processed", response.text
    assert len(llm.chat_requests) == 1
    [stripe] = _memories_by_key(tenant)["employer"]
    assert stripe["value"] == "Stripe" and stripe["metadata"]["extractor"] == "offline-rules"
    llm.reset()


def test_a_facts_quote_is_the_users_words_never_the_models(ctx, llm, llm_http):
    """`raw_quote` is the message's own words: the model's quote where the message holds it (up to
    case and spacing, stored as the message says it), else the message's sentence that holds the
    value; a paraphrase or an invented quote is never stored as the user's, and a fact with neither its
    quote nor its value in the message (the model invented it) is not stored at all."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "Hi!  I moved to  PORTO last spring, and I love it. My dog is called Rex.\nI work at Notion"
    llm.script_chat(_items(
        said,
        ("city", "Porto", "The user lives in Porto.", {"quote": "i moved to porto last spring"}),
        ("pet_dog_name", "Rex", "The user's dog is named Rex.", {"quote": "The user's dog is Rex."}),
        ("employer", "Notion", "The user's employer is Notion.", {"quote": None}),
        ("hobby", "chess", "The user plays chess.", {"quote": "I play chess"}),
    ))
    assert tenant.turn(said, timestamp="2026-01-01T00:00:00Z").status_code == 201
    quotes = {key: memories[0]["metadata"].get("raw_quote") for key, memories in _memories_by_key(tenant).items()}
    assert quotes == {"city": "I moved to  PORTO last spring", "pet_dog_name": "My dog is called Rex.",
                      "employer": "I work at Notion"}
    llm.reset()


class _ShortLambdaContext(LocalLambdaContext):
    """A Lambda invocation with this many seconds left (the template's worker timeouts are 60-600 s)."""

    def __init__(self, function_name: str, seconds_left: float):
        super().__init__(function_name)
        self.seconds_left = seconds_left

    def get_remaining_time_in_millis(self) -> int:
        return int(self.seconds_left * 1000)


def test_a_batchs_chat_calls_end_before_its_lambda_would_be_stopped(ctx, llm_ctx, llm_http, monkeypatch):
    # Each job had its own 20 s LLM budget, so a batch of ten turns could wait 200 s on a hung LLM
    # in an extract worker stopped by Lambda at 120 s (a supersede worker at 60 s): the batch stopped
    # half-way, nothing reported, and on the last delivery its turns went to the DLQ without the
    # offline rules' facts. Every chat call of an invocation now ends within what it has left.
    tenant = Tenant(ctx, llm_http)
    lost = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")))
    said = ["I work at Stripe.", "I live in Porto."]
    turn_ids = [ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1",
                                                    messages=[{"role": "user", "content": text}]), wait=False)["turn_id"]
                for text in said]
    worker = function_module("extract_worker")
    monkeypatch.setattr(worker, "get_context", lambda: lost)
    asked: list[float] = []

    def hung(**request):  # the endpoint never answers: the call lasts its whole timeout
        asked.append(request["timeout"])
        raise openai.APITimeoutError(request=httpx.Request("POST", "http://llm.invalid/v1/chat/completions"))

    monkeypatch.setattr(llm_ctx.extractor.chat._client.chat.completions, "create", hung)
    seconds_left = 6.0
    records = [{"messageId": f"b{i}", "receiptHandle": f"rh-b{i}", "body": ExtractionJob(tenant.id, t).to_json(),
                "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                "attributes": {"ApproximateReceiveCount": str(llm_ctx.settings.max_receive_count),
                               "SentTimestamp": "1767225600000"},
                "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction", "awsRegion": "us-east-1"}
               for i, t in enumerate(turn_ids)]
    result = worker.handler({"Records": records}, _ShortLambdaContext("extract_worker", seconds_left))
    assert asked and max(asked) < seconds_left, asked
    # the last delivery: the offline rules read what the LLM did not
    assert result == {"batchItemFailures": []}
    for turn_id in turn_ids:
        status = tenant.get(f"/v1/turns/{turn_id}").json()
        assert status["status"] == "processing" and not status.get("error"), status


def test_an_inline_turns_chat_calls_end_before_its_lambda_would_be_stopped(ctx, llm_ctx, llm_http, monkeypatch):
    # POST /v1/turns?wait=true asks the LLM to extract (a 20 s budget), then to judge (20 s more), in
    # a function API Gateway gives 30 s and Lambda stops at 29: a slow LLM answered API Gateway's 503,
    # not memex's 202 with the turn queued. Every chat call of the request ends within what it has left.
    tenant = Tenant(ctx, llm_http)
    asked: list[float] = []

    def hung(**request):
        asked.append(request["timeout"])
        raise openai.APITimeoutError(request=httpx.Request("POST", "http://llm.invalid/v1/chat/completions"))

    monkeypatch.setattr(llm_ctx.extractor.chat._client.chat.completions, "create", hung)
    handler = asgi_lambda_handler(create_app(function_module("ingest").router, provide=lambda: llm_ctx))
    event = json.loads((ROOT / "events" / "ingest_post_turn.json").read_text())
    event["rawQueryString"], event["queryStringParameters"] = "wait=true", {"wait": "true"}
    event["headers"]["authorization"] = f"Bearer {tenant.key}"
    event["body"] = json.dumps({"user_id": tenant.user, "session_id": "s1", "messages": [{"role": "user", "content": "I work at Stripe."}]})
    event["headers"]["content-length"] = str(len(event["body"]))
    seconds_left = 6.0
    response = handler(event, _ShortLambdaContext("ingest", seconds_left))
    assert asked and max(asked) < seconds_left, (asked, response)
    body = json.loads(response["body"])
    assert response["statusCode"] == 202 and body["status"] == "queued" and "LLMError" in body["error"], body


def _template_queue(runtime, llm_ctx, name: str):
    """An SQS queue (moto) with the template's 750 s visibility, a context publishing to it, and one
    whose publishes are lost (a queue that does not exist)."""
    client = runtime.sqs_client()
    url = client.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "750"})["QueueUrl"]
    queued = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=url)))
    lost = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=url + "-missing")))
    return client, url, queued, lost


def test_the_sweep_leaves_a_turn_waiting_for_its_retry(ctx, llm, llm_ctx, llm_http, runtime, monkeypatch):
    # A failed delivery comes back only after the queue's visibility timeout (750 s in the
    # template), while the sweep took a queued turn for lost 120 s after it was last touched once a
    # later turn was extracted: it re-published a message SQS still held and, in an outage, marked
    # failed a turn whose deliveries were still to come.
    client, url, queued, lost = _template_queue(runtime, llm_ctx, "memex-extraction-ops2")
    tenant = Tenant(ctx, llm_http)
    waiting = ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", messages=[
        {"role": "user", "content": "I work at Stripe."}]), wait=False)["turn_id"]
    worker = function_module("extract_worker")
    monkeypatch.setattr(worker, "get_context", lambda: queued)
    llm.reset()  # nothing scripted: the LLM answers 500
    record = {"messageId": "r1", "receiptHandle": "rh-r1", "body": ExtractionJob(tenant.id, waiting).to_json(),
              "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
              "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000"},
              "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction-ops2", "awsRegion": "us-east-1"}
    with pytest.raises(BatchProcessingError):
        worker.handler({"Records": [record]}, LocalLambdaContext("extract_worker"))
    assert "retried when its queue message comes back" in tenant.get(f"/v1/turns/{waiting}").json()["error"]

    def touched_ago(seconds: int) -> None:
        with ctx.db.transaction() as conn:
            conn.execute("UPDATE turns SET updated_at = now() - make_interval(secs => %s), "
                         "tried_at = now() - make_interval(secs => %s), republished = %s WHERE tenant_id = %s AND id = %s",
                         (seconds, seconds, llm_ctx.settings.sweep_max_republish, tenant.id, waiting))

    # Five minutes later the queue has moved past it (a later turn is extracted), its message is
    # still hidden, and it was re-published as often as the sweep allows.
    llm.script_chat(_extraction("city", "Porto", "The user lives in Porto.", "I live in Porto"))
    assert tenant.turn("I live in Porto.").json()["status"] == "processed"
    touched_ago(300)
    sweep(queued, older_than_seconds=120)
    row = turn_rows.get_turn(ctx.db.connection(), tenant.id, waiting)
    assert row["status"] == "queued" and row["republished"] == llm_ctx.settings.sweep_max_republish
    # Past twice the visibility timeout no delivery can still come: it is lost after all.
    touched_ago(1600)
    sweep(queued, older_than_seconds=120)
    assert tenant.get(f"/v1/turns/{waiting}").json()["status"] == "failed"
    client.delete_queue(QueueUrl=url)


class _Stopped(BaseException):
    """Lambda stopping an invocation at its timeout: nothing after it runs, no handler notes a thing."""


def test_the_sweep_leaves_a_turn_whose_worker_was_stopped_to_sqs(ctx, llm, llm_ctx, llm_http, runtime, monkeypatch):
    # A worker stopped mid-batch (Lambda's timeout) noted nothing on its turns: 120 s later the sweep
    # took such a turn for a lost publish and re-sent it while SQS still held its delivery (750 s),
    # and the LLM was asked for it again. A lost publish is re-sent at 120 s all the same, and so is
    # one after a failed `?wait=true` (which waited 1,500 s: its noted error read as a worker's try).
    client, url, queued, lost = _template_queue(runtime, llm_ctx, "memex-extraction-sweep2")
    tenant = Tenant(ctx, llm_http)

    def stored(text: str, wait: bool = False) -> str:
        return ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", messages=[
            {"role": "user", "content": text}]), wait=wait)["turn_id"]

    stopped, never_sent = stored("I work at Stripe."), stored("I live in Porto.")
    llm.reset()  # nothing scripted: the LLM answers 500
    inline = stored("I have a dog named Rex.", wait=True)
    assert "processing inline failed" in tenant.get(f"/v1/turns/{inline}").json()["error"]
    worker = function_module("extract_worker")
    monkeypatch.setattr(worker, "get_context", lambda: queued)

    def stops(*args, **kwargs):
        raise _Stopped

    record = {"messageId": "s1", "receiptHandle": "rh-s1", "body": ExtractionJob(tenant.id, stopped).to_json(),
              "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
              "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000"},
              "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction-sweep2", "awsRegion": "us-east-1"}
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "_extracted", stops)  # where the LLM is asked
        with pytest.raises(_Stopped):
            worker.handler({"Records": [record]}, LocalLambdaContext("extract_worker"))
    answer = tenant.get(f"/v1/turns/{stopped}").json()
    assert answer["status"] == "queued" and "error" not in answer, answer  # a try under way is no error

    def last_touched(seconds: int, *turn_ids: str) -> None:
        with ctx.db.transaction() as conn:
            conn.execute("""UPDATE turns SET updated_at = now() - make_interval(secs => %s),
                                   tried_at = CASE WHEN tried_at IS NOT NULL THEN now() - make_interval(secs => %s) END
                            WHERE tenant_id = %s AND id = ANY(%s)""", (seconds, seconds, tenant.id, list(turn_ids)))

    def republished() -> dict[str, int]:
        rows = turn_rows.get_turns(ctx.db.connection(), tenant.id, [stopped, never_sent, inline])
        return {r["id"]: r["republished"] for r in rows}

    # Five minutes on (past MEMEX_SWEEP_AFTER_SECONDS, within the visibility timeout), the queue idle.
    last_touched(300, stopped, never_sent, inline)
    sweep(queued, older_than_seconds=120)
    assert republished() == {stopped: 0, never_sent: 1, inline: 1}
    # Past twice the visibility timeout no delivery of it can still come: lost after all, re-sent.
    client.purge_queue(QueueUrl=url)
    last_touched(1600, stopped)
    sweep(queued, older_than_seconds=120)
    assert republished() == {stopped: 1, never_sent: 1, inline: 1}
    client.delete_queue(QueueUrl=url)


def test_a_supersession_stopped_half_way_and_delivered_again_brings_back_no_value(ctx, llm, llm_ctx, llm_http,
                                                                                  monkeypatch):
    """The LLM path decides a turn's candidates one at a time, each in its own transaction, and marks the
    turn done after the last: a supersede worker stopped between two (Lambda's timeout) leaves the turn's
    candidates for the message's next delivery. Paris said again was nothing new, and Berlin replaced it; decided again
    against Berlin, the judge took Paris for the newer value, and Paris was current again. Now a delivery goes
    on after the last candidate one before it wrote: the same memories as one delivery, the judge not asked
    again."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_items("I live in Paris.", ("city", "Paris", "The user lives in Paris.")))
    assert tenant.turn("I live in Paris.", timestamp="2026-01-01T00:00:00Z").status_code == 201
    said = "I live in Paris, well I did: I just moved to Berlin with my dog Rex."
    lost = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")))
    turn_id = ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1",
                                                  timestamp="2026-02-01T00:00:00Z",
                                                  messages=[{"role": "user", "content": said}]), wait=False)["turn_id"]
    llm.script_chat(_items(said, ("city", "Paris", "The user lives in Paris."),
                           ("city", "Berlin", "The user lives in Berlin."),
                           ("pet_dog_name", "Rex", "The user's dog is named Rex.")))
    assert pipeline.extract(lost, ExtractionJob(tenant.id, turn_id)) is not None
    worker = function_module("supersede_worker")
    monkeypatch.setattr(worker, "get_context", lambda: lost)
    record = {"messageId": "r1", "receiptHandle": "rh-r1",
              "body": SupersessionJob(tenant.id, tenant.user, turn_id).to_json(),
              "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
              "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000",
                             "MessageGroupId": "g", "MessageDeduplicationId": "r1"},
              "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-supersession.fifo", "awsRegion": "us-east-1"}
    decide_and_write, decided = pipeline._decide_and_write, []

    def stopped_before_the_third(*args):
        if len(decided) == 2:
            raise _Stopped
        decided.append(args[2].value)
        decide_and_write(*args)

    llm.script_chat('{"action": "noop", "replaces": [], "reason": "Paris is known"}',
                    '{"action": "supersede", "replaces": ["m1"], "reason": "the user moved"}')
    with monkeypatch.context() as patch:
        patch.setattr(pipeline, "_decide_and_write", stopped_before_the_third)
        with pytest.raises(_Stopped):
            worker.handler({"Records": [record]}, LocalLambdaContext("supersede_worker"))
    assert decided == ["Paris", "Berlin"]
    asked = len(llm.chat_requests)
    # what a judge may answer for Paris against Berlin, if it is asked again
    llm.script_chat('{"action": "supersede", "replaces": ["m1"], "reason": "the user lives in Paris"}')
    assert worker.handler({"Records": [record]}, LocalLambdaContext("supersede_worker")) == {"batchItemFailures": []}
    assert len(llm.chat_requests) == asked
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in found["city"]] == [("Paris", False), ("Berlin", True)]
    assert _current(found["pet_dog_name"]) == ["Rex"]
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "processed"
    llm.reset()


def test_a_reextraction_decides_the_new_facts_listed_before_one_the_first_reading_wrote(ctx, llm, llm_ctx, llm_http):
    """`memex backfill --reextract` (extract_many again) keeps the turn's memories of the reading before. A
    redelivery goes on after the last candidate a delivery wrote: counted over the turn's old memories too,
    the new reading's employer, listed before the city the first reading wrote, was never decided."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "I live in Paris and I work at Notion."
    llm.script_chat(_items(said, ("city", "Paris", "The user lives in Paris.")))
    turn_id = tenant.turn(said, timestamp="2026-01-01T00:00:00Z").json()["turn_id"]
    assert _current(_memories_by_key(tenant)["city"]) == ["Paris"]
    llm.script_chat(_items(said, ("employer", "Notion", "The user's employer is Notion."),
                           ("city", "Paris", "The user lives in Paris.")))
    for job in pipeline.extract_many(llm_ctx, tenant.id, [turn_id], again=True):
        pipeline.resolve(llm_ctx, job)
    found = _memories_by_key(tenant)
    assert _current(found.get("employer", [])) == ["Notion"] and _current(found["city"]) == ["Paris"]
    assert len(found["city"]) == 1
    llm.reset()


def test_a_hung_embedding_endpoint_fails_the_job_before_its_lambda_would_be_stopped(ctx, llm_ctx, llm_http, monkeypatch):
    # The OpenAI-compatible embedder's document calls waited 30 s and were retried three times
    # (about 120 s on an endpoint that never answers, the extract worker's whole timeout): Lambda
    # stopped the batch, which reported nothing. They now end within the invocation's budget, as
    # chat calls do, and the job fails as an embedder failure does: retried, the reason on the turn.
    with OpenAIDouble(dim=ctx.settings.embedding_dim) as endpoint:
        endpoint.hang_seconds = 8.0
        endpoint.fail(EMBEDDINGS, "hang")
        embedding = build_context(dataclasses.replace(
            llm_ctx.settings, embeddings_provider="openai", embeddings_base_url=endpoint.base_url,
            embeddings_model="embed-test", embeddings_query_cache=0))
        tenant = Tenant(ctx, llm_http)
        lost = dataclasses.replace(embedding, publisher=SqsPublisher(dataclasses.replace(
            embedding.settings, extraction_queue_url=embedding.settings.extraction_queue_url + "-missing")))
        turn_id = ingest_turn(lost, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", messages=[
            {"role": "user", "content": "I work at Stripe."}]), wait=False)["turn_id"]
        worker = function_module("extract_worker")
        monkeypatch.setattr(worker, "get_context", lambda: lost)
        record = {"messageId": "e1", "receiptHandle": "rh-e1", "body": ExtractionJob(tenant.id, turn_id).to_json(),
                  "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                  "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1767225600000"},
                  "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:memex-extraction", "awsRegion": "us-east-1"}
        with pytest.raises(BatchProcessingError):
            worker.handler({"Records": [record]}, _ShortLambdaContext("extract_worker", 4.0))
        asked = [body for path, body in endpoint.requests if path == EMBEDDINGS]
    # One attempt, given what was left, ended by the client's own timeout (not the endpoint's
    # 500 after each of four full waits).
    assert len(asked) == 1
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "queued" and status["error"].startswith("APITimeoutError"), status


def test_a_reextraction_chunk_gives_each_turn_its_own_llm_budget(ctx, llm, llm_ctx, llm_http):
    # extract_many shared one MEMEX_LLM_BUDGET_SECONDS among all its turns: a re-extraction chunk of
    # 100 turns had 20 s of LLM time for all of them, failed past it, and its redelivery began again
    # from its first turn (re-extraction reads every turn again): with an LLM slower than 0.2 s a
    # turn, the chunk never finished. Each turn now has its own, within the invocation's.
    from memex import backfill

    tenant = Tenant(ctx, llm_http)
    said = [("employer", "Stripe", "I work at Stripe."), ("city", "Porto", "I live in Porto."),
            ("pet_dog_name", "Rex", "My dog is called Rex.")]
    for _, _, text in said:  # stored and extracted offline
        ingest_turn(ctx, tenant.id, TurnIn(user_id=tenant.user, session_id="s1",
                                           messages=[{"role": "user", "content": text}]), wait=True)
    slow = dataclasses.replace(llm_ctx, settings=dataclasses.replace(llm_ctx.settings, llm_budget_seconds=1.0))
    llm.reset()
    # each answer within a turn's budget, the three together past it; one answer for every prompt, whichever
    # order the turns are read in (each keeps the fact its message says: an answer of none is no answer)
    answer = json.dumps({"memories": [json.loads(_extraction(key, value, f"The user: {text}", text.rstrip(".")))
                                      ["memories"][0] for key, value, text in said]})
    llm.script_chat(*[answer] * len(said), delay=0.6)
    job = backfill.new_job("reextract", tenant.id, user_id=tenant.user)
    backfill.run_chunk(slow, job)
    state = backfill.status(ctx, tenant.id, job.backfill_id)
    assert (state["status"], state["done"]) == ("done", 3), state
    assert len(llm.chat_requests) >= 3
    llm.reset()


def test_a_full_batch_of_turns_read_at_once_keeps_each_turns_own_fact(ctx, llm, llm_ctx, llm_http):
    # bench/soak with a model answering in 2 s: a backlog delivers full batches of ten turns, read one
    # after another, and the queue backed up. A batch's reads now run at once: each turn must still
    # be read by the model within its budget and keep the fact its own message says.
    tenant = Tenant(ctx, llm_http)
    slow = dataclasses.replace(llm_ctx, settings=dataclasses.replace(llm_ctx.settings, llm_budget_seconds=2.0),
                               publisher=SqsPublisher(dataclasses.replace(
                                   llm_ctx.settings, extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")))
    cities = ["Porto", "Oslo", "Lyon", "Riga"]
    turn_ids = [ingest_turn(slow, tenant.id, TurnIn(user_id=tenant.user, session_id=f"s-{city}", messages=[
        {"role": "user", "content": f"I live in {city}."}]), wait=False)["turn_id"] for city in cities]
    # One answer for every prompt: each turn keeps the fact its message says (the others' quotes are
    # not in it), whichever order the calls arrive in.
    answer = json.dumps({"memories": [json.loads(_extraction("city", city, f"The user lives in {city}.",
                                                             f"I live in {city}"))["memories"][0]
                                      for city in cities]})
    llm.reset()
    llm.script_chat(*[answer] * len(cities), delay=0.9)
    pipeline.extract_many(slow, tenant.id, turn_ids)
    turns = {t["id"]: t for t in turn_rows.get_turns(ctx.db.connection(), tenant.id, turn_ids)}
    read = [[(c["value"], c["extractor"]) for c in turns[turn_id]["candidates"]] for turn_id in turn_ids]
    assert read == [[(city, "llm:test-model")] for city in cities], read


def test_a_supersession_batch_asks_the_judge_about_different_users_at_once(ctx, llm, llm_ctx, llm_http):
    # bench/soak with a model answering in 2 s: the supersession worker asked the judge about every
    # changed fact of its batch one after another, whoever said it, and its queue backed up. Each
    # user's turns stay in order; different users' are judged at once (the FIFO groups of AWS).
    lost = dataclasses.replace(llm_ctx, publisher=SqsPublisher(dataclasses.replace(
        llm_ctx.settings, extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")))
    users = [Tenant(ctx, llm_http), Tenant(ctx, llm_http)]
    jobs = []
    for user in users:  # the first fact read and decided by the rules
        pipeline.process_inline(ctx, user.id, ingest_turn(ctx, user.id, TurnIn(
            user_id=user.user, session_id="s1", messages=[{"role": "user", "content": "I work at Stripe."}]),
            wait=False)["turn_id"])
        turn_id = ingest_turn(lost, user.id, TurnIn(user_id=user.user, session_id="s1", messages=[
            {"role": "user", "content": "I work at Notion now."}]), wait=False)["turn_id"]
        pipeline.extract_many(ctx, user.id, [turn_id])  # the rules read it: only the judge asks the model
        jobs.append(SupersessionJob(user.id, user.user, turn_id))
    llm.reset()
    verdict = '{"action": "supersede", "replaces": ["m1"], "reason": "the user changed jobs"}'
    llm.script_chat(verdict, verdict, delay=3.0)
    pipeline.resolve_many(lost, jobs)
    assert (len(llm.chat_requests), llm.most_at_once) == (2, 2)  # both judgements asked at once
    for user in users:
        listing = user.get(f"/v1/users/{user.user}/memories").json()["memories"]
        assert [m["value"] for m in listing if m["key"] == "employer"] == ["Notion"], listing


def test_many_users_judged_at_once_hold_a_bounded_few_connections_on_one_pool_of_threads(ctx, llm, llm_ctx):
    # Each user judged at once held a database connection of its own through the model's answer: a
    # supersession environment opened up to MEMEX_LLM_CONCURRENCY of them, times the function's
    # concurrency, against RDS's max_connections. And each batch started and joined its own threads.
    # Now the threads are the process's, kept from batch to batch, and they borrow at most
    # MEMEX_LLM_DB_CONNECTIONS connections at once, none while the model answers.
    from psycopg.conninfo import conninfo_to_dict

    from memex.db.connection import Database
    from tests.conftest import database_of_its_own

    settings = dataclasses.replace(llm_ctx.settings, llm_concurrency=8, llm_db_connections=2,
                                   extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")
    with database_of_its_own(ctx, "llm_pool") as own:
        db = Database(lambda: own.db.dsn, loaned_connections=settings.llm_db_connections)
        offline = dataclasses.replace(own, db=db, publisher=SqsPublisher(settings))  # the rules read and judge
        judged = dataclasses.replace(llm_ctx, settings=settings, db=db, publisher=offline.publisher)
        tenant = Tenant(offline, None)
        users = [f"u{i}" for i in range(8)]

        def said(user: str, text: str) -> str:
            return ingest_turn(offline, tenant.id, TurnIn(user_id=user, session_id="s1", messages=[
                {"role": "user", "content": text}]), wait=False)["turn_id"]

        def batch(employer: str) -> tuple[int, int]:
            """Every user's change of employer judged in one batch by a model answering in 1 s: the
            most connections to the database at once, and the most judgements the model was asked at once."""
            jobs = []
            for user in users:
                turn_id = said(user, f"I work at {employer} now.")
                pipeline.extract_many(offline, tenant.id, [turn_id])  # the rules read it: only the judge asks
                jobs.append(SupersessionJob(tenant.id, user, turn_id))
            llm.reset()
            verdict = '{"action": "supersede", "replaces": ["m1"], "reason": "the user changed jobs"}'
            llm.script_chat(*[verdict] * len(users), delay=1.0)
            most, done = [0], threading.Event()

            def count() -> None:
                with psycopg.connect(ctx.db.dsn, autocommit=True) as watcher:
                    while not done.is_set():
                        # client backends only: an autovacuum worker analysing the new rows is
                        # counted under the database's name too
                        now = watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                                              "AND backend_type = 'client backend'", (dbname,)).fetchone()[0]
                        most[0] = max(most[0], now)
                        time.sleep(0.02)

            watching = threading.Thread(target=count)
            watching.start()
            try:
                pipeline.resolve_many(judged, jobs)
            finally:
                done.set()
                watching.join()
            assert len(llm.chat_requests) == len(users)
            return most[0], llm.most_at_once

        dbname = conninfo_to_dict(own.db.dsn)["dbname"]
        for user in users:
            pipeline.process_inline(offline, tenant.id, said(user, "I work at Stripe."))
        first = batch("Notion")
        threads = {t for t in threading.enumerate() if t.name.startswith("memex-llm")}
        second = batch("Figma")
        # this thread's own connection and the two lent; the model still asked several judgements at
        # once (holding no connection while it answers), not one after another
        assert [(most <= 1 + settings.llm_db_connections, at_once > settings.llm_db_connections)
                for most, at_once in (first, second)] == [(True, True)] * 2, (first, second)
        assert threads and {t for t in threading.enumerate() if t.name.startswith("memex-llm")} == threads
        rows = db.connection().execute("SELECT user_id, value FROM memories WHERE tenant_id = %s AND key = 'employer' "
                                       "AND active", (tenant.id,)).fetchall()
        assert sorted((r["user_id"], r["value"]) for r in rows) == [(user, "Figma") for user in users]
        # and an operator tells memex's sessions apart in pg_stat_activity
        assert db.connection().execute("SHOW application_name").fetchone()["application_name"] == "memex"
        db.discard_all()
        db.reset()
    llm.reset()


def test_a_job_to_come_the_llm_files_with_its_article_becomes_the_employer_without_it(ctx, llm, llm_http):
    """The model files the job to come as said ("joining the Red Cross next Monday"); on its day the employer is
    "Red Cross", the name the employer rules file for "I work at the Red Cross." (job_start.employer), so that the
    job said again is the same employer, not another one."""
    tenant = Tenant(ctx, llm_http)
    said = "I'm joining the Red Cross next Monday."
    llm.script_chat(_items(said, ("next_job", "joining the Red Cross next Monday",
                                  "The user will join the Red Cross next Monday.")))
    tenant.turn(said, timestamp="2026-03-04T10:00:00Z")
    llm.script_chat(json.dumps({"memories": []}))
    tenant.turn("Busy first week.", timestamp="2026-03-12T18:00:00Z")
    assert _current(_memories_by_key(tenant)["employer"]) == ["Red Cross"]


def test_a_job_to_come_the_llm_files_becomes_the_job_on_its_day_decided_by_rule(ctx, llm, llm_http):
    """The LLM files the job to come in its own words ("Twilio, starting next Monday"); the user's first
    turn after that Monday makes Twilio the employer, replacing Canva, and asks the model nothing
    about it (pipeline.start_jobs decides by rule, under the user's lock, with no call out)."""
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_items("I work at Canva.", ("employer", "Canva", "The user's employer is Canva.")))
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    said = "I start at Twilio next Monday."
    llm.script_chat(_items(said, ("next_job", "Twilio, starting next Monday",
                                  "The user will start a new job at Twilio next Monday.")))
    tenant.turn(said, timestamp="2026-03-04T10:00:00Z")
    assert _current(_memories_by_key(tenant)["employer"]) == ["Canva"]
    asked = len(llm.chat_requests)
    llm.script_chat(json.dumps({"memories": []}))
    tenant.turn("Busy first week.", timestamp="2026-03-12T18:00:00Z")
    assert len(llm.chat_requests) == asked + 1  # the extraction only
    memories = _memories_by_key(tenant)
    assert [(m["value"], m["active"]) for m in memories["employer"]] == [("Canva", False), ("Twilio", True)]
    assert memories["employer"][1]["valid_from"] == memories["employer"][0]["valid_to"] == "2026-03-09T00:00:00Z"
    assert _current(memories["next_job"]) == []


def test_a_job_start_the_embedder_refuses_fails_alone_and_the_judged_turn_is_finished(ctx, llm, llm_ctx, llm_http,
                                                                                       http, caplog):
    """The LLM path starts the user's jobs due once a judged turn's candidates are written, in the
    transaction that marks the turn processed. The embedder refusing the employer's text for good failed the
    supersession job: the turn never finished, each delivery failing alike to the dead-letter queue, and the
    user's every later run with it (their jobs due are started first). The start fails alone, as on the rules
    path: the turn is finished, the failure logged and counted, the job left for JOB_START_BACKOFF."""
    from memex.jobs import user_hash
    from tests.test_metrics import moved, scrape

    llm.reset()
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_items("I work at Canva.", ("employer", "Canva", "The user's employer is Canva.")))
    tenant.turn("I work at Canva.", timestamp="1978-01-02T09:00:00Z")
    said = "I start at Kayak tomorrow."
    job_turn, later = (ingest_turn(ctx, tenant.id, TurnIn(user_id=tenant.user, session_id="s1", timestamp=at,
                                                          messages=[{"role": "user", "content": text}]),
                                   wait=False)["turn_id"]
                       for text, at in ((said, "1978-01-03T09:00:00Z"), ("Busy day.", "1978-01-05T18:00:00Z")))
    # the app's metrics, which GET /metrics serves
    refusing = dataclasses.replace(llm_ctx, embedder=Refusing(llm_ctx.embedder, "employer is Kayak"),
                                   metrics=ctx.metrics)
    llm.script_chat(_items(said, ("next_job", "Kayak, starting tomorrow", "The user will start at Kayak tomorrow.")),
                    json.dumps({"memories": []}))
    job = pipeline.extract(refusing, ExtractionJob(tenant.id, job_turn), delivered=False)
    assert pipeline.extract(refusing, ExtractionJob(tenant.id, later), delivered=False) is None  # nothing to decide
    before = scrape(http)
    with caplog.at_level(logging.WARNING, logger="memex.pipeline"):
        pipeline.resolve(refusing, job)
    with llm_ctx.db.borrowed() as conn:
        assert turn_rows.get_turn(conn, tenant.id, job_turn)["status"] == "processed"
        [failed_at] = [row["start_failed_at"] for row in conn.execute(
            "SELECT start_failed_at FROM memories WHERE tenant_id = %s AND key = 'next_job' AND active", (tenant.id,))]
    assert failed_at is not None
    assert moved(before, scrape(http), "memex_job_starts_failed_total") == 1
    assert any(user_hash(tenant.id, tenant.user) in line and "ValueError" in line for line in caplog.messages)
    assert not any(tenant.user in line or "Kayak" in line for line in caplog.messages)
    assert _current(_memories_by_key(tenant)["employer"]) == ["Canva"]
    # the back-off past and the text taken, the sweep starts it
    with psycopg.connect(ctx.db.dsn, autocommit=True) as conn:
        conn.execute("UPDATE memories SET start_failed_at = start_failed_at - %s WHERE tenant_id = %s",
                     (pipeline.JOB_START_BACKOFF, tenant.id))
    assert pipeline.start_jobs_due(llm_ctx, 600.0).started >= 1
    assert _current(_memories_by_key(tenant)["employer"]) == ["Kayak"]


def test_a_write_ending_a_role_embeds_its_end_with_no_connection_lent(ctx, llm, llm_ctx):
    # The statement of a role's end ("The user's job title used to be support lead.") was embedded
    # inside the transaction that holds the user's lock, on one of only MEMEX_LLM_DB_CONNECTIONS lent
    # connections: every other judged user's database work waited for the embedder (a remote one's
    # round trip). Now it is embedded before the connection is borrowed: another thread's borrow gets
    # in while the embedder works.
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import wait as wait_for

    from memex.db.connection import Database, borrow_only

    settings = dataclasses.replace(llm_ctx.settings, llm_concurrency=4, llm_db_connections=1,
                                   extraction_queue_url=llm_ctx.settings.extraction_queue_url + "-missing")
    db = Database(lambda: ctx.db.dsn, loaned_connections=settings.llm_db_connections)
    events: list[str] = []
    another = ThreadPoolExecutor(1, initializer=borrow_only)

    def borrow() -> None:
        with db.borrowed() as conn:
            conn.execute("SELECT 1")
        events.append("another thread borrowed")

    class EmbedderWaitingForABorrow(WrappedEmbedder):
        """The write path's embedder, which, asked for a role's end, lets another borrowing thread try
        for the one connection and waits for it (at most 10 s: on the connection, it never gets it)."""

        def embed(self, texts):
            if any("used to be" in text for text in texts):
                events.append("embedding the end")
                wait_for([another.submit(borrow)], timeout=10)
                events.append("embedded the end")
            return self._embedder.embed(texts)

    tenant = Tenant(ctx, None)
    judged = dataclasses.replace(llm_ctx, settings=settings, db=db, publisher=SqsPublisher(settings),
                                 embedder=EmbedderWaitingForABorrow(llm_ctx.embedder))
    jobs = []
    for user, before, after in [("lead", "I'm a support lead at Zendesk.", "I started at Intercom last week."),
                                ("dev", "I work at Stripe.", "I work at Notion now.")]:
        pipeline.process_inline(ctx, tenant.id, ingest_turn(ctx, tenant.id, TurnIn(
            user_id=user, session_id="s1", timestamp="2026-01-01T00:00:00Z",
            messages=[{"role": "user", "content": before}]), wait=False)["turn_id"])
        turn_id = ingest_turn(judged, tenant.id, TurnIn(
            user_id=user, session_id="s1", timestamp="2026-02-01T00:00:00Z",
            messages=[{"role": "user", "content": after}]), wait=False)["turn_id"]
        pipeline.extract_many(ctx, tenant.id, [turn_id])  # the rules read it: only the judge asks the model
        jobs.append(SupersessionJob(tenant.id, user, turn_id))
    llm.reset()
    verdict = '{"action": "supersede", "replaces": ["m1"], "reason": "the user changed jobs"}'
    llm.script_chat(verdict, verdict)
    try:
        pipeline.resolve_many(judged, jobs)
    finally:
        another.shutdown(wait=True)
        db.discard_all()
        db.reset()
        llm.reset()
    assert events == ["embedding the end", "another thread borrowed", "embedded the end"]
    rows = ctx.db.connection().execute(
        "SELECT user_id, key, value, active, content FROM memories WHERE tenant_id = %s AND memory_type = 'semantic' "
        "ORDER BY user_id, key, created_at", (tenant.id,)).fetchall()
    assert [(r["user_id"], r["key"], r["value"], r["active"]) for r in rows] == [
        ("dev", "employer", "Stripe", False), ("dev", "employer", "Notion", True),
        ("lead", "employer", "Zendesk", False), ("lead", "employer", "Intercom", True),
        ("lead", "role", "support lead", False), ("lead", "role", "support lead", False)]
    assert rows[-1]["content"] == "The user's job title used to be support lead."


def test_a_job_to_come_the_llm_says_ended_never_starts(ctx, llm, llm_http):
    """The model files the job called off as `next_job` ended (historical) with its employer as the value:
    it ends the job to come by that name (supersession.ending, no judge asked), which never starts."""
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("employer", "Canva", "The user's employer is Canva.", "I work at Canva."))
    tenant.turn("I work at Canva.", timestamp="2026-03-02T09:00:00Z")
    llm.script_chat(_extraction("next_job", "starting at Twilio next Monday",
                                "The user starts at Twilio next Monday.", "I start at Twilio next Monday.",
                                type="event"))
    tenant.turn("I start at Twilio next Monday.", timestamp="2026-03-04T10:00:00Z")
    asked = len(llm.chat_requests)
    llm.script_chat(_extraction("next_job", "Twilio", "The user's Twilio job offer fell through.",
                                "The Twilio offer fell through.", historical=True))
    tenant.turn("The Twilio offer fell through.", timestamp="2026-03-05T09:00:00Z")
    assert len(llm.chat_requests) == asked + 1  # the extraction only: the end is decided by rule
    llm.script_chat('{"memories": []}')
    tenant.turn("Long day.", timestamp="2026-03-10T18:00:00Z")
    pipeline.start_jobs_due(ctx, 60.0)
    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    assert [(m["value"], m["active"]) for m in listing if m["key"] == "employer"] == [("Canva", True)]
    jobs = sorted((m for m in listing if m["key"] == "next_job"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in jobs] == [("starting at Twilio next Monday", False), ("Twilio", False)]
    assert jobs[1]["supersedes"] == jobs[0]["id"] and "called off" in jobs[1]["metadata"]["reason"]


def test_a_fact_the_user_asks_to_forget_in_the_prompts_shape_ends_it_by_rule(ctx, llm, llm_http):
    """The prompt tells the model that "Please forget that I'm allergic to peanuts" is that fact
    taken back (historical, ends_only); filed so, it ends the current allergy, kept in its history,
    by rule, the judge not asked, and ends nothing when no such fact is current."""
    llm.reset()
    tenant = Tenant(ctx, llm_http)
    said = "I'm allergic to peanuts."
    llm.script_chat(_items(said, ("allergy", "peanuts", "The user is allergic to peanuts.")))
    tenant.turn(said, timestamp="2026-01-01T00:00:00Z")
    taken_back = ("allergy", "peanuts", "The user took this back: The user is allergic to peanuts.",
                  {"historical": True, "ends_only": True})
    for day, said in enumerate(["Please forget that I'm allergic to peanuts.", "Please forget that I'm allergic to peanuts."],
                               start=1):
        llm.script_chat(_items(said, taken_back))
        assert tenant.turn(said, timestamp=f"2026-02-0{day}T00:00:00Z").status_code == 201
    assert 'takes back ("Please forget that I\'m allergic to peanuts"' in llm.chat_prompts()[1]
    assert len(llm.chat_requests) == 3  # three extractions, no judge
    found = _memories_by_key(tenant)
    assert [(m["value"], m["active"], m["content"]) for m in found["allergy"]] == [
        ("peanuts", False, "The user is allergic to peanuts."),
        ("peanuts", False, "The user took this back: The user is allergic to peanuts.")]
    llm.reset()


def _cities(tenant) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    return sorted((m for m in listed if m["key"] == "city"), key=lambda m: m["created_at"])


def test_the_llm_path_reads_the_time_the_model_names_when_the_message_says_it(ctx, llm, llm_ctx, llm_http):
    """"I moved to Paris last week" with the model's `when`: Paris holds from the end of last week and the
    Berlin it replaces held until then (test_holds_from.py for the offline rules)."""
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("city", "Berlin", "The user lives in Berlin.", "I live in Berlin"))
    tenant.turn("I live in Berlin", timestamp="2026-02-01T09:00:00Z")
    llm.script_chat(
        _extraction("city", "Paris", "The user lives in Paris.", "I moved to Paris last week", when="last week"),
        json.dumps({"action": "supersede", "replaces": ["m1"], "reason": "the user moved"}))
    tenant.turn("I moved to Paris last week", timestamp="2026-03-11T10:00:00Z", session="s2")
    berlin, paris = _cities(tenant)
    last_week_over = "2026-03-09T00:00:00Z"  # said on a Wednesday: last week ended on Monday
    assert (paris["active"], paris["valid_from"], berlin["valid_to"]) == (True, last_week_over, last_week_over)
    # a time the user did not say is not heard
    llm.script_chat(
        _extraction("city", "Lisbon", "The user lives in Lisbon.", "I moved to Lisbon", when="in 2019"),
        json.dumps({"action": "supersede", "replaces": ["m1"], "reason": "the user moved"}))
    tenant.turn("I moved to Lisbon", timestamp="2026-04-01T09:00:00Z", session="s3")
    lisbon = _cities(tenant)[-1]
    assert (lisbon["value"], lisbon["active"], lisbon["valid_from"]) == ("Lisbon", True, "2026-04-01T09:00:00Z")


def test_recall_dates_a_fact_said_with_its_own_time_by_when_it_was_said(ctx, llm, llm_ctx, llm_http):
    """"The user moved to Paris last week." counts from the day it was said: recall's "(said …)" is that day
    (11 March), not the Monday Paris holds from."""
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("city", "Paris", "The user moved to Paris last week.", "I moved to Paris last week",
                                when="last week"))
    tenant.turn("I moved to Paris last week", timestamp="2026-03-11T10:00:00Z")
    [paris] = _cities(tenant)
    assert paris["valid_from"] == "2026-03-09T00:00:00Z"
    context = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "when did I move to Paris?",
                                         "reference_time": "2026-03-12T10:00:00Z"}).json()["context"]
    assert "The user moved to Paris last week. (said 2026-03-11)" in context, context
    llm.reset()


def test_the_llm_paths_time_is_the_one_its_quote_says(ctx, llm, llm_ctx, llm_http):
    """A `when` the message says of something else ("since 2019", of the diet) is not the city's own."""
    tenant = Tenant(ctx, llm_http)
    llm.script_chat(_extraction("city", "Paris", "The user lives in Paris.", "I live in Paris", when="since 2019"))
    tenant.turn("I live in Paris and I have been vegan since 2019", timestamp="2026-03-11T10:00:00Z")
    [paris] = _cities(tenant)
    assert paris["valid_from"] == "2026-03-11T10:00:00Z"
    llm.reset()
