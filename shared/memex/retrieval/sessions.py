"""The spread across sessions: past a session's first few memories, each further one counts a little less.

A question whose answers were said in several sessions ("What has Melanie painted?") often finds
one session's lines first, and they, with the lines said next to them (the neighbours cue,
search.py), fill the top ten while the other sessions' answers wait below. Past the first `free`
memories of a session, each further one counts a little less, so that the best line of another
session can pass the fourth-best of the first. (A harsher per-turn spread, every second memory of a
turn at 0.8, was measured and dropped: the evidence of most questions lies in one session. So was
the opposite, a lift for the lines of a session holding many of the best hits: README, LoCoMo.)
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

from memex.db.memories import Found


def spread(relevance: Mapping[str, float], found: Mapping[str, Found], free: int, decay: float) -> dict[str, float]:
    """The relevance of each memory, times `decay` for each memory of its session ranked above it
    beyond the first `free`. Memories without a session keep theirs; nothing rises, so relevance
    stays within [0, 1]."""
    seen: Counter[str] = Counter()
    out = {}
    for item in sorted(relevance, key=lambda item: relevance[item], reverse=True):
        session = found[item].session_id
        if session is None:
            out[item] = relevance[item]
            continue
        out[item] = relevance[item] * decay ** max(0, seen[session] - free + 1)
        seen[session] += 1
    return out
