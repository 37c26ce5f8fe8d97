"""A question's word and the memory's word of one family ("allergies" and "allergic", "dislike" and
"hate") meet in the keyword channel and count as the question's word in the floor's coverage."""

from __future__ import annotations

from tests.test_search import NOISE

CHAT = ("Hi! I'm Maya, I'm a data analyst.", "We adopted a cat, her name is Miso.",
        "I'm allergic to peanuts, so keep that in mind for recipes.",
        "I think cilantro tastes like soap, I hate it.", "Training for a half marathon in April.")


def _said(tenant):
    tenant.turn(*CHAT)
    # the facts filed from the allergy and the dislike erased: their messages are left, which say
    # "allergic" and "hate"
    listing = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    facts = {m["content"]: m["id"] for m in listing if m["memory_type"] == "semantic"}
    for content in ("The user is allergic to peanuts.", "The user dislikes cilantro."):
        assert tenant.delete(f"/v1/memories/{facts[content]}").status_code in (200, 204)


def test_a_question_finds_the_word_of_its_family_the_user_said(tenant):
    _said(tenant)
    # (the dislike below the user's name: the learned order's, not the keyword channel's)
    for question, said, within in (("what allergies do I have?", "allergic to peanuts", 1),
                                   ("do I have any allergies?", "allergic to peanuts", 1),
                                   ("what do I dislike?", "I hate it", 2)):
        results = [r["content"] for r in tenant.search(question)]
        assert any(said in content for content in results[:within]), (question, results)


def test_a_family_opens_no_unrelated_question(tenant):
    _said(tenant)
    for query in NOISE + ["Is hate speech illegal in Germany?", "What causes allergic rhinitis in spring?"]:
        assert tenant.search(query) == [], query


def test_a_family_counts_as_one_word_of_the_question_weighed_as_its_commonest():
    from memex.retrieval import floor

    terms, size = {"allergi": 0, "allerg": 1}, 40  # "allergies" asked, "allergic" added by its family
    kin = floor.families({"allergies": "allergi", "allergic": "allerg", "allergy": "allergi"})
    assert kin == [frozenset({"allergi", "allerg"})]
    assert floor.keyword_signals(terms, {"allerg"}, {"allerg"}, size, kin=kin)[0] == 1.0
    # the family weighs as "allergic", the commoner: beside a word as rare, half the question
    both = {**terms, "peanut": 1}
    assert floor.keyword_signals(both, {"allerg"}, {"allerg"}, size, kin=kin)[0] == 0.5
    assert floor.keyword_signals(terms, {"allerg"}, {"allerg"}, size)[0] < 0.6  # apart, under the gate


def test_kids_and_children_are_one_family():
    # "children" and "kids" stem apart: "Does she have any children?" found the message only by its meaning
    from memex.retrieval import keywords

    assert "kids" in keywords.searched("Does she have any children?")
    assert "children" in keywords.searched("How are the kids?")


def test_asked_what_her_kids_are_called_the_names_come_before_the_count(tenant):
    # "kids" searched with "children" put "The user has 2 children." above the daughters' names
    for n, text in enumerate(("I have two kids.", "My daughter is called Zoe.", "I live in Leeds.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    found = [r["key"] for r in tenant.search("What are the user's kids called?") if r["memory_type"] != "episodic"]
    assert found[:1] == ["child_name"], found
    found = [r["key"] for r in tenant.search("Does she have any kids?") if r["memory_type"] != "episodic"]
    assert found[:1] == ["number_of_children"], found
