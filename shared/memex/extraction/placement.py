"""Where a fact filed under a person's name alone belongs: "melanie_role" is Melanie's own fact when
she takes part in the user's conversations, and "sam_role" is the user's partner's fact while Sam is
the partner (partner_sam_role, which ends with the partnership). Read by the LLM extractor on the
conversation it sees and by the pipeline on the user's memories, whichever extractor ran; the
offline rules file every key under a family, which names no one alone.
"""

from __future__ import annotations

from dataclasses import replace

from memex.extraction import aliases, families
from memex.jobs import Candidate, own_key, subject_key, subject_prefix

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
    # is her role, "sam_location" the partner's city. The name as the prompt shows a participant's known
    # keys, whole or shortened (jobs.subject_key), and the kind alone read: "mum_city" of Mum is her city,
    # not her "mother_city".
    for person in participants:
        own = own_key(person, candidate.key)
        if own != candidate.key:
            return replace(candidate, subject=person, key=subject_key(person, aliases.canonical(own)),
                           importance=min(candidate.importance, ABOUT_ANOTHER_IMPORTANCE))
    for person, relation in relations.items():
        own = own_key(person, candidate.key)
        if own != candidate.key:
            return replace(candidate, key=aliases.canonical(relation_key(f"{relation} {person}", own)),
                           importance=min(candidate.importance, ABOUT_ANOTHER_IMPORTANCE))
    return candidate


def relation_key(relation: str, key: str) -> str:
    """`key` of what is said of someone by their relation to the user ("partner", or "partner sam" with
    their name) as the offline rules key it: the relation's words whole before it ("partner_sam_role"),
    which supersession.about_partner_keys ends with the partnership. Not shortened as a participant's
    prefix is (jobs.subject_key, which would keep no "partner_" or "grandmother_" before a long name): a key
    past the bound names no kind of fact, and the pipeline drops it, as the offline rules drop theirs."""
    return f"{subject_prefix(relation)}_{key}"
