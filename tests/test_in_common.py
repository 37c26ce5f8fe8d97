"""A question about what two people have in common (retrieval/in_common.py): searched without
"both", "in common" and a closing "share", which small talk says and no answer does; answered as
asked. Checked against the same history with the setting off, through the HTTP API and the
embedded Postgres."""

from __future__ import annotations

import dataclasses

import pytest

from memex.retrieval import in_common
from memex_edge.context import build_context
from tests.conftest import api_client


@pytest.mark.parametrize("question, searched", [
    ("What movies have both Joanna and Nate seen?", "What movies have Joanna and Nate seen?"),
    ("How do Jon and Gina both like to destress?", "How do Jon and Gina like to destress?"),
    ("What kind of interests do Joanna and Nate share?", "What kind of interests do Joanna and Nate have?"),
    ("What hobbies do Jon and Gina both have in common?", "What hobbies do Jon and Gina have?"),
    # one person, or no pair joined by "and": the words ask about one thing
    ("Are both of her kids at school?", "Are both of her kids at school?"),
    ("Did she share the recipe?", "Did she share the recipe?"),
    ("What did Nate share with Joanna?", "What did Nate share with Joanna?"),
    ("Do Anna and Ben both of them like tea?", "Do Anna and Ben both of them like tea?"),
    ("Does she like both cats and dogs?", "Does she like both cats and dogs?"),
    ("Both Anna and Ben?", "Both Anna and Ben?"),  # the first word is capitalised whatever it is
])
def test_the_question_searched(question, searched):
    assert in_common.without_cue(question) == searched
    assert in_common.asks(question) == (searched != question)


def _app(ctx, **changes):
    return api_client(build_context(dataclasses.replace(ctx.settings, **changes)))


def _say(tenant, session: str, when: str, name: str, text: str):
    body = {"user_id": tenant.user, "session_id": session, "timestamp": when, "user_name": "Joanna",
            "messages": [{"role": "user", "name": name, "content": text}]}
    assert tenant.post("/v1/turns?wait=true", body).status_code == 201


def test_small_talk_that_says_in_common_is_no_answer(ctx, tenant):
    # each line in a turn of its own: a line is also indexed with the line it answers
    for i, (name, text) in enumerate((
            ("Nate", "Ha, we really have so much in common, Joanna!"),
            ("Joanna", "We both love a good laugh, it's something we share."),
            ("Joanna", "My hobbies are hiking in the hills and baking bread."),
            ("Nate", "My hobbies are gaming and baking vegan desserts."))):
        _say(tenant, f"s{i}", f"2025-09-0{i + 1}T10:00:00Z", name, text)
    question = "What hobbies do Joanna and Nate both have in common?"
    small_talk = "Nate: Ha, we really have so much in common, Joanna!"

    def search(on: bool) -> dict:
        with _app(ctx, search_in_common=on) as client:
            body = {"user_id": tenant.user, "query": question, "reference_time": "2025-10-20T15:00:00Z"}
            response = client.post("/v1/search", json=body, headers=tenant.headers)
        assert response.status_code == 200, response.text
        return response.json()

    off, on = search(False), search(True)
    assert on["query"] == off["query"] == question  # answered as asked
    bm25 = {on_or_off: {r["content"]: r["score_parts"]["bm25"] for r in answer["results"]}
            for on_or_off, answer in (("off", off), ("on", on))}
    # "common" ties the small talk to the question; searched without it, only the hobbies are keyword hits
    assert bm25["off"].get(small_talk) is not None
    assert bm25["on"].get(small_talk) is None
    # and it ranked above both people's own lines on their hobbies, which it now follows
    hobbies = ("Nate: My hobbies are gaming and baking vegan desserts.",
               "Joanna: My hobbies are hiking in the hills and baking bread.")
    order = {on_or_off: [r["content"] for r in answer["results"]] for on_or_off, answer in (("off", off), ("on", on))}
    assert all(order["off"].index(small_talk) < order["off"].index(line) for line in hobbies), order["off"]
    assert all(order["on"].index(small_talk) > order["on"].index(line) for line in hobbies), order["on"]
