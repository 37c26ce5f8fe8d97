"""The words for someone in the user's life (memex/people.py): whom each names, one rule for the many."""

from __future__ import annotations

import re

import pytest

from memex import people
from memex.extraction.plurals import plural


@pytest.mark.parametrize("word, person", [
    ("sister", "sister"), ("Sisters", "sister"), ("boss", "boss"), ("bosses", "boss"), ("sons", "son"),
    ("mum", "mother"), ("co-worker", "colleague"), ("parents", None), ("kids", None), ("grandparents", None),
    ("children", None), ("wives", None),
])
def test_a_word_for_someone_names_one_person_or_several(word, person):
    # a listed word as listed ("boss" is no "bo", "sons" is a son), else without its "s" or "es"
    assert people.one(word) == person


def test_every_word_for_several_names_nobody_alone():
    assert people.SEVERAL and all(people.one(word) is None for word in people.SEVERAL)


@pytest.mark.parametrize("word", people.WORDS)
def test_one_and_said_in_read_a_word_and_its_many_alike(word):
    # On main named.one read "bosses" as several (None) and named.people as the boss: whose.not_theirs
    # kept "My bosses live in Leeds." for "Where does my sister live?" and dropped "My boss lives ..."
    for said in (word, f"{word}s", f"{word}es", word.upper(), plural(word)):
        if not people.NAMES_A_PERSON.fullmatch(said):
            assert people.one(said) is None and not people.said_in(said), said
            continue
        person = people.one(said)
        assert people.said_in(said) == {person} if person else people.said_in(said) <= people.SEVERAL, said


def test_the_plural_of_a_word_names_whom_the_word_names():
    assert [plural(word) for word in ("sister", "boss", "wife", "fiancée")] == \
        ["sisters", "bosses", "wives", "fiancées"]
    # "wives" is read only where it is listed (topics.py's words for the partner), not as a word of
    # NAMES_A_PERSON, which reads a listed word with "s" or "es" after it: nor is "grannies" (extraction/plurals.py
    # gives the plurals, "grannys" before)
    assert {word for word in people.WORDS if people.one(plural(word)) != people.one(word)} == {"wife", "granny"}


def test_the_partner_is_one_person_by_any_word():
    assert "wife" in people.PARTNER and "spouse" in people.PARTNER
    assert {people.one(word) for word in people.PARTNER} == {"partner"}


def test_what_writes_memories_reads_the_words_only_if_a_kept_ingest_is_keyed_by_them():
    # people.py is outside bench/locomo.py's INGEST_CODE: were the code that writes memories to read
    # it, a change of a word would leave a kept LoCoMo ingest standing that no longer matches its code
    from bench.locomo import INGEST_CODE, ROOT

    files = [file for name in INGEST_CODE for file in ((ROOT / name).rglob("*.py") if (ROOT / name).is_dir()
                                                       else [ROOT / name])]
    readers = [file.name for file in files if re.search(r"from memex import (?:.*\b)?people\b|memex\.people\b",
                                                         file.read_text())]
    assert not readers or "shared/memex/people.py" in INGEST_CODE, readers
