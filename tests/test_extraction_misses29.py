"""What the offline rules misread (extract29): a favourite said in the plural of an "-ie" noun ("My favourite
movies are …") was filed under the word its ending alone reads (favorite_movy); a favourite narrowed after its kind
("My favourite book by Tolkien is …") under favorite_book_by_tolkien, which no question for the favourite book names,
"of all time" not at all. Each beside sentences that must file what they filed before."""

import pytest

from memex.extraction.plurals import plural, singular, stems
from tests.conftest import offline_facts, offline_found


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


@pytest.mark.parametrize("text, expected", [
    # narrowed after the kind: keyed before it, as "My favorite Tolkien book" is, so that it replaces no favourite
    # of the whole kind
    ("My favourite book by Tolkien is The Hobbit.", {("favorite_tolkien_book", "The Hobbit", False)}),
    ("My favourite song by Queen is Bohemian Rhapsody.", {("favorite_queen_song", "Bohemian Rhapsody", False)}),
    ("my favourite film of 2019 is Parasite.", {("favorite_2019_film", "Parasite", False)}),
    ("My favourite dish from Italy is risotto.", {("favorite_italy_dish", "risotto", False)}),
    ("My favourite books by Tolkien are The Hobbit and The Silmarillion.",
     {("favorite_tolkien_book", "The Hobbit and The Silmarillion", False)}),
    # not narrowed: the favourite of the kind
    ("My favourite film of all time is Alien.", {("favorite_film", "Alien", False)}),
    ("My favourite artist ever is Prince.", {("favorite_artist", "Prince", False)}),
    ("My favourite kind of music is jazz.", {("favorite_music", "jazz", False)}),
    # unchanged
    ("My favorite Tolkien book is The Hobbit.", {("favorite_tolkien_book", "The Hobbit", False)}),
    ("My favourite sci fi movie is Alien.", {("favorite_sci_fi_movie", "Alien", False)}),
])
def test_a_favourite_narrowed_after_its_kind_is_keyed_before_it(text, expected):
    assert offline_facts(text) == expected


def test_a_narrowed_favourite_says_what_narrows_it():
    assert [c.content for c in offline_found("My favourite book by Tolkien is The Hobbit.")] == [
        "The user's favorite book by Tolkien is The Hobbit."]


@pytest.mark.parametrize("word, one", [("movies", "movie"), ("cookies", "cookie"), ("smoothies", "smoothie"),
                                       ("cities", "city"), ("puppies", "puppy"), ("foods", "food"),
                                       ("goldfish", "goldfish")])
def test_singular_reads_an_ie_nouns_plural_back(word, one):
    assert singular(word) == one and plural(one) == word


def test_stems_are_every_word_a_plural_may_be_of():
    assert stems("movies") == ["movy", "movie"] and stems("foods") == ["food"] and stems("food") == ["food"]


def test_a_parting_month_said_short_keeps_its_year():
    # people._PARTING_WHEN read the months by its own list, without MONTH's dot: "in Mar. 2019" was "in Mar"
    assert [(c.key, c.happened) for c in offline_found("We broke up in Mar. 2019.")] == [
        ("relationship_status", "in Mar. 2019")]


@pytest.mark.parametrize("text, expected", [
    # the birth's day and year read by the one fragment (patterns.BIRTH_DAY), as before
    ("I was born in May 1990.", {("birth_year", "1990", False)}),
    ("I was born on March 4, 1990 in Leeds.",
     {("birthplace", "Leeds", False), ("birth_year", "1990", False), ("birthday", "March 4", False)}),
    ("I was born on the 4th of March.", {("birthday", "4th of March", False)}),
    ("I was born in Porto, Portugal in '85.", {("birthplace", "Porto", False), ("birth_year", "1985", False)}),
    ("I was born in May.", set()),
])
def test_the_users_birth_is_read_as_before(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a child's birth, as the user's own files it: the year, and the day when one is said
    ("My daughter was born in May 2020.", {("child_daughter_birth_year", "2020", False)}),
    ("Our son was born on 3 March 2019.",
     {("child_son_birth_year", "2019", False), ("child_son_birthday", "3 March", False)}),
    ("Our son Leo was born on March 3rd, 2019 in Leeds.", {("child_name", "Leo", False),
     ("child_leo_birth_year", "2019", False), ("child_leo_birthday", "March 3rd", False)}),
    ("My daughter Ava was born in Lisbon in 2021.", {("child_name", "Ava", False), ("child_ava_birth_year", "2021", False)}),
    ("My youngest was born on the 4th of July.", {("child_youngest_birthday", "4th of July", False)}),
    ("My daughter was born in '09.", {("child_daughter_birth_year", "2009", False)}),
    # no day, no year, or no name
    ("My son was born in May.", set()),
    ("My son was born in Leeds.", set()),
    ("My daughter Christmas was born in 2020.", set()),
])
def test_a_childs_birth_is_filed_as_the_users_is(text, expected):
    assert offline_facts(text) == expected


def test_a_childs_birth_says_whose_it_is():
    assert sorted(c.content for c in offline_found("Our son Leo was born on 3 March 2019.") if "birth" in c.key) == [
        "The user's son Leo was born in 2019.", "The user's son Leo's birthday is 3 March."]


@pytest.mark.parametrize("text, expected", [
    # a holiday of more than one word is when, not a name (NOT_NAMES), as one of one word is
    ("I'm working for Labor Day.", set()),
    ("I work for Labor Day weekend.", set()),
    ("I'm working for New Year's Eve.", set()),
    ("I'm working for Mother's Day.", set()),
    ("My last day at work is Friday, then I start at New Year's Eve.", {("plan", "last day at work on Friday", False)}),
    ("My sister is Thanksgiving Day crazy.", set()),
    ("My wife is Valentine's Day obsessed.", set()),
    ("I live in Christmas Eve.", set()),
    # unchanged
    ("I'm working for Christmas.", set()),
    ("I moved to Lisbon on Christmas Eve.", {("city", "Lisbon", False)}),
    ("I work at Macy's.", {("employer", "Macy's", False)}),
])
def test_a_holiday_of_several_words_is_no_name(text, expected):
    assert offline_facts(text) == expected
