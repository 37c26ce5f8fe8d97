"""The user's facts asked about in everyday words: is each fact found, template by template?

    .venv/bin/python -m bench.asked [--part service|cosines|both] [--fixture PATH] [--out FILE.json]

The fixture (`bench/quality/asked.yaml`) holds one statement per fact template of the offline
extractor and questions about it, a `dev` set and a `heldout` set. Two parts:

- `service`: starts `python -m infra.local` (every MEMEX_* setting at its default), gives each
  statement to a fresh user (`POST /v1/turns?wait=true`) and asks each question (`POST
  /v1/search`, top 5): found (the fact among the results) and first (the fact ranked first), per
  template, dev and held-out apart (for a historical fact, which only a question about the past
  finds, retrieval/past.py: the fact or the message that said it). Noise: each fixture's
  `unrelated` questions, asked of every one of those users, must return nothing. Then one user is told every statement, and each question
  asked of them must put its own fact first (what the others' facts do to it). Last, each of the
  fixture's `replaced` pairs is told to a fresh user, the old statement weeks before the new one,
  and asked about: for `dev` and `heldout` (questions about the past), whether the replaced fact is
  among the results and above the fact that replaced it (and, when the pair replaced another key's
  fact too, `other`, whether that one came above it or level with it); for `present`, whether the new fact is the
  first fact returned and the replaced one never returned. A pair without `after` is a fact about
  the past that nothing replaced. The fixture's `unrelated_past` questions are asked of each of those
  users and must return nothing. Then each of the fixture's `kinds`
  statements is told to a fresh user and asked `same` questions (the fact must be found) and `other`
  ones, which share its frame but ask for another thing (neither the fact nor its message may come back).
  Then each of the fixture's `crowded` histories (a few statements, one session each) is told to a
  fresh user and its questions asked: whether a memory that answers comes first, and whether one the
  fixture calls wrong comes above it; the same for its `topics` histories, asked about a kind of fact
  ("Does she have any pets?") rather than the fact, its `ended` ones (several a set), whose job
  ended with no employer after it, asked where they work, its `without_work` ones, out of work,
  retired or on leave without the old employer named in the news, asked about the job, and its
  `phrasings` ones, each fact of a key family asked about in other words ("Which company is she
  with?"), whose `unrelated` questions (the same words about something else) must return nothing,
  and its `order` ones, which several facts answer: the one expected first, and for some (`then`)
  the one expected right after it (the current employer, then the job to come). Its `whose` histories
  ask about a relative of a user who told their own fact of the kind (`both`: and the relative's, which
  must come first with the user's own never above it; `own`: the user's own only, which may not come back;
  `others`: other relatives' facts of the kind, none the user's own, which may not come above the asked
  relative's, nor come back for a relative the user told nothing of).
  Last, each of the fixture's `several` statements (several facts in one message) is told to a fresh
  user: asked about what only the message's other words say (`other`), the message must come back
  above every fact drawn from it; asked about one of its facts (`same`), that fact must come first.
- `cosines`: in this process, the cosine of each question (in the user's voice, as the search
  embeds it; and as asked) to the fact's embedded text (embedded_text.of), against the floor's
  gate and item floor; and the highest cosine of an `unrelated` question to each fact.

The exit code is 0 whatever is found (a measurement); 1 when the service could not run or a
statement does not give its fact (the fixture no longer matches the extractor).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURE = ROOT / "bench" / "quality" / "asked.yaml"
SETS = ("dev", "heldout")
TOP_K = 5


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _holds(result: dict[str, Any], fact: dict[str, Any]) -> bool:
    said = result.get("key") == fact["key"] and str(result.get("value", "")).lower() in _values(fact)
    if fact.get("historical"):  # the message, or the fact itself, which a question about the past finds
        return result["content"] == fact["text"] or (said and not result["active"])
    return said


def _values(fact: dict[str, Any]) -> set[str]:
    """The values the statement gives under the fact's key (a list when it names several)."""
    values = fact["value"] if isinstance(fact["value"], list) else [fact["value"]]
    return {str(v).lower() for v in values}


def _user(client, user_id: str, text: str, session: str = "s1", timestamp: str | None = None) -> None:
    body = {"user_id": user_id, "session_id": session, "messages": [{"role": "user", "content": text}],
            **({"timestamp": timestamp} if timestamp else {})}
    response = client.post("/v1/turns", params={"wait": "true"}, json=body)
    response.raise_for_status()


def _said(n: int, of: int, weeks_before: int = 0) -> str:
    """When the n-th of a history's `of` statements is said: a minute apart, the last a minute before
    now (`weeks_before` earlier for a replaced pair's old statement). Relative to the run: a job to
    come said with a day ("next month", "in June", "on the 1st") is still to come while it is asked
    about, where one said on a fixed date started at a sweep (every 30 s locally) or not, as the run's
    timing fell, and the figures moved with it."""
    return (datetime.now(timezone.utc) - timedelta(weeks=weeks_before, minutes=of - n)).isoformat()


def _search(client, user_id: str, query: str) -> list[dict[str, Any]]:
    response = client.post("/v1/search", json={"user_id": user_id, "query": query, "top_k": TOP_K})
    response.raise_for_status()
    return response.json()["results"]


def service(fixture: dict[str, Any]) -> dict[str, Any]:
    import httpx

    from bench.service import local_server

    tag = uuid.uuid4().hex[:8]
    rows, noise, together = [], [], []
    with local_server({"MEMEX_EMBEDDINGS_PROVIDER": "local"}, defaults_only=True) as url, \
            httpx.Client(base_url=url, timeout=120) as client:
        everyone = f"all-{tag}"
        for n, fact in enumerate(fixture["facts"]):
            user = f"u{n}-{tag}"
            _user(client, user, fact["text"])
            _user(client, everyone, fact["text"])
            for split in SETS:
                for question in fact[split]:
                    rows.append(_outcome(fact, split, question, _search(client, user, question), shown=2))
            for question in fixture["unrelated"]:
                found = _search(client, user, question)
                noise.append({"template": fact["template"], "question": question,
                              "returned": [r["content"] for r in found]})
        for fact in fixture["facts"]:
            for split in SETS:
                for question in fact[split]:
                    together.append(_outcome(fact, split, question, _search(client, everyone, question), shown=1))
        replaced, past_noise = [], []
        unrelated_past = fixture.get("unrelated_past", {})
        for n, pair in enumerate(fixture.get("replaced", [])):
            user = f"r{n}-{tag}"
            _user(client, user, pair["before"], "s1", _said(0, 1, weeks_before=8))
            if "after" in pair:
                _user(client, user, pair["after"], "s2", _said(0, 1))
            for split in (*SETS, "present"):
                for question in pair[split]:
                    replaced.append(_replaced(pair, split, question, _search(client, user, question)))
            for split in SETS:
                for question in unrelated_past.get(split, []):
                    past_noise.append({"key": pair["key"], "set": split, "question": question,
                                       "returned": [r["content"] for r in _search(client, user, question)]})
        kinds = []
        for n, fact in enumerate(fixture.get("kinds", [])):
            user = f"k{n}-{tag}"
            _user(client, user, fact["text"])
            for asks in ("same", "other"):
                for split in SETS:
                    for question in fact[asks][split]:
                        found = _search(client, user, question)
                        kinds.append({"key": fact["key"], "asks": asks, "set": split, "question": question,
                                      "found": any(_holds(r, fact) for r in found),
                                      "said": any(_holds(r, fact) or r["content"] == fact["text"] for r in found),
                                      "top": [r["content"] for r in found[:2]]})
        crowded, topics, ended, without_work, phrasings, phrasings_noise = [], [], [], [], [], []
        order = []
        for part, measured in (("crowded", crowded), ("topics", topics), ("ended", ended),
                               ("without_work", without_work), ("phrasings", phrasings), ("order", order)):
            for split, histories in fixture.get(part, {}).items():
                for h, history in enumerate(histories if isinstance(histories, list) else [histories]):
                    user = f"{part[0]}{split}{h}-{tag}"
                    for n, text in enumerate(history["said"]):
                        _user(client, user, text, f"s{n}", _said(n, len(history["said"])))
                    for case in history["asked"]:
                        measured.append(_crowded(split, case, _search(client, user, case["question"])))
                    for question in history.get("unrelated", []):
                        phrasings_noise.append({"set": split, "question": question, "returned": [
                            r["content"] for r in _search(client, user, question)]})
        whose = []
        for told, splits in fixture.get("whose", {}).items():
            for split, histories in splits.items():
                for h, history in enumerate(histories):
                    user = f"w{told}{split}{h}-{tag}"
                    for n, text in enumerate(history["said"]):
                        _user(client, user, text, f"s{n}", _said(n, len(history["said"])))
                    for case in history["asked"]:
                        whose.append({"told": told, "asks_told": bool(case["answers"]),
                                      **_crowded(split, case, _search(client, user, case["question"]))})
        several = []
        for n, said in enumerate(fixture.get("several", [])):
            user = f"m{n}-{tag}"
            _user(client, user, said["text"])
            for split in SETS:
                for question in said["other"][split]:
                    several.append(_above_its_facts(said, split, question, _search(client, user, question)))
                for asked in said["same"][split]:
                    found = _search(client, user, asked["ask"])
                    several.append({"asks": "same", "set": split, "question": asked["ask"],
                                    "first": bool(found) and found[0].get("key") == asked["key"],
                                    "top": [r["content"] for r in found[:2]]})
    return {"alone": rows, "noise": noise, "together": together, "replaced": replaced, "past_noise": past_noise,
            "kinds": kinds, "crowded": crowded, "topics": topics, "ended": ended,
            "without_work": without_work, "several": several, "whose": whose,
            "phrasings": phrasings, "phrasings_noise": phrasings_noise, "order": order}


def _above_its_facts(said: dict[str, Any], split: str, question: str, found: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether a search returns the message that said several facts, and above every fact drawn from it."""
    message = next((i for i, r in enumerate(found) if r["content"] == said["text"]), None)
    drawn = [i for i, r in enumerate(found) if r["memory_type"] != "episodic"
             and message is not None and any(s["message_id"] == found[message]["sources"][0]["message_id"]
                                             for s in r.get("sources") or [])]
    return {"asks": "other", "set": split, "question": question, "returned": message is not None,
            "above": message is not None and all(message < i for i in drawn),
            "top": [r["content"] for r in found[:2]]}


def _crowded(split: str, case: dict[str, Any], found: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the first memory that answers the question is, whether a wrong one came above it, and,
    for a case with `then`, whether the first memory after it that holds none of its answers holds
    one of those words (None without `then`)."""
    def holds(result: dict[str, Any], words: list[str]) -> bool:
        return any(word.lower() in result["content"].lower() for word in words)

    answer = next((i for i, r in enumerate(found) if holds(r, case["answers"])), None)
    wrong = next((i for i, r in enumerate(found) if holds(r, case.get("wrong", []))), None)
    after = None
    if "then" in case:
        rest = [r for r in found[answer + 1:] if not holds(r, case["answers"])] if answer is not None else []
        after = bool(rest) and holds(rest[0], case["then"])
    return {"set": split, "question": case["question"], "found": answer is not None, "first": answer == 0,
            "wrong_above": wrong is not None and (answer is None or wrong < answer), "then": after,
            "top": [r["content"] for r in found[:3 if "then" in case else 2]]}


def _replaced(pair: dict[str, Any], split: str, question: str, found: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the replaced fact and the one that replaced it are among a search's results (None: absent)."""
    def rank(value: str, active: bool) -> int | None:
        return next((i for i, r in enumerate(found) if r.get("key") == pair["key"] and r["active"] is active
                     and str(r.get("value", "")).lower() == value.lower()), None)

    facts = [r for r in found if r["memory_type"] == "semantic"]
    new = pair.get("new")  # none when nothing replaced the old fact
    old, other = rank(pair["old"], False), None
    if "other" in pair:  # another key's replaced fact, which should not come above (or level with) the one asked about
        other = next((i for i, r in enumerate(found) if r.get("key") == pair["other"]["key"] and not r["active"]
                      and str(r.get("value", "")).lower() == pair["other"]["old"].lower()), None)
    return {"key": pair["key"], "set": split, "question": question, "old": old,
            "other_above": None if "other" not in pair else other is not None and (
                old is None or other < old or found[other]["score"] >= found[old]["score"]),
            "new": rank(new, True) if new else None, "first_fact": facts[0]["content"] if facts else None,
            "new_first": bool(new and facts) and facts[0].get("value", "").lower() == new.lower()
            and facts[0]["active"], "has_new": bool(new), "top": [r["content"] for r in found[:3]]}


def _outcome(fact: dict[str, Any], split: str, question: str, found: list[dict[str, Any]], shown: int) -> dict[str, Any]:
    """Whether the search's results hold the fact, and whether first; the first `shown` results."""
    return {"template": fact["template"], "set": split, "question": question,
            "found": any(_holds(r, fact) for r in found), "first": bool(found) and _holds(found[0], fact),
            "top": [r["content"] for r in found[:shown]]}


def cosines(fixture: dict[str, Any]) -> dict[str, Any]:
    from memex import embedded_text, first_person
    from memex.embeddings.minilm import MiniLMEmbedder
    from memex.extraction.offline import OfflineExtractor

    embedder = MiniLMEmbedder()
    rows, noise = [], []
    for fact in fixture["facts"]:
        embedded = _fact_text(OfflineExtractor(), fact, embedded_text)
        vector = embedder.embed([embedded])[0]
        for split in SETS:
            for question in fact[split]:
                voiced = first_person.asked(question, pronouns=True)  # a fresh user names nobody
                said, asked = (float(v @ vector) for v in embedder.embed([voiced or question, question]))
                rows.append({"template": fact["template"], "set": split, "question": question,
                             "embedded": embedded, "voiced": round(said, 3), "asked": round(asked, 3)})
        for question in fixture["unrelated"]:
            voiced = first_person.asked(question, pronouns=True)
            said, asked = (float(v @ vector) for v in embedder.embed([voiced or question, question]))
            noise.append({"template": fact["template"], "question": question, "embedded": embedded,
                          "cosine": round(max(said, asked), 3)})
    return {"cosines": rows, "noise_cosines": noise}


def _fact_text(extractor, fact: dict[str, Any], embedded_text) -> str:
    for candidate in extractor.extract([{"id": "m0", "role": "user", "content": fact["text"]}], []):
        if candidate.key == fact["key"] and candidate.value.lower() in _values(fact):
            return embedded_text.of(candidate.content, memory_type="semantic", subject=candidate.subject)
    print(f"{fact['text']!r} does not give {fact['key']}={fact['value']}: the fixture is stale", file=sys.stderr)
    sys.exit(1)


def render(measured: dict[str, Any]) -> str:
    from memex.retrieval import floor

    lines = []
    if "alone" in measured:
        lines.append("service, a fresh user per statement (found in top 5 / first), and the user told every statement:")
        lines.append(f"{'template':48} {'dev':>9} {'held-out':>9} | {'all: dev':>9} {'held-out':>9}")
        for template in dict.fromkeys(r["template"] for r in measured["alone"]):
            cells = []
            for part in ("alone", "together"):
                for split in SETS:
                    mine = [r for r in measured[part] if r["template"] == template and r["set"] == split]
                    cells.append(f"{sum(r['found'] for r in mine)}/{sum(r['first'] for r in mine)}/{len(mine)}")
            lines.append(f"{template[:48]:48} {cells[0]:>9} {cells[1]:>9} | {cells[2]:>9} {cells[3]:>9}")
        for part in ("alone", "together"):
            for split in SETS:
                mine = [r for r in measured[part] if r["set"] == split]
                lines.append(f"{part} {split}: found {sum(r['found'] for r in mine)}/{len(mine)}, "
                             f"first {sum(r['first'] for r in mine)}/{len(mine)}")
        for split in SETS:
            mine = [r for r in measured.get("replaced", []) if r["set"] == split]
            if mine:
                above = [r for r in mine if r["old"] is not None and (r["new"] is None or r["old"] < r["new"])]
                lines.append(f"replaced facts, about the past, {split}: the old fact found "
                             f"{sum(r['old'] is not None for r in mine)}/{len(mine)}, above the new one "
                             f"{len(above)}/{len(mine)}")
                lines += [f"  MISS {r['key']}: {r['question']!r} -> {r['top']}" for r in mine if r not in above]
                two = [r for r in mine if r.get("other_above") is not None]
                if two:
                    lines.append(f"  two keys replaced: the other key's old fact above or level with the one asked about "
                                 f"{sum(r['other_above'] for r in two)}/{len(two)}")
                    lines += [f"  OTHER ABOVE {r['key']}: {r['question']!r} -> {r['top']}" for r in two
                              if r["other_above"]]
        present = [r for r in measured.get("replaced", []) if r["set"] == "present"]
        if present:
            replacing = [r for r in present if r["has_new"]]
            lines.append(f"replaced facts, about now: the new fact the first fact {sum(r['new_first'] for r in replacing)}"
                         f"/{len(replacing)}, the old fact returned {sum(r['old'] is not None for r in present)}"
                         f"/{len(present)}")
            lines += [f"  NOT FIRST {r['key']}: {r['question']!r} -> {r['first_fact']!r}" for r in replacing
                      if not r["new_first"]]
            lines += [f"  OLD RETURNED {r['key']}: {r['question']!r} -> {r['top']}" for r in present
                      if r["old"] is not None]
        for split in SETS:
            mine = [r for r in measured.get("past_noise", []) if r["set"] == split]
            if mine:
                loud = [r for r in mine if r["returned"]]
                lines.append(f"unrelated questions about the past, {split}: {len(loud)}/{len(mine)} returned something")
                lines += [f"  NOISE {r['key']}: {r['question']!r} -> {r['returned'][:2]}" for r in loud]
        for asks, wanted in (("same", "found"), ("other", "said")):
            for split in SETS:
                mine = [r for r in measured.get("kinds", []) if r["asks"] == asks and r["set"] == split]
                if mine:
                    lines.append(f"kinds, {asks} thing, {split}: " + (
                        f"the fact found {sum(r['found'] for r in mine)}/{len(mine)}" if asks == "same" else
                        f"the fact or its message returned {sum(r['said'] for r in mine)}/{len(mine)}"))
                    mark = "MISS" if asks == "same" else "OFF-TOPIC"
                    lines += [f"  {mark} {r['key']}: {r['question']!r} -> {r['top']}" for r in mine
                              if r[wanted] == (asks == "other")]
        for split in SETS:
            for part, told in (("crowded", "one user told a few things"), ("topics", "a kind of fact asked about"),
                               ("ended", "a job ended, nothing current"),
                               ("without_work", "out of work, retired or on leave"),
                               ("phrasings", "a fact in other words"), ("order", "several facts answer")):
                mine = [r for r in measured.get(part, []) if r["set"] == split]
                if mine:
                    then = [r for r in mine if r.get("then") is not None]
                    lines.append(f"{told}, {split}: an answer found {sum(r['found'] for r in mine)}"
                                 f"/{len(mine)}, first {sum(r['first'] for r in mine)}/{len(mine)}, a wrong memory "
                                 f"above it {sum(r['wrong_above'] for r in mine)}/{len(mine)}"
                                 + (f", the next one right after it {sum(r['then'] for r in then)}/{len(then)}"
                                    if then else ""))
                    lines += [f"  {'WRONG ABOVE' if r['wrong_above'] else 'NOT FIRST'}: {r['question']!r} -> {r['top']}"
                              for r in mine if r["wrong_above"] or not r["first"]]
                    lines += [f"  NOT NEXT: {r['question']!r} -> {r['top']}" for r in then
                              if r["first"] and not r["wrong_above"] and not r["then"]]
            mine = [r for r in measured.get("whose", []) if r["set"] == split and r["told"] == "both"]
            if mine:
                lines.append(f"a relative asked about, their fact and the user's own told, {split}: theirs found "
                             f"{sum(r['found'] for r in mine)}/{len(mine)}, first {sum(r['first'] for r in mine)}"
                             f"/{len(mine)}, the user's own above it {sum(r['wrong_above'] for r in mine)}/{len(mine)}")
                lines += [f"  {'WRONG ABOVE' if r['wrong_above'] else 'NOT FIRST'}: {r['question']!r} -> {r['top']}"
                          for r in mine if r["wrong_above"] or not r["first"]]
            mine = [r for r in measured.get("whose", []) if r["set"] == split and r["told"] == "own"]
            if mine:
                lines.append(f"a relative asked about, only the user's own told, {split}: the user's own returned "
                             f"{sum(r['wrong_above'] for r in mine)}/{len(mine)}")
                lines += [f"  RETURNED: {r['question']!r} -> {r['top']}" for r in mine if r["wrong_above"]]
            mine = [r for r in measured.get("whose", []) if r["set"] == split and r["told"] == "others"]
            theirs, untold = [r for r in mine if r["asks_told"]], [r for r in mine if not r["asks_told"]]
            if mine:
                lines.append(f"a relative asked about, other relatives' facts told, {split}: theirs first "
                             f"{sum(r['first'] for r in theirs)}/{len(theirs)}, another's above it "
                             f"{sum(r['wrong_above'] for r in theirs)}/{len(theirs)}; asked about one told nothing "
                             f"of, another's returned {sum(r['wrong_above'] for r in untold)}/{len(untold)}")
                lines += [f"  {'WRONG ABOVE' if r['wrong_above'] else 'NOT FIRST'}: {r['question']!r} -> {r['top']}"
                          for r in theirs if r["wrong_above"] or not r["first"]]
                lines += [f"  RETURNED: {r['question']!r} -> {r['top']}" for r in untold if r["wrong_above"]]
            loud = [r for r in measured.get("phrasings_noise", []) if r["set"] == split and r["returned"]]
            if measured.get("phrasings_noise"):
                lines.append(f"a fact's words about something else, {split}: {len(loud)}/"
                             f"{sum(r['set'] == split for r in measured['phrasings_noise'])} returned something")
                lines += [f"  NOISE: {r['question']!r} -> {r['returned'][:2]}" for r in loud]
            mine = [r for r in measured.get("several", []) if r["set"] == split]
            other, same = [r for r in mine if r["asks"] == "other"], [r for r in mine if r["asks"] == "same"]
            if mine:
                lines.append(f"several facts in one message, {split}: asked about its other words, the message "
                             f"returned {sum(r['returned'] for r in other)}/{len(other)}, above its facts "
                             f"{sum(r['above'] for r in other)}/{len(other)}; asked about one of its facts, "
                             f"that fact first {sum(r['first'] for r in same)}/{len(same)}")
                lines += [f"  {'BELOW' if r['asks'] == 'other' else 'NOT FIRST'}: {r['question']!r} -> {r['top']}"
                          for r in mine if not r.get("above", r.get("first"))]
        loud = [r for r in measured["noise"] if r["returned"]]
        lines.append(f"noise: {len(loud)}/{len(measured['noise'])} unrelated questions returned something")
        lines += [f"  NOISE {r['template']}: {r['question']!r} -> {r['returned'][:2]}" for r in loud]
    if "cosines" in measured:
        gate, item = floor.DEFAULT.gate_similarity, floor.DEFAULT.item_similarity
        lines.append(f"cosines (voiced / as asked) against the gate {gate} and the item floor {item}:")
        for r in measured["cosines"]:
            mark = "gate" if max(r["voiced"], r["asked"]) >= gate else ("item" if r["voiced"] >= item else "-")
            lines.append(f"  {r['set']:7} {r['voiced']:.2f} {r['asked']:.2f} {mark:4} {r['question']!r} ~ "
                         f"{r['embedded']!r}")
        for split in SETS:
            mine = [r for r in measured["cosines"] if r["set"] == split]
            lines.append(f"{split}: {sum(max(r['voiced'], r['asked']) >= gate for r in mine)}/{len(mine)} "
                         f"at the gate or over")
        top = sorted(measured["noise_cosines"], key=lambda r: -r["cosine"])[:5]
        lines.append("unrelated questions nearest a fact: " + "; ".join(
            f"{r['cosine']:.2f} {r['question']!r} ~ {r['embedded']!r}" for r in top))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.asked", description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("service", "cosines", "both"), default="both")
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--out", type=Path, help="every question's outcome, as JSON")
    args = parser.parse_args(argv)
    fixture = load(args.fixture)
    measured: dict[str, Any] = {}
    if args.part in ("cosines", "both"):
        measured.update(cosines(fixture))
    if args.part in ("service", "both"):
        from bench.service import ServiceError
        try:
            measured.update(service(fixture))
        except ServiceError as exc:
            print(f"the service could not run: {exc}", file=sys.stderr)
            sys.exit(1)
    print(render(measured))
    if args.out:
        args.out.write_text(json.dumps(measured, indent=1))


if __name__ == "__main__":
    main()
