"""A question or a fact about "the user" in the user's own voice, as the vector channel reads both.

Agents ask about the person memex serves as "the user" ("Is the user a runner?"), and memex files
that person's facts the same way ("The user's employer is Notion."). To a sentence embedder the
shared phrase is most of what two short sentences have in common: all-MiniLM-L6-v2 puts "Is the
user a runner?" at cosine 0.35 from "The user's employer is Notion." and 0.28 from "Ran 10k before
work", so every fact looks related, the floor's gate opens for anything, and the unrelated facts
outrank the line that answers. Asked as the user says things ("Am I a runner?"), the unrelated
facts fall to 0.05 and the line keeps 0.29: the user's messages are in the first person.

`of` rewrites a sentence's references to the user (and the verb they govern) into the first
person. The search embeds a question so for its vector channel (`asked`), and fuses the question
as asked beside it (it finds facts embedded before they were in the user's voice); the user's
facts are embedded so too ("The user's employer is Notion." as "My employer is Notion.",
embedded_text.py), so that neither side carries the phrase every fact shared.

A question that says "I" beside "the user" has two people in it, the agent asking and the user:
"what should I cook when the user comes over?" voiced as "what should I cook when I come over?"
makes them one. The user says "you" to the agent, so `asked` turns the asker's "I" into "you"
first ("what should you cook when I come over?"), as the user would ask it. A fact is asked by
no one: a first person in it quotes the user ("The user calls Biscuit 'my little monster'."),
and `of` leaves it as it is.
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
# After any other word and before no verb ("call the user?", "book the user a seat", "buy the user
# for her birthday"), the user is "me" too: what an asker does to the user.
_OPENS_CLAUSE = frozenset({"when", "where", "what", "who", "whom", "which", "why", "how", "if", "because", "that",
                           "and", "but", "or", "while", "since", "until", "before", "after", "whether", "as", "so",
                           "once", "than", "unless", "though", "although", "whenever", "then"})
_BEFORE_NO_VERB = re.compile(r"\b([a-z]+)\s+(?:the|this)\s+user\b(?!['’])(?=\s*(?:[^\w\s]|$|(?:a|an|the|this|that|"
                             r"some|any|every|next|her|his|their|in|on|at|to|for|about|with|from|by|of|into|after|"
                             r"before|during|tomorrow|today|tonight|now|again|back|up|and|or|but|if|when)\b))",
                             re.IGNORECASE)
_SUBJECT = re.compile(r"\b(?:the|this)\s+user\b(?!['’])", re.IGNORECASE)
# The asker's own first person, as the user would say it to the asker: longest forms first.
_ASKER_WORDS = {"i am": "you are", "am i": "are you", "i was": "you were", "was i": "were you",
                "i'm": "you're", "i’m": "you’re", "i": "you", "me": "you", "my": "your", "mine": "yours",
                "myself": "yourself"}
_ASKER = re.compile(r"\b(" + "|".join(sorted((re.escape(w) for w in _ASKER_WORDS), key=len, reverse=True))
                    + r")\b", re.IGNORECASE)


def of(question: str) -> str | None:
    """`question` (or a statement) in the first person, or None when it does not refer to the user that way."""
    if not _SUBJECT.search(question) and not _POSSESSIVE.search(question):
        return None
    text = _ASKED.sub(lambda m: _same_case(m.group(1), _AUXILIARY[m.group(1).lower()]) + " I", question)
    text = _POSSESSIVE.sub(lambda m: _same_case(m.group(0), "my"), text)
    text = _OBJECT.sub(lambda m: m.group(1) + " me", text)
    text = _BEFORE_NO_VERB.sub(lambda m: m.group(0) if m.group(1).lower() in _OPENS_CLAUSE else m.group(1) + " me",
                               text)
    text = _SAYS.sub(lambda m: "I " + _as_i_say_it(m.group(1)), text)
    return _SUBJECT.sub("I", text)


def asked(question: str) -> str | None:
    """`question`, asked of the agent about the user, as the user would ask it (None as `of`)."""
    return of(_ASKER.sub(_asker_as_you, question))


def _asker_as_you(match: re.Match) -> str:
    """The asker's "I" as the user says it to them; "I" is upper case anywhere, "you" only first."""
    word = _ASKER_WORDS[match.group(1).lower()]
    first = not match.string[:match.start()].rstrip() or match.string[:match.start()].rstrip()[-1] in ".!?"
    return word.capitalize() if first else word


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
