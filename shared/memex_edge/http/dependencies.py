"""The dependencies of the routes: the request's Context, the tenant it acts for (the key declared
in the OpenAPI), and the refusal of a query parameter the route does not take or takes once."""

from __future__ import annotations

from collections import Counter
from typing import Optional

from fastapi import Depends, Request, Security
from fastapi.dependencies.models import Dependant, ModelField
# FastAPI's own test of a parameter that takes one value (of which it reads the last), not a list.
from fastapi.dependencies.utils import is_scalar_field
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from memex.context import Context
from memex_edge.http.admission import admit
from memex_edge.http.rate_limits import RATE_LIMIT_STATE, rate_limit_headers


async def context(request: Request) -> Context:
    """The request's Context, from the `provide` its app was made with (create_app: get_context, or
    a test's). Not through FastAPI's dependency_overrides: with any override, FastAPI builds every
    dependency of every request again (inspect.signature, their fields). async: a sync dependency
    costs a hop to the thread pool and back, and the Context is built once per process (the local
    runtime builds it before serving; a Lambda environment serves one request at a time). Both
    together: 0.3-0.5 ms of server CPU a request (docs/measurements/performance.md)."""
    return request.app.state.provide()


# Declares the scheme in the OpenAPI; the key is read by `admit`, which MCP calls too.
bearer = HTTPBearer(auto_error=False, scheme_name="apiKey",
                    description="An API key (`memex keys create`); it names the tenant the request acts for.")


def tenant(request: Request, ctx: Context = Depends(context),
           _declared: Optional[HTTPAuthorizationCredentials] = Security(bearer)) -> str:
    """The dependency of every authenticated route."""
    tenant_id, decision = admit(ctx, request.headers)
    if decision is not None:
        request.scope.setdefault("state", {})[RATE_LIMIT_STATE] = rate_limit_headers(decision)
    return tenant_id


def known_query(request: Request) -> None:
    """Refuses a query parameter the route does not take, as an unknown field of a body is refused:
    ignored, `?session_id=s1` on a listing that has no such filter would list every session. And one
    taking a single value sent more than once, of which FastAPI reads the last:
    `?user_id=kate&user_id=alice` counted alice's memories."""
    params = _query_params(request.scope["route"].dependant)
    sent = Counter(name for name, _ in request.query_params.multi_items())
    problems = []
    unknown = [name for name in sent if name not in params]
    if unknown:
        takes = f"it takes {', '.join(params)}" if params else "it takes none"
        problems += [{"type": "extra_forbidden", "loc": ("query", name),
                      "msg": f"not a parameter of this route; {takes}"} for name in unknown]
    problems += [{"type": "repeated", "loc": ("query", name), "msg": f"sent {times} times; the route takes one value"}
                 for name, times in sent.items() if times > 1 and name in params and is_scalar_field(params[name])]
    if problems:
        raise RequestValidationError(problems)


def _query_params(dependant: Dependant) -> dict[str, ModelField]:
    """The query parameters of a route's function and of its dependencies by name, in declaration order."""
    params = {param.alias: param for param in dependant.query_params}
    for sub in dependant.dependencies:
        for name, param in _query_params(sub).items():
            params.setdefault(name, param)
    return params
