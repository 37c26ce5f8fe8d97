"""The local stand-in for EventBridge schedules: a scheduled function's real handler is called
with a scheduled event, every period, until the runtime stops."""

from __future__ import annotations

import threading
import time

from infra.local.runtime import SCHEDULES, function_module
from infra.local.scheduler import ScheduledRunner


def test_the_sweep_is_called_with_a_scheduled_event_until_stopped(runtime):
    assert "sweep" in SCHEDULES
    answers: list = []
    events: list[dict] = []
    left: list[int] = []
    sweep = function_module("sweep").handler

    def handler(event, context):
        events.append(event)
        left.append(context.get_remaining_time_in_millis())
        answers.append(sweep(event, context))

    stop = threading.Event()
    runner = ScheduledRunner("sweep", handler, 0.05, stop)
    runner.start()
    deadline = time.monotonic() + 30
    while len(answers) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    runner.join(timeout=30)
    assert not runner.is_alive() and len(answers) >= 2
    assert all(e["detail-type"] == "Scheduled Event" and e["source"] == "aws.events" for e in events)
    assert all(set(answer) == {"republished", "jobs_started", "jobs_failed", "jobs_left", "jobs_lock_held",
                                "erasures_finished", "vectors_filled"}
               for answer in answers)
    # Each run has the deployed sweep's time (60 s, read from template.yaml), counting down, which its
    # erasures are sized by.
    assert all(0 < ms <= 60_000 for ms in left), left
