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
