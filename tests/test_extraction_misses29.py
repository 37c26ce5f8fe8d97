"""What the offline rules misread (extract29): a favourite said in the plural of an "-ie" noun ("My favourite
movies are …") was filed under the word its ending alone reads (favorite_movy); "My favourite film of all time is …"
not at all. Each beside sentences that must file what they filed before: a favourite stored under a key is not
filed under another since (rekey), but where aliases.py and migration 0049 file both alike (favorite_movy)."""

import pytest

from memex.extraction.plurals import plural, singular, stems
from tests.conftest import current_values, offline_facts, offline_found


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
    # "of all time" narrows nothing; it filed nothing before
    ("My favourite film of all time is Alien.", {("favorite_film", "Alien", False)}),
    ("My favourite movies of all time are Alien and Heat.", {("favorite_movie", "Alien and Heat", False)}),
    # unchanged, as stored since before (rekey): a favourite narrowed after its kind, a kind of a thing and a
    # measure of it each keep a key of their own, which replaces no favourite of the whole kind
    # ("My favourite movie is Alien."); "ever" is read into the key
    ("My favourite book by Tolkien is The Hobbit.", {("favorite_book_by_tolkien", "The Hobbit", False)}),
    ("My favourite dish from Italy is risotto.", {("favorite_dish_from_italy", "risotto", False)}),
    ("My favourite kind of music is jazz.", {("favorite_kind_of_music", "jazz", False)}),
    ("My favourite kind of movie is horror.", {("favorite_kind_of_movie", "horror", False)}),
    ("My favourite kinds of music are jazz and soul.", {("favorite_kinds_of_music", "jazz and soul", False)}),
    ("My favourite type of dog is a collie.", {("favorite_type_of_dog", "a collie", False)}),
    ("My favourite cup of tea is Earl Grey.", {("favorite_cup_of_tea", "Earl Grey", False)}),
    ("My favourite one by far is Heat.", {("favorite_one_by_far", "Heat", False)}),
    ("My favourite artist ever is Prince.", {("favorite_artist_ever", "Prince", False)}),
    ("My favorite Tolkien book is The Hobbit.", {("favorite_tolkien_book", "The Hobbit", False)}),
    ("My favourite sci fi movie is Alien.", {("favorite_sci_fi_movie", "Alien", False)}),
])
def test_of_all_time_narrows_nothing_and_a_favourite_stored_before_keeps_its_key(text, expected):
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


def test_a_kind_of_a_thing_replaces_no_favourite_of_the_thing(tenant):
    """One value per favourite key: a genre keyed as the title's key would replace the title."""
    assert tenant.turn("My favourite movie is Alien.", session="s1").status_code == 201
    assert tenant.turn("My favourite kind of movie is horror.", session="s2").status_code == 201
    assert current_values(tenant, "favorite_movie") == ["Alien"]
    assert current_values(tenant, "favorite_kind_of_movie") == ["horror"]
