"""Per-tenant rate limits against the real Postgres: a burst past the limit gets 429 with a
Retry-After that is right, other tenants and keys keep their own allowance, concurrent requests on
connections of their own never get more than the limit, and overrides take effect at once."""

from __future__ import annotations

import dataclasses
import threading
import uuid

import pytest

from memex import keys, rate_limit, tenants
from memex.config import ConfigurationError, load_settings
from memex.rate_limit import Caller, InvalidRate, parse_rate
from tests.conftest import Tenant, api_client, served

HEADERS = ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset")


def count(tenant: Tenant):
    return tenant.get(f"/v1/memories/count?user_id={tenant.user}")


def age_bucket(ctx, tenant_id: str, seconds: int, key_id: str = "") -> None:
    """Moves the bucket's last refill `seconds` into the past: the clock running, without a wait."""
    ctx.db.connection().execute(
        "UPDATE rate_limit_buckets SET refilled_at = refilled_at - make_interval(secs => %s)"
        " WHERE tenant_id = %s AND key_id = %s", (seconds, tenant_id, key_id))


@pytest.fixture(scope="module")
def limited(ctx):
    """An app whose configuration sets MEMEX_RATE_LIMIT to 2/min, on the same database."""
    settings = dataclasses.replace(ctx.settings, rate_limit=parse_rate("2/min"))
    limited_ctx = dataclasses.replace(ctx, settings=settings)
    with api_client(limited_ctx) as client:
        yield limited_ctx, client


def test_rates_parse_in_every_unit_and_refuse_what_is_not_a_rate(monkeypatch):
    assert parse_rate("20/s") == rate_limit.Rate(20, 1, "s")
    assert parse_rate(" 600 / minute ").per_second == 10
    assert str(parse_rate("5000/hour")) == "5000/h" and parse_rate("7/day").period_seconds == 86_400
    assert parse_rate("unlimited") is None
    for bad in ("20", "0/s", "-1/s", "20/fortnight", "1.5/s", "s/20", ""):
        with pytest.raises(InvalidRate, match="is not a rate: write N/s, N/min"):
            parse_rate(bad)
    monkeypatch.setenv("MEMEX_RATE_LIMIT", "20/sx")
    with pytest.raises(ConfigurationError, match=r"^MEMEX_RATE_LIMIT: '20/sx' is not a rate"):
        load_settings()
    monkeypatch.setenv("MEMEX_RATE_LIMIT", "")
    assert load_settings().rate_limit is None


def test_a_burst_past_the_limit_gets_429_with_a_retry_after_that_holds(ctx, tenant, other_tenant):
    tenants.set_limit(ctx, tenant.id, "2/h")
    first, second, third = count(tenant), count(tenant), count(tenant)
    assert first.status_code == second.status_code == 200
    assert [first.headers["ratelimit-remaining"], second.headers["ratelimit-remaining"]] == ["1", "0"]
    assert first.headers["ratelimit-limit"] == "2" and first.headers["ratelimit-policy"] == "2;w=3600"

    assert third.status_code == 429
    assert third.json()["error"]["code"] == "rate_limited"
    assert "2/h" in third.json()["error"]["message"]
    # One token comes back every 1800 s; the bucket was empty a moment ago.
    retry_after = int(third.headers["retry-after"])
    assert 1790 <= retry_after <= 1800
    assert third.headers["ratelimit-remaining"] == "0" and third.headers["ratelimit-limit"] == "2"
    assert 3590 <= int(third.headers["ratelimit-reset"]) <= 3600

    # The other tenant, with no limit set, is not touched, and answers carry no RateLimit fields.
    untouched = count(other_tenant)
    assert untouched.status_code == 200 and not any(h in untouched.headers for h in HEADERS)

    # A minute short of Retry-After it is still refused; at Retry-After, admitted.
    age_bucket(ctx, tenant.id, retry_after - 60)
    assert count(tenant).status_code == 429
    age_bucket(ctx, tenant.id, retry_after)
    assert count(tenant).status_code == 200


def test_the_configured_default_limits_each_tenant_on_its_own(ctx, limited, http):
    limited_ctx, client = limited
    one, two = Tenant(ctx, client), Tenant(ctx, client)
    assert [count(one).status_code for _ in range(3)] == [200, 200, 429]
    assert [count(two).status_code for _ in range(2)] == [200, 200]
    # Every authenticated route counts, and a refused request does no work.
    refused = one.post("/v1/memories", {"user_id": one.user, "content": "over the limit"})
    assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 30
    age_bucket(ctx, one.id, 120)
    assert count(one).json() == {"count": 0}
    # An error answered within the limit carries the fields too.
    third = Tenant(ctx, client)
    missing = third.get("/v1/memories/m-none")
    assert missing.status_code == 404 and missing.headers["ratelimit-remaining"] == "1"
    assert missing.headers["ratelimit-limit"] == "2" and "retry-after" not in missing.headers
    # /health is not authenticated and not limited.
    assert all(client.get("/health").status_code in (200, 503) for _ in range(4))


def test_a_tenant_override_replaces_the_default_and_clears(ctx, limited):
    limited_ctx, client = limited
    tenant = Tenant(ctx, client)
    tenants.set_limit(limited_ctx, tenant.id, "5/min")
    shown = tenants.describe(limited_ctx, tenant.id)
    assert shown["rate_limit"] == "5/min" and shown["rate_limit_source"] == "tenant override"
    answers = [count(tenant) for _ in range(6)]
    assert [a.status_code for a in answers] == [200] * 5 + [429]
    assert answers[0].headers["ratelimit-limit"] == "5"

    exempt = Tenant(ctx, client)
    tenants.set_limit(limited_ctx, exempt.id, "unlimited")
    assert all(count(exempt).status_code == 200 for _ in range(5))

    tenants.set_limit(limited_ctx, exempt.id, None)
    assert tenants.describe(limited_ctx, exempt.id)["rate_limit"] == "2/min"
    assert [count(exempt).status_code for _ in range(3)] == [200, 200, 429]


def test_a_key_with_its_own_limit_has_its_own_bucket(ctx, limited):
    limited_ctx, client = limited
    tenant = Tenant(ctx, client)
    issued = keys.issue_key(ctx, tenant.id)
    keys.set_key_limit(ctx, issued.id, "1/h")
    second_key = Tenant.__new__(Tenant)
    second_key.__dict__.update(tenant.__dict__, key=issued.secret)
    assert [count(second_key).status_code for _ in range(2)] == [200, 429]
    # The tenant's other key is counted in the tenant's bucket (the default, 2/min), untouched so far.
    assert [count(tenant).status_code for _ in range(3)] == [200, 200, 429]
    keys.set_key_limit(ctx, issued.id, None)
    assert count(second_key).status_code == 429  # now in the tenant's bucket, which is empty
    with pytest.raises(Exception, match="no API key 'key_nope'"):
        keys.set_key_limit(ctx, "key_nope", "1/s")


def test_concurrent_requests_on_their_own_connections_never_over_admit(ctx):
    tenant_id = f"t-{uuid.uuid4().hex[:10]}"
    tenants.set_limit(ctx, tenant_id, "10/h")
    caller = Caller(tenant_id, tenant_limit="10/h")
    threads, start = 40, threading.Barrier(40)
    outcomes: list[bool] = []
    connections: set[int] = set()
    lock = threading.Lock()

    def request():
        conn = ctx.db.connection()  # this thread's own connection
        start.wait()
        try:
            decision = rate_limit.admit(ctx, caller)
            with lock:
                outcomes.append(decision.admitted)
                connections.add(conn.info.backend_pid)
        finally:
            ctx.db.reset()

    workers = [threading.Thread(target=request) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert len(outcomes) == threads and len(connections) == threads
    assert outcomes.count(True) == 10


def test_a_revoked_key_gets_401_and_the_others_keep_working(ctx, tenant):
    spare = keys.issue_key(ctx, tenant.id)
    assert count(tenant).status_code == 200
    listed = {row["id"]: row for row in keys.list_keys(ctx, tenant.id)}
    assert len(listed) == 2 and spare.id in listed
    assert all(spare.secret not in str(row) for row in listed.values())
    original = next(row for row in listed.values() if row["id"] != spare.id)
    assert original["last_used_at"] is not None and listed[spare.id]["last_used_at"] is None

    keys.revoke_key(ctx, original["id"])
    refused = count(tenant)
    assert refused.status_code == 401 and refused.json()["error"] == {
        "code": "unauthorized", "message": "this API key has been revoked"}
    with_spare = tenant._http.get(f"/v1/memories/count?user_id={tenant.user}",
                                  headers={"Authorization": f"Bearer {spare.secret}"})
    assert with_spare.status_code == 200
    with pytest.raises(Exception, match="no API key 'key_000000000000'"):
        keys.revoke_key(ctx, "key_000000000000")


def test_mcp_requests_are_limited_and_a_revoked_key_refused(ctx, tenant, event_loop_for_mangum):
    from tests.test_mcp import _invoke

    tenants.set_limit(ctx, tenant.id, "1/h")
    status, headers, answer = _invoke("mcp_initialize", tenant.key)
    assert status == 200 and answer["result"]["serverInfo"]["name"] == "memex"
    assert headers["ratelimit-limit"] == "1" and headers["ratelimit-remaining"] == "0"
    status, headers, answer = _invoke("mcp_tools_list", tenant.key)
    assert status == 429 and answer["error"]["data"]["code"] == "rate_limited"
    assert answer["error"]["message"].startswith("rate_limited: rate limit of 1/h exceeded; retry in ")
    assert 3590 <= int(headers["retry-after"]) <= 3600

    tenants.set_limit(ctx, tenant.id, None)
    assert _invoke("mcp_tools_list", tenant.key)[0] == 200
    keys.revoke_key(ctx, keys.list_keys(ctx, tenant.id)[0]["id"])
    status, _, answer = _invoke("mcp_tools_list", tenant.key)
    assert status == 401 and answer["error"]["message"] == "unauthorized: this API key has been revoked"


def test_a_concurrent_burst_through_the_server_admits_exactly_the_limit(ctx, runtime, tenant, other_tenant):
    """The local runtime's app on a loopback port: requests on connections of their own, served by
    the server's request threads (each with its own Postgres connection)."""
    import httpx

    with served(runtime.asgi_app()) as base_url:
        tenants.set_limit(ctx, tenant.id, "6/h")
        url = f"{base_url}/v1/memories/count?user_id={tenant.user}"
        start = threading.Barrier(24)
        statuses: list[int] = []

        def request(who: Tenant) -> None:
            with httpx.Client(timeout=60) as client:  # a connection of its own
                start.wait()
                statuses.append(client.get(url, headers=who.headers).status_code)

        workers = [threading.Thread(target=request, args=(tenant,)) for _ in range(20)]
        workers += [threading.Thread(target=request, args=(other_tenant,)) for _ in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        assert sorted(statuses) == [200] * (6 + 4) + [429] * 14
