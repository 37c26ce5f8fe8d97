"""What trial 16's user said that the offline rules did not file (issue 11 item 2), in other sentences
than the trial's: a pet's age, a pet named after an emoji or in lower case, a heading list, chat
spelling, a retired job, which hand the user writes with, someone's occasion ahead, and a joke tag
typed in capitals. Each beside sentences that must file nothing."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str) -> set[tuple[str, str, bool]]:
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], [])
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, expected", [
    # a pet's age, under its name when said, so that it never replaces another pet's
    ("Our dog Biscuit is 7 years old.", {("pet_dog_name", "Biscuit", False), ("pet_dog_biscuit_age", "7", False)}),
    ("My rabbit is 2.", {("pet_rabbit_age", "2", False)}),
    ("My cat, Luna, just turned 12.", {("pet_cat_name", "Luna", False), ("pet_cat_luna_age", "12", False)}),
    # not in years, not an age, not the user's, not so
    ("My puppy is 10 weeks old.", set()),
    ("Our cat is 6 kilos now.", set()),
    ("My neighbour's dog is 9.", set()),
    ("If my dog were 3 again I'd train him better.", set()),
    ("My cat isn't 4.", set()),
])
def test_a_pets_age(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("we got a puppy!! 🐶 his name is Waffles", {("pet_dog_name", "Waffles", False)}),
    ("Adopted a rabbit yesterday. her name's Clover", {("pet_rabbit_name", "Clover", False)}),
    ("Adopted a rabbit yesterday. her name\u2019s Clover", {("pet_rabbit_name", "Clover", False)}),
    ("i hav a dog named bruno", {("pet_dog_name", "Bruno", False)}),
])
def test_a_pet_named_after_an_emoji_or_in_lower_case(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Allergies: peanuts, latex.", {("allergy", "peanuts", False), ("allergy", "latex", False)}),
    ("Languages: French, German and Dutch.",
     {("language", "French", False), ("language", "German", False), ("language", "Dutch", False)}),
    ("Hobbies: bouldering, chess", {("hobby", "bouldering", False), ("hobby", "chess", False)}),
    # a list that says there are none, a list of no spoken languages, a heading not opening the sentence
    ("Allergies: none.", set()),
    ("Allergies: none that I know of.", set()),
    ("Languages: Python, Rust, Go.", set()),
    ("Known allergies: latex.", set()),
])
def test_a_heading_list(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("i luv baking n gardening", {("likes", "baking", False), ("likes", "gardening", False)}),
    # read as typed properly, a negation stays one
    ("i dont luv camping n hiking", set()),
])
def test_chat_spelling(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("My mum is a retired midwife.",
     {("mother_role", "midwife", True), ("mother_employment_status", "retired", False)}),
    ("My grandpa is retired now.", {("grandfather_employment_status", "retired", False)}),
    ("I'm a retired firefighter.", {("role", "firefighter", True), ("employment_status", "retired", False)}),
    ("My uncle Tom is a former teacher.", {("uncle_name", "Tom", False), ("uncle_tom_role", "teacher", True)}),
    ("My dog is retired from agility shows.", set()),
    ("I'm not a retired teacher, I'm just tired.", set()),
])
def test_a_retired_job_is_the_past_and_its_holder_retired(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("I'm left-handed, like my mum.", {("handedness", "left-handed", False)}),
    ("I'm ambidextrous.", {("handedness", "ambidextrous", False)}),
    ("I am a lefty.", {("handedness", "left-handed", False)}),
    ("I'm right handed but I kick with my left.", {("handedness", "right-handed", False)}),
    ("My daughter is left-handed.", set()),
    ("I think I might be left-handed.", set()),
    ("I'm not left-handed.", set()),
])
def test_which_hand(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("We're going to Priya's graduation in June.", {("plan", "Priya's graduation in June", False)}),
    ("I'm not going to Jo's party next month.", set()),
    ("I'm going to Jo's wedding.", set()),  # no time said: maybe a wish
    # a place's name said with 's stays the trip it was, filed once
    ("I'm going to McDonald's in August.", {("plan", "going to McDonald's in August", False)}),
])
def test_someones_occasion_ahead(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("I live in Madrid JK", set()),
    ("I work at Google. J/K", set()),
    # "Jk" with one capital may be a name
    ("My cat is named Jk.", {("pet_cat_name", "Jk", False)}),
])
def test_a_joke_tag_in_capitals(text, expected):
    assert _facts(text) == expected
