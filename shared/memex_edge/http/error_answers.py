"""Errors in the wire shape, and the words of those the edge answers itself: validation problems,
a body not in UTF-8, nested too deeply or not sent as JSON, a path or method no route takes, the
database gone."""

from __future__ import annotations

from typing import Any

import psycopg
from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memex.context import Context
from memex.db.connection import connection_lost
from memex.models import ID_RULE, METADATA_MAX_DEPTH, FieldError, what_is_wrong
from memex_edge.http.methods import methods_at
from memex_edge.http.seeds import is_seed_route
from memex_edge.http.trailing_slash import sent_path
from memex_edge.observability import logger

# Seconds a client should wait before retrying while the database is unreachable: about what a
# Postgres restart or an RDS failover takes to begin accepting connections again.
DATABASE_RETRY_AFTER = 5


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None,
          detail: Any = None) -> JSONResponse:
    """An error in the wire shape; with `detail`, in a compatibility route's shape (the seed's
    `detail` and memex's `error` beside it)."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    if detail is not None:
        body = {"detail": detail, **body}
    return JSONResponse(body, status_code=status, headers=headers)


def field_problem(detail: dict[str, Any]) -> str:
    """One validation problem as `field: what is wrong`, the field's path down to a nested key."""
    cause = (detail.get("ctx") or {}).get("error")
    if detail.get("type") == "json_invalid":
        # FastAPI puts the parser's offset where a field would go, ("body", 12): "body.12" would
        # read as a field named 12.
        return f"body: not valid JSON ({cause} at character {detail['loc'][-1]})"
    loc = tuple(str(part) for part in detail["loc"])
    if isinstance(cause, FieldError):
        loc += cause.path
    message = what_is_wrong(detail)
    in_query_string = len(loc) > 1 and loc[0] == "query"
    if in_query_string and detail.get("type") == "value_error" and " " in str(detail.get("input", "")):
        # The caller most likely sent an id with a +, which a query string reads as a space. A REST
        # parameter's place is ("query", name); an MCP argument's is its bare name, `query` that of
        # the search's text, which no query string carried.
        message += " (a + in a query string is read as a space: send it as %2B)"
    return f"{'.'.join(loc) or 'body'}: {message}"


def unreadable_body(cause: BaseException | None) -> str | None:
    """What to fix when FastAPI could not read a body as JSON for a reason other than its syntax (its
    400 "There was an error parsing the body" said none): bytes not in UTF-8 (JSON's encoding, RFC
    8259), "café" as the single byte 0xe9 of Latin-1; or nesting deeper than Python's parser follows
    (RecursionError), which RFC 8259 lets a parser limit. A 422 as for any JSON it cannot read, not
    a 413: a body of a few kilobytes nests thousands of levels, and sending less would not help."""
    if isinstance(cause, UnicodeDecodeError):
        return (f"body: not valid UTF-8 (byte 0x{cause.object[cause.start]:02x} at byte {cause.start}): "
                "send the JSON encoded as UTF-8")
    if isinstance(cause, RecursionError):
        return (f"body: not valid JSON here (nested too deeply to parse; metadata may nest at most "
                f"{METADATA_MAX_DEPTH} levels)")
    return None


def sent_as_other_than_json(content_type: str | None, problems: list[dict[str, Any]]) -> str | None:
    """What to fix when a body was refused whole because it was not sent as JSON: FastAPI parses a
    body as JSON only under a JSON content type (or none), and otherwise hands the model raw bytes,
    whose refusal ("Input should be a valid dictionary") does not name the header; `curl -d`
    without `-H` sends application/x-www-form-urlencoded."""
    media_type = (content_type or "").split(";")[0].strip().lower()
    if not media_type or media_type == "application/json" or media_type.endswith("+json"):
        return None
    if not any(tuple(p["loc"]) == ("body",) for p in problems):
        return None
    return f"body: send JSON with content-type: application/json (this request's content-type is {media_type})"


def no_route(request: Request) -> JSONResponse:
    """What the router's bare 404 "Not Found" for a path no route takes left unsaid. An id with a '/'
    (`list_memories("a/b")`, sent as a%2Fb) reaches the router split at it, so no route takes the path:
    a 422 naming the rule ids break, since the route was right and the id was not."""
    if "%2f" in (sent_path(request.scope) or "").lower():
        return error(422, "validation_error", f"path: an id in {request.url.path} holds '/' (sent as %2F), "
                                              f"which no id may: ids are {ID_RULE}")
    return error(404, "not_found", f"no route at {request.url.path}: check the path (an id in it is one "
                                   "URL-encoded segment)")


def method_not_allowed(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """405 naming the methods the path takes, in `Allow` (RFC 9110) and the message. The router
    answers for the first route whose path matched, so its Allow left out the methods of the others
    at that path (DELETE of GET /v1/memories/{id}), and HEAD, and its message said none."""
    taken = sorted(methods_at(request.app.routes, request.scope))
    allowed = ", ".join(taken) or (exc.headers or {}).get("Allow", "")
    message = f"{request.method} is not a method of {request.url.path}; it takes {allowed or 'none'}"
    return error(405, "method_not_allowed", message, headers={"Allow": allowed},
                 detail=message if is_seed_route(request) else None)


# What psycopg raises when the database cannot be reached (InterfaceError: psycopg refused to use a
# connection it already knows is closed), each answered by database_unavailable wherever it is caught.
DATABASE_GONE = (psycopg.OperationalError, psycopg.InterfaceError)


def database_lost(exc: psycopg.Error, ctx: Context) -> None:
    """Logged; once one connection found the server gone, every thread reconnects (no broken connection
    is handed to the next request). What every path that caught DATABASE_GONE does, whatever it answers."""
    logger.warning("database unavailable", extra={"error": type(exc).__name__, "sqlstate": exc.sqlstate,
                                               "detail": str(exc)})
    if connection_lost(exc):
        ctx.db.discard_all()


def database_unavailable(exc: psycopg.Error, ctx: Context, seed: bool = False) -> JSONResponse:
    """503 with Retry-After, the database lost (database_lost)."""
    database_lost(exc, ctx)
    message = "the database is unavailable; retry later"
    return error(503, "database_unavailable", message, headers={"Retry-After": str(DATABASE_RETRY_AFTER)},
                 detail=message if seed else None)
