"""A question that names the user by their own name is searched as the question about "the user"
when the user has no other participant (speakers.as_the_user; the names read by memories.ahead):
the user's name fact, the names the user's own messages are said under, never another participant's. Through the HTTP API and the embedded
Postgres, against the same history searched with the setting off."""

from __future__ import annotations

import dataclasses

import pytest

from memex.db import memories as memory_rows
from memex.retrieval import named, speakers, topics
from memex_edge.context import build_context
from tests.conftest import api_client

# The history an agent's user told, one session a turn (found by trying memex as a user would).
DANA = [
    ("s1", "2025-06-01T10:00:00Z", ["Hi! I'm Dana. I just moved to Lisbon from Berlin for a new job.",
                                    "I'm a data engineer at Feedzai now. Before that I was at Zalando for four years."]),
    ("s2", "2025-06-03T09:00:00Z", ["My partner Sam is a nurse, and we have a cat called Miso.",
                                    "I'm vegetarian, and I'm allergic to peanuts."]),
    ("s3", "2025-07-10T18:00:00Z", ["I've started learning Portuguese, twice a week.",
                                    "Sam and I are planning a trip to the Azores in September."]),
]


@pytest.fixture(scope="module")
def unnamed(ctx):
    with api_client(build_context(dataclasses.replace(ctx.settings, search_user_names=False))) as client:
        yield client


def _tell(tenant, lines, name: str | None = None, user_name: str | None = None):
    for session, when, contents in lines:
        body = {"user_id": tenant.user, "session_id": session, "timestamp": when,
                "messages": [{"role": "user", "content": c, **({"name": name} if name else {})} for c in contents],
                **({"user_name": user_name} if user_name else {})}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def _search(tenant, query: str, client=None) -> dict:
    body = {"user_id": tenant.user, "query": query, "reference_time": "2025-10-20T15:00:00Z"}
    response = client.post("/v1/search", json=body, headers=tenant.headers) if client \
        else tenant.post("/v1/search", body)
    assert response.status_code == 200, response.text
    return response.json()


def _contents(answer: dict) -> list[str]:
    return [r["content"] for r in answer["results"]]


def _ranked(answer: dict) -> list[tuple[str, float]]:
    return [(r["id"], r["score"]) for r in answer["results"]]


@pytest.mark.parametrize("name", [None, "Dana"])
def test_a_question_naming_the_user_is_the_question_about_the_user(tenant, unnamed, name):
    """Named by the name fact ("Hi! I'm Dana.") or by the name the user's messages carry as well."""
    _tell(tenant, DANA, name=name)
    by_name = _search(tenant, "Where does Dana work?")
    assert by_name["query"] == "Where does Dana work?"  # as asked
    # the answer to the question about "the user", first; with it what the question as asked, with the
    # name, is near as well
    employer = "The user's employer is Feedzai."
    assert _contents(_search(tenant, "Where does the user work?"))[0] == employer
    assert _contents(by_name)[0] == employer
    assert set(_contents(_search(tenant, "Where does the user work?"))) <= set(_contents(by_name))
    # as asked, a memory that says "Dana" comes before the employer (beside "The user lives in Lisbon.",
    # which names a place as "where" asks: retrieval/answer_type.py)
    as_asked = [r["content"] for r in _search(tenant, "Where does Dana work?", unnamed)["results"]]
    assert any("Dana" in content for content in as_asked[:2]) and as_asked.index(employer) >= 2
    partner = "The user's partner Sam is a nurse."
    assert _contents(_search(tenant, "What is the user's partner's job?"))[0] == partner
    assert partner in _contents(_search(tenant, "What is Dana's partner's job?"))[:2]


def test_with_another_participant_every_question_is_left_as_asked(ctx, tenant, unnamed):
    """Every line is someone's "I": the user's name is what tells theirs apart (speakers.as_the_user)."""
    _tell(tenant, [("s1", "2025-06-01T10:00:00Z", ["Hi! I'm Dana. I work at Feedzai, in Lisbon."])], name="Dana",
          user_name="Dana")
    _tell(tenant, [("s2", "2025-06-02T10:00:00Z", ["I work at the hospital, in Lisbon."])], name="Sam", user_name="Dana")
    ahead = memory_rows.ahead(ctx.db.connection(), tenant.id, tenant.user, 8)
    assert (ahead.names, ahead.user_names) == (["Dana", "Sam"], ["Dana"])
    for question in ("Where does Sam work?", "Where do Dana and Sam work?", "Where does Dana work?"):
        assert _ranked(_search(tenant, question)) == _ranked(_search(tenant, question, unnamed))


def test_a_name_both_the_users_and_anothers_is_left_alone(ctx, tenant, unnamed):
    # "Sam" is the name the user's own messages carried, and then another participant's
    _tell(tenant, [("s1", "2025-06-01T10:00:00Z", ["I work at Feedzai, in Lisbon."])], name="Sam")
    _tell(tenant, [("s2", "2025-06-02T10:00:00Z", ["I work at the hospital, in Lisbon."])], name="Sam", user_name="Dana")
    ahead = memory_rows.ahead(ctx.db.connection(), tenant.id, tenant.user, 8)
    assert (ahead.names, ahead.user_names) == (["Sam"], [])
    assert _ranked(_search(tenant, "Where does Sam work?")) == _ranked(_search(tenant, "Where does Sam work?", unnamed))


def test_the_users_name_is_read_in_their_tenant_only(ctx, tenant, other_tenant, unnamed):
    other_tenant.user = tenant.user  # the same user id in another tenant
    _tell(tenant, DANA[:1])
    _tell(other_tenant, [("s1", "2025-06-01T10:00:00Z", ["I just moved to Lisbon.", "I'm a data engineer at Feedzai."])])
    conn = ctx.db.connection()
    assert memory_rows.ahead(conn, tenant.id, tenant.user, 8).user_names == ["Dana"]
    assert memory_rows.ahead(conn, other_tenant.id, tenant.user, 8).user_names == []
    assert _ranked(_search(other_tenant, "Where does Dana work?")) == \
        _ranked(_search(other_tenant, "Where does Dana work?", unnamed))


def test_the_users_name_and_its_possessive_are_the_user():
    assert speakers.as_the_user("Where does Dana work?", ["Dana"], ["Dana"]) == "Where does the user work?"
    assert speakers.as_the_user("dana's partner: what does he do?", ["Dana"], []) == "The user's partner: what does he do?"
    assert speakers.as_the_user("Where did Dana Silva study?", ["Dana Silva"], []) == "Where did the user study?"
    assert speakers.as_the_user("Did Dana meet Sam?", ["Dana"], []) == "Did the user meet Sam?"  # no participant
    assert speakers.as_the_user("Where does Dana work?", ["Dana"], ["Dana", "Sam"]) is None  # another participant
    assert speakers.as_the_user("Where does Dana-Marie work?", ["Dana"], []) is None  # another name
    assert speakers.as_the_user("Where does Dana work?", [], ["Dana"]) is None


def test_a_user_who_only_says_who_they_are_is_found_by_their_name_question(tenant):
    """"I'm Omar." alone, the way most people introduce themselves, files the user's name (it used
    to file nothing, and "what's my name?" found nothing at all); a friend named bare in the same
    history is not taken for the user."""
    tenant.turn("I'm Omar. I'm a teacher.", session="s1")
    tenant.turn("Tom said he'd come to the party.", session="s2")
    for question in ("what's my name?", "what is the user's name?"):
        first = tenant.search(question)[0]
        assert (first["key"], first["value"], first["subject"]) == ("name", "Omar", "user"), question
    names = tenant.search("what's my name?", filters={"memory_type": "semantic"})
    assert {(r["key"], r["value"]) for r in names if r["key"] and r["key"].endswith("name")} == {("name", "Omar")}


def test_who_the_user_is_is_answered_by_their_name_first(tenant):
    """"who is the user?" and "who am I?" found nothing, though the user's name was filed: the
    question says none of the fact's words, and the floor's gate let nothing through."""
    tenant.turn("Hi! I'm Marco.", session="s1")
    tenant.turn("I live in Turin and I work at Fiat.", session="s2")
    tenant.turn("Tom said he'd come to the party. Anna is my sister.", session="s3")
    for question in ("who is the user?", "who am I?", "Do you know who I am?"):
        found = tenant.search(question)
        assert found and (found[0]["key"], found[0]["value"]) == ("name", "Marco"), (question, found[:3])
    # Not who someone else is, nor whom the user is talking to: no kind of fact is asked there.
    for question in ("who is the user's sister?", "who am I talking to?", "Who is the user a fan of?",
                     "Who is Anthony?"):
        assert topics.asked(question) is None, question


def test_a_user_whose_id_is_their_name_is_asked_about_by_it(ctx, tenant):
    """User id `dave`, who never said "I'm Dave" (an upgrade trial's history, summarised): a question
    that names him by his id asks of him, as "the user" does, and finds his garden and his work."""
    from memex.consolidation.grouping import Rules
    from memex.consolidation.job import Options, consolidate
    lines = ["I work at Acme Corp as an engineer.", "Read a chapter of Dune, part 1.", "I cooked pizza for dinner."]
    lines += [f"Today I watered the tomatoes in my garden ({n})." for n in (11, 23, 34)]
    for n, line in enumerate(lines):
        body = {"user_id": "dave", "session_id": "d1", "timestamp": f"2026-08-0{n + 1}T19:00:00Z",
                "messages": [{"role": "user", "content": line}]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201
    consolidate(ctx, tenant.id, options=dataclasses.replace(
        Options.from_settings(ctx, threshold=0, min_age_days=0), rules=Rules(0.7, 0.0, 8)))

    def ask(query: str) -> list[dict]:
        body = {"user_id": "dave", "query": query, "reference_time": "2026-12-01T00:00:00Z"}
        return tenant.post("/v1/search", body).json()["results"]

    garden = ask("What did dave say about his garden?")
    assert garden and "my garden" in garden[0]["content"]
    assert garden[0]["type"] == "summary"  # the three lines, summarised
    work = ask("Where does dave work?")
    assert [r["id"] for r in work] == [r["id"] for r in ask("Where does the user work?")]
    assert work[0]["content"] == "The user's employer is Acme Corp."


@pytest.mark.parametrize("user_id, read", [("dave", True), ("Dave", True), ("user", False), ("guest", False),
                                           ("u-123", False), ("d", False), ("dave_smith", False)])
def test_a_user_id_reads_as_a_name_when_it_is_one_word_of_letters(user_id, read):
    assert named.a_name(user_id) is read


@pytest.mark.parametrize("question", ["Melanie", "where does Melanie live?"])
def test_the_users_own_name_still_finds_the_lines_that_name_them(tenant, question):
    """A user whose messages carry the name Melanie said "Melanie moved to Paris." (qa6): searched only
    as the question about "the user", the bare name was no word at all and "where does the user live?"
    near no line in the third person, and both found nothing; the question as asked, with the name,
    is searched too."""
    _tell(tenant, [("m1", "2025-06-01T10:00:00Z", ["Melanie moved to Paris."])], name="Melanie")
    assert _contents(_search(tenant, question)) == ["Melanie: Melanie moved to Paris."]


def test_the_user_asked_about_by_name_is_still_the_user(tenant):
    """What the reading as "the user" is for: Dana said "I work at Acme", and the question naming her finds it."""
    _tell(tenant, [("d1", "2025-06-01T10:00:00Z", ["Hi! I'm Dana.", "I work at Acme."])], name="Dana")
    found = _contents(_search(tenant, "Where does Dana work?"))
    assert found and "Acme" in found[0], found
