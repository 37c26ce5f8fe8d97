"""A server bound to loopback and the Host its requests name: a web page whose name its owner made
resolve to 127.0.0.1 (DNS rebinding) reaches such a server as its own origin."""

from __future__ import annotations

import re
from typing import Callable

import anyio.to_thread
from fastapi import Request

from memex import keys
from memex.context import Context
from memex_edge.http.admission import presented_key
from memex_edge.http.error_answers import DATABASE_GONE, database_unavailable, error
from memex_edge.http.surfaces import Surface

# The names a server on loopback is served at (`--host`) and called by (a request's Host).
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LOOPBACK_HOST = re.compile("(?:" + "|".join(re.escape(f"[{name}]" if ":" in name else name) for name in LOOPBACK)
                            + r")(?::\d+)?", re.IGNORECASE)


def names_loopback(headers) -> bool:
    """Whether the request's Host names this machine by a loopback name (any port). A web page whose
    name its owner has made resolve to 127.0.0.1 (DNS rebinding) reaches a server on loopback as its
    own origin, and reads what it is answered, but its Host is still its own name."""
    return _LOOPBACK_HOST.fullmatch(headers.get("host", "")) is not None


def names_another_host_without_key(headers) -> bool:
    """Whether a request to a server on loopback is one its Host does not vouch for and no key does
    either: it names another host (a rebinding page's own name, or a proxy's) and carries no API key.
    Such a request is answered only on a key (KeylessOnLoopback, the /metrics scrape); one with a key
    is judged by its key, as anywhere."""
    return not names_loopback(headers) and presented_key(headers) is None


class KeylessOnLoopback:
    """On a server bound to loopback, refuses a request without a key whose Host names another host
    while the API answers requests without one (no key made yet, `MEMEX_REQUIRE_API_KEY` off, the
    default tenant not deleted): a web page whose name its owner made resolve to 127.0.0.1 (DNS
    rebinding) read and erased the default tenant's memories as its own origin. A request with a key is
    judged by its key, as anywhere, and once keys are required nothing changes; nor while the default
    tenant is deleted, where a request without a key gets its 401 (a key for it, its remedy, holds
    whatever the Host, where "call it localhost" only met that 401). The surfaces judge their own Host
    (MCP refuses any other, /metrics wants a key for it)."""

    def __init__(self, app, context: Callable[[], Context], surfaces: dict[str, Surface]):
        self.app = app
        self.context = context
        self.surfaces = surfaces

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] in self.surfaces:
            return await self.app(scope, receive, send)
        headers = Request(scope).headers
        if not names_another_host_without_key(headers):
            return await self.app(scope, receive, send)
        ctx = self.context()
        try:
            keyless = await anyio.to_thread.run_sync(keys.keyless_answered, ctx)
        except DATABASE_GONE as exc:
            return await database_unavailable(exc, ctx)(scope, receive, send)
        if not keyless:
            return await self.app(scope, receive, send)
        # 421 Misdirected Request (RFC 9110 15.5.20): this server will not answer for the name the
        # request gives it, and MCP's transport, on this same server, answers a foreign Host so too.
        # Not 400 (Starlette's TrustedHostMiddleware): the request is well formed; not 401 or 403:
        # calling the server by its loopback name is as good a remedy as a key.
        host = headers.get("host") or "none"
        await error(421, "misdirected_request",
                    f"this server answers requests without an API key only when they name it 127.0.0.1, "
                    f"localhost or [::1] (this one's Host: {host}): call it so, or create a key "
                    "(memex keys create --tenant NAME) and send it (Authorization: Bearer <key>)")(scope, receive, send)
