"""The words a rule's pattern requires (extraction/offline/required.py) are required: a sentence the
pattern matches holds them, so the matcher's sieve never skips a pattern that would have matched."""

from __future__ import annotations

import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memex.extraction import plain
from memex.extraction.offline.matching import matches, plainly
from memex.extraction.offline.patterns import WORDS
from memex.extraction.offline.required import required, words
from memex.extraction.offline.rule import own_time
from memex.extraction.offline.rules import ASKED_RULES, RULES
from memex.extraction.offline.statements import statements, typed

_ROOT = Path(__file__).resolve().parent.parent
_FIXTURES = _ROOT / "bench" / "quality"


def _said(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _said(value)]
    if isinstance(node, list):
        return [s for value in node for s in _said(value)]
    return []


def _sentences() -> list[str]:
    """Every sentence of the quality fixtures as the rules read it (statements, and questions for the
    asked rules)."""
    read = set()
    for fixture in sorted(_FIXTURES.glob("*.yaml")):
        for text in _said(yaml.safe_load(fixture.read_text())):
            questions: list[tuple[str, str]] = []
            for sentence, _ in statements(text, questions):
                read |= {typed(plain.plain(sentence)), typed(plain.plain(sentence), dropped_is_user=False)}
            read |= {typed(plain.plain(question), dropped_is_user=False) for question, _ in questions}
    return sorted(read)


@pytest.fixture(scope="module")
def sentences() -> list[str]:
    return _sentences()


def test_a_sentence_a_pattern_matches_holds_the_words_it_requires(sentences):
    patterns = [(pattern, required(pattern)) for rule in [*RULES, *ASKED_RULES]
                for pattern in map(re.compile, rule.patterns)]
    assert sum(1 for _, sets in patterns if sets) > 0.9 * len(patterns)  # nearly every pattern requires words
    # And each sentence with its cases swapped and the letters that a case-blind "i", "s" and "k" match.
    odd = str.maketrans({"i": "\u0131", "I": "\u0130", "s": "\u017f", "k": "\u212a"})
    missing = []
    for sentence in [*sentences, *(s.swapcase().translate(odd) for s in sentences)]:
        held = words(sentence)
        for pattern, sets in patterns:
            if any(needed.isdisjoint(held) for needed in sets) and pattern.search(sentence):
                missing.append((pattern.pattern[:80], sentence))
    assert missing == []


def test_the_sieve_finds_what_scanning_every_cued_pattern_finds(sentences):
    compiled = {source: re.compile(source) for rule in RULES for source in rule.patterns}

    def scanned(sentence: str):
        # How matches() read a sentence before the sieve: every pattern of every rule whose cues it holds.
        said = set(WORDS.findall(sentence.lower()))
        # With the fact's own time its clause says, as matches() files it (rule.own_time).
        found = [(m.start(), rule, {"happened": when, **fields} if (when := own_time(sentence, m)) else fields)
                 for rule in RULES if not rule.cues.isdisjoint(said)
                 for source in rule.patterns for m in compiled[source].finditer(sentence) if plainly(sentence, m)
                 for fields in rule.clean(m)]
        return sorted(found, key=lambda item: item[0])

    for sentence in sentences:
        assert matches(sentence) == scanned(sentence), sentence


def test_a_process_compiles_only_the_patterns_its_sentences_may_match():
    # Compiling the whole table at import cost ~1.1 s of CPU at a process's first extraction (Rule.patterns).
    code = ("import re; compiled = set(); compile = re.compile; "
            "re.compile = lambda source, flags=0: compiled.add(source) or compile(source, flags); "
            "from memex.extraction.offline import OfflineExtractor; "
            "from memex.extraction.offline.rules import ASKED_RULES, RULES; "
            "table = {source for rule in [*RULES, *ASKED_RULES] for source in rule.patterns}; "
            "at_import = len(compiled & table); "
            "found = OfflineExtractor().extract([{'id': 'm1', 'role': 'user', "
            "'content': 'I just started at Notion as a PM.'}], []); "
            "print(at_import, len(compiled & table), sorted((c.key, c.value) for c in found))")
    env = {**os.environ, "PYTHONPATH": str(_ROOT / "shared")}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    at_import, at_the_extraction, found = out.split(" ", 2)
    assert int(at_import) == 0 and 0 < int(at_the_extraction) <= 10  # of ~490
    assert found == "[('employer', 'Notion'), ('role', 'product manager')]\n"


@pytest.mark.parametrize("pattern, sets", [
    # "to" may be the start of "tomorrow": nothing after it says the word ends.
    (r"\bI (?:moved|relocated) to", [{"i"}, {"moved", "relocated"}]),
    (r"\bI (?:moved|relocated) to\b", [{"i"}, {"moved", "relocated"}, {"to"}]),
    # The parser factors "like|love" into l(?:ike|ove): the words are read across it.
    (r"\bI (?:like|love)\b", [{"i"}, {"like", "love"}]),
    (r"\b[Ww]e(?:'ve| have)? moved\b", [{"we"}, {"moved"}]),
    (r"(?<![\w'])(?i:first) day(?![\w'-])", [{"first"}, {"day"}]),
    (r"\bI(?:'m| am) (?:(?:really|so) )+happy\b", [{"i"}, {"m", "am"}, {"really", "so"}, {"happy"}]),
    # Not a whole word: "works", "worked" and "coworker" hold no word "work".
    (r"work(?:s|ed)?\b", []),
    (r"\bwork", []),
    (r"\bI (?:just )?work", [{"i"}]),
    # A negated class refuses no word character: "(?![^\w])" lets "thing" follow.
    (r"\bsome(?![^\w])", []),
    # An alternative that requires nothing makes the choice require nothing.
    (r"\b(?:dog|\w+ly)\b", []),
    (r"(?a:\bcat\b)", []),
])
def test_what_a_pattern_requires(pattern, sets):
    assert sorted(map(sorted, required(re.compile(pattern)))) == sorted(map(sorted, sets))


def test_the_reading_is_the_same_whatever_the_hash_seed():
    # Each alternative holds two words as unlikely as each other: the one kept was the one a set met first.
    code = ("import re; from memex.extraction.offline.required import required; "
            "print(sorted(map(sorted, required(re.compile(r'\\b(?:moved house|\\w+ly went home)\\b')))))")
    env = {**os.environ, "PYTHONPATH": str(_ROOT / "shared")}
    read = {subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONHASHSEED": str(seed)}, check=True,
                           capture_output=True, text=True).stdout for seed in range(8)}
    assert read == {"[['home', 'house']]\n"}


def test_words_fold_as_a_case_blind_ascii_letter_matches():
    letters = re.compile("(?i)[a-z]")
    for code in range(0x80, 0x110000):
        if letters.fullmatch(chr(code)):
            matched = {a for a in string.ascii_lowercase if re.fullmatch(f"(?i){a}", chr(code))}
            assert words(chr(code)) == matched, hex(code)
    assert words("I LİKE ſushi, OK") == {"i", "like", "sushi", "ok"}
