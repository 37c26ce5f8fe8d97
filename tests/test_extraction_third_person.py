"""A fact the offline rules file reads in the third person (extraction/third_person.py): "I love cooking for my
husband." filed likes 'cooking for my husband', "The user likes cooking for my husband.", whose "my", pasted into an
agent's prompt, is the agent's. A name or a title keeps its words as said. The LLM extractor's values are its own.
A value stored before in the first person and the same said now are one value (supersession.same_value), and a
tombstone written before of either form still erases it (db/erasure.value_digests)."""

from __future__ import annotations

import json

import pytest

from bench.openai_double import OpenAIDouble
from memex.db.erasure import value_digest, value_digests
from memex.extraction import third_person
from memex.extraction.llm import LLMExtractor
from memex.extraction.offline import OfflineExtractor
from memex.jobs import Candidate
from memex.llm import ChatJSON
from memex.supersession import decide, folded_value, same_value
from tests.conftest import offline_found


@pytest.mark.parametrize("text, key, value", [
    ("I love cooking for my husband.", "likes", "cooking for their husband"),
    ("I love hanging out with my friends.", "likes", "hanging out with their friends"),
    ("I enjoy walking my dog.", "likes", "walking their dog"),
    ("I love painting with my kids.", "likes", "painting with their kids"),
    ("I hate waiting for my train.", "dislikes", "waiting for their train"),
    ("I love spending time with our grandkids.", "likes", "spending time with their grandkids"),
    ("I love treating myself.", "likes", "treating themselves"),
    ("I love the place where I was born.", "likes", "the place where they were born"),
    ("My favourite hobby is walking my dog.", "favorite_hobby", "walking their dog"),
])
def test_the_users_words_read_in_the_third_person(text, key, value):
    found = {c.key: c for c in offline_found(text)}
    sentence = "The user's favorite hobby is" if key == "favorite_hobby" else f"The user {key}"
    assert found[key].value == value and found[key].content == f"{sentence} {value}."


@pytest.mark.parametrize("text, value", [
    ("I love My Chemical Romance.", "My Chemical Romance"),
    ("I love My Little Pony.", "My Little Pony"),
    ("I love How I Met Your Mother.", "How I Met Your Mother"),
    ("I'm a big fan of World War I history.", "World War I history"),
])
def test_a_title_keeps_its_words(text, value):
    assert [c.value for c in offline_found(text)] == [value]


@pytest.mark.parametrize("value, theirs", [
    ("what I do when I travel", "what they do when they travel"),
    ("when we're all together", "when they're all together"),
    ("My commute", "their commute"),
    ('"Me and my shadow"', '"Me and my shadow"'),
    ("Me and Bobby McGee", "Me and Bobby McGee"),
    ("US politics", "US politics"),
])
def test_of(value, theirs):
    assert third_person.of(value) == theirs


def test_another_participants_words_read_as_theirs():
    found = OfflineExtractor().extract(
        [{"id": "m", "role": "user", "subject": "Melanie", "content": "I love painting with my kids."}], [])
    assert [(c.key, c.value, c.content) for c in found] == [
        ("melanie_likes", "painting with their kids", "Melanie likes painting with their kids.")]


def test_the_llm_extractors_values_are_its_own():
    item = {"message": 0, "type": "preference", "key": "likes", "value": "cooking for my husband", "subject": "user",
            "historical": False, "content": "The user likes cooking for my husband.", "confidence": 0.9,
            "quote": "I love cooking for my husband"}
    with OpenAIDouble() as server:
        server.script_chat(json.dumps({"memories": [item]}))
        chat = ChatJSON("test-model", server.base_url, "k", backoff=0.01, timeout=5.0)
        found = LLMExtractor(chat).extract([{"id": "a1", "role": "user", "content": "I love cooking for my husband."}],
                                           history=[])
    assert [(c.value, c.content) for c in found] == [("cooking for my husband", "The user likes cooking for my husband.")]


@pytest.mark.parametrize("before, now", [
    ("cooking for my husband", "cooking for their husband"),
    ("spending time with our grandkids", "spending time with their grandkids"),
    ("the place where I was born", "the place where they were born"),
    ("treating myself", "treating themselves"),
])
def test_a_value_stored_before_and_said_again_now_is_one_value(before, now):
    assert same_value(before, now) and folded_value(before) == folded_value(now)
    candidate = Candidate(type="preference", key="likes", value=now, content=f"The user likes {now}.", confidence=0.7,
                          importance=0.5, source_message_id="m")
    assert decide(candidate, [{"id": "old", "key": "likes", "value": before}]).action == "noop"


def test_other_values_stay_apart():
    assert not same_value("cooking for their husband", "cooking for her husband")
    assert not same_value("walking their dog", "walking the dog")


def test_a_tombstone_written_before_erases_the_value_said_now():
    # written before values were folded by person: the digest of the value as then normalised
    said_before, llm_said = "cooking for my husband", "time with their kids"
    old_digests = {value_digest("t", "u", "likes", "user", v, persons=False) for v in (said_before, llm_said)}
    assert value_digests("t", "u", "likes", "user", "cooking for their husband") & old_digests
    assert value_digests("t", "u", "likes", "user", llm_said) & old_digests
    assert not value_digests("t", "u", "likes", "user", "time with her kids") & old_digests
