"""What the OpenAPI document says beside the routes: the API's version and summary, and the error
answers each route declares."""

from __future__ import annotations

from typing import Any

from memex_edge.answers import ErrorBody, SeedErrorBody

# One version for the API over REST (/openapi.json) and MCP (initialize's serverInfo, else empty).
API_VERSION = "1"

API_SUMMARY = ("Long-term memory for AI agents: turns in, memories out (search, recall within a token "
               "budget), kept current. Errors are {\"error\": {code, message}}; the compatibility "
               "routes (tags `memory-service seed`, `memex seed`) add the seed's `detail`.")

_ERRORS = {
    401: "Missing or wrong API key (`Authorization: Bearer <key>`).",
    404: "No such id for this tenant (another tenant's ids are not found either).",
    409: "`idempotency_conflict`: this user already sent the key with a different turn. `turn_erased`: the key names "
         "a turn this user erased, which is not stored again. `user_being_erased`: the "
         "user's erasure began and has not finished (DELETE /v1/users/{id} again goes on with it). "
         "`ambiguous_session` (DELETE /sessions/{id} without `user_id`): sessions of several users have the id.",
    413: "Body over `MEMEX_MAX_BODY_BYTES` (1 MiB), refused before it is read whole.",
    422: "Malformed input; the message names each field (`body.messages.0.role: ...`).",
    429: "`rate_limited`: over the tenant's (or key's) rate limit; retry after `Retry-After` seconds. "
         "Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` when a limit applies.",
    503: "`database_unavailable`: Postgres is unreachable; `embedder_unavailable` (`POST /v1/memories`): the embedder "
         "failed and nothing was stored. Retry after `Retry-After` seconds.",
}


# Declared on every route of an app served on loopback (create_app), where KeylessOnLoopback answers
# it, in memex's shape on the compatibility routes too; no other server answers it, nor that one once
# it takes no request without a key, when /openapi.json leaves it out (without_misdirected).
MISDIRECTED = {421: {"model": ErrorBody, "description": (
    "`misdirected_request` (a server on loopback, while it takes requests without a key): the request "
    "carries no key and its Host names neither 127.0.0.1, localhost nor [::1], as a web page's does by "
    "DNS rebinding. Call the server by a loopback name, or send a key.")}}


def without_misdirected(document: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI `document` with no operation declaring MISDIRECTED's 421."""
    return {**document, "paths": {
        path: {method: {**operation, "responses": {status: answer for status, answer in operation["responses"].items()
                                                   if status != "421"}}
               for method, operation in operations.items()}
        for path, operations in document["paths"].items()}}


def errors(*statuses: int, seed: bool = False) -> dict[int | str, dict[str, Any]]:
    """The error answers of an authenticated route, for its OpenAPI: 401, 422, 429 and 503 always,
    and `statuses` (404, 409, 413) where they occur."""
    model = SeedErrorBody if seed else ErrorBody
    return {status: {"model": model, "description": _ERRORS[status]}
            for status in sorted({401, 422, 429, 503, *statuses})}
