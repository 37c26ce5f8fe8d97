"""A stay or a job for a while read by one vocabulary wherever it is said (after the place, or after what a
move was for), and by one check whoever moved (the user, someone in their life) and from where; a denied diet,
and a correction, said with the hedges the other denials take; and being retired denied: it ends a current
retirement and files no one retired."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("span", [" for the summer", " for a while", " for eighteen months", " for this semester",
                                  " until March"])
def test_a_stay_and_a_job_for_a_while_are_read_alike(span):
    """The same span makes a move no home and the job it was made for no employer, whichever side it is
    said after."""
    assert _facts(f"I moved to Oslo{span}.") == set()
    assert _facts(f"I moved to Oslo to work at Equinor{span}.") == set()
    assert _facts(f"I moved to Oslo for a job at Equinor{span}.") == set()


@pytest.mark.parametrize("text, expected", [
    # a stay said after what the move was for: no home, no employer
    ("I moved to Oslo to work at Equinor for the summer.", set()),
    ("I moved to Oslo for the summer to work at Equinor.", set()),
    ("I relocated to Kyoto to study Japanese for a semester.", set()),
    ("I moved to Lisbon for my job at Feedzai for a while.", set()),
    # a home: no span, a span of another clause, a span of how long it has been home, "over" a time the move
    # was made in, a summer job as why
    ("I moved to Oslo to work at Equinor.", {("city", "Oslo", False), ("employer", "Equinor", False)}),
    ("I moved to Madrid because my wife has lived there for years.", {("city", "Madrid", False)}),
    ("I moved to Denver last year and have been there for a while.", {("city", "Denver", False)}),
    ("I've lived in Oslo for a while.", {("city", "Oslo", False)}),
    ("I moved to Oslo over the summer.", {("city", "Oslo", False)}),
    ("I moved to Oslo for a summer job at Equinor.", {("city", "Oslo", False)}),
])
def test_a_stay_said_after_what_the_move_was_for(text, expected):
    assert {f for f in _facts(text) if f[0] in ("city", "employer")} == expected


@pytest.mark.parametrize("said, expected", [
    # a stay: no home, and no home left
    ("moved to Paris for the summer", set()),
    ("moved to Oslo for a while", set()),
    ("moved to Rome until May", set()),
    ("moved from Braga to Porto for a year", set()),
    ("moved from Braga to Porto to study for a semester", set()),
    # a home, whenever the move was made
    ("moved to Berlin today", {("city", "Berlin", False)}),
    ("moved to Berlin", {("city", "Berlin", False)}),
    ("moved to Oslo over the summer", {("city", "Oslo", False)}),
    ("moved from Braga to Porto today", {("city", "Porto", False), ("city", "Braga", True)}),
])
def test_someones_move_is_read_as_the_users(said, expected):
    """"My sister moved to Paris for the summer" filed Paris as her city, "My sister moved to Berlin today"
    nothing: a move of someone in the user's life reads a stay, and a day, as the user's own does."""
    mine = {f for f in _facts(f"I {said}.") if f[0] == "city"}
    hers = {(key.removeprefix("sister_"), value, historical) for key, value, historical in _facts(f"My sister {said}.")
            if key == "sister_city"}
    assert mine == hers == expected


@pytest.mark.parametrize("text, expected", [
    ("My brother is living in Rome until May.", set()),
    ("My brother is based in Dublin for the summer.", set()),
    ("My brother lives in Rome.", {("brother_city", "Rome", False)}),
])
def test_someones_stay_is_no_home(text, expected):
    assert {f for f in _facts(text) if f[0] == "brother_city"} == expected


@pytest.mark.parametrize("text, expected", [
    # a move away for a while leaves the home it was made from: nothing is filed
    ("I moved from Bergen to Oslo for a year.", set()),
    ("I moved to Oslo from Bergen for a year.", set()),
    ("I moved away from Bergen for a year.", set()),
    ("I moved from Bergen to Oslo to work at Equinor for the summer.", set()),
    # a move for good, and a home lived in for a while, are homes left
    ("I moved from Bergen to Oslo.", {("city", "Oslo", False), ("city", "Bergen", True)}),
    ("I moved away from Bergen.", {("city", "Bergen", True)}),
    ("I lived in Bergen for a year.", {("city", "Bergen", True)}),
    ("I used to live in Bergen for a while.", {("city", "Bergen", True)}),
    ("I was living in Bergen for two years.", {("city", "Bergen", True)}),
])
def test_a_move_away_for_a_while_leaves_no_home(text, expected):
    assert {f for f in _facts(text, "I live in Bergen.") if f[0] == "city"} == expected


def _cities(tenant, user: str) -> list[tuple]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m["value"], m["active"]) for m in listed.json()["memories"] if m["key"] == "city")


def test_a_move_away_for_a_while_keeps_the_home_through_the_api(tenant):
    tenant.turn("I live in Bergen.", session="s1", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I moved from Bergen to Oslo for a year.", session="s2", timestamp="2026-02-01T00:00:00Z")
    assert _cities(tenant, tenant.user) == [("Bergen", True)]


@pytest.mark.parametrize("text, history, expected", [
    ("Actually it's really Lisbon, not Porto.", ["I live in Porto."], {("city", "Lisbon", False)}),
    ("Actually it's honestly Lisbon, not Porto.", ["I live in Porto."], {("city", "Lisbon", False)}),
    ("Actually I really live in Lisbon, not Porto.", ["I live in Porto."], {("city", "Lisbon", False)}),
    # a hedge opening the sentence is no word of the right name (it filed "Honestly Lisbon")
    ("Honestly Lisbon, not Porto.", ["I live in Porto."], {("city", "Lisbon", False)}),
    # as without a hedge: nothing when no fact had the wrong value, nor for words that are not the fact's
    ("Actually it's really Lisbon, not Porto.", [], set()),
    ("Actually it's really Lisbon, not Porto.", ["I live in Faro."], set()),
    ("Actually it's really sunny in Lisbon, not Porto.", ["I live in Porto."], set()),
])
def test_a_correction_said_with_a_hedge(text, history, expected):
    """"Actually it's really Lisbon, not Porto." corrected nothing, though "Actually it's Lisbon, not Porto."
    does: the hedges a negation takes are no words of the fact corrected."""
    assert {f for f in _facts(text, *history) if f[0] == "city"} == expected


def test_a_correction_of_a_word_said_with_a_hedge():
    [plan] = _facts("Sorry, it's really Wednesday, not Tuesday.", "I'm flying to Berlin next Tuesday.")
    assert plan == ("plan", "flying to Berlin next Wednesday", False)


@pytest.mark.parametrize("sessions", [("s1", "s1"), ("s1", "s2")])
def test_a_correction_said_with_a_hedge_replaces_the_city_through_the_api(tenant, sessions):
    """Said in the session of "I live in Porto." or a later one (the pipeline reads the stored Porto)."""
    tenant.turn("I live in Porto.", session=sessions[0], timestamp="2026-01-01T00:00:00Z")
    tenant.turn("Actually it's really Lisbon, not Porto.", session=sessions[1], timestamp="2026-02-01T00:00:00Z")
    assert _cities(tenant, tenant.user) == [("Lisbon", True), ("Porto", False)]


@pytest.mark.parametrize("text, history, expected", [
    ("I'm honestly not vegan.", ["I'm vegan."], {("dietary_restriction", "vegan", True)}),
    ("I'm actually not vegetarian anymore.", ["I'm vegetarian."], {("dietary_restriction", "vegetarian", True)}),
    ("I'm seriously no longer pescatarian.", ["I'm pescatarian."], {("dietary_restriction", "pescatarian", True)}),
    ("Honestly, I'm truly not vegan!", ["I'm vegan."], {("dietary_restriction", "vegan", True)}),
    # as without a hedge: nothing when the diet was never held, or is someone else's
    ("I'm honestly not vegan.", [], set()),
    ("I'm honestly not vegan.", ["My sister is vegan."], set()),
    ("I'm honestly not vegan but my wife is.", ["I'm vegan."], set()),
])
def test_a_diet_denied_with_a_hedge(text, history, expected):
    assert {f for f in _facts(text, *history) if f[0] == "dietary_restriction"} == expected


@pytest.mark.parametrize("text, history, expected", [
    # retirement taken back: the past, which ends a current retirement
    ("I'm not retired anymore, I went back to work.", ["I'm retired now."], {("employment_status", "retired", True)}),
    ("I'm not retired anymore, I went back to work.", [], {("employment_status", "retired", True)}),
    ("I'm no longer retired.", [], {("employment_status", "retired", True)}),
    ("I'm actually not retired any more.", [], {("employment_status", "retired", True)}),
    ("I came out of retirement last year.", [], {("employment_status", "retired", True)}),
    # "not" alone: only when the user is retired as the session says
    ("I'm not retired.", ["I'm retired now."], {("employment_status", "retired", True)}),
    ("I'm honestly not retired.", ["I retired from teaching last year."], {("employment_status", "retired", True)}),
    ("I'm not retired.", [], set()),
    ("I'm not retired.", ["My dad is retired."], set()),
    ("I'm not retired.", ["I got laid off."], set()),
    ("I'm not retired yet.", [], set()),
    ("I'm not retired, I'm 30!", [], set()),
    ("Am I not retired?", ["I'm retired now."], set()),
    ("I'm not a retired teacher.", [], set()),
])
def test_being_retired_denied(text, history, expected):
    """Never "retired" as current: a denial ends it, or files nothing."""
    assert {f for f in _facts(text, *history) if f[0] == "employment_status"} == expected


def _statuses(tenant, user: str) -> list[tuple]:
    listed = tenant.get(f"/v1/users/{user}/memories", params={"include_inactive": "true", "limit": 500})
    statuses = sorted((m for m in listed.json()["memories"] if m["key"] == "employment_status"),
                      key=lambda m: m["created_at"])
    ids = {m["id"]: n for n, m in enumerate(statuses)}
    return [(m["value"], m["active"], m["valid_to"], ids.get(m["supersedes"])) for m in statuses]


@pytest.mark.parametrize("denial, sessions", [
    ("I'm not retired anymore, I went back to work.", ("s1", "s1")),
    ("I'm not retired.", ("s1", "s1")),
    # said in a later session: the extractor never sees "I'm retired now.", the pipeline reads it stored
    ("I'm not retired.", ("s1", "s2")),
])
def test_a_current_retirement_ends_when_denied_through_the_api(tenant, denial, sessions):
    assert tenant.turn("I'm retired now.", session=sessions[0], timestamp="2026-01-01T00:00:00Z").status_code == 201
    assert tenant.turn(denial, session=sessions[1], timestamp="2026-02-01T00:00:00Z").status_code == 201
    said, ended = _statuses(tenant, tenant.user)
    assert said[:2] == ("retired", False) and said[2] is not None and said[3] is None
    assert ended[:2] == ("retired", False) and ended[3] == 0


def test_a_denied_retirement_ends_nothing_else_through_the_api(tenant):
    """Never retired, or out of work: "I'm not retired." files nothing and ends nothing."""
    tenant.turn("I'm not retired.", user="never", session="s1", timestamp="2026-01-01T00:00:00Z")
    assert _statuses(tenant, "never") == []
    tenant.turn("I got laid off.", user="laid", session="s1", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm not retired.", user="laid", session="s2", timestamp="2026-02-01T00:00:00Z")
    assert _statuses(tenant, "laid") == [("out of work", True, None, None)]
