"""Sessions in the ranking: the session cue (`lift`) and the spread across sessions (`spread`).

The session cue: the lines of a session that holds many of a search's best hits gain a little.

A question that needs two facts ("What did Melanie do after the race?") often finds one of them
and the lines around it, while the second was said in the same conversation a few minutes later,
in words the question does not use. The neighbours cue (search.py) reaches the lines right next to a
hit; this reaches the rest of the session, in proportion to how much of the top the session holds:
a session with six of the ten best hits is where the answer is being talked about, one with a single
hit may be a coincidence of words. It only reorders what the channels found: it adds no candidate.

The spread is the other way round: a question whose answers were said in several sessions ("What
has Melanie painted?") often finds one session's lines first, and they, with the lines said next
to them, fill the top ten while the other sessions' answers wait below. Past the first `free`
memories of a session, each further one counts a little less, so that the best line of another
session can pass the fourth-best of the first. (A harsher per-turn spread, every second memory of a
turn at 0.8, was measured and dropped: the evidence of most questions lies in one session.)
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from memex.db.memories import Found


def lift(relevance: Mapping[str, float], kept: Sequence[str], found: Mapping[str, Found], hits: int,
         boost: float) -> dict[str, float]:
    """The relevance of `kept`, each memory's times 1 + `boost` x the share of the `hits` best that
    its session holds, divided by the largest such factor so that relevance stays within [0, 1].
    Memories without a session, and sessions absent from the best, keep their relevance (divided)."""
    best = sorted(kept, key=lambda item: relevance[item], reverse=True)[:hits]
    held = Counter(found[item].session_id for item in best if found[item].session_id is not None)
    if not held or boost <= 0:
        return dict(relevance)
    top = 1 + boost * max(held.values()) / len(best)
    return {item: relevance[item] * (1 + boost * held.get(found[item].session_id, 0) / len(best)) / top
            for item in relevance}


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
