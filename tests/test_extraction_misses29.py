"""What the offline rules misread (extract29): a favourite said in the plural of an "-ie" noun ("My favourite
movies are …") was filed under the word its ending alone reads (favorite_movy). Each beside sentences that must
file what they filed before."""

import pytest

from memex.extraction.plurals import plural, singular, stems
from tests.conftest import offline_facts


@pytest.mark.parametrize("text, expected", [
    ("My favourite movies are Alien and Heat.", {("favorite_movie", "Alien and Heat", False)}),
    ("My favourite cookies are macarons.", {("favorite_cookie", "macarons", False)}),
    ("My favourite pies are apple and cherry.", {("favorite_pie", "apple and cherry", False)}),
    # unchanged: a "-y" noun's plural, and the singular said
    ("My favourite cities are Lisbon, Porto and Rome.",
     {("favorite_city", "Lisbon", False), ("favorite_city", "Porto", False), ("favorite_city", "Rome", False)}),
    ("My favourite movie is Heat.", {("favorite_movie", "Heat", False)}),
])
def test_a_favourite_in_the_plural_is_filed_under_its_singular(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("word, one", [("movies", "movie"), ("cookies", "cookie"), ("smoothies", "smoothie"),
                                       ("cities", "city"), ("puppies", "puppy"), ("foods", "food"),
                                       ("goldfish", "goldfish")])
def test_singular_reads_an_ie_nouns_plural_back(word, one):
    assert singular(word) == one and plural(one) == word


def test_stems_are_every_word_a_plural_may_be_of():
    assert stems("movies") == ["movy", "movie"] and stems("foods") == ["food"] and stems("food") == ["food"]
