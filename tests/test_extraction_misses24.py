"""What the offline rules misread (stay2): a stay's clause ran on through "that", so a role at a school "that
closes for the summer" was a summer role and filed nothing; it stopped at the dot of "St.", so a summer role at
"St. Mary's" was filed as the kept one; ", but I quit" did not end a job as "and I quit" does; a move out of
"our apartment" ahead filed no plan. Each beside sentences that must file what they filed before."""

import pytest

from memex.extraction.offline import OfflineExtractor


def _facts(content: str, *history: str) -> set[tuple[str, str, bool]]:
    earlier = [{"id": f"h{i}", "role": "user", "content": said} for i, said in enumerate(history)]
    found = OfflineExtractor().extract([{"id": "m", "role": "user", "content": content}], earlier)
    return {(c.key, c.value, c.historical) for c in found}


@pytest.mark.parametrize("text, key, expected", [
    # "for the summer" in a clause of its own ("that closes for the summer") is the school's, not the role's
    ("I'm a teacher at a school that closes for the summer.", "role", {("role", "teacher", False)}),
    ("My wife is a teacher at a school that closes for the summer.", "partner_role",
     {("partner_role", "teacher", False)}),
    # a "that" clause about the user's own arrangement is the stay's clause still
    ("I'm living in Lisbon in an apartment that I rented for two months.", "city", set()),
    ("I live in Lisbon in a flat that I rent for the summer.", "city", set()),
    ("I'm a nurse at a clinic that hired me for the summer.", "role", set()),
    # a stay said in the role's own clause is still a stay
    ("I'm a teacher at Lincoln High for the summer.", "role", set()),
    ("I'm a lifeguard for the summer.", "role", set()),
    ("My sister is a lifeguard for the summer.", "sister_role", set()),
])
def test_a_clause_of_its_own_is_no_stay(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


@pytest.mark.parametrize("text, key, expected", [
    # a summer role at a place whose name is abbreviated is a stay, as it is without the dot
    ("I'm a nurse at St. Mary's for the summer.", "role", set()),
    ("My husband Ken is a nurse at St. Mary's for the summer.", "partner_ken_role", set()),
    ("I'm a nurse at St Mary's for the summer.", "role", set()),
    ("I work as a nurse at Mt. Sinai until March.", "role", set()),
    # the kept role at the same place, and a sentence ended after it, as before
    ("I'm a nurse at St. Mary's Hospital.", "role", {("role", "nurse", False)}),
    ("I'm a nurse at St. Mary's. We close for the summer.", "role", {("role", "nurse", False)}),
])
def test_a_stay_crosses_an_abbreviations_dot(text, key, expected):
    assert {f for f in _facts(text) if f[0] == key} == expected


@pytest.mark.parametrize("text, expected", [
    # "but I quit" ends the job as "and I quit" does: nothing current is filed
    ("I've been a nurse for 15 years, but I quit last year.", set()),
    ("I've been working at Google for three years, but I quit last month.", set()),
    ("I've been a nurse for 15 years and I quit last year.", set()),
    ("I started at Google in 2019, and left in 2022.", set()),
    # another one left is no end of this one
    ("I work at Google, but I left Microsoft in 2019.", {("employer", "Google", False), ("employer", "Microsoft", True)}),
    ("I work at Google and I left Microsoft in 2019.", {("employer", "Google", False), ("employer", "Microsoft", True)}),
    # something other than the job or the place left, lower-case, is no end of it either
    ("I live in Dublin, but I left my phone at home.", {("city", "Dublin", False)}),
    ("I work at Google, but I left school at 16.", {("employer", "Google", False)}),
    ("I work at Google, but I quit social media.", {("employer", "Google", False)}),
    # a day or a month after it is when it ended, not a name of another one left
    ("I work at Google and I quit Monday.", set()),
    ("I started at Google in 2019 and left in March.", set()),
    ("I worked at Google and left it in 2020.", set()),
    # a habit given up is no end of the job
    ("I work at Google, but I quit smoking.", {("employer", "Google", False), ("smokes", "no", False)}),
    ("I work at Google and I quit drinking last year.", {("employer", "Google", False),
                                                          ("drinks_alcohol", "no", False)}),
    ("I worked at Google and left during the pandemic.", set()),
    # an ending in a sentence of its own, or a clause without "and" or "but", as before
    ("I've been a nurse for 15 years. I quit smoking last year.", {("role", "nurse", False), ("smokes", "no", False)}),
    ("I work at Google, I left Acme.", {("employer", "Google", False), ("employer", "Acme", True)}),
])
def test_but_i_quit_ends_a_job(text, expected):
    assert _facts(text) == expected


@pytest.mark.parametrize("text, expected", [
    # a move out of the user's home ahead is a plan, in the user's words, as a move out of a city is
    ("We're moving out of our apartment next month.", {("plan", "moving out of their apartment next month", False)}),
    ("I'm moving out of my flat in March.", {("plan", "moving out of their flat in March", False)}),
    ("Next month we're moving out of our house.", {("plan", "moving out of their house next month", False)}),
    # no time ahead, someone else's, or done: no plan
    ("We're moving out of our apartment.", set()),
    ("My sister is moving out of her apartment next month.", set()),
    ("We moved out of our apartment last month.", set()),
])
def test_a_move_out_of_a_home_ahead_is_a_plan(text, expected):
    assert _facts(text) == expected
