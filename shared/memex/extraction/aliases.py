"""The keys a model files a fact under in words of its own, as the family keys (families.py) they mean.

A small model told to use `city` still files "I moved to Rome" as `current_city`, `location` or
`lives_in`: supersession, history and current-first follow one key, so "I live in Paris" (city) and
"I moved to Rome" (current_city) both stayed current. An alias below is a key with one meaning, that of
the family it names; a key of no alias (and of no family) is kept as the model gave it.
"""

from __future__ import annotations

import re
from typing import Iterable

from memex.extraction import families, vocabulary
from memex.extraction.plurals import as_filed_now
from memex.jobs import KEY_MAX_CHARS, own_key, subject_key, subject_prefix

# Each family key, with the keys small models file its facts under instead.
ALIASES: dict[str, tuple[str, ...]] = {
    "city": ("location", "home_city", "lives_in", "living_in", "residence", "place_of_residence", "city_of_residence",
             "home_location", "based_in"),
    "employer": ("company", "company_name", "employer_name", "workplace", "work_place", "works_at", "works_for",
                 "organization", "organisation"),
    "role": ("job_title", "job", "occupation", "profession", "job_role", "work_role"),
    "name": ("first_name", "full_name", "given_name"),
    "age": ("age_years", "years_old"),
    "partner_name": ("partner", "spouse", "spouse_name", "wife", "wife_name", "husband", "husband_name", "girlfriend",
                     "girlfriend_name", "boyfriend", "boyfriend_name", "fiance_name", "fiancee_name"),
    "mother_name": ("mom_name", "mum_name"),
    "father_name": ("dad_name",),
    "relationship_status": ("marital_status",),
    "employment_status": ("work_status", "job_status"),
    "dietary_restriction": ("diet", "dietary_preference", "dietary_restrictions"),
    "number_of_children": ("children_count", "child_count", "kids_count", "num_children", "number_of_kids"),
    "hobby": ("hobbies", "pastime", "pastimes"),
    "language": ("languages", "languages_spoken", "spoken_language"),
    "allergy": ("allergies", "allergic_to"),
    "health_condition": ("medical_condition", "health_conditions"),
    "nationality": ("citizenship",),
    "birthday": ("date_of_birth", "birth_date", "dob"),
    "birthplace": ("place_of_birth", "born_in", "birth_city"),
    "hometown": ("home_town", "grew_up_in", "city_of_origin"),
    "school": ("university", "college", "alma_mater"),
    "field_of_study": ("major", "study_field"),
    "pet_kind": ("pet", "pets", "pet_type"),
    "phone_number": ("phone", "mobile_number", "telephone"),
}
_FAMILY_OF = {alias: key for key, aliases in ALIASES.items() for alias in aliases}
# Words a model opens a key with that add nothing to it: "current_city" is the city, "user_age" the age.
_IDLE = frozenset({"current", "present", "user", "my"})
_FAVOURITE = frozenset({"favorite", "favourite", "fav"})
_PET_FACT = re.compile(r"(.+)_(name|breed|count)")
_PET_KINDS = frozenset(vocabulary.PETS.values())
# A key opened with the word the user said one person in their life by ("wife_employer", "mum_location",
# "best_friend_city") as one opened with the relation that person's facts are filed under, whichever word
# a session said ("partner", "mother", "friend"), so that "my partner" later replaces what "my wife" said;
# the longest word first ("best_friend" before "friend"). Not a son or a daughter: two of the children.
_ONE_PERSON = sorted(((word.replace(" ", "_"), part) for word, part in vocabulary.RELATIONS.items()
                      if part not in ("child", word)), key=lambda pair: len(pair[0]), reverse=True)


def canonical(key: str, people: Iterable[str] = ()) -> str:
    """`key` as the families file it: an alias ("current_city", "location") as its family's key ("city"),
    also after a person's prefix ("sister_anna_location": "sister_anna_city"), a relation's or one of
    `people` (the key prefixes of the participants and the people the answer names: "melanie_job" is
    "melanie_role"); any other key as it is."""
    own = _family_key(key)
    if own != key or families.family_of(key) is not None:
        return own  # a family's key names no one, whoever bears a name like its first word ("pet")
    said = next(((word, part) for word, part in _ONE_PERSON if key.startswith(f"{word}_")), None)
    if said is not None:
        return canonical(said[1] + key[len(said[0]):], people)
    words = key.split("_")
    heads = frozenset(people)
    for i in range(1, len(words)):
        head = "_".join(words[:i])
        if words[0] in families.RELATION_PARTS or head in heads:
            tail = "_".join(words[i:])
            own = _family_key(tail)
            if own != tail:
                return f"{head}_{own}"
    return key


def _family_key(key: str) -> str:
    """The family key `key` names as a whole, or `key`."""
    if key in _FAMILY_OF:
        return _FAMILY_OF[key]
    first, _, rest = key.partition("_")
    if first in _FAVOURITE and rest:
        # The last word is the one the offline rules read a plural back to ("My favourite movies are ..."), which
        # they read by its ending alone before the nouns plurals.py names were known: favorite_movy stored then is
        # favorite_movie, favorite_lense favorite_lens.
        *before, last = rest.split("_")
        return "_".join(["favorite", *before, as_filed_now(last)])
    if families.family_of(key) is not None:
        return key
    if first in _IDLE and rest:
        own = _family_key(rest)
        if own != rest or families.family_of(rest) is not None:
            return own
    pet = _PET_FACT.fullmatch(key)
    if pet and pet.group(1) in _PET_KINDS:
        return f"pet_{pet.group(1)}_{pet.group(2)}"
    return key


def family_key(subject: str, key: str) -> str:
    """`key` of a fact about `subject` as the families file it (a participant's name before it read
    as theirs: "melanie_job" of Melanie is "melanie_role"): what a fact stored under a model's own
    word is filed under (db/family_keys.py, the stored candidates and tombstones pipeline.py reads),
    its prefix shortened as the key's length asks (jobs.subject_key)."""
    own = own_key(subject, key)
    # The kind alone: the whole key read "mum_city" of Mum as "mother_city", which subject_key prefixed
    # again ("mum_mother_city"), and again at every reading.
    return canonical(key) if own == key else subject_key(subject, canonical(own))


def filed_before(subject: str, key: str) -> str:
    """The key versions before jobs.subject_key shortened prefixes filed `subject`'s fact of `key` under,
    as family_key reads it now: all of the prefix and the kind, cut at KEY_MAX_CHARS mid-word, and read as
    a whole ("mum_city" of Mum was "mother_city"). The memories and erasure tombstones written then keep it
    (docs/operations.md, Upgrading over your data); the key of a name that fits and opens with no relation's word is
    its own."""
    prefix = subject_prefix(subject)
    if not prefix:
        return key
    return family_key(subject, canonical(f"{prefix}_{own_key(subject, key)}"[:KEY_MAX_CHARS].rstrip("_"), [prefix]))
