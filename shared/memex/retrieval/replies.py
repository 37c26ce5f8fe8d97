"""Replies: the line said right after a line that asks something is the likeliest answer to it.

"How did they react when they saw it?" shares the words and the meaning of "How did John describe
his kids' reaction at the military memorial?"; the answer, said next ("They were awestruck and
humbled."), shares neither. The neighbour cue (search.py `_cues`) gives the lines said near one of
the best hits a share of its relevance, the same share before and after it; but a line that asks
is seldom what a question is about, its reply is. So the line right after a best hit that asks
takes `search_reply_share` of the hit's relevance when that is more than the neighbour share.
"""

from __future__ import annotations

import re

from memex.config import Settings

# A question mark that ends a sentence: "Is taking care of them tough?", "What's it about? Glad it's
# done!"; not one inside a link ("?q="). Wider than standalone.asks (the line ends with one), which
# decides a line's context: a line that asks and then remarks is answered next all the same.
_ASKS = re.compile(r"\?[?!]*(?=[\s\"'”’)]|$)")


def asks(said: str) -> bool:
    """Whether a line (its own words, without its speaker's name) asks something."""
    return bool(_ASKS.search(said))


def share(settings: Settings, anchor_said: str, step: int) -> float:
    """The share of a best hit's relevance that a line said `step` lines from it takes (1: the next
    line), the hit's own words being `anchor_said`."""
    if step == 1 and asks(anchor_said):
        return max(settings.search_neighbour_share, settings.search_reply_share)
    return settings.search_neighbour_share
