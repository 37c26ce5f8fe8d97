"""The compatibility routes: those speaking a seed's API, whose errors carry the seed's `detail`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.routing import APIRoute


class SeedRoute(APIRoute):
    """A compatibility route, speaking a seed's API: its errors carry the seed's `detail` (what
    FastAPI's default handlers sent, which the seeds' clients read)."""


MEMORY_SERVICE_SEED = "memory-service seed"
MEMEX_SEED = "memex seed"


def seed_router(seed: str) -> APIRouter:
    """A router of compatibility routes for `seed` (MEMORY_SERVICE_SEED or MEMEX_SEED): thin
    adapters calling the domain functions their v1 counterparts call."""
    return APIRouter(route_class=SeedRoute, tags=[seed])


def is_seed_route(request: Request) -> bool:
    return isinstance(request.scope.get("route"), SeedRoute)
