"""A question or a fact about "the user" in the user's own voice, as the vector channel reads both.

Agents ask about the person memex serves as "the user" ("Is the user a runner?"), and memex files
that person's facts the same way ("The user's employer is Notion."). To a sentence embedder the
shared phrase is most of what two short sentences have in common: all-MiniLM-L6-v2 puts "Is the
user a runner?" at cosine 0.35 from "The user's employer is Notion." and 0.28 from "Ran 10k before
work", so every fact looks related, the floor's gate opens for anything, and the unrelated facts
outrank the line that answers. Asked as the user says things ("Am I a runner?"), the unrelated
facts fall to 0.05 and the line keeps 0.29: the user's messages are in the first person.

`of` rewrites a sentence's references to the user (and the verb they govern) into the first
person. The search embeds a question so for its vector channel, and fuses the question as asked
beside it (it finds facts embedded before they were in the user's voice); the user's facts are
embedded so too ("The user's employer is Notion." as "My employer is Notion.", embedded_text.py),
so that neither side carries the phrase every fact shared.
"""

from __future__ import annotations

import re

# "<auxiliary> the user": the auxiliary agrees with "I".
_AUXILIARY = {"does": "do", "is": "am", "has": "have", "was": "was", "did": "did", "can": "can", "will": "will",
              "would": "would", "should": "should", "could": "could", "might": "might", "must": "must"}
_ASKED = re.compile(r"\b(" + "|".join(_AUXILIARY) + r")\s+(?:the|this)\s+user\b(?!['’])", re.IGNORECASE)
# "the user <verb>s" as a subject: the verb as "I" says it ("the user dislikes" -> "I dislike").
_SAYS = re.compile(r"\b(?:the|this)\s+user\s+([a-z]+)\b", re.IGNORECASE)
_IRREGULAR = {"is": "am", "has": "have", "does": "do", "was": "was", "goes": "go"}
_NOT_VERBS = frozenset({"always", "sometimes", "perhaps", "nowadays"})  # adverbs, not verbs
_POSSESSIVE = re.compile(r"\b(?:the|this)\s+user['’]s\b", re.IGNORECASE)
# After a verb ("employs the user", "tell the user") or a preposition, the user is "me".
_OBJECT = re.compile(r"\b(to|for|with|about|of|from|by|at|give|tell|remind|help|[a-z]+[^s\W]s)\s+(?:the|this)\s+user\b"
                     r"(?!['’])", re.IGNORECASE)
_SUBJECT = re.compile(r"\b(?:the|this)\s+user\b(?!['’])", re.IGNORECASE)


def of(question: str) -> str | None:
    """`question` (or a statement) in the first person, or None when it does not refer to the user that way."""
    if not _SUBJECT.search(question) and not _POSSESSIVE.search(question):
        return None
    text = _ASKED.sub(lambda m: _same_case(m.group(1), _AUXILIARY[m.group(1).lower()]) + " I", question)
    text = _POSSESSIVE.sub(lambda m: _same_case(m.group(0), "my"), text)
    text = _OBJECT.sub(lambda m: m.group(1) + " me", text)
    text = _SAYS.sub(lambda m: "I " + _as_i_say_it(m.group(1)), text)
    return _SUBJECT.sub("I", text)


def _as_i_say_it(verb: str) -> str:
    """A verb after "the user" as it goes after "I": "lives" -> "live", "studies" -> "study"."""
    lower = verb.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower in _NOT_VERBS or not lower.endswith("s") or lower.endswith("ss"):
        return verb
    if lower.endswith("ies"):
        return verb[:-3] + "y"
    if lower.endswith(("ches", "shes", "xes", "zes", "sses")):
        return verb[:-2]
    return verb[:-1]


def _same_case(original: str, word: str) -> str:
    return word.capitalize() if original[:1].isupper() else word
