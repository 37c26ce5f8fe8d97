"""/openapi.json is the truth: a valid OpenAPI document whose every operation declares its answers
and errors, checked against what the running routes really send (schemathesis validates each
response: its status is documented, its body matches the schema), with no key the schema does not
name. /docs works offline."""

from __future__ import annotations

import copy
import json
import re
import uuid

import jsonschema
import jsonschema_rs
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate

from memex import backfill as backfills
from memex import tenants
from memex.models import ID_PATTERN, is_id
from tests.conftest import WIRE_TIMES
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

PATH_PARAM = re.compile(r"\{[^}]+\}")


@pytest.fixture(scope="module")
def spec(http) -> dict:
    response = http.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture(scope="module")
def checked(spec):
    return schemathesis.openapi.from_dict(spec)


def test_the_document_is_valid_openapi_with_a_bearer_scheme(spec):
    validate(spec)
    assert spec["components"]["securitySchemes"]["apiKey"] == {
        "type": "http", "scheme": "bearer", "description": spec["components"]["securitySchemes"]["apiKey"]["description"]}


def test_every_operation_declares_its_answer_its_errors_and_the_key(spec):
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            responses = operation["responses"]
            ok = [status for status in responses if status.startswith("2")]
            assert ok and all("$ref" in responses[s]["content"]["application/json"]["schema"] for s in ok), where
            if path == "/health":
                assert "security" not in operation and set(responses) == {"200", "503"}
                continue
            assert operation["security"] == [{"apiKey": []}], where
            assert {"401", "422", "429", "503"} <= set(responses), where
            if "requestBody" in operation:
                assert "413" in responses, where
            seed = "seed" in " ".join(operation["tags"])
            error = "SeedErrorBody" if seed else "ErrorBody"
            for status in ("401", "422", "429", "503"):
                assert responses[status]["content"]["application/json"]["schema"] == {
                    "$ref": f"#/components/schemas/{error}"}, (where, status)
    # FastAPI's own 422 shape, which memex never sends, is described nowhere
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    created = {f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m, op in ops.items() if "201" in op["responses"]}
    assert {"POST /v1/turns", "POST /v1/memories", "POST /turns"} <= created
    assert "409" in spec["paths"]["/v1/turns"]["post"]["responses"]
    assert "404" in spec["paths"]["/v1/memories/{memory_id}"]["get"]["responses"]


def _misdirected(document: dict) -> list[str]:
    """The operations whose answers the document says include 421."""
    return [f"{m.upper()} {p}" for p, ops in document["paths"].items() for m, op in ops.items()
            if "421" in op["responses"]]


def test_the_421_is_declared_where_a_request_can_get_it_on_loopback_while_no_key_is_needed(keyless, spec):
    """A server on loopback answers 421 to a request without a key whose Host names another host while
    it answers requests without one (DNS rebinding: tests/test_api.py), on every route, /health too,
    and its document says so. Off loopback, once a key exists, while the default tenant is deleted, or
    with MEMEX_REQUIRE_API_KEY (the suite's server, `spec`), no request gets it, and the document served
    there does not declare it."""
    import dataclasses

    from memex.keys import create_key
    from tests.conftest import local_server

    assert _misdirected(spec) == []
    with local_server(keyless, loopback=False) as off_loopback:
        assert _misdirected(off_loopback.get("/openapi.json").json()) == []
    with local_server(keyless, loopback=True) as client:
        assert client.post("/v1/memories", json={"user_id": "alice", "content": "I live in Oslo."},
                           headers={"Host": "localhost:8080"}).status_code == 201
        document = client.get("/openapi.json", headers={"Host": "localhost:8080"}).json()
        assert document["paths"].keys() == spec["paths"].keys()
        for path, operations in document["paths"].items():
            for method, operation in operations.items():
                misdirected = operation["responses"].get("421")
                assert misdirected, f"{method.upper()} {path}"
                assert misdirected["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/ErrorBody"}
                assert "misdirected_request" in misdirected["description"]
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 421
        required = dataclasses.replace(keyless, settings=dataclasses.replace(keyless.settings, require_api_key=True))
        tenants.delete(required, keyless.settings.default_tenant)
        assert _misdirected(client.get("/openapi.json").json()) == []
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 200
        create_key(keyless, keyless.settings.default_tenant)
        assert _misdirected(client.get("/openapi.json").json()) == []
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 200


def test_a_search_result_declares_what_of_its_message_is_no_longer_current(spec):
    scored = spec["components"]["schemas"]["ScoredMemory"]
    field = scored["properties"]["no_longer_current"]
    assert field["type"] == "array" and field["items"] == {"type": "string"}
    assert "no_longer_current" in scored["required"] and "replaced or ended" in field["description"]


def test_the_turn_as_sent_is_described_field_by_field(spec):
    """A client typed from the document learns what each of the turn's own fields holds, and
    that a queued POST's answer has none of them."""
    fields = spec["components"]["schemas"]["TurnAnswer"]["properties"]
    turn_as_sent = ("user_id", "session_id", "agent_id", "occurred_at", "metadata")
    undescribed = [name for name in turn_as_sent if not fields[name].get("description")]
    assert undescribed == []
    assert "queued" in fields["user_id"]["description"]


# Accepted: letters of any script, a combining mark, other numbers, the punctuation of emails and URNs;
# refused: a space, a slash, other ASCII punctuation, a control character, and beyond ASCII, where the
# pattern leaves the rule to the server, an invisible format character, a symbol.
ID_SAMPLES = ["ada", "ada.lovelace@example.com", "urn:acme:user-7+x", "zoë", "e\u0301", "٣٤", "김민준",
              "a b", "a/b", "a#b", "a\tb", "a\u200bb", "😀"]


def _ref(spec: dict, schema: dict) -> dict:
    return spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema


def _refuses_ascii(text: str) -> bool:
    return any(ch.isascii() and not is_id(ch) for ch in text)


def test_every_id_declares_the_ascii_characters_the_server_refuses(http, tenant, spec):
    """user_id, session_id and agent_id had only their lengths in the document: a client checking first
    learnt nothing of the rule. Each carries models.ID_PATTERN, which a JSON Schema validator (ECMA-262, the
    Rust regex of jsonschema_rs; Python's re, jsonschema's) reads as the server's rule in ASCII: every id the
    server accepts matches it, one with an ASCII character the server refuses does not."""
    turn = _ref(spec, spec["paths"]["/v1/turns"]["post"]["requestBody"]["content"]["application/json"]["schema"])
    user_id = turn["properties"]["user_id"]
    assert user_id["pattern"] == turn["properties"]["session_id"]["pattern"] == ID_PATTERN
    assert [each["pattern"] for each in turn["properties"]["agent_id"]["anyOf"] if each.get("type") == "string"] \
        == [ID_PATTERN]
    listing = {p["name"]: p["schema"] for p in spec["paths"]["/v1/users/{user_id}/memories"]["get"]["parameters"]}
    assert listing["user_id"]["pattern"] == ID_PATTERN
    ecma, python = jsonschema_rs.validator_for(user_id), jsonschema.Draft202012Validator(user_id)
    for sample in ID_SAMPLES:
        answer = tenant.get("/v1/memories/count", params={"user_id": sample})
        assert answer.status_code in (200, 422), answer.text
        accepted = answer.status_code == 200
        for validator in (ecma, python):
            assert validator.is_valid(sample) == (accepted or not _refuses_ascii(sample)), (sample, answer.text)
    assert ecma.is_valid("a" * 256) and not ecma.is_valid("a" * 257)


@settings(max_examples=500, deadline=None)
# No lone surrogate: UTF-8 cannot carry one to the server, and jsonschema_rs cannot encode it to read it.
@given(st.text(st.characters(max_codepoint=0x7f) | st.characters(exclude_categories=["Cs"]), max_size=12))
def test_the_id_pattern_is_read_alike_and_refuses_what_is_id_refuses_in_ascii(text):
    """Every id is_id accepts matches ID_PATTERN, and none with an ASCII character it refuses, read by
    Python's re and by ECMA-262 (jsonschema_rs); Python's re differs on a final newline alone ($ matches
    before it), as models.ID_PATTERN says."""
    ecma = jsonschema_rs.validator_for({"type": "string", "pattern": ID_PATTERN}).is_valid(text)
    python = re.search(ID_PATTERN, text) is not None
    assert ecma or not is_id(text)
    assert ecma == (bool(text) and not _refuses_ascii(text))
    assert python == (ecma or (text.endswith("\n") and bool(text[:-1]) and not _refuses_ascii(text[:-1])))


def _closed(schema: dict) -> dict:
    """The schema with every object that names its properties closed to others: a key the
    domain sends but the document does not declare fails validation."""
    schema = copy.deepcopy(schema)

    def close(node):
        if isinstance(node, dict):
            if "properties" in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema.get("components", {}).get("schemas", {}))
    return schema


class Recorder:
    """Sends requests and checks each answer against the document: schemathesis for the status
    and the schema, then the closed schema for undeclared keys and for times in any form but
    WIRE_TIME's."""

    def __init__(self, http, tenant, spec, checked):
        self.http, self.tenant, self.spec, self.checked = http, tenant, spec, checked
        self.closed = _closed(spec)
        self.seen: set[tuple[str, str, int]] = set()

    def __call__(self, method: str, template: str, path: str | None = None, body=None, *, status: int,
                 headers: dict | None = None, content: bytes | None = None):
        headers = self.tenant.headers if headers is None else headers
        kwargs = {"content": content, "headers": {**headers, "content-type": "application/json"}} if content \
            else {"json": body, "headers": headers}
        response = self.http.request(method, path or template, **kwargs)
        where = f"{method} {path or template}: {response.status_code} {response.text[:300]}"
        assert response.status_code == status, where
        operation = self.checked[template][method]
        self.checked.validate_response(operation, schemathesis.Response.from_any(response))
        declared = self.spec["paths"][template][method.lower()]["responses"][str(status)]
        schema = {**declared["content"]["application/json"]["schema"], "components": self.closed["components"]}
        jsonschema.validate(response.json(), schema, cls=jsonschema.Draft202012Validator, format_checker=WIRE_TIMES)
        self.seen.add((method, template, status))
        return response.json()


def test_real_answers_of_every_route_match_the_document(http, tenant, spec, checked, runtime, ctx):
    call = Recorder(http, tenant, spec, checked)
    user, other = tenant.user, f"{tenant.user}-x"
    turn = {"user_id": user, "session_id": "s1", "idempotency_key": "k1", "timestamp": "2026-03-01T10:00:00Z", "messages": [
        {"role": "user", "content": "I work at Stripe. My dog is called Biscuit.", "metadata": {"id": "m-1"}}]}

    queued = call("POST", "/v1/turns", body={**turn, "user_id": other, "idempotency_key": None}, status=202)
    runtime.drain()
    call("GET", "/v1/turns/{turn_id}", f"/v1/turns/{queued['turn_id']}", status=200)
    processed = call("POST", "/v1/turns", "/v1/turns?wait=true", turn, status=201)
    call("POST", "/v1/turns", "/v1/turns?wait=true", {**turn, "session_id": "s2"}, status=409)
    call("POST", "/v1/turns", body={**turn, "messages": [{"role": "robot", "content": "x"}]}, status=422)
    call("POST", "/v1/turns", content=b"{" + b" " * 1_100_000 + b"}", status=413)
    call("POST", "/v1/turns", body=turn, status=401, headers={"Authorization": "Bearer mx_wrong"})
    call("GET", "/v1/turns/{turn_id}", "/v1/turns/nope", status=404)
    later = call("POST", "/turns", body={"user_id": user, "session_id": "s3", "timestamp": "2026-05-01T10:00:00Z",
                                         "messages": [{"role": "user", "content": "I just started at Notion."}]},
                 status=201)
    call("POST", "/turns", body={"session_id": "s3"}, status=422)

    memory = call("POST", "/v1/memories", body={"user_id": user, "content": "Prefers tea", "importance": 1.2},
                  status=201)
    call("GET", "/v1/memories/{memory_id}", f"/v1/memories/{memory['id']}", status=200)
    call("GET", "/v1/memories/{memory_id}", "/v1/memories/nope", status=404)
    employer = next(m for m in later["memories"] if m["key"] == "employer")
    history = call("GET", "/v1/memories/{memory_id}/history", f"/v1/memories/{employer['id']}/history", status=200)
    assert [m["value"] for m in history["history"]] == ["Stripe", "Notion"]
    call("GET", "/v1/memories/count", f"/v1/memories/count?user_id={user}", status=200)
    call("GET", "/v1/users/{user_id}/memories", f"/v1/users/{user}/memories?include_inactive=true&limit=2", status=200)
    call("GET", "/v1/users/{user_id}/memories", f"/v1/users/{user}/memories?cursor=bogus", status=422)
    call("GET", "/users/{user_id}/memories", f"/users/{user}/memories", status=200)
    call("GET", "/v1/users/{user_id}/sessions", f"/v1/users/{user}/sessions?limit=1", status=200)
    call("GET", "/v1/users/{user_id}/sessions", f"/v1/users/{user}/sessions?cursor=bogus", status=422)
    call("GET", "/v1/users/{user_id}/turns", f"/v1/users/{user}/turns?limit=1", status=200)
    call("GET", "/v1/users/{user_id}/turns", f"/v1/users/{user}/turns?cursor=bogus", status=422)
    call("GET", "/v1/sessions/{session_id}/messages", f"/v1/sessions/s1/messages?user_id={user}&limit=1", status=200)
    call("GET", "/v1/sessions/{session_id}/messages", f"/v1/sessions/nope/messages?user_id={user}", status=404)
    call("GET", "/v1/sessions/{session_id}/messages", f"/v1/sessions/s1/messages?user_id={user}&cursor=bogus",
         status=422)

    for mode in ("hybrid", "bm25", "vector"):
        found = call("POST", "/v1/search", body={"user_id": user, "query": "dog Biscuit", "mode": mode}, status=200)
        assert found["results"], mode
    call("POST", "/search", body={"user_id": user, "query": "employer", "include_inactive": True}, status=200)
    call("POST", "/v1/memories/search", body={"agent_id": "a1", "user_id": user, "query": "tea", "top_k": 3,
                                               "alpha": 0.7}, status=200)
    call("POST", "/v1/memories/search", body={"user_id": user}, status=422)
    call("POST", "/v1/recall", body={"user_id": user, "query": "work", "session_id": "s1"}, status=200)
    # a session whose turn the workers have not processed: its message is cited without a memory id
    call("POST", "/v1/turns", body={**turn, "session_id": "s4", "idempotency_key": None}, status=202)
    unprocessed = call("POST", "/v1/recall", body={"user_id": user, "query": "work", "session_id": "s4"}, status=200)
    assert [c["memory_id"] for c in unprocessed["citations"] if c["bucket"] == "recent"] == [None], unprocessed
    call("POST", "/recall", body={"user_id": user, "query": "work", "max_tokens": 10}, status=422)
    call("POST", "/recall", body={"user_id": user, "query": "work"}, status=200)
    call("POST", "/recall", body={"user_id": user, "query": "work"}, status=401, headers={})

    backfill = f"bf-{uuid.uuid4().hex[:8]}"
    call("GET", "/v1/backfills/{backfill_id}", f"/v1/backfills/{backfill}", status=404)
    job = backfills.new_job("reembed", tenant.id, user_id=user)
    backfills.run_chunk(ctx, job)
    listed = call("GET", "/v1/backfills", f"/v1/backfills?user_id={user}&limit=1", status=200)
    assert [b["backfill_id"] for b in listed["backfills"]] == [job.backfill_id]
    call("GET", "/v1/backfills", "/v1/backfills?cursor=bogus", status=422)
    call("GET", "/v1/backfills/{backfill_id}", f"/v1/backfills/{job.backfill_id}", status=200)
    call("GET", "/health", status=200)

    call("DELETE", "/v1/memories/{memory_id}", f"/v1/memories/{memory['id']}", status=200)
    call("DELETE", "/v1/memories/{memory_id}", f"/v1/memories/{memory['id']}", status=404)
    call("DELETE", "/v1/sessions/{session_id}", f"/v1/sessions/s1?user_id={user}", status=200)
    call("DELETE", "/v1/sessions/{session_id}", "/v1/sessions/s1", status=422)
    call("DELETE", "/sessions/{session_id}", "/sessions/s3", status=200)
    call("DELETE", "/v1/users/{user_id}", f"/v1/users/{other}", status=200)
    call("DELETE", "/users/{user_id}", f"/users/{user}", status=200)
    assert processed["status"] == "processed"

    operations = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
    assert operations == {(m, p) for m, p, _ in call.seen}, "every operation was called"


def test_a_rate_limited_answer_matches_the_document(http, tenant, spec, checked, ctx):
    tenants.set_limit(ctx, tenant.id, "1/h")
    call = Recorder(http, tenant, spec, checked)
    call("GET", "/v1/memories/count", f"/v1/memories/count?user_id={tenant.user}", status=200)
    limited = call("GET", "/v1/memories/count", f"/v1/memories/count?user_id={tenant.user}", status=429)
    assert limited["error"]["code"] == "rate_limited"
    seed = call("POST", "/recall", body={"user_id": tenant.user, "query": "work"}, status=429)
    assert seed["detail"] == seed["error"]["message"]


def test_a_key_the_domain_adds_but_the_document_omits_fails_the_check(spec):
    """The check above can fail: an undeclared key in a memory is refused."""
    closed = _closed(spec)
    memory = {"id": "m", "user_id": "u", "agent_id": None, "session_id": None, "content": "c",
              "memory_type": "semantic", "type": "note", "key": None, "value": None, "importance": 0.5,
              "confidence": 1.0, "active": True, "valid_from": "2026-01-01T00:00:00Z", "valid_to": None,
              "supersedes": None, "created_at": "2026-01-01T00:00:00Z", "subject": "user", "metadata": {}, "sources": []}
    schema = {"$ref": "#/components/schemas/Memory", "components": closed["components"]}
    jsonschema.validate(memory, schema, cls=jsonschema.Draft202012Validator)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**memory, "embedding": [0.1]}, schema, cls=jsonschema.Draft202012Validator)


@pytest.mark.parametrize("other_form", ["2026-03-01T10:00:00+00:00", "2026-03-01T11:00:00+01:00",
                                        "2026-03-01 10:00:00Z", "2026-03-01T10:00:00"])
def test_a_time_in_another_form_than_utc_with_z_fails_the_check(spec, other_form):
    """The check above can fail: every time the document declares must be RFC 3339 UTC with Z."""
    schema = {"$ref": "#/components/schemas/TurnAnswer", "components": _closed(spec)["components"]}
    turn = {"turn_id": "t1", "status": "processed", "occurred_at": "2026-03-01T10:00:00.250Z"}
    jsonschema.validate(turn, schema, cls=jsonschema.Draft202012Validator, format_checker=WIRE_TIMES)
    with pytest.raises(jsonschema.ValidationError, match="date-time"):
        jsonschema.validate({**turn, "occurred_at": other_form}, schema, cls=jsonschema.Draft202012Validator,
                            format_checker=WIRE_TIMES)


def test_docs_load_swagger_ui_from_the_server_itself(http):
    page = http.get("/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|url: ?["']([^"']+)["']""", page.text)
    urls = [a or b for a, b in urls]
    assert urls and not [u for u in urls if "://" in u or u.startswith("//")], urls
    for url in urls:
        assert http.get(url).status_code == 200, url
    script = http.get("/docs/assets/swagger-ui-bundle.js")
    assert "javascript" in script.headers["content-type"] and 'PACKAGE_VERSION:"5.' in script.text
    redoc = http.get("/redoc")
    assert redoc.status_code == 200 and "fonts.googleapis" not in redoc.text and "://" not in json.dumps(
        re.findall(r'src="([^"]+)"', redoc.text))


def test_generated_requests_get_documented_answers(runtime, tenant):
    """Requests schemathesis derives from the document for every operation, valid and not: no
    5xx, every status documented, every body matching its schema."""
    # An app of its own: the session's app is already serving (its lifespan entered) in another loop.
    schema = schemathesis.openapi.from_asgi("/openapi.json", runtime.asgi_app())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def answers_as_documented(case):
            case.call_and_validate(headers=tenant.headers, checks=[
                not_a_server_error, status_code_conformance, response_schema_conformance])

        answers_as_documented()
