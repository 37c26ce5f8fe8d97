"""What the client raises: the service's errors by status, and failures to reach it at all.

The service answers every error as `{"error": {"code": ..., "message": ...}}`; a 422's message
names the field first (`body.top_k: Input should be ...`), which `field` carries on its own.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Optional

import httpx


class MemexError(Exception):
    """Anything the client raises."""


class APIConnectionError(MemexError):
    """The service could not be reached, or the connection broke before an answer came back."""


class APITimeoutError(APIConnectionError):
    """No answer within the client's timeout."""


class APIError(MemexError):
    """The service answered with an error status."""

    def __init__(self, status: int, code: str, message: str, field: Optional[str] = None,
                 retry_after: Optional[float] = None, body: Any = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retry_after = retry_after
        self.body = body


class UnexpectedResponseError(APIError):
    """A success status whose body is not the answer asked for: the address is not a memex service's
    (another server's or a proxy's page), or the service sends what this client cannot read (update it)."""


class BadRequestError(APIError):
    """400."""


class AuthenticationError(APIError):
    """401: a missing or wrong API key."""


class PermissionDeniedError(APIError):
    """403."""


class NotFoundError(APIError):
    """404: an unknown id, or one of another tenant."""


class ConflictError(APIError):
    """409, e.g. `idempotency_conflict`: the key was sent before with a different turn; `turn_erased`: the key
    names a turn the user erased, which is not stored again (a retry after the erasure); `user_being_erased`:
    the user's erasure began and has not finished (delete_user again goes on with it)."""


class PayloadTooLargeError(APIError):
    """413: the body is over the service's limit."""


class InvalidInputError(APIError):
    """422: `field` names what was refused (`top_k`, `messages.0.role`)."""


class RateLimitError(APIError):
    """429: over the tenant's rate limit; `retry_after` says when to come back."""


class ServerError(APIError):
    """5xx."""


class ServiceUnavailableError(ServerError):
    """503, e.g. `database_unavailable`; `retry_after` says when to come back."""


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
              409: ConflictError, 413: PayloadTooLargeError, 422: InvalidInputError, 429: RateLimitError,
              503: ServiceUnavailableError}

# "body.top_k: ..." or "cursor: ...": the location prefix says where the field was, not what it is.
_FIELD = re.compile(r"^(?:(?:body|query|path|header)\.)?([^\s:;]+): ")


def retry_after(response: httpx.Response) -> Optional[float]:
    """Seconds from a Retry-After header (delay-seconds; an HTTP date is read as a delay too)."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def unexpected(response: httpx.Response, answer: str, problem: ValueError) -> UnexpectedResponseError:
    """The error for a success whose body is not `answer`: not JSON, or JSON of another shape."""
    what = "a body that is not JSON" if isinstance(problem, json.JSONDecodeError) else f"JSON that is not a {answer}"
    message = (f"{response.request.url} answered {response.status_code} with {what}: is it a memex service's "
               f"address (base_url, MEMEX_BASE_URL), and this client as new as the service? ({problem})")
    return UnexpectedResponseError(response.status_code, "unexpected_response", message[:1000], body=response.text[:500])


def from_response(response: httpx.Response) -> APIError:
    """The typed error for an error response, whatever its body (a proxy's HTML page included)."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = response.text
    shape = body.get("error") if isinstance(body, dict) else None
    if isinstance(shape, dict):
        code = str(shape.get("code") or "http_error")
        message = str(shape.get("message") or "")
        field = shape.get("field")
    else:
        code, message, field = "http_error", (response.text[:500] or response.reason_phrase), None
    if field is None and status == 422:
        found = _FIELD.match(message)
        field = found.group(1) if found else None
    kind = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return kind(status, code, message, field=field, retry_after=retry_after(response), body=body)
