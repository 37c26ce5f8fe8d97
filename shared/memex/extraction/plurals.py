"""A word's plural and the words a plural is of, by English's regular endings: what the offline rules
read a pet's kind and a liked thing by, and the kinds a question names (retrieval/topics.py), alike.
Here, not among the rules' patterns, so that a search loads no part of the offline extractor."""

from __future__ import annotations

import re

# Nouns that end in "-ie", whose plural reads back as a "-y" noun's by its ending alone ("movies" as
# "movy", "cookies" as "cooky"): no spelling tells "movies" from "cities" or "puppies", and the "-y"
# nouns are many more, so these few are named, as "fish" is below.
_IE_NOUNS = frozenset(
    "movie cookie pie tie lie hippie rookie selfie zombie brownie smoothie hoodie goalie calorie prairie veggie "
    "auntie budgie collie yorkie foodie newbie freebie indie birdie genie sweetie".split())


def plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "movie" -> "movies", "goldfish" -> "goldfish"."""
    if word.endswith("fish"):
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


def stems(word: str) -> list[str]:
    """Every word whose plural `word` is, by plural's endings read back ("foods": food; "movies": movy and
    movie, which the endings cannot tell apart), or `word` alone when it is no plural of that shape."""
    found = [stem for stem in (word[:-3] + "y", word[:-1], word[:-2])
             if stem and plural(stem) == word and not stem.endswith("s")]
    return found or [word]


def singular(word: str) -> str:
    """The word a plural is of: "foods" -> "food", "cities" -> "city", "movies" -> "movie" (_IE_NOUNS); by
    the endings alone otherwise ("series" -> "sery")."""
    found = stems(word)
    return next((stem for stem in found if stem in _IE_NOUNS), found[0])


def ie_noun(word: str) -> str:
    """The "-ie" noun of _IE_NOUNS that `word` is, said as singular read its plural by the endings alone
    before it knew them ("movy": "movie", "budgy": "budgie"), or `word`."""
    return word[:-1] + "ie" if word.endswith("y") and word[:-1] + "ie" in _IE_NOUNS else word
