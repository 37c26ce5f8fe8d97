"""The offline extractor on hostile input: its time grows linearly with the message, whatever the
message holds, so that no turn outlives the worker's timeout and fails a batch of other turns.

Times are CPU time of this process (`time.process_time`), so that other work on the machine counts
little, and each bound is a multiple of the time ordinary prose of the same size takes in the same
run: a backtracking or quadratic pattern costs tens of times more, a slower machine or a wider set of
rules costs both alike.
"""

from __future__ import annotations

import functools
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memex.extraction.offline import OfflineExtractor
from memex.extraction.offline.statements import MAX_SENTENCE_CHARS
from memex.jobs import Candidate

# Pieces that trip regular expressions: separators before a tag question, runs of "?", the
# anchors of the rules ("I love", "and I", "my wife"), words that qualify a clause, capitalised
# runs, long words, unicode, zero-width characters, and every kind of sentence end.
FRAGMENTS = [
    ",", ", you", "?", "!", ".", "...", ";", " — ", "\n", " ", "\t", "x", "I ", "I love ", "I love cats and I ",
    "and I ", "I'm ", "I am a ", "I live in ", "Lisbon ", "Bank of ", "St. ", "My wife ", "my dog Rex, ",
    "(my sister) ", "I think ", "if ", "not ", "don't ", "actually ", "Paris, not Lisbon", " and left ",
    "I prefer ", "my favorite ", "I'm allergic to ", "peanuts, ", "I work at Google ", "aaaaaaaaaaaa",
    "Ünïcödé ", "日本語 ", "🚀", "\u200b", "\u200d", "’", "'", "&", "-", "   ",
]
TYPES = {"fact", "preference", "opinion", "event", "relation"}
KEY = re.compile(r"^[a-z][a-z0-9_]*$")


def _extract(content: str, history: tuple[str, ...] = ()) -> list[Candidate]:
    earlier = [{"id": f"h{i}", "role": "user", "name": None, "content": text} for i, text in enumerate(history)]
    return OfflineExtractor().extract([{"id": "m1", "role": "user", "name": None, "content": content}], earlier)


def _cpu_seconds(content: str, history: tuple[str, ...] = ()) -> tuple[float, list[Candidate]]:
    start = time.process_time()
    found = _extract(content, history)
    return time.process_time() - start, found


# Numbered, so that no two sentences are alike: a sentence said again in a message is matched once
# (extractor.py), and prose said over and over would be a faster reference than any real message.
PROSE = ("I work at Stripe{n} as a product manager and live in Dublin. My dog is called Biscuit{n}. "
         "We went hiking near Sintra{n} last May. Honestly the food{n} was great and the people were lovely. ")
# Hostile text may take this many times what ordinary prose of its size takes (measured: 0.02-1.4).
PROSE_MULTIPLE = 3.0


@functools.lru_cache(maxsize=None)
def _prose_seconds(size: int) -> float:
    """CPU seconds the extractor takes over `size` characters of ordinary statements (the least of two runs)."""
    prose = "".join(PROSE.format(n=n) for n in range(size // len(PROSE) + 1))[:size]
    return min(_cpu_seconds(prose)[0] for _ in range(2))


def _assert_well_formed(candidates: list[Candidate], content: str) -> None:
    for c in candidates:
        assert c.type in TYPES, c
        assert KEY.match(c.key), c
        assert c.value and c.value == c.value.strip(), c
        assert c.content.strip(), c
        assert 0 <= c.confidence <= 1 and 0 <= c.importance <= 1, c
        assert c.source_message_id == "m1", c
        assert c.raw_quote and len(c.raw_quote) <= MAX_SENTENCE_CHARS, c
    for quote in {c.raw_quote for c in candidates}:
        assert quote in content, quote


_RUNS = st.lists(
    st.tuples(st.sampled_from(FRAGMENTS), st.integers(min_value=1, max_value=20_000)) | st.tuples(st.text(max_size=40), st.just(1)),
    min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_RUNS)
def test_hostile_messages_extract_fast_and_well_formed(runs):
    # Each run repeats a fragment up to 20,000 times: long runs of "?", "I love cats and I ",
    # ", you" are what made patterns backtrack or rescan quadratically. At most 200 KB a message.
    content = "".join(fragment * count for fragment, count in runs)[:200_000]
    seconds, found = _cpu_seconds(content)
    bound = PROSE_MULTIPLE * _prose_seconds(200_000)
    assert seconds < bound, f"{seconds:.2f}s of CPU for {len(content)} characters (bound {bound:.2f}s)"
    _assert_well_formed(found, content)


def _sentences(unit: str, size: int, end: str = "\n") -> str:
    """`unit` repeated into sentences just under the length the rules read, up to `size` characters."""
    sentence = (unit * (MAX_SENTENCE_CHARS // len(unit) + 1))[:MAX_SENTENCE_CHARS - 10].strip() + end
    return (sentence * (size // len(sentence) + 1))[:size]


def _distinct_words(size: int) -> str:
    return " ".join(f"word{i}" for i in range(size // 6))[:size]


def _distinct_statements(size: int) -> str:
    return " ".join(f"I love cats{i}." for i in range(size // 14))[:size]


def _corrections(size: int) -> str:
    # Every other correction names a value no fact had: looking for it must not rescan every fact.
    return " ".join(f"I live in Paris{i}. I love x{i}. Rome, not {'Oslo' if i % 2 else 'Paris'}{i}."
                    for i in range(size // 45))[:size]


SHAPES = {
    # The two messages of the issue, whole and cut into sentences the rules do read.
    "tag_question": lambda n: (", you" + "?" * 8000 + "x\n") * (n // 8007),
    "tag_question_sentences": lambda n: _sentences(", you" + "?" * 900 + "x", n),
    "love_and_i": lambda n: ("I love cats and I " * (n // 18)),
    "love_and_i_sentences": lambda n: _sentences("I love cats and I ", n),
    "distinct_words": _distinct_words,
    "distinct_statements": _distinct_statements,
    "corrections": _corrections,
    "names_in_a_clause": lambda n: _sentences("my wife Anna, I live in Bank of ", n),
    "qualified_clause": lambda n: _sentences("if I live in Lisbon and left I think ", n),
    "long_word": lambda n: _sentences("I love " + "a" * 900, n),
}
MEGABYTE = 1_000_000


def test_a_megabyte_of_every_hostile_shape_extracts_about_as_fast_as_prose():
    mixed = "\n".join(shape(MEGABYTE // len(SHAPES)) for shape in SHAPES.values())
    bound = PROSE_MULTIPLE * _prose_seconds(MEGABYTE)
    for content in (mixed, _distinct_words(MEGABYTE), _distinct_statements(MEGABYTE), _corrections(MEGABYTE)):
        assert len(content) > 0.95 * MEGABYTE
        seconds, found = _cpu_seconds(content)
        assert seconds < bound, f"{seconds:.2f}s of CPU (bound {bound:.2f}s) for {len(content)} characters " \
                                f"starting {content[:40]!r}"
        _assert_well_formed(found[:100] + found[-100:], content)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_time_grows_linearly_with_the_message(shape):
    small, large = SHAPES[shape](100_000), SHAPES[shape](400_000)
    # The least of three runs: a pause of the machine only ever adds time.
    small_seconds = min(_cpu_seconds(small)[0] for _ in range(3))
    large_seconds = min(_cpu_seconds(large)[0] for _ in range(3))
    # Four times the text: about four times the time; a quadratic pattern would take sixteen.
    assert large_seconds < 8 * max(small_seconds, 0.005), f"{small_seconds:.3f}s then {large_seconds:.3f}s"


def test_a_run_on_sentence_is_not_read_but_the_rest_of_the_message_is():
    run_on = "I live in Lisbon " + "and more " * MAX_SENTENCE_CHARS
    facts = {(c.key, c.value) for c in _extract(f"{run_on}\nI work at Stripe. I live in Porto.")}
    assert facts == {("employer", "Stripe"), ("city", "Porto")}


def test_a_correction_after_thousands_of_facts_corrects_the_right_one():
    facts = " ".join(f"I love cats{i}." for i in range(5000))
    found = _extract(f"I live in Porto. {facts} Lisbon, not Porto.")
    cities = [c for c in found if c.key == "city"]
    assert [(c.value, c.corrects) for c in cities] == [("Lisbon", "Porto")]
    assert len([c for c in found if c.key == "likes"]) == 5000


def test_a_tag_question_after_a_long_run_of_question_marks_keeps_its_statement():
    found = _extract("I live in Lisbon, you" + "?" * 500)
    assert [(c.key, c.value) for c in found] == [("city", "Lisbon")]
