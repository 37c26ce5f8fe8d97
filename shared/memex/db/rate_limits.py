"""The token buckets of the rate limiter: one atomic statement takes a token or says why not."""

from __future__ import annotations

import psycopg

# The row lock of ON CONFLICT DO UPDATE serialises concurrent requests on one bucket, and each
# recomputes from the row as the previous one left it, so no two spend the same token. The clock is
# read before the lock is granted: a request that waited may carry a time older than the row's,
# hence greatest(0, ...) (no negative refill) and greatest(...) on the stored time.
_TAKE = """
INSERT INTO rate_limit_buckets AS b (tenant_id, key_id, tokens, refilled_at, admitted)
VALUES (%(tenant)s, %(bucket)s, %(capacity)s - 1, clock_timestamp(), true)
ON CONFLICT (tenant_id, key_id) DO UPDATE SET
    tokens = CASE WHEN {available} >= 1 THEN {available} - 1 ELSE {available} END,
    admitted = {available} >= 1,
    refilled_at = greatest(b.refilled_at, excluded.refilled_at)
RETURNING admitted, tokens
""".format(available="least(%(capacity)s, b.tokens + %(per_second)s"
                     " * greatest(0, extract(epoch FROM excluded.refilled_at - b.refilled_at)::float8))")


def take(conn: psycopg.Connection, tenant_id: str, bucket: str, *, capacity: int,
         per_second: float) -> tuple[bool, float]:
    """Whether a token was taken, and the tokens left in the bucket afterwards."""
    row = conn.execute(_TAKE, {"tenant": tenant_id, "bucket": bucket, "capacity": float(capacity),
                               "per_second": float(per_second)}).fetchone()
    return row["admitted"], row["tokens"]
