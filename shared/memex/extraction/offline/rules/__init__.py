"""The table of rules. RULES: every domain's rules (each module of this package holds its rules, their
clean functions and the patterns only they use), in the order they are tried, which is the order of
the one list they were in before the split: a sentence's matches are sorted by where they start, the
earlier rule's first when two start together. ASKED_RULES: the names a question takes for granted."""

from __future__ import annotations

from memex.extraction.offline.patterns import (ENDED_AFTER, ENDED_BEFORE, KIN_ADJECTIVE, MY, NOT_AFTER_PARTING, PET,
    PROPER, RELATIONS, alternation)
from memex.extraction.offline.rule import rule
from memex.extraction.offline.rules import (answers, health, home, household, identity, languages_and_schooling, likes,
    pastimes, people, pets, places, plans, vehicles, work)
from memex.extraction.offline.values import pet, relation


# A domain whose rules stood apart in that list keeps two lists (DIET_RULES, GYM_RULES, EXPECTING_RULES),
# each in its place.
RULES = [
    *work.RULES,
    *places.RULES,
    *languages_and_schooling.RULES,
    *identity.RULES,
    *health.DIET_RULES,
    *people.RULES,
    *vehicles.RULES,
    *pastimes.GYM_RULES,
    *household.RULES,
    *pets.RULES,
    *home.RULES,
    *people.EXPECTING_RULES,
    *health.RULES,
    *pastimes.RULES,
    *plans.RULES,
    *answers.RULES,
    *likes.RULES,
]


_RELATION = rf"(?P<kind>(?i:{alternation(RELATIONS)}))"


# A question may take for granted who someone is: "What should I get my wife Anna for her birthday?",
# "Is chocolate bad for my dog Rex?". Only such a name is read from a question; not when the question
# is what to call them ("Should I name my son Leo?"), nor in a hypothetical ("What if my ...").
_NAMING = r"(?<!\bname )(?<!\bnamed )(?<!\bnaming )(?<!\bcall )(?<!\bcalled )(?<!\bcalling )(?<!\brename )"
ASKED_RULES = [
    rule("relation", "{part}_name", "my our", [
        rf"{_NAMING}{NOT_AFTER_PARTING}{MY} {KIN_ADJECTIVE}{_RELATION},? (?P<value>{PROPER})",
    ], "The user's {kind} is named {value}.", relation, confidence=0.75, importance=0.8),
    rule("fact", "pet_{part}_name", "my our", [
        rf"{_NAMING}{ENDED_BEFORE}{MY} {PET},? (?P<value>{PROPER}){ENDED_AFTER}",
    ], "The user's {kind} is named {value}.", pet, confidence=0.75, importance=0.6),
]
