"""Lines that say nothing of their own: "Got it!", "Thanks, sounds great.", "Haha, same here!", and
a line with no word at all ("👍", "...") but for an emoji that names something: "🍕🍕" answered to "What
should we eat?" says what, as "Pizza!" would, and an emoji is a word to search (memex.emoji).

An assistant's acknowledgement, or a participant's pleasantry, is kept as an episodic memory like
any message (it is part of the record), but it is not indexed with the line it answers: that line
is a memory itself, and a "Got it!" indexed with "I live in Dublin" would come back for "where do
I live?" beside it, taking a place in the results and in a recall's budget. For the same reason a
filler line, or a greeting, does not take a share of its neighbour's relevance (retrieval/search.py,
the neighbours cue). A reply that holds anything else ("Kinkaku-ji, at sunset.", "Yes, last May!",
"Two of them.") is not filler: what it says depends on the line it answers. A courtesy said over
again in one reply ("Noted! That's great to hear. That's great to hear. ...") says it once: its
sentences said before count for nothing, or a reply's length alone would make it say something (qa5:
such a reply, after each of ten lines, came 2nd in a recall above the lines it answered).
"""

from __future__ import annotations

import re

from memex import emoji, standalone

# Function words, and the words of acknowledgements, thanks, greetings and small reactions.
# Nothing here names a thing, a person, a place, a time or a quantity (so the offline expansion
# takes none of them for a name: retrieval/multihop.py).
WORDS = frozenset("""
a an the and or but so if then than that this these those it its it's i i'm i've i'll i'd me my
mine you you're you've you'll your yours we we're we'll our us he she they them their his her is
am are was were be been being do does did done have has had having will would shall should can
could just really very too also quite pretty so much well oh ah aw hey hi hello hmm um uh wow
yay yeah yes yep yup no nope nah not ok okay k alright all right sure of course indeed totally
absolutely definitely exactly certainly got get gotcha understood understand noted note see
hear sharing
thanks thank thx ty cheers welcome glad happy pleased help helps helped anytime any time anything
else let know tell me sounds sound good great nice cool awesome amazing fantastic wonderful
lovely perfect fine excellent brilliant neat sweet fun funny interesting true agreed agree same
here there too haha hahaha lol lmao hehe omg congrats congratulations good luck best wishes
bye goodbye later see soon talk take care night morning evening day have a to for with in on at
by from about as what how that's it's there's here's you're we're they're he's she's what's
don't doesn't didn't can't won't isn't aren't wasn't weren't i'm glad love awesome course
""".split())
# The emoji people answer with, as they answer "lol", "thanks" or "ok" (Unicode's faces and hearts, hands, and
# the marks of yes, no and wow): a line of them says nothing of its own. A ZWJ sequence is its first emoji's
# ("🤷‍♀️" a shrug); any other emoji names a thing ("🍕", "🇯🇵", "🐶").
_REACTIONS = re.compile("[\u2611\u2705\u2639\u263a\u2665\u270a-\u270c\u2713\u2714\u2716\u2728\u274c\u274e\u2753-\u2755"
                        "\u2757\u2763\u2764\u2b50\u203c\u2049\U0001f192\U0001f197\U0001f31f\U0001f389\U0001f38a"
                        "\U0001f440\U0001f44a-\U0001f450\U0001f480\U0001f493-\U0001f49f\U0001f4aa\U0001f4af\U0001f525"
                        "\U0001f5a4\U0001f600-\U0001f64f\U0001f90d-\U0001f92f\U0001f937\U0001f970-\U0001f976"
                        "\U0001f978-\U0001f97a\U0001f9d0\U0001f9e1\U0001fa75-\U0001fa77\U0001fae0-\U0001fae6"
                        "\U0001fae8-\U0001faea\U0001faf0-\U0001faf8]")
# What makes the rest of an addressed line a greeting: "Thanks, Tom!" greets Tom, "Sintra, definitely!" and
# "Yes, Lisbon!" answer with a place.
_GREETING = (r"hi|hello|hey|thanks|thank|thx|ty|cheers|bye|goodbye|welcome|congrats|congratulations|"
             r"good (?:morning|evening|night|luck)|take care|see you")
_GREETS = re.compile(rf"\b(?:{_GREETING})\b", re.IGNORECASE)
# A greeting's words that say something elsewhere ("meet", a name), said only as a greeting here:
# pleased to meet someone, and the person a line is addressed to ("Maya, ..." or "..., Maya!"), each
# with what it leaves in the name's place. Without a comma, a name is one only right after the greeting
# and before the sentence goes on ("Thanks Mel!", "Hey Jon, how are you?", as LoCoMo's lines greet):
# "Thanks Mel for the book" says more, "Yes Lisbon!" answers.
_MEETING = re.compile(r"\b(?:nice|good|great|lovely|pleased|glad|happy)\s+to\s+(?:meet|see)\s+you\b", re.I)
_ADDRESSED = ((re.compile(r"^\s*[A-Z][^\W\d_]*\s*,"), " "), (re.compile(r",\s*[A-Z][^\W\d_]*(?=[\s.!?]*$)"), " "),
              (re.compile(rf"\b(?P<greeting>(?i:{_GREETING})(?i:\s+you)?)\s+[A-Z][^\W\d_]*(?=\s*(?:[,.!?]|$))"),
               r"\g<greeting> "))
# What ends a sentence, between two words ("3.5" is two sentences, but no number is filler).
_ENDS = re.compile(r"[.!?…]")
_MAX_WORDS = 16


def is_filler(text: str) -> bool:
    """Whether `text` is made only of acknowledgement and function words, and short (at most
    `_MAX_WORDS` of them, a sentence said again in it counted once), or of no word at all ("", "...",
    "👍": memex/standalone.wordless), and of no emoji but those people react with: a line that says
    nothing of its own."""
    # word by word, to stop at the first that says something: a search asks this of a hundred
    # candidates, nearly all of which fail on their first or second word
    sentences: set[tuple[str, ...]] = set()
    sentence: list[str] = []
    end = 0
    for match in standalone.WORD.finditer(text):
        if sentence and _ENDS.search(text, end, match.start()):
            sentences.add(tuple(sentence))
            sentence = []
        word = match.group().replace("’", "'").lower()
        if word not in WORDS or len(sentence) == _MAX_WORDS:
            return False
        sentence.append(word)
        end = match.end()
    sentences.add(tuple(sentence))
    return sum(len(words) for words in sentences) <= _MAX_WORDS and _reacts_only(text)


def names_nothing(text: str) -> bool:
    """Whether `text` has no word and no emoji that names something ("", "...", "👍", "😂😂"; not "🍕🍕"):
    no line to index another with."""
    return standalone.wordless(text) and _reacts_only(text)


def _reacts_only(text: str) -> bool:
    """Whether every emoji of `text` (none, most often) is one people react with."""
    return not emoji.holds(text) or all(_REACTIONS.match(m.group()) for m in emoji.SEQUENCE.finditer(text))


def says_nothing(text: str) -> bool:
    """Whether `text` is filler, or a greeting: "Nice to meet you, Maya!", "Thanks, Tom!", "Hey Jon!"."""
    if is_filler(text):
        return True
    unmet = _MEETING.sub(" ", text)
    if unmet != text and is_filler(unmet):
        return True
    return any(rest != unmet and is_filler(rest) and (unmet != text or _GREETS.search(rest))
               for rest in (address.sub(left, unmet) for address, left in _ADDRESSED))
