"""Letters re.IGNORECASE reads as another (ı and İ as an i, ſ as an s, the Kelvin sign K as a k): a word a rule's
case-insensitive pattern matched with one of them is looked up in the vocabulary the pattern was made of as
re compared it (literal.caseless), and files the fact that word files, or nothing; it never fails the turn
(a KeyError on "spanısh" failed the whole turn's extraction at every delivery). Questions alike: a search
reads them without raising (first_person, time_phrases, kinds)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from memex.extraction.offline import OfflineExtractor
from memex.models import SearchIn
from memex.retrieval import search
from tests.conftest import Tenant, current_values, offline_facts, offline_found


@pytest.mark.parametrize("text, expected", [
    ("I speak Spanısh.", {("language", "Spanish", False)}),
    ("I speak SPANİSH.", {("language", "Spanish", False)}),
    ("I speak ſpanish.", {("language", "Spanish", False)}),
    ("My sıster Ana lives in Porto.", {("sister_name", "Ana", False), ("sister_ana_city", "Porto", False)}),
    ("My SİSTER Ana lives in Porto.", {("sister_name", "Ana", False), ("sister_ana_city", "Porto", False)}),
    ("My neıghbour Tom works at Google.", {("neighbor_name", "Tom", False), ("neighbor_tom_employer", "Google", False)}),
    ("Our two kıttens are called Salt and Pepper.",
     {("pet_cat_name", "Salt", False), ("pet_cat_name", "Pepper", False), ("pet_cat_count", "2", False)}),
    ("Our two \u212aittens are called Salt and Pepper.",
     {("pet_cat_name", "Salt", False), ("pet_cat_name", "Pepper", False), ("pet_cat_count", "2", False)}),
    ("My rabbıt died.", {("pet_kind", "rabbit", True)}),
    ("I have a Golden Retrıever named Max.", {("pet_dog_name", "Max", False), ("pet_dog_breed", "Golden Retrıever", False)}),
    ("Allergıes: peanuts, latex.", {("allergy", "peanuts", False), ("allergy", "latex", False)}),
    ("I'm dıabetic.", {("health_condition", "diabetes", False)}),
])
def test_a_vocabulary_word_said_with_a_look_alike_letter_files_its_fact(text, expected):
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("I'm from İstanbul.", {("hometown", "İstanbul", False)}),
    ("I'm seeing İstanbul for a week.", set()),  # a visit, as "Istanbul"'s
    ("My friend İrish is here.", set()),  # a nationality, no name
    ("My dog is called FRİDAY.", set()),  # as "FRIDAY", a weekday
])
def test_a_name_said_with_a_look_alike_letter_is_told_a_place_or_no_name_as_with_its_letter(text, expected):
    """values.a_place and values.a_name compared an open capture through str.casefold, which reads "İ" as "i"
    and a combining dot: "İstanbul" was no known place ("I'm from İstanbul." filed nothing, "I'm seeing
    İstanbul" a partner) and "İrish" no nationality, where re.IGNORECASE and the vocabulary's words read
    "İ" as "I" (literal.caseless)."""
    assert offline_facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("I'm allergic to everythıng.", set()),  # as "everything": no allergen
    ("My hobbies are hıde and seek and hiking.", {("hobby", "hıde and seek", False), ("hobby", "hiking", False)}),
    ("I'm a retıred nurse.", set()),  # a judgement of the role, never a role "retıred nurse"
    ("I'm a retıred student.", set()),
    ("I'm Dıabetic.", {("health_condition", "diabetes", False)}),  # a condition, no name
    ("I'm seeing Sıster.", set()),  # a visit to kin, no partner
    ("I moved from Marketıng to Google.", set()),  # from a department: no job move
    ("My husband switched from Google to Strıpe.",
     {("partner_employer", "Google", True), ("partner_employer", "Strıpe", False)}),  # two well-known employers
])
def test_a_word_said_with_a_look_alike_letter_is_told_from_the_lists_as_with_its_letter(text, expected):
    """values, identity, work, people and the vocabulary compared a word with their lists through str.casefold,
    which leaves "ı" an "ı": "everythıng" was an allergen, "Marketıng" an employer, "Strıpe" no well-known one,
    "Dıabetic" a name."""
    assert offline_facts(text) == expected


@pytest.mark.parametrize("before, text, expected", [
    ("I have 3 kids.", "sorry, I meant fıve, not three", {("number_of_children", "5", False)}),  # was "None"
    ("I'm 34.", "sorry I'm forty-fıve not 34", {("age", "45", False)}),  # was 40
    ("I live in Porto.", "Actually ıt's Lisbon, not Porto.", {("city", "Lisbon", False)}),  # "ıt's" a correction's word
    ("I'm retired.", "I'm not retıred.", {("employment_status", "retired", True)}),  # was nothing: a diet denied
])
def test_a_correction_said_with_a_look_alike_letter_corrects_as_with_its_letter(before, text, expected):
    """A number a correction's case-insensitive pattern read with a look-alike letter is counted as re read it
    (values.to_number); a correction's own words alike (corrections._no_fact_word), and a denial's value
    (corrections._ended_by_denial, and _value_mark finding the fact it ends)."""
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": text}],
                                       [{"id": "h", "role": "user", "content": before}])
    assert {(c.key, c.value, c.historical) for c in found} == expected


@pytest.mark.parametrize("before, text, content", [
    (None, "My sister is an ıllustrator.", "The user's sister is an ıllustrator."),  # rules/people.py
    ("My sister Sam is a nurse.", "Sam is an ıllustrator now.", "The user's sister Sam is an ıllustrator."),  # corrections
])
def test_a_value_said_with_a_look_alike_first_letter_takes_its_letters_article(before, text, content):
    """"a" or "an" was chosen by the value's first letter through str.casefold, which leaves "ı" an "ı": "a
    ıllustrator"."""
    history = [{"id": "h", "role": "user", "content": before}] if before else []
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": text}], history)
    assert [c.content for c in found] == [content]


def test_a_former_partners_role_said_with_a_look_alike_first_letter_takes_its_letters_article():
    from memex.supersession import ABOUT_PARTNER, about_former_partner

    assert about_former_partner("The user's", "Sam", ABOUT_PARTNER["role"], "ıllustrator") == \
        "The user's former partner Sam was an ıllustrator."


def test_a_turn_with_a_look_alike_letter_is_processed_with_its_fact(tenant):
    response = tenant.turn("I speak Spanısh.")
    assert response.status_code == 201, response.text
    assert response.json()["status"] == "processed"
    assert current_values(tenant, "language") == ["Spanish"]


@pytest.mark.parametrize("question", [
    "İs the user a runner?",  # first_person: "is the user" as "am I"
    "Whıch company ıs she at now?",  # "she" voiced as "I"
    "What dıd İ use to do for a living?",  # the asker's "I"
    "What ıs my wıfe's name?",  # kinds: the partner's name asked
    "What happened on the fırst Monday of March 2023?",  # time_phrases: a week counted in a month
    "What did I do last ſpring?",
    "What is the age of hıs son Max?",
])
def test_a_question_with_a_look_alike_letter_is_searched(tenant, question):
    assert tenant.turn("I'm a runner and my wife Ana and I went to Lisbon last spring.").status_code == 201
    tenant.search(question)  # 200, not a 500 from a KeyError


# What re.IGNORECASE reads as another letter, and "ß", which it reads as no "ss" (a word said with it matches none
# of the lists' words, and must still be read without raising).
_LOOK_ALIKE = {"i": "\u0131", "I": "\u0130", "s": "\u017f", "k": "\u212a", "K": "\u212a"}


def _said_otherwise(text: str, rng: random.Random) -> str:
    """`text` with some of its letters as their look-alikes, some "ss" as "ß", and some letters' case changed."""
    out, at = [], 0
    while at < len(text):
        roll = rng.random()
        if text.startswith("ss", at) and roll < 0.3:
            out.append("ß")
            at += 2
            continue
        char = text[at]
        if roll < 0.4 and char in _LOOK_ALIKE:
            char = _LOOK_ALIKE[char]
        elif roll > 0.8:
            char = char.upper() if rng.random() < 0.5 else char.lower()
        out.append(char)
        at += 1
    return "".join(out)


def _fixture_sentences() -> list[str]:
    """Every user message of the quality fixtures: the statements (and what was said before them) and the
    conversations' user turns."""
    quality = Path(__file__).resolve().parents[1] / "bench" / "quality"
    statements = yaml.safe_load((quality / "statements.yaml").read_text())["statements"]
    said = [text for s in statements for text in (s["text"], *s.get("before", []))]

    def users(node) -> list[str]:
        if isinstance(node, dict):
            own = [node["content"]] if node.get("role") == "user" and isinstance(node.get("content"), str) else []
            return own + [text for value in node.values() for text in users(value)]
        return [text for item in node for text in users(item)] if isinstance(node, list) else []

    return said + users(yaml.safe_load((quality / "conversations.yaml").read_text()))


def _fixture_questions() -> list[str]:
    asked = yaml.safe_load((Path(__file__).resolve().parents[1] / "bench" / "quality" / "asked.yaml").read_text())
    return [*asked["unrelated"], *(q for fact in asked["facts"] for part in ("dev", "heldout") for q in fact.get(part, []))]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.sampled_from(_fixture_sentences()), st.integers(min_value=0))
def test_the_offline_extractor_reads_any_fixture_sentence_said_with_look_alike_letters(sentence, seed):
    offline_found(_said_otherwise(sentence, random.Random(seed)))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.sampled_from(_fixture_questions()), st.integers(min_value=0))
def test_search_reads_any_fixture_question_asked_with_look_alike_letters(ctx, searched, question, seed):
    search.search(ctx, searched.id, SearchIn(user_id=searched.user, query=_said_otherwise(question, random.Random(seed))))


@pytest.fixture(scope="module")
def searched(ctx, http) -> Tenant:
    """A user with a few facts of the kinds questions ask about (names, a partner, a job, a place, a time)."""
    user = Tenant(ctx, http)
    assert user.turn("I'm Dana, I work at Stripe and live in Dublin. My wife Ana and I went to Lisbon last spring.",
                     "My sister Eva has a golden retriever named Max, and I speak Spanish.").status_code == 201
    return user
