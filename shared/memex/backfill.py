"""Bulk import of historical conversations: JSON Lines, one turn per line, original timestamps.

Each line becomes a turn whose idempotency key is derived from the source and the line number,
so a redelivered backfill message re-reads the file without storing anything twice.
"""

from __future__ import annotations

import hashlib
import json
from typing import Iterable

from pydantic import ValidationError

from memex.context import Context
from memex.ingest import ingest_turn
from memex.models import TurnIn


def import_lines(ctx: Context, tenant_id: str, source: str, lines: Iterable[str]) -> dict[str, int]:
    source_tag = hashlib.sha256(source.encode()).hexdigest()[:16]
    counts = {"imported": 0, "failed": 0}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            data.setdefault("idempotency_key", f"backfill:{source_tag}:{number}")
            turn = TurnIn.model_validate(data)
        except (json.JSONDecodeError, ValidationError, AttributeError):
            counts["failed"] += 1
            continue
        ingest_turn(ctx, tenant_id, turn, wait=False)
        counts["imported"] += 1
    return counts
