"""A question that names a kind of fact rather than the fact: "Does she have any pets?", "What are
her hobbies?", "Tell me about his family.".

The facts that answer such a question say none of its words ("The user's dog is named Bolt."), and
MiniLM puts the question as near a fact of another kind in the same frame: "Does she have any pets?"
is 0.50 from "The user is vegetarian." and 0.35 from the dog (docs/measurements/quality.md), and
"What does the user do in her free time?" passes the floor's gate with nothing at all. What ties the
question to its answers is the key the extractor filed each fact under (pet_dog_name, hobby): each
kind below names the keys of its facts, as both extractors write them (extraction/offline.py's rules,
extraction/llm.py's prompt; a participant's fact has its subject before the key). The search reads
the user's current facts under those keys as one more ranking of the question
(memories.topic_statement); a fact it finds passes the floor, and counts as saying the question's
word for its kind (learned.py's asked words).

The kinds are few and their words plain on purpose: a kind's word must ask for the kind ("pets",
"hobbies"), not qualify another noun ("a pet peeve", "health care", "a family business", "mental
health services", "a vegan diet group"), nor be an adjective as often as a noun ("animal products",
so only the plural "animals"), nor stand for something else as often ("conditions" alone is the
weather's too, so only "medical conditions"). A question about the past is not asked about
current facts of its kind: its own path reads the replaced facts of the key it names (past.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memex.extraction import vocabulary


@dataclass(frozen=True)
class Topic:
    """The kinds a question names: the words that name them, and the keys of their facts (a regular
    expression over a memory's key)."""

    words: frozenset[str]
    keys: str


# Relations whose facts are the family's: the offline rules' (partner_name, child_name, their facts
# about a named relative: partner_sam_role) and the LLM prompt's sibling_ and parent_ keys.
_FAMILY = sorted({kind for kind in vocabulary.RELATIONS.values() if kind != "friend"} | {"sibling", "parent"})

# (the question's words for the kind, the keys of its facts)
_KINDS = (
    (r"pets?|animals", r"pet_"),
    (r"hobby|hobbies|pastimes?|free time|spare time|leisure|for fun", r"(?:hobby|learning)$"),
    (r"(?:health|medical) (?:conditions?|history|issues?|problems?)|health|illness(?:es)?",
     r"(?:health_condition|allergy)$"),
    (r"diet|dietary restrictions?|foods?", r"(?:dietary_restriction|allergy)$"),
    (r"family|families|relatives", r"(?:" + "|".join(_FAMILY) + r")_|(?:number_of_children|relationship_status)$"),
    # a partner, or being without one: "Is she married?", "Is the user single?", "Who is he dating?"
    (r"partners?|boyfriends?|girlfriends?|husbands?|wife|wives|spouses?|fianc[ée]e?s?|in a relationship|single|married|"
     r"dating|seeing anyone", r"partner_|relationship_status$"),
    # the languages one speaks; "language" alone only when speaking is asked of ("What language is
    # this code in?" asks for none), and never how the user wants answers (preference_answer_language)
    (r"languages|(?:native|first|mother) (?:language|tongue)|language(?=[^?.!]*\bspeak)", r"(?<!answer_)language$"),
    (r"nationality|nationalities|citizenships?|citizen", r"nationality$"),
    # schooling: not "to what degree", nor "a case study" (the verb only, asked of someone)
    (r"education|educational background|(?<!what )(?<!some )(?<!certain )degree|degrees(?= (?:does|do|did|has|have))|"
     r"qualifications?|alma mater|universit(?:y|ies)|college|(?:go|went) to school|(?:did|does|do) (?:\w+ ){1,2}study|"
     r"majors?|majored", r"(?:school|degree|field_of_study)$"),
)
# The kind's word ends what the question names: punctuation follows it, or a word that is no noun (a
# verb, a pronoun, a preposition...), not a noun it qualifies ("a pet peeve", "health care", "a family
# business", "mental health services", "a vegan diet group").
_ENDS = (r"(?=\s*(?:[?.!,;:)]|$)|\s+(?:does|do|did|is|are|was|were|has|have|had|should|can|could|would|will|"
         r"might|must|may|i|you|he|she|it|we|they|the|a|an|my|your|his|her|their|our|in|of|for|at|on|with|"
         r"from|to|that|which|who|and|or|but|like|members?|lately|now|these|those|this|recently|"
         r"lives?|live|eats?|needs?|makes?|gets?|keeps?|stays?|belongs?)\b)")
_ASKED = [(re.compile(rf"\b(?:{words}){_ENDS}", re.IGNORECASE), keys) for words, keys in _KINDS]


def asked(question: str) -> Topic | None:
    """The kinds of fact `question` names, None when it names none."""
    words: set[str] = set()
    keys = []
    for pattern, kind_keys in _ASKED:
        said = pattern.findall(question)
        if said:
            words.update(word.casefold() for word in said)
            keys.append(kind_keys)
    if not keys:
        return None
    # a key starts with the kind's or has a participant's name before it (subject_key: "melanie_pet_dog_name")
    return Topic(frozenset(words), r"(?:^|_)(?:" + "|".join(keys) + ")")
