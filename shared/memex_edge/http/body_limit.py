"""The limit on a request's body (MEMEX_MAX_BODY_BYTES), enforced before the body is read whole."""

from __future__ import annotations

from typing import Callable

from fastapi.responses import Response

from memex_edge.http.error_answers import error
from memex_edge.http.surfaces import Surface


class BodyLimit:
    """Refuses bodies over the limit with 413, whether or not Content-Length is sent; at a
    surface's path, in the words of that surface's clients (its `refusal`)."""

    def __init__(self, app, max_bytes: Callable[[], int], surfaces: dict[str, Surface]):
        self.app = app
        # Read on the first request: a handler module builds its app at import, and the
        # Context (settings, secrets, clients) is built only once a request needs it.
        self.max_bytes = max_bytes
        self.surfaces = surfaces

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        max_bytes = self.max_bytes()
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            return await self._too_large(scope, receive, send, max_bytes)
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > max_bytes:
                return await self._too_large(scope, receive, send, max_bytes)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    async def _too_large(self, scope, receive, send, max_bytes: int):
        response: Response = error(413, "payload_too_large", f"request body exceeds {max_bytes} bytes")
        surface = self.surfaces.get(scope["path"])
        if surface is not None:
            response = surface.refusal(response)
        await response(scope, receive, send)
