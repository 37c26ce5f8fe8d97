"""What a question asks for and whether a line holds it (retrieval/answer_type.py)."""

from __future__ import annotations

from memex.retrieval import answer_type

PARTICIPANTS = frozenset({"melanie", "caroline", "user"})


def test_a_question_asks_for_a_count_a_place_or_a_name_by_its_words():
    assert answer_type.asked("How many children does Melanie have?") == {"number"}
    assert answer_type.asked("Where has Melanie camped?") == {"place"}
    assert answer_type.asked("Which cities has Jon visited?") == {"place"}
    assert answer_type.asked("What books has Melanie read?") == {"name"}
    assert answer_type.asked("Who supports Caroline?") == {"name"}
    # a time is left to the period and the moment; "what does she like" asks for no type
    assert answer_type.asked("When did Caroline go to the support group?") == frozenset()
    assert answer_type.asked("What do Melanie's kids like?") == frozenset()


def test_a_name_is_a_capitalised_word_that_neither_opens_a_sentence_nor_names_a_participant():
    books = answer_type.asked("What books has Melanie read?")
    assert answer_type.holds(books, "Melanie: I loved reading Charlotte's Web to the kids.", PARTICIPANTS)
    assert answer_type.holds(books, 'Melanie: my favourite is "the little prince", always.', PARTICIPANTS)
    assert not answer_type.holds(books, "Melanie: Thanks, Caroline! Reading is. So relaxing.", PARTICIPANTS)
    # the same line names someone when Caroline is not one of the participants
    assert answer_type.holds(books, "Melanie: Thanks, Caroline! Reading is. So relaxing.", frozenset({"melanie"}))


def test_a_count_is_a_number_and_a_place_a_place_word_or_a_name():
    many, where = answer_type.asked("How many kids does Melanie have?"), answer_type.asked("Where did she camp?")
    assert answer_type.holds(many, "Melanie: My three kids love it.", PARTICIPANTS)
    assert not answer_type.holds(many, "Melanie: My kids love it.", PARTICIPANTS)
    assert answer_type.holds(where, "Melanie: We camped by the lake.", PARTICIPANTS)
    assert answer_type.holds(where, "Melanie: We camped near Sintra.", PARTICIPANTS)
    assert not answer_type.holds(where, "Melanie: We camped, it was fun.", PARTICIPANTS)
    # a line never holds what was not asked
    assert not answer_type.holds(frozenset(), "Melanie: My three kids camped near Sintra.", PARTICIPANTS)
