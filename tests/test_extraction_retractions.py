"""Corrections, retractions and lists through the pipeline (issue 11, items 2 and 7): what a user sees
after saying them. A correction files the right value as current and never the wrong one it names; a
retraction ends the current value and keeps it as history; a list files every item."""

from __future__ import annotations


def _memories(tenant, key: str) -> list[dict]:
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    return sorted((m for m in listed.json()["memories"] if m["key"] == key), key=lambda m: m["created_at"])


def _history(tenant, memory_id: str) -> list[str]:
    return [m["value"] for m in tenant.get(f"/v1/memories/{memory_id}/history").json()["history"]]


def _told(tenant, *texts: str) -> None:
    """Each text a turn of its own, a day after the one before (from 2026-01-01)."""
    for day, text in enumerate(texts, start=1):
        tenant.turn(text, timestamp=f"2026-01-{day:02d}T00:00:00Z")


def _corrected(tenant, key: str, wrong: str, right: str) -> None:
    """`right` is the key's one current value, `wrong` filed once (only by the statement that said
    it), and the history goes from one to the other."""
    memories = _memories(tenant, key)
    assert [m["value"] for m in memories if m["active"]] == [right], key
    assert [m["value"] for m in memories].count(wrong) == 1, key
    current = next(m for m in memories if m["active"])
    assert _history(tenant, current["id"]) == [wrong, right]


def test_a_correction_replaces_the_value_it_names_and_never_files_the_wrong_one(tenant):
    _told(tenant,
          "I'm vegan.",
          "No, I said I'm vegetarian, not vegan.",
          "I work at Initech.",
          "Sorry, I meant Initrode.")
    for key, wrong, right in (("dietary_restriction", "vegan", "vegetarian"), ("employer", "Initech", "Initrode")):
        _corrected(tenant, key, wrong, right)


def test_a_correction_said_in_one_message_files_only_the_right_value(tenant):
    tenant.turn("Actually, I work at Globex, not Acme.", timestamp="2026-01-01T00:00:00Z")
    assert [(m["value"], m["active"]) for m in _memories(tenant, "employer")] == [("Globex", True)]


def test_a_correction_typed_with_a_curly_apostrophe_or_a_dash_replaces_the_wrong_value(tenant):
    """"Actually it’s Lisbon, not Porto." (as a phone types it) and "Not Rex — Max." correct as their
    plain spellings do: the right value replaces the wrong one, under a key that holds several names
    too (a second dog is not added)."""
    _told(tenant, "I live in Porto.", "Actually it’s Lisbon, not Porto.", "My dog is called Rex.", "Not Rex — Max.")
    for key, wrong, right in (("city", "Porto", "Lisbon"), ("pet_dog_name", "Rex", "Max")):
        _corrected(tenant, key, wrong, right)


def test_a_pets_name_said_again_as_a_correction_replaces_the_name_before(tenant):
    """"Correction: my dog's name is Biscuit." after "My dog's name is Buddy.": one dog, now Biscuit,
    not a second dog beside Buddy."""
    _told(tenant, "My dog's name is Buddy.", "Correction: my dog’s name is Biscuit.")
    _corrected(tenant, "pet_dog_name", "Buddy", "Biscuit")


def test_a_retraction_ends_the_current_value_and_keeps_it_as_history(tenant):
    tenant.turn("I'm vegan. I'm a teacher. I play tennis every Sunday.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I'm no longer vegan.", timestamp="2026-02-01T00:00:00Z")
    tenant.turn("I'm not a teacher anymore.", timestamp="2026-02-02T00:00:00Z")
    tenant.turn("I stopped playing tennis.", timestamp="2026-02-03T00:00:00Z")
    for key, value in (("dietary_restriction", "vegan"), ("role", "teacher"), ("hobby", "tennis")):
        memories = _memories(tenant, key)
        assert [m for m in memories if m["active"]] == [], key
        said, ended = memories
        assert said["value"] == ended["value"] == value and said["valid_to"] is not None
        assert ended["supersedes"] == said["id"]


def test_a_retraction_of_something_never_said_invents_no_current_value(tenant):
    tenant.turn("I'm not with Acme any more, I joined Initech.", timestamp="2026-01-01T00:00:00Z")
    employer = _memories(tenant, "employer")
    assert [m["value"] for m in employer if m["active"]] == ["Initech"]
    assert all(m["value"] != "Acme" or not m["active"] for m in employer)


def test_a_list_files_every_item(tenant):
    _told(tenant, "I'm allergic to penicillin, latex and bees.", "My kids are Emma (8) and Liam (5).")
    assert sorted(m["value"] for m in _memories(tenant, "allergy") if m["active"]) == ["bees", "latex", "penicillin"]
    assert sorted(m["value"] for m in _memories(tenant, "child_name") if m["active"]) == ["Emma", "Liam"]
    assert [m["value"] for m in _memories(tenant, "child_emma_age") if m["active"]] == ["8"]


def test_a_name_corrected_with_its_pronoun_replaces_the_last_name_said_that_it_fits(tenant):
    """"Sorry, her name is Anna." right after "My sister is called Ana.": the sister is Anna, not a
    second sister; after two people named, the last the pronoun fits (the mother, not the sister); a
    pet's name too, under a key that holds several names."""
    _told(tenant,
          "My sister is called Ana.",
          "Sorry, her name is Anna.",
          "My brother is called Tom. My mom is called Rosa.",
          "Sorry, her name is Rose.",
          "My cat is called Milo.",
          "Oops, his name is Max.")
    for key, wrong, right in (("sister_name", "Ana", "Anna"), ("mother_name", "Rosa", "Rose"),
                              ("pet_cat_name", "Milo", "Max")):
        _corrected(tenant, key, wrong, right)
    assert [m["value"] for m in _memories(tenant, "brother_name") if m["active"]] == ["Tom"]


def test_actually_and_the_statement_again_replaces_the_city_said_just_before(tenant):
    """"Actually I live in Lisbon" right after "I live in Porto": a correction or a move, Lisbon is
    the one current city either way (said with "Actually" right after, it is read as the correction:
    Porto is not kept as a past city)."""
    _told(tenant, "I live in Porto.", "Actually I live in Lisbon")
    _corrected(tenant, "city", "Porto", "Lisbon")


def test_a_plans_day_corrected_replaces_the_plan(tenant):
    """"Sorry, I meant Wednesday, not Tuesday." right after "I'm flying to Berlin next Tuesday.": one
    plan, on Wednesday, not a second trip beside the first."""
    _told(tenant, "I'm flying to Berlin next Tuesday.", "Sorry, I meant Wednesday, not Tuesday.")
    _corrected(tenant, "plan", "flying to Berlin next Tuesday", "flying to Berlin next Wednesday")


def test_a_fact_the_user_asks_to_forget_ends_cited_and_a_redelivery_ends_nothing_more(ctx, tenant, runtime):
    """"Please forget that I'm allergic to peanuts, that was my brother." (trial 12): the allergy is no
    longer current, kept in its history as taken back by that message; the message that said it is
    found by search with the allergy no longer current. So for "Don't remember that ...", and for a
    denial said as a retraction ("Scratch that, I don't have a cat", "That's not true, I never worked
    at Acme"). A redelivered job ends and files nothing more."""
    from memex import pipeline
    from memex.jobs import ExtractionJob, SupersessionJob

    _told(tenant, "I'm allergic to peanuts.", "I'm vegan.", "I have a cat.", "I work at Acme.")
    said = {key: next(m for m in _memories(tenant, key) if m["active"])
            for key in ("allergy", "dietary_restriction", "pet_kind", "employer")}
    retractions = ["Please forget that I'm allergic to peanuts, that was my brother.", "Don't remember that I'm vegan.",
                   "Scratch that, I don't have a cat.", "That's not true, I never worked at Acme."]
    turns = [tenant.turn(text, timestamp=f"2026-02-{day:02d}T00:00:00Z").json()["turn_id"]
             for day, text in enumerate(retractions, start=1)]

    def after() -> dict[str, list[tuple]]:
        return {key: [(m["value"], m["active"], m["supersedes"]) for m in _memories(tenant, key)] for key in said}

    ended = after()
    for key, memory in said.items():
        assert [m for m in _memories(tenant, key) if m["active"]] == [], key
        assert ended[key] == [(memory["value"], False, None), (memory["value"], False, memory["id"])], key
        taken_back = _memories(tenant, key)[1]
        assert taken_back["content"].startswith("The user took this back:"), key
        assert [s["turn_id"] for s in taken_back["sources"]] == [turns[list(said).index(key)]], key
        assert taken_back["metadata"]["raw_quote"] == retractions[list(said).index(key)], key
    peanuts = [r for r in tenant.search("peanuts allergy") if r["memory_type"] == "episodic"
               and r["content"] == "I'm allergic to peanuts."]
    assert peanuts and peanuts[0]["no_longer_current"] == ["peanuts"]
    for turn in turns:
        ctx.publisher.publish_extraction(ExtractionJob(tenant.id, turn))
        ctx.publisher.publish_supersession(SupersessionJob(tenant.id, tenant.user, turn, resend=99))
    runtime.drain()
    for follow_up in pipeline.extract_many(ctx, tenant.id, turns, again=True):
        pipeline.resolve(ctx, follow_up)
    assert after() == ended


def test_a_denied_pet_ends_the_pets_of_that_kind_named_before_in_any_session(tenant):
    """"Scratch that, I don't have a cat." months after "I have a cat called Miso." (trial 20, in another
    session): Miso, filed as the cat's name and never as a bare kind, is no longer current, its history
    ending when it was said, and the denial is kept as taken back, citing it (as "We had to give our cat
    away." is kept as the end of a cat); recall no longer lists "The user's cat is named Miso." The dog
    stays."""
    tenant.turn("I have a cat called Miso.", "My dog is called Rex.", timestamp="2026-01-05T09:00:00Z")
    denial = tenant.turn("Scratch that, I don't have a cat.", session="s2",
                         timestamp="2026-07-05T10:00:00Z").json()["turn_id"]
    assert [(m["value"], m["active"], m["valid_to"]) for m in _memories(tenant, "pet_cat_name")] == \
        [("Miso", False, "2026-07-05T10:00:00Z")]
    assert [(m["content"], [s["turn_id"] for s in m["sources"]]) for m in _memories(tenant, "pet_kind")] == \
        [("The user took this back: The user has a cat.", [denial])]
    assert [(m["value"], m["active"]) for m in _memories(tenant, "pet_dog_name")] == [("Rex", True)]
    recalled = tenant.post("/v1/recall", {"user_id": tenant.user, "query": "do I have a cat?"}).json()
    assert "The user's cat is named Miso." not in recalled["context"]


def test_a_diet_taken_up_and_dropped_said_as_a_diet_is_its_history(tenant):
    """"I started a vegan diet this week." then, months later, "I quit the vegan diet." (trial 20: the
    first filed nothing, so the diet had no history and "I'm no longer vegan." ended nothing): vegan
    held from January to May, and is no longer current."""
    tenant.turn("I started a vegan diet this week.", timestamp="2026-01-20T18:00:00Z")
    tenant.turn("I quit the vegan diet.", session="s2", timestamp="2026-05-12T10:00:00Z")
    diet = _memories(tenant, "dietary_restriction")
    assert [(m["content"], m["active"], m["valid_from"], m["valid_to"]) for m in diet][0] == \
        ("The user is vegan.", False, "2026-01-20T18:00:00Z", "2026-05-12T10:00:00Z")
    assert [m for m in diet if m["active"]] == []


def test_forget_said_of_no_fact_of_the_user_ends_nothing(tenant):
    """"I always forget my keys.", "Don't forget to buy milk.", "Forget it, let's talk about something
    else." and someone else's forgetting name no fact of the user's: the allergy stays current and
    nothing is filed; and a retraction of something never said files nothing."""
    _told(tenant, "I'm allergic to peanuts.", "I always forget my keys.", "Don't forget to buy milk.",
          "Forget it, let's talk about something else.", "My brother wants me to forget about the peanuts.",
          "Please forget that I work at Initech.")
    assert [(m["value"], m["active"]) for m in _memories(tenant, "allergy")] == [("peanuts", True)]
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true", "limit": 500})
    assert [m["key"] for m in listed.json()["memories"] if m["memory_type"] == "semantic"] == ["allergy"]
