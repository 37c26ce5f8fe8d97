"""What the user did not claim as their own is not filed (trial 16): another person's claim about the
user, a statement tagged as a joke at its end, and a slip named as said ("I said X but I meant Y")
corrected rather than left standing. Each beside statements that must still file."""

import pytest

from memex.extraction.offline import OfflineExtractor
from memex.extraction.offline.corrections import statement_retracted


def _facts(content: str, history: tuple[str, ...] = ()) -> set[tuple[str, str]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": text} for i, text in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value) for c in found if not c.ends_only and c.only_replacing is None}


@pytest.mark.parametrize("text, expected", [
    # someone else claims, insists, reckons or swears it of the user
    ("My brother insists I'm allergic to cats.", set()),
    ("My mum reckons I'm a vegetarian.", set()),
    ("Jo swears I live in Oslo.", set()),
    ("My roommate claimed I work at Deloitte.", set()),
    ("My boss jokes that I'm a morning person, which I'm not.", set()),
    # the user's own, however emphatic, and a claim of theirs beside another's
    ("I swear I live in Oslo now.", {("city", "Oslo")}),
    ("I'm allergic to cats, my doctor insists.", {("allergy", "cats")}),
    ("I claimed my prize. I moved to Oslo.", {("city", "Oslo")}),
])
def test_what_another_claims_of_the_user_is_not_filed(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a joke said so at the sentence's end, after an emoji, a comma or a "lol"
    ("Just got promoted to CEO 😎 jk", set()),
    ("I live in Monaco now, just kidding lol", set()),
    ("I'm a nurse, only joking.", set()),
    ("I work at Acme. lol jk", set()),
    # a tag that says nothing else, or is a name, leaves the statement meant
    ("I'm not kidding, I live in Oslo.", {("city", "Oslo")}),
    ("I live in Oslo, no joke.", {("city", "Oslo")}),
    ("I have a cat named Jk.", {("pet_cat_name", "Jk")}),
])
def test_a_statement_tagged_as_a_joke_is_not_filed(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("history, text, expected", [
    (("My dentist appointment is on Monday.",), "Sorry, I said Monday when I meant Friday.",
     {("event_dentist_appointment", "Friday")}),
    (("I live in York.",), "When I wrote York I meant Leeds.", {("city", "Leeds")}),
    (("I have a dog named Rolo.",), "i typed Rolo but i meant Milo", {("pet_dog_name", "Milo")}),
    (("I'm 34.",), "I said 34 but I meant 43.", {("age", "43")}),
    (("I'm flying to Rome next Monday.",), "I said Monday, I meant Wednesday.", {("plan", "flying to Rome next Wednesday")}),
    # nothing said with that value, or not the user who said it: nothing corrected
    ((), "I said Monday but I meant Friday.", set()),
    (("I live in York.",), "She said York but I meant Leeds.", set()),
    (("I live in York.",), "I said York but I meant it.", set()),
])
def test_a_slip_named_as_said_is_corrected(history, text, expected):
    assert _facts(text, history) == expected


@pytest.mark.parametrize("history, text, ended", [
    (("I work at Google.",), "No, it's my brother who works at Google, not me.", ("employer", "Google")),
    (("I have a cat.",), "It's my roommate who has a cat, not me.", ("pet_kind", "cat")),
    (("I live in Bristol.",), "Actually it's my sister Jo who lives in Bristol, not me!", ("city", "Bristol")),
    # a word before the verb: the verb is still the one the user's statement said ("I sometimes play")
    (("I sometimes play tennis.",), "It's my sister who sometimes plays tennis, not me.", ("hobby", "tennis")),
    (("I often play chess.",), "No, it's my brother who often plays chess, not me.", ("hobby", "chess")),
    (("I never eat meat.",), "It's my sister who never eats meat, not me.", ("eats_meat", "no")),
])
def test_a_fact_handed_to_someone_else_ends_the_users(history, text, ended):
    earlier = [{"id": "h0", "role": "user", "content": history[0]}]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": text}], earlier)
    assert [(c.key, c.value) for c in found if c.ends_only] == [ended]
    assert _facts(text, history) == set()


@pytest.mark.parametrize("text, statement", [
    ("It's my sister who always runs marathons, not me.", "I always run marathons"),
    ("It's my sister who sometimes watches anime, not me.", "I sometimes watch anime"),
    ("It's my brother who uses Linux, not me.", "I use Linux"),
    ("It's my brother who goes to the gym, not me.", "I go to the gym"),
    ("It's my brother who's vegan, not me.", "I'm vegan"),
])
def test_the_statement_handed_over_is_read_as_the_user_said_it(text, statement):
    # "always" is no verb: its "s" stays, and the verb after it is the user's ("I alway runs" read nothing)
    assert statement_retracted(None, text) == statement


@pytest.mark.parametrize("history, text, expected", [
    # news of someone else, without "not me", and the user's own said against another's, still file
    (("I'm vegan.",), "It's my sister who's vegan.", set()),
    (("I'm vegan.",), "I'm vegan, not my sister.", {("dietary_restriction", "vegan")}),
    ((), "I live in Leeds, it's my sister who lives in Bristol.", {("city", "Leeds")}),
])
def test_what_is_not_handed_over_is_left(history, text, expected):
    earlier = [{"id": "h0", "role": "user", "content": history[0]}] if history else []
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": text}], earlier)
    assert not any(c.ends_only for c in found)
    assert _facts(text, history) == expected


@pytest.mark.parametrize("text, expected", [
    # make-believe said with "pretending" or "imagining", as with "pretend" and "imagine"
    ("Pretending I'm a vegetarian for the week.", set()),
    ("I'm pretending I live in Rome for the story.", set()),
    ("My friend is pretending to be vegan. I'm vegan.", {("dietary_restriction", "vegan")}),
    # a sentence that puts the one before in the past: not filed as current
    ("I have a cat. Well, had.", set()),
    ("I work at Initech. Or rather, worked.", set()),
    ("I live in Madrid. Well, lived.", set()),
    ("I have a cat. Well, two.", {("pet_kind", "cat")}),
    ("I work at Initech. Well, for now.", {("employer", "Initech")}),
])
def test_make_believe_and_a_statement_put_in_the_past(text, expected):
    assert _facts(text) == expected
