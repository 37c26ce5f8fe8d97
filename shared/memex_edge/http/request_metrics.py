"""Each request counted by its route and status, and timed."""

from __future__ import annotations

import time
from typing import Callable

from memex.context import Context
from memex.metrics import HTTP_LATENCY, HTTP_REQUESTS


class RequestMetrics:
    """Counts each request by its route (the template, so ids do not make new series) and status,
    and times it (HttpRequests, HttpLatency; in AWS, API Gateway publishes its own)."""

    def __init__(self, app, context: Callable[[], Context]):
        self.app = app
        self.context = context

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = 500  # what the server answers if the app raises before starting a response

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            # The router sets the matched route on the scope it was given, which is this one.
            route = getattr(scope.get("route"), "path", "unmatched")
            recorded = self.context().metrics
            recorded.record(HTTP_REQUESTS, route=route, status=str(status))
            recorded.record(HTTP_LATENCY, time.perf_counter() - started, route=route)
