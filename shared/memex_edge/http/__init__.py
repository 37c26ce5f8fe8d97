"""The HTTP edge every HTTP function serves: one FastAPI app per function (`app.create_app`), errors
in the wire shape, the body limit, API keys, the rate limit, and the OpenAPI that describes it all,
one module each.

Where things go:
- a new **route**: on the router of the function that serves it (`functions/<name>/app.py`),
  declared with its `response_model` and its `responses=errors(...)` (`openapi.py`), and as an
  `HttpApi` event of that function in template.yaml (tests/test_template.py checks both lists agree);
- a new **ASGI surface** (a protocol other than REST, like MCP): an object with `__call__`,
  `lifespan()` and `refusal()` (`surfaces.Surface`), passed to `create_app(surfaces={path: ...})` by its
  function and by the local runtime (`SURFACES` in infra/local/runtime.py); its lifespan runs around serving;
- a new **scheduled job**: a function whose handler takes the schedule's event, a `Schedule`
  event in template.yaml and an entry in `SCHEDULES` in infra/local/runtime.py.

A 5xx never carries an internal message (hosts, URLs, SQL, Python text): those go to the log."""
