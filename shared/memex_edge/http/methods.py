"""Which methods a path takes, and HEAD answered wherever GET is (RFC 9110: a GET without the body)."""

from __future__ import annotations

from fastapi.routing import iter_route_contexts
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def methods_at(routes: list[BaseRoute], scope: Scope) -> set[str]:
    """The methods the routes at `scope`'s path take, of every route there (GET and DELETE of
    /v1/memories/{id} are two), HEAD wherever GET is. A surface's route (MCP) names none: its app
    answers every method itself."""
    probe = {"type": "http", "path": scope["path"], "root_path": scope.get("root_path", ""), "method": ""}
    taken = {method for route in iter_route_contexts(routes) if route.methods
             and route.matches(probe)[0] is not Match.NONE for method in route.methods}
    return taken | {"HEAD"} if "GET" in taken else taken


class HeadAsGet:
    """Answers a HEAD where a route takes GET as that GET, and every HEAD without a body (RFC 9110),
    whoever answers it: uptime checks send HEAD /health, and FastAPI's routes (unlike Starlette's)
    took none, answering 405. Not by adding HEAD to the routes' methods, which would put a HEAD
    operation of each in the OpenAPI document. Wraps the app with its refusals (create_app), so the
    405 of /mcp, the 413 and the 421 lose their bodies too; `routes` are the app's."""

    def __init__(self, app: ASGIApp, routes: list[BaseRoute]):
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        if "GET" in methods_at(self.routes, scope):
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, headers_only(send))


def headers_only(send: Send) -> Send:
    """`send` with every body left out: a HEAD's answer. Its Content-Length stays the body's, as
    RFC 9110 lets a HEAD's answer say."""
    async def sending(message: Message) -> None:
        await send({**message, "body": b""} if message["type"] == "http.response.body" else message)
    return sending
