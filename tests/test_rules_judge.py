"""The rules judge: how a candidate relates to the user's active memories of the same key. Pure."""

from __future__ import annotations

import dataclasses

import pytest

from memex.jobs import Candidate
from memex.supersession import RulesJudge, decide


def _candidate(key: str, value: str, historical: bool = False, type_: str = "fact") -> Candidate:
    return Candidate(type=type_, key=key, value=value, content=f"{key}: {value}", confidence=0.8,
                     importance=0.7, source_message_id="m1", historical=historical)


def _memory(id_: str, key: str, value: str) -> dict:
    return {"id": id_, "key": key, "value": value, "content": f"{key}: {value}"}


@pytest.mark.parametrize("new, old", [
    ("Stripe", "Stripe"), ("stripe", "Stripe"), ("  New   York ", "new york"), ("Lisbon.", "Lisbon"),
    ("3", "3"), ("3", "3.0"), ("34", "034"),
])
def test_a_duplicate_is_a_noop(new, old):
    decision = decide(_candidate("employer", new), [_memory("m-old", "employer", old)])
    assert (decision.action, decision.replaces) == ("noop", [])
    assert "m-old" in decision.reason and "already known" in decision.reason


def test_a_duplicate_of_one_of_several_values_is_a_noop():
    active = [_memory("d1", "pet_dog_name", "Biscuit"), _memory("d2", "pet_dog_name", "Rex")]
    decision = decide(_candidate("pet_dog_name", "rex"), active)
    assert decision.action == "noop" and "d2" in decision.reason


@pytest.mark.parametrize("new, old", [("Lisbon", "Lisbon, Portugal"), ("sam", "Sam Smith")])
def test_a_less_precise_value_is_a_noop(new, old):
    decision = decide(_candidate("city", new), [_memory("m-old", "city", old)])
    assert (decision.action, decision.replaces) == ("noop", [])
    assert "says less than" in decision.reason


def test_a_more_precise_value_replaces_the_vaguer_one():
    active = [_memory("m-old", "city", "Lisbon")]
    decision = decide(_candidate("city", "Lisbon, Portugal"), active)
    assert (decision.action, decision.replaces) == ("supersede", active)


def test_a_shared_last_word_is_not_less_precise():
    active = [_memory("m-old", "city", "New York")]
    assert decide(_candidate("city", "York"), active).action == "supersede"


@pytest.mark.parametrize("active", [[], [_memory("m-old", "employer", "Notion")]])
def test_a_statement_about_the_past_is_kept_as_history(active):
    decision = decide(_candidate("employer", "Stripe", historical=True), active)
    assert (decision.action, decision.replaces) == ("keep_old", [])
    assert "past" in decision.reason


def test_the_past_naming_the_current_value_ends_it():
    """"I used to live in Paris" while Paris is current: Paris is over (it was a noop, which left
    "I quit Stripe" with Stripe the current employer). Another value of the key is untouched."""
    paris, lisbon = _memory("m-old", "city", "Paris"), _memory("m-2", "city", "Lisbon")
    decision = decide(_candidate("city", "paris", historical=True), [paris, lisbon])
    assert (decision.action, decision.replaces) == ("end", [paris])
    assert decide(_candidate("city", "Paris"), [paris]).action == "noop"  # said again, not over


def test_the_past_naming_the_current_value_without_its_year_ends_it():
    """"I sold my Honda Civic" while the car is the "2015 Honda Civic" said with its year: that car is over."""
    civic = _memory("m-old", "car", "2015 Honda Civic")
    assert decide(_candidate("car", "Honda Civic", historical=True), [civic]).replaces == [civic]
    assert decide(_candidate("car", "Ford Focus", historical=True), [civic]).replaces == []


def test_the_past_naming_the_current_value_by_its_first_words_ends_it():
    """"I sold the Skoda" while the car is the "Skoda Octavia": that car is over (it was a noop, a value that
    says less, which left the Octavia current); "York" is no first word of "New York"."""
    octavia, new_york = _memory("m-old", "car", "Skoda Octavia"), _memory("m-2", "city", "New York")
    decision = decide(_candidate("car", "Skoda", historical=True), [octavia])
    assert (decision.action, decision.replaces) == ("end", [octavia])
    assert decide(_candidate("car", "2015 Skoda", historical=True), [_memory("m-3", "car", "2015 Skoda Octavia")]
                  ).action == "end"
    assert decide(_candidate("city", "York", historical=True), [new_york]).replaces == []


def test_the_past_naming_a_roles_first_words_ends_no_role():
    """"I used to be a nurse" while the role is "nurse practitioner": an earlier role, which says less; only a
    car's make names the car (it ended the role, review revW)."""
    decision = decide(_candidate("role", "nurse", historical=True), [_memory("m-old", "role", "nurse practitioner")])
    assert (decision.action, decision.replaces) == ("noop", [])


def test_a_first_value_coexists():
    decision = decide(_candidate("city", "Lisbon"), [])
    assert (decision.action, decision.replaces) == ("coexist", [])
    assert "first value of city" in decision.reason


@pytest.mark.parametrize("key, old, new", [
    ("pet_dog_name", "Biscuit", "Rex"), ("pet_cat_name", "Miso", "Tofu"), ("child_name", "Leo", "Mia"),
    ("sister_name", "Ana", "Eva"), ("likes", "hiking", "jazz"), ("dislikes", "Mondays", "cilantro"),
    ("prefers", "tea", "bullet points"), ("allergy", "peanuts", "shellfish"), ("language", "Portuguese", "English"),
    ("hobby", "climbing", "chess"),
    # any pet's name: "We have two hamsters, Bo and Mo." (the second replaced the first before)
    ("pet_hamster_name", "Bo", "Mo"), ("pet_guinea_pig_name", "Salt", "Pepper"),
    # a pet's kind: "We adopted a kitten." beside "I have a dog."
    ("pet_kind", "dog", "cat"),
    # two passports, a second school or degree, a second subject: none ends the other
    ("nationality", "Irish", "American"), ("school", "Stanford", "MIT"), ("degree", "BA in history", "MBA"),
    ("field_of_study", "biology", "law"),
])
def test_a_multi_valued_key_adds_a_value(key, old, new):
    decision = decide(_candidate(key, new), [_memory("m-old", key, old)])
    assert (decision.action, decision.replaces) == ("coexist", [])
    assert "several values" in decision.reason


@pytest.mark.parametrize("key, old, new", [
    ("employer", "Stripe", "Notion"), ("city", "Porto", "Lisbon"), ("role", "engineer", "product manager"),
    ("partner_name", "Sam", "Alex"), ("age", "34", "35"), ("number_of_children", "2", "3"),
    ("dietary_restriction", "vegetarian", "vegan"), ("drinks_coffee", "yes", "no"),
    ("pet_rabbit_count", "2", "3"),
])
def test_a_single_valued_key_replaces_its_value(key, old, new):
    active = [_memory("m-old", key, old)]
    decision = decide(_candidate(key, new), active)
    assert (decision.action, decision.replaces) == ("supersede", active)
    assert repr(new) in decision.reason and repr(old) in decision.reason


def test_a_new_value_replaces_every_current_one():
    active = [_memory("a", "city", "Porto"), _memory("b", "city", "Faro")]
    assert decide(_candidate("city", "Lisbon"), active).replaces == active


def test_the_latest_opinion_replaces_the_earlier_one():
    active = [_memory("m-old", "opinion_about_remote_work", "great")]
    decision = decide(_candidate("opinion_about_remote_work", "overrated", type_="opinion"), active)
    assert (decision.action, decision.replaces) == ("supersede", active)
    assert "opinion changed" in decision.reason


def test_the_rules_judge_only_weighs_memories_of_the_same_key():
    related = [_memory("m-old", "hometown", "Porto")]
    assert RulesJudge().decide(_candidate("city", "Lisbon"), related).action == "coexist"


def test_a_correction_replaces_the_wrong_value_even_under_a_multi_valued_key():
    active = [_memory("d1", "pet_dog_name", "Rolo"), _memory("d2", "pet_dog_name", "Biscuit")]
    correction = Candidate(type="fact", key="pet_dog_name", value="Rollo", content="The user's dog is named Rollo.",
                           confidence=0.8, importance=0.7, source_message_id="m2", corrects="Rolo")
    decision = RulesJudge().decide(correction, active)
    assert decision.action == "supersede" and [m["id"] for m in decision.replaces] == ["d1"]
    assert "corrects 'Rolo'" in decision.reason


def test_liking_takes_back_disliking_the_same_thing():
    active = [_memory("x1", "dislikes", "sushi"), _memory("x2", "dislikes", "rain"), _memory("x3", "likes", "tea")]
    decision = RulesJudge().decide(_candidate("likes", "Sushi", type_="preference"), active)
    assert decision.action == "supersede" and [m["id"] for m in decision.replaces] == ["x1"]
    assert RulesJudge().decide(_candidate("likes", "jazz", type_="preference"), active).action == "coexist"


def test_giving_up_a_habit_takes_back_liking_what_it_names():
    active = [_memory("l1", "likes", "coffee"), _memory("l2", "prefers", "iced coffee"), _memory("l3", "likes", "tea"),
              _memory("l4", "likes", "coffee table books"), _memory("l5", "dislikes", "coffee")]
    decision = RulesJudge().decide(_candidate("drinks_coffee", "no"), active)
    assert decision.action == "supersede" and [m["id"] for m in decision.replaces] == ["l1", "l2"]
    assert "takes back likes 'coffee'" in decision.reason
    # nothing liked that it names: a first value, as before
    assert RulesJudge().decide(_candidate("eats_meat", "no"), active).action == "coexist"
    # already known: nothing new (the likes stay as they are)
    known = active + [_memory("n1", "drinks_coffee", "no")]
    assert RulesJudge().decide(_candidate("drinks_coffee", "no"), known).action == "noop"
    # the past is history, and takes back nothing
    assert RulesJudge().decide(_candidate("drinks_coffee", "no", historical=True), active).action == "keep_old"


def test_a_participant_giving_up_a_habit_takes_back_only_their_own_liking():
    from memex.supersession import related_keys

    melanie = Candidate(type="fact", key="melanie_drinks_coffee", value="no", content="Melanie does not drink coffee.",
                        confidence=0.8, importance=0.7, source_message_id="m1", subject="Melanie")
    assert related_keys(melanie) == ["melanie_drinks_coffee", "melanie_likes", "melanie_prefers"]
    active = [_memory("u1", "likes", "coffee"), _memory("m1", "melanie_likes", "coffee")]
    decision = RulesJudge().decide(melanie, active)
    assert decision.action == "supersede" and [m["id"] for m in decision.replaces] == ["m1"]


def test_a_switch_between_two_names_replaces_only_the_current_value_it_follows():
    """"I switched from Adobe to Figma" (Figma, only_replacing Adobe): Figma replaces Adobe when
    Adobe is the employer; with another employer, or none, nothing is filed."""
    figma = dataclasses.replace(_candidate("employer", "Figma"), only_replacing="Adobe")
    adobe = [_memory("m-adobe", "employer", "adobe"), _memory("m-city", "city", "Adobe")]
    decision = RulesJudge().decide(figma, adobe)
    assert (decision.action, decision.replaces) == ("supersede", adobe[:1])
    for active in ([_memory("m-acme", "employer", "Acme")], []):
        assert RulesJudge().decide(figma, active).action == "noop"


def test_a_relatives_job_is_not_the_users():
    """"My partner Sam is a nurse" is keyed partner_sam_role: the user's role is not related."""
    sam = _candidate("partner_sam_role", "nurse")
    decision = RulesJudge().decide(sam, [_memory("m-role", "role", "software engineer")])
    assert (decision.action, decision.replaces) == ("coexist", [])


def test_being_single_and_having_a_partner_take_each_other_back():
    partner = [_memory("p1", "partner_name", "Sam"), _memory("c1", "city", "Porto")]
    single = RulesJudge().decide(_candidate("relationship_status", "single"), partner)
    assert single.action == "supersede" and [m["id"] for m in single.replaces] == ["p1"]
    assert "partner_name 'Sam' is no longer current" in single.reason
    separated = RulesJudge().decide(_candidate("relationship_status", "separated"), partner)
    assert [m["id"] for m in separated.replaces] == ["p1"]
    # divorced or widowed say what happened: a partner named since stays
    assert RulesJudge().decide(_candidate("relationship_status", "divorced"), partner).action == "coexist"
    statuses = [_memory("s1", "relationship_status", "single"), _memory("s2", "relationship_status", "divorced")]
    named = RulesJudge().decide(_candidate("partner_name", "Alex"), statuses)
    assert named.action == "supersede" and [m["id"] for m in named.replaces] == ["s1"]
    # a former partner (history) takes back nothing
    assert RulesJudge().decide(_candidate("partner_name", "Alex", historical=True), statuses).action == "keep_old"


def test_a_participants_partnership_takes_back_only_their_own():
    from memex.supersession import related_keys

    melanie = Candidate(type="fact", key="melanie_relationship_status", value="single", content="Melanie is single.",
                        confidence=0.8, importance=0.7, source_message_id="m1", subject="Melanie")
    assert related_keys(melanie) == ["melanie_relationship_status", "melanie_partner_name"]
    active = [_memory("u1", "partner_name", "Sam"), _memory("m1", "melanie_partner_name", "Dev")]
    assert [m["id"] for m in RulesJudge().decide(melanie, active).replaces] == ["m1"]


def test_a_pet_over_without_its_name_ends_its_kind_and_its_only_name():
    """"We had to give our cat away." ends the cat, and Luna when she is the only cat; of two cats it
    says not which, and the dog is no cat."""
    gone = _candidate("pet_kind", "cat", historical=True, type_="event")
    luna, cat, rex = _memory("c1", "pet_cat_name", "Luna"), _memory("k1", "pet_kind", "cat"), _memory("d1", "pet_dog_name", "Rex")
    decision = RulesJudge().decide(gone, [cat, luna, rex])
    assert (decision.action, decision.replaces) == ("end", [cat, luna])
    two = RulesJudge().decide(gone, [luna, _memory("c2", "pet_cat_name", "Miso"), rex])
    assert two.action == "keep_old"
    assert RulesJudge().decide(gone, [rex]).action == "keep_old"
    # a guinea pig's names are under pet_guinea_pig_name
    pig = _memory("g1", "pet_guinea_pig_name", "Bo")
    assert RulesJudge().decide(_candidate("pet_kind", "guinea pig", historical=True, type_="event"), [pig]).replaces == [pig]


def test_a_pet_taken_back_ends_every_name_of_its_kind():
    """"Scratch that, I don't have a cat." (taken back: `ends_only`) says there is no cat: Luna and Miso
    end, as does a bare cat; the dog is no cat; with no cat current it is a noop (trial 20)."""
    denied = dataclasses.replace(_candidate("pet_kind", "cat", historical=True), ends_only=True)
    luna, miso, rex = (_memory("c1", "pet_cat_name", "Luna"), _memory("c2", "pet_cat_name", "Miso"),
                       _memory("d1", "pet_dog_name", "Rex"))
    decision = RulesJudge().decide(denied, [luna, miso, rex])
    assert (decision.action, decision.replaces) == ("end", [luna, miso])
    cat = _memory("k1", "pet_kind", "cat")
    assert RulesJudge().decide(denied, [cat, rex]).replaces == [cat]
    assert RulesJudge().decide(denied, [rex]).action == "noop"


def test_a_pet_once_had_ends_its_kind_but_no_named_pet_of_now():
    """"I used to have a dog." (a fact of the past, no event) says nothing of Rex, the dog the user has
    now: it ends an unnamed dog only, where "Our dog died." (an event) ends Rex too."""
    once = _candidate("pet_kind", "dog", historical=True)
    rex, dog = _memory("d1", "pet_dog_name", "Rex"), _memory("k1", "pet_kind", "dog")
    assert RulesJudge().decide(once, [rex]).action != "end"
    assert RulesJudge().decide(once, [dog, rex]).replaces == [dog]
    assert RulesJudge().decide(_candidate("pet_kind", "dog", historical=True, type_="event"), [rex]).replaces == [rex]


def test_a_pet_kind_alone_says_less_than_a_name_breed_or_count_of_that_kind():
    """"I have a dog." after "I have a dog named Rex." is nothing new; "My dog is called Rex." after
    "I have a dog." takes it back; a cat says nothing of the dog."""
    dog, rex = _memory("k1", "pet_kind", "dog"), _memory("d1", "pet_dog_name", "Rex")
    assert RulesJudge().decide(_candidate("pet_kind", "dog"), [rex]).action == "noop"
    assert RulesJudge().decide(_candidate("pet_kind", "cat"), [rex]).action == "coexist"
    named = RulesJudge().decide(_candidate("pet_dog_name", "Rex"), [dog])
    assert (named.action, named.replaces) == ("supersede", [dog])
    two = RulesJudge().decide(_candidate("pet_dog_count", "2"), [dog, _memory("c1", "pet_kind", "cat")])
    assert (two.action, two.replaces) == ("supersede", [dog])
    # the past says nothing more of the pets there are now
    assert RulesJudge().decide(_candidate("pet_dog_name", "Rusty", historical=True), [dog]).action == "keep_old"


def test_a_divorce_or_a_death_said_as_an_event_ends_the_current_spouse():
    partner = [_memory("p1", "partner_name", "Tom"), _memory("c1", "city", "Porto")]
    for status in ("divorced", "widowed"):
        event = RulesJudge().decide(_candidate("relationship_status", status, type_="event"), partner)
        assert event.action == "supersede" and [m["id"] for m in event.replaces] == ["p1"], event
        # said as what the user is, it ends nothing
        assert RulesJudge().decide(_candidate("relationship_status", status), partner).action == "coexist"
    # known already ("I'm divorced", an earlier marriage), and a spouse since: the spouse still ends
    known = partner + [_memory("s1", "relationship_status", "divorced")]
    again = RulesJudge().decide(_candidate("relationship_status", "divorced", type_="event"), known)
    assert again.action == "supersede" and sorted(m["id"] for m in again.replaces) == ["p1", "s1"]
    # a new partner leaves the user divorced
    assert RulesJudge().decide(_candidate("partner_name", "Alex"), known[2:]).action == "coexist"


def test_a_divorce_or_a_death_does_not_end_a_partner_the_user_never_married():
    girlfriend = [{**_memory("p1", "partner_name", "Lena"), "content": "The user's girlfriend is named Lena."}]
    for status in ("divorced", "widowed"):
        assert RulesJudge().decide(_candidate("relationship_status", status, type_="event"), girlfriend).action == "coexist"
    # being single ends any partner
    assert RulesJudge().decide(_candidate("relationship_status", "single"), girlfriend).replaces == girlfriend


def test_who_the_user_lives_with_holds_several_and_a_car_one():
    home = [_memory("h1", "lives_with", "mom")]
    assert RulesJudge().decide(_candidate("lives_with", "sister"), home).action == "coexist"
    assert RulesJudge().decide(_candidate("lives_with", "mom", historical=True), home).action == "end"
    car = [_memory("k1", "car", "Tesla Model 3")]
    assert [m["id"] for m in RulesJudge().decide(_candidate("car", "Honda Civic"), car).replaces] == ["k1"]
    assert [m["id"] for m in RulesJudge().decide(_candidate("car", "none"), car).replaces] == ["k1"]


def test_being_out_of_work_and_having_a_job_take_each_other_back():
    job = [_memory("e1", "employer", "Acme"), _memory("r1", "role", "designer"), _memory("c1", "city", "Porto")]
    for status in ("out of work", "retired"):
        out = RulesJudge().decide(_candidate("employment_status", status), job)
        assert out.action == "supersede" and sorted(m["id"] for m in out.replaces) == ["e1", "r1"], status
        assert "employer 'Acme'" in out.reason and "no longer current" in out.reason
    # a leave is beside the job
    assert RulesJudge().decide(_candidate("employment_status", "on parental leave"), job).action == "coexist"
    for status in ("out of work", "on parental leave"):
        hired = RulesJudge().decide(_candidate("employer", "Globex"), [_memory("s1", "employment_status", status)])
        assert hired.action == "supersede" and [m["id"] for m in hired.replaces] == ["s1"], status
    # a former employer (history) takes back nothing
    out = [_memory("s1", "employment_status", "out of work")]
    assert RulesJudge().decide(_candidate("employer", "Initech", historical=True), out).action == "keep_old"


def test_a_job_title_takes_back_being_without_work_said_in_another_message():
    for status in ("out of work", "retired"):
        out = [{**_memory("s1", "employment_status", status), "sources": [{"message_id": "m0"}]}]
        decision = RulesJudge().decide(_candidate("role", "nurse"), out)
        assert decision.action == "supersede" and [m["id"] for m in decision.replaces] == ["s1"], status
        # said in the message of the status ("I got laid off. I'm a nurse."), the title is the trade
        said_with = [{**out[0], "sources": [{"message_id": "m1"}]}]
        assert RulesJudge().decide(_candidate("role", "nurse"), said_with).action == "coexist", status
    # a leave and a student stay beside a job title; a student beside an employer too
    for status in ("on parental leave", "student"):
        beside = [{**_memory("s1", "employment_status", status), "sources": [{"message_id": "m0"}]}]
        assert RulesJudge().decide(_candidate("role", "nurse"), beside).action == "coexist", status
    student = [_memory("s1", "employment_status", "student")]
    assert RulesJudge().decide(_candidate("employer", "Starbucks"), student).action == "coexist"


def test_a_participants_work_status_takes_back_only_their_own_job():
    from memex.supersession import related_keys
    gina = Candidate(type="fact", key="gina_employment_status", value="out of work", content="Gina is out of work.",
                     confidence=0.8, importance=0.8, source_message_id="m1", subject="Gina")
    assert related_keys(gina) == ["gina_employment_status", "gina_employer", "gina_role"]
    active = [_memory("u1", "employer", "Acme"), _memory("g1", "gina_employer", "Door Dash")]
    decision = RulesJudge().decide(gina, active)
    assert [m["id"] for m in decision.replaces] == ["g1"]


@pytest.mark.parametrize("old, new", [("vegetarian", "lactose intolerant"), ("lactose intolerant", "vegetarian"),
                                      ("vegan", "gluten-free"), ("coeliac", "dairy-free"), ("halal", "vegetarian")])
def test_a_condition_or_rule_of_faith_and_a_diet_hold_together(old, new):
    """Trial 12: "I'm lactose intolerant" after "I'm vegetarian" filed her as no longer vegetarian."""
    decision = decide(_candidate("dietary_restriction", new), [_memory("m-old", "dietary_restriction", old)])
    assert (decision.action, decision.replaces) == ("coexist", [])


def test_a_new_diet_replaces_the_old_diet_and_leaves_a_condition_current():
    active = [_memory("d1", "dietary_restriction", "vegetarian"),
              _memory("d2", "dietary_restriction", "lactose intolerant")]
    decision = decide(_candidate("dietary_restriction", "vegan"), active)
    assert (decision.action, decision.replaces) == ("supersede", active[:1])
