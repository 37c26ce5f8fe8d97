"""A local stand-in for an EventBridge schedule: calls a scheduled function's Lambda handler with a
`Scheduled Event`, every period, until stopped."""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from infra import template
from infra.local.lambda_context import LocalLambdaContext, labelled
from memex_edge.observability import warn_of_outage

log = logging.getLogger("memex.scheduler")


@dataclass(frozen=True)
class Schedule:
    rate_seconds: int  # in AWS: the template's `rate(...)`
    local_seconds: Callable[[Any], float]  # locally: from the settings


def scheduled_event(function_name: str, region: str) -> dict[str, Any]:
    return {
        "version": "0", "id": str(uuid.uuid4()), "detail-type": "Scheduled Event", "source": "aws.events",
        "account": "000000000000", "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region, "resources": [f"arn:aws:events:{region}:000000000000:rule/memex-{function_name}"],
        "detail": {},
    }


class ScheduledRunner(threading.Thread):
    def __init__(self, function_name: str, handler: Callable[[dict, Any], Any], every_seconds: float,
                 stop: threading.Event, region: str = "us-east-1", timeout_seconds: float | None = None):
        super().__init__(name=f"schedule-{function_name}", daemon=True)
        self.function_name = function_name
        self.handler = handler
        self.every_seconds = every_seconds
        self.stop = stop
        self.region = region
        # Each local run's time left counts down from the deployed function's Timeout, as in Lambda.
        self.timeout_seconds = template.function_timeout(function_name) if timeout_seconds is None else timeout_seconds

    def run(self) -> None:
        while not self.stop.wait(self.every_seconds):
            try:
                # Its log lines name the scheduled function, not whichever ran last in this process.
                with labelled(LocalLambdaContext(self.function_name, timeout_seconds=self.timeout_seconds)) as context:
                    self.handler(scheduled_event(self.function_name, self.region), context)
            except Exception as exc:  # noqa: BLE001 - as EventBridge would, the next tick runs it again
                if not warn_of_outage(log, exc, f"scheduled function {self.function_name} failed"):
                    log.exception("scheduled function %s failed", self.function_name)
