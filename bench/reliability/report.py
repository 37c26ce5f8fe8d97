"""What a scenario found: named checks that pass or fail, and the figures behind them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class Result:
    scenario: str
    checks: list[Check] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append(Check(name, bool(ok), detail))
        return bool(ok)

    @property
    def passed(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def failed(self) -> int:
        return sum(not c.ok for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "passed": self.passed, "failed": self.failed,
                "seconds": round(self.seconds, 1), "figures": self.figures,
                "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks]}


def error_shaped(response) -> bool:
    """The wire contract's error body: {"error": {"code": str, "message": str}}."""
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return (isinstance(error, dict) and isinstance(error.get("code"), str)
            and isinstance(error.get("message"), str))
