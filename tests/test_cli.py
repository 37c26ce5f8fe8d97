"""The `memex` command: key creation against the configured database, and `invoke`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT
from tests.test_local_runtime import _RUNTIME_VARS


def _memex(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "infra.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


def test_keys_create_makes_a_key_that_maps_to_its_tenant(ctx, http):
    done = _memex("keys", "create", "--tenant", "cli-tenant", env={**os.environ, "DATABASE_URL": ctx.db.dsn})
    assert done.returncode == 0, done.stderr
    key = done.stdout.strip()
    assert key.startswith("mx_") and len(key) > 40
    headers = {"Authorization": f"Bearer {key}"}
    created = http.post("/v1/memories", json={"user_id": "u", "content": "via a CLI key"}, headers=headers)
    assert created.status_code == 201
    from memex.memories import count

    assert count(ctx, "cli-tenant", "u", None) == 1


def test_invoke_runs_a_handler_on_a_sample_event(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in _RUNTIME_VARS} | {"MEMEX_HOME": str(tmp_path)}
    done = _memex("invoke", "ingest", "events/ingest_post_turn.json", "--drain", env=env)
    assert done.returncode == 0, done.stderr
    response = json.loads(done.stdout)
    assert response["statusCode"] == 202, response
    assert "invoking without one (default tenant)" in done.stderr

    turn_id = json.loads(response["body"])["turn_id"]
    event = json.loads((ROOT / "events/ingest_get_turn.json").read_text())
    event["rawPath"] = event["requestContext"]["http"]["path"] = f"/v1/turns/{turn_id}"
    (tmp_path / "get.json").write_text(json.dumps(event))
    done = _memex("invoke", "ingest", str(tmp_path / "get.json"), env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(json.loads(done.stdout)["body"])["status"] == "processed"
