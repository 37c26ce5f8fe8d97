"""Current facts first: a message whose fact was superseded never outranks the fact that replaced it."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timezone

import numpy as np

from memex_edge.context import build_context
from tests.conftest import api_client


def _rank(results: list[dict], predicate) -> int | None:
    return next((index for index, r in enumerate(results) if predicate(r)), None)


def test_the_current_employer_outranks_the_message_that_named_the_old_one(tenant):
    tenant.turn("I work at Acme Corp.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I now work at Globex.", session="s2", timestamp="2026-03-02T09:00:00Z")
    lifted = 0
    for query in ("where does the user work?", "which company does she work for?", "Acme", "employer"):
        results = tenant.search(query)
        stale = _rank(results, lambda r: r["content"] == "I work at Acme Corp.")
        current = _rank(results, lambda r: r.get("key") == "employer")
        assert stale is None or (current is not None and current < stale), (query, results)
        assert results[current]["value"] == "Globex" and results[current]["active"]
        assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
        if results[current]["score_parts"].get("current_for") is not None:
            assert results[current]["score_parts"]["current_for"] == results[stale]["id"]
            lifted += 1
    assert lifted  # without the rule, the old message's words win at least one of these


def test_a_message_that_also_said_something_still_true_is_lifted_over_only_for_what_changed(tenant):
    tenant.turn("I work at Stripe. My dog is called Biscuit.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I just started at Notion, left Stripe.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question in ("where does the user work?", "where does she work?"):  # the second: the README's
        work = tenant.search(question)
        assert work[0]["value"] == "Notion", (question, [r["content"] for r in work])
    dog = tenant.search("what is the name of my dog?")
    assert dog[0]["value"] == "Biscuit", [r["content"] for r in dog]
    message = _rank(dog, lambda r: r["content"].startswith("I work at Stripe."))
    notion = _rank(dog, lambda r: r.get("value") == "Notion")
    assert notion is None or notion > message  # the dog question is about what did not change


def test_a_question_that_names_one_of_a_stale_messages_facts_lifts_only_what_replaced_it(tenant):
    """A message that said two things, both since replaced: "where does she live?" asks about the
    city, and on main the new employer was lifted above the old message too (second, over everything
    else about where she lives). A question that names neither key lifts what replaced the fact whose
    own word it says: "Porto" the new city (on main both: the sentence is both facts' quote)."""
    tenant.turn("I live in Porto and work at Sonae.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Lisbon and I work at Feedzai now.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question, asked, other in (("where does she live?", "city", "employer"),
                                   ("Where is the user based?", "city", "employer"),
                                   ("where does she work?", "employer", "city"),
                                   ("Who does the user work for?", "employer", "city")):
        results = tenant.search(question)
        assert results[0]["key"] == asked and results[0]["active"], (question, [r["content"] for r in results])
        assert all(r["score_parts"].get("current_for") is None for r in results if r.get("key") == other), \
            (question, [r["content"] for r in results])
    for question, asked in (("Porto", "city"), ("Sonae", "employer")):
        results = tenant.search(question)
        stale = _rank(results, lambda r: r["content"] == "I live in Porto and work at Sonae.")
        assert [r.get("key") for r in results[:stale]] == [asked], (question, [r["content"] for r in results])
        assert results[0]["score_parts"]["current_for"] == results[stale]["id"]


KNEE = "My knee hurts after long runs. I live in Porto and work at Sonae."


def test_a_question_about_what_else_a_stale_message_said_lifts_nothing_over_it(tenant):
    """The knee sentence holds no fact; the Porto sentence's two were replaced by a move and a new job.
    A question about the knee is about the part that did not change: on main "any injuries?" had the
    new city and employer first (`current_for` the knee message) and the knee line third at their score."""
    tenant.turn(KNEE, session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Lisbon and I work at Feedzai now.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question in ("any injuries?", "does her knee hurt?", "what hurts after running?", "long runs"):
        results = tenant.search(question)
        assert results[0]["content"] == KNEE, (question, [r["content"] for r in results])
        assert not [r for r in results if r["score_parts"].get("current_for")], (question, [r["content"] for r in results])


def test_a_question_that_meets_the_replaced_part_of_a_stale_message_still_lifts_what_replaced_it(tenant):
    """The same message, asked about its Porto sentence: by a fact's own word ("Porto" the city's,
    "Sonae" the employer's, of the sentence both facts quote: on main either lifted both), by both, by
    meaning alone (the vector channel, no words to meet: the question as near the replaced facts as the
    whole message) or by naming a key, what replaced them comes first."""
    tenant.turn(KNEE, session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Lisbon and I work at Feedzai now.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question, mode, asked in (("Porto", "hybrid", {"city"}), ("Sonae", "hybrid", {"employer"}),
                                  ("Porto and Sonae", "hybrid", {"city", "employer"}),
                                  ("Porto and Sonae", "vector", {"city", "employer"})):
        results = tenant.search(question, mode=mode)
        stale = _rank(results, lambda r: r["content"] == KNEE)
        assert {r.get("key") for r in results[:stale]} == asked, (question, mode, [r["content"] for r in results])
        assert all(r["score_parts"]["current_for"] == results[stale]["id"] for r in results[:stale])
    for question, key in (("where does she live?", "city"), ("where does she work?", "employer")):
        results = tenant.search(question)
        assert results[0]["key"] == key and results[0]["active"], (question, [r["content"] for r in results])


def test_a_question_about_one_sentence_of_a_stale_message_lifts_only_what_replaced_its_fact(tenant):
    """"I live in Porto. I work at Sonae." both replaced: "Porto" meets the city's sentence, not the
    employer's, and lifts only the new city (on main the new employer too, above the message)."""
    tenant.turn("I live in Porto. I work at Sonae.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Lisbon and I work at Feedzai now.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question, asked, other in (("Porto", "city", "employer"), ("Sonae", "employer", "city")):
        results = tenant.search(question)
        stale = _rank(results, lambda r: r["content"] == "I live in Porto. I work at Sonae.")
        assert [r.get("key") for r in results[:stale]] == [asked], (question, [r["content"] for r in results])
        assert results[0]["score_parts"]["current_for"] == results[stale]["id"]
        assert all(r["score_parts"].get("current_for") is None for r in results if r.get("key") == other), \
            (question, [r["content"] for r in results])


def test_a_participants_name_before_a_stale_line_is_no_other_part_of_it(ctx, tenant):
    """"Melanie: I work at Globex." says nothing beyond its replaced fact: the name its episodic memory
    starts with is who said it, not a part of the message a question may be about instead
    (history.send_replacements' `said`)."""
    from memex.db import history

    for session, timestamp, text in (("s1", "2026-01-05T09:00:00Z", "I work at Globex."),
                                     ("s2", "2026-03-02T09:00:00Z", "I now work at Initech.")):
        body = {"user_id": tenant.user, "session_id": session, "timestamp": timestamp, "user_name": "Caroline",
                "messages": [{"role": "user", "name": "Melanie", "content": text}]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201
    message = _rank(results := tenant.search("Globex"), lambda r: r["content"] == "Melanie: I work at Globex.")
    [row] = history.send_replacements(ctx.db.connection(), tenant.id, tenant.user, [results[message]["id"]])()
    assert not row["active"] and row["said"] and set(row["said"]) <= set(row["quoted"]), row


def test_a_speakers_name_said_in_the_message_is_a_part_of_it(tenant):
    """"Caroline: Caroline here! I work at Globex." says her name as well as her replaced job: only the
    name its episodic memory starts with is who said it. "Caroline" found the line by the name, not by
    the job, and lifts nothing over it; on main every saying of the speaker's name was left out of the
    message's words (history.send_replacements' `said`), the line read as one that said nothing beyond
    its job, and the new employer came first."""
    for session, timestamp, name, text in (("s0", "2026-01-01T09:00:00Z", "Melanie", "Hi, I'm Melanie, I paint."),
                                           ("s1", "2026-01-05T09:00:00Z", "Caroline", "Caroline here! I work at Globex."),
                                           ("s2", "2026-03-02T09:00:00Z", "Caroline", "I now work at Initech.")):
        body = {"user_id": tenant.user, "session_id": session, "timestamp": timestamp, "user_name": "Caroline",
                "messages": [{"role": "user", "name": name, "content": text}]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201
    for question in ("Caroline", "who is Caroline?"):
        results = tenant.search(question)
        assert results[0]["content"] == "Caroline: Caroline here! I work at Globex.", \
            (question, [r["content"] for r in results])
        assert not [r for r in results if r["score_parts"].get("current_for")], (question, [r["content"] for r in results])
    # what it says of the job is still what a question about the job is about
    results = tenant.search("Globex")
    stale = _rank(results, lambda r: r["content"] == "Caroline: Caroline here! I work at Globex.")
    assert results[0]["value"] == "Initech" and results[0]["score_parts"]["current_for"] == results[stale]["id"], \
        [r["content"] for r in results]


def test_a_question_about_the_place_she_lives_in_lifts_the_place_not_the_employer(tenant):
    """After a message that said where she lives and where she works, both since replaced, a question
    about the place she lives in has the city first and her lines about where she lives before the new
    employer: on main "What city is she in?" had the employer second, "What country is she in?" found
    nothing."""
    tenant.turn("I live in Porto and work at Sonae.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Lisbon and I work at Feedzai now.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question in ("What city is she in?", "what town is she in?", "What country is she in?",
                     "Which city does she live in?", "Which country does she live in?", "What city is she based in?",
                     "which country is she based in?", "Where is she based?"):
        results = tenant.search(question)
        contents = [r["content"] for r in results]
        assert results and results[0]["key"] == "city" and results[0]["value"] == "Lisbon", (question, contents)
        employer = _rank(results, lambda r: r.get("key") == "employer")
        moved = contents.index("I moved to Lisbon and I work at Feedzai now.")
        assert employer is None or employer > moved, (question, contents)
    # not a question about where she lives: as before
    company = tenant.search("what company is she in?")
    assert company[0]["key"] == "employer" and company[0]["value"] == "Feedzai", [r["content"] for r in company]
    visited = [r["content"] for r in tenant.search("what city did she visit?")]
    assert visited[0] == "The user lives in Lisbon." and "I live in Porto and work at Sonae." not in visited, visited


def test_the_end_of_the_chain_is_lifted_not_a_link_in_between(tenant):
    tenant.turn("I work at Acme Corp.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I now work at Globex.", session="s2", timestamp="2026-02-02T09:00:00Z")
    tenant.turn("I now work at Initech.", session="s3", timestamp="2026-03-02T09:00:00Z")
    results = tenant.search("Acme Corp")
    stale = _rank(results, lambda r: r["content"] == "I work at Acme Corp.")
    assert stale is not None
    above = results[:stale]
    assert [r["value"] for r in above if r.get("key") == "employer"] == ["Initech"], [r["content"] for r in results]
    assert all(r["active"] for r in results)


def test_a_job_taken_after_one_was_quit_outranks_the_message_that_named_the_old_one(tenant):
    """The old job's chain runs through the statement that ended it to the job taken afterwards
    (timeline.plan), so the old message knows what is current now."""
    tenant.turn("I work at Acme Corp.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I quit Acme Corp.", session="s2", timestamp="2026-02-02T09:00:00Z")
    tenant.turn("I work at Globex now.", session="s3", timestamp="2026-03-02T09:00:00Z")
    results = tenant.search("Acme Corp")
    stale = [i for i, r in enumerate(results) if r["content"] in ("I work at Acme Corp.", "I quit Acme Corp.")]
    current = _rank(results, lambda r: r.get("key") == "employer")
    assert len(stale) == 2 and current is not None and current < min(stale), [r["content"] for r in results]
    assert results[current]["value"] == "Globex"
    assert results[current]["score_parts"].get("current_for") == results[min(stale)]["id"]


def test_a_lifted_fact_respects_the_filters(tenant):
    tenant.turn("I work at Acme Corp.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I now work at Globex.", session="s2", timestamp="2026-03-02T09:00:00Z")
    only_messages = tenant.search("Acme", filters={"memory_type": "episodic"})
    assert only_messages and all(r["memory_type"] == "episodic" for r in only_messages)
    first_session = tenant.search("Acme", filters={"session_id": "s1"})
    assert first_session and all(r["session_id"] == "s1" for r in first_session)
    other_agent = tenant.search("Acme", agent_id="someone-else")
    assert other_agent == []


def test_a_fact_no_channel_found_is_taken_in_above_the_message_it_made_stale(tenant):
    tenant.turn("I work at Acme Corp.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I now work at Globex.", session="s2", timestamp="2026-03-02T09:00:00Z")
    results = tenant.search("Acme Corp", mode="bm25")  # the keyword channel alone never finds "Globex"
    assert [r["content"] for r in results[:2]] == ["The user's employer is Globex.", "I work at Acme Corp."]
    lifted = results[0]["score_parts"]
    assert lifted["current_for"] == results[1]["id"] and results[0]["score"] == results[1]["score"]
    assert lifted["relevance"] == 0 and lifted["bm25"] is None and lifted["importance"] == results[0]["importance"]


def test_a_job_ended_with_nothing_after_it_lets_the_news_answer_above_the_old_message(tenant):
    """"I left Feedzai." while Feedzai is the employer ends it with no employer after it: for a
    present question the message that said so is lifted above "I work at Feedzai." (which stays),
    and the ended fact is not returned (it no longer holds)."""
    tenant.turn("I work at Feedzai.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I left Feedzai.", session="s2", timestamp="2026-03-02T09:00:00Z")
    for question in ("where do I work?", "where does she work?", "Feedzai"):
        results = tenant.search(question)
        stale = _rank(results, lambda r: r["content"] == "I work at Feedzai.")
        news = _rank(results, lambda r: r["content"] == "I left Feedzai.")
        assert news is not None and (stale is None or news < stale), (question, [r["content"] for r in results])
        if stale is not None and results[news]["score_parts"].get("current_for") is not None:
            assert results[news]["score_parts"]["current_for"] == results[stale]["id"]
        assert all(r["active"] for r in results)
        assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    # "Feedzai" scores both lines alike on the keywords: the later said comes first by itself
    assert tenant.search("Feedzai")[0]["content"] == "I left Feedzai."


def test_a_user_with_no_news_of_a_key_is_not_asked_for_it(tenant, monkeypatch):
    """history.send_ended reads only what ended a key's value or took it back: a user who has
    neither (memories.Ahead.news) is not asked, and once a job ended the news is read and answers."""
    from memex.db import history

    asked: list[list[str]] = []
    send_ended = history.send_ended
    monkeypatch.setattr(history, "send_ended", lambda *args: asked.append(args[4]) or send_ended(*args))
    tenant.turn("I work at Feedzai.", session="s1", timestamp="2026-01-05T09:00:00Z")
    assert "Feedzai" in tenant.search("where does she work?")[0]["content"]
    assert asked == []
    tenant.turn("I left Feedzai.", session="s2", timestamp="2026-03-02T09:00:00Z")
    results = tenant.search("where does she work?")
    assert results[0]["content"] == "I left Feedzai." and results[0]["score_parts"]["ended"], \
        [r["content"] for r in results]
    assert len(asked) == 1 and "work" in asked[0]


def test_a_job_ended_with_nothing_after_it_answers_where_she_works_above_her_city(tenant):
    """With no employer now, "where does she work?" is answered first by the news that the job
    ended, above her city, whose fact its importance carried first, and above the line that named
    the old job; the ended fact no longer holds and is not returned."""
    said = ["I live in Lisbon.", "I'm a data engineer at Feedzai.", "I left Feedzai last week.",
            "I'm joining Revolut next month."]
    for n, text in enumerate(said):
        tenant.turn(text, session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
    for question in ("Where does she work?", "who does the user work for?", "what's her job?",
                     "what does she do for a living?"):
        results = tenant.search(question)
        contents = [r["content"] for r in results]
        assert contents[0] == "I left Feedzai last week.", (question, contents)
        assert results[0]["score_parts"]["ended"] in ("employer", "role")
        assert all(r["active"] for r in results), (question, contents)
        assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    # near nothing she said and naming no kind (the floor's gate stays shut), the question still asks
    # about her job
    doing = tenant.search("what has she been doing for work?")
    assert [r["content"] for r in doing] == ["I left Feedzai last week."]
    assert doing[0]["score_parts"]["ended"] == "role"
    assert tenant.search("quantum chromodynamics lecture notes") == []
    # a key the question does not name is answered as before
    home = tenant.search("where do I live?")
    assert home[0]["value"] == "Lisbon" and "ended" not in home[0]["score_parts"], [r["content"] for r in home]


def test_a_job_another_participant_left_answers_only_the_question_about_them(tenant):
    """Melanie left Globex: "where does Melanie work?" gets that news first; the user's own question
    ("where does she work?", the user's job current) does not."""
    def said(session: str, timestamp: str, *lines: tuple[str, str]) -> None:
        body = {"user_id": tenant.user, "session_id": session, "timestamp": timestamp, "user_name": "Caroline",
                "messages": [{"role": "user", "name": name, "content": text} for name, text in lines]}
        assert tenant.post("/v1/turns?wait=true", body).status_code == 201

    said("s1", "2026-01-05T09:00:00Z", ("Caroline", "I work at Acme."), ("Melanie", "I work at Globex."))
    said("s2", "2026-03-02T09:00:00Z", ("Melanie", "I left Globex last week."))
    melanie = tenant.search("where does Melanie work?")
    assert melanie[0]["content"] == "Melanie: I left Globex last week.", [r["content"] for r in melanie]
    assert melanie[0]["score_parts"]["ended"] == "melanie_employer"
    mine = tenant.search("where does she work?")
    assert all(r["active"] and "ended" not in r["score_parts"] for r in mine), [r["content"] for r in mine]


def test_a_line_the_neighbours_bring_in_has_its_replaced_fact_lifted_too(ctx, tenant):
    """A line that only the share of the line said next to it brings into the window is checked for
    replaced facts like any other (a search that read the replacements ahead, with the neighbours'
    lookup, would have read them for the memories ranked before the share only)."""
    said = {"user_id": tenant.user, "session_id": "s1", "timestamp": "2025-09-01T10:00:00Z", "messages": [
        {"role": "user", "content": "Last spring I spent a whole month in Kyoto."},
        {"role": "assistant", "content": "Nice! And what do you do for a living?"},
        {"role": "user", "content": "I work at Acme Corp."}]}
    assert tenant.post("/v1/turns?wait=true", said).status_code == 201
    tenant.turn("I now work at Globex.", session="s2", timestamp="2026-03-02T09:00:00Z")
    question = {"user_id": tenant.user, "query": "How long was I in Kyoto?", "reference_time": "2026-03-10T10:00:00Z"}

    def results(**changes) -> list[dict]:
        with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
            response = client.post("/v1/search", json=question, headers=tenant.headers)
        assert response.status_code == 200, response.text
        return response.json()["results"]

    assert "I work at Acme Corp." not in [r["content"] for r in results(search_neighbour_share=0.0)]
    # the line's share above the Globex fact's own relevance; the learned order alone would put the
    # fact above the line, with nothing left to lift
    shared = results(search_neighbour_share=0.9, search_learned=False)
    stale = _rank(shared, lambda r: r["content"] == "I work at Acme Corp.")
    assert stale is not None and stale > 0, [r["content"] for r in shared]
    assert shared[stale - 1]["value"] == "Globex", [r["content"] for r in shared]
    assert shared[stale - 1]["score_parts"]["current_for"] == shared[stale]["id"]


def test_a_former_partners_job_is_no_news_once_there_is_a_new_partner(tenant):
    """"My boyfriend Leo is a chef." ends with the breakup (pipeline); asked about a partner, the
    breakup is the news while there is none, and no longer once a new partner is named: the current
    partner comes first."""
    tenant.turn("My boyfriend Leo is a chef.", session="s0", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("Leo and I broke up last week.", session="s1", timestamp="2026-03-05T09:00:00Z")
    alone = tenant.search("does she have a partner?")
    assert alone[0]["content"] == "Leo and I broke up last week.", [r["content"] for r in alone]
    assert "ended" in alone[0]["score_parts"]
    tenant.turn("I've been dating Tiago for a month.", session="s2", timestamp="2026-06-05T09:00:00Z")
    now = tenant.search("does she have a partner?")
    assert now[0]["content"] == "The user's partner is named Tiago.", [r["content"] for r in now]
    assert not [r for r in now if "ended" in r["score_parts"]], [r["content"] for r in now]


def test_a_former_partners_job_is_no_news_of_her_own_job(tenant):
    """The breakup ended Leo's job (partner_leo_role) with nothing after it; "role" is a word of that
    key, yet a question about her own work or title asks about the user's role, which she has: her
    current facts answer it, not the breakup. Asked about Leo or her partner, the breakup is still the news."""
    tenant.turn("I work at Stripe as a software engineer.", session="s0", timestamp="2026-01-12T10:00:00Z")
    tenant.turn("My boyfriend Leo is a chef.", session="s1", timestamp="2026-02-14T10:00:00Z")
    tenant.turn("I got promoted to senior engineer.", session="s2", timestamp="2026-07-15T10:00:00Z")
    tenant.turn("Leo and I broke up.", session="s3", timestamp="2026-08-22T10:00:00Z")
    for question in ("where does she work?", "what's her job title?", "what does she do for a living?"):
        results = tenant.search(question)
        assert not [r for r in results if "ended" in r["score_parts"]], (question, [r["content"] for r in results])
        assert results[0]["key"] in ("employer", "role") and results[0]["active"], \
            (question, [r["content"] for r in results])
    for question in ("what does Leo do?", "what does her boyfriend do for a living?"):
        results = tenant.search(question)
        assert results[0]["content"] == "Leo and I broke up.", (question, [r["content"] for r in results])
        assert results[0]["score_parts"]["ended"] == "partner_leo_role"


def test_a_job_lost_without_its_name_answers_where_she_works_until_a_new_one(tenant):
    """"I got laid off last week." names no employer: the status it files ends Acme and the title,
    so "where does she work?" is answered by the news, above the line that named Acme, and no
    longer by Acme; a job named later is the answer again, and the status no longer holds."""
    tenant.turn("I work at Acme as a designer.", session="s0", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I got laid off last week.", session="s1", timestamp="2026-03-05T09:00:00Z")
    news = ("The user is out of work.", "I got laid off last week.")
    for question in ("where does she work?", "what's her job?", "who does the user work for?"):
        results = tenant.search(question)
        contents = [r["content"] for r in results]
        assert contents[0] in news, (question, contents)
        assert all(r["active"] for r in results), (question, contents)
        assert not [r for r in results if r.get("key") in ("employer", "role")], (question, contents)
        stale = _rank(results, lambda r: r["content"] == "I work at Acme as a designer.")
        status = _rank(results, lambda r: r["content"] == "The user is out of work.")
        assert status is not None and (stale is None or status < stale), (question, contents)
    tenant.turn("I just started at Globex.", session="s2", timestamp="2026-05-05T09:00:00Z")
    now = tenant.search("where does she work?")
    assert now[0]["content"] == "The user's employer is Globex.", [r["content"] for r in now]
    assert not [r for r in now if r.get("key") == "employment_status"], [r["content"] for r in now]


def test_a_status_that_took_the_job_back_answers_a_job_question_near_nothing_she_said(tenant):
    """"What's her job?" is near nothing a retired teacher said (no gate passes): the status that
    ended her job is still the answer, as the news of a job left is (history.send_ended)."""
    said = ["I'm Rosa, I live in Seville.", "I'm a history teacher at Colegio Alameda.", "I'm retired now."]
    for n, text in enumerate(said):
        tenant.turn(text, session=f"s{n}", timestamp=f"2026-0{n + 1}-05T09:00:00Z")
    for question in ("What's her job?", "Where does the user work?", "Who is her employer?"):
        results = tenant.search(question)
        assert [r["content"] for r in results][:1] == ["The user is retired."], (question, results)
        assert results[0]["score_parts"]["ended"] in ("employer", "role")
    assert tenant.search("quantum chromodynamics lecture notes") == []
    home = tenant.search("where does she live?")
    assert home[0]["value"] == "Seville" and "ended" not in home[0]["score_parts"], [r["content"] for r in home]


def test_the_news_of_a_key_taken_back_is_found_whichever_of_the_users_keys_it_is(ctx, tenant):
    """history.send_ended finds a key the question names among the user's keys taken back (migration
    0021): the first of the user's keys ("allergy") and the last ("workplace", taken back after a
    value of its own replaced an earlier one, a link under one key that takes nothing back), each
    with the current fact that took it back; another user's fact under the same key, taken back the
    same way, is not."""
    from memex.db import history
    from memex.db import memories as memory_rows

    def fact(user: str, key: str, value: str, active: bool) -> str:
        memory_id = str(uuid.uuid4())
        memory_rows.insert(conn, tenant.id, {
            "id": memory_id, "user_id": user, "memory_type": "semantic", "type": "fact", "key": key,
            "value": value, "content": f"The user's {key} is {value}.", "importance": 0.8, "active": active,
            "valid_from": datetime(2026, 1, 1, tzinfo=timezone.utc), "embedding": vector, "metadata": {}})
        return memory_id

    conn = ctx.db.connection()
    vector = np.full(ctx.settings.embedding_dim, ctx.settings.embedding_dim ** -0.5)
    taken = {}
    for user in (tenant.user, "someone-else"):
        allergy, first_job, last_job = fact(user, "allergy", "peanuts", False), \
            fact(user, "workplace", "Acme", False), fact(user, "workplace", "Globex", False)
        fact(user, "city", "Porto", True)
        diet, status = fact(user, "diet", "none", True), fact(user, "employment_status", "unemployed", True)
        history.link(conn, tenant.id, last_job, first_job)
        history.link(conn, tenant.id, diet, allergy)
        history.link(conn, tenant.id, status, last_job)
        taken[user] = {("allergy", diet), ("workplace", status)}
    rows = history.send_ended(conn, tenant.id, tenant.user, None, ["allergy", "workplace"], 10)()
    assert {(row["key"], row["message"]["id"]) for row in rows} == taken[tenant.user]
    assert all(row["subject"] == "user" for row in rows)


def test_an_opinion_on_a_kind_of_work_is_no_question_about_her_job(tenant):
    """"work" with a word naming what kind of work it is ("hybrid work", "shift work"), asked as the
    topic of an opinion, names no key of hers (past._ASKED_BY_VERB): with no employer now, the news
    that her job ended does not come before her view on it; "her work" and "where does she work?"
    still ask about her job."""
    tenant.turn("I work at Feedzai.", session="s1", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("Honestly I think hybrid work is the best of both worlds.", session="s2",
                timestamp="2026-02-05T09:00:00Z")
    tenant.turn("I left Feedzai.", session="s3", timestamp="2026-03-02T09:00:00Z")
    for question in ("what does she think about hybrid work?", "how does the user feel about hybrid work?"):
        results = tenant.search(question)
        contents = [r["content"] for r in results]
        assert "hybrid work" in contents[0], (question, contents)
        assert not [r for r in results if "ended" in r["score_parts"]], (question, contents)
    for question in ("where does she work?", "what does she think about her work?"):
        results = tenant.search(question)
        assert results[0]["content"] == "I left Feedzai." and results[0]["score_parts"]["ended"], \
            (question, [r["content"] for r in results])
