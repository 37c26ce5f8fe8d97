"""A word's plural and the word a plural is of, by English's regular endings: what the offline rules
read a pet's kind and a liked thing by, and the kinds a question names (retrieval/topics.py), alike.
Here, not among the rules' patterns, so that a search loads no part of the offline extractor."""

from __future__ import annotations

import re


def plural(word: str) -> str:
    """"cat" -> "cats", "puppy" -> "puppies", "goldfish" -> "goldfish"."""
    if word.endswith("fish"):
        return word
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


def singular(word: str) -> str:
    """The word a plural is of, by plural's endings read back ("foods" -> "food", "cities" -> "city"); a word
    no plural of that shape stays as it is ("series"). By the endings alone: "movies" -> "movy"."""
    for stem in (word[:-3] + "y", word[:-1], word[:-2]):
        if stem and plural(stem) == word and not stem.endswith("s"):
            return stem
    return word
