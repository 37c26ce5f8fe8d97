"""The scheduled functions: the local runtime runs each one's handler on its own timer, as
EventBridge runs it in AWS (template.yaml lists the same functions; tests/test_template.py checks).

Name (folder under functions/) -> seconds between runs, from the settings. The local sweep runs
more often than the deployed one (every 5 minutes): a laptop's queue restarts with the runtime.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone
from typing import Callable

from memex.config import Settings

log = logging.getLogger("memex.local")

SCHEDULES: dict[str, Callable[[Settings], float]] = {
    "sweep": lambda s: max(5, s.sweep_after_seconds // 2),
    "consolidate": lambda s: s.consolidation_interval_seconds,
}


def scheduled_event(name: str) -> dict:
    """The EventBridge scheduled event the handler receives in AWS."""
    return {"version": "0", "detail-type": "Scheduled Event", "source": "aws.events",
            "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "resources": [f"arn:aws:events:local:000000000000:rule/memex-{name}"], "detail": {}}


def run_forever(name: str, settings: Settings, stop: threading.Event) -> None:
    """Call the function's handler every interval until `stop` is set."""
    from infra.local.lambda_context import LocalLambdaContext
    from infra.local.runtime import function_module

    while not stop.wait(SCHEDULES[name](settings)):
        try:
            # Imported at the first run, not at start: `make dev` starts no faster for it otherwise.
            function_module(name).handler(scheduled_event(name), LocalLambdaContext(name))
        except Exception:  # noqa: BLE001 - a failed run is retried at the next tick, as in AWS
            log.exception("scheduled %s failed", name)


def start(settings: Settings, stop: threading.Event) -> list[threading.Thread]:
    threads = [threading.Thread(target=run_forever, args=(name, settings, stop), name=f"schedule-{name}", daemon=True)
               for name in SCHEDULES]
    for thread in threads:
        thread.start()
    return threads
