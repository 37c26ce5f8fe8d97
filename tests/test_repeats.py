"""A search's top k is not spent on a line said again (retrieval/repeats.py; trial 15)."""

from __future__ import annotations

import dataclasses

from memex_edge.context import build_context
from tests.conftest import api_client, round_trips

LINE = "I had a long day at work."
ASKED = {"reference_time": "2026-03-25T09:00:00Z"}


def _evenings(tenant) -> None:
    for day in range(1, 16):
        assert tenant.turn(LINE, session=f"s{day}", timestamp=f"2026-03-{day:02d}T20:00:00Z").status_code == 201
    tenant.turn("My manager Priya praised my work on the launch.", session="s20", timestamp="2026-03-20T20:00:00Z")
    tenant.turn("Work was stressful after the reorg.", session="s21", timestamp="2026-03-21T20:00:00Z")


def _searched(ctx, tenant, question: str, top_k: int = 10, **changes) -> list[dict]:
    with api_client(build_context(dataclasses.replace(ctx.settings, **changes))) as client:
        response = client.post("/v1/search", json={"user_id": tenant.user, "query": question, "top_k": top_k,
                                                   **ASKED},
                               headers=tenant.headers)
    assert response.status_code == 200, response.text
    return response.json()["results"]


def test_a_line_said_on_fifteen_evenings_takes_one_place_of_the_top_k(ctx, tenant, monkeypatch):
    """Trial 15: the top five held the same line five times and neither other line said of work."""
    _evenings(tenant)
    top = [r["content"] for r in tenant.search("what happened at work lately?", top_k=5, **ASKED)]
    # three distinct lines were said of work: they come first, the evenings after them
    assert sorted(top[:3]) == sorted([LINE, "My manager Priya praised my work on the launch.",
                                      "Work was stressful after the reorg."]), top
    assert top[3:] == [LINE, LINE], top
    # a caller asking for more still gets every evening (its own day each), below the distinct lines
    every = tenant.search("what happened at work lately?", top_k=50, **ASKED)
    said = [r for r in every if r["content"] == LINE]
    assert len(said) == 15 and len({r["valid_from"] for r in said}) == 15
    first_repeat = every.index(said[1])
    assert all(r["content"] == LINE for r in every[first_repeat:]), [r["content"] for r in every]
    # the same round trips as without the rule
    counts = []
    for changes in ({}, {"search_repeats_below": False}):
        with round_trips(monkeypatch) as trips:
            _searched(ctx, tenant, "what happened at work lately?", top_k=5, **changes)
        counts.append(len(trips))
    assert counts[0] == counts[1], counts


def test_a_line_said_once_or_on_different_days_is_found_as_before(ctx, tenant):
    """Nothing said twice: the same answer as without the rule. Words that count from the day they
    were said ("yesterday") read differently on another day, as recall's bullets do: both stay."""
    tenant.turn("I work at Notion.", session="a", timestamp="2026-03-01T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="b", timestamp="2026-03-05T09:00:00Z")
    tenant.turn("I was sick yesterday.", session="c", timestamp="2026-03-12T09:00:00Z")
    tenant.turn("My manager Priya praised my work on the launch.", session="d", timestamp="2026-03-20T20:00:00Z")
    for question in ("where do I work?", "when was I sick?", "what did my manager say?"):
        found = _searched(ctx, tenant, question)
        assert found, question
        assert [(r["id"], r["score"]) for r in found] == \
            [(r["id"], r["score"]) for r in _searched(ctx, tenant, question, search_repeats_below=False)], question
    sick = [r for r in _searched(ctx, tenant, "when was I sick?") if r["content"] == "I was sick yesterday."]
    assert len(sick) == 2, sick
