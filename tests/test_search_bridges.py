"""Past the question's own words in hybrid search: the question without the participants it names
on the vector channel (search.py), through the HTTP API and the embedded Postgres against the same
history with the lever off."""

from __future__ import annotations

import dataclasses

from memex_edge.context import build_context
from tests.conftest import api_client


def _app(ctx, **changes):
    app_ctx = build_context(dataclasses.replace(ctx.settings, **changes))
    return api_client(app_ctx)


def _ranked(client, tenant, query: str) -> list[str]:
    body = {"user_id": tenant.user, "query": query, "reference_time": "2025-10-20T15:00:00Z", "top_k": 20}
    response = client.post("/v1/search", json=body, headers=tenant.headers)
    assert response.status_code == 200, response.text
    return [r["content"] for r in response.json()["results"]]


def _rank(ranked: list[str], line: str) -> int:
    return ranked.index(line) if line in ranked else len(ranked)


def _say_as(tenant, session: str, when: str, *lines: tuple[str, str]):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when, "user_name": "Caroline",
            "messages": [{"role": "user", "name": name, "content": text} for name, text in lines]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def test_the_question_without_the_name_it_names_runs_on_the_vector_channel(ctx, tenant):
    """A participant's name pulls the question's embedding toward every line that names them; the
    question without it finds the line by its meaning."""
    answer = "Melanie: I have been practising the clarinet every evening."
    for i, (name, text) in enumerate((
            ("Caroline", "Melanie, thanks so much for the birthday card, Melanie!"),
            ("Caroline", "Melanie, how are the kids doing, Melanie?"),
            ("Melanie", "Caroline, you are the best, Caroline, truly."),
            ("Caroline", "Good morning Melanie! Melanie, did you sleep well?"),
            ("Melanie", "Haha Caroline, same old Melanie here."),
            ("Caroline", "Melanie, I saw your sister Melanie Jones at the market."))):
        _say_as(tenant, f"s{i}", "2025-09-01T10:00:00Z", (name, text))
    _say_as(tenant, "music", "2025-09-02T10:00:00Z", ("Melanie", answer[len("Melanie: "):]))
    question = "Which musical instrument does Melanie play?"
    # the learned order off (learned.py): the lever seen alone
    with _app(ctx, search_unnamed_vector_weight=0.0, search_learned=False) as plain, \
            _app(ctx, search_unnamed_vector_weight=0.5, search_learned=False) as unnamed:
        without, with_unnamed = _ranked(plain, tenant, question), _ranked(unnamed, tenant, question)
    assert _rank(with_unnamed, answer) < _rank(without, answer)


def test_a_question_asking_for_a_name_ranks_the_lines_that_hold_one(ctx, tenant):
    """"What books has Melanie read?": the line that names a title is far in meaning from a question
    whose other lines on reading are near it; the vector ranking's lines holding a name, ranked among
    themselves, bring it up. A question asking for no type of thing keeps its order."""
    answer = "Melanie: Finished 'Charlotte's Web' on the train, cried at the end."
    for i, text in enumerate((
            "I have been reading so much lately, books are my escape.",
            "Reading before bed helps me sleep, I read every night.",
            "My kids love it when I read books to them.",
            "I want to read more books this year, it is my goal.",
            "Books and a cup of tea, that is my perfect evening.",
            "I joined a book club to read more books with friends.")):
        _say_as(tenant, f"s{i}", "2025-09-01T10:00:00Z", ("Melanie", text))
    _say_as(tenant, "train", "2025-09-02T10:00:00Z", ("Melanie", answer[len("Melanie: "):]))
    question = "What books has Melanie read?"
    other = "How does Melanie feel about reading?"
    with _app(ctx, search_typed_weight=0.0, search_learned=False) as plain, \
            _app(ctx, search_typed_weight=1.0, search_learned=False) as typed:
        without, with_typed = _ranked(plain, tenant, question), _ranked(typed, tenant, question)
        assert _ranked(plain, tenant, other) == _ranked(typed, tenant, other)
    assert _rank(with_typed, answer) < _rank(without, answer)


def test_a_question_asking_for_one_place_keeps_its_order(ctx, tenant):
    """"Which city did Melanie like best?" asks for a place but no list: its answer is near it in
    meaning, and the lines that name any place, ranked among themselves, would only crowd it (on
    LoCoMo-dev, "What state did Nate visit?" lost its answer so)."""
    for i, text in enumerate((
            "Honestly the quiet little spots were my favourite part of the trip.",
            "We saw Paris first, fine but so crowded in July.",
            "In the end Rome was far too hot, we hid in the hotel.",
            "Every stop on the trip had its charm, hard to pick the best one.",
            "We took the night train to Vienna, slept the whole way.",
            "I could live somewhere like that one day.")):
        _say_as(tenant, f"s{i}", "2025-09-01T10:00:00Z", ("Melanie", text))
    question = "Which city did Melanie like best?"
    with _app(ctx, search_typed_weight=0.0, search_learned=False) as plain, \
            _app(ctx, search_typed_weight=1.0, search_learned=False) as typed:
        assert _ranked(plain, tenant, question) == _ranked(typed, tenant, question)


def test_a_list_question_searches_its_best_hits_words_over_the_named_participants_other_days(ctx, tenant):
    """"What books has Tim read?": the line the question finds names one book; another, said on another
    day, names the next in words far from the question's, below John's lines on reading. Searched by the
    found line's own words among Tim's lines of other days, it comes up. A question asking for no list
    keeps its order."""
    found = "I just finished The Name of the Wind, such a great fantasy book, I read it in two days!"
    item = "Tim: The Hobbit is great, dragons and dwarves and a long quest to the mountain."
    _say_as(tenant, "d1", "2025-09-01T10:00:00Z", ("Tim", found))
    for i, text in enumerate((
            "I love books so much, I read books every single day.",
            "Reading books before bed is the best way to end the day.",
            "I bought three new books at the store, can't wait to read them.",
            "My favourite thing is a good book and a cup of coffee.",
            "Books are the best, I always have one in my bag to read.")):
        _say_as(tenant, f"j{i}", f"2025-09-0{i + 2}T10:00:00Z", ("John", text))
    _say_as(tenant, "d9", "2025-09-09T10:00:00Z", ("Tim", item[len("Tim: "):]))
    question = "What books has Tim read?"
    other = "How does Tim feel about reading?"
    with _app(ctx, search_echo_weight=0.0, search_learned=False) as plain, \
            _app(ctx, search_echo_weight=1.0, search_learned=False) as echoed:
        without, with_echo = _ranked(plain, tenant, question), _ranked(echoed, tenant, question)
        assert _ranked(plain, tenant, other) == _ranked(echoed, tenant, other)
    assert _rank(with_echo, item) < _rank(without, item)
