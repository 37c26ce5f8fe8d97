"""The reliability campaign, in its quick form, passes every check (`python -m bench.reliability
--quick`): fuzzing, faults, concurrency, isolation and the erasure audit against the real local
runtime over HTTP. The full form is `make reliability`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def _campaign(tmp_path, *args: str) -> dict:
    out = tmp_path / "reliability.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    run = subprocess.run([sys.executable, "-m", "bench.reliability", *args, "--out", str(out)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1800)
    assert out.exists(), f"the campaign wrote no report\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    report = json.loads(out.read_text())
    failed = [f"{s['scenario']}: {c['name']}: {c['detail']}" for s in report["scenarios"] for c in s["checks"]
              if not c["ok"]]
    assert not failed, "\n".join(failed) + f"\n{run.stdout[-3000:]}"
    assert run.returncode == 0, run.stdout[-3000:]
    return report


def test_quick_campaign_passes_every_check(tmp_path):
    report = _campaign(tmp_path, "--quick")
    figures = {s["scenario"]: s["figures"] for s in report["scenarios"]}
    assert {"fuzz", "faults", "concurrency", "isolation", "erasure"} == set(figures)
    assert figures["fuzz"]["requests fuzzed"] >= 200 and figures["fuzz"]["5xx seen"] == 0
    assert figures["faults"]["turns lost"] == 0 and figures["faults"]["turns duplicated"] == 0
    assert figures["isolation"]["leaks"] == 0
    assert figures["erasure"]["rows left"] == 0
