"""History follows time and one user's memory changes one at a time, on every path (issue 7,
classes 2 and 3): concurrent inline turns, out-of-order arrival, and a judge that is slow."""

from __future__ import annotations

import dataclasses
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from memex import embedded_text, memories, pipeline
from memex.db import history, locks
from memex.errors import NotFound
from memex.ingest import ingest_turn
from memex.jobs import ExtractionJob, SupersessionJob
from memex.models import TurnIn
from memex.retrieval import past, topics
from memex.supersession import RulesJudge
from tests.conftest import WrappedEmbedder, comes_to_wait_on_users_lock, current_values

COMPANIES = ["Stripe", "Notion", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Cyberdyne",
             "Soylent", "Tyrell", "Wonka", "Gringotts", "Oscorp", "Wayne", "Stark", "Acme"]
CITIES = ["Lisbon", "Porto", "Berlin", "Madrid", "Vienna", "Oslo"]


def _turn(user: str, text: str, timestamp: str | None = None, session: str = "s1") -> TurnIn:
    return TurnIn(user_id=user, session_id=session, timestamp=timestamp,
                  messages=[{"role": "user", "content": text}])


def _active(tenant, key: str) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    return [m for m in listed if m["key"] == key]


def _history(tenant, memory_id: str) -> list[dict]:
    return tenant.get(f"/v1/memories/{memory_id}/history").json()["history"]


def _assert_linear(chain: list[dict]) -> None:
    """Oldest first: each value ends when the next begins, and each replaces the one before."""
    for older, newer in zip(chain, chain[1:]):
        assert newer["supersedes"] == older["id"], (older["value"], newer["value"])
        assert older["active"] is False and older["valid_to"] == newer["valid_from"]
        assert older["valid_from"] < older["valid_to"]
    assert chain[-1]["active"] is True and chain[-1]["valid_to"] is None


def test_concurrent_inline_and_queued_writers_leave_one_current_value_and_one_chain(ctx, tenant, runtime):
    day = lambda i: f"2026-03-{i + 1:02d}T12:00:00Z"  # noqa: E731 - distinct times, in any arrival order
    order = list(range(len(COMPANIES)))
    random.Random(7).shuffle(order)

    def write(i: int) -> None:
        ingest_turn(ctx, tenant.id, _turn(tenant.user, f"I work at {COMPANIES[i]}.", day(i)), wait=i % 2 == 0)

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(write, order))
    runtime.drain()
    active = [m for m in _active(tenant, "employer") if m["active"]]
    assert [m["value"] for m in active] == ["Acme"]  # the one stated last
    chain = _history(tenant, active[0]["id"])
    assert [m["value"] for m in chain] == COMPANIES
    _assert_linear(chain)


def test_a_backfill_out_of_order_builds_the_history_in_time_order(ctx, tenant, runtime):
    months = list(range(6))
    random.Random(3).shuffle(months)
    for i in months:  # arrival order is not time order
        ingest_turn(ctx, tenant.id, _turn(tenant.user, f"I live in {CITIES[i]} and I work at {COMPANIES[i]}.",
                                          f"2026-{i + 1:02d}-01T00:00:00Z"), wait=False)
    runtime.drain()
    for key, values in (("city", CITIES), ("employer", COMPANIES[:6])):
        listed = _active(tenant, key)
        assert len(listed) == 1 and listed[0]["value"] == values[-1]
        chain = _history(tenant, listed[0]["id"])
        assert [m["value"] for m in chain] == values
        _assert_linear(chain)
        everything = tenant.get(f"/v1/users/{tenant.user}/memories",
                                params={"include_inactive": "true", "limit": 500}).json()["memories"]
        assert len([m for m in everything if m["key"] == key]) == 6  # no orphans outside the chain


def test_a_late_fact_takes_its_place_between_two_values(ctx, tenant):
    for text, when in (("I live in Lisbon.", "2026-01-01T00:00:00Z"), ("I live in Berlin.", "2026-03-01T00:00:00Z"),
                       ("I live in Porto.", "2026-02-01T00:00:00Z")):
        assert tenant.turn(text, timestamp=when).status_code == 201
    current = [m for m in _active(tenant, "city") if m["active"]]
    assert [m["value"] for m in current] == ["Berlin"]
    chain = _history(tenant, current[0]["id"])
    assert [(m["value"], m["valid_from"][:10], (m["valid_to"] or "")[:10]) for m in chain] == [
        ("Lisbon", "2026-01-01", "2026-02-01"), ("Porto", "2026-02-01", "2026-03-01"), ("Berlin", "2026-03-01", "")]
    _assert_linear(chain)


def test_a_late_fact_says_why_it_is_history_not_that_it_replaced_the_later_value(tenant):
    # Judged against the current value, it read "'Porto' replaces 'Berlin'", on a Porto filed in
    # Berlin's history, replaced by it.
    tenant.turn("I live in Berlin.", timestamp="2026-03-01T00:00:00Z")
    tenant.turn("I live in Porto.", timestamp="2026-02-01T00:00:00Z")
    porto = next(m for m in _everything(tenant, "city") if m["value"] == "Porto")
    assert not porto["active"]
    assert porto["metadata"]["reason"] == ("city holds one value: 'Porto' was said before a later value, "
                                           "which replaces it: kept in its history at its own time")


def test_a_statement_about_the_past_joins_the_history_of_the_current_value(tenant):
    tenant.turn("I live in Lisbon.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I used to live in Paris.", timestamp="2026-02-01T00:00:00Z")
    current = [m for m in _active(tenant, "city") if m["active"]]
    assert [m["value"] for m in current] == ["Lisbon"]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["Paris", "Lisbon"]



def _everything(tenant, key: str) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return [m for m in listed.json()["memories"] if m["key"] == key]


def test_leaving_ends_the_current_value_and_invents_none(tenant):
    """"I quit Stripe" while Stripe is the employer: the user has no current employer (it was a noop,
    Stripe stayed current), the statement is Stripe's history, and a new job is current again."""
    tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I quit Stripe.", timestamp="2026-02-01T00:00:00Z")
    employer = _everything(tenant, "employer")
    assert [m for m in employer if m["active"]] == []
    stripe, ended = sorted(employer, key=lambda m: m["created_at"])
    assert stripe["valid_to"][:10] == "2026-02-01" and ended["supersedes"] == stripe["id"]
    assert ended["content"] == "The user used to work at Stripe."
    assert [m["value"] for m in _history(tenant, ended["id"])] == ["Stripe", "Stripe"]
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z")
    current = [m for m in _active(tenant, "employer") if m["active"]]
    assert [m["value"] for m in current] == ["Notion"]


def test_a_name_left_alone_ends_the_employer_it_names_and_nothing_else(tenant):
    """"I left Feedzai." may be a job or a person: it ends the employer only when Feedzai is the
    current one, and "I left Tom." files nothing (the employer stays, no "used to work at Tom")."""
    tenant.turn("I work at Feedzai.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I left Tom after five years.", timestamp="2026-01-15T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employer")] == [("Feedzai", True)]
    tenant.turn("Big news: I left Feedzai. I'm joining Revolut next month.", timestamp="2026-02-01T00:00:00Z")
    employer = sorted(_everything(tenant, "employer"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"], m["content"]) for m in employer] == [
        ("Feedzai", False, "The user's employer is Feedzai."), ("Feedzai", False, "The user used to work at Feedzai.")]
    assert employer[0]["valid_to"][:10] == "2026-02-01" and employer[1]["supersedes"] == employer[0]["id"]


def test_a_goodbye_said_with_the_next_first_day_ends_the_employer_and_files_the_job_ahead(tenant):
    """"First day at Twilio tomorrow, said goodbye to everyone at Canva.": Canva ends (it stayed the
    employer for weeks) and Twilio is the job to come."""
    tenant.turn("I work at Canva.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("First day at Twilio tomorrow, said goodbye to everyone at Canva.", timestamp="2026-02-01T00:00:00Z")
    employer = sorted(_everything(tenant, "employer"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in employer] == [("Canva", False), ("Canva", False)]
    assert employer[0]["valid_to"][:10] == "2026-02-01" and employer[1]["supersedes"] == employer[0]["id"]
    assert [m["value"] for m in _active(tenant, "next_job")] == ["first day at Twilio tomorrow"]


def test_a_pets_death_said_by_its_name_alone_ends_that_pet(tenant):
    """"Pickle passed away last week", Pickle being the dog the session named: the dog's name ends
    (it stayed current, and was listed in recall, before) and nothing else is filed."""
    tenant.turn("My dog Pickle loves the beach.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("Pickle passed away last week.", timestamp="2026-02-01T00:00:00Z")
    pet = sorted(_everything(tenant, "pet_dog_name"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in pet] == [("Pickle", False), ("Pickle", False)]
    # it ended last week (said on Sunday 1 February: by Monday 26 January), not when it was said
    assert pet[0]["valid_to"][:10] == "2026-01-26" and pet[1]["supersedes"] == pet[0]["id"]
    assert pet[1]["content"] == "The user used to have a dog named Pickle."


def test_a_pets_death_said_by_its_name_in_a_later_session_ends_that_pet(tenant):
    """"Pickle passed away last week" in a session that never names Pickle, the dog named in another
    session weeks before: the dog's name ends all the same (the session's history alone left it current)."""
    tenant.turn("My dog Pickle loves the beach.", timestamp="2026-01-01T00:00:00Z", session="spring")
    tenant.turn("Pickle passed away last week, we're heartbroken.", timestamp="2026-02-15T00:00:00Z", session="later")
    pet = sorted(_everything(tenant, "pet_dog_name"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in pet] == [("Pickle", False), ("Pickle", False)]
    assert pet[0]["valid_to"][:10] == "2026-02-09" and pet[1]["supersedes"] == pet[0]["id"]  # last week's end


def test_a_name_alone_that_is_no_current_pet_ends_nothing(tenant):
    """"Pickle passed the exam" reads no death, and "Pickle died" of a person (the sister) files no
    pet: the dog of an earlier session stays current, and nothing is filed under a pet's key."""
    tenant.turn("My dog Pickle loves the beach.", timestamp="2026-01-01T00:00:00Z", session="spring")
    tenant.turn("My sister is Maya.", timestamp="2026-01-02T00:00:00Z", session="spring")
    tenant.turn("Pickle passed the exam.", timestamp="2026-02-15T00:00:00Z", session="later")
    tenant.turn("Maya passed away last week.", timestamp="2026-02-16T00:00:00Z", session="other")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    pets = [(m["key"], m["value"], m["active"]) for m in listed.json()["memories"] if (m["key"] or "").startswith("pet_")]
    assert pets == [("pet_dog_name", "Pickle", True)]


def test_a_correction_in_a_later_session_corrects_the_current_fact_it_names(ctx, tenant):
    """"I said Tuesday but I meant Thursday." a week after "My dentist appointment is on Tuesday.", in
    another session: the appointment is Thursday, Tuesday its history (the session's history alone holds no
    Tuesday). Decided again on a redelivery, nothing changes."""
    tenant.turn("My dentist appointment is on Tuesday.", timestamp="2026-01-01T00:00:00Z", session="monday")
    said = tenant.turn("I said Tuesday but I meant Thursday.", timestamp="2026-01-08T00:00:00Z", session="later")
    assert said.status_code == 201
    tenant.turn("When I wrote York I meant Leeds.", timestamp="2026-01-09T00:00:00Z", session="other")

    def chains() -> list[tuple[str, str, bool, str | None]]:
        found = sorted(_everything(tenant, "event_dentist_appointment"), key=lambda m: m["created_at"])
        return [(m["value"], m["content"], m["active"], m["valid_to"]) for m in found]

    assert [(v, a) for v, _, a, _ in chains()] == [("Tuesday", False), ("Thursday", True)]
    assert chains()[0][3][:10] == "2026-01-08" and chains()[1][1] == "The user's dentist appointment is on Thursday."
    before = chains()
    turn_id = said.json()["turn_id"]
    pipeline.extract(ctx, ExtractionJob(tenant.id, turn_id))
    pipeline.resolve(ctx, SupersessionJob(tenant.id, tenant.user, turn_id))
    assert chains() == before


def test_a_later_correction_of_a_value_no_fact_holds_files_and_ends_nothing(tenant):
    """"I said Monday but I meant Friday." in a later session, while the appointment is on Tuesday and no
    fact holds Monday: nothing is filed and the appointment stays Tuesday."""
    tenant.turn("My dentist appointment is on Tuesday.", timestamp="2026-01-01T00:00:00Z", session="monday")
    said = tenant.turn("I said Monday but I meant Friday.", timestamp="2026-01-08T00:00:00Z", session="later")
    assert [m for m in said.json()["memories"] if m["memory_type"] == "semantic"] == []
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    assert [(m["key"], m["value"], m["active"]) for m in listed.json()["memories"] if m["memory_type"] == "semantic"] \
        == [("event_dentist_appointment", "Tuesday", True)]


def test_a_country_said_after_the_town_grown_up_in_leaves_the_town(tenant):
    """"I grew up in Naples." then "im from italy originally": the country may hold the town and says
    less of where the user grew up, so Naples stays current beside Italy; a region said after a region
    still replaces it ("born in Ohio", then "born in Texas")."""
    tenant.turn("I grew up in Naples.", timestamp="2026-01-01T00:00:00Z", session="first")
    tenant.turn("im from italy originally", timestamp="2026-01-08T00:00:00Z", session="second")
    tenant.turn("I was born in Ohio.", timestamp="2026-01-09T00:00:00Z", session="second")
    tenant.turn("Sorry, I was born in Texas.", timestamp="2026-01-10T00:00:00Z", session="third")
    current = sorted((m["key"], m["value"]) for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
                     if m["memory_type"] == "semantic")
    assert current == [("birthplace", "Texas"), ("hometown", "Italy"), ("hometown", "Naples")]


def test_a_car_said_with_its_year_is_ended_by_the_car_sold_without_it(tenant):
    """"I drive a 2015 Honda Civic." then "I sold my Honda Civic.": the car said with its year is over (the
    rules keep the year since round 16; the past naming it without the year ends it all the same)."""
    tenant.turn("I drive a 2015 Honda Civic.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I sold my Honda Civic.", timestamp="2026-02-01T00:00:00Z")
    car = sorted(_everything(tenant, "car"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in car] == [("2015 Honda Civic", False), ("Honda Civic", False)]
    assert car[0]["valid_to"][:10] == "2026-02-01" and car[1]["supersedes"] == car[0]["id"]


@pytest.mark.parametrize("said", ["I sold the Skoda and bought a Skoda Octavia.",
                                  "I bought a Skoda Octavia and sold the Skoda."])
def test_a_car_bought_beside_its_make_sold_stays_current_whichever_is_said_first(tenant, said):
    """"I drive a Skoda Fabia." then a Skoda Octavia bought and "the Skoda" sold in one turn: the make names the
    Fabia, which the Octavia replaces; it ended the Octavia (review revW). The make sold in a later turn still
    ends the car of that make (qa9's "i drive a skoda octavia" ... "sold the skoda")."""
    tenant.turn("I drive a Skoda Fabia.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(said, timestamp="2026-02-01T00:00:00Z")
    assert current_values(tenant, "car") == ["Skoda Octavia"]
    tenant.turn("I sold the Skoda.", timestamp="2026-03-01T00:00:00Z")
    assert current_values(tenant, "car") == []


def test_a_role_said_by_its_first_words_in_the_past_ends_no_current_role(tenant):
    """"I'm a nurse practitioner." then "I used to be a nurse.": an earlier role, not the current one by its
    first words (a car's make names its model; a role's first words name another role)."""
    tenant.turn("I'm a nurse practitioner.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I used to be a nurse.", timestamp="2026-02-01T00:00:00Z")
    assert current_values(tenant, "role") == ["nurse practitioner"]


def test_a_month_worked_from_home_in_leaves_the_city(tenant):
    """"I live in Leeds." then "I work from home in August.": August is when, no city replacing Leeds (review
    revW)."""
    tenant.turn("I live in Leeds.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work from home in August.", timestamp="2026-02-01T00:00:00Z")
    assert current_values(tenant, "city") == ["Leeds"]


def test_a_job_taken_after_one_ended_continues_its_chain(tenant):
    """The current value's history lists every value the key had, an ended one too: Notion, taken
    after Stripe was quit, replaces the statement that ended Stripe, whose time stays the quitting's."""
    tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I quit Stripe.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z")
    notion = [m for m in _active(tenant, "employer") if m["active"]]
    assert [m["value"] for m in notion] == ["Notion"]
    chain = _history(tenant, notion[0]["id"])
    assert [(m["value"], m["content"]) for m in chain] == [
        ("Stripe", "The user's employer is Stripe."), ("Stripe", "The user used to work at Stripe."),
        ("Notion", "The user's employer is Notion.")]
    stripe, ended, _ = chain
    assert notion[0]["supersedes"] == ended["id"] and ended["supersedes"] == stripe["id"]
    assert stripe["valid_to"][:10] == ended["valid_to"][:10] == "2026-02-01"
    assert notion[0]["valid_from"][:10] == "2026-03-01"


def test_a_value_that_continues_an_ended_chain_says_so_not_that_it_is_the_first(tenant):
    """Notion, taken after Stripe was quit, is the third link of Stripe's chain: its reason names the
    value that ended before it, where "first value of employer" contradicted the history beside it."""
    tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I quit Stripe.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z")
    [notion] = [m for m in _active(tenant, "employer") if m["active"]]
    assert notion["metadata"]["decision"] == "coexist"
    assert notion["metadata"]["reason"] == ("employer had no current value: 'Notion' follows 'Stripe', which "
                                            "ended, in its history")
    first = tenant.through(tenant._http)
    first.user = first.user + "-1"
    first.turn("I work at Notion now.", timestamp="2026-03-01T00:00:00Z")
    [alone] = _active(first, "employer")
    assert alone["metadata"]["reason"] == "first value of employer: 'Notion'"


def test_an_ended_value_is_continued_only_by_its_own_subject_and_a_single_valued_key(tenant):
    """Melanie's new job does not continue the user's ended one, nor a second pet a pet that is gone,
    nor a job said before the end (it was current then, beside the ended one's chain)."""
    tenant.turn("I work at Stripe.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I quit Stripe.", timestamp="2026-02-01T00:00:00Z")
    said = tenant.post("/v1/turns?wait=true", {
        "user_id": tenant.user, "session_id": "s1", "timestamp": "2026-03-01T00:00:00Z", "user_name": "Caroline",
        "messages": [{"role": "user", "name": "Melanie", "content": "I work at Globex."}]})
    assert said.status_code == 201, said.text
    melanie = [m for m in _everything(tenant, "melanie_employer")]
    assert [(m["value"], m["supersedes"]) for m in melanie] == [("Globex", None)]
    tenant.turn("I have a dog named Rex.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I used to have a dog named Rex.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I have a dog named Max.", timestamp="2026-03-01T00:00:00Z")
    dogs = [m for m in _everything(tenant, "pet_dog_name") if m["active"]]
    assert [(m["value"], m["supersedes"]) for m in dogs] == [("Max", None)]


def test_a_job_left_for_another_in_one_turn_keeps_one_chain(tenant):
    """What a turn says is current is decided before what it says is over: Revolut replaces Deutsche
    Bank, rather than Deutsche Bank ending and Revolut starting a history of its own."""
    tenant.turn("I work at Deutsche Bank.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I left Deutsche Bank last year and now I work at Revolut.", timestamp="2026-02-01T00:00:00Z")
    current = [m for m in _active(tenant, "employer") if m["active"]]
    assert [m["value"] for m in current] == ["Revolut"]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["Deutsche Bank", "Revolut"]


def test_a_switch_between_two_names_replaces_the_employer_only_when_it_names_it(tenant):
    """"I switched from Adobe to Figma" may be a designer's tools: with Acme the employer it files
    nothing; with Adobe the employer, Figma replaces it in one chain (issue 11)."""
    tenant.turn("I work at Acme.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I switched from Adobe to Figma.", timestamp="2026-01-15T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employer")] == [("Acme", True)]
    tenant.turn("I work at Adobe now.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I switched from Adobe to Figma.", timestamp="2026-03-01T00:00:00Z")
    current = [m for m in _active(tenant, "employer") if m["active"]]
    assert [(m["value"], m["content"]) for m in current] == [("Figma", "The user's employer is Figma.")]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["Acme", "Adobe", "Figma"]
    assert "Figma" in [r["value"] for r in tenant.search("Where does the user work?")[:2]]


def test_a_named_relatives_job_is_found_by_their_name_and_never_replaces_the_users(tenant):
    """"My partner Sam is a nurse." is the user's fact naming Sam: a question about Sam finds it, the
    user's own job stays current, and Sam's next job replaces only Sam's (issue 11)."""
    tenant.turn("I'm a software engineer.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My partner Sam is a nurse.", timestamp="2026-02-01T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("software engineer", True)]
    found = [r["content"] for r in tenant.search("What does Sam do for a living?")[:3]]
    assert "The user's partner Sam is a nurse." in found
    tenant.turn("My partner Sam is a doctor now.", timestamp="2026-03-01T00:00:00Z")
    current = [m for m in _active(tenant, "partner_sam_role") if m["active"]]
    assert [m["value"] for m in current] == ["doctor"]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["nurse", "doctor"]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("software engineer", True)]


@pytest.mark.parametrize("name, asked", [("Zoë", "Zoe"), ("Zoë", "ZOË"), ("Zoe\u0308", "Zoë"), ("İbrahim", "Ibrahim"),
                                         ("İbrahim", "İbrahim"), ("Łukasz", "Lukasz")])
def test_a_replaced_fact_keyed_by_a_name_in_any_script_is_named_by_it_with_or_without_accents(ctx, tenant, name, asked):
    """A key keeps a name's letters ("sister_zoë_city"); a question names it folded or not, as the
    keyword channel reads both (memex_text): "Where was Zoe before?" asks for that key's history by
    the name alone (history.send_asked with no vector: only what the key names)."""
    tenant.turn(f"My sister {name} lives in Porto.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(f"My sister {name} moved to Berlin.", timestamp="2026-03-01T00:00:00Z")
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500}).json()["memories"]
    [current] = [m for m in listed if (m["key"] or "").endswith("_city")]
    assert current["value"] == "Berlin" and not current["key"].isascii()
    question = f"Where was {asked} before?"
    asked_by_key = history.send_asked(ctx.db.connection(), tenant.id, tenant.user, [],
                                      past.key_words(question, topics.asked(question)), 1.0, 10)()
    assert [(r["content"], r["by_key"]) for r in asked_by_key] == [(_history(tenant, current["id"])[0]["content"], True)]
    assert "Porto" in _history(tenant, current["id"])[0]["content"]


def test_an_unnamed_relatives_move_replaces_only_their_city_never_the_users(tenant):
    """"My sister lives in Boston." then "My sister just moved to Denver.": the sister's city is one
    chain, Boston then Denver; the user's own city stays current and is never replaced, nor is the
    named brother's; "My mom used to live in Cork" is the mother's past, not the user's (issue 11)."""
    tenant.turn("I live in Chicago.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My sister lives in Boston. My brother Omar lives in Cairo.", timestamp="2026-01-02T00:00:00Z")
    tenant.turn("My sister just moved to Denver.", timestamp="2026-03-01T00:00:00Z")
    tenant.turn("My mom used to live in Cork but now she lives in Dublin.", timestamp="2026-03-02T00:00:00Z")
    current = [m for m in _active(tenant, "sister_city") if m["active"]]
    assert [(m["value"], m["content"]) for m in current] == [("Denver", "The user's sister lives in Denver.")]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["Boston", "Denver"]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "city")] == [("Chicago", True)]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "brother_omar_city")] == [("Cairo", True)]
    assert [m["value"] for m in _active(tenant, "mother_city") if m["active"]] == ["Dublin"]


def test_a_correction_said_again_replaces_the_wrong_value_and_never_files_it(tenant):
    """"Sorry, the dentist appointment is on Tuesday, not Monday." replaces Monday in one chain, and
    "Actually my sister lives in Porto, not Braga." the named sister's city; neither files the value
    it negates (issue 11)."""
    tenant.turn("My dentist appointment is on Monday.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My sister Ana lives in Braga.", timestamp="2026-01-02T00:00:00Z")
    tenant.turn("Sorry, the dentist appointment is on Tuesday, not Monday.", timestamp="2026-01-03T00:00:00Z")
    tenant.turn("Actually my sister lives in Porto, not Braga.", timestamp="2026-01-04T00:00:00Z")
    for key, old, new in (("event_dentist_appointment", "Monday", "Tuesday"), ("sister_ana_city", "Braga", "Porto")):
        current = [m for m in _active(tenant, key) if m["active"]]
        assert [m["value"] for m in current] == [new], key
        assert [m["value"] for m in _history(tenant, current[0]["id"])] == [old, new]
        assert [m["value"] for m in _everything(tenant, key)].count(old) == 1  # only the statement that said it


def test_how_to_answer_is_one_preference_that_a_later_one_replaces(tenant):
    """"Please keep your answers short." then "Actually, detailed answers are fine.": one key, the
    later value current, the earlier its history; the language and the emojis are keys of their own."""
    tenant.turn("Please keep your answers short.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I prefer replies in Spanish. Don't use emojis with me.", timestamp="2026-01-02T00:00:00Z")
    tenant.turn("Actually, detailed answers are fine.", timestamp="2026-01-03T00:00:00Z")
    current = [m for m in _active(tenant, "preference_answer_length") if m["active"]]
    assert [(m["value"], m["content"]) for m in current] == [("detailed", "The user wants detailed answers.")]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["short", "detailed"]
    assert [m["value"] for m in _active(tenant, "preference_answer_language") if m["active"]] == ["Spanish"]
    assert [m["value"] for m in _active(tenant, "preference_emojis") if m["active"]] == ["no"]
    found = [r["content"] for r in tenant.search("Does the user want short answers?")]
    assert "The user wants detailed answers." in found and "The user wants short answers." not in found


def test_a_new_phone_number_replaces_the_old_one_which_a_question_about_the_past_finds(tenant):
    """The number kept whole; the new one current, the old one history, found by "my old phone
    number" (not the replaced number of children, which "number" does not name: issue 11)."""
    tenant.turn("I have 2 kids.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My phone number is 555-0134.", timestamp="2026-01-02T00:00:00Z")
    tenant.turn("We have 3 kids now.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("My new number is +44 7700 900123.", timestamp="2026-02-02T00:00:00Z")
    current = [m for m in _active(tenant, "phone_number") if m["active"]]
    assert [m["value"] for m in current] == ["+44 7700 900123"]
    assert [m["value"] for m in _history(tenant, current[0]["id"])] == ["555-0134", "+44 7700 900123"]
    found = tenant.search("What was my old phone number?")[:3]
    assert "555-0134" in [r["value"] for r in found if r["key"] == "phone_number" and not r["active"]]
    assert not [r for r in found if r["key"] == "number_of_children"]
    assert "+44 7700 900123" in [r["value"] for r in tenant.search("What is my phone number?")[:3]]


def test_what_a_named_child_started_is_kept_beside_the_name_and_other_starts(tenant):
    """"My son Leo started school last week." files Leo's name and the event naming him, found by a
    question about Leo; what he starts next is another event, not the end of this one (issue 11)."""
    tenant.turn("My son Leo started school last week.", timestamp="2026-01-10T00:00:00Z")
    assert [m["value"] for m in _active(tenant, "child_name") if m["active"]] == ["Leo"]
    found = [r["content"] for r in tenant.search("When did Leo start school?")[:3]]
    assert "The user's son Leo started school last week." in found
    tenant.turn("My son Leo started swimming lessons.", timestamp="2026-03-01T00:00:00Z")
    started = sorted((m["value"], m["active"]) for m in _everything(tenant, "child_leo_started"))
    assert started == [("school", True), ("swimming lessons", True)]


class _WaitingJudge:
    """A judge that takes as long as the test wants (an LLM that is slow to answer)."""

    name = "waiting"

    def __init__(self):
        self.asked = threading.Event()
        self.release = threading.Event()
        self._rules = RulesJudge()

    def decide(self, candidate, related):
        self.asked.set()
        assert self.release.wait(300), "never released"  # released once the erasure ended or waited
        return self._rules.decide(candidate, related)


def test_no_lock_is_held_while_the_judge_thinks(ctx, tenant):
    """Erasing the user while the judge is deciding one of their turns is not blocked by it."""
    tenant.turn("I work at Stripe.")
    judge = _WaitingJudge()
    slow = dataclasses.replace(ctx, judge=judge)
    outcome = []

    def write():
        try:
            outcome.append(ingest_turn(slow, tenant.id, _turn(tenant.user, "I work at Notion."), True))
        except NotFound as exc:
            outcome.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert judge.asked.wait(30)
        erased = {}
        eraser = threading.Thread(target=lambda: erased.update(memories.erase_user(ctx, tenant.id, tenant.user).counts))
        eraser.start()
        with psycopg.connect(ctx.db.dsn, autocommit=True) as watcher:
            waited = comes_to_wait_on_users_lock(eraser, watcher, tenant.id, [tenant.user])
        assert not waited, "erasure waited for the judge: a lock is held across the decision"
    finally:
        judge.release.set()
        writer.join(120)
    assert erased["turns"] == 2
    # The turn was erased under its own request: a 404, not a failure queued for the workers to retry.
    assert len(outcome) == 1 and isinstance(outcome[0], NotFound), outcome
    # The decision found its turn erased when it came to write: nothing came back.
    assert tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"] == []


class _EmbedderTryingTheLock(WrappedEmbedder):
    """The write path's embedder, which, asked for `text`, tries for the user's lock from another
    connection (for at most 2 s) before it embeds, and notes whether it got it."""

    def __init__(self, ctx, tenant, text: str):
        super().__init__(ctx.embedder)
        self._ctx, self._tenant = ctx, tenant
        self._text = embedded_text.of(text, memory_type="semantic", subject="user")
        self.tries: list[str] = []

    def embed(self, texts):
        if self._text in texts:
            with psycopg.connect(self._ctx.db.dsn, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '2s'")
                try:
                    with conn.transaction():
                        locks.lock_user(conn, self._tenant.id, self._tenant.user)
                    self.tries.append("took the lock")
                except psycopg.errors.LockNotAvailable:
                    self.tries.append("the lock was held")
        return self._embedder.embed(texts)


class _CallingOutJudge:
    """A judge that is not the rules (an LLM's place on the write path), answering as they do."""

    name = "calling-out"

    def decide(self, candidate, related):
        return RulesJudge().decide(candidate, related)


def test_the_llm_path_embeds_the_job_it_starts_with_no_lock_held(ctx, tenant):
    """The LLM path starts a job to come as a turn's decision lets it (here, the day after it in the
    same batch): the employer's text was embedded in the transaction holding the user's lock, on one of
    MEMEX_LLM_DB_CONNECTIONS, so every other user's write waited for the embedder. Now that transaction
    is rolled back, the text embedded with no lock held and the same rows written again."""
    tenant.turn("I work at Canva.", timestamp="2026-03-01T09:00:00Z")
    said = [ingest_turn(ctx, tenant.id, _turn(tenant.user, text, timestamp=at), False)["turn_id"]
            for text, at in [("I start at Twilio next Monday.", "2026-03-02T09:00:00Z"),
                             ("Busy first week.", "2026-03-12T09:00:00Z")]]
    embedder = _EmbedderTryingTheLock(ctx, tenant, "The user's employer is Twilio.")
    llm = dataclasses.replace(ctx, embedder=embedder, judge=_CallingOutJudge())
    pipeline.resolve_many(llm, pipeline.extract_many(llm, tenant.id, said))
    assert embedder.tries == ["took the lock"]
    employers = sorted(_everything(tenant, "employer"), key=lambda m: m["valid_from"])
    assert [(m["value"], m["active"]) for m in employers] == [("Canva", False), ("Twilio", True)]
    assert employers[1]["valid_from"].startswith("2026-03-09T00:00:00")
    assert employers[1]["metadata"]["reason"].startswith("the job to come 'starting at Twilio next Monday'")


def test_one_turn_adds_a_bounded_number_of_facts_and_keeps_the_message_whole(ctx, tenant):
    from memex.pipeline import MAX_CANDIDATES_PER_TURN

    text = " ".join(f"I love Zebra{i}." for i in range(MAX_CANDIDATES_PER_TURN * 3))
    body = tenant.turn(text).json()
    semantic = [m for m in body["memories"] if m["memory_type"] == "semantic"]
    assert len(semantic) == MAX_CANDIDATES_PER_TURN
    assert [m["content"] for m in body["memories"] if m["memory_type"] == "episodic"] == [text]


def _deliver_again(ctx, tenant, runtime, turn_id: str) -> None:
    """The turn's supersession job delivered again, and the turn extracted and decided again."""
    ctx.publisher.publish_supersession(SupersessionJob(tenant.id, tenant.user, turn_id, resend=99))
    runtime.drain()
    for follow_up in pipeline.extract_many(ctx, tenant.id, [turn_id], again=True):
        pipeline.resolve(ctx, follow_up)


@pytest.mark.parametrize("change", ["I changed jobs from Zendesk to Intercom.", "I started at Intercom last week."])
def test_a_role_said_with_its_employer_ends_when_the_employer_is_replaced(ctx, tenant, runtime, change):
    """"I'm a support lead at Zendesk." then a job change: the role was held at Zendesk, so it ends
    with it (history, the reason naming the change) rather than staying current as if held at
    Intercom (issue 11)."""
    tenant.turn("I'm a support lead at Zendesk.", timestamp="2026-01-01T00:00:00Z")
    # the title ends when the job did: said on Sunday 1 February, "last week" was over by Monday 26 January
    ended_at = "2026-01-26" if "last week" in change else "2026-02-01"
    change = tenant.turn(change, timestamp="2026-02-01T00:00:00Z")
    assert [m["value"] for m in _active(tenant, "employer") if m["active"]] == ["Intercom"]
    roles = sorted(_everything(tenant, "role"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in roles] == [("support lead", False), ("support lead", False)]
    held, ended = roles
    assert held["valid_to"][:10] == ended_at
    assert ended["supersedes"] == held["id"]
    assert ended["content"] == "The user's job title used to be support lead."
    assert "Zendesk" in ended["metadata"]["reason"] and "Intercom" in ended["metadata"]["reason"]
    assert [m["id"] for m in _history(tenant, held["id"])] == [held["id"], ended["id"]]
    # A redelivered job and a re-extraction of the turn write nothing twice.
    _deliver_again(ctx, tenant, runtime, change.json()["turn_id"])
    assert sorted(_everything(tenant, "role"), key=lambda m: m["created_at"]) == roles
    # The old title is no answer to what it is now; what she did before finds it, as history.
    assert [r["value"] for r in tenant.search("what is her job title?") if r["memory_type"] == "semantic"
            and r["key"] == "role"] == []
    before = tenant.search("what did she do before?")[:3]
    assert "The user's job title used to be support lead." in [r["content"] for r in before]


def test_a_role_said_alone_or_anew_is_not_ended_by_a_job_change(tenant):
    """A role said alone ("I'm a nurse.") is no job's: a job change leaves it current. A job quit
    ends the role said with it. A new role said with the change replaces the old one itself, in
    one chain."""
    tenant.turn("I'm a nurse.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I work at St Mary's Hospital.", timestamp="2026-01-02T00:00:00Z")
    tenant.turn("I started at Guy's Hospital last week.", timestamp="2026-02-01T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("nurse", True)]
    quit_ = tenant.through(tenant._http)
    quit_.user = quit_.user + "-1"
    quit_.turn("I'm a support lead at Zendesk.", timestamp="2026-01-01T00:00:00Z")
    quit_.turn("I quit Zendesk.", timestamp="2026-02-01T00:00:00Z")
    held, ended = sorted(_everything(quit_, "role"), key=lambda m: m["created_at"])
    assert (held["active"], ended["active"], ended["supersedes"]) == (False, False, held["id"])
    assert "'Zendesk', and that job ended" in ended["metadata"]["reason"]
    other = tenant.through(tenant._http)
    other.user = other.user + "-2"
    other.turn("I'm a support lead at Zendesk.", timestamp="2026-01-01T00:00:00Z")
    other.turn("I joined Intercom as a product manager.", timestamp="2026-02-01T00:00:00Z")
    current = [m for m in _active(other, "role") if m["active"]]
    assert [m["value"] for m in current] == ["product manager"]
    assert [m["value"] for m in _history(other, current[0]["id"])] == ["support lead", "product manager"]


@pytest.mark.parametrize("change", ["Leo and I broke up last week.", "I'm single again.", "I'm single right now.",
                                    "My girlfriend Priya is a teacher.",
                                    "I started dating someone, her name is Priya."])
def test_what_was_said_of_a_partner_ends_with_the_partnership(ctx, tenant, runtime, change):
    """"My boyfriend Leo is a chef." says Leo is the partner: when Leo stops being one (a breakup, the
    user single, a new partner), "The user's boyfriend Leo is a chef." is no longer current; it is
    kept as what was true of him then, the reason naming the change. A redelivery writes nothing
    twice."""
    tenant.turn("My boyfriend Leo is a chef.", timestamp="2026-01-01T00:00:00Z")
    turn_id = tenant.turn(change, timestamp="2026-03-01T00:00:00Z", session="s2").json()["turn_id"]
    assert [m["value"] for m in _active(tenant, "partner_name") if m["active"]] == (
        ["Priya"] if "Priya" in change else [])
    roles = sorted(_everything(tenant, "partner_leo_role"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in roles] == [("chef", False), ("chef", False)]
    held, ended = roles
    # said on Sunday 1 March: "last week" was over by Monday 23 February
    assert held["valid_to"][:10] == ("2026-02-23" if "last week" in change else "2026-03-01")
    assert ended["supersedes"] == held["id"]
    assert ended["content"] == "The user's former partner Leo was a chef."
    assert "'Leo'" in ended["metadata"]["reason"]
    assert [m["id"] for m in _history(tenant, held["id"])] == [held["id"], ended["id"]]
    _deliver_again(ctx, tenant, runtime, turn_id)
    assert sorted(_everything(tenant, "partner_leo_role"), key=lambda m: m["created_at"]) == roles
    # who the partner is now finds no former partner's job as current
    assert [r["content"] for r in tenant.search("who is her boyfriend?") if r["memory_type"] == "semantic"
            and r["key"] == "partner_leo_role"] == []


def test_a_changed_mind_replaces_the_old_view(tenant):
    """"I've changed my mind: remote work is actually great." is the user's view now; the old one is
    kept as what they thought then."""
    tenant.turn("I think remote work is overrated.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I've changed my mind: remote work is actually great.", timestamp="2026-03-01T00:00:00Z",
                session="s2")
    views = sorted(_everything(tenant, "opinion_about_remote_work"), key=lambda m: m["created_at"])
    assert [(m["value"], m["active"]) for m in views] == [("overrated", False), ("great", True)]


def test_a_partner_named_again_keeps_what_was_said_of_them(tenant):
    """"My boyfriend Leo" said again is no change of partner: what was said of Leo stays current."""
    tenant.turn("My boyfriend Leo is a chef.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("My boyfriend Leo cooked for us.", timestamp="2026-02-01T00:00:00Z", session="s2")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "partner_leo_role")] == [("chef", True)]


@pytest.mark.parametrize("said, status", [("I got laid off last week.", "out of work"),
                                          ("I retired last month.", "retired")])
def test_being_out_of_work_ends_the_job_and_a_job_named_later_ends_it(tenant, said, status):
    """"I got laid off" names no employer, but leaves the user without one: the employer and the job
    title end (history, ended by the status, as being single ends a partner), and an employer named
    later ends the status in turn."""
    tenant.turn("I work at Acme as a designer.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn(said, timestamp="2026-03-01T00:00:00Z", session="s2")
    [news] = _everything(tenant, "employment_status")
    assert (news["value"], news["active"], news["content"]) == (status, True, f"The user is {status}.")
    for key, value in (("employer", "Acme"), ("role", "designer")):
        [held] = _everything(tenant, key)
        # said on Sunday 1 March: laid off by Monday 23 February; "last month", February, over when said
        ended_at = "2026-02-23" if "last week" in said else "2026-03-01"
        assert (held["value"], held["active"], held["valid_to"][:10]) == (value, False, ended_at), key
        assert f"{key} {value!r}" in news["metadata"]["reason"] and "no longer current" in news["metadata"]["reason"]
    tenant.turn("I just started at Globex.", timestamp="2026-05-01T00:00:00Z", session="s3")
    assert [m["value"] for m in _everything(tenant, "employer") if m["active"]] == ["Globex"]
    [ended] = _everything(tenant, "employment_status")
    assert not ended["active"] and ended["valid_to"][:10] == "2026-05-01"


def test_a_leave_is_beside_the_job_and_ends_with_a_new_one(tenant):
    """"I'm on parental leave." ends nothing: the employer stays current beside it, until a new
    employer ends the leave."""
    tenant.turn("I work at Acme as a designer.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm on parental leave.", timestamp="2026-03-01T00:00:00Z", session="s2")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employer")] == [("Acme", True)]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("designer", True)]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employment_status")] == [
        ("on parental leave", True)]
    tenant.turn("I just started at Globex.", timestamp="2026-05-01T00:00:00Z", session="s3")
    assert [m["value"] for m in _everything(tenant, "employer") if m["active"]] == ["Globex"]
    assert [m for m in _everything(tenant, "employment_status") if m["active"]] == []


def test_a_job_title_said_later_ends_being_out_of_work(tenant):
    """"I got laid off." then "I'm a nurse now at St Mary's." (or the title alone, "I'm a nurse
    now."): the user works again, as an employer named later already said."""
    tenant.turn("I got laid off.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm a nurse now.", timestamp="2026-03-01T00:00:00Z", session="s2")
    [ended] = _everything(tenant, "employment_status")
    assert (ended["value"], ended["active"], ended["valid_to"][:10]) == ("out of work", False, "2026-03-01")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("nurse", True)]


def test_a_job_title_said_with_the_status_is_the_trade(tenant):
    """"I got laid off. I'm a nurse." in one message: the nurse is out of work, and both stay."""
    tenant.turn("I got laid off last week. I'm a nurse.", timestamp="2026-01-01T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employment_status")] == [("out of work", True)]
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("nurse", True)]


def test_retiring_from_a_trade_ends_the_job_and_a_student_keeps_a_job_beside(tenant):
    """"I retired from teaching." is retired (the employer and the title end); a student is a status,
    not a job title, which a job named later leaves as it is."""
    tenant.turn("I work at Lincoln High as a teacher.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I retired from teaching.", timestamp="2026-03-01T00:00:00Z", session="s2")
    [news] = _everything(tenant, "employment_status")
    assert (news["value"], news["active"], news["content"]) == ("retired", True, "The user is retired from teaching.")
    assert [m["active"] for m in _everything(tenant, "employer") + _everything(tenant, "role")] == [False, False]
    tenant.turn("We both got laid off.", timestamp="2026-04-01T00:00:00Z", session="s3")
    assert [m["value"] for m in _everything(tenant, "employment_status") if m["active"]] == ["out of work"]
    tenant.turn("I'm a student now.", timestamp="2026-05-01T00:00:00Z", session="s4")
    tenant.turn("I just started at Starbucks.", timestamp="2026-06-01T00:00:00Z", session="s5")
    assert [m["value"] for m in _everything(tenant, "employment_status") if m["active"]] == ["student"]
    assert [m["value"] for m in _everything(tenant, "employer") if m["active"]] == ["Starbucks"]
    assert _everything(tenant, "role") and not [m for m in _everything(tenant, "role") if m["active"]]


def test_a_job_remembered_in_passing_leaves_retired_and_the_job_of_now(tenant):
    """"As a nurse, I saw ..." and "Back when I was a nurse ..." look back: they end neither being
    retired nor another job; "As a nurse, I see ..." says the job of now."""
    tenant.turn("I'm retired now.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("As a nurse, I saw a lot of sick people.", timestamp="2026-02-01T00:00:00Z", session="s2")
    tenant.turn("Back when I was a nurse, I worked nights.", timestamp="2026-02-02T00:00:00Z", session="s3")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "employment_status")] == [("retired", True)]
    assert _everything(tenant, "role") == []
    tenant.turn("I'm a pharmacist.", timestamp="2026-03-01T00:00:00Z", session="s4")
    tenant.turn("As a teacher, I worked long hours.", timestamp="2026-04-01T00:00:00Z", session="s5")
    assert [(m["value"], m["active"]) for m in _everything(tenant, "role")] == [("pharmacist", True)]


SAID_AT = "2026-03-05T09:00:00+00:00"


@pytest.mark.parametrize("happened, stands_at, began", [
    ("back in 2010", "2011-01-01T00:00:00+00:00", "2011-01-01T00:00:00+00:00"),
    ("in May", "2025-06-01T00:00:00+00:00", "2025-06-01T00:00:00+00:00"),  # the latest May before it was said
    ("two years ago", "2024-03-05T00:00:00+00:00", "2024-03-05T00:00:00+00:00"),  # that day (time_phrases.began)
    ("in March", SAID_AT, SAID_AT),  # this March, not over when said: when it was said
    ("last year", SAID_AT, "2026-01-01T00:00:00+00:00"),  # the calendar year before: it dates the event only
    ("this year", SAID_AT, SAID_AT),  # not over when said
    ("last summer", SAID_AT, SAID_AT),  # a season is a question's period only (time_phrases.py)
    (None, SAID_AT, SAID_AT),
])
def test_an_event_stands_in_history_at_the_end_of_its_own_time_when_that_is_far_back(happened, stands_at, began):
    """Where a parting stands in its key's history, and when it began (timeline.times): a time named by a
    year, a month or years back places it there; a nearer one dates it only. A marriage is no story of the
    past: it stands where it was said, whatever its time."""
    from datetime import datetime

    from memex import timeline
    from memex.jobs import Candidate

    candidate = Candidate("event", "relationship_status", "divorced", "The user is divorced.", 0.7, 0.7, "m1",
                          happened=happened)
    times = timeline.times(candidate, datetime.fromisoformat(SAID_AT))
    assert [times.said.isoformat(), times.stands_at.isoformat(), times.began.isoformat()] == [SAID_AT, stands_at, began]
    married = timeline.times(Candidate("event", "relationship_status", "married", "The user is married.", 0.7, 0.7,
                                       "m1", happened=happened), datetime.fromisoformat(SAID_AT))
    assert (married.stands_at.isoformat(), married.began.isoformat()) == (SAID_AT, began)


_KEYS = ["employer", "role", "employment_status", "city", "allergy", "diet", "partner", "pet", "phone", "hobby"]


def _taken_back_by_walking_every_link(conn, tenant_id: str, user_id: str, words: list[str]) -> list[tuple]:
    """What history.send_ended answers of a key taken back, read the slow way: every link of the
    tenant, each with the two facts it joins (the statement before migration 0021)."""
    rows = conn.execute(
        """SELECT o.key, o.subject, t.id FROM memory_links r
           JOIN memories o ON o.tenant_id = r.tenant_id AND o.id = r.replaced_id
           JOIN memories t ON t.tenant_id = r.tenant_id AND t.id = r.memory_id
           WHERE r.tenant_id = %(t)s AND o.user_id = %(u)s AND t.user_id = %(u)s AND t.active
             AND o.memory_type = 'semantic' AND t.memory_type = 'semantic' AND o.subject = t.subject
             AND o.key <> t.key
             AND to_tsvector('english', replace(o.key, '_', ' ')) @@ to_tsquery('english', %(q)s)
             AND NOT EXISTS (SELECT 1 FROM memories c WHERE c.tenant_id = o.tenant_id AND c.user_id = o.user_id
                             AND c.subject = o.subject AND c.key = o.key AND c.active AND c.memory_type = 'semantic')
           ORDER BY t.valid_from DESC, t.id, o.key""",
        {"t": tenant_id, "u": user_id, "q": " | ".join(f"{w}:*" for w in words)},
    ).fetchall()
    return [(r["key"], r["subject"], r["id"]) for r in rows]


@pytest.mark.parametrize("seed", range(6))
def test_the_news_of_a_key_taken_back_is_what_a_walk_of_every_link_finds(ctx, tenant, seed):
    """history.send_ended's keys taken back (a current fact under another key that took the named
    key's value back) are read from the links that cross keys (migration 0021), and they are what a
    walk of every link finds, in the same order, over random histories: values replaced under their
    own key and across keys, for two users and two subjects (and now and then a link between two of
    them, which takes nothing back); a late value placed between two
    (a link taken apart and made again, timeline.apply); memories erased (their chains closed over
    the gap, what they replaced current again)."""
    from datetime import datetime, timedelta, timezone

    import numpy as np

    from memex.db import erasure, history
    from memex.db import memories as memory_rows

    rng = random.Random(seed)
    conn = ctx.db.connection()
    vector = np.full(ctx.settings.embedding_dim, ctx.settings.embedding_dim ** -0.5)
    users, subjects = [tenant.user, f"{tenant.user}-other"], ["user", "Melanie"]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    facts: dict[str, tuple[str, str]] = {}  # id -> (user, subject) of every fact not erased

    def fact(user: str, subject: str, active: bool) -> str:
        memory_id = f"f{seed}-{len(facts):03d}-{rng.randrange(10 ** 6)}"
        key = rng.choice(_KEYS)
        memory_rows.insert(conn, tenant.id, {
            "id": memory_id, "user_id": user, "subject": subject, "memory_type": "semantic", "type": "fact",
            "key": key, "value": memory_id, "content": f"The user's {key} is {memory_id}.", "importance": 0.5,
            "active": active, "valid_from": start + timedelta(days=rng.randrange(400)), "embedding": vector,
            "metadata": {}})
        facts[memory_id] = (user, subject)
        return memory_id

    def same_owner(memory_id: str) -> list[str]:
        return [m for m, owner in facts.items() if owner == facts[memory_id] and m != memory_id]

    found = 0
    for step in range(120):
        move = rng.random()
        links = [(r["memory_id"], r["replaced_id"]) for r in conn.execute(
            "SELECT memory_id, replaced_id FROM memory_links WHERE tenant_id = %s ORDER BY 1, 2", (tenant.id,))]
        if move < 0.5 or not links:  # a new value replacing one, two or none of its owner's
            newer = fact(rng.choice(users), rng.choice(subjects), True)
            for older in rng.sample(same_owner(newer), min(rng.choice([0, 1, 1, 2]), len(same_owner(newer)))):
                history.link(conn, tenant.id, newer, older)
                history.end(conn, tenant.id, older, start)
        elif move < 0.7:  # a late value placed between two
            newer, older = rng.choice(links)
            late = fact(*facts[older], False)
            history.unlink(conn, tenant.id, newer, older)
            history.link(conn, tenant.id, late, older)
            history.link(conn, tenant.id, newer, late)
        elif move < 0.85:  # a current value taking back another, now and then of another subject or user
            current = [r["id"] for r in conn.execute(
                "SELECT id FROM memories WHERE tenant_id = %s AND active ORDER BY id", (tenant.id,))]
            newer = rng.choice(current or list(facts))
            older = rng.choice((same_owner(newer) if rng.random() < 0.5 else []) or list(facts))
            if older != newer:
                history.link(conn, tenant.id, newer, older)
                history.end(conn, tenant.id, older, start)
        else:
            erased = rng.choice(list(facts))
            erasure.memories(conn, tenant.id, [erased])
            facts.pop(erased)
        if step % 4 == 3:
            for words in (["employer"], ["role", "employment"], ["city", "allergy", "diet", "pet"], _KEYS):
                for user in users:
                    expected = _taken_back_by_walking_every_link(conn, tenant.id, user, words)
                    rows = history.send_ended(conn, tenant.id, user, None, words, 1000)()
                    assert [(r["key"], r["subject"], r["message"]["id"]) for r in rows] == expected, (step, words)
                    found += len(expected)
    assert found  # the histories did take keys back


def test_erasure_leaves_no_key_taken_back_behind(ctx, tenant):
    """The links that cross keys (migration 0021) go with what they join: a memory erased, a user."""
    conn = ctx.db.connection()

    def taken_back() -> list[tuple[str, str]]:
        return [(r["key"], r["memory_id"]) for r in conn.execute(
            "SELECT key, memory_id FROM keys_taken_back WHERE tenant_id = %s ORDER BY key", (tenant.id,))]

    tenant.turn("I work at Acme as a designer.", session="s0", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I got laid off last week.", session="s1", timestamp="2026-03-05T09:00:00Z")
    [status] = [m for m in _active(tenant, "employment_status") if m["active"]]
    assert taken_back() == [("employer", status["id"]), ("role", status["id"])]
    assert tenant.delete(f"/v1/memories/{status['id']}").status_code == 200
    assert taken_back() == []
    tenant.turn("I work at Globex as a chef.", session="s2", timestamp="2026-04-05T09:00:00Z")
    tenant.turn("I got laid off again.", session="s3", timestamp="2026-05-05T09:00:00Z")
    [status] = [m for m in _active(tenant, "employment_status") if m["active"]]
    assert taken_back() == [("employer", status["id"]), ("role", status["id"])]
    assert tenant.delete(f"/v1/users/{tenant.user}").status_code == 200
    assert taken_back() == []


def test_a_taker_no_longer_current_keeps_its_row_for_when_it_is_again(ctx, tenant):
    """A fact that took a key's value back and was itself replaced keeps its row in keys_taken_back
    (migration 0021): history.send_ended reads only a current taker, and erasing what replaced it
    makes it current again (erasure closes the chain), with the same link and so the same row, which
    no link written then would bring back."""
    from datetime import datetime, timezone

    import numpy as np

    from memex.db import erasure, history
    from memex.db import memories as memory_rows

    conn = ctx.db.connection()
    vector = np.full(ctx.settings.embedding_dim, ctx.settings.embedding_dim ** -0.5)
    for day, (memory_id, key) in enumerate((("acme", "employer"), ("out", "employment_status"),
                                            ("retired", "employment_status")), start=1):
        memory_rows.insert(conn, tenant.id, {
            "id": memory_id, "user_id": tenant.user, "memory_type": "semantic", "type": "fact", "key": key,
            "value": memory_id, "content": f"The user's {key} is {memory_id}.", "importance": 0.5,
            "valid_from": datetime(2026, 1, day, tzinfo=timezone.utc), "embedding": vector, "metadata": {}})

    def news() -> list[str]:
        return [row["message"]["id"] for row in history.send_ended(conn, tenant.id, tenant.user, None, ["employer"], 10)()]

    def rows() -> list[tuple[str, str]]:
        return [(r["memory_id"], r["replaced_id"]) for r in conn.execute(
            "SELECT memory_id, replaced_id FROM keys_taken_back WHERE tenant_id = %s", (tenant.id,))]

    history.link(conn, tenant.id, "out", "acme")
    history.end(conn, tenant.id, "acme", datetime(2026, 1, 2, tzinfo=timezone.utc))
    assert news() == ["out"]
    history.link(conn, tenant.id, "retired", "out")
    history.end(conn, tenant.id, "out", datetime(2026, 1, 3, tzinfo=timezone.utc))
    assert news() == [] and rows() == [("out", "acme")]
    erasure.memories(conn, tenant.id, ["retired"])
    assert news() == ["out"] and rows() == [("out", "acme")]


def test_a_childs_birthday_said_by_name_alone_replaces_the_age_said_before(ctx, tenant, runtime):
    """"Mia turned 8 today!" a day after "My daughter Mia is 7." (the same session says who Mia is): 8 is
    her current age and 7 its history, not two ages at once (on main the second turn filed nothing and 7
    stayed current)."""
    ingest_turn(ctx, tenant.id, _turn(tenant.user, "My daughter Mia is 7.", "2026-03-01T12:00:00Z"), wait=True)
    ingest_turn(ctx, tenant.id, _turn(tenant.user, "Mia turned 8 today!", "2026-03-02T12:00:00Z"), wait=True)
    runtime.drain()
    listed = _active(tenant, "child_mia_age")
    assert [m["value"] for m in listed if m["active"]] == ["8"]
    chain = _history(tenant, next(m["id"] for m in listed if m["active"]))
    assert [m["value"] for m in chain] == ["7", "8"]
    _assert_linear(chain)


@pytest.mark.parametrize("before, key, text, again", [
    ("My cat Tofu is 2 years old.", "pet_cat_tofu_age", "Tofu turned 3 on Sunday.", "3"),
    ("My friend Ravi is a pharmacist.", "friend_ravi_role", "Ravi is a lawyer.", "lawyer"),
])
def test_a_pets_age_or_a_friends_role_said_by_name_alone_replaces_the_one_said_before(ctx, tenant, runtime, before, key,
                                                                                     text, again):
    """As Mia's birthday above: the value said by the name alone is filed under the key the earlier statement
    used, so it replaces it (on main the second turn filed nothing and 2, or pharmacist, stayed current)."""
    ingest_turn(ctx, tenant.id, _turn(tenant.user, before, "2026-03-01T12:00:00Z"), wait=True)
    ingest_turn(ctx, tenant.id, _turn(tenant.user, text, "2026-03-02T12:00:00Z"), wait=True)
    runtime.drain()
    listed = _active(tenant, key)
    assert [m["value"] for m in listed if m["active"]] == [again]
    chain = _history(tenant, next(m["id"] for m in listed if m["active"]))
    assert len(chain) == 2 and chain[-1]["value"] == again
    _assert_linear(chain)


def test_an_intolerance_said_after_a_diet_leaves_the_diet_current(tenant):
    """Trial 12's week: vegetarian on Tuesday, lactose intolerant on Friday; both hold, and only a
    new diet (vegan) replaces the old one."""
    tenant.turn("I don't eat meat, I'm vegetarian.", timestamp="2026-11-03T08:00:00Z")
    tenant.turn("I'm lactose intolerant.", timestamp="2026-11-06T08:00:00Z")
    current = sorted(m["value"] for m in _active(tenant, "dietary_restriction") if m["active"])
    assert current == ["lactose intolerant", "vegetarian"]
    tenant.turn("I'm vegan now.", timestamp="2026-11-07T08:00:00Z")
    current = sorted(m["value"] for m in _active(tenant, "dietary_restriction") if m["active"])
    assert current == ["lactose intolerant", "vegan"]
