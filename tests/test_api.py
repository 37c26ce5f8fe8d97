"""The v1 wire contract through the composed HTTP app, on real Postgres and SQS."""

from __future__ import annotations

import dataclasses
import gc
import json
import threading

import pytest

from memex.errors import Unauthorized
from memex_edge.context import build_context
from tests.conftest import api_client, local_server, refused_port


def test_turn_with_wait_is_processed_inline_and_found(tenant):
    response = tenant.turn("I work at Stripe.", metadata={"source": "chat"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "processed"
    contents = {m["content"] for m in body["memories"]}
    assert "I work at Stripe." in contents
    assert "The user's employer is Stripe." in contents

    results = tenant.search("where does the user work?")
    # the words said, and the fact drawn from them ("user" is no keyword: retrieval/keywords.py)
    assert {r["content"] for r in results[:2]} == {"I work at Stripe.", "The user's employer is Stripe."}
    assert {"relevance", "recency", "importance"} <= set(results[0]["score_parts"])


def test_turn_without_wait_is_queued_then_processed_by_the_workers(tenant, runtime):
    response = tenant.turn("My dog is called Biscuit.", wait=False)
    assert response.status_code == 202
    turn_id = response.json()["turn_id"]
    assert response.json()["status"] == "queued"
    assert tenant.get(f"/v1/turns/{turn_id}").json()["status"] == "queued"

    runtime.drain()
    status = tenant.get(f"/v1/turns/{turn_id}").json()
    assert status["status"] == "processed"
    assert any(m["key"] == "pet_dog_name" and m["value"] == "Biscuit" for m in status["memories"])


def test_a_wait_turn_over_the_inline_limit_is_queued_saying_why_and_processed_by_the_workers(ctx, tenant, runtime):
    # Told by its size up front (MEMEX_INLINE_MAX_CHARS, every message counted): nothing is tried inline.
    with api_client(build_context(dataclasses.replace(ctx.settings, inline_max_chars=30))) as client:
        def turn(*contents: str):
            return client.post("/v1/turns?wait=true", headers=tenant.headers, json={
                "user_id": tenant.user, "session_id": "s1", "messages": [{"role": "user", "content": c} for c in contents]})

        under = turn("My dog is called Biscuit.")  # 25 characters
        over = turn("I work at Stripe.", "I live in Lisbon.")  # 34
    assert (under.status_code, under.json()["status"]) == (201, "processed"), under.text
    assert over.status_code == 202, over.text
    answer = over.json()
    assert answer["status"] == "queued"
    assert answer["error"].startswith("not processed inline: its messages hold 34 characters, over "
                                      "MEMEX_INLINE_MAX_CHARS (30)")
    assert tenant.get(f"/v1/turns/{answer['turn_id']}").json()["error"] == answer["error"]

    runtime.drain()
    status = tenant.get(f"/v1/turns/{answer['turn_id']}").json()
    assert status["status"] == "processed" and "error" not in status
    assert {("employer", "Stripe"), ("city", "Lisbon")} <= {(m["key"], m["value"]) for m in status["memories"]}


def test_a_turn_sent_again_with_wait_over_the_inline_limit_says_why_it_was_queued(ctx, tenant, runtime):
    """A turn first sent without `wait`, then again with it (its idempotency key, as a client retrying would) while
    over MEMEX_INLINE_MAX_CHARS, answered `queued` with no `error`: the reason was written only with a new turn."""
    with api_client(build_context(dataclasses.replace(ctx.settings, inline_max_chars=30))) as client:
        def turn(wait: bool):
            return client.post(f"/v1/turns?wait={str(wait).lower()}", headers=tenant.headers, json={
                "user_id": tenant.user, "session_id": "s1", "idempotency_key": "k-over",
                "messages": [{"role": "user", "content": "I work at Stripe."},
                             {"role": "user", "content": "I live in Lisbon."}]})

        first, again = turn(wait=False), turn(wait=True)
    assert "error" not in first.json() and again.json()["turn_id"] == first.json()["turn_id"]
    assert (again.status_code, again.json()["status"]) == (202, "queued"), again.text
    assert again.json()["error"].startswith("not processed inline: its messages hold 34 characters, over "
                                            "MEMEX_INLINE_MAX_CHARS (30)")
    assert tenant.get(f"/v1/turns/{first.json()['turn_id']}").json()["error"] == again.json()["error"]

    runtime.drain()
    status = tenant.get(f"/v1/turns/{first.json()['turn_id']}").json()
    assert status["status"] == "processed" and "error" not in status


def test_message_metadata_comes_back_as_sources(tenant):
    body = {"user_id": tenant.user, "session_id": "s9", "messages": [
        {"role": "user", "content": "Booked a flight to Osaka", "metadata": {"dia_id": "D1:3"}}]}
    turn = tenant.post("/v1/turns?wait=true", body).json()
    hit = tenant.search("flight to Osaka")[0]
    assert hit["sources"] == [{"turn_id": turn["turn_id"], "message_id": hit["sources"][0]["message_id"],
                               "session_id": "s9", "metadata": {"dia_id": "D1:3"}}]


def test_idempotency_key_stores_a_turn_once(tenant, ctx):
    first = tenant.turn("I live in Porto.", idempotency_key="k-1").json()
    again = tenant.turn("I live in Porto.", idempotency_key="k-1").json()
    assert again["turn_id"] == first["turn_id"]
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 2



def test_the_count_counts_the_history_too_when_asked_as_the_listing_lists_it(tenant):
    """Lisbon, then Porto: one current city, two memories of the city. The count with
    `include_inactive` is what the listing with it lists; without it, what the listing lists without."""
    tenant.turn("I live in Lisbon.", timestamp="2026-01-05T09:00:00Z")
    tenant.turn("I moved to Porto.", timestamp="2026-06-05T09:00:00Z")
    for include_inactive in (False, True):
        params = {"include_inactive": str(include_inactive).lower()}
        listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 500, **params}).json()["memories"]
        counted = tenant.get("/v1/memories/count", params={"user_id": tenant.user, **params}).json()["count"]
        assert counted == len(listed), (include_inactive, [m["content"] for m in listed])
        assert [m["value"] for m in listed if m["key"] == "city"] == (["Porto", "Lisbon"] if include_inactive
                                                                     else ["Porto"])


def test_an_idempotency_key_belongs_to_one_user(tenant):
    mine = tenant.turn("I live in Porto.", idempotency_key="k-shared").json()
    theirs = tenant.turn("I live in Oslo.", user="another-user", idempotency_key="k-shared").json()
    assert theirs["turn_id"] != mine["turn_id"]
    assert any("Oslo" in m["content"] for m in theirs["memories"])
    assert not any("Porto" in m["content"] for m in theirs["memories"])
    assert tenant.get("/v1/memories/count", params={"user_id": "another-user"}).json()["count"] == 2


@pytest.mark.parametrize("change", [{"content": "I live in Lisbon."}, {"session": "s2"},
                                    {"timestamp": "2026-01-01T00:00:00Z"}, {"metadata": {"app": "x"}}])
def test_a_reused_idempotency_key_with_another_payload_is_409(tenant, change):
    first = tenant.turn("I live in Porto.", idempotency_key="k-2", wait=False)
    assert first.status_code == 202
    content = change.pop("content", "I live in Porto.")
    again = tenant.turn(content, idempotency_key="k-2", wait=False, **change)
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "idempotency_conflict"
    assert "idempotency_key" in again.json()["error"]["message"]
    retry = tenant.turn("I live in Porto.", idempotency_key="k-2", wait=False)
    assert retry.status_code == 202 and retry.json()["turn_id"] == first.json()["turn_id"]


def test_supersession_keeps_history_and_search_returns_only_the_current_fact(tenant):
    tenant.turn("I work at Stripe.", timestamp="2026-01-05T10:00:00Z")
    tenant.turn("I just started at Notion, left Stripe.", timestamp="2026-03-01T10:00:00Z")

    listing = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()
    employer = {m["value"]: m for m in listing["memories"] if m["key"] == "employer"}
    assert set(employer) == {"Stripe", "Notion"}
    assert employer["Stripe"]["active"] is False
    assert employer["Stripe"]["valid_to"] == employer["Notion"]["valid_from"] == "2026-03-01T10:00:00Z"
    assert employer["Notion"]["supersedes"] == employer["Stripe"]["id"]
    # What read each fact, as /health names the extractor: here the offline rules.
    assert {m["metadata"]["extractor"] for m in employer.values()} == {"offline-rules"}

    history = tenant.get(f"/v1/memories/{employer['Notion']['id']}/history").json()["history"]
    assert [m["value"] for m in history] == ["Stripe", "Notion"]

    facts = [r for r in tenant.search("where does the user work?") if r["key"] == "employer"]
    assert [f["value"] for f in facts] == ["Notion"]
    active_only = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert "Stripe" not in {m["value"] for m in active_only if m["key"] == "employer"}


def test_post_memory_then_get_count_and_list_with_cursor(tenant):
    created = []
    for i in range(5):
        response = tenant.post("/v1/memories", {"user_id": tenant.user, "content": f"note number {i}",
                                                "importance": 0.9, "metadata": {"n": i}})
        assert response.status_code == 201, response.text
        created.append(response.json())
    assert created[0]["memory_type"] == "semantic" and created[0]["importance"] == 0.9
    assert tenant.get(f"/v1/memories/{created[2]['id']}").json()["content"] == "note number 2"
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json() == {"count": 5}

    seen, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = tenant.get(f"/v1/users/{tenant.user}/memories", params=params).json()
        seen.extend(m["id"] for m in page["memories"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(m["id"] for m in created) and len(seen) == 5

    bad = tenant.get(f"/v1/users/{tenant.user}/memories", params={"cursor": "not-a-cursor"})
    assert bad.status_code == 422 and "cursor" in bad.json()["error"]["message"]


def test_a_turn_s_memories_are_listed_newest_first_in_the_order_they_were_written(tenant):
    # written in one transaction, they share its time: each row's own clock orders them (0016)
    lines = ["Hello there.", "It rained all day.", "The kettle is broken.", "Tea later maybe."]
    for session in ("a", "b", "c"):
        assert tenant.turn(*lines, session=session).status_code == 201
    listed = tenant.get(f"/v1/users/{tenant.user}/memories", params={"limit": 50}).json()["memories"]
    for session in ("a", "b", "c"):
        said = [m["content"] for m in listed if m["session_id"] == session and m["memory_type"] == "episodic"]
        assert said == lines[::-1], said
    assert [m["created_at"] for m in listed] == sorted((m["created_at"] for m in listed), reverse=True)


def test_the_listing_in_the_order_things_happened_pages_stably_and_keeps_its_cursor(tenant):
    """`order=valid_from`: a year told late (February's turn sent last) lists in the order it
    happened, earliest first, page after page while more is written; a cursor of one order is
    refused by the other; an unknown order is a 422."""
    for month in ("01", "03", "02"):  # February's turn written last
        tenant.turn(f"Note of month {month}.", session=f"s{month}", timestamp=f"2026-{month}-10T10:00:00Z")
    route = f"/v1/users/{tenant.user}/memories"
    said = [m["content"] for m in tenant.get(route).json()["memories"] if m["memory_type"] == "episodic"]
    assert said == ["Note of month 02.", "Note of month 03.", "Note of month 01."]  # as written, the latest first

    seen, cursor, pages = [], None, 0
    while True:
        page = tenant.get(route, params={"order": "valid_from", "limit": 1, **({"cursor": cursor} if cursor else {})})
        assert page.status_code == 200, page.text
        seen.extend(page.json()["memories"])
        cursor, pages = page.json()["next_cursor"], pages + 1
        if pages == 1:  # written between pages, said before the first page's row: not listed again later
            tenant.turn("Note of month 00.", session="s00", timestamp="2025-12-10T10:00:00Z")
        if cursor is None:
            break
    assert [m["valid_from"] for m in seen] == sorted(m["valid_from"] for m in seen)
    assert len({m["id"] for m in seen}) == len(seen)
    assert [m["content"] for m in seen if m["memory_type"] == "episodic"] == [
        "Note of month 01.", "Note of month 02.", "Note of month 03."]

    first = tenant.get(route, params={"order": "valid_from", "limit": 1}).json()["next_cursor"]
    other = tenant.get(route, params={"cursor": first, "limit": 1})
    assert other.status_code == 422 and "another listing" in other.json()["error"]["message"]
    written = tenant.get(route, params={"limit": 1}).json()["next_cursor"]
    assert tenant.get(route, params={"cursor": written, "order": "valid_from"}).status_code == 422
    unknown = tenant.get(route, params={"order": "said"})
    assert unknown.status_code == 422 and "order" in unknown.text


def test_a_request_builds_none_of_its_routes_dependencies_again(tenant, monkeypatch):
    """FastAPI builds a route's dependencies once, when the route is declared, unless the app
    overrides any: then it builds each again on every request (inspect.signature, its parameters'
    fields), CPU that every request pays (docs/measurements/performance.md)."""
    import fastapi.dependencies.utils as fastapi_dependencies

    tenant.turn("We adopted a cat named Miso.")
    built = []
    build = fastapi_dependencies.get_dependant
    monkeypatch.setattr(fastapi_dependencies, "get_dependant", lambda **kw: built.append(kw["call"]) or build(**kw))
    assert tenant.search("cat Miso")
    assert tenant.turn("The quarterly report is due Friday.", wait=False).status_code == 202
    assert built == []


def test_search_modes_and_filters(tenant):
    tenant.turn("We adopted a cat named Miso.", session="a")
    tenant.turn("The quarterly report is due Friday.", session="b")
    about_miso = {"We adopted a cat named Miso.", "The user's cat is named Miso."}  # the message, its fact
    assert tenant.search("cat Miso", mode="bm25")[0]["content"] in about_miso
    vector_hits = tenant.search("a pet kitten", mode="vector")
    assert vector_hits[0]["content"] in about_miso
    assert "bm25_rank" not in vector_hits[0]["score_parts"]
    in_b = tenant.search("quarterly report Miso", filters={"session_id": "b"})
    assert in_b and {r["session_id"] for r in in_b} == {"b"}


def test_a_metadata_filter_finds_what_was_drawn_from_a_turn_or_message_that_carries_it(tenant):
    """The metadata a client sends with a turn or a message filters the memories drawn from them,
    facts included, as a memory's own metadata does (mem0's `metadata` on add, then in `filters`):
    it used to match only memex's own metadata, and a turn's found nothing."""
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "t", "metadata": {"category": "travel"},
                                        "messages": [{"role": "user", "content": "I'm flying to Oslo next week."}]})
    tenant.post("/v1/turns?wait=true", {"user_id": tenant.user, "session_id": "w", "messages": [
        {"role": "user", "content": "I work at Stripe.", "metadata": {"category": "work", "msg": "m-7"}}]})
    tenant.post("/v1/memories", {"user_id": tenant.user, "content": "Prefers window seats",
                                 "metadata": {"category": "travel"}})

    def found(metadata: dict) -> set[str]:
        return {r["content"] for query in ("where is the user flying?", "where does the user work?", "seats")
                for r in tenant.search(query, filters={"metadata": metadata})}

    assert found({"category": "travel"}) == {"I'm flying to Oslo next week.", "The user's plan: flying to Oslo next week.",
                                            "Prefers window seats"}
    assert found({"category": "work"}) == {"I work at Stripe.", "The user's employer is Stripe."}
    assert found({"msg": "m-7", "category": "work"}) == found({"category": "work"})
    assert found({"category": "food"}) == set()
    assert found({"extractor": "offline-rules"}) == {"The user's plan: flying to Oslo next week.",
                                                    "The user's employer is Stripe."}


def test_unicode_emoji_and_zero_width_are_stored_and_found_verbatim(tenant):
    text = "Ich liebe Käsespätzle 🧀🍝 — 東京で寿司を食べた; zero\u200bwidth\u200djoiner and \ufeffBOM"
    turn = tenant.turn(text).json()
    stored = [m["content"] for m in turn["memories"]]
    assert text in stored
    assert any(r["content"] == text for r in tenant.search("Käsespätzle"))
    assert any(r["content"] == text for r in tenant.search("東京で寿司を食べた"))
    assert any(r["content"] == text for r in tenant.search("zero\u200bwidth\u200djoiner"))


def test_erasing_a_memory_erases_its_history(tenant):
    tenant.turn("I live in Porto.", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I moved to Lisbon.", timestamp="2026-02-01T00:00:00Z")
    current = next(m for m in tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"] if m["key"] == "city")
    response = tenant.delete(f"/v1/memories/{current['id']}")
    assert response.status_code == 200 and response.json()["deleted"]["memories"] == 2
    remaining = tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"}).json()
    assert not [m for m in remaining["memories"] if m["key"] == "city"]
    assert tenant.get(f"/v1/memories/{current['id']}").status_code == 404
    assert tenant.delete(f"/v1/memories/{current['id']}").status_code == 404


def test_erasing_a_session_reinstates_what_it_had_superseded(tenant):
    tenant.turn("I live in Porto.", session="old", timestamp="2026-01-01T00:00:00Z")
    tenant.turn("I moved to Lisbon.", session="new", timestamp="2026-02-01T00:00:00Z")
    deleted = tenant.delete(f"/v1/sessions/new?user_id={tenant.user}").json()["deleted"]
    assert deleted["turns"] == 1 and deleted["memories"] == 2
    city = [m for m in tenant.get(f"/v1/users/{tenant.user}/memories", params={"include_inactive": "true"})
            .json()["memories"] if m["key"] == "city"]
    assert [(m["value"], m["active"], m["valid_to"]) for m in city] == [("Porto", True, None)]
    assert not [r for r in tenant.search("Lisbon") if "Lisbon" in r["content"]]


def test_erasing_a_user_leaves_nothing(tenant):
    turn_id = tenant.turn("I work at Stripe.").json()["turn_id"]
    tenant.post("/v1/memories", {"user_id": tenant.user, "content": "likes tea"})
    deleted = tenant.delete(f"/v1/users/{tenant.user}").json()["deleted"]
    assert deleted == {"turns": 1, "memories": 3}
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 0
    assert tenant.get(f"/v1/turns/{turn_id}").status_code == 404
    assert tenant.search("Stripe tea") == []


def test_malformed_json_is_422(tenant, http):
    response = http.post("/v1/turns", content=b'{"user_id": "u", ', headers={**tenant.headers,
                                                                             "content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"
    assert "JSON" in response.json()["error"]["message"]


def test_missing_and_wrong_fields_are_422_naming_the_field(tenant):
    response = tenant.post("/v1/turns", {"session_id": "s", "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 422
    assert "body.user_id" in response.json()["error"]["message"]

    response = tenant.post("/v1/turns", {"user_id": "u", "session_id": "s",
                                         "messages": [{"role": "robot", "content": "hi"}]})
    assert response.status_code == 422 and "body.messages.0.role" in response.json()["error"]["message"]

    response = tenant.post("/v1/search", {"user_id": "u", "query": "x", "top_k": 0})
    assert response.status_code == 422 and "body.top_k" in response.json()["error"]["message"]

    response = tenant.post("/v1/search", {"user_id": "u", "query": "x", "usr": 1})
    assert response.status_code == 422 and "body.usr" in response.json()["error"]["message"]


def test_a_query_parameter_a_route_does_not_take_is_422_naming_it_not_ignored(tenant):
    """A listing asked for one session (Zep's "a session's memory") used to answer every session's
    memories, the parameter ignored (as the seed's listing did one agent's: it takes no agent)."""
    tenant.turn("I live in Lisbon.", session="s1")
    tenant.turn("I work at Stripe.", session="s2")
    listing = f"/v1/users/{tenant.user}/memories"
    for path, params in [(listing, {"session_id": "s1"}), (f"/users/{tenant.user}/memories", {"agent_id": "a1"}),
                         ("/v1/memories/count", {"user_id": tenant.user, "session_id": "s1"})]:
        response = tenant.get(path, params=params)
        assert response.status_code == 422, (path, params)
        unknown = next(name for name in params if name not in ("limit", "user_id"))
        assert response.json()["error"]["message"].startswith(f"query.{unknown}: not a parameter of this route; it takes ")
    message = tenant.get(listing, params={"session_id": "s1"}).json()["error"]["message"]
    assert message == ("query.session_id: not a parameter of this route; it takes include_inactive, agent_id, limit, "
                       "cursor, order")
    assert tenant.delete(f"/v1/users/{tenant.user}", params={"session_id": "s1"}).status_code == 422
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] > 0  # nothing erased
    # what a route takes is taken as before
    assert tenant.get(listing, params={"include_inactive": "true", "limit": 1}).status_code == 200
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user, "agent_id": "a1"}).json() == {"count": 0}
    seed = tenant.get(f"/users/{tenant.user}/memories", params={"session_id": "s1"})
    assert seed.status_code == 422 and seed.json()["detail"][0]["loc"] == ["query", "session_id"]


def test_a_query_parameter_sent_twice_is_422_naming_it_not_read_as_its_last_value(tenant):
    """`?user_id=kate&user_id=alice` counted alice's memories: FastAPI reads the last value of a
    parameter that takes one. Refused on every route, the v1 and the seeds' alike, before anything is
    read or erased."""
    tenant.turn("I live in Lisbon.")
    alice = f"{tenant.user}-alice"
    for method, path in [("GET", "/v1/memories/count"), ("GET", f"/v1/users/{tenant.user}/memories"),
                         ("DELETE", "/v1/sessions/s1"), ("DELETE", "/sessions/s1")]:
        response = tenant._http.request(method, f"{path}?user_id={tenant.user}&user_id={alice}&user_id=x",
                                        headers=tenant.headers)
        if "/users/" in path:  # the listing takes no user_id: unknown there, and said once
            assert response.json()["error"]["message"].startswith("query.user_id: not a parameter"), response.text
            continue
        assert response.status_code == 422, (method, path, response.text)
        assert response.json()["error"]["message"] == "query.user_id: sent 3 times; the route takes one value"
    seed = tenant.delete(f"/sessions/s1?user_id={tenant.user}&user_id={alice}")
    assert seed.json()["detail"][0]["loc"] == ["query", "user_id"]
    listing = tenant.get(f"/v1/users/{tenant.user}/memories?limit=1&limit=50&order=written")
    assert listing.json()["error"]["message"] == "query.limit: sent 2 times; the route takes one value"
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] > 0  # nothing erased


def test_bodies_over_one_megabyte_are_413_and_store_nothing(tenant, http, ctx):
    huge = "x" * (1024 * 1024 + 10)
    body = {"user_id": tenant.user, "session_id": "s", "messages": [{"role": "user", "content": huge}]}
    response = tenant.post("/v1/turns", body)
    assert response.status_code == 413
    # memex's error shape (MCP's is a JSON-RPC error: tests/test_mcp.py).
    assert response.json() == {"error": {"code": "payload_too_large",
                                         "message": f"request body exceeds {ctx.settings.max_body_bytes} bytes"}}

    def chunks():
        payload = json.dumps(body).encode()
        for i in range(0, len(payload), 65536):
            yield payload[i:i + 65536]

    chunked = http.post("/v1/turns", content=chunks(), headers={**tenant.headers, "content-type": "application/json"})
    assert chunked.status_code == 413
    assert tenant.get("/v1/memories/count", params={"user_id": tenant.user}).json()["count"] == 0


def test_keys_are_required_and_checked(tenant, http):
    assert http.post("/v1/search", json={"user_id": "u", "query": "x"}).status_code == 401
    wrong = http.post("/v1/search", json={"user_id": "u", "query": "x"},
                      headers={"Authorization": "Bearer mx_not_a_key"})
    assert wrong.status_code == 401
    assert wrong.json() == {"error": {"code": "unauthorized", "message": "invalid API key"}}
    assert wrong.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["{key}", "Basic {key}", "Token {key}"])
def test_a_key_sent_without_the_bearer_scheme_is_told_so_not_called_missing(tenant, http, header):
    refused = http.get(f"/v1/users/{tenant.user}/memories", headers={"Authorization": header.format(key=tenant.key)})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["error"]["message"] == ("the Authorization header holds no Bearer key: "
                                                  "send Authorization: Bearer <key>")


@pytest.mark.parametrize("header", ["Bearer Bearer {key}", "bearer Bearer: {key}"])
def test_a_key_sent_with_bearer_twice_is_told_so_not_called_invalid(tenant, http, header):
    # What a client sends when its key was set to the header's value (MEMEX_API_KEY="Bearer mx_…").
    refused = http.get(f"/v1/users/{tenant.user}/memories", headers={"Authorization": header.format(key=tenant.key)})
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["error"]["message"] == ("the key after Bearer begins with Bearer again: send "
                                                  "Authorization: Bearer <key>, the key alone")


def test_unknown_route_and_unknown_ids_are_404_in_the_error_shape(tenant):
    # The router's own 404 said only "Not Found".
    assert tenant.get("/v1/nothing").json()["error"] == {
        "code": "not_found", "message": "no route at /v1/nothing: check the path (an id in it is one URL-encoded segment)"}
    assert tenant.get("/v1/memories/does-not-exist").status_code == 404
    assert tenant.get("/v1/turns/does-not-exist").status_code == 404
    assert tenant.get("/v1/memories/does-not-exist/history").status_code == 404


@pytest.mark.parametrize("method, path, allowed", [
    ("PUT", "/v1/turns", "POST"), ("PATCH", "/v1/users/u-1", "DELETE"),
    # two routes at one path (GET and DELETE): the Allow names both, not the first route's alone
    ("PUT", "/v1/memories/m-1", "DELETE, GET, HEAD"), ("PATCH", "/turns", "POST")])
def test_a_method_no_route_takes_is_405_naming_those_the_path_takes(tenant, http, method, path, allowed):
    refused = http.request(method, path, headers=tenant.headers, json={})
    assert refused.status_code == 405 and refused.headers["allow"] == allowed, refused.text
    message = f"{method} is not a method of {path}; it takes {allowed}"
    assert refused.json()["error"] == {"code": "method_not_allowed", "message": message}
    # a compatibility route's, with the seed's `detail` beside it (FastAPI's, which its clients read)
    assert refused.json().get("detail") == (message if path == "/turns" else None)


def test_head_is_answered_wherever_get_is_with_the_gets_headers_and_no_body(tenant, http):
    """HEAD-based uptime checks got 405 from GET /health: FastAPI's routes take only the methods they
    declare."""
    got, head = http.get("/health"), http.head("/health")
    assert head.status_code == got.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"] == "application/json"
    counted = tenant._http.head(f"/v1/memories/count?user_id={tenant.user}", headers=tenant.headers)
    assert counted.status_code == 200 and counted.content == b"" and int(counted.headers["content-length"]) > 0
    # refused as the GET would be, with its error's headers
    assert tenant._http.head("/v1/memories/count", headers=tenant.headers).status_code == 422
    assert http.head(f"/v1/memories/count?user_id={tenant.user}").headers["www-authenticate"] == "Bearer"
    # where no route takes GET, a 405 naming HEAD
    refused = http.head("/v1/search", headers=tenant.headers)
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"
    assert http.post("/v1/nothing", headers=tenant.headers).status_code == 404
    assert http.head("/v1/nothing", headers=tenant.headers).status_code == 404


def test_a_path_with_a_trailing_slash_is_answered_where_it_stands_never_sent_to_the_host_it_names(tenant, http):
    """The router redirected `/v1/turns/` (and the seed's `/mcp/`) to an absolute URL built from the
    request's Host header: `Host: evil.example` sent the client, its key and body, to evil.example."""
    foreign = {**tenant.headers, "Host": "evil.example"}
    body = {"user_id": tenant.user, "session_id": "s1", "messages": [{"role": "user", "content": "I live in Oslo."}]}
    posted = http.post("/v1/turns/?wait=true", json=body, headers=foreign, follow_redirects=False)
    assert posted.status_code == 201 and "location" not in posted.headers, (posted.status_code, posted.headers)
    counted = http.get(f"/v1/memories/count/?user_id={tenant.user}", headers=foreign, follow_redirects=False)
    assert counted.status_code == 200 and counted.json()["count"] == 2
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    loopback = {**tenant.headers, **accept, "Host": "127.0.0.1:8080"}  # as `make dev` is called
    mcp = http.post("/mcp/", json=ping, headers=loopback, follow_redirects=False)
    assert mcp.status_code == 200 and mcp.json()["result"] == {}, mcp.text
    # on loopback MCP refuses a foreign host (DNS rebinding) where it stands, as at /mcp
    refused = http.post("/mcp/", json=ping, headers={**foreign, **accept}, follow_redirects=False)
    assert "location" not in refused.headers and refused.status_code == http.post(
        "/mcp", json=ping, headers={**foreign, **accept}).status_code


def test_an_id_ending_in_an_encoded_slash_is_refused_never_read_as_the_id_without_it(tenant, http):
    """`alice%2F` arrives decoded as `alice/`: cut as a trailing slash, the route acted on alice (a DELETE
    erased her). It is an id no id rule takes: a 422, and nothing erased."""
    assert tenant.turn("I live in Oslo.").status_code == 201
    memory = tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"][0]
    for path in (f"/v1/users/{tenant.user}%2F", f"/v1/memories/{memory['id']}%2F"):
        refused = tenant.delete(path)
        assert refused.status_code == 422 and "holds '/'" in refused.json()["error"]["message"], refused.text
    assert tenant.get(f"/v1/memories/{memory['id']}").status_code == 200
    assert tenant.get(f"/v1/users/{tenant.user}/memories").json()["memories"]
    assert tenant.get("/v1/turns/").status_code != 307  # a slash sent as one is still answered in place


# Hosts a request to a server on loopback may name that are not this machine's: a web page's own name
# (DNS rebinding: its owner made it resolve to 127.0.0.1), one ending like a loopback name, and the
# test client's own default.
FOREIGN_HOSTS = ("evil.example", "evil.example:8080", "127.0.0.1.evil.example", "localhost.evil.example",
                 "testserver")
LOOPBACK_HOSTS = ("127.0.0.1", "127.0.0.1:8080", "localhost", "localhost:8080", "LocalHost", "[::1]", "[::1]:8080")


def test_on_loopback_a_request_naming_another_host_is_refused_while_the_api_takes_no_key(keyless):
    """DNS rebinding: a web page at evil.example, its name then resolved to 127.0.0.1, is its own
    origin to the browser and reads what it is answered. While the API took requests without a key,
    such a page read and erased the default tenant's memories, over v1 and the seeds' routes alike."""
    alice = {"user_id": "alice", "content": "I live in Oslo."}
    with local_server(keyless, loopback=True) as client:
        assert client.post("/v1/memories", json=alice, headers={"Host": "127.0.0.1:8080"}).status_code == 201
        for host in FOREIGN_HOSTS:
            for method, path in [("GET", "/v1/users/alice/memories"), ("GET", "/users/alice/memories"),
                                 ("POST", "/v1/search"), ("DELETE", "/v1/users/alice"), ("DELETE", "/users/alice"),
                                 ("GET", "/health"), ("GET", "/docs"), ("GET", "/openapi.json")]:
                body = {"user_id": "alice", "query": "where does she live"} if method == "POST" else None
                refused = client.request(method, path, json=body, headers={"Host": host})
                assert refused.status_code == 421, (host, method, path, refused.status_code, refused.text)
                assert refused.json()["error"]["code"] == "misdirected_request" and "Oslo" not in refused.text
                message = refused.json()["error"]["message"]
                assert f"Host: {host}" in message and "127.0.0.1" in message
                assert "memex keys create" in message and "Authorization: Bearer <key>" in message
            # a key is judged by the key, wherever the request says it goes: none is valid yet
            wrong = client.get("/v1/users/alice/memories", headers={"Host": host, "Authorization": "Bearer mx_nope"})
            assert (wrong.status_code, wrong.json()["error"]["message"]) == (401, "invalid API key")
        for host in LOOPBACK_HOSTS:
            listed = client.get("/v1/users/alice/memories", headers={"Host": host})
            assert listed.status_code == 200 and [m["content"] for m in listed.json()["memories"]] == [
                "I live in Oslo."], (host, listed.text)
            assert client.get("/users/alice/memories", headers={"Host": host}).status_code == 200
            assert client.get("/health", headers={"Host": host}).status_code == 200
            assert client.get("/openapi.json", headers={"Host": host}).status_code == 200
        erased = client.delete("/v1/users/alice", headers={"Host": "localhost:8080"})
        assert erased.status_code == 200 and erased.json()["deleted"]["memories"] == 1, erased.text


def test_on_loopback_a_request_naming_another_host_is_refused_while_the_keys_cannot_be_read(ctx):
    """Whether the API takes requests without a key is read from Postgres: while it cannot be, a
    request naming another host gets the 503 any keyless request would, even where nothing else
    needs the database (/docs), never an answer given as though no key existed."""
    import dataclasses

    from memex.db.connection import Database

    with refused_port() as nowhere:
        unreachable = Database(lambda: f"postgresql://memex@127.0.0.1:{nowhere}/memex")
        down = dataclasses.replace(ctx, db=unreachable,
                                   settings=dataclasses.replace(ctx.settings, require_api_key=False))
        with local_server(down, loopback=True) as client:
            assert client.get("/docs", headers={"Host": "localhost:8080"}).status_code == 200
            # the document too, with the 421 that may come once the keys can be read
            document = client.get("/openapi.json", headers={"Host": "localhost:8080"})
            assert document.status_code == 200 and "421" in document.json()["paths"]["/health"]["get"]["responses"]
            refused = client.get("/docs", headers={"Host": "evil.example"})
            assert refused.status_code == 503 and refused.headers["retry-after"], refused.text
            assert refused.json()["error"]["code"] == "database_unavailable"


def test_the_document_that_met_a_lost_database_hands_no_dead_connection_to_the_next_request(keyless):
    """/openapi.json reads whether the API takes requests without a key and, when Postgres is gone,
    serves the document anyway: it kept the connections the server had dropped, the spares among
    them, and the next request handed one met the failure again. Now it has every thread reconnect,
    as a 503 does."""
    import dataclasses

    from memex.db.connection import Database

    pool = Database(lambda: keyless.db.dsn, spare_connections=2)
    both_open, backends = threading.Barrier(2), []

    def hold() -> None:
        backends.append(pool.connection().info.backend_pid)
        both_open.wait()

    threads = [threading.Thread(target=hold) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    del threads, thread
    gc.collect()  # the two ended threads' connections are the pool's spares
    with keyless.db.connection().cursor() as cur:  # the server restarted, as far as these two know
        for backend in backends:
            cur.execute("SELECT pg_terminate_backend(%s, 10000)", (backend,))
    try:
        with local_server(dataclasses.replace(keyless, db=pool), loopback=True) as client:
            assert client.get("/openapi.json", headers={"Host": "localhost:8080"}).status_code == 200
        answered = []
        thread = threading.Thread(target=lambda: answered.append(pool.connection().execute("SELECT 1").fetchone()))
        thread.start()
        thread.join()
        assert answered == [{"?column?": 1}]
    finally:
        pool.discard_all()


def test_a_request_without_a_key_is_refused_without_the_database_once_keys_are_required(ctx):
    """Whether a request without a key is let in needs Postgres only while none is required (is there a
    key yet, is the default tenant live): once one is, it is refused before any connection is opened,
    and so while Postgres is down too (/docs and /health, which answer any Host then, ask this)."""
    import dataclasses

    from memex import keys
    from memex.db.connection import Database

    with refused_port() as nowhere:
        unreachable = Database(lambda: f"postgresql://memex@127.0.0.1:{nowhere}/memex")
        required = dataclasses.replace(ctx, db=unreachable,
                                       settings=dataclasses.replace(ctx.settings, require_api_key=True))
        with pytest.raises(Unauthorized, match="^missing API key"):
            keys.caller_for(required, None)
        assert not keys.keyless_answered(required)


def test_off_loopback_or_once_keys_exist_a_requests_host_changes_nothing(keyless):
    """Off loopback (`--host 0.0.0.0`) every name of the server is a name it is called by, and once a
    key exists a request without one is refused wherever it says it goes: the Host is judged only on
    loopback while the API takes requests without a key."""
    from memex.keys import create_key

    alice = {"user_id": "alice", "content": "I live in Oslo."}
    with local_server(keyless, loopback=False) as client:
        assert client.post("/v1/memories", json=alice, headers={"Host": "evil.example"}).status_code == 201
        assert client.get("/v1/users/alice/memories", headers={"Host": "memex.example.internal"}).status_code == 200
    key = {"Authorization": f"Bearer {create_key(keyless, 'default')}"}
    with local_server(keyless, loopback=True) as client:
        for host in FOREIGN_HOSTS:
            missing = client.get("/v1/users/alice/memories", headers={"Host": host})
            assert (missing.status_code, missing.json()["error"]["code"]) == (401, "unauthorized"), missing.text
            assert client.get("/health", headers={"Host": host}).status_code == 200
            listed = client.get("/v1/users/alice/memories", headers={"Host": host, **key})
            assert listed.status_code == 200 and len(listed.json()["memories"]) == 1, listed.text


def test_on_loopback_a_deleted_default_tenant_is_refused_alike_whatever_host_a_request_names(keyless):
    """No key made and the default tenant deleted (while keys were required: tests/test_tenant_deletion.py):
    no request without a key is answered, and one naming another host got 421, whose remedy "call it
    localhost" only met the 401 of the deleted tenant. Now it gets that 401, with its remedy (a key for the
    tenant), as a request naming localhost does; before the deletion it got 421, after the key both get 401."""
    import dataclasses

    from memex import tenants
    from memex.keys import create_key

    default = keyless.settings.default_tenant
    with local_server(keyless, loopback=True) as client:
        local, foreign = {"Host": "localhost:8080"}, {"Host": "evil.example"}
        assert client.post("/v1/memories", json={"user_id": "alice", "content": "I live in Oslo."},
                           headers=local).status_code == 201
        assert client.get("/v1/users/alice/memories", headers=foreign).status_code == 421
        required = dataclasses.replace(keyless, settings=dataclasses.replace(keyless.settings, require_api_key=True))
        deleted_at = tenants.delete(required, default)["deleted_at"]
        for path in ("/v1/users/alice/memories", "/users/alice/memories"):
            by_name, by_other = client.get(path, headers=local), client.get(path, headers=foreign)
            assert by_other.status_code == by_name.status_code == 401, (path, by_other.text)
            message = by_other.json()["error"]["message"]
            assert by_other.json() == by_name.json() and "Oslo" not in by_other.text
            assert f"was deleted at {deleted_at}: memex keys create --tenant {default}" in message
        # as once keys are required: /health answers whatever the Host
        assert client.get("/health", headers=foreign).status_code == 200
        key = {"Authorization": f"Bearer {create_key(keyless, default)}"}
        for host in (local, foreign):
            missing = client.get("/v1/users/alice/memories", headers=host)
            assert (missing.status_code, missing.json()["error"]["message"]) == (
                401, "missing API key: send Authorization: Bearer <key>"), missing.text
            emptied = client.get("/v1/users/alice/memories", headers={**host, **key})
            assert emptied.status_code == 200 and emptied.json()["memories"] == [], emptied.text


def test_health_reports_each_dependency(http):
    body = http.get("/health").json()
    assert body["status"] == "ok" and body["db"] == "ok" and body["queue"] == "ok"
    assert body["embedder"] == "local:all-MiniLM-L6-v2"
    assert body["embed"] == "ok" and body["llm"] == "unconfigured" and "llm" in body["degraded"]
