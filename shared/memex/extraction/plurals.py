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
# A plural in "-es" after these is of the word without the "e" ("dishes": dish, "glasses": glass, "waltzes": waltz);
# after one "s", or a vowel and a "z", it is mostly of a word in "-e" ("horses", "prizes"), and "-ches" of a few such
# words ("headaches"); the nouns in one "s" that take "es" ("buses") are fewer, and named as the "-ie" nouns are.
_ES_WITHOUT_E = re.compile(r"(?:ss|x|ch|sh|[^aeiou]z)$")
_CHE_NOUNS = frozenset("ache headache niche cache quiche moustache mustache avalanche cliche".split())
_S_NOUNS = frozenset(
    "bus gas atlas canvas alias bias iris lens bonus virus campus circus chorus census status genius octopus walrus "
    "cactus fetus sinus syllabus apparatus prospectus thesaurus hippopotamus".split())


def plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "movie" -> "movies", "dish" -> "dishes", "goldfish" -> "goldfish",
    "stomach" -> "stomachs" (_CH_SAID_K), "quiz" -> "quizzes" (_Z_DOUBLED), "wife" -> "wives" (_IRREGULAR)."""
    if word.endswith("fish") or word in _SAME_PLURAL:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if word in _CH_SAID_K:
        return word + "s"
    if word in _Z_DOUBLED:
        return word + "zes"
    if _TAKES_ES.search(word):
        return word + "es"
    return word + "s"


def stems(word: str) -> list[str]:
    """Every word whose plural `word` is, by plural's endings read back ("foods": food; "movies": movy and
    movie, "dishes": dishe and dish, which the endings cannot tell apart; "quizzes": quiz too, "wives": wife), or
    `word` alone when it is no plural of that shape."""
    if word in _SAME_PLURAL:
        return [word]
    found = [one for one, many in _IRREGULAR.items() if many == word] \
        or [stem for stem in (word[:-3] + "y", word[:-1], word[:-2], word[:-3]) if stem and plural(stem) == word]
    return found or [word]


def singular(word: str) -> str:
    """The word a plural is of: "foods" -> "food", "cities" -> "city", "movies" -> "movie" (_IE_NOUNS), "buses" -> "bus"
    (_S_NOUNS), "quizzes" -> "quiz", "dishes" -> "dish", "horses" -> "horse" (_ES_WITHOUT_E); by the endings alone
    otherwise."""
    found = stems(word)
    return next((stem for stem in found if stem in _IE_NOUNS or stem in _S_NOUNS or stem in _Z_DOUBLED), None) \
        or next((stem for stem in found if _ES_WITHOUT_E.search(stem) and stem + "e" not in _CHE_NOUNS), found[0])


def ie_noun(word: str) -> str:
    """The "-ie" noun of _IE_NOUNS that `word` is, said as singular read its plural by the endings alone
    before it knew them ("movy": "movie", "budgy": "budgie"), or `word`."""
    return word[:-1] + "ie" if word.endswith("y") and word[:-1] + "ie" in _IE_NOUNS else word
