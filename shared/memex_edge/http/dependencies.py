"""The dependencies of the routes: the request's Context, the tenant it acts for (the key declared
in the OpenAPI), and the refusal of a query parameter the route does not take."""

from __future__ import annotations

from typing import Optional

from fastapi import Depends, Request, Security
from fastapi.dependencies.models import Dependant
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
    ignored, `?session_id=s1` on a listing that has no such filter would list every session."""
    taken = _query_names(request.scope["route"].dependant)
    unknown = [name for name in dict.fromkeys(request.query_params) if name not in taken]
    if unknown:
        takes = f"it takes {', '.join(taken)}" if taken else "it takes none"
        raise RequestValidationError([{"type": "extra_forbidden", "loc": ("query", name),
                                       "msg": f"not a parameter of this route; {takes}"} for name in unknown])


def _query_names(dependant: Dependant) -> list[str]:
    """The query parameters of a route's function and of its dependencies, in declaration order."""
    names = [param.alias for param in dependant.query_params]
    for sub in dependant.dependencies:
        names += [name for name in _query_names(sub) if name not in names]
    return names
