"""Letters re.IGNORECASE reads as another (ı and İ as an i, ſ as an s, the Kelvin sign K as a k): a word a rule's
case-insensitive pattern matched with one of them is looked up in the vocabulary the pattern was made of as
re compared it (literal.caseless), and files the fact that word files, or nothing; it never fails the turn
(a KeyError on "spanısh" failed the whole turn's extraction at every delivery). Questions alike: a search
reads them without raising (first_person, time_phrases, kinds)."""

from __future__ import annotations

import pytest

from tests.conftest import current_values, offline_facts


@pytest.mark.parametrize("text, expected", [
    ("I speak Spanısh.", {("language", "Spanish", False)}),
    ("I speak SPANİSH.", {("language", "Spanish", False)}),
    ("I speak ſpanish.", {("language", "Spanish", False)}),
    ("My sıster Ana lives in Porto.", {("sister_name", "Ana", False), ("sister_ana_city", "Porto", False)}),
    ("My SİSTER Ana lives in Porto.", {("sister_name", "Ana", False), ("sister_ana_city", "Porto", False)}),
    ("My neıghbour Tom works at Google.", {("neighbor_name", "Tom", False), ("neighbor_tom_employer", "Google", False)}),
    ("Our two kıttens are called Salt and Pepper.",
     {("pet_cat_name", "Salt", False), ("pet_cat_name", "Pepper", False), ("pet_cat_count", "2", False)}),
    ("Our two \u212aittens are called Salt and Pepper.",
     {("pet_cat_name", "Salt", False), ("pet_cat_name", "Pepper", False), ("pet_cat_count", "2", False)}),
    ("My rabbıt died.", {("pet_kind", "rabbit", True)}),
    ("I have a Golden Retrıever named Max.", {("pet_dog_name", "Max", False), ("pet_dog_breed", "Golden Retrıever", False)}),
    ("Allergıes: peanuts, latex.", {("allergy", "peanuts", False), ("allergy", "latex", False)}),
    ("I'm dıabetic.", {("health_condition", "diabetes", False)}),
])
def test_a_vocabulary_word_said_with_a_look_alike_letter_files_its_fact(text, expected):
    assert offline_facts(text) == expected


def test_a_turn_with_a_look_alike_letter_is_processed_with_its_fact(tenant):
    response = tenant.turn("I speak Spanısh.")
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "processed"
    assert current_values(tenant, "language") == ["Spanish"]


@pytest.mark.parametrize("question", [
    "İs the user a runner?",  # first_person: "is the user" as "am I"
    "Whıch company ıs she at now?",  # "she" voiced as "I"
    "What dıd İ use to do for a living?",  # the asker's "I"
    "What ıs my wıfe's name?",  # kinds: the partner's name asked
    "What happened on the fırst Monday of March 2023?",  # time_phrases: a week counted in a month
    "What did I do last ſpring?",
    "What is the age of hıs son Max?",
])
def test_a_question_with_a_look_alike_letter_is_searched(tenant, question):
    assert tenant.turn("I'm a runner and my wife Ana and I went to Lisbon last spring.").status_code == 201
    tenant.search(question)  # 200, not a 500 from a KeyError
