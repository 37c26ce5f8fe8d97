"""/openapi.json, and /docs (Swagger UI) and /redoc served from installed files, never from a CDN, so
they work offline. The assets come from the pinned `fastapi-offline` package (Swagger UI 5.32.6,
which renders OpenAPI 3.1, and ReDoc); only the local runtime serves them."""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from memex import keys
from memex_edge.http.error_answers import DATABASE_GONE, database_lost
from memex_edge.http.openapi import without_misdirected

ASSETS = "/docs/assets"
DOCUMENT = "/openapi.json"


def add_docs(app: FastAPI, loopback: bool) -> None:
    """`loopback`: the app's routes declare the 421 of KeylessOnLoopback (create_app), which the
    document keeps only while that can answer it."""

    def document(request: Request) -> JSONResponse:
        served = app.openapi()
        if loopback:
            ctx = app.state.provide()
            try:
                if not keys.keyless_answered(ctx):
                    served = without_misdirected(served)
            except DATABASE_GONE as exc:
                # The 421 kept: it can come once the keys can be read, if still none was made.
                database_lost(exc, ctx)
        root = request.scope.get("root_path", "").rstrip("/")
        if root:
            # As FastAPI's own route: "Try it out" calls the API where this document was found.
            served = {**served, "servers": [{"url": root}, *served.get("servers", [])]}
        return JSONResponse(served)

    # In a worker thread (a sync endpoint), as the database is asked.
    app.add_route(DOCUMENT, document, include_in_schema=False)
    app.mount(ASSETS, StaticFiles(directory=str(files("fastapi_offline") / "static")), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{DOCUMENT}", title="memex API",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            # The key typed into "Authorize" survives a reload of the page.
            swagger_ui_parameters={"persistAuthorization": True},
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(openapi_url=f"{root}{DOCUMENT}", title="memex API",
                              redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{ASSETS}/favicon.png", with_google_fonts=False)
