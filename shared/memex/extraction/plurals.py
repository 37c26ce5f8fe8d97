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
# Plurals no ending makes, of the words the rules and questions name people by.
_IRREGULAR = {"wife": "wives"}
# After these endings a plural takes "es" ("dishes", "boxes", "buses").
_TAKES_ES = re.compile(r"(?:s|x|z|ch|sh)$")
# Nouns whose "ch" is said as a "k", whose plural takes "s" ("stomachs", "epochs"), named as the "-ie" nouns are.
_CH_SAID_K = frozenset("stomach epoch monarch patriarch matriarch oligarch tech loch czech eunuch triptych".split())
# Nouns in one "z" whose plural doubles it ("quizzes").
_Z_DOUBLED = frozenset("quiz whiz fez".split())
# A plural in "-es" after these is of the word without the "e" ("dishes": dish, "glasses": glass); after one "s" or
# "z" it is mostly of a word in "-e" ("horses", "prizes", "bronzes"), and "-ches" of a few such words ("headaches");
# the nouns in one "s" or "z" that take "es" ("buses", "waltzes") are fewer, and named as the "-ie" nouns are.
_ES_WITHOUT_E = re.compile(r"(?:ss|zz|x|ch|sh)$")
_CHE_NOUNS = frozenset("ache headache niche cache quiche moustache mustache avalanche cliche".split())
_S_NOUNS = frozenset(
    "bus gas atlas canvas alias bias iris lens bonus virus campus circus chorus census status genius octopus walrus "
    "cactus fetus sinus syllabus apparatus prospectus thesaurus hippopotamus".split())
_Z_NOUNS = frozenset("waltz quartz blitz chintz spritz klutz".split())
# The nouns singular reads a plural back to first, whatever else its ending alone reads.
_NAMED = _IE_NOUNS | _S_NOUNS | _Z_NOUNS | _Z_DOUBLED


# Read back from their plurals, on a search's path (stems): each irregular noun by its plural, and the nouns
# whose plural in "-es" is of the word without the "e".
_IRREGULAR_ONE = {many: one for one, many in _IRREGULAR.items()}
_E_DROPPED = _S_NOUNS | _Z_NOUNS

def plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "movie" -> "movies", "dish" -> "dishes", "goldfish" -> "goldfish",
    "stomach" -> "stomachs" (_CH_SAID_K), "quiz" -> "quizzes" (_Z_DOUBLED), "wife" -> "wives" (_IRREGULAR)."""
    if word.endswith("fish") or word in _SAME_PLURAL:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _CH_SAID_K:
        return word + "s"
    if word in _Z_DOUBLED:
        return word + "zes"
    return _by_endings(word)


def _by_endings(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if _TAKES_ES.search(word):
        return word + "es"
    return word + "s"


def stems(word: str) -> list[str]:
    """Every word whose plural `word` is, by plural's endings read back ("foods": food; "movies": movy and
    movie, "dishes": dishe and dish, which the endings cannot tell apart; "quizzes": quiz too, "wives": wife), or
    `word` alone when it is no plural of that shape. A plural of _CH_SAID_K or _IRREGULAR spelled by the endings
    alone ("stomaches", "wifes") is of its noun too, as singular read it before those were named."""
    if word in _SAME_PLURAL:
        return [word]
    found = [_IRREGULAR_ONE[word]] if word in _IRREGULAR_ONE \
        else [stem for stem in (word[:-3] + "y", word[:-1], word[:-2], word[:-3]) if stem and (
            plural(stem) == word or (stem in _CH_SAID_K or stem in _IRREGULAR) and _by_endings(stem) == word)]
    return found or [word]


def singular(word: str) -> str:
    """The word a plural is of: "foods" -> "food", "cities" -> "city", "movies" -> "movie" (_IE_NOUNS), "buses" -> "bus"
    (_S_NOUNS), "waltzes" -> "waltz" (_Z_NOUNS), "quizzes" -> "quiz", "dishes" -> "dish", "horses" -> "horse",
    "bronzes" -> "bronze" (_ES_WITHOUT_E); by the endings alone otherwise."""
    found = stems(word)
    return next((stem for stem in found if stem in _NAMED), None) \
        or next((stem for stem in found if _ES_WITHOUT_E.search(stem) and stem + "e" not in _CHE_NOUNS), found[0])


def as_filed_now(word: str) -> str:
    """The noun of a list above that `word` is, as singular read the noun's plural by the endings alone before
    the list was there ("movy": "movie", "lense": "lens", "waltze": "waltz", "quizz": "quiz", "stomachs":
    "stomach", "wive": "wife"), or `word`: what a key the offline rules filed under then is filed under now."""
    if word.endswith("y") and word[:-1] + "ie" in _IE_NOUNS:
        return word[:-1] + "ie"
    if word.endswith("e") and word[:-1] in _E_DROPPED \
            or word.endswith("z") and word[:-1] in _Z_DOUBLED or word.endswith("s") and word[:-1] in _CH_SAID_K:
        return word[:-1]
    return _IRREGULAR_ONE.get(word + "s", word)
