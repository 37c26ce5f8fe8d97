"""News: the lines in which someone tells what they did, and the questions that ask for a list of it.

"What activities has Melanie done?", "How many tournaments has Nate won?", "What events has John
taken part in?": the answer is a list of things done, and each item was said once, as news, in its
own conversation: "I just signed up for a pottery class yesterday", "Last weekend I joined a
mentorship program", "I won a really big video game tournament last week". Such a line seldom says
the list's word ("activities", "events") and is one of several topics of its session, so it ranks
below lines of the session that holds the question's words. What it does say is how news is told:
the speaker, in the first person, with a verb in the past ("I went", "we got", "I've started") or a
recent time ("yesterday", "last week", "the other day").

The learned order weighs it (learned.py's "news": the named speaker's message that `tells` news, for
a question that `asks_list`). Measured on LoCoMo-dev's multi-hop questions (docs/measurements/
locomo.md, eighth stop): among the evidence the learned order left at ranks 11-50, 0.41 of the lines
tell news by the verb and 0.39 by the time, against 0.13 and 0.14 of the other candidates there.
For every question, not only a list's, the named speaker's news lifts the wrong speaker's lines for
the adversarial questions, which name the one who did *not* do the thing (ninth stop).
"""

from __future__ import annotations

import re

from memex.time_phrases import WEEKDAYS

# A verb in the past: a regular one ("joined", "tried"), or one of the irregular ones news is told
# with. Opinions ("thought", "felt") are left out: they say how, not what happened.
_IRREGULAR = ("went|got|won|made|took|saw|read|did|began|found|bought|wrote|ran|met|had|heard|left|gave|came|"
              "built|caught|brought|drew|sang|swam|flew|rode|lost|spent|sent|sold|taught|became|beat|ate|threw|"
              "wore|chose|grew|fell|drove|led")
# "-ed" words that are no past ("I need", "I feed")
_NOT_PAST = r"(?!(?:need|feed|seed|proceed|exceed|succeed|bleed|breed|speed|shed|embed)\b)"
_PAST = rf"(?:{_NOT_PAST}[a-z]+ed|{_IRREGULAR})"
# The speaker as subject ("I", "we", "my son and I"), the adverbs news is told with between it and
# its verb, or none at all where a line starts with one ("Just started doing aerial yoga").
_FIRST_PERSON = re.compile(
    rf"\b(?:I|we)(?:'ve| have|'d| had)?(?: (?:just|also|finally|recently|actually|even|already|"
    rf"totally|really))* {_PAST}\b"
    rf"|(?:^|[.!?]\s+)(?:just|finally|recently) {_PAST}\b",
    re.IGNORECASE)
_RECENTLY = re.compile(
    rf"\b(?:yesterday|last (?:week|weekend|night|month|year|{'|'.join(WEEKDAYS)}|summer|winter|spring|fall)|"
    r"the other day|earlier (?:this|today)|this (?:morning|past week)|"
    r"a (?:few|couple of) (?:days|weeks) ago|recently|lately)\b",
    re.IGNORECASE)
# A question that asks for a list or a count: a plural before its verb ("What books has", "Which
# LGBTQ+ events did"), "what kinds of", "how many", "what are", or the perfect, which asks what was
# done over time ("What has Melanie painted?", "Where has she camped?").
_LIST = re.compile(r"^\s*(?:what|which)\b(?:\s+[\w+/'-]+){0,4}?\s+[\w+/-]+s\s+(?:has|have|does|do|did|is|are|was|were)\b"
                   r"|^\s*(?:what|which)\s+(?:kinds?|types?|sorts?)\s+of\b|^\s*how many\b|^\s*what are\b"
                   r"|^\s*(?:what|which|where|who)\b[^?]*\b(?:has|have)\b",
                   re.IGNORECASE)
# The "Name: " an episodic memory opens with says who spoke, not what
_SPEAKER = re.compile(r"^\s*[^:\n]{1,40}:\s")


def tells(content: str) -> bool:
    """Whether `content` (a message, with or without its "Name: " prefix) tells its speaker's news:
    a first-person verb in the past, or a time of the recent past."""
    said = _SPEAKER.sub("", content, count=1)
    return bool(_FIRST_PERSON.search(said) or _RECENTLY.search(said))


def asks_list(question: str) -> bool:
    """Whether `question` asks for a list or a count of things."""
    return bool(_LIST.search(question))
