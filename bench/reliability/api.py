"""The few calls of the public API the scenarios make, over real HTTP with one tenant's key."""

from __future__ import annotations

from typing import Any

import httpx

from bench import api


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
        return api.memories(self.http.get, user, include_inactive, limit=100)

    def wait_processed(self, turn_ids: list[str], timeout: float) -> dict[str, str]:
        return api.wait_processed(self.http.get, turn_ids, timeout, interval=0.5)

    def close(self) -> None:
        self.http.close()


def accepted(response: httpx.Response | None) -> str | None:
    """The turn id of an accepted turn (202 queued, 201 processed), else None."""
    if response is not None and response.status_code in (201, 202):
        return response.json()["turn_id"]
    return None
