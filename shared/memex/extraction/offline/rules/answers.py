"""Rules of how the user wants to be answered: the length of an answer, its language, its emojis."""

from __future__ import annotations

import re

from memex.extraction.offline.patterns import ANSWERS, LANGUAGES, LENGTHS, SHORT
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import Fields, as_said
from memex.literal import caseless


_PLEASE = r"^(?:(?i:actually|also|oh|and|btw|ok|okay)[,:]? )?(?:(?i:please|pls|plz|kindly) )?"
_LENGTH = rf"(?P<value>{LENGTHS})"
_LANGUAGE = rf"(?P<value>{LANGUAGES})"


def _answer_length(m: re.Match[str]) -> list[Fields]:
    return [{"value": "short" if caseless(m.group("value")) in SHORT else "detailed"}]


def _emojis(m: re.Match[str]) -> list[Fields]:
    if m.groupdict().get("yes"):
        return [{"value": "yes", "said": "is fine with emojis in answers"}]
    return [{"value": "no", "said": "wants no emojis in answers"}]


RULES = [
    rule("preference", "preference_answer_length", "keep answers replies responses", [
        rf"{_PLEASE}(?i:keep) (?:your |the |all )?{ANSWERS}(?: to me)? (?:(?:really|very|nice and|super|quite) )?"
        rf"{_LENGTH}(?![\w'-])",
        rf"\bI (?:(?:really|much|generally|usually|would) )*prefer {_LENGTH} {ANSWERS}\b",
        rf"{_PLEASE}{_LENGTH} {ANSWERS} (?:are|would be) (?:(?:totally|perfectly|absolutely|also|actually) )?"
        r"(?:fine|ok|okay|good|great|better|welcome|preferred|best)\b",
    ], "The user wants {value} answers.", _answer_length, confidence=0.75, importance=0.7),
    rule("preference", "preference_answer_language", "answer reply respond write talk speak prefer", [
        rf"{_PLEASE}(?i:answer|reply|respond|write|talk|speak)(?: to me| back)? in {_LANGUAGE}"
        r"(?=\s*(?:[^\w\s'-]|$)|\s+(?:from now on|please|only|always)\b)",
        rf"\bI (?:(?:really|much|generally|usually|would) )*prefer {ANSWERS}(?: to be)? in {_LANGUAGE}",
    ], "The user wants answers in {value}.", as_said, confidence=0.75, importance=0.7),
    rule("preference", "preference_emojis", "emojis emoji", [
        rf"{_PLEASE}(?:(?i:don't|do not|never|stop|quit) (?:use|using|send|sending|put|putting) (?:any )?emojis?"
        rf"|(?i:no) (?:more )?emojis?(?=\s*(?:[^\w\s'-]|$)|,? (?:please|pls|thanks)\b))(?![\w'-])",
        rf"{_PLEASE}(?P<yes>(?i:feel free to|go ahead and|you can|you may)) use emojis?(?![\w'-])",
    ], "The user {said}.", _emojis, confidence=0.75, importance=0.7),
]
