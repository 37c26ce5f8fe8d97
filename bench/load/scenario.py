"""The memex seed's load scenario, as a bounded asyncio client (what its locust file does).

Virtual users start at `spawn_rate` per second up to `users`; each, until the run's time is up,
sends one request, waits its answer, then thinks 100-300 ms. A request is a write with
probability `write_share` (the seed's tasks weigh writes and searches about 1:3), else a search.
Requests are counted once answered, including the ones started before the end (as locust does);
an error is a status >= 400, a timeout or a broken connection.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import httpx

from bench.locomo import percentile


@dataclass(frozen=True)
class Scenario:
    users: int = 50
    spawn_rate: float = 10.0
    duration: float = 60.0
    think: tuple[float, float] = (0.1, 0.3)
    write_share: float = 0.25


@dataclass(frozen=True)
class Request:
    endpoint: str
    path: str
    body: dict[str, Any]


@dataclass
class Pipeline:
    """What a pipeline's virtual user sends: `write(rng)` and `search(rng)` each build one request."""

    name: str
    url: str
    write: Callable[[random.Random], Request]
    search: Callable[[random.Random], Request]


@dataclass
class Endpoint:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)

    def record(self, seconds: float, error: str | None) -> None:
        self.latencies.append(seconds)
        if error is not None:
            self.errors += 1
            if len(self.error_samples) < 3:
                self.error_samples.append(error)


def summarise(endpoints: dict[str, Endpoint], wall: float) -> dict[str, Any]:
    """Per endpoint and in total: requests, RPS, p50/p95/p99 in ms, errors."""
    def figures(latencies: Sequence[float], errors: int) -> dict[str, Any]:
        ms = [1000 * s for s in latencies]
        return {"requests": len(ms), "rps": round(len(ms) / wall, 1) if wall else 0.0,
                **{f"p{p}_ms": None if not ms else round(percentile(ms, p), 1) for p in (50, 95, 99)},
                "errors": errors}

    report = {name: {**figures(e.latencies, e.errors), "error_samples": e.error_samples}
              for name, e in sorted(endpoints.items())}
    report["total"] = figures([s for e in endpoints.values() for s in e.latencies],
                              sum(e.errors for e in endpoints.values()))
    return report


async def _virtual_user(client: httpx.AsyncClient, pipeline: Pipeline, scenario: Scenario, rng: random.Random,
                        deadline: float, endpoints: dict[str, Endpoint]) -> None:
    while time.monotonic() < deadline:
        request = (pipeline.write if rng.random() < scenario.write_share else pipeline.search)(rng)
        started = time.perf_counter()
        error = None
        try:
            response = await client.post(request.path, json=request.body)
            if response.status_code >= 400:
                error = f"{response.status_code} {response.text[:200]}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        endpoints.setdefault(request.endpoint, Endpoint()).record(time.perf_counter() - started, error)
        await asyncio.sleep(rng.uniform(*scenario.think))


async def _run(pipeline: Pipeline, scenario: Scenario, seed: int) -> dict[str, Any]:
    # Both endpoints are reported, at 0 requests when a short run on a busy machine sent none.
    probe = random.Random(seed)
    endpoints = {make(probe).endpoint: Endpoint() for make in (pipeline.write, pipeline.search)}
    # Idle connections are dropped before the server's keep-alive timeout (uvicorn: 5 s) can close
    # one as a request goes out on it (a ReadError that would count against the server).
    limits = httpx.Limits(max_connections=scenario.users, max_keepalive_connections=scenario.users,
                          keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=pipeline.url, limits=limits,
                                 timeout=httpx.Timeout(60, connect=10)) as client:
        started = time.monotonic()
        deadline = started + scenario.duration
        tasks = []
        for i in range(scenario.users):
            spawn_at = started + i / scenario.spawn_rate
            if spawn_at >= deadline:
                break
            await asyncio.sleep(max(0.0, spawn_at - time.monotonic()))
            tasks.append(asyncio.create_task(_virtual_user(client, pipeline, scenario, random.Random(seed * 1000 + i),
                                                           deadline, endpoints)))
        await asyncio.gather(*tasks)
        wall = time.monotonic() - started
    return {"pipeline": pipeline.name, "users": scenario.users, "duration_s": round(wall, 1),
            "endpoints": summarise(endpoints, wall)}


def run(pipeline: Pipeline, scenario: Scenario, seed: int = 1) -> dict[str, Any]:
    return asyncio.run(_run(pipeline, scenario, seed))
