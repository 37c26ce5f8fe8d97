"""Confirmations: the line a best hit says yes to holds what the hit confirms.

"Yep! I'm currently playing this awesome fantasy RPG" answers "So what's your favorite game?";
"Yeah, it does! My brother wrote it" answers "Does it remind you of your childhood?"; "Yeah! Let's
make some awesome memories tomorrow at the grand opening!" agrees with "I'll be right by your side,
Jon. Let's live it up". A line that opens by saying yes takes the line before it as given: what is
asked or said there is half of what it says, and that half carries none of the hit's words. The
neighbour cue (search.py `_cues`) gives the line before a best hit the same share as any neighbour;
the line right before a best hit that opens with a yes takes `search_confirmed_share` of the hit's
relevance instead, when more. The reply to a hit that asks is replies.py's.
"""

from __future__ import annotations

import re

from memex.config import Settings

# A yes at the start of a line, its first word(s) only: "Yep!", "Yeah, it does!", "Sure thing!",
# "Definitely!". Not "Wow" or "Thanks": they answer praise or news, which the line before rarely
# holds more of than the hit does.
_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup|yea|sure|definitely|absolutely|totally|exactly|indeed|of course"
                  r"|it (?:does|did|is|was)|i (?:do|did))\b", re.IGNORECASE)


def confirms(said: str) -> bool:
    """Whether a line (its own words, without its speaker's name) opens by saying yes."""
    return bool(_YES.match(said))


def share(settings: Settings, anchor_said: str, step: int) -> float:
    """The share of a best hit's relevance that the line said `step` lines from it takes for what
    the hit confirms (-1: the line before); 0 when the hit confirms nothing there."""
    return settings.search_confirmed_share if step == -1 and confirms(anchor_said) else 0.0
