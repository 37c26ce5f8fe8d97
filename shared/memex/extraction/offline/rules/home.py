"""Rules of money and home: renting or owning where the user lives, the bank, what is saved for."""

from __future__ import annotations

from memex.extraction.offline.patterns import ADVERBS, MY, ORG, ORG_END, phrase
from memex.extraction.offline.rule import rule
from memex.extraction.offline.values import as_said


RULES = [
    # Money and home: renting or owning where the user lives ("We rent a two-bed flat", "We just bought our
    # first house!"; a house bought in a named place is the city's rule), the bank, what is saved for.
    rule("fact", "housing", "rent renting", [
        rf"\b(?:I|[Ww]e) {ADVERBS}rent (?:an?|our|my|the) (?:[\w-]+ ){{0,3}}?(?:flat|apartment|house|place|home|room|"
        rf"studio|condo|bungalow|cottage)(?![\w'-])",
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are) {ADVERBS}renting(?=\s*(?:[.,;!]|$)|\s+(?:for now|at the moment)\b|"
        r" (?:an?|our|my|the) (?:[\w-]+ ){0,3}?(?:flat|apartment|house|place|home|room|studio|condo)(?![\w'-]))",
    ], "The user rents their home.", lambda m: [{"value": "renting"}], confidence=0.65, importance=0.6),
    rule("fact", "housing", "bought own", [
        rf"\b(?:I|[Ww]e)(?:'ve| have)? {ADVERBS}bought (?:our|my) first (?:house|home|flat|apartment|place)"
        r"(?=\s*(?:[.,;!]|$)|\s+(?:and|but|so|last|this|together)\b)",
        rf"\b(?:I|[Ww]e) {ADVERBS}own (?:our|my) (?:own )?(?:house|home|flat|apartment|place)(?=\s*(?:[.,;!]|$)|\s+(?:and|but|now)\b)",
    ], "The user owns their home.", lambda m: [{"value": "homeowner"}], confidence=0.65, importance=0.6),
    rule("fact", "bank", "bank banking", [
        rf"\b(?:I|[Ww]e) {ADVERBS}bank with (?P<value>{ORG}){ORG_END}",
        rf"{MY} bank is (?P<value>{ORG}){ORG_END}",
    ], "The user banks with {value}.", as_said, confidence=0.65, importance=0.5),
    rule("fact", "saving_for", "saving", [
        rf"\b(?:I|[Ww]e)(?:'m|'re| am| are|'ve been| have been) {ADVERBS}saving (?:up )?for (?P<a>an?|the|my|our) "
        rf"(?!rainy day\b)(?P<value>{phrase(5)})",
    ], "The user is saving for {a} {value}.", lambda m: [{"value": m["value"], "a": m["a"]}], confidence=0.65,
         importance=0.5),
]
