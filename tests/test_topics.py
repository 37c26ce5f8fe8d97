"""A question that names a kind of fact ("any pets?", "her hobbies", "his family") is answered by the
facts filed under that kind, though they say none of its words (retrieval/topics.py)."""

from __future__ import annotations

import random
import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from memex import people
from memex.extraction.plurals import plural
from memex.retrieval import past, topics
from tests.conftest import memories_rows_read


@pytest.mark.parametrize("question, kind_word", [
    ("Does she have any pets?", "pets"),
    ("What animals does the user own?", "animals"),
    ("What are her hobbies?", "hobbies"),
    ("What does he do in his free time?", "free time"),
    ("Any medical conditions I should know about?", "medical conditions"),
    ("Is the user on a diet?", "diet"),
    ("Tell me about the user's family.", "family"),
    ("What does she do for fun?", "for fun"),
    ("Is she married?", "married"),
    ("Is the user single?", "single"),
    ("Who is her husband?", "husband"),
    ("Is he in a relationship?", "in a relationship"),
    ("What languages does she speak?", "languages"),
    ("What language does he speak?", "language"),
    ("What's her nationality?", "nationality"),
    ("Where is Jonas a citizen?", "citizen"),
    ("Where did he go to university?", "university"),
    ("What's the user's educational background?", "educational background"),
    ("Does she have a degree?", "degree"),
    # the same facts in other words (bench.asked's `phrasings`)
    ("Which company is she with?", "company"),
    ("What's her line of work?", "line of work"),
    ("Where's home for her?", "where's home"),
    ("Any kids?", "kids"),
    ("Is he a dad?", "a dad"),
    ("Does he have a significant other?", "significant other"),
    ("What are his interests?", "interests"),
    ("What's her age?", "age"),
    ("How old is Nadia?", "how old"),
    ("How can I contact her?", "contact her"),
    ("What's his mobile?", "mobile"),
    ("What's his hometown?", "hometown"),
    # the items of a list
    ("What activities has Melanie done with her family?", "activities"),
    ("What sports does he like?", "sports"),
    ("What instruments does she play?", "instruments"),
    ("What video games does Nate play?", "video games"),
    ("What books has Tim read?", "books"),
    # where one grew up, where one works and the job to come (bench.asked's `order`)
    ("Where did she grow up?", "where did she grow up"),
    ("Where was Grace raised?", "raised"),
    ("Where is she from originally?", "originally"),
    ("Which country is she from?", "which country is she from"),
    ("What country is the user from?", "what country is the user from"),
    ("Where does the user work?", "where does the user work"),
    ("Who does she work for?", "does she work for"),
    ("What's her next job?", "next job"),
    ("Is he changing jobs?", "changing jobs"),
    # what one does, the question alone, and the job to come in other words
    ("What do I do?", "what do i do"),
    ("What does she do for a living?", "what does she do for a living"),
    ("What does the user do?", "what does the user do"),
    ("Where will she work next?", "work next"),
    ("What job is he starting?", "job is he starting"),
    ("Which company is she joining?", "company is she joining"),
    # being a student, what one studies, whom one lives with, the job to come with a time after it
    ("Is she studying?", "is she studying"),
    ("Am I in school?", "am i in school"),
    ("Is he a full-time student?", "is he a full-time student"),
    ("What's he studying?", "what's he studying"),
    ("Does she still go to university?", "does she still go to university"),
    ("Who does he live with?", "does he live with"),
    ("Does she live with her sister?", "does she live with"),
    ("What position is he taking next?", "position is he taking"),
    ("What role is the user starting next month?", "role is the user starting"),
    # where one is based, a university said short, work as the noun, a partner described
    ("Where is the user based?", "where is the user based"),
    ("Where's she based now?", "where's she based"),
    ("Which uni did she go to?", "uni"),
    ("What's her work?", "her work"),
    ("What kind of work does he do?", "what kind of work"),
    ("Is he dating a student?", "dating"),
    ("Is she dating anyone?", "dating"),
    ("Is Nadia dating someone?", "dating"),
    ("What do you know about me?", "know about me"),
    ("Tell me about myself.", "tell me about myself"),
    ("What have I told you about myself so far?", "told you about myself so far"),
    # someone in her life, asked about as hers
    ("Where does my boss live?", "boss"),
    ("What does my cousin do?", "cousin"),
    ("Tell me about my grandparents.", "grandparents"),
    ("What activity did John's colleague, Rob, invite him to?", "colleague"),
    ("Is her flatmate a student?", "flatmate"),
    ("Tell me about our neighbours.", "neighbours"),
    # an operation or an injury had (round 15), asked of someone
    ("Has she had any surgery?", "surgery"),
    ("What injuries has the user had?", "injuries"),
    # what she owns and how she lives (offline19's families)
    ("Does she have a car?", "car"),
    ("What does she drive?", "what does she drive"),
    ("Does he drive?", "does he drive"),
    ("Is she expecting?", "expecting"),
    ("Is she pregnant?", "pregnant"),
    ("Does she rent or own?", "rent or own"),
    ("Which team does he support?", "which team does he support"),
    ("Who does he support?", "who does he support"),
    ("What is Leila's favorite team?", "favorite team"),
    ("What is she saving for?", "saving for"),
    ("Which bank does she use?", "which bank"),
])
def test_a_question_naming_a_kind_of_fact_is_recognised(question, kind_word):
    asked = topics.asked(question)
    assert asked is not None and kind_word in asked.words


@pytest.mark.parametrize("question", [
    "What is her pet peeve?",
    "Do I eat animal products?",
    "Does she work in health care?",
    "When is my medical appointment?",
    "How do I write a cover letter for a family business?",
    "Diet coke or pepsi?",
    "What mental health services is she interested in?",
    "Is she a single mother?",
    "What is her relationship with her sister?",
    "Was it fun?",
    "What language is this code in?",
    "To what degree is that true?",
    "How many degrees is it outside?",
    "Find the case study on sleep.",
    # words said of the world as often as of a person, asked of no one
    "Which company makes the iPhone?",
    "What's a good line of work for introverts?",
    "How old is the universe?",
    "Which city is home to the Louvre?",
    "How can I contact customer support?",
    "What do kids like to eat?",
    "What should I call her?",
    "What's the age of her dog?",
    "Where did the Beatles grow up?",
    "Where did Mozart grow up?",
    "What's the next job in the print queue?",
    "How does the new phone work?",
    # her own kinds, asked about someone in her life or about where she comes from
    "Which city does my sister live in?",
    "Which company does her husband work for?",
    "Which city is she a native of?",
    "Which country is she visiting?",
    "Which country is the Eiffel Tower in?",
    # the items of a list, asked of the world
    "What sports are in the Olympics?",
    "What are the best books on Python?",
    "Which games were released in 2020?",
    "Where does her husband work?",
    "What's my sister's new job?",
    # what to do about something, what a thing or someone else does, the agent's own work
    "What does the company do?",
    "What do I do about my leaking tap?",
    "What do I do if my boiler breaks?",
    "What does this button do?",
    "What does a plumber do?",
    "What do you do?",
    "What do I do now?",
    "What jobs are starting to disappear?",
    "Which company is joining the index next?",
    # school, study and home words about something else
    "What are kids studying in school these days?",
    "Is the school open on Monday?",
    "How many students are in her class?",
    "Is studying at night bad for me?",
    "Who lives in the White House?",
    "Who does his sister live with?",
    "Is the store open?",
    "Where did the idea come from?",
    "Where is the company based?",
    "What is it based on?",
    "Is the uni open?",
    "Will the work be done by Friday?",
    "What do you know about Python?",
    "Tell me about yourself.",
    "What do you know about my sister's job?",
    "What's the most common football injury?",
    "Is keyhole surgery safer?",
    "What is she expecting from the meeting?",
    "What team is she on?",
    "Which car is the fastest?",
    "Who does he support in the election?",
])
def test_a_phrase_that_means_something_else_names_no_kind(question):
    assert topics.asked(question) is None


@pytest.mark.parametrize("question", ["What's my partner's job?", "What is my spouse's job?",
                                      "What's my husband's job?", "Where is her boyfriend's office?"])
def test_something_of_the_partners_asked_as_theirs_names_the_partners_facts(question):
    asked = topics.asked(question)
    assert asked is not None and re.search(asked.keys, "partner_anna_role") and not re.search(asked.keys, "role"), asked
    assert topics.asked("What's my brother's job?") is None


def test_a_place_in_a_home_names_no_home():
    asked = topics.asked("Any animals in his home?")
    assert asked is not None and asked.words == {"animals"}


def test_the_kinds_a_question_names_name_their_keys_to_the_history():
    # "company" names no key by its own word: the ended employer is found by the kind's (past.key_words)
    for question, word in (("Which company is she with?", "employer"), ("How can I contact her?", "phone")):
        assert word in past.key_words(question, topics.asked(question))
    # the team supported is named by "team": "favorite" would begin favorite_food's key too
    question = "Which football team did the user support previously?"
    words = past.key_words(question, topics.asked(question))
    assert "team" in words and "favorite" not in words, words


def _said(tenant, *lines: tuple[str | None, str]):
    body = {"user_id": tenant.user, "session_id": "s1", "user_name": "Ines",
            "messages": [{"role": "user", **({"name": name} if name else {}), "content": text} for name, text in lines]}
    response = tenant.post("/v1/turns?wait=true", body)
    assert response.status_code == 201, response.text


def test_the_facts_of_the_kind_asked_come_first(tenant):
    # On main "Does she have any pets?" put "The user is vegetarian." (0.50) and the asthma above the
    # dog (0.35), and "What does the user do in her free time?" found nothing at all.
    for n, text in enumerate(("We have a dog called Bolt.", "I go climbing on weekends.",
                              "I'm vegetarian and I have asthma.", "My wife Clara is a teacher.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    pets = tenant.search("Does she have any pets?")
    assert pets and pets[0]["key"] == "pet_dog_name", [r["content"] for r in pets]
    free_time = tenant.search("What does the user do in her free time?")
    assert free_time and free_time[0]["key"] == "hobby", [r["content"] for r in free_time]
    family = tenant.search("Tell me about the user's family.")
    assert family and family[0]["key"].startswith("partner_"), [r["content"] for r in family]
    health = tenant.search("Does the user have any health problems?")
    assert health and health[0]["key"] == "health_condition", [r["content"] for r in health]


def test_a_kind_is_answered_for_whom_the_question_asks(tenant):
    _said(tenant, (None, "I have a cat named Miso."), ("Leila", "My dog is called Biscuit."))
    mine = tenant.search("Does the user have any pets?")
    assert mine and mine[0]["key"] == "pet_cat_name", [r["content"] for r in mine]
    hers = tenant.search("Does Leila have any pets?")
    assert hers and hers[0]["key"] == "leila_pet_dog_name", [r["content"] for r in hers]


def test_a_question_about_the_user_as_a_whole_is_answered_by_their_facts(tenant):
    # It names no kind of fact and says none of their words: the floor's gate let nothing through.
    _said(tenant, (None, "Hi, I'm Bob. I'm a nurse and I'm vegetarian."), (None, "I have a cat called Miso."),
          ("Leila", "My dog is called Biscuit."))
    for question in ("What do you know about me?", "Tell me about myself."):
        found = tenant.search(question)
        facts = [r for r in found if r["memory_type"] == "semantic"]
        assert found[:len(facts)] == facts, [r["content"] for r in found]  # the facts first
        assert {r["key"] for r in facts} == {"name", "role", "dietary_restriction", "pet_cat_name"}, \
            [r["content"] for r in found]
    assert tenant.search("What do you know about Python?") == []


def test_a_user_with_no_fact_of_the_kind_gets_none_from_it(tenant):
    tenant.turn("I'm vegetarian.")
    assert tenant.search("What does the user do in her spare time?") == []


def test_pets_counted_but_not_named_answer_a_question_about_pets(tenant):
    # "we have two rabbits" filed no pet before: "Do I own any animals?" put "The user is vegan." first.
    _said(tenant, (None, "My husband Raj teaches maths, and we have two rabbits."),
          (None, "I'm vegan, and I don't drink alcohol."))
    pets = tenant.search("Do I own any animals?")
    assert pets and pets[0]["content"] == "The user has 2 rabbits.", [r["content"] for r in pets]


def test_every_pet_of_a_list_stays_current(tenant):
    # Two hamsters named at once: the second name replaced the first when a hamster's name held one value.
    _said(tenant, (None, "We have two hamsters, Bo and Mo."))
    pets = tenant.search("What pets does the user have?")
    named = {r["value"] for r in pets if r["key"] == "pet_hamster_name" and r["active"]}
    assert named == {"Bo", "Mo"}, [r["content"] for r in pets]


def test_a_pet_without_a_name_answers_a_question_about_pets(tenant):
    # "I have a dog." filed nothing before: "Does she have any pets?" had only the diet to find.
    _said(tenant, (None, "I have a dog."), (None, "I'm vegan, and I don't drink alcohol."))
    _said(tenant, (None, "We adopted a kitten last week."))
    pets = tenant.search("Does she have any pets?")
    assert pets and pets[0]["key"] == "pet_kind", [r["content"] for r in pets]
    kinds = {r["value"] for r in pets if r["key"] == "pet_kind" and r["active"]}
    assert kinds == {"dog", "cat"}, [r["content"] for r in pets]  # the kitten added to the dog, not replacing it


def test_a_pet_that_died_is_no_longer_current(tenant):
    # "Our dog Rex died last year." filed Rex as the current dog's name again.
    assert tenant.turn("I have a dog named Rex and a cat named Luna.", session="s1").status_code == 201
    assert tenant.turn("Our dog Rex died last year.", session="s2").status_code == 201
    dog = tenant.search("Does she have a dog?")
    assert not [r for r in dog if r["key"] == "pet_dog_name" and r["active"]], [r["content"] for r in dog]
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    rex = {(m["content"], m["active"]) for m in memories if m["key"] == "pet_dog_name"}
    assert rex == {("The user's dog is named Rex.", False), ("The user used to have a dog named Rex.", False)}, rex
    # the other pet stays
    assert [m["value"] for m in memories if m["key"] == "pet_cat_name" and m["active"]] == ["Luna"]


def test_a_pet_given_away_without_its_name_ends_its_kind(tenant):
    assert tenant.turn("We've got a cat.", session="s1").status_code == 201
    assert tenant.turn("We had to give our cat away.", session="s2").status_code == 201
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    cat = {(m["content"], m["active"]) for m in memories if m["key"] == "pet_kind"}
    assert cat == {("The user has a cat.", False), ("The user used to have a cat.", False)}, cat


def test_the_only_pet_of_a_kind_given_away_ends_its_name(tenant):
    assert tenant.turn("I have a cat named Luna and a dog named Rex.", session="s1").status_code == 201
    assert tenant.turn("We had to give our cat away.", session="s2").status_code == 201
    memories = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()["memories"]
    current = {(m["key"], m["value"]) for m in memories if (m["key"] or "").startswith("pet_") and m["active"]}
    assert current == {("pet_dog_name", "Rex")}, current


def test_a_pet_named_after_its_kind_answers_what_it_is_called(tenant):
    # "The user has a dog." came above the name for "What is my dog called?" while both were current.
    assert tenant.turn("I have a dog.", session="s1").status_code == 201
    assert tenant.turn("My dog is called Rex.", session="s2").status_code == 201
    called = tenant.search("What is my dog called?")
    assert called and "Rex" in called[0]["content"], [r["content"] for r in called]
    assert not [r for r in called if r["key"] == "pet_kind" and r["active"]], [r["content"] for r in called]


def test_languages_a_nationality_and_schooling_answer_the_questions_that_name_them(tenant):
    # On main nothing was filed from these lines: "What's her nationality?" had only the messages.
    for n, text in enumerate(("Hi, I'm Lucia. I'm a pharmacist in Madrid.", "I'm Brazilian.",
                              "I speak Portuguese and Spanish.", "I studied chemistry at the University of Lisbon.",
                              "Please answer in English.", "We have a cat named Luna.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    spoken = tenant.search("What languages does she speak?")
    assert spoken and spoken[0]["key"] == "language", [r["content"] for r in spoken]
    assert "preference_answer_language" not in {r["key"] for r in spoken[:2]}, [r["content"] for r in spoken]
    nationality = tenant.search("What's her nationality?")
    assert nationality and nationality[0]["key"] == "nationality", [r["content"] for r in nationality]
    studied = tenant.search("Where did she study?")
    assert studied and studied[0]["key"] in ("school", "field_of_study"), [r["content"] for r in studied]


def test_a_fact_asked_in_other_words_comes_first(tenant):
    # On main "Which company is she with?" put the job title above the employer, "Any kids?" and
    # "Where's home for her?" returned nothing, "How can I contact her?" put her name first.
    for n, text in enumerate(("Hi, I'm Nadia.", "I work at Notion.", "I'm a product designer.", "I live in Porto.",
                              "My husband Luis is a chef.", "My son is named Leo.", "My number is 555-0142.",
                              "I'm 34 years old.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question, key in (("Which company is she with?", "employer"), ("Any kids?", "child_name"),
                          ("Where's home for her?", "city"), ("How can I contact her?", "phone_number"),
                          ("What's her age?", "age")):
        found = tenant.search(question)
        assert found and found[0]["key"] == key, (question, [r["content"] for r in found])
    # her own job, not her husband's, is what her line of work asks for
    work = tenant.search("What's her line of work?")
    assert work and work[0]["key"] == "role", [r["content"] for r in work]


def test_the_country_she_is_from_is_answered_by_where_she_grew_up(tenant):
    # No key says "country": on main "Which country is she from?" named no kind, and "The user lives
    # in Dublin." came above where she grew up.
    for n, text in enumerate(("Hey, I'm Sofia.", "I work at Deloitte.", "I live in Dublin.", "I grew up in Valencia.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    found = tenant.search("Which country is she from?")
    assert found and found[0]["key"] == "hometown", [r["content"] for r in found]


def test_a_company_asked_about_after_the_job_ended_is_answered_by_the_news(tenant):
    # On main "Which company is she with?" returned nothing: "company" named no key, and the gate shut.
    for n, text in enumerate(("My name is Lena, I'm based in Munich.", "I work at Siemens as an analyst.",
                              "I don't work at Siemens anymore.")):
        tenant.turn(text, session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
    found = tenant.search("Which company is she with?")
    assert found and found[0]["content"] == "I don't work at Siemens anymore.", [r["content"] for r in found]


def test_a_list_question_finds_items_that_never_say_its_kind(tenant):
    # "What activities has she done with her family?" found "We went camping" only by its words, which
    # are none of the question's; each outing is now filed as an activity when it is said.
    _said(tenant, ("Mira", "We went camping with the kids last weekend."),
          ("Mira", "Yesterday I took my daughter to the aquarium."),
          ("Mira", "I'm reading \"The Hobbit\" again."),
          ("Mira", "My car broke down on the highway."))
    activities = tenant.search("What activities has Mira done?", top_k=5)
    keys = [r["key"] for r in activities]
    assert keys[:2] == ["mira_activity", "mira_activity"], [r["content"] for r in activities]
    books = tenant.search("What books has Mira read?", top_k=3)
    assert books and books[0]["key"] == "mira_book", [r["content"] for r in books]


def test_being_a_student_retired_or_out_of_work_answers_what_one_does():
    # the work status is no job title, but it is what a question about one's job asks
    for question in ("What is the user's occupation?", "What's her job?", "What do I do?",
                     "What does she do for a living?"):
        asked = topics.asked(question)
        assert asked is not None and re.search(asked.keys, "employment_status"), question


def test_the_job_to_come_is_first_for_where_she_works_next():
    keys = {"job": "employer", "next": "next_job"}
    for question in ("Where will she work next?", "What job is he starting?", "Which company is she joining?"):
        order = topics.ordered(topics.asked(question), _scored("job", "next"), keys)
        assert [item for item, _, _ in order] == ["next", "job"], question


def test_what_she_does_is_answered_by_her_work_status_or_her_new_title(tenant):
    # On main "What do I do?" and "What is the user's occupation?" returned nothing for a student (the
    # status is no job title), and "What does she do?" nothing after the lay-off and the new title.
    assert tenant.turn("I'm a student.").status_code == 201
    for question in ("What do I do?", "What is the user's occupation?", "What does she do for a living?"):
        found = tenant.search(question)
        assert found and found[0]["key"] == "employment_status", (question, [r["content"] for r in found])
    assert not tenant.search("What does the company do?")
    for n, text in enumerate(("I live in Porto.", "I was made redundant in January.", "I'm a pharmacist now.")):
        tenant.turn(text, user="ana", session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
    found = tenant.search("What does she do?", user_id="ana")
    assert found and found[0]["key"] == "role", [r["content"] for r in found]


def test_the_job_to_come_answers_where_she_works_next(tenant):
    # On main "Where will she work next?" and "What job is she starting?" put the employer first.
    for n, text in enumerate(("I live in Lyon.", "I work at Danone.", "I'm joining Nestle in June.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question in ("Where will she work next?", "What job is she starting?"):
        facts = [r["key"] for r in tenant.search(question) if r["memory_type"] != "episodic"]
        assert facts[:1] == ["next_job"], (question, facts)


def _scored(*items: str) -> list[topics.Scored]:
    return [(item, round(1.0 - n / 10, 2), {"score": round(1.0 - n / 10, 2)}) for n, item in enumerate(items)]


def test_the_facts_that_answer_a_kind_first_come_just_above_the_best_of_the_others():
    # "Does she have kids?": the count, ranked fourth, comes just above the daughter's name; the
    # message between them and the line above keep their places
    asked = topics.asked("Does she have kids?")
    keys = {"name": "child_name", "count": "number_of_children"}
    order = topics.ordered(asked, _scored("line", "name", "message", "count"), keys)
    assert [item for item, _, _ in order] == ["line", "count", "name", "message"]
    assert order[1][1] == order[2][1] == 0.9 and order[1][2]["kind_order"] == "first"
    # asked for a name or an age, the children's own facts keep their order, the count after them
    for question in ("What are the names of her kids?", "How old are her kids?", "Does she have a daughter?"):
        order = topics.ordered(topics.asked(question), _scored("name", "count"), keys)
        assert [item for item, _, _ in order] == ["name", "count"], question


def test_the_job_to_come_comes_right_after_the_job_and_first_when_asked_for():
    keys = {"job": "employer", "next": "next_job", "title": "role"}
    # ranked above the current employer or far below it, it comes right after it
    for ranked in (("next", "message", "job", "city"), ("message", "job", "city", "title", "next")):
        order = topics.ordered(topics.asked("Where does she work?"), _scored(*ranked), keys)
        at = [item for item, _, _ in order]
        assert at[at.index("job") + 1] == "next", at
    order = topics.ordered(topics.asked("What's her next job?"), _scored("title", "job", "next"), keys)
    assert [item for item, _, _ in order] == ["next", "title", "job"]
    # without the job it comes after, it keeps its place
    assert topics.ordered(topics.asked("Where does she work?"), _scored("city", "next"), keys) == _scored("city", "next")


def test_several_facts_that_answer_come_in_the_order_a_user_expects(tenant):
    # On main "Does she have kids?" put the daughter's name above the number of children, "Where did
    # she grow up?" put her employer above where she grew up, and the job to come ("I start at Google
    # next month.") was not among the answers to "where does she work?", nor first for her next job.
    for n, text in enumerate(("Hi, I'm Grace. I live in Bristol.", "I work at Arup as an engineer.",
                              "I start at Google next month.", "I have two kids.", "My daughter is called Ruby.",
                              "I grew up in Leeds.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question, key in (("Does she have kids?", "number_of_children"), ("Is the user a parent?", "number_of_children"),
                          ("What's her daughter called?", "child_name"), ("Where did she grow up?", "hometown"),
                          ("What's her next job?", "next_job")):
        found = tenant.search(question)
        assert found and found[0]["key"] == key, (question, [r["content"] for r in found])
    work = [r["key"] for r in tenant.search("Where does she work?") if r["memory_type"] != "episodic"]
    assert work[:2] == ["employer", "next_job"], work


def test_the_job_title_and_the_field_of_study_come_before_the_employer_and_the_school():
    # "What's her job?" asks as what she works: the title first, unless where, for whom or the job to come
    keys = {"job": "employer", "title": "role", "next": "next_job"}
    for question in ("What's her job?", "What does she do?", "What's his profession?"):
        order = topics.ordered(topics.asked(question), _scored("job", "title"), keys)
        assert [item for item, _, _ in order] == ["title", "job"], question
    for question in ("Where's her job?", "Which company is her job with?"):
        assert topics.ordered(topics.asked(question), _scored("job", "title"), keys) == _scored("job", "title")
    order = topics.ordered(topics.asked("What's her new job?"), _scored("job", "title", "next"), keys)
    assert [item for item, _, _ in order] == ["next", "job", "title"]
    # what she studies: the field (or degree) first; which school, or whether she studies, keeps the order
    keys = {"school": "school", "status": "employment_status", "field": "field_of_study"}
    for question in ("What's her major?", "What is she studying?", "What subject does he study?"):
        order = topics.ordered(topics.asked(question), _scored("school", "status", "field"), keys)
        assert [item for item, _, _ in order][0] == "field", question
    for question in ("Which university is she studying at?", "Is she studying?", "Is he a student?",
                     "What is her alma mater?", "Where did the user study?"):
        ranked = _scored("school", "status", "field")
        assert topics.ordered(topics.asked(question), ranked, keys) == ranked, question


def test_studies_the_job_title_whom_she_lives_with_and_the_role_to_come_answer_first(tenant):
    # On main "What's her major?" put the school first, "Who does he live with?" the city,
    # "What's her job?" the employer above the title, and "What position is he taking next?" found nothing.
    said = ("Hi, I'm Zoe. I live in Boston.", "I'm a student at Yale.", "I'm studying law.", "I live with my sister.")
    for n, text in enumerate(said):
        assert tenant.turn(text, session=f"s{n}", timestamp=f"2026-01-0{n + 1}T09:00:00Z").status_code == 201
    for question, key in (("What's her major?", "field_of_study"), ("Who does she live with?", "lives_with"),
                          ("Is Zoe a student?", "employment_status")):
        facts = [r["key"] for r in tenant.search(question) if r["memory_type"] != "episodic"]
        assert facts[:1] == [key], (question, facts)
    for user, said, question, key in (
            ("cara", ("I live in Cork.", "I got laid off in March.", "I'm a nurse now at St Mary's."),
             "What's her job?", "role"),
            ("kai", ("I live in Oslo.", "I work at DNB.", "I'm starting at Equinor in August."),
             "What position is he taking next?", "next_job")):
        for n, text in enumerate(said):
            tenant.turn(text, user=user, session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
        facts = [r["key"] for r in tenant.search(question, user_id=user) if r["memory_type"] != "episodic"]
        assert facts[:1] == [key], (question, facts)


def test_a_student_the_partner_is_asked_about_names_the_partner_not_her_schooling():
    # "a student" describes whom she dates: the partner's facts lead, her own schooling is not asked for
    for question in ("Is he dating a student?", "Is her husband a doctor?"):
        asked = topics.asked(question)
        assert asked is not None and asked.lead and re.search(asked.keys, "partner_name"), question
        assert not re.search(asked.keys, "employment_status"), question
    for question in ("Is she a student?", "Who is she dating?"):
        asked = topics.asked(question)
        assert asked is not None and not asked.lead, question
    keys = {"name": "partner_name", "role": "partner_tom_role"}
    order = topics.ordered(topics.asked("Is she dating a student?"), _scored("status", "school", "name", "role"), keys)
    assert [item for item, _, _ in order] == ["name", "role", "status", "school"]
    assert [score for _, score, _ in order] == sorted((score for _, score, _ in order), reverse=True)


def test_where_she_is_based_her_uni_her_work_and_whom_she_dates_are_answered_by_their_kinds(tenant):
    # On main "Where is she based?" put the employer above the city, "Which uni did she go to?" found
    # nothing, "What's her work?" put a friend's "Sarah works at Google." first and "Is she dating a
    # student?" her own being a student above her boyfriend; "Is she dating anyone?" returned nothing
    # ("anyone" ended no kind's word).
    said = ("Hi! I'm Maya.", "I live in Chicago.", "I work at Deloitte as a data analyst.",
            "I'm a student at Yale, studying law.", "My friend Sarah works at Google.", "My boyfriend Tom is a nurse.")
    for n, text in enumerate(said):
        assert tenant.turn(text, session=f"s{n}", timestamp=f"2026-01-0{n + 1}T09:00:00Z").status_code == 201
    for question, key in (("Where is Maya based?", "city"), ("Where's she based?", "city"),
                          ("Which uni did she go to?", "school"), ("What's her work?", "role"),
                          ("Is she dating a student?", "partner_"), ("Is she dating anyone?", "partner_")):
        facts = [r["key"] or "" for r in tenant.search(question)]
        assert facts and facts[0].startswith(key), (question, facts)


def test_asked_for_the_childrens_names_the_count_comes_right_after_them():
    # "children" is searched with "kids" (keywords.py): the count, which says no name, came first for
    # "What are the user's kids called?"
    keys = {"count": "number_of_children", "zoe": "child_name", "mia": "child_name"}
    order = topics.ordered(topics.asked("What are the user's kids called?"), _scored("count", "zoe", "city", "mia"),
                           keys)
    assert [item for item, _, _ in order] == ["zoe", "count", "city", "mia"]
    order = topics.ordered(topics.asked("Does she have kids?"), _scored("zoe", "count"), keys)
    assert [item for item, _, _ in order] == ["count", "zoe"]


def test_the_people_in_the_users_life_are_asked_about_by_what_they_are_to_her(tenant):
    # On main "Tell me about my grandparents." put the uncle's and the aunt's names between the
    # grandparents' facts, and "Tell me about my family." found no cousin's, aunt's nor grandparent's.
    for n, text in enumerate(("I live in Chicago and I'm 34.", "My boss lives in Denver.", "My cousin Priya is a dentist.",
                              "My grandma lives in Cork.", "My grandpa is 90.", "My aunt Mary lives in Leeds.",
                              "My colleague Tom works at IBM.", "My neighbour Otto is a plumber.",
                              "My roommate Jo is a nurse.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201

    def keys(question: str) -> list[str]:
        return [r["key"] for r in tenant.search(question, top_k=10) if r["memory_type"] == "semantic"]

    assert keys("Where does my boss live?")[0] == "boss_city"
    assert keys("What does my cousin do?")[0] == "cousin_priya_role"
    assert set(keys("Tell me about my grandparents.")[:2]) == {"grandmother_city", "grandfather_age"}
    assert keys("How old is my grandpa?")[0] == "grandfather_age"
    assert keys("Where does my coworker work?")[0] == "colleague_tom_employer"
    # the family is the relatives, not the boss, the colleague, the neighbour nor the roommate
    family = keys("Tell me about my family.")
    relatives = [key for key in family if key.startswith(("cousin_", "grandmother_", "grandfather_", "aunt_"))]
    assert len(relatives) == 6 and family[:6] == relatives, family  # the aunt's and the cousin's names too


@pytest.mark.parametrize("question", [
    "How do I deal with a difficult boss?",  # no one's boss
    "Who was the boss of Tammany Hall?",
    "What's a good gift for grandparents?",
])
def test_a_boss_or_grandparents_of_no_one_are_nobody_in_her_life(question):
    assert topics.asked(question) is None


@pytest.mark.parametrize("question, own_key", [
    ("How old is my grandpa?", "age"),
    ("Where does my aunt live?", "city"),
    ("Where does my coworker work?", "employer"),
    ("What country is her grandma from?", "hometown"),  # the grandma's facts are asked for (it asked none before)
])
def test_her_own_kind_is_not_asked_by_a_question_about_someone_in_her_life(question, own_key):
    asked = topics.asked(question)
    assert asked is None or not re.search(asked.keys, own_key)


@pytest.mark.parametrize("own_kind_question, theirs", [
    ("Where is the user based?", "boss_city"),
    ("How old is she?", "grandfather_age"),
    ("Where does she work?", "colleague_tom_employer"),
])
def test_the_facts_of_someone_in_her_life_do_not_answer_her_own_kind(own_kind_question, theirs):
    assert not re.search(topics.asked(own_kind_question).keys, theirs)


def test_an_operation_or_an_injury_answers_a_question_about_health_or_surgery(tenant):
    """Round 15's surgery and injury facts are health facts: "any health problems?" and "any surgery?"
    rank them first (filed under no key on main, they were never filed at all)."""
    for n, text in enumerate(("I had knee surgery in March.", "I work at Stripe.", "I broke my wrist skiing.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    surgery = tenant.search("Has the user had any surgery?")
    assert surgery and surgery[0]["key"] == "surgery", [r["content"] for r in surgery]
    health = tenant.search("Does the user have any health problems?")
    assert {r["key"] for r in health[:2]} == {"surgery", "injury"}, [r["content"] for r in health]


@pytest.mark.parametrize("said", ["My knee hurts after long runs.", "My back has been killing me.",
                                  "I pulled a hamstring at the gym.", "Running downhill hurts my knees."])
def test_the_body_hurting_answers_a_question_about_injuries_or_health(tenant, said):
    """No offline rule files "My knee hurts after long runs." (rules/health.py reads a broken bone or a
    torn ligament), and on main "injuries", "any injuries?" and "health problems" found nothing after
    it (the one-word question is near nothing at the floor's gate): the message tells of the kind."""
    for n, text in enumerate((said, "I work at Stripe.", "We have a dog called Bolt.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question in ("injuries", "any injuries?", "health problems", "Does the user have any health problems?"):
        results = tenant.search(question)
        assert results and results[0]["content"] == said, (question, [r["content"] for r in results])
    # not a question of another kind, nor about someone else's injuries
    assert said not in [r["content"] for r in tenant.search("Does she have any pets?")[:1]]
    assert said not in [r["content"] for r in tenant.search("Does my sister have any injuries?")]


def test_no_pain_said_no_injury_found(tenant):
    """Parts of the body said with no pain, or pain with no part of the body, tell of no injury: the
    one-word question still finds nothing."""
    for n, text in enumerate(("I have your back, always.", "My hands are full with the move.",
                              "The new printer was a pain to set up.", "I work at Stripe.")):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question in ("injuries", "any injuries?", "health problems"):
        assert tenant.search(question) == [], question


@pytest.mark.parametrize("content, tells", [
    ("My knee hurts after long runs.", True),
    ("My back's been killing me lately.", True),
    ("I sprained my ankle playing football.", True),
    ("I threw my back out lifting boxes.", True),
    ("I’ve got a knee injury.", True),
    ("I have lower back pain.", True),
    ("my shoulder is really sore", True),
    ("My back yard is huge.", False),
    ("This hurts my feelings.", False),
    ("I broke my phone.", False),
    ("My boss is killing me.", False),
    ("Her knee hurts.", False),  # someone else's
    ("My sister's knee hurts.", False),
])
def test_the_body_hurting_is_read_with_a_part_of_it_and_a_word_of_pain(content, tells):
    assert topics.tells(topics.asked("any injuries?"), content) is tells
    assert topics.tells(topics.asked("Does the user have any health problems?"), content) is tells
    assert not topics.tells(topics.asked("What are her hobbies?"), content)


@pytest.mark.parametrize("word", people.PARTNER)
def test_every_word_for_the_partner_asks_of_the_partner(word):
    # the words are the vocabulary's (people.PARTNER), not a list of this module's: one added there is read here
    for question in (f"What's my {word}'s job?", f"Is she married to her {word}?", f"Any {plural(word)}?"):
        topic = topics.asked(question)
        assert topic is not None and "partner" in topic.key_words, question


def test_what_she_owns_and_how_she_lives_are_answered_by_their_facts(tenant):
    # On main none of these questions named a kind: "Does she have a car?" put the city above her
    # driving, and "What is Leila's favorite team?" put Leila's car above her team.
    said = ("I live in Boston.", "I work at Acme as a nurse.", "I drive a Tesla Model 3.", "I passed my driving test!",
            "My wife is pregnant!", "We rent our flat.", "I bank with Monzo.", "I'm saving for a deposit on a flat.",
            "I support Arsenal.", "I live with my mom.")
    for n, text in enumerate(said):
        assert tenant.turn(text, session=f"s{n}", timestamp=f"2026-01-{n + 1:02d}T09:00:00Z").status_code == 201
    for question, keys in (("Does she have a car?", {"car", "drives"}), ("What does she drive?", {"car", "drives"}),
                           ("Is she expecting?", {"expecting_baby"}), ("Is she pregnant?", {"expecting_baby"}),
                           ("Does she rent or own?", {"housing"}), ("Which team does he support?", {"favorite_team"}),
                           ("Who does she live with?", {"lives_with"}), ("What is she saving for?", {"saving_for"}),
                           ("Which bank does she use?", {"bank"})):
        facts = [r["key"] for r in tenant.search(question) if r["memory_type"] != "episodic"]
        assert set(facts[:len(keys)]) == keys, (question, facts)
    _said(tenant, ("Leila", "I support Liverpool."), ("Leila", "I drive a Honda Civic."), ("Leila", "I live with my sister."))
    for question, key in (("What is Leila's favorite team?", "leila_favorite_team"),
                          ("Does Leila have a car?", "leila_car"), ("Who does Leila live with?", "leila_lives_with")):
        facts = [r["key"] for r in tenant.search(question) if r["memory_type"] != "episodic"]
        assert facts[:1] == [key], (question, facts)


@pytest.mark.parametrize("content, tells", [
    ("I live in Porto and work at Sonae.", True),
    ("I moved to Lisbon and I work at Feedzai now.", True),
    ("We just relocated to Leeds.", True),
    ("I'm based in Berlin these days.", True),
    ("I've been living in the Netherlands for a year.", True),
    ("I moved to a new team at work.", False),  # no place named
    ("She moved to Lisbon.", False),  # someone else's
    ("I love living here.", False),
    ("The user lives in Lisbon.", False),  # a fact: its key answers, not its words
])
def test_where_she_lives_is_read_in_her_own_lines(content, tells):
    for question in ("What city is she in?", "Which country does she live in?", "Where is she based?"):
        assert topics.tells(topics.asked(question), content) is tells, question


@pytest.mark.parametrize("question, place", [
    ("What city is she in?", True),
    ("what town is she in?", True),
    ("What country is she in?", True),
    ("Which city does she live in?", True),
    ("Which country does the user live in?", True),
    ("What town is he based in?", True),
    ("Which city is she currently living in?", True),
    ("Where is she based?", True),
    ("what city did she visit?", False),  # the city's kind, without her lines about where she lives
    ("Which city is home to the Louvre?", False),
    ("What company is she in?", False),
    ("Which country is she from?", False),  # where she is from: the hometown's
    ("Which country does my sister live in?", False),  # someone in her life's
])
def test_the_place_questions_ask_where_she_lives(question, place):
    topic = topics.asked(question)
    assert (topic is not None and bool(topic.told) and "city" in topic.key_words) is place, question


def test_a_favourite_asked_for_is_answered_by_that_favourite_not_another(tenant):
    # On main only the team was a favourite's kind: "What's my favourite film?" put "My favourite band is
    # Radiohead." and "My favourite book is Dune." first, by meaning ("favourite" says as much of either),
    # and "What's my favorite color?" the band's fact.
    said = ("My favourite book is Dune.", "My favorite movie is Alien.", "My favourite food is ramen.",
            "My favourite colour is green.", "My favourite band is Radiohead.", "My favourite sport is tennis.")
    for n, text in enumerate(said):
        assert tenant.turn(text, session=f"s{n}").status_code == 201
    for question, value in (("What's my favourite film?", "Alien"), ("What's my fave movie?", "Alien"),
                            ("Which novel do I like best?", "Dune"), ("What's my favourite dish?", "ramen"),
                            ("What's my favorite color?", "green"), ("What is her favourite music?", "Radiohead"),
                            ("What's my favourite song?", "Radiohead"), ("What sport do I like most?", "tennis"),
                            ("What kind of food does she like best?", "ramen"), ("Favourite films?", "Alien")):
        found = [r["content"] for r in tenant.search(question)]
        assert found and value in found[0], (question, found)


@pytest.mark.parametrize("question, keys", [
    ("What's my favourite film?", {"favorite_film", "favorite_movie", "favorite_sci_fi_movie"}),
    ("What are her favourite novels?", {"favorite_book", "favorite_novel"}),
    ("What is my favourite football team?", {"favorite_team", "favorite_football_team"}),
    ("What is his favourite TV show to watch?", {"favorite_tv_show", "favorite_show"}),
    ("What's Leila's fave colour?", {"leila_favorite_color", "leila_favorite_colour"}),
    # a plural of "-ie" names the key filed by its own word and by the one its ending alone reads
    ("What are my favourite movies?", {"favorite_movie", "favorite_film", "favorite_movy"}),
    ("What are his favourite cookies?", {"favorite_cookie", "favorite_cooky"}),
])
def test_a_favourite_names_the_keys_of_that_thing_in_any_of_its_words(question, keys):
    topic = topics.asked(question)
    assert topic is not None
    named = {key for key in (*keys, "favorite_book", "favorite_movie", "favorite_band", "favorite_food",
                             "favorite_team", "sister_favorite_movie", "favorite_movie_quote")
             if re.search(topic.keys, key)}
    assert named == keys, (question, named)


@pytest.mark.parametrize("question", ["What's her favourite?", "What is the favourite food of cats?",
                                      "What's my sister's favourite film?", "What do I like best?",
                                      "Who is his least favorite character?"])
def test_no_favourite_thing_asked_names_no_favourite(question):
    topic = topics.asked(question)
    assert topic is None or "favorite" not in topic.keys, (question, topic)


def _keyed_user(ctx) -> str:
    """A tenant of its own whose user has more facts under each of a few keys than a ranking's ten,
    of every importance, some no longer current, some of them messages, and 300 under a key no
    question below names."""
    from memex.db import memories as memory_rows
    from memex.db import tenants

    rng = random.Random(11)
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    keys = ["employer"] * 14 + ["melanie_employer"] * 12 + ["role"] * 3 + ["partner_employer"] * 4 + ["likes"] * 300
    with ctx.db.transaction() as conn:
        tenants.ensure_tenant(conn, tenant)
        for i, key in enumerate(keys):
            memory_rows.insert(conn, tenant, {
                "id": f"m{i:03d}", "user_id": "u", "memory_type": rng.choice(("semantic",) * 4 + ("episodic",)),
                "type": "fact", "key": key, "value": f"v{i}", "content": f"The user's {key} is v{i}.",
                "importance": rng.choice((0.3, 0.5, 0.8)), "active": rng.random() < 0.7,
                # days apart, hours the same: ties of importance and time are ordered by id
                "valid_from": start + timedelta(days=rng.randrange(8)),
                "embedding": [1.0] + [0.0] * (ctx.settings.embedding_dim - 1)})
    return tenant


def test_the_topic_channel_ranks_the_first_facts_of_all_the_kinds_keys(ctx):
    """Each key's first ten read in the index's order (memories.topic_statement) are the first ten of
    the kinds' facts as a sort of all of them puts them: the most important, then the latest, then by id."""
    from memex.db import memories as memory_rows
    from memex.models import SearchFilters

    tenant = _keyed_user(ctx)
    conn = ctx.db.connection()
    rows = conn.execute("SELECT id, key, importance, valid_from, active, memory_type FROM memories "
                        "WHERE tenant_id = %s", (tenant,)).fetchall()
    asked = topics.asked("What is her job?")  # her role, her employer, a participant's; not her partner's
    assert asked is not None
    for include_inactive in (False, True):
        kind = [r for r in rows if re.search(asked.keys, r["key"]) and r["memory_type"] != "episodic"
                and (r["active"] or include_inactive)]
        expected = sorted(kind, key=lambda r: (-r["importance"], -r["valid_from"].timestamp(), r["id"]))
        assert len({r["key"] for r in kind}) == 3 and len(kind) > 10
        for limit in (1, 10, 100):
            ranked = memory_rows.topic_statement(tenant, "u", None, SearchFilters(), include_inactive, asked.keys,
                                                 limit).run(conn)
            assert [item for item, _ in ranked.ranked] == [r["id"] for r in expected[:limit]], (include_inactive, limit)
            assert [ranked.found[r["id"]].key for r in expected[:limit]] == [r["key"] for r in expected[:limit]]


def test_the_topic_channel_reads_the_facts_of_the_kinds_asked_not_every_keyed_fact(ctx):
    """The user's keys are matched, not each keyed fact's row: asked about her role (three facts), the
    statement reads a few rows, not the 333 keyed ones (main read them all, the kind matching 3)."""
    from memex.db import memories as memory_rows
    from memex.models import SearchFilters

    tenant = _keyed_user(ctx)
    conn = ctx.db.connection()
    conn.execute("ANALYZE memories")

    with conn.transaction():
        before = memories_rows_read(conn)
        # a kind's keys as topics.py writes them: no prefix an index could read a range of
        ranked = memory_rows.topic_statement(tenant, "u", None, SearchFilters(), True, "(?:^|_)role$", 10).run(conn)
        read = memories_rows_read(conn) - before
    assert len(ranked.ranked) == sum(r["key"] == "role" and r["memory_type"] != "episodic" for r in conn.execute(
        "SELECT key, memory_type FROM memories WHERE tenant_id = %s", (tenant,)).fetchall())
    # a probe for each of the 5 keys, the role's 3 rows, and its facts read whole
    assert read < 30, read
