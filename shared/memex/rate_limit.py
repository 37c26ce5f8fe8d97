"""Per-tenant rate limits: the rate notation (`20/s`, `600/min`), which limit applies to a caller,
and admitting one request against its token bucket in Postgres.

The bucket lives in the database so that a limit holds across every Lambda execution environment
and local server process at once; each request costs one atomic statement (db/rate_limits.py).
A limit of N per period is a bucket of N tokens refilled at N per period: a caller may spend a
whole period's allowance in a burst, then gets one request per period/N.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memex.db import rate_limits as buckets

if TYPE_CHECKING:
    from memex.context import Context

UNLIMITED = "unlimited"
_PERIODS = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hour": 3600,
            "d": 86_400, "day": 86_400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*([a-z]+)\s*$")


class InvalidRate(ValueError):
    pass


@dataclass(frozen=True)
class Rate:
    requests: int
    period_seconds: int
    unit: str

    @property
    def per_second(self) -> float:
        return self.requests / self.period_seconds

    def __str__(self) -> str:
        return f"{self.requests}/{self.unit}"


def parse_rate(text: str) -> Rate | None:
    """`20/s`, `600/min`, `5000/h`, `100000/day`; `unlimited` (None) exempts a tenant or key from
    the default. Raises InvalidRate saying what is accepted."""
    if text.strip().lower() == UNLIMITED:
        return None
    match = _RATE.match(text.lower())
    unit = match.group(2) if match else ""
    if not match or unit not in _PERIODS or int(match.group(1)) < 1:
        raise InvalidRate(f"{text!r} is not a rate: write N/s, N/min, N/h or N/day with N >= 1 "
                          f"(for example 20/s or 600/min), or {UNLIMITED}")
    canonical = {"sec": "s", "second": "s", "minute": "min", "hour": "h", "d": "day"}.get(unit, unit)
    return Rate(int(match.group(1)), _PERIODS[unit], canonical)


def canonical(text: str) -> str:
    """The rate as stored and shown (`600/minute` -> `600/min`); raises InvalidRate."""
    rate = parse_rate(text)
    return UNLIMITED if rate is None else str(rate)


@dataclass(frozen=True)
class Caller:
    """Who a request acts for, with the limits set on them (None: not set)."""
    tenant_id: str
    key_id: str | None = None
    key_limit: str | None = None
    tenant_limit: str | None = None


@dataclass(frozen=True)
class Decision:
    admitted: bool
    rate: Rate
    remaining: int
    # Seconds until the bucket is full again, and (when refused) until one request is allowed.
    reset_seconds: int
    retry_after_seconds: int


def limit_for(ctx: "Context", caller: Caller) -> tuple[Rate | None, str]:
    """The rate that applies and the bucket it is counted in ('' : the tenant's shared bucket).
    A key with a limit of its own has a bucket of its own; every other key of the tenant, and
    requests without a key, share the tenant's, under the tenant's override or the default."""
    if caller.key_limit is not None and caller.key_id is not None:
        return parse_rate(caller.key_limit), caller.key_id
    if caller.tenant_limit is not None:
        return parse_rate(caller.tenant_limit), ""
    return ctx.settings.rate_limit, ""


def admit(ctx: "Context", caller: Caller) -> Decision | None:
    """Spend one token of the caller's bucket. None when no limit applies."""
    rate, bucket = limit_for(ctx, caller)
    if rate is None:
        return None
    admitted, tokens = buckets.take(ctx.db.connection(), caller.tenant_id, bucket,
                                    capacity=rate.requests, per_second=rate.per_second)
    # ceil: a client that waits the whole number of seconds it is told finds its token there.
    reset = math.ceil(max(0.0, rate.requests - tokens) / rate.per_second)
    retry_after = 0 if admitted else max(1, math.ceil((1 - tokens) / rate.per_second))
    return Decision(admitted, rate, remaining=int(tokens), reset_seconds=reset, retry_after_seconds=retry_after)
