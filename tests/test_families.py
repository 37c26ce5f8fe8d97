"""The key families (extraction/families.py) are the one vocabulary of both extractors: the LLM prompt
names every family, and every fact the offline rules file is of a declared family, worth what the
family says and holding one value or several as supersession treats it (issue 11, consistency)."""

from __future__ import annotations

import re

import yaml

from memex.extraction import families
from memex.extraction.llm import SYSTEM, _importance
from memex.extraction.offline import OfflineExtractor
from memex.supersession import holds_several
from tests.conftest import ROOT


def _offline_candidates():
    """What the offline rules file from every statement of the extraction fixture and every turn
    of the conversations fixture."""
    statements = yaml.safe_load((ROOT / "bench" / "quality" / "statements.yaml").read_text())["statements"]
    texts = [s["text"] for s in statements]
    conversations = yaml.safe_load((ROOT / "bench" / "quality" / "conversations.yaml").read_text())
    texts += [m["content"] for m in _messages(conversations) if m.get("role", "user") == "user"]
    extractor = OfflineExtractor()
    for i, text in enumerate(texts):
        yield from extractor.extract([{"id": f"m{i}", "role": "user", "content": text}], [])


def _messages(node):
    """Every message object ({role, content}) anywhere in the conversations fixture."""
    if isinstance(node, dict):
        if isinstance(node.get("content"), str):
            yield node
        for value in node.values():
            yield from _messages(value)
    elif isinstance(node, list):
        for value in node:
            yield from _messages(value)


def test_the_prompt_names_every_family_and_what_its_placeholders_are():
    for family in families.FAMILIES:
        assert f"  {family.key}: {family.holds}" in SYSTEM
    for placeholder in families.PLACEHOLDERS:
        assert f"<{placeholder}> is " in SYSTEM
    # the relations the offline rules file names under, not keys of the LLM's own
    assert "mother_name" in SYSTEM and "father_name" in SYSTEM
    assert "parent_name" not in SYSTEM and "sibling_name" not in SYSTEM


def test_every_fact_the_offline_rules_file_is_of_a_declared_family_worth_what_it_says():
    seen = set()
    for candidate in _offline_candidates():
        family = families.family_of(candidate.base_key)
        assert family is not None, f"{candidate.key} ({candidate.content!r}) is of no declared family"
        seen.add(family.key)
        if candidate.historical:
            assert candidate.importance <= families.HISTORICAL_IMPORTANCE, candidate
        else:
            assert candidate.importance == family.importance, candidate
        assert holds_several(candidate.base_key) == family.several, candidate.key
    # the fixtures reach most of the families (an unreached one is still checked by its example below)
    assert len(seen) >= 40, sorted(seen)


def test_a_familys_several_is_what_supersession_does_with_its_keys():
    examples = {"<relation>": "sister", "<name>": "ana", "<kind>": "dog", "<thing>": "coffee"}
    for family in families.FAMILIES:
        key = re.sub(r"<\w+>", lambda m: examples[m.group()], family.key)
        assert families.family_of(key) == family, key
        assert holds_several(key) == family.several, key


def test_the_llm_path_weighs_a_family_as_the_offline_rules_do():
    assert _importance("fact", "health_condition", historical=False, about_another=False) == 0.85
    assert _importance("relation", "partner_name", historical=False, about_another=False) == 0.8
    # "I used to work at Stripe": the rules' "used to" figure
    assert _importance("fact", "employer", historical=True, about_another=False) == families.HISTORICAL_IMPORTANCE
    # a key of no family: its type's
    assert _importance("opinion", "view_of_the_weather", historical=False, about_another=False) == 0.5
    assert families.family_of("sam_role") is None and families.family_of("partner_sam_role").key == "<relation>_<name>_role"


def test_a_key_only_a_family_names_holds_what_its_family_says():
    """A key the LLM extractor files that supersession lists nowhere ("pet_rabbit_breed") holds several
    values or one as its family says; the listed keys of no family ("pet_name", "sibling_name") still
    hold several."""
    assert holds_several("pet_rabbit_breed") and holds_several("pet_hamster_name")
    assert not holds_several("pet_rabbit_count") and not holds_several("favorite_band")
    assert holds_several("pet_name") and holds_several("sibling_name")


def test_a_key_names_a_person_by_their_relation_only_with_a_name_after_it():
    """families.relation_naming, over every family, with a name where the family takes one and without: the
    relation for a person's key with their name ("sister_ana_city"), None for one without ("sister_city") and for
    any other family's, a pet's named ("pet_cat_tofu_age") too."""
    for family in families.FAMILIES:
        for name in ("_ana", ""):
            key = (family.key.replace("<relation>", "sister").replace("_<name>", name).replace("<kind>", "cat")
                   .replace("<thing>", "coffee"))
            person = "<relation>" in family.key and name
            assert families.relation_naming(key) == ("sister" if person else None), key
    assert families.relation_naming("pet_cat_tofu_age") is None
