"""Values whole and consistent, through the API: names with numbers, ampersands, "and" and hyphens
kept whole, filler words left out of a value, a negation taking back the positive it contradicts."""

from __future__ import annotations

import pytest


def _facts(tenant, include_inactive: bool = True) -> list[tuple[str, str, bool]]:
    body = tenant.get(f"/v1/users/{tenant.user}/memories?include_inactive={str(include_inactive).lower()}"
                      "&limit=200").json()
    return [(m["key"], m["value"], m["active"]) for m in body["memories"] if m["key"]]


@pytest.mark.parametrize("said, employer", [
    ("I now work at Company 7.", "Company 7"),
    ("I work for Procter and Gamble.", "Procter and Gamble"),
    ("I landed a job at 3M.", "3M"),
    ("I just started a new job at 7-Eleven.", "7-Eleven"),
    ("I joined Johnson & Johnson.", "Johnson & Johnson"),
])
def test_an_employer_is_stored_whole(tenant, said, employer):
    memories = tenant.turn(said).json()["memories"]
    assert [(m["key"], m["value"]) for m in memories if m["key"]] == [("employer", employer)]


def test_sixteen_numbered_companies_stay_sixteen_values(tenant):
    for n in range(1, 17):
        assert tenant.turn(f"I now work at Company {n}.", session=f"s{n}",
                           timestamp=f"2026-01-{n:02d}T09:00:00Z").status_code == 201
    employers = [(value, active) for key, value, active in _facts(tenant) if key == "employer"]
    assert sorted(value for value, _ in employers) == sorted(f"Company {n}" for n in range(1, 17))
    assert [value for value, active in employers if active] == ["Company 16"]


def test_giving_up_coffee_takes_back_liking_it_and_leaves_now_out_of_the_value(tenant):
    tenant.turn("I love coffee.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I stopped drinking coffee. I prefer green tea now.", timestamp="2026-02-05T09:00:00Z")
    facts = set(_facts(tenant))
    assert facts == {("likes", "coffee", False), ("drinks_coffee", "no", True), ("prefers", "green tea", True)}
    current = set(_facts(tenant, include_inactive=False))
    assert ("likes", "coffee", True) not in current
    liked = next(m for m in tenant.get(f"/v1/users/{tenant.user}/memories?include_inactive=true").json()["memories"]
                 if m["key"] == "drinks_coffee")
    history = tenant.get(f"/v1/memories/{liked['id']}/history").json()
    assert [m["value"] for m in history["history"]] == ["coffee", "no"], history


@pytest.mark.parametrize("said, fact", [
    ("I love hiking these days.", ("likes", "hiking")),
    ("I prefer green tea now.", ("prefers", "green tea")),
    ("I live in Lisbon now.", ("city", "Lisbon")),
    ("These days I work at Globex.", ("employer", "Globex")),
])
def test_filler_words_are_not_part_of_a_value(tenant, said, fact):
    memories = tenant.turn(said).json()["memories"]
    assert [(m["key"], m["value"]) for m in memories if m["key"]] == [fact]


def test_a_job_said_before_it_starts_leaves_the_employer_current(tenant):
    # "Where does the user work?" before April is still Stripe: the start is filed as the job to come.
    tenant.turn("I work at Stripe.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I handed in my notice. Starting at Notion in April.", timestamp="2026-02-05T09:00:00Z")
    assert set(_facts(tenant)) == {("employer", "Stripe", True), ("next_job", "starting at Notion in April", True)}
    facts = [r for r in tenant.search("where does the user work?") if r["key"]]
    assert facts[0]["value"] == "Stripe"


def test_the_employer_named_once_the_job_starts_ends_the_job_to_come(tenant):
    # On main the job to come was a plan among the others, which nothing ended: "starting at Notion
    # in April" stayed current beside the employer Notion.
    tenant.turn("I work at Stripe.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I start at Notion in April.", timestamp="2026-02-05T09:00:00Z")
    tenant.turn("I work at Stripe.", timestamp="2026-03-05T09:00:00Z")  # the employer said again ends nothing
    assert ("next_job", "starting at Notion in April", True) in _facts(tenant)
    tenant.turn("I just started at Notion.", timestamp="2026-04-02T09:00:00Z")
    assert set(_facts(tenant)) == {("employer", "Stripe", False), ("employer", "Notion", True),
                                   ("next_job", "starting at Notion in April", False)}


def test_the_city_moved_to_ends_the_plan_to_move_there(tenant):
    """The first-hour trial (docs/measurements/quality.md): "moving to New York next month" stayed
    a current plan after "We moved to New York", first for "what are my upcoming plans?" and in every
    recall's facts. A plan to go elsewhere, or not to move, stays."""
    tenant.turn("I live in Chicago.", timestamp="2026-11-01T09:00:00Z")
    tenant.turn("We're moving to New York next month.", timestamp="2026-11-09T09:00:00Z")
    tenant.turn("I'm planning a trip to Boston in March.", timestamp="2026-11-10T09:00:00Z")
    assert ("plan", "moving to New York next month", True) in _facts(tenant)
    tenant.turn("We moved to New York last weekend.", timestamp="2026-11-28T09:00:00Z")
    facts = set(_facts(tenant))
    assert ("plan", "moving to New York next month", False) in facts, facts
    assert ("city", "New York", True) in facts and ("city", "Chicago", False) in facts
    assert any(key == "plan" and "Boston" in value and active for key, value, active in facts), facts
    plans = [r["content"] for r in tenant.search("what are my upcoming plans?") if r["key"] == "plan"]
    assert plans and all("New York" not in plan for plan in plans), plans


def test_a_move_elsewhere_leaves_the_plan_to_move(tenant):
    tenant.turn("I'm moving to Berlin next month.", timestamp="2026-11-09T09:00:00Z")
    tenant.turn("I live in Munich.", timestamp="2026-11-20T09:00:00Z")
    assert ("plan", "moving to Berlin next month", True) in _facts(tenant)


def test_a_move_between_well_known_employers_changes_the_employer(tenant):
    tenant.turn("I live in Dublin.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved from Google to Meta.", timestamp="2026-02-05T09:00:00Z")
    assert set(_facts(tenant)) == {("city", "Dublin", True), ("employer", "Google", False),
                                   ("employer", "Meta", True)}


def test_a_partner_left_is_no_longer_current_and_stays_in_the_history(tenant):
    tenant.turn("My partner Sam is a nurse.", session="s1", timestamp="2026-01-05T09:00:00Z")
    memories = tenant.turn("Sam and I broke up last month.", session="s2", timestamp="2026-03-05T09:00:00Z").json()
    ended = [m for m in memories["memories"] if m["key"] == "partner_name"]
    assert [(m["value"], m["active"], m["content"]) for m in ended] == [("Sam", False, "The user's former partner is Sam.")]
    current = set(_facts(tenant, include_inactive=False))
    assert not [fact for fact in current if fact[0] == "partner_name"], current
    assert ("partner_name", "Sam", False) in set(_facts(tenant))


@pytest.mark.parametrize("then", ["We broke up last month.", "I'm single again."])
def test_being_single_now_ends_the_partner_and_a_new_partner_ends_being_single(tenant, then):
    tenant.turn("My girlfriend Lena moved in with me.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn(then, session="s2", timestamp="2026-03-05T09:00:00Z")
    current = set(_facts(tenant, include_inactive=False))
    assert ("relationship_status", "single", True) in current
    assert not [fact for fact in current if fact[0] == "partner_name"], current
    tenant.turn("I'm dating someone new, her name is Priya. My girlfriend Priya is great.", session="s3",
                timestamp="2026-05-05T09:00:00Z")
    current = set(_facts(tenant, include_inactive=False))
    assert ("partner_name", "Priya", True) in current and not [f for f in current if f[0] == "relationship_status"], current


def test_no_longer_with_a_name_ends_only_a_current_partner(tenant):
    """"I'm no longer with Sam." may be a firm: it files nothing unless Sam is the current partner."""
    assert [m for m in tenant.turn("I'm no longer with Sam.", session="s1").json()["memories"] if m["key"]] == []
    tenant.turn("My husband Tom is a chef.", session="s2", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I'm no longer with Tom.", session="s3", timestamp="2026-03-05T09:00:00Z")
    assert ("partner_name", "Tom", False) in set(_facts(tenant))
    assert not [f for f in _facts(tenant, include_inactive=False) if f[0] == "partner_name"]


def _current(tenant, key: str) -> set[str]:
    return {value for k, value, _ in _facts(tenant, include_inactive=False) if k == key}


def test_a_divorce_said_as_an_event_ends_the_spouse_and_what_was_said_of_them(tenant):
    tenant.turn("My husband Tom is a chef.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("We got divorced last year.", session="s2", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == set() and _current(tenant, "partner_tom_role") == set()
    assert _current(tenant, "relationship_status") == {"divorced"}
    assert ("partner_name", "Tom", False) in set(_facts(tenant))


def test_a_divorce_said_again_as_an_event_ends_a_spouse_married_since(tenant):
    tenant.turn("I'm divorced.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My husband Tom is a chef.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Tom"} and _current(tenant, "relationship_status") == {"divorced"}
    tenant.turn("We got divorced last month.", session="s3", timestamp="2026-06-05T09:00:00Z")
    assert _current(tenant, "partner_name") == set() and _current(tenant, "partner_tom_role") == set()
    statuses = [(value, active) for key, value, active in _facts(tenant) if key == "relationship_status"]
    assert sorted(statuses) == [("divorced", False), ("divorced", True)], statuses


def test_being_divorced_leaves_a_partner_named_since(tenant):
    """"I'm divorced" says what happened once; a divorce said beside a new partner came before them."""
    tenant.turn("My wife Anna is a teacher.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My wife and I divorced in 2019, and my girlfriend Lena moved in last month.", session="s2",
                timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Lena"}
    assert _current(tenant, "relationship_status") == {"divorced"}
    tenant.turn("I'm divorced, by the way.", session="s3", timestamp="2026-04-05T09:00:00Z")
    tenant.turn("We got divorced years ago.", session="s4", timestamp="2026-05-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Lena"}, "a girlfriend is no spouse a divorce ends"


def test_a_divorce_said_beside_the_current_partner_does_not_end_them(tenant):
    tenant.turn("My partner Sam is a nurse.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My partner Sam has been great; my husband and I got divorced in 2015.", session="s2",
                timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Sam"} and _current(tenant, "partner_sam_role") == {"nurse"}
    assert _current(tenant, "relationship_status") == {"divorced"}


def test_a_spouses_death_ends_the_partner_and_leaves_the_user_widowed(tenant):
    tenant.turn("My husband Tom is a chef.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My grandfather passed away.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Tom"}
    tenant.turn("My husband passed away in March.", session="s3", timestamp="2026-04-05T09:00:00Z")
    assert _current(tenant, "partner_name") == set() and _current(tenant, "partner_tom_role") == set()
    assert _current(tenant, "relationship_status") == {"widowed"}


def test_a_childs_later_age_replaces_the_earlier_and_a_car_sold_ends_it(tenant):
    tenant.turn("My son Max is 7.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My son Max just turned 8!", session="s2", timestamp="2026-06-05T09:00:00Z")
    assert _current(tenant, "child_max_age") == {"8"} and ("child_max_age", "7", False) in set(_facts(tenant))
    tenant.turn("I drive a Tesla Model 3.", session="s3", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I just bought a Honda Civic.", session="s4", timestamp="2026-07-05T09:00:00Z")
    assert _current(tenant, "car") == {"Honda Civic"} and ("car", "Tesla Model 3", False) in set(_facts(tenant))
    tenant.turn("I sold my car.", session="s5", timestamp="2026-08-05T09:00:00Z")
    assert _current(tenant, "car") == {"none"}


def test_who_the_user_lives_with_holds_several_and_one_moving_out_ends_only_them(tenant):
    tenant.turn("My mom lives with us now.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My sister moved in with me.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "lives_with") == {"mom", "sister"}
    tenant.turn("My sister moved out.", session="s3", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "lives_with") == {"mom"}


def test_no_car_ends_the_car_and_a_pet_of_a_breed_put_down_ends_its_name_and_breed(tenant):
    tenant.turn("I drive a Tesla Model 3.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I don't have a car anymore.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "car") == {"none"} and ("car", "Tesla Model 3", False) in set(_facts(tenant))
    tenant.turn("I have a beagle named Pepper.", "We have a cat named Luna.", session="s3",
                timestamp="2026-03-05T09:00:00Z")
    tenant.turn("We had to put our beagle Pepper down.", session="s4", timestamp="2026-04-05T09:00:00Z")
    assert _current(tenant, "pet_dog_name") == set() and _current(tenant, "pet_dog_breed") == set()
    assert _current(tenant, "pet_cat_name") == {"Luna"}
    tenant.turn("We have a dog.", session="s5", timestamp="2026-05-05T09:00:00Z")
    tenant.turn("I used to have a dog.", session="s6", timestamp="2026-06-05T09:00:00Z")
    assert _current(tenant, "pet_kind") == set() and _current(tenant, "pet_cat_name") == {"Luna"}


def test_a_dog_once_had_leaves_the_dog_of_now_and_a_dog_that_died_ends_it(tenant):
    tenant.turn("My dog Rex loves the beach.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I used to have a dog when I was a kid.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "pet_dog_name") == {"Rex"}
    tenant.turn("Our dog died last week.", session="s3", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "pet_dog_name") == set()


def _memories(tenant, key: str) -> list[dict]:
    body = tenant.get(f"/v1/users/{tenant.user}/memories?include_inactive=true&limit=200").json()
    return [m for m in body["memories"] if m["key"] == key]


def test_me_and_my_husband_got_divorced_ends_the_husband(tenant):
    tenant.turn("My husband Tom is a chef.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("Me and my husband got divorced.", session="s2", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == set() and _current(tenant, "partner_tom_role") == set()
    assert _current(tenant, "relationship_status") == {"divorced"}


def test_a_divorce_dated_before_the_current_partner_was_named_ends_nothing_current(tenant):
    """"I got divorced back in 2010", said after a partner was named in 2026: that divorce was of an
    earlier spouse. It stands in history at its own time, before the partner, and ends nothing."""
    tenant.turn("My husband Sam is a nurse.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I got divorced back in 2010.", session="s2", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Sam"} and _current(tenant, "partner_sam_role") == {"nurse"}
    [divorce] = _memories(tenant, "relationship_status")
    assert (divorce["value"], divorce["active"]) == ("divorced", False)
    assert divorce["valid_from"].startswith("2011-01-01") and divorce["valid_to"].startswith("2026-01-05")


def test_a_divorce_dated_after_the_partner_was_named_ends_them_then(tenant):
    tenant.turn("My husband Tom is a chef.", session="s1", timestamp="2024-01-05T09:00:00Z")
    tenant.turn("We got divorced in 2025.", session="s2", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == set() and _current(tenant, "partner_tom_role") == set()
    assert _current(tenant, "relationship_status") == {"divorced"}
    [tom] = _memories(tenant, "partner_name")
    assert tom["valid_to"].startswith("2026-01-01"), tom


def test_a_partner_one_is_seeing_ends_being_single(tenant):
    tenant.turn("I'm single.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I'm seeing Lena.", session="s2", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "partner_name") == {"Lena"} and _current(tenant, "relationship_status") == set()


def test_mom_and_dad_both_lived_with_and_a_relatives_later_age_replaces_the_earlier(tenant):
    tenant.turn("I live with my mom and dad.", session="s1", timestamp="2026-01-05T09:00:00Z")
    assert _current(tenant, "lives_with") == {"mom", "dad"}
    tenant.turn("My brother is 34.", session="s2", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My brother just turned 35.", session="s3", timestamp="2026-06-05T09:00:00Z")
    assert _current(tenant, "brother_age") == {"35"} and ("brother_age", "34", False) in set(_facts(tenant))


def test_a_named_mothers_age_is_replaced_by_one_said_without_her_name(tenant):
    tenant.turn("My mom Linda just turned 60.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("My mom just turned 61.", session="s2", timestamp="2026-06-05T09:00:00Z")
    # one current age of hers, the later; the earlier in her history
    assert {(key, value) for key, value, active in _facts(tenant) if key.endswith("_age") and active} == \
        {("mother_age", "61")}
    assert ("mother_age", "60", False) in set(_facts(tenant)) and _current(tenant, "mother_name") == {"Linda"}
    tenant.turn("My sister Ana is a student at Yale.", session="s4", timestamp="2026-07-05T09:00:00Z")
    assert _current(tenant, "sister_ana_school") == {"Yale"} and _current(tenant, "sister_ana_employer") == set()


def test_a_child_born_ends_expecting_and_keeps_it_in_the_history(tenant):
    # On main "expecting_baby" stayed "yes" after the child was born: nothing ended it.
    tenant.turn("We're expecting a baby!", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("Our daughter Ivy was born on Tuesday!", timestamp="2026-09-10T09:00:00Z")
    facts = set(_facts(tenant))
    assert facts == {("expecting_baby", "yes", False), ("child_name", "Ivy", True)}, facts


def test_an_older_child_named_while_expecting_leaves_the_baby_to_come(tenant):
    # On main any child named ended "expecting_baby": "My daughter Sara is 5." ended the pregnancy.
    tenant.turn("We're expecting a baby!", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("My daughter Sara is 5.", timestamp="2026-03-10T09:00:00Z")
    assert _current(tenant, "expecting_baby") == {"yes"} and _current(tenant, "child_name") == {"Sara"}
    tenant.turn("We welcomed our son Max!", timestamp="2026-09-10T09:00:00Z")
    assert _current(tenant, "expecting_baby") == set() and _current(tenant, "child_name") == {"Sara", "Max"}


def test_a_car_the_user_drives_ends_not_driving_and_one_bought_does_not(tenant):
    # On main "drives no" stayed current beside the Tesla the user said they drive.
    tenant.turn("I don't drive.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("We bought a Volvo.", session="s2", timestamp="2026-02-05T09:00:00Z")
    assert _current(tenant, "drives") == {"no"} and _current(tenant, "car") == {"Volvo"}
    tenant.turn("I drive a Tesla now.", session="s3", timestamp="2026-05-05T09:00:00Z")
    assert _current(tenant, "drives") == set() and ("drives", "no", False) in set(_facts(tenant))
    tenant.turn("I can't drive.", session="s4", timestamp="2026-06-05T09:00:00Z")
    assert _current(tenant, "drives") == {"no"} and _current(tenant, "car") == {"Tesla"}


def test_living_alone_ends_everyone_lived_with_and_someone_moving_in_ends_it(tenant):
    # On main "I live alone now." filed nothing: mom and sister stayed current.
    tenant.turn("I live with my mom and my sister.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I live with my mom and my sister.", session="s2", timestamp="2026-01-20T09:00:00Z")  # said again: nothing new
    assert _current(tenant, "lives_with") == {"mom", "sister"}
    tenant.turn("I live alone now.", session="s3", timestamp="2026-03-05T09:00:00Z")
    assert _current(tenant, "lives_with") == {"alone"}
    assert {("lives_with", "mom", False), ("lives_with", "sister", False)} <= set(_facts(tenant))
    tenant.turn("My brother moved in with me.", session="s4", timestamp="2026-05-05T09:00:00Z")
    assert _current(tenant, "lives_with") == {"brother"}
