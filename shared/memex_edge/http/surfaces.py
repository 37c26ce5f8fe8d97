"""What an ASGI surface is (an app served at a path of its own beside the routes, as MCP is), and
the route it is served by."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from fastapi.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send


class SurfaceRoute(Route):
    """The route of a surface's path. It names itself the request's route, as an APIRoute does (the
    router leaves a plain Route's unset), so that its requests are counted under its path."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["route"] = self
        await super().handle(scope, receive, send)


class Surface(Protocol):
    """An ASGI app served at a path of its own beside the routes (MCP at /mcp). It answers its own
    errors, and `refusal` words those the edge answers before it is reached (a body over the limit:
    memex's error shape) as its clients read them. `lifespan()` is entered once around serving: for
    the process's life under uvicorn, and around each invocation under Mangum (which runs the app's
    lifespan every time)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...

    def lifespan(self) -> AbstractAsyncContextManager[None]: ...

    def refusal(self, response: JSONResponse) -> Response: ...
