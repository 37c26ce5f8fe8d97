"""Questions an agent asks about "the user": embedded in the user's voice (first_person.py),
as the user's facts are (embedded_text.py),
and "now" favouring the later of two lines (temporal.asks_present), through the HTTP API and the
embedded Postgres, against the same history with the lever off."""

from __future__ import annotations

import dataclasses

import pytest

from memex import first_person
from memex.retrieval import temporal
from memex_edge.context import build_context
from tests.conftest import api_client


@pytest.mark.parametrize("question, voiced", [
    ("Is the user a runner?", "Am I a runner?"),
    ("Where does the user work now?", "Where do I work now?"),
    ("What is the user's job?", "What is my job?"),
    ("Which company employs the user now?", "Which company employs me now?"),
    ("Is there any food the user dislikes?", "Is there any food I dislike?"),
    ("How long has the user lived there?", "How long have I lived there?"),
    ("Remind the user of the dentist", "Remind me of the dentist"),
    ("Where the user studies", "Where I study"),
])
def test_questions_about_the_user_in_the_first_person(question, voiced):
    assert first_person.of(question) == voiced


@pytest.mark.parametrize("question", ["What is my name?", "How many users signed up?", "where does she work?",
                                      "What did Melanie paint?"])
def test_other_questions_are_left_alone(question):
    assert first_person.of(question) is None


@pytest.mark.parametrize("question, voiced", [
    # the agent asking says "I" too: as the user would ask it, the agent is "you"
    ("what should I cook when the user comes over for dinner?", "what should you cook when I come over for dinner?"),
    ("Am I allowed to email the user?", "Are you allowed to email me?"),
    ("What did the user tell me about her job?", "What did I tell you about her job?"),
    ("I think the user should rest.", "You think I should rest."),
    # after a verb with no verb of its own, the user is "me"
    ("Should I book the user a window seat?", "Should you book me a window seat?"),
    ("How should I address the user?", "How should you address me?"),
    ("Is there anything the user said about Rome?", "Is there anything I said about Rome?"),
    ("Is the user a runner?", "Am I a runner?"),
])
def test_a_question_with_an_asker_of_its_own(question, voiced):
    assert first_person.asked(question) == voiced


@pytest.mark.parametrize("question, voiced", [
    # the agent speaks of the user as "she" or "he"
    ("where does she work?", "where do I work?"),
    ("Is she in her thirties?", "Am I in my thirties?"),
    ("What is his dog called?", "What is my dog called?"),
    ("Where does he still live?", "Where do I still live?"),
    ("Why doesn't she eat meat?", "Why don't I eat meat?"),
    ("She's been where?", "I've been where?"),
    ("Is this bike his?", "Is this bike mine?"),
    # "her" before what she has is "my", else "me"; the asker is "you" as ever
    ("What should I buy her for her birthday?", "What should you buy me for my birthday?"),
    ("What should I avoid cooking for her?", "What should you avoid cooking for me?"),
    # her relations stay relations, the user's own
    ("Does her sister have kids?", "Does my sister have kids?"),
    # the thing asked about is not someone the pronoun stands for
    ("What type of dog does she own?", "What type of dog do I own?"),
    ("Does she know Tom?", "Do I know Tom?"),
])
def test_a_question_about_she_or_he_in_the_users_voice(question, voiced):
    assert first_person.asked(question, pronouns=True) == voiced


@pytest.mark.parametrize("question", [
    "What did Mel and her kids make?",  # a name before the pronoun: it may be theirs
    "Where did Oscar hide his bone?",
    "Where does my sister live, and is she happy there?",  # someone by what they are
    "Does her sister like her job?",
    "Did anyone say she was coming?",
    "How many users signed up?",
])
def test_a_pronoun_that_may_be_someone_elses_is_left(question):
    assert first_person.asked(question, pronouns=True) is None


def test_pronouns_are_voiced_only_when_the_search_says_nobody_is_named():
    # (the search: when the question names none of the user's participants, search.py)
    assert first_person.asked("where does she work?") is None
    # and "the user" voiced, a pronoun after it with nobody else before it is the user's too
    assert first_person.asked("What did the user tell me about her job?", pronouns=True) \
        == "What did I tell you about my job?"
    assert first_person.asked("What did the user tell me about her job?") == "What did I tell you about her job?"
    assert first_person.asked("What did the user give Tom for his birthday?", pronouns=True) \
        == "What did I give Tom for his birthday?"
    # only a possessive: "her" or "him" as an object is someone else
    assert first_person.asked("What does the user think of her?", pronouns=True) == "What do I think of her?"
    assert first_person.asked("Did the user tell her about him?", pronouns=True) == "Did I tell her about him?"


def test_a_fact_quoting_the_user_keeps_their_words():
    assert first_person.of("The user calls Biscuit my little monster.") == "I call Biscuit my little monster."
    assert first_person.asked("What is my name?") is None


@pytest.mark.parametrize("question, present", [
    ("Where does the user work now?", True), ("Who do I work for these days?", True),
    ("Is the user still freelancing?", True), ("What is the user's current job?", True),
    ("Where does the user work?", False), ("What did Melanie paint last May?", False),
    ("Is the user knowledgeable?", False),
    # a view asked in the present tense is the one held today; asked in the past, it is not
    ("What does the user think of TypeScript?", True), ("How does the user feel about night shifts?", True),
    ("What is the user's opinion of Python?", True), ("What did the user think of the film?", False),
    ("How did the user feel when she first moved?", False), ("How does John feel while surfing?", False),
])
def test_questions_that_ask_what_holds_now(question, present):
    assert temporal.asks_present(question) is present


# --- through the service ----------------------------------------------------------------------

ACK = "Got it!"


def _app(ctx, **changes):
    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    return api_client(app_ctx)


def _say(tenant, said: list[tuple[str, str]]) -> None:
    for at, line in said:
        body = {"user_id": tenant.user, "session_id": "chat", "timestamp": at,
                "messages": [{"role": "user", "content": line}, {"role": "assistant", "content": ACK}]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def _found(client, tenant, query: str) -> list[str]:
    body = {"user_id": tenant.user, "query": query, "reference_time": "2026-04-01T00:00:00Z", "top_k": 5}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return [r["content"] for r in response.json()["results"]]


def test_a_question_about_the_user_is_not_answered_by_every_fact(ctx, tenant):
    # Facts filed as "The user's ..." share their phrase with any question about "the user"; as
    # their vectors were (tests/test_embedded_text.py), "Is the user a runner?" opened the floor on them.
    _say(tenant, [("2026-01-05T10:00:00Z", "I work at Stripe as a product manager and live in Dublin."),
                  ("2026-01-12T10:00:00Z", "My sister is called Ruth."),
                  ("2026-01-19T10:00:00Z", "I'm allergic to penicillin.")])
    with _app(ctx, search_first_person=True) as voiced:
        for question in ("Is the user a runner?", "Where does the user go skiing?"):
            assert _found(voiced, tenant, question) == [], question
        # a question about what was said is still answered, by the facts as by the line
        found = _found(voiced, tenant, "Where does the user work?")
        assert "I work at Stripe as a product manager and live in Dublin." in found, found
        assert "The user's employer is Stripe." in found, found


def test_a_question_about_she_finds_what_the_user_said(ctx, tenant):
    # An agent asks of its user as "she" (the README: "where does she work?"): voiced as "I", as
    # "the user" is, the current employer is found, and unrelated questions still find nothing.
    _say(tenant, [("2026-01-05T10:00:00Z", "I work at Stripe as a product manager and live in Dublin."),
                  ("2026-01-12T10:00:00Z", "My sister is called Ruth."),
                  ("2026-01-19T10:00:00Z", "I'm allergic to penicillin."),
                  ("2026-03-02T10:00:00Z", "I just started at Notion, left Stripe.")])
    # (without the kinds of fact a question names: "company" names the employer's, topics.py)
    with _app(ctx, search_first_person=False, search_topics=False) as as_asked, _app(ctx) as served:
        for question in ("where does she work?", "Which company is she with?"):
            found = _found(served, tenant, question)
            assert "The user's employer is Notion." in found[:2], (question, found)
        # as asked, "she" is nobody in particular to the embedder: under the gate
        assert _found(as_asked, tenant, "Which company is she with?") == []
        for question in ("Does she play the violin?", "Where does she go skiing?", "Is he a runner?"):
            assert _found(served, tenant, question) == [], question


@pytest.mark.parametrize("old, new, question", [
    ("I teach chemistry at Hillside School.", "I accepted a job teaching chemistry at Oakfield Academy.",
     "Where does the user teach chemistry now?"),
    # a view asked in the present tense, without "now", is the one held today
    ("Procreate on the iPad is all I need. Desktop software feels clunky.",
     "The studio set me up with a big Cintiq and I have to admit the desktop workflow is faster for layouts.",
     "What does the user think of desktop drawing software?"),
])
def test_now_puts_the_later_line_first(ctx, tenant, old, new, question):
    _say(tenant, [("2026-01-05T10:00:00Z", old), ("2026-03-02T10:00:00Z", new)])
    # the learned order (learned.py) favours the longer, later line too: off, the lever is seen alone
    with _app(ctx, search_present_boost=0.0, search_learned=False) as plain, \
            _app(ctx, search_present_boost=0.5, search_learned=False) as present:
        before, found = _found(plain, tenant, question), _found(present, tenant, question)
    assert before.index(old) < before.index(new), before  # what the lever is for
    assert new in found and (old not in found or found.index(new) < found.index(old)), found
    with _app(ctx) as default:  # as served: every lever at its default, the learned order on
        served = _found(default, tenant, question)
    assert new in served and (old not in served or served.index(new) < served.index(old)), served


def test_the_agent_asking_and_the_user_are_two_people(tenant):
    # "How should I address the user?" voiced as "How should I address I?" made the agent and the
    # user one person, and "My name is Sam." stayed under the gate (0.30); as the user would ask it,
    # "How should you address me?", it passes (0.40) while the user's other facts stay under it.
    for fact in ("The user's name is Sam.", "The user lives in Leeds.", "The user has a cat named Miso.",
                 "The user plays the cello."):
        body = {"user_id": tenant.user, "content": fact, "memory_type": "semantic"}
        assert tenant.post("/v1/memories", body).status_code == 201
    found = [r["content"] for r in tenant.search("How should I address the user?", top_k=3)]
    assert found[:1] == ["The user's name is Sam."], found
    assert tenant.search("Where should I take the user on holiday?") == []
