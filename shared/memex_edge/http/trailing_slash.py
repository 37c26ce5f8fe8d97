"""A path with one trailing slash answered as the path without it, and the path as the client sent it."""

from __future__ import annotations


class TrailingSlash:
    """Answers a path with one trailing slash (`/v1/turns/`, the memex seed's `/mcp/`) as the path
    without it, in place. The router would redirect it instead, to an absolute URL built from the
    request's Host header, which the client does not choose alone (a proxy's, a rebound name's): a
    `Host: evil.example` sent the client, with its key and body, to evil.example."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] == "http" and len(path) > 1 and path.endswith("/"):
            sent = sent_path(scope)
            # Only a slash sent as one: "/v1/users/alice%2F" arrives decoded as "/v1/users/alice/", and
            # cut it would act on alice (a DELETE erased her). Left, no route takes it (no_route).
            if sent is not None and sent.endswith("/"):
                raw = scope.get("raw_path")
                scope = {**scope, "path": path[:-1], "raw_path": raw[:-1] if raw else raw}
        return await self.app(scope, receive, send)


def sent_path(scope) -> str | None:
    """The request's path as the client sent it, percent-encoded: the server's raw path, or under Mangum
    (whose raw_path is None) API Gateway's rawPath; None where neither is known."""
    raw = scope.get("raw_path")
    if raw is not None:
        return raw.decode("latin-1")
    return (scope.get("aws.event") or {}).get("rawPath")
