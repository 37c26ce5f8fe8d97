"""Reads of memex's public API that several benchmarks make, each through the caller's own GET
(`get(path, params=...)` returning an httpx.Response: a plain client's, or one that retries and
counts as bench/soak's does)."""

from __future__ import annotations

import time
from typing import Any, Callable

import httpx

Get = Callable[..., httpx.Response]
DONE = {"processed", "failed"}


def memories(get: Get, user_id: str, include_inactive: bool = True, limit: int = 500) -> list[dict[str, Any]]:
    """Every memory of a user (GET /v1/users/{id}/memories), following the cursor."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"include_inactive": str(include_inactive).lower(), "limit": limit}
        if cursor:
            params["cursor"] = cursor
        response = get(f"/v1/users/{user_id}/memories", params=params)
        response.raise_for_status()
        page = response.json()
        found += page["memories"]
        cursor = page.get("next_cursor")
        if not cursor:
            return found


def turn_status(get: Get, turn_id: str) -> str:
    """The turn's status (GET /v1/turns/{id}); "unreachable" when no server answers, "http N" for
    an answer other than 200."""
    try:
        response = get(f"/v1/turns/{turn_id}")
    except httpx.TransportError:
        return "unreachable"
    return response.json().get("status", "?") if response.status_code == 200 else f"http {response.status_code}"


def wait_processed(get: Get, turn_ids: list[str], timeout: float, interval: float) -> dict[str, str]:
    """Each turn's last status, polled every `interval` s until all are processed (or failed) or
    `timeout` s have passed."""
    deadline = time.monotonic() + timeout
    statuses = {t: "unknown" for t in turn_ids}
    while True:
        for turn_id, status in statuses.items():
            if status not in DONE:
                statuses[turn_id] = turn_status(get, turn_id)
        if all(s in DONE for s in statuses.values()) or time.monotonic() > deadline:
            return statuses
        time.sleep(interval)
