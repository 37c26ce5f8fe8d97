"""A search's queries go to the embedder in one call per round trip, and a question naming a
participant has its unnamed form (speakers.without_names) embedded with it in the first: one call
where there were two, the same answer. Through the HTTP API, the embedded Postgres and the local
embedder, wrapped to log its calls."""

from __future__ import annotations

import dataclasses

import pytest

from memex.db import memories as memory_rows
from memex_edge.context import build_context
from tests.conftest import LoggedEmbedder, api_client

WHEN = "2025-10-20T15:00:00Z"


@pytest.fixture(scope="module")
def apps(ctx):
    made = {}
    for name, how in (("batched", {}), ("single", {"one_at_a_time": True}), ("down", {"failing": True})):
        app_ctx = build_context(ctx.settings)
        app_ctx = dataclasses.replace(app_ctx, embedder=LoggedEmbedder(app_ctx.embedder, **how))
        made[name] = (api_client(app_ctx), app_ctx.embedder)
    yield made
    for client, _ in made.values():
        client.close()


def _say(tenant, session: str, when: str, *lines: tuple[str, str]):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when, "user_name": "Caroline",
            "messages": [{"role": "user", "name": name, "content": text} for name, text in lines]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def _search(apps, name, tenant, query, **extra):
    client, embedder = apps[name]
    embedder.calls.clear()
    response = client.post("/v1/search", json={"user_id": tenant.user, "query": query, "reference_time": WHEN,
                                               **extra}, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return response.json(), list(embedder.calls)


def _same(answer: object) -> object:
    """`answer` with each number compared to a millionth: a text embedded in a batch of two and the
    same text embedded alone can differ in the last bits, by how the CPU's BLAS kernels split the
    product (seen on one machine, not another), and so can a score drawn from it."""
    if isinstance(answer, dict):
        return {key: _same(value) for key, value in answer.items()}
    if isinstance(answer, list):
        return [_same(value) for value in answer]
    return pytest.approx(answer, abs=1e-6) if isinstance(answer, float) else answer


@pytest.fixture
def conversation(tenant):
    _say(tenant, "s1", "2025-09-01T10:00:00Z", ("Caroline", "I painted the harbour at sunrise last weekend."),
         ("Melanie", "Lovely! I painted horses in a field."))
    _say(tenant, "s2", "2025-09-02T10:00:00Z", ("Melanie", "Caroline, my pottery class starts on Monday."),
         ("Caroline", "Good luck with the pottery, Melanie!"))
    return tenant


def test_the_participants_names_are_read_from_the_index(ctx, conversation):
    conn = ctx.db.connection()
    # the messages' names and the participant the facts are about; the user's own facts have none
    assert memory_rows.ahead(conn, conversation.id, conversation.user, 8).names == ["Caroline", "Melanie"]
    assert memory_rows.ahead(conn, conversation.id, conversation.user, 1).names is None  # more than asked
    assert memory_rows.ahead(conn, conversation.id, "nobody", 8).names == []
    # with the names, the user's size as the vector statement reads it
    stats = conn.execute("SELECT active_docs, docs FROM memory_stats WHERE tenant_id = %s AND user_id = %s",
                         (conversation.id, conversation.user)).fetchone()
    assert memory_rows.ahead(conn, conversation.id, conversation.user, 8).size == memory_rows.Size(
        stats["active_docs"], stats["docs"], False)
    assert memory_rows.ahead(conn, conversation.id, "nobody", 8).size == memory_rows.Size(0, 0, False)


def test_a_question_naming_a_participant_is_embedded_once_with_its_unnamed_form(apps, conversation):
    question = "What did Melanie paint?"
    batched, calls = _search(apps, "batched", conversation, question)
    single, single_calls = _search(apps, "single", conversation, question)
    assert calls == [[question, "What did paint?"]]
    assert single_calls == [[question], ["What did paint?"]]
    assert single == _same(batched) and batched["degraded"] == []
    assert batched["results"][0]["content"] == "Melanie: Lovely! I painted horses in a field."


def test_a_question_naming_nobody_is_embedded_alone(apps, conversation):
    question = "Which class starts on Monday?"
    batched, calls = _search(apps, "batched", conversation, question)
    assert calls == [[question]]
    assert _search(apps, "single", conversation, question)[0] == _same(batched)


def test_a_name_the_memories_found_do_not_say_is_left_to_the_second_round(apps, conversation):
    """Filtered to a session where only Caroline speaks, the question names two of the user's
    participants but one speaker of the memories found: the second round's unnamed form is not
    the one embedded ahead, and it embeds its own. The answer is the same."""
    _say(conversation, "s3", "2025-09-03T10:00:00Z", ("Caroline", "The harbour painting is finished and framed."))
    question = "Did Caroline and Melanie frame the harbour painting?"
    batched, calls = _search(apps, "batched", conversation, question, filters={"session_id": "s3"})
    single, _ = _search(apps, "single", conversation, question, filters={"session_id": "s3"})
    assert calls == [[question, "Did and frame the harbour painting?"],
                     ["Did and Melanie frame the harbour painting?"]]
    assert single == _same(batched)
    assert [r["content"] for r in batched["results"]][:1] == ["Caroline: The harbour painting is finished and framed."]


def test_an_embedder_that_fails_is_asked_once_and_the_keyword_channel_answers(apps, conversation):
    question = "What did Melanie paint?"
    body, calls = _search(apps, "down", conversation, question)
    assert calls == [[question, "What did paint?"]]  # one call; the second round asks no more
    assert body["degraded"] == ["embed"]
    assert body["results"] and all(r["score_parts"]["similarity"] is None for r in body["results"])
    assert any("painted horses" in r["content"] for r in body["results"][:2])


def test_she_is_the_user_only_in_a_question_that_names_no_participant(apps, conversation):
    # Naming nobody, "she" is voiced as the user (first_person.asked), embedded beside the question;
    # naming a participant, even in lower case (no capital says it is a name), it may be theirs.
    question = "where does she paint?"
    assert _search(apps, "batched", conversation, question)[1] == [[question, "where do I paint?"]]
    question = "what did melanie say she painted?"
    assert _search(apps, "batched", conversation, question)[1] == [[question, "what did say she painted?"]]
