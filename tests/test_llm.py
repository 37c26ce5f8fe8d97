"""The LLM path: JSON over a chat endpoint, the LLM extractor and the LLM judge, through the real
openai client against the loopback double."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time

import pytest

from memex.config import ConfigurationError, Settings, load_settings
from memex.extraction import OfflineOnFirstUse, make_extractor
from memex.extraction.llm import LLMExtractor, quoted, to_candidate
from memex.extraction.offline import OfflineExtractor
from memex.jobs import Candidate
from memex.llm import ChatJSON, LLMError, parse_json, parse_json_all, time_budget
from memex.supersession import Decision, RulesJudge, make_judge
from memex.supersession_llm import LLMJudge
from bench.openai_double import CHAT, OpenAIDouble


@pytest.fixture
def server():
    with OpenAIDouble() as double:
        yield double


def chat_for(server: OpenAIDouble, **options) -> ChatJSON:
    options = {"backoff": 0.01, "timeout": 5.0, **options}
    return ChatJSON("test-model", server.base_url, "k", **options)


# ---- lenient parsing ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('[1, 2]', [1, 2]),
    ('```json\n{"memories": []}\n```', {"memories": []}),
    ('```\n[{"k": "v"}]\n```', [{"k": "v"}]),
    ('Sure! Here is the JSON you asked for:\n{"action": "noop"}\nLet me know if anything else.', {"action": "noop"}),
    ('Here it is [as asked]:\n{"a": 1}', {"a": 1}),
    ('<think>maybe {"a": 0}? no</think>{"a": 2}', {"a": 2}),
    ('{"s": "commas, \\"quotes\\" and [brackets]"}', {"s": 'commas, "quotes" and [brackets]'}),
])
def test_the_parser_finds_the_json(text, expected):
    assert parse_json(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a truncated array keeps its complete items and drops the half-written one
    ('[{"a": 1}, {"b": 2}, {"c": ', [{"a": 1}, {"b": 2}]),
    ('{"memories": [{"key": "city", "value": "Porto"}, {"key": "employer", "val',
     {"memories": [{"key": "city", "value": "Porto"}]}),
    ('```json\n{"memories": [{"k": 1, "v": 2}, {"k": 3, "historical": tr', {"memories": [{"k": 1, "v": 2}]}),
    # a truncated top-level object keeps its complete members
    ('{"action": "supersede", "replaces": ["m1"], "reason": "the user cha',
     {"action": "supersede", "replaces": ["m1"]}),
    ('{"a": [1, 2', {"a": [1]}),
    ('[{"a": 1}, ', [{"a": 1}]),
])
def test_the_parser_recovers_complete_items_of_truncated_json(text, expected):
    assert parse_json(text) == expected


@pytest.mark.parametrize("text", ["", "garbage", "I cannot help with that.", "[", '[{"a": ', '[{"a": 1, "b": 2', "null", "42"])
def test_the_parser_refuses_what_has_no_complete_json(text):
    with pytest.raises(ValueError):
        parse_json(text)


@pytest.mark.parametrize("text, expected", [
    # two fenced blocks: each is read, the second not lost behind the first
    ('```json\n{"memories": [1]}\n```\nand also\n```json\n{"memories": [2]}\n```',
     [{"memories": [1]}, {"memories": [2]}]),
    # a malformed block is skipped, the next one still read
    ('```json\n{"memories": [}\n```\n```json\n{"memories": [2]}\n```', [{"memories": [2]}]),
    ('```json\n{"memories": [{"k": 1}, {"k": ]}\n```\n```json\n{"memories": [2]}\n```',
     [{"memories": [{"k": 1}]}, {"memories": [2]}]),
    # a block of code that is no JSON, then the JSON
    ('```python\nprint(x[0])\n```\n```json\n{"a": 1}\n```', [{"a": 1}]),
    # prose then JSON, unfenced
    ('Found 2 facts:\n{"memories": [3]}', [{"memories": [3]}]),
])
def test_every_fenced_block_is_read_and_a_malformed_one_does_not_hide_the_rest(text, expected):
    """A small model's answer in two fenced blocks: only the first was read, and a malformed first one
    hid a good second one ("no JSON" and a retry)."""
    assert parse_json_all(text) == expected
    assert parse_json(text) == expected[0]


@pytest.mark.parametrize("text, expected", [
    ('There are [2] changes:\n{"action": "noop"}', {"action": "noop"}),
    ('```json\n[1]\n```\n```json\n{"action": "noop"}\n```', {"action": "noop"}),
    ('[{"k": "v"}] and [2]', [{"k": "v"}]),
])
def test_the_first_object_is_the_answer_before_a_bracket_of_prose(text, expected):
    """Every caller asks for an object (an array is a bare list some models answer instead): a
    bracketed number in the prose before it was taken for the answer."""
    assert parse_json(text) == expected


# ---- ChatJSON against the double ---------------------------------------------------------------

def test_a_plain_answer_and_what_is_sent(server):
    server.script_chat('{"ok": true}')
    assert chat_for(server).ask("be terse", "hello") == {"ok": True}
    [request] = server.chat_requests
    assert request["model"] == "test-model"
    assert request["messages"] == [{"role": "system", "content": "be terse"}, {"role": "user", "content": "hello"}]
    assert "response_format" not in request


def test_nothing_scripted_is_a_server_error(server):
    with pytest.raises(LLMError, match="nothing scripted"):
        chat_for(server).ask("s", "u")
    assert len(server.chat_requests) == 3


def test_server_errors_are_retried_then_succeed(server):
    server.script(CHAT, status=500)
    server.script(CHAT, status=503)
    server.script_chat('{"ok": 1}')
    assert chat_for(server).ask("s", "u") == {"ok": 1}
    assert len(server.chat_requests) == 3


def test_backoff_grows_exponentially(server):
    server.script(CHAT, status=500)
    server.script(CHAT, status=500)
    server.script_chat("{}")
    started = time.monotonic()
    chat_for(server, backoff=0.1).ask("s", "u")
    assert time.monotonic() - started >= 0.1 + 0.2


@pytest.mark.parametrize("budget", [None, 10.0])
def test_a_rate_limit_whose_retry_after_is_past_the_time_left_is_not_retried(server, budget):
    """A local server's 429 saying "Retry-After: 30" is not met by two more calls 0.01 s later, each
    refused again: past an attempt's timeout (5 s here), or the job's budget, memex gives up at once,
    and the caller's fallback (the rules judge, the queue's next delivery) comes sooner."""
    for _ in range(3):
        server.script(CHAT, status=429, body={"error": {"message": "queue full"}}, headers={"Retry-After": "30"})
    chat = chat_for(server)
    with time_budget(budget) if budget else contextlib.nullcontext(), pytest.raises(LLMError, match="HTTP 429 queue full"):
        chat.ask("s", "u")
    assert len(server.chat_requests) == 1
    assert chat.outcome.state == "error: RateLimitError"


def test_a_timeout_is_retried(server):
    server.script_chat('{"late": true}', delay=1.5)
    server.script_chat('{"late": false}')
    assert chat_for(server, timeout=0.3).ask("s", "u") == {"late": False}
    assert len(server.chat_requests) == 2


def test_an_unparseable_answer_is_retried(server):
    server.script_chat("I'd rather chat about the weather.", '```json\n{"fixed": true}\n```')
    assert chat_for(server).ask("s", "u") == {"fixed": True}


def test_a_connection_error_is_retried_then_reported():
    with OpenAIDouble() as gone:
        base_url = gone.base_url
    chat = ChatJSON("m", base_url, None, backoff=0.01, timeout=1)
    with pytest.raises(LLMError, match="3 attempts.*APIConnectionError"):
        chat.ask("s", "u")
    # what /health reports: the endpoint's failure, as its probe meets it, not memex's wrapper
    assert chat.outcome.state == "error: APIConnectionError"


def test_an_answer_that_is_never_json_is_the_llms_own_error_to_health(server):
    server.script_chat("prose", "more prose", "still prose")
    chat = chat_for(server)
    with pytest.raises(LLMError):
        chat.ask("s", "u")
    assert chat.outcome.state == "error: LLMError"


def test_three_failures_raise_a_clear_error(server):
    server.script(CHAT, status=500, body={"error": {"message": "model overloaded"}})
    server.script_chat("not json at all")
    server.script_chat("{}", delay=1.0)
    with pytest.raises(LLMError) as caught:
        chat_for(server, timeout=0.3).ask("s", "u")
    message = str(caught.value)
    assert "test-model" in message and "after 3 attempts" in message
    assert "127.0.0.1" not in message and "not json at all" not in message  # no internal URL, no answer
    assert "APITimeoutError" in message
    assert len(server.chat_requests) == 3


def test_a_client_error_is_not_retried(server):
    server.script(CHAT, status=401, body={"error": {"message": "bad key"}})
    with pytest.raises(LLMError, match="HTTP 401 bad key") as caught:
        chat_for(server).ask("s", "u")
    assert len(server.chat_requests) == 1
    assert not caught.value.as_asked  # a key an operator may mend before the next try


def test_a_request_refused_as_asked_says_so(server):
    """A prompt past the model's context (400) is refused on every try: the extraction does not wait
    for the queue's last delivery to let the offline rules read the turn (pipeline._extracted)."""
    server.script(CHAT, status=400, body={"error": {"message": "maximum context length is 4096 tokens"}})
    with pytest.raises(LLMError, match="HTTP 400 maximum context length") as caught:
        chat_for(server).ask("s", "u")
    assert caught.value.as_asked and len(server.chat_requests) == 1


@pytest.mark.parametrize("refusal", ["I'm sorry, I can't help with that.", None])
def test_a_refusal_is_not_asked_again(server, caplog, refusal):
    """A model that declines (`message.refusal`, or a null content its server's filter cut) declines
    alike when asked again: one request, an error that says so (not an unparseable answer), and the
    refusal's words (which may quote the user) in no log."""
    server.script_refusal(refusal)
    with pytest.raises(LLMError, match="refused to answer") as caught:
        chat_for(server).ask("s", "u")
    assert caught.value.as_asked and not caught.value.unavailable and len(server.chat_requests) == 1
    assert "refus" in caplog.text or "content_filter" in caplog.text
    assert "unparseable" not in caplog.text and "can't help" not in caplog.text


def test_an_empty_answer_is_retried_and_named(server):
    server.script_chat("", "", "")
    with pytest.raises(LLMError, match="last: empty answer") as caught:
        chat_for(server).ask("s", "u")
    assert not caught.value.as_asked and len(server.chat_requests) == 3


# ---- the extractor -----------------------------------------------------------------------------

def _msg(id_: str, content: str, role: str = "user", name: str | None = None) -> dict:
    return {"id": id_, "role": role, "name": name, "content": content}


def _memories(*items: dict) -> str:
    return json.dumps({"memories": list(items)})


def _item(**fields) -> dict:
    item = {"message": 0, "type": "fact", "key": "employer", "value": "Notion", "subject": "user",
            "historical": False, "content": "The user's employer is Notion.", "confidence": 0.9,
            "quote": "I work at Notion"}
    item.update(fields)
    return {k: v for k, v in item.items() if v is not ...}


def test_every_memories_list_of_an_answer_is_read(server):
    """A small model that answers `{"memories": []}` and then the real one: the fact was lost (only the
    first JSON object was read). Each object of the shape asked for is read; one of another shape adds
    nothing, and one cut short ends the answer with its complete items kept."""
    messages = [_msg("a1", "I work at Notion and I live in Berlin.")]
    berlin = _item(key="city", value="Berlin", content="The user lives in Berlin.", quote="I live in Berlin")
    server.script_chat('{"memories": []}\n' + _memories(_item()) + '\n{"note": "done"}\n'
                       + '{"memories": [' + json.dumps(berlin) + ', {"key": "cut')
    candidates = LLMExtractor(chat_for(server)).extract(messages, history=[])
    assert {(c.key, c.value) for c in candidates} == {("employer", "Notion"), ("city", "Berlin")}

    server.script_chat('{"note": "nothing"} {"answer": 1}', '{"note": "nothing"} {"answer": 1}',
                       '{"note": "nothing"} {"answer": 1}')
    with pytest.raises(LLMError, match="without a memories list"):
        LLMExtractor(chat_for(server)).extract(messages, history=[])


def test_a_flood_of_facts_for_a_short_turn_is_capped_keeping_the_quoted_ones(server, caplog):
    """A model that answers 100 facts for one short turn stored 100 memories. A turn keeps at most
    max(llm_facts_per_turn, its user characters / llm_chars_per_fact); the ones whose quote is the
    message's own words first (then the most confident), in the order answered; the log says how many,
    never what."""
    messages = [_msg("a1", "I work at Notion and I live in Berlin.")]
    # value-only support first (the quote is not the message's), then quoted ones of falling confidence
    loose = [_item(key=f"place_{i}", value="Berlin", content="The user lives in Berlin.", quote="I reside in Berlin")
             for i in range(40)]
    quoted_ = [_item(key=f"thing_{i}", confidence=0.9 - i / 100) for i in range(60)]
    server.script_chat(_memories(*loose, *quoted_))
    with caplog.at_level("WARNING", logger="memex.extraction.llm"):
        candidates = LLMExtractor(chat_for(server), facts_per_turn=8, chars_per_fact=20).extract(messages, history=[])
    assert [c.key for c in candidates] == [f"thing_{i}" for i in range(8)]
    warning = [r.getMessage() for r in caplog.records if r.name == "memex.extraction.llm" and r.levelname == "WARNING"]
    assert warning == ["kept 8 of 100 extracted facts: a turn of 38 characters keeps at most 8"]
    assert "Berlin" not in caplog.text and "Notion" not in caplog.text

    # a longer turn keeps more: one fact per llm_chars_per_fact of what the user said
    long_message = [_msg("a1", "I work at Notion and I live in Berlin. " * 10)]
    server.script_chat(_memories(*loose, *quoted_))
    candidates = LLMExtractor(chat_for(server), facts_per_turn=8, chars_per_fact=20).extract(long_message, history=[])
    assert len(candidates) == 20 and all(c.key.startswith("thing_") for c in candidates)

    # rounded up in each message: ten short messages of a fact each keep ten
    server.script_chat(_memories(*quoted_))
    short = [_msg(f"a{i}", "I work at Notion") for i in range(10)]
    assert len(LLMExtractor(chat_for(server), facts_per_turn=8, chars_per_fact=20).extract(short, history=[])) == 10


def test_a_list_value_is_one_fact_per_value_where_the_key_holds_several(server):
    """`"value": ["tennis", "golf"]` was dropped whole: one fact each where the key holds several values
    (a hobby, a language), still dropped where it holds one (a city) or the list holds no plain values."""
    messages = [_msg("a1", "I play tennis and golf, I speak Spanish and Basque, and I live in Berlin or Potsdam.")]
    server.script_chat(_memories(
        _item(type="preference", key="hobby", value=["tennis", "golf"], content="The user plays tennis and golf.",
              quote="I play tennis and golf"),
        _item(key="language", value=["Spanish", "Basque"], content="The user speaks Spanish and Basque.",
              quote="I speak Spanish and Basque"),
        _item(key="city", value=["Berlin", "Potsdam"], content="The user lives in Berlin.", quote="I live in Berlin"),
        _item(key="language", value=[{"name": "English"}], content="The user speaks English.", quote="I speak"),
        _item(key="language", value=[], content="The user speaks.", quote="I speak"),
    ))
    candidates = LLMExtractor(chat_for(server)).extract(messages, history=[])
    assert sorted((c.key, c.value) for c in candidates) == [
        ("hobby", "golf"), ("hobby", "tennis"), ("language", "Basque"), ("language", "Spanish")]


def test_the_extractor_keeps_valid_items_and_drops_malformed_ones(server):
    messages = [_msg("a1", "I work at Notion and I'm vegetarian."),
                _msg("a2", "Great, noted!", role="assistant"),
                _msg("a3", "Oh and I used to live in Paris. My sister Anna lives in Berlin.")]
    server.script_chat(_memories(
        _item(),
        _item(message=0, type="preference", key="dietary_restriction", value="vegetarian",
              content="The user is vegetarian.", confidence=1.7, quote="I'm vegetarian"),
        _item(message=2, key="city", value="Paris", historical=True, content="The user used to live in Paris.",
              confidence="0.8", quote="I used to live in Paris"),
        _item(message="2", key="city", value="Berlin", subject="Anna",
              content="Anna, the user's sister, lives in Berlin.", quote="My sister Anna lives in Berlin"),
        # no message number: the quote says where it comes from
        _item(message=..., type="relation", key="sibling_name", value="Anna", content="The user's sister is Anna.",
              quote="my sister Anna"),
        # malformed: each is dropped on its own
        _item(type="belief"),
        _item(key="Employer Name!"),
        _item(value=""),
        _item(content=None),
        _item(confidence="very"),
        _item(message=7),
        _item(message=1, quote="Great, noted!"),
        # invented: neither its quote nor its value is in the message it names
        _item(key="pet_dog_name", value="Rex", content="The user's dog is Rex.", quote="my dog Rex"),
        _item(message=2, key="employer", value="Stripe", quote="I work at Stripe"),
        "just a string",
    ))
    candidates = LLMExtractor(chat_for(server)).extract(messages, history=[])
    by_key = {c.key: c for c in candidates}
    assert set(by_key) == {"employer", "dietary_restriction", "city", "anna_city", "sibling_name"}
    employer = by_key["employer"]
    assert employer == Candidate(type="fact", key="employer", value="Notion", content="The user's employer is Notion.",
                                 confidence=0.9, importance=employer.importance, source_message_id="a1",
                                 raw_quote="I work at Notion", subject="user", historical=False)
    assert 0 < employer.importance <= 1
    assert by_key["dietary_restriction"].confidence == 1.0 and by_key["dietary_restriction"].type == "preference"
    assert by_key["city"].historical and by_key["city"].source_message_id == "a3" and by_key["city"].confidence == 0.8
    # Anna is no participant of the conversation: the user's fact naming her
    assert by_key["anna_city"].subject == "user" and by_key["anna_city"].source_message_id == "a3"
    # no message number: found by its quote
    assert by_key["sibling_name"].source_message_id == "a3" and by_key["sibling_name"].type == "relation"


def test_a_confidence_said_in_words_or_as_a_percentage_keeps_the_fact(server):
    """Small models answer the 0-to-1 field as "high" or "90%": the fact is kept, the confidence read
    as said; one that is no confidence at all ("very", "sure") still drops the item."""
    messages = [_msg("a1", "I work at Notion, I live in Porto, I'm vegetarian and I have a cat.")]
    server.script_chat(_memories(
        _item(confidence="High"),
        _item(key="city", value="Porto", content="The user lives in Porto.", quote="I live in Porto", confidence="90%"),
        _item(type="preference", key="dietary_restriction", value="vegetarian", content="The user is vegetarian.",
              quote="I'm vegetarian", confidence=" low "),
        _item(key="pet_kind", value="cat", content="The user has a cat.", quote="I have a cat", confidence="sure"),
    ))
    found = {c.key: c.confidence for c in LLMExtractor(chat_for(server)).extract(messages, history=[])}
    assert set(found) == {"employer", "city", "dietary_restriction"}
    assert found["city"] == pytest.approx(0.9)
    assert found["dietary_restriction"] < 0.5 < found["employer"] <= 1


@pytest.mark.parametrize("key, kept", [
    ("sister_zoë_city", True),  # a name's letters of any script, as the offline rules spell it (jobs.key_words)
    ("friend_θεοδώρα_city", True),
    ("sister_ana_city", True),
    ("Sister_Zoë_City", True),  # lowercased first
    ("sister_zoë_city!", False),
    ("2nd_sister_city", False),
])
def test_a_key_may_name_someone_in_any_script(key, kept):
    messages = [_msg("a1", "My sister Zoë lives in Porto.")]
    item = _item(key=key, value="Porto", content="The user's sister Zoë lives in Porto.", quote="My sister Zoë lives in Porto")
    candidate = to_candidate(item, messages)
    assert (candidate.key if candidate else None) == (key.lower() if kept else None)


@pytest.mark.parametrize("quote, value, expected", [
    ("my dog is REX", "Rex", "My dog is Rex"),  # as the message has it
    ("ex", "Rex", "My dog is Rex."),  # part of a word is no quote: the value's sentence
    ("The user's dog is Rex.", "Rex", "My dog is Rex."),
    ("My dog Rexford", "Rexford", ""),  # neither quote nor value in the message: no quote
    ("the dog", "2", "I got 2 cats in 2024."),  # whole words: not "2024"'s 2 but the 2 of "2 cats"
])
def test_a_quote_is_the_messages_own_words(quote, value, expected):
    message = "Hi! In 2024 we moved.  I got 2 cats in 2024. My dog is Rex."
    assert quoted(quote, value, message) == expected


def test_no_pattern_holds_the_words_a_quote_was_checked_against(server):
    # A quote (and, when the message does not hold it, the value) was compiled into a pattern to find it in
    # the message, and stayed in re's process-wide cache (keyed by a pattern's text) after its user's
    # erasure until 512 others pushed it out (tests/test_whose.py). re._cache is private: read here because
    # nothing public says what re keeps.
    import re

    messages = [_msg("a1", "I work at Glimmerquay.  My cat is called Thistlewick.")]
    server.script_chat(_memories(
        _item(value="Glimmerquay", content="The user works at Glimmerquay.", quote="i WORK at glimmerquay"),
        _item(key="pet_cat_name", value="Thistlewick", content="The user's cat is Thistlewick.",
              quote="my cat Thistlewick")))
    candidates = LLMExtractor(chat_for(server)).extract(messages, history=[])
    assert [c.raw_quote for c in candidates] == ["I work at Glimmerquay", "My cat is called Thistlewick."]
    cached = [*getattr(re, "_cache", {}), *getattr(re, "_cache2", {})]
    assert cached, "re's cache is read where it no longer is"
    assert [key for key in cached if "glimmerquay" in str(key).casefold() or "thistlewick" in str(key).casefold()] == []


def test_the_extractor_shows_history_and_numbers_the_new_messages(server):
    history = [_msg(f"h{i}", f"filler message {i}") for i in range(12)]
    history += [_msg("h12", "I took my wife Maria to Lisbon last weekend."),
                _msg("h13", "How was the trip?", role="assistant")]
    messages = [_msg("n0", "Lovely, thanks."), _msg("n1", "She loved it, especially the pasteis de nata.")]
    server.script_chat(_memories(_item(message=1, type="opinion", key="maria_opinion_about_lisbon", value="loved it",
                                       subject="Maria", content="The user's wife Maria loved the trip to Lisbon.",
                                       quote="She loved it")))
    [candidate] = LLMExtractor(chat_for(server)).extract(messages, history=history)
    assert candidate.source_message_id == "n1" and candidate.subject == "user"
    assert candidate.key == "maria_opinion_about_lisbon"
    prompt = server.chat_requests[0]["messages"][1]["content"]
    assert "I took my wife Maria to Lisbon last weekend." in prompt
    assert "assistant: How was the trip?" in prompt
    assert "filler message 4" in prompt and "filler message 3" not in prompt  # the last 10 only
    assert "[0] user: Lovely, thanks." in prompt
    assert "[1] user: She loved it" in prompt
    assert prompt.index("EARLIER") < prompt.index("I took my wife") < prompt.index("NEW") < prompt.index("[0] user")


def test_a_participant_who_spoke_earlier_in_the_session_keeps_their_facts(server):
    """A participant is anyone named who speaks in the conversation, in this turn or an earlier one;
    what the user says of them is theirs, and what the model files under anyone else is the user's."""
    history = [{**_msg("h0", "I just moved to Boston."), "name": "Melanie", "subject": "Melanie"},
               {**_msg("h1", "Welcome!"), "name": "Caroline"}]
    messages = [{**_msg("n0", "Melanie starts at Globex on Monday, and my brother Tom lives in Oslo."),
                 "name": "Caroline"},
                {**_msg("n1", "My partner Sam is a nurse."), "name": "Melanie", "subject": "Melanie"}]
    server.script_chat(_memories(
        _item(key="employer", value="Globex", subject="melanie", content="Melanie's employer is Globex.",
              quote="Melanie starts at Globex"),
        _item(key="brother_tom_city", value="Oslo", subject="Tom", content="The user's brother Tom lives in Oslo.",
              quote="my brother Tom lives in Oslo"),
        _item(message=0, key="city", value="Bergen", subject="Caroline", content="The user lives in Bergen.",
              quote="Melanie starts at Globex"),
        _item(message=1, key="role", value="nurse", subject="Sam", content="Melanie's partner Sam is a nurse.",
              quote="My partner Sam is a nurse.")))
    found = {(c.subject, c.key, c.importance <= 0.6) for c in LLMExtractor(chat_for(server)).extract(messages, history)}
    # the user by their name; Melanie's partner in a fact of Melanie's naming him
    assert found == {("Melanie", "melanie_employer", True), ("user", "brother_tom_city", True),
                     ("user", "city", False), ("Melanie", "melanie_sam_role", True)}


def test_the_models_own_words_for_a_key_are_the_familys_key(server):
    """A small model files "I moved to Rome" as current_city (or location, lives_in), the city "I live in
    Paris" was filed under: both stayed current. An alias is its family's key, after a person's prefix
    too, and a participant's name folded into the key makes the fact theirs; a key of no alias is kept."""
    history = [{**_msg("h0", "I just moved to Boston."), "name": "Melanie", "subject": "Melanie"}]
    messages = [_msg("n0", "I moved to Rome, I'm a nurse at Gemelli, my sister Anna lives in Oslo, "
                           "Melanie teaches now, my dog Rex is a beagle and my favourite band is Muse.")]
    server.script_chat(_memories(
        _item(key="current_city", value="Rome", content="The user lives in Rome.", quote="I moved to Rome"),
        _item(key="Job Title", value="nurse", content="The user is a nurse.", quote="I'm a nurse"),
        _item(key="workplace", value="Gemelli", content="The user works at Gemelli.", quote="a nurse at Gemelli"),
        _item(key="sister_anna_location", value="Oslo", content="The user's sister Anna lives in Oslo.",
              quote="my sister Anna lives in Oslo"),
        _item(key="melanie_occupation", value="teacher", content="Melanie is a teacher.", quote="Melanie teaches now"),
        _item(key="dog_name", value="Rex", content="The user's dog is Rex.", quote="my dog Rex"),
        _item(key="favourite_band", value="Muse", content="The user's favourite band is Muse.",
              quote="my favourite band is Muse"),
        _item(key="favorite_location", value="Rome", content="The user loves Rome.", quote="I moved to Rome")))
    found = {(c.subject, c.key, c.value) for c in LLMExtractor(chat_for(server)).extract(messages, history)}
    assert found == {("user", "city", "Rome"), ("user", "role", "nurse"), ("user", "employer", "Gemelli"),
                     ("user", "sister_anna_city", "Oslo"), ("Melanie", "melanie_role", "teacher"),
                     ("user", "pet_dog_name", "Rex"), ("user", "favorite_band", "Muse"),
                     ("user", "favorite_location", "Rome")}


def test_every_word_for_the_partner_or_a_parent_files_one_persons_key(server):
    """"My wife" in one session and "my partner" in another are one person: a model that files a fact
    under the word the user said (wife_employer, mom_location) files it under that person's key
    (partner_employer, mother_city), which the next fact of them replaces; a son and a daughter stay two."""
    messages = [_msg("n0", "My wife works at Google, my husband Sam lives in Oslo, my mum lives in Leeds, "
                           "my dad is a plumber and my son Leo is 7.")]
    server.script_chat(_memories(
        _item(key="wife_employer", value="Google", content="The user's wife works at Google.",
              quote="My wife works at Google"),
        _item(key="husband_sam_location", value="Oslo", content="The user's husband Sam lives in Oslo.",
              quote="my husband Sam lives in Oslo"),
        _item(key="mum_location", value="Leeds", content="The user's mum lives in Leeds.", quote="my mum lives in Leeds"),
        _item(key="dad_job", value="plumber", content="The user's dad is a plumber.", quote="my dad is a plumber"),
        _item(key="son_leo_age", value="7", content="The user's son Leo is 7.", quote="my son Leo is 7")))
    found = {(c.key, c.value) for c in LLMExtractor(chat_for(server)).extract(messages, [])}
    assert found == {("partner_employer", "Google"), ("partner_sam_city", "Oslo"), ("mother_city", "Leeds"),
                     ("father_role", "plumber"), ("son_leo_age", "7")}


@pytest.mark.parametrize("said", ["location", "home_city", "lives_in", "current_city", "Current City"])
def test_a_move_filed_under_another_word_for_the_city_replaces_the_city(server, said):
    """city=Paris, then current_city=Rome: the judge saw two keys and the rules kept both current."""
    paris = to_candidate(_item(key="city", value="Paris", content="The user lives in Paris.",
                               quote="I live in Paris"), [_msg("a1", "I live in Paris.")])
    rome = to_candidate(_item(key=said, value="Rome", content="The user lives in Rome.", quote="I moved to Rome"),
                        [_msg("a2", "I moved to Rome.")])
    assert rome.key == paris.key == "city"
    current = [{"id": "m1", "key": "city", "value": "Paris", "content": paris.content, "active": True,
                "type": "fact", "memory_type": "semantic", "subject": "user", "valid_from": None}]
    assert RulesJudge().decide(rome, current).action == "supersede"


def test_noise_yields_nothing(server):
    server.script_chat('{"memories": []}')
    assert LLMExtractor(chat_for(server)).extract([_msg("x", "lol thanks")], []) == []
    assert len(server.chat_requests) == 1


def test_no_user_message_means_no_call(server):
    extractor = LLMExtractor(chat_for(server))
    assert extractor.extract([_msg("x", "Here is your summary.", role="assistant"), _msg("y", "  ")], []) == []
    assert server.chat_requests == []


def test_a_bare_list_and_a_truncated_answer_are_accepted(server):
    messages = [_msg("a1", "I live in Porto and work at Notion")]
    server.script_chat(json.dumps([_item(key="city", value="Porto", content="The user lives in Porto.")]))
    server.script_chat(_memories(_item(key="city", value="Porto", content="The user lives in Porto."), _item())[:-40])
    extractor = LLMExtractor(chat_for(server))
    assert [c.value for c in extractor.extract(messages, [])] == ["Porto"]
    assert [c.value for c in extractor.extract(messages, [])] == ["Porto"]


def test_the_extractor_surfaces_an_llm_that_never_answers(server):
    with pytest.raises(LLMError):
        LLMExtractor(chat_for(server)).extract([_msg("a", "I work at Notion")], [])


def test_an_answer_of_another_shape_is_no_answer_not_nothing_to_remember(server):
    # {"memories": "none"} used to be read as nothing said: the turn processed with no facts, silently.
    messages = [_msg("a", "I work at Notion")]
    server.script_chat('{"memories": "none"}', '{"action": 7}', '{"memories": []}')
    extractor = LLMExtractor(chat_for(server))
    for _ in range(2):
        with pytest.raises(LLMError, match="without a memories list"):
            extractor.extract(messages, [])
    assert extractor.extract(messages, []) == []  # an empty list is the model's "nothing"


@pytest.mark.parametrize("answer", [
    _memories(_item(message=7)),  # no such message
    _memories({"key": 5, "value": None}),
    _memories(_item(quote="I live in Rome", value="Rome", key="city")),  # invented: not in the message
])
def test_an_answer_every_item_of_which_is_dropped_is_no_answer(server, caplog, answer):
    """Every item malformed used to be read as nothing to remember: the turn processed with none of its
    facts and an INFO line. It is no answer, as one without a memories list is, and says so at WARNING
    (counts only); an empty list stays the model's "nothing"."""
    messages = [_msg("a", "I work at Notion")]
    server.script_chat(answer, _memories())
    extractor = LLMExtractor(chat_for(server))
    with caplog.at_level("WARNING", logger="memex.extraction.llm"), \
            pytest.raises(LLMError, match="none of whose 1 items is usable"):
        extractor.extract(messages, [])
    assert "dropped all 1 extraction items" in caplog.text and "Notion" not in caplog.text
    assert extractor.extract(messages, []) == []


def test_the_factories_choose_by_configuration(server):
    offline = Settings()
    configured = Settings(llm_base_url=server.base_url, llm_model="test-model", llm_api_key="k")
    rules = make_extractor(offline)
    assert isinstance(rules, OfflineOnFirstUse) and rules.name == OfflineExtractor.name
    message = [_msg("a", "I work at Notion")]
    assert rules.extract(message, []) == OfflineExtractor().extract(message, [])
    assert isinstance(make_judge(offline), RulesJudge)
    extractor, judge = make_extractor(configured), make_judge(configured)
    assert isinstance(extractor, LLMExtractor) and extractor.name == "llm:test-model"
    assert isinstance(judge, LLMJudge) and judge.name == "llm:test-model"


def test_an_endpoint_without_a_model_stops_the_configuration_rather_than_the_llm_silently(server, monkeypatch):
    # The LLM counts as configured only with a model: an endpoint alone used to leave the offline
    # rules extracting, said nowhere but in /health.
    monkeypatch.setenv("MEMEX_LLM_BASE_URL", server.base_url)
    monkeypatch.delenv("MEMEX_LLM_MODEL", raising=False)
    with pytest.raises(ConfigurationError, match="MEMEX_LLM_MODEL: required with MEMEX_LLM_BASE_URL"):
        load_settings()
    monkeypatch.setenv("MEMEX_LLM_MODEL", "test-model")
    assert load_settings().llm_configured


# ---- the judge ---------------------------------------------------------------------------------

def _candidate(key="employer", value="Notion", historical=False) -> Candidate:
    return Candidate("fact", key, value, f"The user's {key} is {value}.", 0.9, 0.8, "m-1", historical=historical)


def _memory(id_: str, key: str, value: str) -> dict:
    return {"id": id_, "key": key, "value": value, "content": f"The user's {key} is {value}.",
            "type": "fact", "valid_from": "2026-01-01T00:00:00Z", "active": True}


def test_the_judge_maps_short_ids_to_the_memories_it_was_shown(server):
    related = [_memory("uuid-stripe", "employer", "Stripe"), _memory("uuid-city", "city", "Dublin")]
    server.script_chat('{"action": "supersede", "replaces": ["m1"], "reason": "new job"}')
    decision = LLMJudge(chat_for(server)).decide(_candidate(), related)
    assert decision.action == "supersede" and decision.reason == "LLM judge: supersede"
    assert decision.replaces == [related[0]]
    [prompt] = server.chat_prompts()
    assert '"id": "m1"' in prompt and '"id": "m2"' in prompt and "Stripe" in prompt and "Notion" in prompt
    assert "uuid-stripe" not in prompt


def test_the_judge_drops_unknown_ids(server):
    related = [_memory("uuid-stripe", "employer", "Stripe"), _memory("uuid-acme", "employer", "Acme")]
    server.script_chat('{"action": "supersede", "replaces": ["m9", "uuid-acme", "M2", 1], "reason": "r"}')
    decision = LLMJudge(chat_for(server)).decide(_candidate(), related)
    assert [m["id"] for m in decision.replaces] == ["uuid-acme", "uuid-stripe"]


@pytest.mark.parametrize("replaces", ['["m7"]', '["3f1c2a9e-0000-4000-8000-000000000000"]', "[]", "null"])
def test_a_supersede_naming_nothing_it_was_shown_is_left_to_the_rules(server, replaces):
    """A small model's supersede naming an id it was not shown (or none) is no answer: the rules judge
    decides (a new employer replaces the old), where "coexist" left the user two current employers."""
    server.script_chat('{"action": "supersede", "replaces": %s, "reason": "r"}' % replaces)
    stripe = _memory("x", "employer", "Stripe")
    decision = LLMJudge(chat_for(server)).decide(_candidate(), [stripe])
    assert decision.action == "supersede" and decision.replaces == [stripe]
    assert decision.reason.startswith("rules fallback, LLM judge answer unusable")


def test_only_supersede_replaces_and_the_past_replaces_nothing(server):
    related = [_memory("x", "employer", "Stripe")]
    server.script_chat('{"action": "noop", "replaces": ["m1"], "reason": "same"}',
                       '{"action": "supersede", "replaces": ["m1"], "reason": "r"}')
    judge = LLMJudge(chat_for(server))
    assert judge.decide(_candidate(), related) == Decision("noop", "LLM judge: noop", [])
    decision = judge.decide(_candidate(value="Acme", historical=True), related)
    assert decision.action == "keep_old" and decision.replaces == []


def test_the_past_naming_the_current_value_ends_it_without_asking(server):
    """"I quit Stripe" (an extractor's historical employer=Stripe) while Stripe is current: the rule
    ends it; a model would call it a duplicate or keep the current value."""
    related = [_memory("uuid-stripe", "employer", "Stripe"), _memory("uuid-city", "city", "Stripe")]
    decision = LLMJudge(chat_for(server)).decide(_candidate(value="stripe", historical=True), related)
    assert (decision.action, decision.replaces) == ("end", related[:1])
    assert server.chat_requests == []


def test_the_past_naming_a_car_by_its_make_ends_it_by_rule_and_a_role_by_its_first_words_is_asked(server):
    """"I sold the Skoda" while the car is the "Skoda Octavia" ends it by rule; "I used to be a nurse" while
    the role is "nurse practitioner" names another role: the model decides (the rule ended it, review revW)."""
    octavia = [_memory("uuid-car", "car", "Skoda Octavia")]
    decision = LLMJudge(chat_for(server)).decide(_candidate("car", "Skoda", historical=True), octavia)
    assert (decision.action, decision.replaces) == ("end", octavia) and server.chat_requests == []
    server.script_chat('{"action": "keep_old", "replaces": [], "reason": "an earlier role"}')
    decision = LLMJudge(chat_for(server)).decide(_candidate("role", "nurse", historical=True),
                                                 [_memory("uuid-role", "role", "nurse practitioner")])
    assert (decision.action, decision.replaces) == ("keep_old", []) and len(server.chat_requests) == 1


def test_a_name_left_alone_ends_only_the_current_value_it_names_without_asking(server):
    """"I left Feedzai." (employer, ends_only) ends Feedzai; "I left Tom." while Feedzai is current
    files nothing: both by rule, the model never asked."""
    related = [_memory("uuid-feedzai", "employer", "Feedzai")]
    left = dataclasses.replace(_candidate(value="Feedzai", historical=True), ends_only=True)
    judge = LLMJudge(chat_for(server))
    assert (judge.decide(left, related).action, judge.decide(left, related).replaces) == ("end", related)
    for elsewhere in (related, []):
        assert judge.decide(dataclasses.replace(left, value="Tom"), elsewhere).action == "noop"
    assert server.chat_requests == []


def test_a_switch_between_two_names_replaces_only_the_current_value_it_follows_without_asking(server):
    """"I switched from Adobe to Figma" (Figma, only_replacing Adobe) replaces Adobe when it is the
    employer and files nothing otherwise: by rule, the model never asked."""
    related = [_memory("uuid-adobe", "employer", "Adobe")]
    figma = dataclasses.replace(_candidate(value="Figma"), only_replacing="Adobe")
    judge = LLMJudge(chat_for(server))
    decision = judge.decide(figma, related)
    assert (decision.action, decision.replaces) == ("supersede", related)
    for elsewhere in ([_memory("uuid-acme", "employer", "Acme")], []):
        assert judge.decide(figma, elsewhere).action == "noop"
    assert server.chat_requests == []


def test_an_llm_failure_falls_back_to_the_rules(server):
    related = [_memory("uuid-stripe", "employer", "Stripe")]
    decision = LLMJudge(chat_for(server)).decide(_candidate(), related)  # nothing scripted: 500 three times
    assert len(server.chat_requests) == 3
    assert decision.action == "supersede" and decision.replaces == related
    assert decision.reason.startswith("rules fallback") and "nothing scripted" in decision.reason


def test_an_unusable_verdict_falls_back_to_the_rules(server):
    server.script_chat('{"verdict": "replace it"}')
    decision = LLMJudge(chat_for(server)).decide(_candidate(value="stripe"), [_memory("s", "employer", "Stripe")])
    assert decision.action == "noop" and decision.reason.startswith("rules fallback")


def test_an_unusable_verdict_is_not_quoted_in_the_reason_clients_read(server):
    """The reason (a memory's `metadata.reason`) held up to 200 characters of the unusable answer, which
    may quote the user: it is a fixed description."""
    server.script_chat(json.dumps({"action": "ponder", "reason": "the user said Qz7 secret words"}))
    decision = LLMJudge(chat_for(server)).decide(_candidate(), [_memory("s", "employer", "Stripe")])
    rules = RulesJudge().decide(_candidate(), [_memory("s", "employer", "Stripe")])
    assert decision.reason == f"rules fallback, LLM judge answer unusable: {rules.reason}"
    assert "Qz7" not in decision.reason and "ponder" not in decision.reason


def test_nothing_related_means_no_call(server):
    decision = LLMJudge(chat_for(server)).decide(_candidate(), [])
    assert decision.action == "coexist" and decision.replaces == []
    past = LLMJudge(chat_for(server)).decide(_candidate(value="Google", historical=True), [])
    assert past.action == "keep_old" and past.replaces == []  # the past is never current
    assert server.chat_requests == []


def test_a_jobs_time_budget_bounds_every_call_and_the_judge_falls_back_within_it(server):
    """A slow LLM cannot keep a worker past its function timeout: the calls of one job share a
    budget, and once it is spent the judge decides with the rules."""
    for _ in range(3):
        server.script_chat('{"action": "noop"}', delay=3.0)
    judge = LLMJudge(chat_for(server, timeout=10.0))
    related = [{"id": "a", "key": "employer", "value": "Stripe", "content": "The user's employer is Stripe.",
                "type": "fact", "valid_from": "2026-01-01T00:00:00Z"}]
    with time_budget(0.5):
        decision = judge.decide(_candidate("employer", "Notion"), related)
    assert len(server.chat_requests) == 1  # cut at the budget, not retried three times
    assert decision.action == "supersede" and decision.reason.startswith("rules fallback")
    with time_budget(0.0), pytest.raises(LLMError, match="time budget"):
        chat_for(server).ask("s", "u")


def test_endings_and_relations_are_carried_as_the_offline_rules_carry_them(server):
    """`ends_only` rides only with `historical` ("I'm no longer with Sam."), and a fact the model files
    under a person the same answer names as the user's partner is keyed as the partner's
    (partner_sam_role), which ends with the partnership; a former partner names no relation."""
    messages = [_msg("a1", "I'm no longer with Sam. I work at Acme. My boyfriend Leo is a chef at Noma, "
                           "and my ex Max is a pilot.")]
    server.script_chat(_memories(
        _item(type="relation", key="partner_name", value="Sam", historical=True, ends_only=True,
              content="The user's former partner is Sam.", quote="I'm no longer with Sam."),
        _item(key="employer", value="Acme", ends_only=True, content="The user's employer is Acme."),
        _item(type="relation", key="partner_name", value="Leo", content="The user's partner is named Leo."),
        _item(key="role", value="chef", subject="Leo", content="The user's boyfriend Leo is a chef."),
        _item(key="leo_employer", value="Noma", subject="Leo", content="The user's boyfriend Leo works at Noma."),
        _item(type="relation", key="partner_name", value="Max", historical=True, content="The user's ex is Max."),
        _item(key="role", value="pilot", subject="Max", content="The user's ex Max is a pilot.")))
    found = {(c.key, c.value): c for c in LLMExtractor(chat_for(server)).extract(messages, history=[])}
    assert found["partner_name", "Sam"].ends_only and found["partner_name", "Sam"].historical
    assert not found["employer", "Acme"].ends_only  # nothing ended: no ending to carry
    assert {"partner_leo_role", "partner_leo_employer", "max_role"} <= {key for key, _ in found}
    assert found["partner_leo_role", "chef"].subject == "user"


@pytest.mark.parametrize("type_, value, read", [
    ("fact", "not vegan", ("vegan", True, True)),  # the denial the prompt asks for, as the offline rules file it
    ("fact", "no longer a vegetarian", ("vegetarian", True, True)),
    ("fact", "vegan", ("vegan", False, False)),
    ("opinion", "not worth it", ("not worth it", False, False)),  # an opinion said with "not" is that opinion
    # a status of one word only: a title, and what a phrase says, are kept as the model filed them
    ("fact", "No Longer at Ease", ("No Longer at Ease", False, False)),
    ("fact", "no longer drinks alcohol", ("no longer drinks alcohol", False, False)),
])
@pytest.mark.parametrize("historical", [False, True])  # "not vegan" answered as history is the same denial
def test_a_fact_answered_with_not_is_the_denial_of_its_value(type_, value, read, historical):
    said = "I'm not vegan."
    candidate = to_candidate(_item(type=type_, key="dietary_restriction", value=value, quote=said,
                                   content="The user is not vegan.", historical=historical), [_msg("a1", said)])
    expected = read if not historical or read[1] else (read[0], True, False)
    assert (candidate.value, candidate.historical, candidate.ends_only) == expected
