"""Three misses of the offline rules: a favourite narrowed by whose it is with an article ("My favourite song by
the Beatles is Help." filed nothing: the thing was three words at most), a proposal on a holiday ("on Valentine's
Day" was no time a proposal took) and a holiday said as who proposed ("Labor Day proposed." filed engaged), and a
past job on a contract until a year ("I was working at Acme on a contract until 2020." filed nothing). Each beside
sentences that must file what they filed before."""

import pytest

from tests.conftest import offline_facts, offline_found


@pytest.mark.parametrize("text, expected", [
    ("My favourite song by the Beatles is Help.", {("favorite_song_by_beatles", "Help", False)}),
    ("My favourite album by the Rolling Stones is Exile.", {("favorite_album_by_rolling_stones", "Exile", False)}),
    ("My favourite band from the UK is Blur.", {("favorite_band_from_uk", "Blur", False)}),
    ("My favourite place in the world is Kyoto.", {("favorite_place", "Kyoto", False)}),
    # unchanged (keyed as "book by Tolkien" is: favorite_book_by_tolkien)
    ("My favourite song by Queen is Bohemian Rhapsody.", {("favorite_song_by_queen", "Bohemian Rhapsody", False)}),
    ("My favourite book is Dune.", {("favorite_book", "Dune", False)}),
    ("My favourite sci fi movie is Alien.", {("favorite_sci_fi_movie", "Alien", False)}),
])
def test_a_favourite_narrowed_with_an_article(text, expected):
    assert offline_facts(text) == expected


def test_a_favourite_narrowed_with_an_article_says_it():
    assert [c.content for c in offline_found("My favourite song by the Beatles is Help.")] == [
        "The user's favorite song by the Beatles is Help."]


@pytest.mark.parametrize("text, expected", [
    ("My boyfriend proposed on Valentine's Day!", {("relationship_status", "engaged", False)}),
    ("My girlfriend popped the question last New Year's Eve.", {("relationship_status", "engaged", False)}),
    ("Sam proposed at Christmas.", {("relationship_status", "engaged", False), ("partner_name", "Sam", False)}),
    # a holiday is no one who proposes
    ("Labor Day proposed.", set()),
    ("Christmas proposed.", set()),
    # unchanged (keyed as "book by Tolkien" is: favorite_book_by_tolkien)
    ("Sam proposed last night!", {("relationship_status", "engaged", False), ("partner_name", "Sam", False)}),
    ("Tom proposed a toast.", set()),
])
def test_a_proposal_on_a_holiday(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("I was working at Acme on a contract until 2020.", {("employer", "Acme", True)}),
    ("I was working at Acme on a fixed-term contract until 2020.", {("employer", "Acme", True)}),
    ("I was working at Acme on a contract for two years.", {("employer", "Acme", True)}),
    # unchanged (keyed as "book by Tolkien" is: favorite_book_by_tolkien)
    ("I was working at Acme until 2020.", {("employer", "Acme", True)}),
    ("I was working at Acme on a contract yesterday.", set()),
])
def test_a_past_job_on_a_contract_until_a_year(text, expected):
    assert offline_facts(text) == expected
