"""A user's words found as data (memex/literal.py) where a pattern of them would find them: compared with re
itself, which the finder replaces so that no pattern of an erased user's words stays in re's cache."""

from __future__ import annotations

import re

import pytest

from memex import literal


def test_ignoring_case_reads_two_characters_the_same_where_re_does(letters_one_case_apart):
    # Every pair of characters one case apart (re's extra cases included: "ſ" an s, "ı" an i, "ς" a σ, "İ"
    # an i by its one-character lowercase), against re.IGNORECASE's reading of the one in a pattern.
    differ = {(a, b) for group in letters_one_case_apart for a in group for b in group
              if bool(re.fullmatch(re.escape(a), b, re.IGNORECASE)) != (literal.caseless(a) == literal.caseless(b))}
    assert differ == {(a, b) for a in "\u0345\u0399\u03b9\u1fbe" for b in "\u0345\u0399\u03b9\u1fbe"
                      if (a == "\u0345") != (b == "\u0345")}  # the combining iota subscript, no \w as ι is
    assert all(len(literal.caseless(chr(i))) == 1 for i in range(0x110000))  # one for one: spans are the text's


def _joins_value(char: str) -> bool:
    return literal.word_character(char) or char in ("'", "-")


@pytest.mark.parametrize("words, text", [
    ("Rex", "Rex, Rexford and T-Rex: rex REX"),
    ("aa", "aaa aa aa_aa"),  # not overlapping, left to right
    ("New York", "new york|New  York|New\tYork|NewYork"),
    ("ΟΔΟΣ", "οδος οδοσ ΟΔΟΣ"),  # a final sigma is a sigma to IGNORECASE
    ("ſam", "Sam SAM ſam"),
    ("İstanbul", "istanbul Istanbul İSTANBUL"),
    ("x", "x² x_ x中 中x -x"),
    ("", "a. b"),  # nothing: found where no word character is beside it
    ("  ", "a  b"),
    ("o'neil", "O'Neil's o'neil-x"),
    ("2", "In 2024 I got 2 cats."),
])
@pytest.mark.parametrize("ignore_case", [False, True])
@pytest.mark.parametrize("spaced", [False, True])
def test_words_are_found_where_a_pattern_of_them_finds_them(words, text, ignore_case, spaced):
    flags = re.IGNORECASE if ignore_case else 0
    body = r"\s+".join(map(re.escape, words.split())) if spaced else re.escape(words)
    for joins, around in ((literal.word_character, r"\w"), (_joins_value, r"[\w'-]")):
        pattern = re.compile(rf"(?<!{around}){body}(?!{around})", flags)
        found = list(literal.spans(words, text, ignore_case=ignore_case, spaced=spaced, joins=joins))
        assert found == [m.span() for m in pattern.finditer(text)], (words, text, around)
        assert literal.says(words, text, ignore_case=ignore_case, spaced=spaced, joins=joins) == bool(found)


@pytest.mark.parametrize("text", ["a b", "a_b", "a-b", "", "中x", "x²", "é!"])
def test_a_boundary_is_where_re_reads_one(text):
    assert [literal.boundary(text, at) for at in range(len(text) + 1)] == [
        bool(re.compile(r"\b").match(text, at)) for at in range(len(text) + 1)]


@pytest.mark.parametrize("words, text", [
    ("Ana", "Ana, ana and Anakin; my friend ANA lives near Ana's"),
    ("aa", "aaaa aa"),  # overlapping: every place
    ("Zoë", "zoë ZOË Zoëy zoe"),
    ("ſam", "Sam SAM ſam"),
    ("İrem", "irem İREM Irem"),
    ("Νίκος", "ο ΝΊΚΟΣ και ο Νίκος"),
    ("'Ana", "my 'ana friend x'Ana"),
    ("Sarah", "no one here"),
])
@pytest.mark.parametrize("bounded_before", [True, False])
def test_every_place_a_name_is_said_is_where_a_pattern_of_it_finds_one(words, text, bounded_before):
    # The pattern it replaces (retrieval/whose.py, retrieval/named.py), which read the name from the text's end
    # at each place and so took time quadratic in the text's length.
    before = r"\b" if bounded_before else ""
    pattern = re.compile(rf"{before}(?=[^\x00]*\x00(?P<name>[^\x00]*)\Z)(?=(?P=name)\b)", re.IGNORECASE)
    expected = [m.start() for m in pattern.finditer(literal.fold_extra_cases(f"{text}\x00{words}"))
                if m.start() < len(text)]
    assert list(literal.starts(words, text, bounded_before=bounded_before)) == expected
