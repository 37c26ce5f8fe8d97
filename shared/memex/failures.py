"""What a client may read of a failure: its kind, never an address or a quote.

A turn's `error` (in GET /v1/turns/{id}, and in the answer to an inline turn whose processing
failed) is read by the client. The messages of driver and SDK exceptions name internal hosts and
URLs ('connection to server at "10.0.3.7"', 'Could not connect to the endpoint URL: "https://…"'),
and an endpoint's error message can echo a proxy's upstream or the request, so the client is told
the exception's type; the details go to the operator's logs as types and status codes.
"""

from __future__ import annotations


def describe(exc: BaseException) -> str:
    return type(exc).__name__
