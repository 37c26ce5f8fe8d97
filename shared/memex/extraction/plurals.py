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
# Nouns whose plural is the word itself, as "fish" is.
_SAME_PLURAL = frozenset({"series", "species"})
# After these endings a plural takes "es" ("dishes", "boxes", "buses").
_TAKES_ES = re.compile(r"(?:s|x|z|ch|sh)$")
# A plural in "-es" after these is of the word without the "e" ("dishes": dish, "glasses": glass); after one "s" or
# "z" it is mostly of a word in "-e" ("horses", "prizes"; "buses" is the fewer), and "-ches" of a few such words
# ("headaches"), named as the "-ie" nouns are.
_ES_WITHOUT_E = re.compile(r"(?:ss|zz|x|ch|sh)$")
_CHE_NOUNS = frozenset("ache headache niche cache quiche moustache mustache avalanche cliche".split())


def plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "movie" -> "movies", "dish" -> "dishes", "goldfish" -> "goldfish"."""
    if word.endswith("fish") or word in _SAME_PLURAL:
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if _TAKES_ES.search(word):
        return word + "es"
    return word + "s"


def stems(word: str) -> list[str]:
    """Every word whose plural `word` is, by plural's endings read back ("foods": food; "movies": movy and
    movie, "dishes": dishe and dish, which the endings cannot tell apart), or `word` alone when it is no plural
    of that shape."""
    if word in _SAME_PLURAL:
        return [word]
    found = [stem for stem in (word[:-3] + "y", word[:-1], word[:-2]) if stem and plural(stem) == word]
    return found or [word]


def singular(word: str) -> str:
    """The word a plural is of: "foods" -> "food", "cities" -> "city", "movies" -> "movie" (_IE_NOUNS), "dishes" ->
    "dish", "horses" -> "horse" (_ES_WITHOUT_E); by the endings alone otherwise."""
    found = stems(word)
    return next((stem for stem in found if stem in _IE_NOUNS
                 or _ES_WITHOUT_E.search(stem) and stem + "e" not in _CHE_NOUNS), found[0])


def ie_noun(word: str) -> str:
    """The "-ie" noun of _IE_NOUNS that `word` is, said as singular read its plural by the endings alone
    before it knew them ("movy": "movie", "budgy": "budgie"), or `word`."""
    return word[:-1] + "ie" if word.endswith("y") and word[:-1] + "ie" in _IE_NOUNS else word
