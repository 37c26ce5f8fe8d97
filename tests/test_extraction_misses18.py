"""What the offline rules still misread after misses17 (issue 11 items 2 and 7), in other sentences than
the ones reported: a stay for a while is no home, a diet the user holds said with "not" ends it, and a
list under someone else's form is not the user's. Each beside sentences that must file nothing, or nothing
more than before."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, expected", [
    # a stay for a while: not where the user lives
    ("We relocated to Lisbon for six months.", set()),
    ("I've just moved to Denver for the winter.", set()),
    ("I'm living in Kyoto for a semester.", set()),
    ("I moved to Madrid for a year, then came home.", set()),
    ("I'm based in Dublin until March.", set()),
    # a home, with how long it has been one or why it is there
    ("I've lived in Denver for ten years.", {("city", "Denver", False)}),
    ("I've been living in Kyoto for a few months.", {("city", "Kyoto", False)}),
    ("We moved to Lisbon for work.", {("city", "Lisbon", False)}),
    ("I moved to Madrid last summer.", {("city", "Madrid", False)}),
    ("I live in Dublin.", {("city", "Dublin", False)}),
])
def test_a_stay_for_a_while_is_no_home(text, expected):
    assert {f for f in _facts(text) if f[0] == "city"} == expected


@pytest.mark.parametrize("text, history, expected", [
    # a diet the user holds, said with "not": it ends (filed as the past, which supersession ends it by)
    ("I am not vegetarian.", ["I'm vegetarian."], {("dietary_restriction", "vegetarian", True)}),
    ("Honestly, I'm not pescatarian!", ["I'm pescatarian and I love sushi."],
     {("dietary_restriction", "pescatarian", True)}),
    ("I'm not a vegetarian.", ["I've been vegetarian since 2019."], {("dietary_restriction", "vegetarian", True)}),
    # as before: "anymore" files the past, a correction files the right diet
    ("I'm not vegetarian anymore.", ["I'm vegetarian."], {("dietary_restriction", "vegetarian", True)}),
    ("I'm not pescatarian, I'm vegetarian.", ["I'm pescatarian."], {("dietary_restriction", "vegetarian", False)}),
    # never invents: a diet never said, another diet, one already ended, someone else's, a question or a
    # supposition, a "but" that turns to someone else
    ("I'm not vegetarian.", [], set()),
    ("I'm not vegetarian.", ["I'm pescatarian."], set()),
    ("I'm not vegetarian.", ["I'm vegetarian.", "I'm no longer vegetarian."], set()),
    ("I'm not vegetarian.", ["My sister is vegetarian."], set()),
    ("I'm not vegetarian but my wife is.", ["I'm vegetarian."], set()),
    ("Am I not vegetarian?", ["I'm vegetarian."], set()),
    ("If I'm not vegetarian, what am I?", ["I'm vegetarian."], set()),
    ("Even if I'm not vegetarian.", ["I'm vegetarian."], set()),
])
def test_a_diet_the_user_holds_said_with_not_ends(text, history, expected):
    assert {f for f in _facts(text, *history) if f[0] == "dietary_restriction"} == expected


@pytest.mark.parametrize("text, expected", [
    # a heading list under someone else's form, named in the sentence before: whose it is may be read
    # wrongly, so nothing is filed (never the user's)
    ("Emma's registration form. Allergies: shellfish.", set()),
    ("Filling out my daughter's camp form.\nAllergies: eggs, milk\nLanguages: Spanish", set()),
    ("The twins' medical forms: Allergies: penicillin.", set()),
    ("My husband's intake sheet. Allergies: latex.", set()),
    # typed with a curly apostrophe, or an accent for one, as with the straight one
    ("Kid's form. Allergies: peanuts.", set()),
    ("Kid\u2019s form. Allergies: peanuts.", set()),
    ("Kid\u00b4s form. Allergies: peanuts.", set()),
    # the user's own, as before: no form named, the user's own form, or a sentence between
    ("Allergies: shellfish.", {("allergy", "shellfish", False)}),
    ("My registration form. Allergies: shellfish.", {("allergy", "shellfish", False)}),
    ("Today's form. Allergies: latex.", {("allergy", "latex", False)}),
    ("Today\u2019s form. Allergies: latex.", {("allergy", "latex", False)}),
    ("Emma's form is done. I'm allergic to latex.", {("allergy", "latex", False)}),
    ("Emma's form is done. I'm home now. Allergies: latex.", {("allergy", "latex", False)}),
])
def test_a_heading_list_under_someone_elses_form(text, expected):
    assert {f for f in _facts(text) if f[0].endswith(("allergy", "language"))} == expected


def test_a_heading_that_says_whose_after_someone_elses_form_is_theirs():
    assert _facts("Emma's camp form. My son's allergies: eggs.") == {("child_son_allergy", "eggs", False)}


@pytest.mark.parametrize("text, expected", [
    ("I moved to Leeds for a winter job at Asda.", {("city", "Leeds", False)}),
    ("We moved to Porto for the summer and loved it.", set()),
])
def test_a_span_ends_its_clause_to_be_a_stay(text, expected):
    assert {f for f in _facts(text) if f[0] == "city"} == expected


def _diets(tenant) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m for m in listed.json()["memories"] if m["key"] == "dietary_restriction"),
                  key=lambda m: m["created_at"])


def test_a_diet_said_with_not_ends_it_through_the_pipeline(tenant):
    """Two turns of one session: the diet said, then denied; the diet is no longer current, and kept
    as what it was."""
    tenant.turn("I'm pescatarian.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm not pescatarian.", timestamp="2026-02-01T00:00:00Z")
    said, ended = _diets(tenant)
    assert said["value"] == ended["value"] == "pescatarian" and said["valid_to"] is not None
    assert not said["active"] and not ended["active"] and ended["supersedes"] == said["id"]


def test_a_diet_said_with_not_and_never_held_files_nothing_through_the_pipeline(tenant):
    tenant.turn("My brother is pescatarian.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm not pescatarian.", timestamp="2026-02-01T00:00:00Z")
    assert _diets(tenant) == []


def test_a_diet_said_with_not_files_no_word_before_not_as_a_correction():
    """The diet denied is the only fact: no "I'm" read as the right value (as a correction once did)."""
    assert _facts("I'm not vegan.", "I'm vegan.") == {("dietary_restriction", "vegan", True)}


def _chain(tenant, user: str) -> list[tuple]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500})
    diets = sorted((m for m in listed.json()["memories"] if m["key"] == "dietary_restriction"),
                   key=lambda m: m["created_at"])
    ids = {m["id"]: n for n, m in enumerate(diets)}
    return [(m["value"], m["active"], m["valid_from"], m["valid_to"], ids.get(m["supersedes"])) for m in diets]


def test_a_diet_said_with_not_in_a_later_session_ends_it_as_in_one_session(tenant):
    """The denial in another session than the diet: the extractor never sees the diet said, so the
    pipeline reads the speaker's current diet for that turn; the history equals one session's."""
    for user, sessions in (("one", ("s1", "s1")), ("two", ("s1", "s2"))):
        assert tenant.turn("I'm vegan.", user=user, session=sessions[0],
                           timestamp="2026-01-01T00:00:00Z").status_code == 201
        assert tenant.turn("I'm not vegan.", user=user, session=sessions[1],
                           timestamp="2026-02-01T00:00:00Z").status_code == 201
    one = _chain(tenant, "one")
    assert [(value, active, later) for value, active, _, _, later in one] == [("vegan", False, None), ("vegan", False, 0)]
    assert one[0][3] is not None
    assert _chain(tenant, "two") == one


def test_a_diet_said_with_not_in_a_later_session_ends_nothing_it_does_not_name(tenant):
    """No diet stored (only the brother's), or the sentence goes on to someone else's: nothing ends."""
    tenant.turn("My brother is vegan.", user="none", session="s1", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm not vegan.", user="none", session="s2", timestamp="2026-02-01T00:00:00Z")
    assert _chain(tenant, "none") == []
    tenant.turn("I'm vegan.", user="wife", session="s1", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm not vegan but my wife is.", user="wife", session="s2", timestamp="2026-02-01T00:00:00Z")
    assert [(value, active, valid_to) for value, active, _, valid_to, _ in _chain(tenant, "wife")] \
        == [("vegan", True, None)]
