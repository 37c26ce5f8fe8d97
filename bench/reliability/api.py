"""The few calls of the public API the scenarios make, over real HTTP with one tenant's key."""

from __future__ import annotations

import time
from typing import Any

import httpx


class Api:
    def __init__(self, url: str, key: str, timeout: float = 60):
        self.http = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=timeout)

    def turn(self, user: str, session: str, *contents: str, wait: bool = False, **extra: Any) -> httpx.Response:
        body = {"user_id": user, "session_id": session,
                "messages": [{"role": "user", "content": c} for c in contents], **extra}
        return self.http.post("/v1/turns" + ("?wait=true" if wait else ""), json=body)

    def search(self, user: str, query: str, **extra: Any) -> httpx.Response:
        return self.http.post("/v1/search", json={"user_id": user, "query": query, **extra})

    def memories(self, user: str, include_inactive: bool = True) -> list[dict[str, Any]]:
        """Every memory of a user, following the cursor."""
        found, cursor = [], None
        while True:
            params = {"include_inactive": str(include_inactive).lower(), "limit": 100}
            if cursor:
                params["cursor"] = cursor
            response = self.http.get(f"/v1/users/{user}/memories", params=params)
            response.raise_for_status()
            page = response.json()
            found.extend(page["memories"])
            cursor = page.get("next_cursor")
            if not cursor:
                return found

    def status(self, turn_id: str) -> str:
        try:
            response = self.http.get(f"/v1/turns/{turn_id}")
        except httpx.TransportError:
            return "unreachable"
        return response.json().get("status", "?") if response.status_code == 200 else f"http {response.status_code}"

    def wait_processed(self, turn_ids: list[str], timeout: float) -> dict[str, str]:
        """Each turn's last status, polled until all are processed (or failed) or time is up."""
        deadline = time.monotonic() + timeout
        statuses = {t: "unknown" for t in turn_ids}
        while True:
            for turn_id, status in statuses.items():
                if status not in {"processed", "failed"}:
                    statuses[turn_id] = self.status(turn_id)
            if all(s in {"processed", "failed"} for s in statuses.values()) or time.monotonic() > deadline:
                return statuses
            time.sleep(0.5)

    def close(self) -> None:
        self.http.close()


def accepted(response: httpx.Response | None) -> str | None:
    """The turn id of an accepted turn (202 queued, 201 processed), else None."""
    if response is not None and response.status_code in (201, 202):
        return response.json()["turn_id"]
    return None
