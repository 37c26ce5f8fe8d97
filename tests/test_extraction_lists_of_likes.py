"""Lists of likes, dislikes and hobbies filed item by item, as allergies are, by one splitter
(values.listed_items): "I love jazz and hiking." filed one value, "jazz and hiking". A pair said as one thing
stays whole: a few set phrases ("rock and roll", "mac and cheese"), two capitalised words (a name or a title:
"Simon and Garfunkel"), and a pair of likes longer than one word each ("action and sci-fi movies")."""

import pytest

from tests.conftest import offline_facts


@pytest.mark.parametrize("text, expected", [
    ("I love jazz and hiking.", {("likes", "jazz", False), ("likes", "hiking", False)}),
    ("I'm into sci-fi and fantasy.", {("likes", "sci-fi", False), ("likes", "fantasy", False)}),
    ("I love R&B and soul.", {("likes", "R&B", False), ("likes", "soul", False)}),
    ("I don't like cats or dogs.", {("dislikes", "cats", False), ("dislikes", "dogs", False)}),
    ("I hate Mondays and meetings.", {("dislikes", "Mondays", False), ("dislikes", "meetings", False)}),
    ("My hobbies are arts and crafts.", {("hobby", "arts and crafts", False)}),
    ("My hobby is Dungeons and Dragons.", {("hobby", "Dungeons and Dragons", False)}),
])
def test_a_list_of_two_is_filed_item_by_item(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text", ["I love rock and roll.", "I love mac and cheese.", "I love fish and chips.",
                                  "I love salt and pepper.", "I love Simon and Garfunkel.", "I love drum and bass.",
                                  "I love Pride and Prejudice."])
def test_a_pair_said_as_one_thing_stays_whole(text):
    said = text.removeprefix("I love ").rstrip(".")
    assert offline_facts(text) == {("likes", said, False)}


@pytest.mark.parametrize("text, expected", [
    ("I love action and sci-fi movies.", {("likes", "action and sci-fi movies", False)}),
    ("I love hiking, camping and kayaking.",
     {("likes", "hiking", False), ("likes", "camping", False), ("likes", "kayaking", False)}),
    ("I'm allergic to peanuts and shellfish.", {("allergy", "peanuts", False), ("allergy", "shellfish", False)}),
    ("I'm allergic to Advil and Tylenol.", {("allergy", "Advil", False), ("allergy", "Tylenol", False)}),
    ("I'm allergic to penicillin and to cats.", {("allergy", "penicillin", False), ("allergy", "cats", False)}),
    ("My hobbies are painting and hiking.", {("hobby", "painting", False), ("hobby", "hiking", False)}),
    ("My favourite pies are apple and cherry.", {("favorite_pie", "apple and cherry", False)}),
    ("My favourite cities are Lisbon, Porto and Rome.",
     {("favorite_city", "Lisbon", False), ("favorite_city", "Porto", False), ("favorite_city", "Rome", False)}),
    ("I love Queen, Blur and Oasis.", {("likes", "Queen", False), ("likes", "Blur", False), ("likes", "Oasis", False)}),
])
def test_unchanged(text, expected):
    assert offline_facts(text) == expected
