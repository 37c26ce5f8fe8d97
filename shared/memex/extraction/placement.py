"""Where a fact filed under a person's name alone belongs: "melanie_role" is Melanie's own fact when
she takes part in the user's conversations, and "sam_role" is the user's partner's fact while Sam is
the partner (partner_sam_role, which ends with the partnership). Read by the LLM extractor on the
conversation it sees and by the pipeline on the user's memories, whichever extractor ran; the
offline rules file every key under a family, which names no one alone.
"""

from __future__ import annotations

from dataclasses import replace

from memex.extraction import aliases, families
from memex.jobs import Candidate, subject_key, subject_prefix

# The keys naming one of the user's relations (partner_name, sister_name, ...).
RELATION_NAMES = frozenset(f"{part}_name" for part in families.RELATION_PARTS)
# What a fact about someone else is worth at most: useful, less central.
ABOUT_ANOTHER_IMPORTANCE = 0.6


def may_name_someone(candidate: Candidate) -> bool:
    """Whether the candidate is the user's fact under a key that may start with a person's name
    ("melanie_role", "sam_role"): a key of a declared family names no one, or names them after their
    relation already ("partner_sam_role")."""
    return candidate.subject == "user" and "_" in candidate.key and families.family_of(candidate.key) is None


def placed(candidate: Candidate, participants: list[str], relations: dict[str, str]) -> Candidate:
    """`candidate` filed as what it is about when its key names a person alone: under a participant
    of `participants` ("melanie_role" said by the user, or filed by the model under a subject this
    conversation does not show) it is that participant's fact, as their own "I'm a nurse" is, in the
    history of their facts (another subject's facts are never related to it: supersession); under a
    name `relations` says is the user's relation ("sam": "partner") it is keyed as that relation's
    (partner_sam_role, which ends with the partnership). Any other candidate as it is. The LLM extractor
    places what one answer and its conversation show (`relations`); the pipeline places it again by
    the user's memories (pipeline._placed), which hold the people of earlier sessions."""
    if not may_name_someone(candidate):
        return candidate
    # The model's own word for the fact after the name is the family's key (aliases.py): "melanie_job"
    # is her role, "sam_location" the partner's city.
    for person in participants:
        prefix = subject_prefix(person)
        if prefix and candidate.key.startswith(f"{prefix}_"):
            key = subject_key(person, aliases.canonical(candidate.key, [prefix]))
            return replace(candidate, subject=person, key=key,
                           importance=min(candidate.importance, ABOUT_ANOTHER_IMPORTANCE))
    for person, relation in relations.items():
        prefix = subject_prefix(person)
        if prefix and candidate.key.startswith(f"{prefix}_"):
            return replace(candidate, key=aliases.canonical(subject_key(relation, candidate.key)),
                           importance=min(candidate.importance, ABOUT_ANOTHER_IMPORTANCE))
    return candidate
