"""Isolation: a second tenant (and callers with no key or a wrong one) tries every operation of
`/openapi.json` with the first tenant's real ids and with guessed ones; nothing of the first
tenant may come back, and nothing of it may change."""

from __future__ import annotations

from typing import Any

import httpx

from bench.reliability.api import Api, accepted
from bench.reliability.report import Result
from bench.reliability.stack import Stack, unique

GUESSES = ("1", "0", "default", "admin")


def run(stack: Stack, quick: bool, deadline: float) -> Result:
    result = Result("isolation")
    stack.start_runtime({})
    owner = Api(stack.url, stack.create_key("isolation-owner"))
    intruder_key = stack.create_key("isolation-intruder")
    user, session, marker = unique("victim"), unique("sess"), unique("zi")
    turn = accepted(owner.turn(user, session, f"I work at Stripe. My secret is {marker}.", wait=True))
    direct = owner.http.post("/v1/memories", json={"user_id": user, "session_id": session,
                                                    "content": f"Prefers tea, code {marker}"})
    before = {m["id"] for m in owner.memories(user)}
    result.check("the owner's data is written", bool(turn) and direct.status_code == 201 and len(before) >= 2,
                 f"turn {turn}, memory {direct.status_code}, {len(before)} memories")
    secrets = {marker, *before, *([turn] if turn else [])}
    ids = {"turn_id": turn or "", "memory_id": direct.json().get("id", "") if direct.status_code == 201 else "",
           "user_id": user, "session_id": session, "backfill_id": "bf-1"}

    spec = httpx.get(f"{stack.url}/openapi.json").json()
    callers = {"other tenant": {"Authorization": f"Bearer {intruder_key}"}, "no key": {},
               "wrong key": {"Authorization": "Bearer mx_not_a_key"}}
    probes, unanswered, leaks, operations = 0, 0, [], set()
    # Reads first, erasures last: a delete that crossed tenants must not hide a read that would have.
    for method_filter in ({"get", "post", "put", "patch"}, {"delete"}):
        for path, methods in spec["paths"].items():
            for method, operation in methods.items():
                if method not in method_filter:
                    continue
                operations.add(f"{method.upper()} {path}")
                for caller, headers in callers.items():
                    for values in _id_sets(ids):
                        probes += 1
                        response = _probe(stack.url, headers, method, path, operation, spec, values)
                        unanswered += response is None
                        if response is not None and _leaks(response, secrets, marker):
                            leaks.append(f"{caller}: {method.upper()} {path} -> {response.status_code} "
                                         f"{response.text[:120]}")
    after = {m["id"] for m in owner.memories(user)}
    changed = before - after
    result.figures.update({"operations probed": len(operations), "probes": probes,
                           "leaks": len(leaks) + len(changed)})
    result.check("every operation probed", len(operations) == sum(len(m) for m in spec["paths"].values()))
    result.check("every probe answered", unanswered == 0, f"{unanswered} of {probes} unanswered")
    result.check("no answer carries another tenant's data", not leaks, "; ".join(leaks[:5]))
    result.check("no other caller changed the owner's memories", not changed, f"{len(changed)} memories gone")
    owner.close()
    stack.stop_runtime()
    return result


def _id_sets(ids: dict[str, str]):
    yield ids
    for guess in GUESSES:
        yield {name: guess for name in ids}


def _probe(url: str, headers: dict[str, str], method: str, path: str, operation: dict, spec: dict,
           ids: dict[str, str]) -> httpx.Response | None:
    filled = path
    for name in _names(operation, "path"):
        filled = filled.replace("{" + name + "}", ids.get(name) or ids["memory_id"])
    query = {name: _value(name, ids) for name in _names(operation, "query")}
    body = None
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content:
        body = _body(_resolve(content["schema"], spec), spec, ids)
    try:
        return httpx.request(method.upper(), url + filled, params={k: v for k, v in query.items() if v is not None},
                             json=body, headers=headers, timeout=60)
    except httpx.TransportError:
        return None


def _names(operation: dict, where: str) -> list[str]:
    return [p["name"] for p in operation.get("parameters", []) if p.get("in") == where]


def _value(name: str, ids: dict[str, str]) -> Any:
    # The query names what the owner said, never the marker: an answer echoes its query.
    known = {"user_id": ids["user_id"], "session_id": ids["session_id"], "query": "Stripe secret",
             "include_inactive": "true",
             "memory_id": ids["memory_id"], "turn_id": ids["turn_id"]}
    return known.get(name)


def _resolve(schema: dict, spec: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    if "anyOf" in schema:
        schema = next((s for s in schema["anyOf"] if s.get("type") != "null"), schema["anyOf"][0])
        return _resolve(schema, spec)
    return schema


def _body(schema: dict, spec: dict, ids: dict[str, str]) -> Any:
    """A plausible body: the owner's ids where their names fit, the rest minimal."""
    if schema.get("type") != "object" and "properties" not in schema:
        return {}
    body = {}
    for name, prop in schema.get("properties", {}).items():
        value = _value(name, ids)
        if value is not None:
            body[name] = value if name != "include_inactive" else True
        elif name == "messages":
            body[name] = [{"role": "user", "content": "What is my secret? I work at Stripe."}]
        elif name in schema.get("required", []) or name == "content":
            body[name] = _minimal(_resolve(prop, spec))
    return body


def _minimal(schema: dict) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    return {"string": "probe", "integer": 1, "number": 0.5, "boolean": True, "array": [],
            "object": {}}.get(kind, "probe")


def _leaks(response: httpx.Response, secrets: set[str], marker: str) -> bool:
    """A success that names the owner's content or ids, or an error that quotes the content (an
    error may echo an id the caller itself sent)."""
    if response.status_code < 400:
        return any(s in response.text for s in secrets)
    return marker in response.text
