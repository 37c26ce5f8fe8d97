"""Keys that expire: `memex keys create --expires-in`, a 401 that says the key expired, and the
expiry in `memex keys list`."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from infra.cli import InvalidDuration, duration
from memex.keys import issue_key, revoke_key
from tests.conftest import memex_cli


_WIRE_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"


def _env(ctx) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": ctx.db.dsn}


def test_a_key_made_to_expire_in_90_days_says_so_and_keys_list_shows_when(ctx, http):
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    before = datetime.now(timezone.utc)
    made = memex_cli("keys", "create", "--tenant", tenant, "--expires-in", "90d", env=_env(ctx))
    assert made.returncode == 0, made.stderr
    assert re.search(r"it expires at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ", made.stderr)
    listed = json.loads(memex_cli("keys", "list", "--tenant", tenant, "--json", env=_env(ctx)).stdout)
    # As the wire sends times (memex.models.wire_time): RFC 3339 in UTC with Z, whatever the session's zone.
    for field in ("created_at", "expires_at"):
        assert re.fullmatch(_WIRE_TIME, listed[0][field]), (field, listed[0])
    expires_at = datetime.fromisoformat(listed[0]["expires_at"])
    assert timedelta(days=90) <= expires_at - before < timedelta(days=90, minutes=5)
    table = memex_cli("keys", "list", "--tenant", tenant, env=_env(ctx)).stdout.splitlines()
    columns = dict(zip(re.split(r"\s{2,}", table[0]), re.split(r"\s{2,}", table[1])))
    assert columns["EXPIRES"] == expires_at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    answered = http.get("/v1/memories/count", params={"user_id": "u"},
                        headers={"Authorization": f"Bearer {made.stdout.strip()}"})
    assert answered.status_code == 200, answered.text
    used = json.loads(memex_cli("keys", "list", "--tenant", tenant, "--json", env=_env(ctx)).stdout)[0]["last_used_at"]
    assert re.fullmatch(_WIRE_TIME, used), used

    lasting = memex_cli("keys", "create", "--tenant", tenant, env=_env(ctx))
    assert "expires" not in lasting.stderr
    listed = json.loads(memex_cli("keys", "list", "--tenant", tenant, "--json", env=_env(ctx)).stdout)
    assert [row["expires_at"] is None for row in listed] == [False, True]
    assert memex_cli("keys", "list", "--tenant", tenant, env=_env(ctx)).stdout.splitlines()[2].split()[-2] == "-"


@pytest.mark.parametrize("value, says", [
    ("90", "is not a duration"), ("90x", "is not a duration"), ("1.5d", "is not a duration"),
    ("-1d", "is not a duration"), ("d", "is not a duration"), ("", "is not a duration"),
    ("0s", "is out of range"), ("36501d", "is out of range"), ("999999999999d", "is out of range"),
])
def test_a_bad_expiry_is_refused_naming_the_option(value, says):
    with pytest.raises(InvalidDuration, match=f"--expires-in: '{re.escape(value)}' {says}"):
        duration(value)


def test_every_unit_is_read():
    assert [duration(v) for v in ("90d", "12h", "30m", "45s", "36500d")] == [
        timedelta(days=90), timedelta(hours=12), timedelta(minutes=30), timedelta(seconds=45), timedelta(days=36500)]


def test_the_command_refuses_a_bad_expiry_before_making_anything(ctx):
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    bad = memex_cli("keys", "create", "--tenant", tenant, "--expires-in", "90x", env=_env(ctx))
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and bad.stdout == ""
    assert "memex: --expires-in: '90x' is not a duration" in bad.stderr
    assert json.loads(memex_cli("keys", "list", "--tenant", tenant, "--json", env=_env(ctx)).stdout) == []


def test_an_expired_key_gets_401_saying_it_expired(ctx, http):
    tenant = f"t-{uuid.uuid4().hex[:10]}"
    # Time for the first request on a slow machine (with 1 s it could arrive after the expiry); then a wait
    # until the key has expired by the clock the database reads it with, however long the first request took.
    short = issue_key(ctx, tenant, timedelta(seconds=3))
    headers = {"Authorization": f"Bearer {short.secret}"}
    assert http.get("/v1/memories/count", params={"user_id": "u"}, headers=headers).status_code == 200
    deadline = time.monotonic() + 30
    while not ctx.db.connection().execute("SELECT expires_at <= now() AS expired FROM api_keys WHERE id = %s",
                                          (short.id,)).fetchone()["expired"]:
        assert time.monotonic() < deadline, "the key never expired"
        time.sleep(0.1)
    refused = http.get("/v1/memories/count", params={"user_id": "u"}, headers=headers)
    assert refused.status_code == 401
    message = refused.json()["error"]["message"]
    assert message.startswith("this API key expired at ") and message.endswith("Z")
    assert "revoked" not in message and "invalid" not in message
    described = json.loads(memex_cli("tenants", "show", tenant, env=_env(ctx)).stdout)
    assert (described["active_keys"], described["expired_keys"]) == (0, 1)
    revoke_key(ctx, short.id)  # revoked and expired: revocation is what the operator did last
    refused = http.get("/v1/memories/count", params={"user_id": "u"}, headers=headers)
    assert refused.json()["error"]["message"] == "this API key has been revoked"
