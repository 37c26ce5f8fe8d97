"""The Lambda entry point of an HTTP function: its app behind API Gateway, through Mangum."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from aws_lambda_powertools.logging import correlation_paths
from fastapi import APIRouter
from mangum import Mangum
from starlette.types import ASGIApp

from memex_edge.deadline import llm_within
from memex_edge.http.app import create_app
from memex_edge.http.error_handlers import UnhandledErrors
from memex_edge.http.surfaces import Surface
from memex_edge.observability import log_metrics, logger, tracer


def lambda_handler(*routers: APIRouter, surfaces: dict[str, Surface] | None = None) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of an HTTP function: its routes and surfaces behind API Gateway."""
    return asgi_lambda_handler(create_app(*routers, surfaces=surfaces))


def asgi_lambda_handler(app: ASGIApp) -> Callable[[dict, Any], dict]:
    """The Lambda entry point of any ASGI app behind API Gateway. Mangum runs the app's lifespan
    around each invocation, in the invocation's event loop, so what a surface starts in it (MCP's
    session manager and its task group) is running while the request is served. Nothing escapes to
    Mangum, which would log it again and answer outside the wire shape."""
    mangum = Mangum(UnhandledErrors(app), lifespan="on")
    loop: asyncio.AbstractEventLoop | None = None

    # Mangum runs on the thread's current event loop, which Python no longer makes on demand once
    # something (asyncio.run) has unset it, and not at all from 3.14: one loop, kept for the
    # execution environment, is made current for each invocation.
    def invoke(event: dict, context: Any) -> dict:
        nonlocal loop
        if loop is None or loop.is_closed():
            loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        with llm_within(context):  # the route's thread is handed this context
            return mangum(event, context)

    traced = tracer.capture_lambda_handler(log_metrics(invoke))
    return logger.inject_lambda_context(traced, correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
