"""Bad input gets a clear 4xx in the error shape, never a 500; an unreachable database gets 503."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import socket
import string
import threading
import typing
from datetime import datetime, timedelta, timezone

import pydantic
import pytest
from annotated_types import Ge, Gt, Le, Lt

from memex import models

CURSOR_REFUSED = "cursor: not a cursor this server issued"


def raw_post(tenant, path: str, raw_json: str):
    """A body sent as written: Python's JSON parser accepts NaN and lone surrogates a client may send."""
    return tenant._http.post(path, content=raw_json.encode(),
                             headers={**tenant.headers, "content-type": "application/json"})


def refused(response, field: str) -> str:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert f"{field}:" in error["message"], error["message"]
    return error["message"]


# --- ids: one rule in bodies, paths and query parameters ------------------------------------

BAD_IDS = ["", "a/b", "a b", "tab\there", "nul\x00", "x" * 257, "emoji\N{GRINNING FACE}", "new\nline"]


def bodies(tenant) -> dict[str, dict]:
    message = [{"role": "user", "content": "hello"}]
    return {
        "/v1/turns": {"user_id": tenant.user, "session_id": "s1", "messages": message},
        "/v1/memories": {"user_id": tenant.user, "content": "hello"},
        "/v1/search": {"user_id": tenant.user, "query": "hello"},
        "/v1/recall": {"user_id": tenant.user, "query": "hello"},
    }


ID_FIELDS = [
    ("/v1/turns", ("user_id",)), ("/v1/turns", ("session_id",)), ("/v1/turns", ("agent_id",)),
    ("/v1/memories", ("user_id",)), ("/v1/memories", ("agent_id",)), ("/v1/memories", ("session_id",)),
    ("/v1/search", ("user_id",)), ("/v1/search", ("agent_id",)), ("/v1/search", ("filters", "session_id")),
    ("/v1/recall", ("user_id",)), ("/v1/recall", ("session_id",)), ("/v1/recall", ("agent_id",)),
]


def with_field(body: dict, path: tuple[str, ...], value) -> dict:
    body = json.loads(json.dumps(body))
    target = body
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value
    return body


@pytest.mark.parametrize("route,field", ID_FIELDS)
def test_every_body_id_refuses_what_the_id_rule_refuses(tenant, route, field):
    for bad in BAD_IDS:
        response = tenant.post(route, with_field(bodies(tenant)[route], field, bad))
        refused(response, "body." + ".".join(field))


def test_a_plus_left_raw_in_a_query_string_is_told_to_be_encoded(tenant):
    # "user_id=dana+work" arrives as "dana work": the rule alone ("letters, digits or _ . : @ + -")
    # told a caller who sent a + that + is allowed.
    response = tenant._http.get("/v1/memories/count?user_id=dana+work", headers=tenant.headers)
    assert refused(response, "query.user_id") == (
        "query.user_id: must be 1 to 256 letters, digits or _ . : @ + - "
        "(a + in a query string is read as a space: send it as %2B)")
    # The same space in a body is not a query string's.
    body = with_field(bodies(tenant)["/v1/search"], ("user_id",), "dana work")
    assert "%2B" not in refused(tenant.post("/v1/search", body), "body.user_id")


ID_ROUTES = [
    ("get", "/v1/turns/{}"), ("get", "/v1/backfills/{}"), ("get", "/v1/memories/{}"),
    ("get", "/v1/memories/{}/history"), ("get", "/v1/users/{}/memories"), ("get", "/v1/users/{}/sessions"),
    ("get", "/v1/sessions/{}/messages?user_id=u1"), ("delete", "/v1/memories/{}"),
    ("delete", "/v1/users/{}"), ("delete", "/v1/sessions/{}?user_id=u1"),
]


@pytest.mark.parametrize("method,route", ID_ROUTES)
@pytest.mark.parametrize("bad", ["a%20b", "nul%00", "emoji%F0%9F%98%80", "x" * 257, "a%2Bb%3D"])
def test_every_path_id_follows_the_same_rule(tenant, method, route, bad):
    response = getattr(tenant, method)(route.format(bad))
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"].startswith("path.")


@pytest.mark.parametrize("query,field", [("user_id=a%2Fb", "user_id"), ("user_id=", "user_id"),
                                         ("user_id=ok&agent_id=a%00b", "agent_id")])
def test_query_ids_follow_the_same_rule(tenant, query, field):
    refused(tenant.get(f"/v1/memories/count?{query}"), f"query.{field}")


def test_an_id_of_letters_digits_and_safe_punctuation_is_stored_listed_and_erased(tenant):
    user = "José.Ñoño_1+tag@example.com:东京-x"
    assert tenant.turn("I live in Lisbon.", user=user, session="séance:1").status_code == 201
    listed = tenant.get(f"/v1/users/{user}/memories").json()["memories"]
    assert listed and all(m["user_id"] == user for m in listed)
    assert tenant.get("/v1/memories/count", params={"user_id": user}).json()["count"] == len(listed)
    assert tenant.delete(f"/v1/users/{user}").status_code == 200
    assert tenant.get("/v1/memories/count", params={"user_id": user}).json()["count"] == 0


def test_deleting_a_session_requires_its_user(tenant):
    other = tenant.user + "-other"
    assert tenant.turn("I play the cello.", session="shared").status_code == 201
    assert tenant.turn("I play the drums.", session="shared", user=other).status_code == 201
    before = tenant.get(f"/v1/memories/count?user_id={other}").json()["count"]

    refused(tenant.delete("/v1/sessions/shared"), "query.user_id")
    refused(tenant.delete("/v1/sessions/shared?user_id="), "query.user_id")
    assert tenant.get(f"/v1/memories/count?user_id={other}").json()["count"] == before > 0

    assert tenant.delete(f"/v1/sessions/shared?user_id={tenant.user}").status_code == 200
    assert tenant.get(f"/v1/memories/count?user_id={tenant.user}").json()["count"] == 0
    assert tenant.get(f"/v1/memories/count?user_id={other}").json()["count"] == before


# --- strings Postgres would refuse, anywhere in a body -----------------------------------------

NUL_CASES = [
    ("/v1/turns", ("messages",), [{"role": "user", "content": "a\x00b"}], "body.messages.0.content"),
    ("/v1/turns", ("messages",), [{"role": "user", "content": "a", "name": "n\x00"}], "body.messages.0.name"),
    ("/v1/turns", ("messages",), [{"role": "user", "content": "a", "metadata": {"k\x00": 1}}],
     "body.messages.0.metadata.k\\u0000"),
    ("/v1/turns", ("messages",), [{"role": "user", "content": "a", "metadata": {"a": {"b": ["x", "y\x00"]}}}],
     "body.messages.0.metadata.a.b.1"),
    ("/v1/turns", ("metadata",), {"a": "\x00"}, "body.metadata.a"),
    ("/v1/turns", ("idempotency_key",), "key\x00", "body.idempotency_key"),
    ("/v1/memories", ("content",), "a\x00", "body.content"),
    ("/v1/memories", ("metadata",), {"x": {"\x00": True}}, "body.metadata.x.\\u0000"),
    ("/v1/search", ("query",), "where\x00", "body.query"),
    ("/v1/search", ("filters", "metadata"), {"k": "v\x00"}, "body.filters.metadata.k"),
    ("/v1/recall", ("query",), "\x00", "body.query"),
]


@pytest.mark.parametrize("route,field,value,named", NUL_CASES)
def test_a_nul_character_anywhere_is_refused_and_named(tenant, route, field, value, named):
    message = refused(tenant.post(route, with_field(bodies(tenant)[route], field, value)), named)
    assert "NUL" in message


@pytest.mark.parametrize("blank", [" \t\n ", "\u200b\u200d\ufeff\u00ad \u00a0"])  # spaces; invisible ones
@pytest.mark.parametrize("route,field", [("/v1/memories", ("content",)), ("/v1/search", ("query",)),
                                         ("/v1/recall", ("query",)), ("/v1/memories/search", ("query",))])
def test_a_memory_or_a_question_of_only_spaces_is_refused_and_named(tenant, route, field, blank):
    body = {**bodies(tenant), "/v1/memories/search": {"user_id": tenant.user, "query": "hello"}}[route]
    message = refused(tenant.post(route, with_field(body, field, blank)), f"body.{field[0]}")
    assert "blank" in message


@pytest.mark.parametrize("route", ["/v1/turns", "/v1/turns?wait=true", "/turns"])
def test_a_message_whose_content_is_null_is_refused_and_named_not_stored_empty(tenant, route):
    """null is no message, where "" is an empty one (stored as sent): the whole turn is refused."""
    body = {"user_id": tenant.user, "session_id": "s-null", "messages": [
        {"role": "user", "content": "I live in Oslo."}, {"role": "assistant", "content": None}]}
    response = tenant.post(route, body)
    message = refused(response, "body.messages.1.content")
    assert message == "body.messages.1.content: Input should be a valid string"
    if route == "/turns":  # the seed's FastAPI shape beside it
        assert response.json()["detail"][0]["loc"] == ["body", "messages", 1, "content"]
    sent = tenant.get("/v1/sessions/s-null/messages", params={"user_id": tenant.user})
    assert sent.status_code == 404  # nothing stored


RAW_CASES = [
    ('"messages": [{"role": "user", "content": "lone \\ud800 surrogate"}]', "body.messages.0.content"),
    ('"messages": [{"role": "user", "content": "a", "metadata": {"score": NaN}}]', "body.messages.0.metadata.score"),
    ('"messages": [{"role": "user", "content": "a", "metadata": {"x": [Infinity]}}]',
     "body.messages.0.metadata.x.0"),
    ('"messages": [{"role": "user", "content": "a"}], "metadata": {"\\udc00": 1}', "body.metadata.\\udc00"),
]


@pytest.mark.parametrize("fragment,named", RAW_CASES)
def test_json_postgres_cannot_store_is_refused(tenant, fragment, named):
    response = raw_post(tenant, "/v1/turns", f'{{"user_id": "{tenant.user}", "session_id": "s1", {fragment}}}')
    message = refused(response, named)
    if "surrogate" in fragment:
        assert message == f"{named}: must not contain unpaired surrogates (\\ud800-\\udfff)"


@pytest.mark.parametrize("route", ["/v1/memories", "/v1/turns", "/turns"])
def test_a_body_not_in_utf8_is_told_the_byte_and_the_encoding_to_send(tenant, route):
    # "café" from a Latin-1 or Windows-1252 client: FastAPI answered 400 "There was an error
    # parsing the body", which said nothing of what to fix.
    body = {"user_id": tenant.user, "session_id": "s1", "messages": [{"role": "user", "content": "café"}]}
    if route == "/v1/memories":
        body = {"user_id": tenant.user, "content": "café"}
    raw = json.dumps(body, ensure_ascii=False).encode("latin-1")
    response = tenant._http.post(route, content=raw, headers={**tenant.headers, "content-type": "application/json"})
    assert response.status_code == 422, response.text
    at = raw.index(b"\xe9")
    assert response.json()["error"]["message"] == (
        f"body: not valid UTF-8 (byte 0xe9 at byte {at}): send the JSON encoded as UTF-8")


def test_non_finite_numbers_are_refused(tenant):
    refused(raw_post(tenant, "/v1/memories", f'{{"user_id": "{tenant.user}", "content": "a", "importance": NaN}}'),
            "body.importance")
    refused(raw_post(tenant, "/v1/search", f'{{"user_id": "{tenant.user}", "query": "a", "alpha": Infinity}}'),
            "body.alpha")


@pytest.mark.parametrize("importance", ["5e-324", "1e-40", "-0.0"])
def test_an_importance_too_small_for_postgres_real_is_stored_as_zero(tenant, importance):
    # found by the reliability campaign's fuzzer: a subnormal double underflowed the `real` column (500)
    response = raw_post(tenant, "/v1/memories", f'{{"user_id": "{tenant.user}", "content": "a", "importance": {importance}}}')
    assert response.status_code == 201, response.text
    assert response.json()["importance"] == 0.0


def test_metadata_is_bounded_in_depth_and_size(tenant):
    deep: dict = {}
    for _ in range(models.METADATA_MAX_DEPTH + 1):
        deep = {"d": deep}
    message = refused(tenant.post("/v1/memories", {"user_id": tenant.user, "content": "a", "metadata": deep}),
                      "body.metadata" + ".d" * (models.METADATA_MAX_DEPTH + 1))
    assert "nested deeper" in message
    huge = {"blob": "x" * models.METADATA_MAX_BYTES}
    refused(tenant.post("/v1/memories", {"user_id": tenant.user, "content": "a", "metadata": huge}), "body.metadata")


LABELS = [
    ("/v1/turns", ("messages",), lambda value: [{"role": "user", "content": "a", "name": value}],
     "body.messages.0.name"),
    ("/v1/turns", ("idempotency_key",), lambda value: value, "body.idempotency_key"),
    ("/v1/turns", ("user_name",), lambda value: value, "body.user_name"),
    ("/v1/search", ("filters", "subject"), lambda value: value, "body.filters.subject"),
]


@pytest.mark.parametrize("route,field,sent,named", LABELS)
def test_a_name_or_key_too_long_is_told_its_length_in_characters(tenant, route, field, sent, named):
    # pydantic counted a bound set on an Optional field of checked text as "items" ("Value should
    # have at most 256 items after validation, not 300"), where an id's said characters.
    message = refused(tenant.post(route, with_field(bodies(tenant)[route], field, sent("n" * 300))), named)
    assert message == f"{named}: String should have at most 256 characters"


@pytest.mark.parametrize("route,field,sent,named", [label for label in LABELS if label[2]("") == ""])
def test_an_empty_key_or_name_is_told_its_length_in_characters(tenant, route, field, sent, named):
    message = refused(tenant.post(route, with_field(bodies(tenant)[route], field, "")), named)
    assert message == f"{named}: String should have at least 1 character"


@pytest.mark.parametrize("count,said", [(0, "at least 1 item, not 0"), (1001, "at most 1000 items, not 1001")])
def test_a_turn_of_no_messages_or_too_many_is_told_so_in_items(tenant, count, said):
    # pydantic says "List should have at least 1 item after validation, not 0" (qa6): after nothing the
    # caller sent.
    messages = [{"role": "user", "content": "a"}] * count
    message = refused(tenant.post("/v1/turns", with_field(bodies(tenant)["/v1/turns"], ("messages",), messages)),
                      "body.messages")
    assert message == f"body.messages: List should have {said}"


# --- numbers and times ------------------------------------------------------------------------

@pytest.mark.parametrize("half_life", [1e-300, 5e-324, 0.001, 1e9])
def test_a_half_life_outside_its_range_is_refused(tenant, half_life):
    refused(tenant.post("/v1/search", {"user_id": tenant.user, "query": "a", "half_life_days": half_life}),
            "body.half_life_days")


def test_the_shortest_half_life_scores_without_error(tenant):
    tenant.turn("I moved to Porto years ago.", timestamp="2001-01-01T00:00:00Z")
    results = tenant.search("Porto", half_life_days=0.01)
    assert results and results[0]["score_parts"]["recency"] == 0.0


def test_every_number_in_a_request_has_bounds():
    for model in (models.MessageIn, models.TurnIn, models.MemoryIn, models.SearchFilters, models.SearchIn,
                  models.RecallIn):
        for name, field in model.model_fields.items():
            kinds = set(typing.get_args(field.annotation)) or {field.annotation}
            if kinds & {int, float}:
                bounds = {type(m) for m in field.metadata}
                assert bounds & {Ge, Gt} and bounds & {Le, Lt}, f"{model.__name__}.{name} is unbounded"



NUMBERS = [("/v1/search", "top_k"), ("/v1/search", "alpha"), ("/v1/search", "half_life_days"),
           ("/v1/recall", "max_tokens"), ("/v1/memories", "importance"), ("/v1/memories/search", "top_k"),
           ("/v1/memories/search", "alpha"), ("/recall", "max_tokens"), ("/search", "top_k")]


@pytest.mark.parametrize("route,field", NUMBERS)
@pytest.mark.parametrize("flag", [True, False])
def test_a_boolean_sent_for_a_number_is_refused_and_named(tenant, route, field, flag):
    # pydantic took true for 1 and false for 0: "top_k": true asked for one result.
    body = {"user_id": tenant.user, **({"content": "hello"} if route == "/v1/memories" else {"query": "hello"})}
    message = refused(tenant.post(route, {**body, field: flag}), f"body.{field}")
    assert message == f"body.{field}: must be a number, not {json.dumps(flag)}"


def test_every_number_of_a_request_refuses_a_boolean():
    for model in (models.MessageIn, models.TurnIn, models.MemoryIn, models.MemoryPostIn, models.SearchFilters,
                  models.SearchIn, models.MemexSeedSearchIn, models.RecallIn):
        for name, field in model.model_fields.items():
            kinds = set(typing.get_args(field.annotation)) or {field.annotation}
            if kinds & {int, float}:
                with pytest.raises(pydantic.ValidationError) as refusal:
                    model.__pydantic_validator__.validate_assignment(model.model_construct(), name, True)
                assert [(p["loc"], p["msg"]) for p in refusal.value.errors()] == [
                    ((name,), "Value error, must be a number, not true")], f"{model.__name__}.{name}"


FLAGS = [("/v1/search", "include_inactive"), ("/v1/recall", "require_relevant")]
SEED_FLAGS = [("/search", "include_inactive", models.SeedSearchIn), ("/recall", "require_relevant", models.SeedRecallIn)]


@pytest.mark.parametrize("route,field", FLAGS)
@pytest.mark.parametrize("value", [1, 0, "yes", "on", "t", 1.0, "true", "TRUE", "False"])
def test_a_number_or_a_word_sent_for_a_boolean_is_refused_and_named(tenant, route, field, value):
    # pydantic took 1, "yes", "on" and "t" for true: "include_inactive": 1 read the history. A JSON
    # body has its booleans: "true" is a string there, as a query string's words are not.
    message = refused(tenant.post(route, {"user_id": tenant.user, "query": "hello", field: value}), f"body.{field}")
    assert message == f"body.{field}: must be true or false, not {json.dumps(value)}"


@pytest.mark.parametrize("route,field,model", SEED_FLAGS)
def test_a_seed_route_reads_a_boolean_as_the_seed_did(tenant, route, field, model):
    # The seeds' models took pydantic's bool, and their clients may send "true": v1 refuses it (above).
    for value, read in [("true", True), ("false", False), ("yes", True), (0, False), (True, True)]:
        body = {"user_id": tenant.user, "query": "hello", field: value}
        answer = tenant.post(route, body)
        assert answer.status_code == 200, (value, answer.text)
        assert getattr(model(**body), field) is read


@pytest.mark.parametrize("path", ["/v1/users/{user}/memories?include_inactive={v}",
                                  "/v1/memories/count?user_id={user}&include_inactive={v}"])
def test_a_boolean_of_a_query_string_is_true_or_false(tenant, path):
    for value in ("1", "yes", "on"):
        refused(tenant.get(path.format(user=tenant.user, v=value)), "query.include_inactive")
    for value in ("true", "false", "True"):
        assert tenant.get(path.format(user=tenant.user, v=value)).status_code == 200
    queued = tenant.post("/v1/turns?wait=1", {"user_id": tenant.user, "session_id": "s1",
                                                "messages": [{"role": "user", "content": "I live in Oslo."}]})
    assert refused(queued, "query.wait") == 'query.wait: must be true or false, not "1"'


def test_every_boolean_of_a_request_refuses_a_number():
    # The seed routes' models are not among them: they take what the seeds took (SEED_FLAGS).
    for model in (models.MessageIn, models.TurnIn, models.MemoryIn, models.MemoryPostIn, models.SearchFilters,
                  models.SearchIn, models.MemexSeedSearchIn, models.RecallIn):
        for name, field in model.model_fields.items():
            if bool in (set(typing.get_args(field.annotation)) or {field.annotation}):
                with pytest.raises(pydantic.ValidationError) as refusal:
                    model.__pydantic_validator__.validate_assignment(model.model_construct(), name, 1)
                assert [(p["loc"], p["msg"]) for p in refusal.value.errors()] == [
                    ((name,), "Value error, must be true or false, not 1")], f"{model.__name__}.{name}"


FUTURE = (datetime.now(timezone.utc) + timedelta(days=3)).isoformat()


@pytest.mark.parametrize("when", ["9999-12-31T23:59:59Z", FUTURE, "1899-12-31T23:59:59Z",
                                  "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_timestamps_out_of_range_are_refused(tenant, when):
    refused(tenant.turn("I live in Oslo.", timestamp=when), "body.timestamp")
    refused(tenant.post("/v1/search", {"user_id": tenant.user, "query": "a", "reference_time": when}),
            "body.reference_time")
    refused(tenant.post("/v1/recall", {"user_id": tenant.user, "query": "a", "reference_time": when}),
            "body.reference_time")


def test_a_time_too_far_ahead_is_told_the_allowed_skew_in_seconds(tenant):
    message = refused(tenant.turn("I live in Oslo.", timestamp=FUTURE), "body.timestamp")
    assert message == (f"body.timestamp: must not be more than {int(models.CLOCK_SKEW.total_seconds())} s "
                       "ahead of the server's clock")


def test_a_timestamp_within_the_allowed_skew_is_accepted(tenant):
    soon = (datetime.now(timezone.utc) + timedelta(hours=1)).isoformat()
    assert tenant.turn("I live in Oslo.", timestamp=soon).status_code == 201


# --- cursors ----------------------------------------------------------------------------------

def encoded(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


WRONG_CURSORS = [
    "garbage!", "AAAA", encoded([1, 2]), encoded({"a": 1}), encoded("x"), encoded(["not a date", "m1"]),
    encoded(["2026-01-01T00:00:00", "m1"]), encoded(["2026-01-01T00:00:00+00:00", "m\x00"]),
    encoded(["2026-01-01T00:00:00+00:00", "m1", "extra"]), encoded(["2026-01-01T00:00:00+00:00", 7]),
    base64.urlsafe_b64encode(b"\xff\xfe").decode(), "ñ",
]


@pytest.mark.parametrize("cursor", WRONG_CURSORS)
def test_a_wrong_cursor_gets_one_plain_answer(tenant, cursor):
    response = tenant.get(f"/v1/users/{tenant.user}/memories", params={"cursor": cursor})
    assert response.status_code == 422, response.text
    assert response.json() == {"error": {"code": "validation_error", "message": CURSOR_REFUSED}}


def test_an_issued_cursors_key_pushed_out_of_range_gets_the_same_plain_answer(tenant):
    """A cursor is the client's to send back: each listing's key read out of one it was issued and
    pushed past what a time or a position can be (a number of microseconds past Postgres's, or
    Python's, years; a time at either end of the calendar) is one this server did not issue, or
    an ordinary place to start: never a 500."""
    tenant.turn("I like tea.", "I like jazz.", session="s1", timestamp="2026-03-01T10:00:00Z")
    tenant.turn("I like chess.", session="s2", timestamp="2026-03-02T10:00:00Z")
    listings = [(f"/v1/users/{tenant.user}/memories", {}), (f"/v1/users/{tenant.user}/sessions", {}),
                (f"/v1/users/{tenant.user}/turns", {}), ("/v1/sessions/s1/messages", {"user_id": tenant.user})]
    for path, params in listings:
        issued = tenant.get(path, params={**params, "limit": 1}).json()["next_cursor"]
        key = json.loads(base64.urlsafe_b64decode(issued + "=" * (-len(issued) % 4)))
        tampered = [[*key[:1], at, *key[2:]] for at in ("0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59")]
        tampered += [[*key[:3], n] for n in (10**30, -10**18, 2**63, -2**63 - 1)] if len(key) == 4 else []
        for cursor in tampered:
            response = tenant.get(path, params={**params, "cursor": encoded(cursor)})
            assert response.status_code in (200, 422), (path, cursor, response.text)
            if response.status_code == 422:
                assert response.json()["error"]["message"] == CURSOR_REFUSED, (path, cursor)


def test_the_cursors_the_server_issues_page_through_everything(tenant):
    tenant.turn("I like tea.", "I like jazz.", "I like chess.")
    seen, cursor = [], None
    while True:
        params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        page = tenant.get(f"/v1/users/{tenant.user}/memories", params=params)
        assert page.status_code == 200, page.text
        seen += [m["id"] for m in page.json()["memories"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == tenant.get(f"/v1/memories/count?user_id={tenant.user}").json()["count"]


# --- what reaches the text index ---------------------------------------------------------------

def distinct_words(n_chars: int) -> str:
    """Random five-letter words: ~640 K characters of them no longer fit one tsvector."""
    rnd = random.Random(7)
    return " ".join("".join(rnd.choice(string.ascii_lowercase) for _ in range(5)) for _ in range(n_chars // 6))


def test_a_memory_of_a_megabyte_of_distinct_words_is_stored_and_found_by_its_beginning(tenant):
    content = "zanzibarian " + distinct_words(1_000_000)
    response = tenant.post("/v1/memories", {"user_id": tenant.user, "content": content})
    assert response.status_code == 201, response.text[:300]
    assert len(tenant.get(f"/v1/memories/{response.json()['id']}").json()["content"]) == len(content)
    hits = tenant.search("zanzibarian", mode="bm25")
    assert [h["id"] for h in hits] == [response.json()["id"]]


def test_a_turn_too_large_for_one_tsvector_is_processed(tenant, runtime):
    # over MEMEX_INLINE_MAX_CHARS: queued (202), and processed by the workers
    response = tenant.turn("quetzalcoatlus " + distinct_words(900_000))
    assert response.status_code == 202, response.text[:300]
    runtime.drain()
    assert tenant.get(f"/v1/turns/{response.json()['turn_id']}").json()["status"] == "processed"
    assert tenant.search("quetzalcoatlus", mode="bm25")


# --- the database unreachable, then back ------------------------------------------------------

class Outage:
    """A loopback TCP relay in front of the test Postgres that can fail like a restarting server:
    while down it cuts every open connection and hangs up on new ones."""

    def __init__(self, dsn: str):
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        params = conninfo_to_dict(dsn)
        host, port = params.get("host") or "localhost", int(params.get("port") or 5432)
        self._target = (socket.AF_UNIX, f"{host}/.s.PGSQL.{port}") if host.startswith("/") else \
            (socket.AF_INET, (host, port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._links: list[socket.socket] = []
        self.up = True
        threading.Thread(target=self._accept, daemon=True).start()
        self.dsn = make_conninfo(dsn, host="127.0.0.1", port=self._listener.getsockname()[1])

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            server = socket.socket(self._target[0], socket.SOCK_STREAM)
            server.connect(self._target[1])
            self._links += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def down(self) -> None:
        self.up = False
        for link in self._links:
            try:
                link.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._links.clear()

    def close(self) -> None:
        self.down()
        self._listener.close()


def every_route(user: str) -> list[tuple[str, str, dict | None]]:
    message = [{"role": "user", "content": "hello"}]
    return [
        ("POST", "/v1/turns", {"user_id": user, "session_id": "s1", "messages": message}),
        ("GET", "/v1/turns/t1", None),
        ("POST", "/v1/memories", {"user_id": user, "content": "hello"}),
        ("GET", "/v1/backfills/b1", None),
        ("GET", f"/v1/backfills?user_id={user}", None),
        ("POST", "/v1/search", {"user_id": user, "query": "hello"}),
        ("GET", f"/v1/memories/count?user_id={user}", None),
        ("GET", "/v1/memories/m1", None),
        ("GET", "/v1/memories/m1/history", None),
        ("GET", f"/v1/users/{user}/memories", None),
        ("GET", f"/v1/users/{user}/sessions", None),
        ("GET", f"/v1/users/{user}/turns", None),
        ("POST", "/v1/recall", {"user_id": user, "query": "hello"}),
        ("DELETE", "/v1/memories/m1", None),
        ("GET", f"/v1/sessions/s1/messages?user_id={user}", None),
        ("DELETE", f"/v1/sessions/s1?user_id={user}", None),
        ("DELETE", f"/v1/users/{user}-gone", None),
        ("GET", "/health", None),
        # the compatibility routes
        ("POST", "/turns", {"user_id": user, "session_id": "s1", "messages": message}),
        ("POST", "/search", {"user_id": user, "query": "hello"}),
        ("POST", "/recall", {"user_id": user, "query": "hello"}),
        ("GET", f"/users/{user}/memories", None),
        ("DELETE", "/sessions/s1", None),
        ("DELETE", f"/users/{user}-gone", None),
        ("POST", "/v1/memories/search", {"user_id": user, "query": "hello", "top_k": 5, "alpha": 0.7}),
    ]


def test_with_the_database_unreachable_every_route_answers_503_and_recovers(ctx, tenant):
    from fastapi.testclient import TestClient

    from infra.local.runtime import HTTP_FUNCTIONS, function_module
    from memex.db.connection import Database
    from memex_edge.http.app import create_app

    outage = Outage(ctx.db.dsn)
    isolated = dataclasses.replace(ctx, db=Database(lambda: outage.dsn))
    app = create_app(*(function_module(name).router for name in HTTP_FUNCTIONS), provide=lambda: isolated)
    routes = every_route(tenant.user)
    # trailing slash, HEAD, metrics, body limit, app
    declared = sum(len(methods) for methods in app.app.app.app.app.openapi()["paths"].values())
    assert declared == len(routes), "every route of the app is in every_route()"

    def answers(client) -> list[tuple[str, str, int, dict]]:
        return [(method, path, (r := client.request(method, path, json=body, headers=tenant.headers)).status_code,
                 r.json()) for method, path, body in routes]

    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            assert all(status < 500 for _, _, status, _ in answers(client))
            outage.down()
            for method, path, status, body in answers(client):
                assert status == 503, (method, path, body)
                if path != "/health":  # the health report names each dependency's state instead
                    error = {"code": "database_unavailable", "message": "the database is unavailable; retry later"}
                    # a compatibility route adds the seed's `detail`
                    v1 = path.startswith("/v1/") and path != "/v1/memories/search"
                    seed = {} if v1 else {"detail": error["message"]}
                    assert body == {**seed, "error": error}, (method, path)
            response = client.get("/v1/memories/m1", headers=tenant.headers)
            assert response.headers["retry-after"].isdigit()
            outage.up = True
            for method, path, status, body in answers(client):
                assert status < 500, (method, path, body)
    finally:
        outage.close()


def test_after_one_connection_finds_the_server_gone_every_thread_reconnects(ctx):
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    from memex.db.connection import Database

    outage = Outage(ctx.db.dsn)
    db = Database(lambda: outage.dsn)
    first, second = ThreadPoolExecutor(1), ThreadPoolExecutor(1)

    def ask() -> int:
        return db.connection().execute("SELECT 1 AS one").fetchone()["one"]

    try:
        assert first.submit(ask).result() == second.submit(ask).result() == 1
        outage.down()  # a restart: every open connection is cut, new ones are accepted again
        outage.up = True
        with pytest.raises(psycopg.OperationalError):
            first.submit(ask).result()
        db.discard_all()  # what the HTTP edge does on a lost connection
        assert second.submit(ask).result() == 1
    finally:
        first.shutdown()
        second.shutdown()
        outage.close()


def test_a_failure_shown_to_a_client_carries_no_internal_text(ctx, tenant):
    from fastapi.testclient import TestClient

    from infra.local.runtime import HTTP_FUNCTIONS, function_module
    from memex.config import Settings
    from memex.embeddings import make_embedder
    from memex_edge.http.app import create_app
    from bench.openai_double import OpenAIDouble

    with OpenAIDouble(dim=ctx.settings.embedding_dim) as embedder_api:
        embedder_api.script("/v1/embeddings", status=400,
                            body={"error": {"message": "upstream http://10.1.2.3:8080/v1 refused the batch"}})
        failing = dataclasses.replace(ctx, embedder=make_embedder(Settings(
            embeddings_provider="openai", embeddings_base_url=embedder_api.base_url, embeddings_model="m",
            embedding_dim=ctx.settings.embedding_dim)))
        app = create_app(*(function_module(name).router for name in HTTP_FUNCTIONS), provide=lambda: failing)
        with TestClient(app, raise_server_exceptions=False) as client:
            turn = {"user_id": tenant.user, "session_id": "s1", "messages": [{"role": "user", "content": "Hi."}]}
            answer = client.post("/v1/turns?wait=true", headers=tenant.headers, json=turn)
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    assert answer.json()["error"] == ("processing inline failed (BadRequestError); "
                                      "the turn is queued and will be retried")


def test_a_refused_id_is_told_the_rule_once():
    with pytest.raises(ValueError) as refusal:
        models._id("a/b")
    assert str(refusal.value) == "must be 1 to 256 letters, digits or _ . : @ + -"


@pytest.mark.parametrize("route", ["/v1/search", "/search"])
def test_a_json_body_sent_as_a_form_is_told_which_header_to_send(tenant, route):
    # curl -d without -H sends application/x-www-form-urlencoded; FastAPI then reads the JSON as
    # raw bytes, and its "Input should be a valid dictionary" said nothing of the header.
    body = json.dumps({"user_id": tenant.user, "query": "employer"})
    response = tenant._http.post(route, content=body, headers={
        **tenant.headers, "content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"] == (
        "body: send JSON with content-type: application/json (this request's content-type is "
        "application/x-www-form-urlencoded)")


@pytest.mark.parametrize("route", ["/v1/turns", "/turns"])
def test_a_body_that_is_not_json_is_told_so_and_where(tenant, route):
    # FastAPI files the parser's offset where a field would go, ("body", 12): said as "body.12",
    # it read as a field named 12.
    response = raw_post(tenant, route, '{"user_id": }')
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"] == "body: not valid JSON (Expecting value at character 12)"


@pytest.mark.parametrize("route", ["/v1/memories", "/turns"])
def test_a_body_nested_too_deeply_to_parse_is_told_so_as_other_json_it_cannot_read(tenant, route):
    # 5,000 levels: Python's parser gives up (RecursionError), and FastAPI answered 400 bad_request
    # "There was an error parsing the body", where other JSON it cannot read gets a 422 naming the body.
    response = raw_post(tenant, route, '{"a":' * 5000 + "1" + "}" * 5000)
    assert response.status_code == 422, response.text
    message = (f"body: not valid JSON here (nested too deeply to parse; metadata may nest at most "
               f"{models.METADATA_MAX_DEPTH} levels)")
    assert response.json()["error"] == {"code": "validation_error", "message": message}
    if route == "/turns":
        assert response.json()["detail"] == [{"loc": ["body"], "msg": message, "type": "json_invalid"}]
