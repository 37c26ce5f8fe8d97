"""A word's plural and the words a plural is of (extraction/plurals.py): "-es" after s, x, z, ch and sh, read
both ways, and the nouns whose plural is the word itself. plural added only "s", so "My favourite dishes are …"
was filed under favorite_dishe and "series" read back as "sery"."""

import pytest

from memex.extraction.plurals import plural, singular, stems
from tests.conftest import offline_facts


@pytest.mark.parametrize("one, many", [("dish", "dishes"), ("box", "boxes"), ("church", "churches"),
                                       ("glass", "glasses"), ("bus", "buses"), ("buzz", "buzzes"),
                                       ("series", "series"), ("species", "species"),
                                       # unchanged
                                       ("cat", "cats"), ("horse", "horses"), ("puppy", "puppies"),
                                       ("movie", "movies"), ("goldfish", "goldfish")])
def test_plural(one, many):
    assert plural(one) == many


@pytest.mark.parametrize("many, one", [("dishes", "dish"), ("boxes", "box"), ("churches", "church"),
                                       ("glasses", "glass"), ("buzzes", "buzz"), ("series", "series"),
                                       ("species", "species"), ("headaches", "headache"),
                                       # unchanged
                                       ("horses", "horse"), ("prizes", "prize"), ("cities", "city"),
                                       ("movies", "movie"), ("foods", "food"), ("goldfish", "goldfish")])
def test_singular(many, one):
    assert singular(many) == one


def test_stems_of_an_es_plural_are_both_readings():
    assert stems("dishes") == ["dishe", "dish"] and stems("series") == ["series"] and stems("glass") == ["glass"]


def test_a_favourite_in_an_es_plural_is_filed_under_its_singular():
    assert offline_facts("My favourite dishes are paella.") == {
        ("favorite_dish", "paella", False)}
    assert offline_facts("My favourite TV series is Dark.") == {
        ("favorite_tv_series", "Dark", False)}
