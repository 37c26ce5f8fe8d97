"""What a later sentence says of a known pet or person by the name alone, and what only looks like a
correction (issue 11, item 2; the sentences are not the trial's): a pet's new age ("Biscuit is 6 now"
after "My dog Biscuit is 5") under the pet's age key, a named friend's role said with "is" ("Leo is a
nurse." after "My friend Leo is a chef"), and a negation ("I'm not vegan.", "I'm not backing down.") read
as no correction: before, its word before "not" was filed as the value ("The user is I'm."). Each beside
sentences that must file nothing."""

import pytest

from memex.extraction.offline import OfflineExtractor
from memex.extraction.offline.corrections import wrong_values_and_denials


def _extract(content: str, history: tuple[str, ...] = ()):
    earlier = [{"id": f"h{i}", "role": "user", "content": text} for i, text in enumerate(history)]
    return OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)


def _facts(content: str, history: tuple[str, ...] = ()) -> set[tuple[str, str]]:
    return {(c.key, c.value) for c in _extract(content, history) if not c.ends_only}


@pytest.mark.parametrize("history, text, expected", [
    (("My dog Biscuit is 5 years old.",), "Biscuit turned 6 yesterday!", {("pet_dog_biscuit_age", "6")}),
    (("I have a cat named Miso.",), "Miso is 3 now.", {("pet_cat_miso_age", "3")}),
    (("We adopted a rabbit named Clover.",), "Clover's now 2.", {("pet_rabbit_clover_age", "2")}),
    (("My dog Biscuit is 5.",), "It was Biscuit's birthday on Saturday, he's 6 now.", {("pet_dog_biscuit_age", "6")}),
])
def test_a_known_pets_age_said_by_its_name_alone_is_filed_under_its_age_key(history, text, expected):
    assert _facts(text, history) == expected
    [aged] = _extract(text, history)
    assert aged.content == f"The user's {aged.key.split('_')[1]} {aged.key.split('_')[2].capitalize()} is " \
                           f"{aged.value} years old."


def test_a_pets_new_age_replaces_the_one_said_before():
    """The key is the one "My dog Biscuit is 5" filed, so that 6 replaces 5 (one value per key)."""
    [before] = [c for c in _extract("My dog Biscuit is 5 years old.") if c.key.endswith("_age")]
    [after] = _extract("Biscuit turned 6 yesterday!", ("My dog Biscuit is 5 years old.",))
    assert (before.key, before.value, after.key, after.value) == ("pet_dog_biscuit_age", "5", "pet_dog_biscuit_age", "6")


@pytest.mark.parametrize("history, text", [
    ((), "Biscuit turned 6 yesterday!"),  # nobody said who Biscuit is
    (("My dog Biscuit is 5.",), "Biscuit is 8 months old now."),  # a pet's age is filed in years only
    (("My dog Biscuit died last year.",), "Biscuit turned 6 yesterday!"),  # no current pet of that name
    (("I have a cat named Miso.",), "Miso is 3."),  # without "now": may be said of anyone's Miso
    (("I have a cat named Miso.",), "Mochi is 3 now."),  # another name
    (("I have a cat named Miso.", "My friend is called Miso."), "Miso is 3 now."),  # the friend, said last
])
def test_a_pets_age_by_a_name_the_session_does_not_give_a_current_pet_files_none(history, text):
    assert not {k for k, _ in _facts(text, history) if k.startswith("pet_")}


@pytest.mark.parametrize("history, text, expected", [
    (("My friend Leo is a chef.",), "Leo is a nurse.", {("friend_leo_role", "nurse")}),
    (("My cousin Priya works as a dentist.",), "Priya's now an engineer.", {("cousin_priya_role", "engineer")}),
    (("My brother Tom lives in Leeds.",), "Tom is a software engineer.", {("brother_tom_role", "software engineer")}),
    (("My friend Leo is a chef.",), "So Leo is an architect now.", {("friend_leo_role", "architect")}),
])
def test_a_known_persons_role_said_with_is_by_their_name_alone(history, text, expected):
    assert _facts(text, history) == expected


@pytest.mark.parametrize("history, text", [
    ((), "Leo is a nurse."),  # nobody said who Leo is
    (("My dog Leo is 3.",), "Leo is a nurse."),  # a pet: no role
    (("My boyfriend Leo is a chef.",), "Leo is a nurse."),  # a partner's role by name alone is never filed
    (("My friend Leo is a chef.",), "Leo is a great friend."),  # no role
    (("My friend Leo is a chef.",), "Leo is a former nurse."),  # what he was is no role of now
    (("My friend Leo is a chef.",), "Is Leo a nurse?"),
])
def test_a_role_said_with_is_of_someone_the_session_does_not_name_files_none(history, text):
    assert not {k for k, _ in _facts(text, history) if k.endswith("_role")}


# ("I'm not vegan." after "I'm vegan." now ends the diet, as the past: test_extraction_misses18; "I'm honestly
# not vegan." too: test_extraction_stints_and_denials.)
@pytest.mark.parametrize("history, text", [
    (("I'm vegan.",), "It's honestly not vegan."),
    (("I'm vegan.",), "Actually it's really not vegan."),
    (("I'm single.",), "We're not single."),
    (("I'm retired.",), "It's not retired."),
    (("I love hiking.",), "I'm not hiking."),
    (("I'm moving to Berlin next month.",), "I'm not backing down."),
    (("I'm moving to Berlin next month.",), "I'm not leaving Berlin."),
    (("I'm 34.",), "I'm not 34."),
])
def test_a_negation_is_no_correction(history, text):
    """Before, "I'm not vegan." after "I'm vegan." filed `dietary_restriction` "I'm" ("The user is I'm."):
    the word before "not" read as the right value. What the rules read in the sentence alone is all."""
    assert {(c.key, c.value, c.ends_only) for c in _extract(text, history)} \
        == {(c.key, c.value, c.ends_only) for c in _extract(text)}


@pytest.mark.parametrize("text, values", [
    ("I'm not backing down.", []),
    ("I'm not going anywhere, trust me.", []),
    ("It's not only about the money.", []),
    ("My sister is really not Porto.", []),
    # corrections still
    ("I'm vegetarian, not vegan.", ["vegan"]),
    ("Sorry, she's 8, not 7.", ["7"]),
    ("No, not Leeds but York.", ["Leeds"]),
    ("Not Leeds, York.", ["Leeds"]),
])
def test_the_wrong_values_a_message_names(text, values):
    """What the pipeline reads the current facts of (pipeline._known): a negation names none, and costs no read."""
    assert wrong_values_and_denials(text)[0] == values


@pytest.mark.parametrize("history, text, expected", [
    (("I'm vegan.",), "Sorry, I'm vegetarian, not vegan.", {("dietary_restriction", "vegetarian")}),
    (("I'm 34.",), "I'm 43, not 34.", {("age", "43")}),
    (("I live in Leeds.",), "No, not Leeds but York.", {("city", "York")}),
])
def test_a_correction_said_beside_a_verb_still_corrects(history, text, expected):
    assert _facts(text, history) == expected
