"""A question that names a kind of fact ("any pets?", "her hobbies", "his family") is answered by the
facts filed under that kind, though they say none of its words (retrieval/topics.py)."""

from __future__ import annotations

import pytest

from memex.retrieval import past, topics


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
    "Where does the user work?",
    "Is she a single mother?",
    "What is her relationship with her sister?",
    "Was it fun?",
    # words said of the world as often as of a person, asked of no one
    "Which company makes the iPhone?",
    "What's a good line of work for introverts?",
    "How old is the universe?",
    "Which city is home to the Louvre?",
    "How can I contact customer support?",
    "What do kids like to eat?",
    "What should I call her?",
    "What's the age of her dog?",
    # her own kinds, asked about someone in her life or about where she comes from
    "Which city does my sister live in?",
    "Which company does her husband work for?",
    "Which city is she a native of?",
])
def test_a_phrase_that_means_something_else_names_no_kind(question):
    assert topics.asked(question) is None


def test_a_place_in_a_home_names_no_home():
    asked = topics.asked("Any animals in his home?")
    assert asked is not None and asked.words == {"animals"}


def test_the_kinds_a_question_names_name_their_keys_to_the_history():
    # "company" names no key by its own word: the ended employer is found by the kind's (past.key_words)
    assert "employer" in past.key_words("Which company is she with?")
    assert "phone" in past.key_words("How can I contact her?")


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


def test_a_company_asked_about_after_the_job_ended_is_answered_by_the_news(tenant):
    # On main "Which company is she with?" returned nothing: "company" named no key, and the gate shut.
    for n, text in enumerate(("My name is Lena, I'm based in Munich.", "I work at Siemens as an analyst.",
                              "I don't work at Siemens anymore.")):
        tenant.turn(text, session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
    found = tenant.search("Which company is she with?")
    assert found and found[0]["content"] == "I don't work at Siemens anymore.", [r["content"] for r in found]
