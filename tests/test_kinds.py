"""A question asking for the name of someone or some animal of one kind is not answered by a memory
about one of another kind (retrieval/kinds.py); the asked kind is still found, whatever its word."""

from __future__ import annotations

import pytest

from memex.retrieval import kinds


@pytest.mark.parametrize("question, content", [
    ("What is my wife's name?", "I have a dog named Rex."),
    ("What is my wife's name?", "The user's dog is named Rex."),
    ("What's my name?", "My wife's name is Anna."),
    ("What's her dog's name?", "My name is Priya."),
    ("What is the name of her cat?", "The user's son is named Leo."),
    ("Who is my best friend?", "My sister's name is Maya."),
    ("What is my aunt's name?", "The user's neighbour is named Otto."),  # the new people are kinds too
    ("Who is my cousin?", "My boss is called Dan."),
    ("What are my grandparents called?", "The user's uncle is named Bob."),
])
def test_a_memory_about_another_kind_does_not_answer(question, content):
    assert not kinds.answers(kinds.asked(question), content)


@pytest.mark.parametrize("question, content", [
    ("What's my partner called?", "My wife's name is Anna."),  # a wife is the partner
    ("What are my kids named?", "I have two daughters, Mia and Zoe."),
    ("What's her puppy called?", "My dog is called Biscuit."),
    ("What is the user called?", "My name is Priya."),
    ("What is my wife's name?", "We went to the lake on Sunday."),  # names no kind: left to the floor
    ("What is my dog's name?", "My husband and I walked the dog."),  # says the asked kind
    ("What do Melanie's kids like?", "They love the dinosaurs. I love being a mom."),  # asks no name
    ("What is my favourite opera?", "My favorite band is Radiohead."),  # no kind the vocabulary knows
    ("What's my coworker's name?", "The user's colleague is named Tom."),  # a coworker is the colleague
    ("What's my neighbor called?", "My neighbour is called Otto."),
    ("What are my grandparents called?", "My grandma is named Rose."),
])
def test_a_memory_of_the_asked_kind_or_of_none_is_left(question, content):
    assert kinds.answers(kinds.asked(question), content)


def test_the_service_answers_a_name_with_the_asked_kind_only(tenant):
    tenant.turn("My wife's name is Anna.", "I have a dog named Rex.")
    wife = tenant.search("What is my wife's name?")
    assert wife and all("Rex" not in r["content"] for r in wife), [r["content"] for r in wife]
    assert any(r.get("key") == "partner_name" and r["value"] == "Anna" for r in wife)
    dog = tenant.search("What's her dog called?")
    assert dog and all("Anna" not in r["content"] for r in dog), [r["content"] for r in dog]
    assert tenant.search("What is the name of my cat?") == []


def test_a_user_with_one_fact_gets_nothing_for_another_kinds_name(tenant):
    tenant.turn("My name is Priya.")
    assert tenant.search("What's my wife's name?") == []
    assert any(r.get("value") == "Priya" for r in tenant.search("What's my name?"))
