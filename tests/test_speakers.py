"""Conversations with several named participants: each one's facts are filed under their subject."""

from __future__ import annotations

import pytest

from memex import pipeline
from memex.db import turns as turn_rows
from memex.extraction.aliases import canonical, family_key
from memex.extraction.offline import OfflineExtractor
from memex.extraction.placement import placed
from memex.jobs import Candidate, subject_prefix


def _said(tenant, *lines: tuple[str, str], user_name: str | None = "Caroline", session: str = "s1", **extra):
    body = {"user_id": tenant.user, "session_id": session,
            "messages": [{"role": "user", "name": name, "content": text} for name, text in lines], **extra}
    if user_name is not None:
        body["user_name"] = user_name
    response = tenant.post("/v1/turns?wait=true", body)
    assert response.status_code == 201, response.text
    return response.json()


def _semantic(tenant, include_inactive: bool = False) -> list[dict]:
    listing = tenant.get(f"/v1/users/{tenant.user}/memories",
                         params={"include_inactive": str(include_inactive).lower(), "limit": 500}).json()
    return [m for m in listing["memories"] if m["memory_type"] == "semantic"]


def test_another_participants_facts_are_theirs_and_found_by_their_name(tenant):
    _said(tenant, ("Caroline", "I work at Acme."), ("Melanie", "Nice! I work at Globex."))
    by_key = {m["key"]: m for m in _semantic(tenant)}
    assert by_key["employer"]["value"] == "Acme" and by_key["employer"]["subject"] == "user"
    assert by_key["employer"]["content"] == "The user's employer is Acme."
    melanie = by_key["melanie_employer"]
    assert (melanie["value"], melanie["subject"], melanie["content"]) == (
        "Globex", "Melanie", "Melanie's employer is Globex.")

    # Each question finds its own subject's words first, and their fact before the other's.
    hers, users = tenant.search("where does Melanie work?"), tenant.search("where does the user work?")
    assert hers[0]["subject"] == "Melanie" and users[0]["subject"] == "user"
    assert [m["id"] for m in hers if m["memory_type"] == "semantic"][0] == melanie["id"]
    assert [m["id"] for m in users if m["memory_type"] == "semantic"][0] == by_key["employer"]["id"]
    # The subject filter: the user's memories, or one participant's (any case), episodic ones included.
    question = "where does everyone work?"
    assert {m["subject"] for m in tenant.search(question)} == {"Melanie", "user"}
    assert {m["subject"] for m in tenant.search(question, filters={"subject": "melanie"})} == {"Melanie"}
    assert {m["subject"] for m in tenant.search(question, filters={"subject": "user"})} == {"user"}
    episodic = tenant.search("Globex", filters={"subject": "Melanie", "memory_type": "episodic"})
    assert [m["content"] for m in episodic] == ["Melanie: Nice! I work at Globex."]


def test_a_participants_new_job_supersedes_theirs_not_the_users(tenant):
    _said(tenant, ("Caroline", "I work at Acme."), ("Melanie", "I work at Globex."),
          timestamp="2026-01-01T00:00:00Z")
    _said(tenant, ("Melanie", "Big news: I just started at Initech."), timestamp="2026-02-01T00:00:00Z")
    current = {(m["subject"], m["key"]): m["value"] for m in _semantic(tenant)}
    assert current == {("user", "employer"): "Acme", ("Melanie", "melanie_employer"): "Initech"}
    old = [m for m in _semantic(tenant, include_inactive=True) if not m["active"]]
    assert [(m["subject"], m["value"]) for m in old] == [("Melanie", "Globex")]
    # ...and the user's new job supersedes the user's, leaving Melanie's alone.
    _said(tenant, ("Caroline", "I now work at Hooli."), timestamp="2026-03-01T00:00:00Z")
    current = {(m["subject"], m["key"]): m["value"] for m in _semantic(tenant)}
    assert current == {("user", "employer"): "Hooli", ("Melanie", "melanie_employer"): "Initech"}


def test_the_same_fact_said_by_two_people_is_two_memories(tenant):
    _said(tenant, ("Caroline", "I love hiking."), ("Melanie", "I love hiking too!"))
    likes = sorted((m["subject"], m["key"], m["value"]) for m in _semantic(tenant))
    assert likes == [("Melanie", "melanie_likes", "hiking"), ("user", "likes", "hiking")]


def test_erasing_a_participants_fact_leaves_the_users_and_stays_erased(ctx, tenant):
    turn = _said(tenant, ("Caroline", "I work at Acme."), ("Melanie", "I work at Globex."))["turn_id"]
    melanie = next(m for m in _semantic(tenant) if m["subject"] == "Melanie")
    assert tenant.delete(f"/v1/memories/{melanie['id']}").status_code == 200
    for follow_up in pipeline.extract_many(ctx, tenant.id, [turn], again=True):
        pipeline.resolve(ctx, follow_up)
    assert [(m["subject"], m["value"]) for m in _semantic(tenant)] == [("user", "Acme")]


def test_without_user_name_every_user_message_is_the_users_own(tenant):
    _said(tenant, ("alice", "I live in Porto."), user_name=None)
    assert [(m["subject"], m["key"], m["content"]) for m in _semantic(tenant)] == [
        ("user", "city", "The user lives in Porto.")]


def test_the_users_name_matches_whatever_its_case_and_unnamed_messages_are_the_users(tenant):
    _said(tenant, ("caroline", "I live in Porto."), user_name="Caroline")
    body = {"user_id": tenant.user, "session_id": "s1", "user_name": "Caroline",
            "messages": [{"role": "user", "content": "My dog is called Rex."}]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201
    assert {(m["subject"], m["key"]) for m in _semantic(tenant)} == {("user", "city"), ("user", "pet_dog_name")}


def test_a_participants_pet_named_in_an_earlier_session_is_ended_by_its_death_said_by_its_name(tenant):
    """Melanie names her dog Oscar in one session and says "Oscar passed away" in another: her dog's
    name ends (read among her current facts, by subject), and the user's facts are untouched."""
    _said(tenant, ("Caroline", "I live in Porto."), ("Melanie", "My dog Oscar loves the park."),
          user_name="Caroline", session="a", timestamp="2026-01-01T00:00:00Z")
    _said(tenant, ("Melanie", "Oscar passed away last week."), user_name="Caroline", session="b",
          timestamp="2026-02-01T00:00:00Z")
    dog = sorted((m for m in _semantic(tenant, include_inactive=True) if m["key"] == "melanie_pet_dog_name"),
                 key=lambda m: m["created_at"])
    assert [(m["subject"], m["value"], m["active"]) for m in dog] == [("Melanie", "Oscar", False),
                                                                     ("Melanie", "Oscar", False)]
    assert {(m["subject"], m["key"]) for m in _semantic(tenant)} == {("user", "city")}


def test_user_name_is_validated(tenant):
    body = {"user_id": tenant.user, "session_id": "s1", "user_name": "",
            "messages": [{"role": "user", "content": "hi"}]}
    response = tenant.post("/v1/turns", body)
    assert response.status_code == 422 and "user_name" in response.text


def test_the_offline_rules_write_a_participants_facts_in_their_name():
    messages = [{"id": "m1", "role": "user", "name": "Melanie", "subject": "Melanie",
                 "content": "I'm a teacher. My dog is called Oscar. I used to live in Boston."}]
    found = {(c.key, c.value, c.subject, c.historical): c.content for c in OfflineExtractor().extract(messages, [])}
    assert found == {
        ("melanie_role", "teacher", "Melanie", False): "Melanie's job title is teacher.",
        ("melanie_pet_dog_name", "Oscar", "Melanie", False): "Melanie's dog is named Oscar.",
        ("melanie_city", "Boston", "Melanie", True): "Melanie used to live in Boston.",
    }


def test_a_participant_cannot_correct_the_users_fact():
    history = [{"id": "h1", "role": "user", "name": "Caroline", "subject": None, "content": "I live in Porto."}]
    messages = [{"id": "m1", "role": "user", "name": "Melanie", "subject": "Melanie",
                 "content": "Actually Lisbon, not Porto."}]
    assert OfflineExtractor().extract(messages, history) == []



def test_the_llm_extractor_is_told_who_is_a_participant_and_files_their_facts_under_them():
    from memex.extraction.llm import render_prompt, to_candidate

    messages = [{"id": "c1", "role": "user", "name": "Caroline", "subject": None, "content": "I work at Acme."},
                {"id": "m1", "role": "user", "name": "Melanie", "subject": "Melanie", "content": "I work at Globex."}]
    prompt = render_prompt(messages, [])
    assert "[0] user (Caroline): I work at Acme." in prompt and "[1] participant (Melanie): I work at Globex." in prompt
    item = {"message": 1, "type": "fact", "key": "employer", "value": "Globex", "subject": "user",
            "content": "Melanie's employer is Globex.", "confidence": 0.9, "quote": "I work at Globex."}
    candidate = to_candidate(item, messages)
    assert (candidate.subject, candidate.key, candidate.base_key) == ("Melanie", "melanie_employer", "employer")
    mine = to_candidate({**item, "message": 0, "value": "Acme", "quote": "I work at Acme."}, messages)
    assert (mine.subject, mine.key) == ("user", "employer")


def test_the_llm_extractor_files_a_key_naming_a_participant_or_a_relation_under_them():
    """A key that starts with a person's name ("melanie_role", "sam_role"), whatever subject the model
    answered: a participant's fact is theirs; a fact of a relation the answer names is keyed as that
    relation's (partner_sam_role). A change between two names carries the earlier one (only_replacing),
    as the offline rules do, unless it is said of the past."""
    from memex.extraction.llm import to_candidate

    messages = [{"id": "c1", "role": "user", "name": "Caroline", "subject": None, "content": "Melanie is a nurse now."},
                {"id": "m1", "role": "user", "name": "Melanie", "subject": "Melanie", "content": "Yes, since May."}]
    item = {"message": 0, "type": "fact", "key": "melanie_role", "value": "nurse", "subject": "user",
            "content": "Melanie is a nurse.", "confidence": 0.9, "quote": "Melanie is a nurse now."}
    candidate = to_candidate(item, messages)
    assert (candidate.subject, candidate.key, candidate.base_key) == ("Melanie", "melanie_role", "role")
    assert candidate.importance <= 0.6
    sam = to_candidate({**item, "key": "sam_role", "content": "The user's partner Sam is a nurse."}, messages,
                       known={"sam": "partner"})
    assert (sam.subject, sam.key) == ("user", "partner_sam_role")
    # a key of a family names no one alone, whoever bears a name like its first word
    pet = to_candidate({**item, "key": "pet_dog_name", "value": "Rex"}, messages, known={"pet": "partner"})
    assert (pet.subject, pet.key) == ("user", "pet_dog_name")
    switched = {**item, "key": "employer", "value": "Figma", "only_replacing": "Adobe"}
    assert to_candidate(switched, messages).only_replacing == "Adobe"
    assert to_candidate({**switched, "historical": True}, messages).only_replacing is None


def test_subject_user_is_the_users_side_of_the_conversation_and_the_role_keeps_their_own_lines(tenant):
    """An assistant's line is no participant's: its episodic memory is the user's (subject "user"), part
    of the conversation with them; `filters.metadata` `{"role": "user"}` keeps the user's own lines."""
    response = tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "s1", "messages": [
        {"role": "user", "content": "My sister plays the cello."},
        {"role": "assistant", "content": "The cello is a lovely instrument to play."}]})
    assert response.status_code == 201, response.text
    episodic = {"memory_type": "episodic", "subject": "user"}
    lines = tenant.search("cello", filters=episodic)
    assert sorted(m["metadata"]["role"] for m in lines) == ["assistant", "user"]
    own = tenant.search("cello", filters={**episodic, "metadata": {"role": "user"}})
    assert [(m["metadata"]["role"], "My sister plays the cello." in m["content"]) for m in own] == [("user", True)]


# A participant whose name alone is longer than a key may be (jobs.KEY_MAX_CHARS, 64): 68 characters.
LONG_NAME = "Bartholomew Montgomery Fitzwilliam Archibald Worthington-Smythe Jude"


def test_a_participant_with_a_name_longer_than_a_key_has_each_fact_under_its_own_key(ctx, tenant):
    """Their prefix cut at the bound gave "I live in Paris" and "My dog is called Rex" one key
    ("bartholomew_…_smythe_j"): the dog replaced the city. Each fact keeps its kind whole after a shortened
    prefix distinct to them (jobs.subject_key), is found by their name, and a redelivery or re-extraction
    files it under the same key, writing nothing again."""
    assert len(LONG_NAME) == 68
    city = _said(tenant, ("Caroline", "Hello!"), (LONG_NAME, "I live in Paris."), timestamp="2026-01-01T00:00:00Z")
    dog = _said(tenant, (LONG_NAME, "My dog is called Rex."), timestamp="2026-02-01T00:00:00Z")
    facts = {m["key"]: m for m in _semantic(tenant, include_inactive=True)}
    assert sorted((m["value"], m["active"], m["subject"]) for m in facts.values()) == [
        ("Paris", True, LONG_NAME), ("Rex", True, LONG_NAME)]
    # the whole words that fit, a digest of the whole prefix (be47ecc9), the kind whole
    assert {key: m["value"] for key, m in facts.items()} == {
        "bartholomew_montgomery_fitzwilliam_archibald_be47ecc9_city": "Paris",
        "bartholomew_montgomery_fitzwilliam_be47ecc9_pet_dog_name": "Rex"}
    # found by their name
    found = [m for m in tenant.search("Where does Bartholomew live?") if m["memory_type"] == "semantic"]
    assert found[0]["value"] == "Paris", [m["content"] for m in found]
    # Another person of the same first words keeps their own keys.
    namesake = LONG_NAME.replace("Jude", "Jane")
    _said(tenant, (namesake, "I live in Rome."), timestamp="2026-03-01T00:00:00Z")
    rome = next(m for m in _semantic(tenant) if m["value"] == "Rome")
    assert rome["key"] == "bartholomew_montgomery_fitzwilliam_archibald_027231d8_city"
    assert sorted(m["value"] for m in _semantic(tenant) if m["key"].endswith("_city")) == ["Paris", "Rome"]
    found = [m for m in tenant.search("Where does Jane live?") if m["memory_type"] == "semantic"]
    assert found[0]["value"] == "Rome", [m["content"] for m in found]
    before = sorted((m["id"], m["key"], m["value"], m["active"]) for m in _semantic(tenant, include_inactive=True))
    for turn in (city, dog):
        pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn["turn_id"]]))
        pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn["turn_id"]], again=True))
    assert sorted((m["id"], m["key"], m["value"], m["active"])
                  for m in _semantic(tenant, include_inactive=True)) == before


def test_a_participants_fact_an_earlier_version_stored_under_their_whole_long_name_is_filed(ctx, tenant):
    """An earlier version stored a candidate of the participant's under all of their prefix (the LLM path's
    placement, 73 letters) and the bound dropped it: it is filed as extraction files it now."""
    turn = tenant.post("/v1/turns", {"user_id": tenant.user, "session_id": "s1", "user_name": "Caroline",
                                     "messages": [{"role": "user", "name": LONG_NAME, "content": "I live in Paris."}]})
    turn_id = turn.json()["turn_id"]
    stored = [{"type": "fact", "key": f"{subject_prefix(LONG_NAME)}_city", "value": "Paris", "subject": LONG_NAME,
               "content": f"{LONG_NAME} lives in Paris.", "confidence": 0.8, "importance": 0.6,
               "source_message_id": None, "historical": False}]
    with ctx.db.transaction() as conn:
        turn_rows.store_many_candidates(conn, tenant.id, [(turn_id, stored)])
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn_id]))
    assert [(m["key"], m["value"]) for m in _semantic(tenant)] == [
        ("bartholomew_montgomery_fitzwilliam_archibald_be47ecc9_city", "Paris")]


@pytest.mark.parametrize("name, earlier", [(LONG_NAME, f"{subject_prefix(LONG_NAME)}_city"[:64].rstrip("_")),
                                           ("Mum", "mother_city")])
def test_a_participants_fact_erased_under_the_key_an_earlier_version_filed_it_under_stays_erased(
        ctx, tenant, name, earlier):
    """Erasure is final across the upgrade: a fact an earlier version filed under another key and the user
    erased then is not filed again by a re-extraction under the key it has now (aliases.filed_before): the
    cut key (all of a 68-character prefix cut at 64), and the key read as a whole ("mum_city" of Mum was
    "mother_city")."""
    turn_id = _said(tenant, (name, "I live in Paris."))["turn_id"]
    [paris] = _semantic(tenant)
    with ctx.db.transaction() as conn:  # as the earlier version filed it
        conn.execute("UPDATE memories SET key = %s WHERE tenant_id = %s AND id = %s",
                     (earlier, tenant.id, paris["id"]))
    assert tenant.delete(f"/v1/memories/{paris['id']}").status_code == 200
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn_id], again=True))
    assert _semantic(tenant, include_inactive=True) == []


def test_a_participant_named_by_a_relation_word_has_their_facts_under_their_name_and_erased_stays_erased(
        ctx, tenant):
    """A participant called "Mum": her "I live in Paris." is her city, "mum_city" (the whole key read
    "mother_city", and prefixed again: "mum_mother_city", longer at each reading), and a re-extraction of
    the turn after she erased it files nothing again."""
    turn_id = _said(tenant, ("Mum", "I live in Paris."))["turn_id"]
    [paris] = _semantic(tenant)
    assert (paris["subject"], paris["key"], paris["value"]) == ("Mum", "mum_city", "Paris")
    assert tenant.delete(f"/v1/memories/{paris['id']}").status_code == 200
    pipeline.resolve_many(ctx, pipeline.extract_many(ctx, tenant.id, [turn_id], again=True))
    assert _semantic(tenant, include_inactive=True) == []


def test_a_participants_fact_an_earlier_version_filed_under_their_relation_word_is_replaced_by_their_new_one(
        ctx, tenant):
    """Mum's city an earlier version filed as "mother_city" (subject Mum) is the fact "mum_city" is now:
    her "I moved to Leeds." replaces it, history kept, rather than standing beside it as a second city."""
    _said(tenant, ("Mum", "I live in Paris."), timestamp="2026-01-01T00:00:00Z")
    [paris] = _semantic(tenant)
    with ctx.db.transaction() as conn:  # as the earlier version filed it
        conn.execute("UPDATE memories SET key = 'mother_city' WHERE tenant_id = %s AND id = %s", (tenant.id, paris["id"]))
    _said(tenant, ("Mum", "I moved to Leeds."), timestamp="2026-02-01T00:00:00Z")
    assert [(m["key"], m["value"]) for m in _semantic(tenant)] == [("mum_city", "Leeds")]
    [leeds] = _semantic(tenant)
    history = tenant.get(f"/v1/memories/{leeds['id']}/history").json()
    assert [(m["value"], m["active"]) for m in history["history"]] == [("Paris", False), ("Leeds", True)], history


def test_a_participants_liking_an_earlier_version_filed_under_their_relation_word_is_taken_back_by_the_opposite(
        ctx, tenant):
    """Mum's liking of coffee an earlier version filed as "mother_likes": her "I hate coffee now." (mum_dislikes)
    takes it back, as it takes back her "mum_likes" (it stood beside it: only the candidate's own key was read
    under its earlier name, review revW)."""
    _said(tenant, ("Mum", "I love coffee."), timestamp="2026-01-01T00:00:00Z")
    [coffee] = _semantic(tenant)
    with ctx.db.transaction() as conn:  # as the earlier version filed it
        conn.execute("UPDATE memories SET key = 'mother_likes' WHERE tenant_id = %s AND id = %s",
                     (tenant.id, coffee["id"]))
    _said(tenant, ("Mum", "I hate coffee now."), timestamp="2026-02-01T00:00:00Z")
    assert [(m["key"], m["value"]) for m in _semantic(tenant)] == [("mum_dislikes", "coffee")]


def test_the_llm_extractor_files_a_key_a_model_opens_with_the_speakers_relation_word_name_as_their_own():
    """The model may open the key of Mum's own "I live in Paris." with her name ("mum_city", "mum_location"):
    it is her city, "mum_city", as "city" is (the whole key read as the relation's was her "mum_mother_city")."""
    from memex.extraction.llm import to_candidate

    messages = [{"id": "m1", "role": "user", "name": "Mum", "subject": "Mum", "content": "I live in Paris."}]
    item = {"message": 0, "type": "fact", "value": "Paris", "subject": "Mum", "content": "Mum lives in Paris.",
            "confidence": 0.9, "quote": "I live in Paris."}
    assert [to_candidate({**item, "key": key}, messages).key for key in ["city", "mum_city", "mum_location"]] == [
        "mum_city"] * 3


def test_a_participant_named_like_a_relation_is_a_name_first():
    """A participant called "Sister Act" or "Partner Smith": the key a model opens with her name
    ("sister_act_location") is her city, not the user's sister Act's (the family's reading came first). A
    participant called "Sister" or "Pet" takes no key of the user's that only opens with that word."""
    from memex.extraction.llm import to_candidate

    messages = [{"id": "c1", "role": "user", "name": "Caroline", "subject": None, "content": "Sister Act moved to Rome."},
                {"id": "m1", "role": "user", "name": "Sister Act", "subject": "Sister Act", "content": "Yes, in May."}]
    item = {"message": 0, "type": "fact", "value": "Rome", "subject": "user", "content": "Sister Act lives in Rome.",
            "confidence": 0.9, "quote": "Sister Act moved to Rome."}
    for key in ["sister_act_city", "sister_act_location"]:
        candidate = to_candidate({**item, "key": key}, messages)
        assert (candidate.subject, candidate.key) == ("Sister Act", "sister_act_city"), key
    for name, key in [("Sister", "sister_ana_city"), ("Sister", "sister_city"), ("Pet", "pet_dog_name"),
                      ("Pet Cat", "pet_cat_tofu_age")]:
        said = Candidate(type="fact", key=key, value="v", content="c", confidence=0.9, importance=0.5,
                         source_message_id=None)
        assert placed(said, [name], {}) == said, (name, key)


@pytest.mark.parametrize("name", ["Melanie", "Mum", "Dad", "Bestie Jo", "Nana", "Zoë " * 14, LONG_NAME,
                                  LONG_NAME.replace("Jude", "Jane"), "Sister Act", "Partner Smith",
                                  "Partner Smith " + LONG_NAME])
def test_a_participants_key_placed_is_its_family_key_and_reading_it_again_changes_nothing(name):
    """What placement files a participant's fact under is its family key (aliases.family_key, which the
    stored candidates, tombstones and migration 0033 read): read again, it is the same key."""
    prefix = subject_prefix(name)
    for kind in ["city", "job", "location", "diet", "pet_rex_name", "favorite_movies", "partner_name", "employer",
                 "mother_name", "mum_name", "sister_city", "partner_sam_role"]:
        said = Candidate(type="fact", key=f"{prefix}_{kind}", value="v", content="c", confidence=0.9, importance=0.5,
                         source_message_id=None)
        filed = placed(said, [name], {})
        assert filed.subject == name
        assert family_key(name, filed.key) == filed.key == family_key(name, family_key(name, filed.key))
        assert filed.base_key == canonical(kind)
