"""Calibration of the relevance floor (shared/memex/retrieval/floor.py) on LoCoMo questions
against off-topic queries.

    python -m bench.floor --data ../shared/bench/locomo-dev.json [--home /tmp/floor-home]

Ingests the conversations in-process (embedded Postgres in a temporary folder, or in --home,
where conversations already ingested by an earlier run are not ingested again), then reads the
floor's signals (floor.signals, as search reads them) for every question with evidence and for
each off-topic query asked of every conversation. It prints, for the shipped thresholds and for
thresholds chosen leave-one-conversation-out (on four conversations, measured on the fifth,
averaged): the share of questions and of off-topic queries the gate lets through, and the share
of evidence-holding memories among the candidates kept, by the item floor alone and end to end
(the question passed the gate and the memory the item floor).

Then the same for SHORT_HISTORIES, a new user's few turns: their natural questions, and the
off-topic queries asked of them. The previous floor (cosine and BM25 only) is measured on the
same signals, for comparison.

Choosing means: the lowest off-topic leakage on the four conversations with at least
`MIN_EVIDENCE_KEPT` of their evidence kept end to end and every short-history question passing
the gate, ties going to the most evidence kept. Only the gate is chosen: the item floor's
thresholds stay as they are, since nothing here measures what a looser item floor lets in.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from bench import locomo

MIN_EVIDENCE_KEPT = 0.98
GATE_SIMILARITY = [round(0.30 + 0.025 * i, 3) for i in range(13)]  # 0.30 .. 0.60
GATE_COVERAGE = [round(0.40 + 0.05 * i, 2) for i in range(13)]  # 0.40 .. 1.00
# Keyword only (mode bm25, or the embedder down), the gate has coverage alone to go on.
ALONE_COVERAGE = [round(0.25 + 0.05 * i, 2) for i in range(16)]  # 0.25 .. 1.00

# Written before the thresholds were tuned. General knowledge, how-to and trivia nobody in the
# development conversations talks about; many share everyday words with small talk ("good",
# "best", "time", "work", "make", "family", "home", "long") so that a stray common word is not
# enough to open the gate.
OFF_TOPIC = [
    "What is the capital of Mongolia?", "How do I fix a segmentation fault in my C++ program?",
    "What's the boiling point of mercury?", "Explain the rules of cricket", "Who won the 1998 world cup?",
    "How many moons does Jupiter have?", "What is the derivative of x squared?", "Translate hello into Japanese",
    "What is the GDP of Canada?", "How do quantum computers factor integers?",
    "Recommend a Kubernetes ingress controller", "What is the half-life of carbon-14?", "Who wrote War and Peace?",
    "What is the tallest mountain in Africa?", "How do I configure an nginx reverse proxy?",
    "Which programming language is best for embedded systems?", "What time zone is Auckland in?",
    "How do vaccines train the immune system?", "What is the population of Lagos?", "Define a monad",
    "quantum chromodynamics lecture notes", "What is a good interest rate for a thirty-year mortgage?",
    "How long should I boil an egg for a soft yolk?", "What's the best way to remove a red wine stain from carpet?",
    "How does a heat pump work in winter?", "Which vitamins are fat soluble?", "How do I change a flat tyre?",
    "What is the difference between a virus and a bacterium?", "Who painted the ceiling of the Sistine Chapel?",
    "How do I make my home wifi faster?", "When did the Berlin Wall fall?", "How do tides work?",
    "What is the speed of light in a vacuum?", "How many bones are in the human body?",
    "What is a good name for a sailboat?", "How do I file my taxes as a freelancer?",
    "What does an electrician charge per hour?", "How do I unclog a kitchen sink?",
    "Best time of year to plant tulip bulbs", "What makes bread rise?", "How far is the moon from Earth?",
    "What's the plot of Moby Dick?", "How do I set up two-factor authentication?", "What is inflation?",
    "How do I convert Celsius to Fahrenheit?", "Which countries border Switzerland?",
    "How do noise cancelling headphones work?", "What is the chemical formula of table salt?",
    "Why is the sky blue?", "What is the longest river in South America?", "How do I sharpen a kitchen knife?",
    "What is a Roth IRA?", "How do I write a cover letter for a family business?",
    "How much water should a cactus get?", "What is the best way to store fresh herbs?",
    "How do I calculate compound interest?", "What does DNS stand for?", "Who invented the telephone?",
    "How do I get rid of fruit flies?", "What is the offside rule in ice hockey?",
]

# Short histories, a new user's few turns (one message a month), each with natural questions
# whose answer holds the given text. On them the calibration must pass every question, and the
# off-topic queries above are asked of them too.
SHORT_HISTORIES = {
    "lisbon": (["I live in Lisbon.", "I moved to Porto."],
               {"Where do I live?": "Lisbon", "Which city am I in?": "Porto", "Where did I move?": "Porto",
                "live": "Lisbon"}),
    "job": (["I work at Acme as a data engineer.", "My manager is called Priya."],
            {"Where do I work?": "Acme", "What's my job?": "engineer", "Who is my manager?": "Priya",
             "work": "Acme"}),
    "pets": (["My dog Biscuit is a beagle.", "I'm allergic to cats."],
             {"What's my dog's name?": "Biscuit", "What breed is Biscuit?": "beagle",
              "Am I allergic to anything?": "allergic", "Do I have pets?": "dog"}),
    "food": (["I'm vegetarian.", "I love Thai food, especially green curry.", "I stopped drinking coffee."],
             {"What do I eat?": "vegetarian", "What's my favourite cuisine?": "Thai", "Do I drink coffee?": "coffee",
              "coffee": "coffee"}),
    "family": (["My sister Ana lives in Boston.", "We're visiting her in June."],
               {"Who is my sister?": "Ana", "Boston": "Boston", "What are my plans for June?": "June",
                "Where does Ana live?": "Boston"}),
    "music": (["I play the cello in a community orchestra.", "Rehearsals are on Tuesday evenings."],
              {"What instrument do I play?": "cello", "When are rehearsals?": "Tuesday",
               "What do I do on Tuesdays?": "Rehearsals"}),
}


def short_turns(name: str) -> list[dict]:
    """The `POST /v1/turns` bodies of one short history."""
    said, _ = SHORT_HISTORIES[name]
    return [{"user_id": f"short-{name}", "session_id": f"s{i}", "timestamp": f"2026-{i + 1:02d}-01T00:00:00Z",
             "messages": [{"role": "user", "content": text}]} for i, text in enumerate(said)]


@dataclass
class Observation:
    """One query asked of one conversation: the gate's view (best similarity, best coverage, the
    candidates both channels found), and, for a question, the signals of each candidate that holds
    evidence."""

    conversation: str
    off_topic: bool
    best_similarity: float
    best_coverage: float
    best_bm25: float  # for the previous gate
    evidence: list  # [floor.Signals]
    both: list = field(default_factory=list)  # agreeing(): what the gate needs of the candidates both found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--home", type=Path, help="keep the ingested data here and reuse it on the next run")
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    for name in ("DATABASE_URL", "SQS_ENDPOINT_URL", "EXTRACTION_QUEUE_URL", "SUPERSESSION_QUEUE_URL",
                 "BACKFILL_QUEUE_URL", "MEMEX_HOME"):
        os.environ.pop(name, None)
    from infra.local.runtime import LocalRuntime

    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or Path(scratch)
        home.mkdir(parents=True, exist_ok=True)
        runtime = LocalRuntime(home).start()
        try:
            observations = observe(samples, home)
        finally:
            runtime.stop()
    print(report(observations))


def observe(samples, home: Path) -> list[Observation]:
    from memex.db import memories as memory_rows
    from memex.ingest import ingest_turn
    from memex.models import SearchFilters, TurnIn
    from memex.retrieval import floor, keywords
    from memex.retrieval.search import CANDIDATES_PER_CHANNEL
    from memex_edge.context import get_context

    ctx = get_context()
    conn = ctx.db.connection()
    # as search bounds its vector walk (retrieval/search.py): only where pgvector can scan iteratively
    walk_above = ctx.settings.vector_exact_max if memory_rows.pgvector_supports_iterative_scan(conn) else None

    def signals(user_id: str, query: str):
        scope = ("default", user_id, None, SearchFilters(), False)
        # the keyword channel searches what search does (keywords.py), the vector the question as asked
        keyword = memory_rows.keyword_statement(*scope, keywords.searched(query), CANDIDATES_PER_CHANNEL,
                                                ctx.settings.keyword_max_postings).run(conn)
        vector = memory_rows.vector_statement(*scope, ctx.embedder.embed_query(query), CANDIDATES_PER_CHANNEL,
                                              walk_above,
                                              ctx.settings.vector_ef_search, ctx.settings.vector_preselect,
                                              ctx.settings.vector_preselect_above).run(conn)
        return floor.signals(keyword, vector)

    def observation(user_id: str, found, off_topic: bool, evidence: list) -> Observation:
        return Observation(user_id, off_topic, max((s.similarity or 0.0 for s in found.values()), default=0.0),
                           max((s.coverage for s in found.values()), default=0.0),
                           max((s.bm25 or 0.0 for s in found.values()), default=0.0), evidence, agreeing(found))

    observations = []
    for sample in samples:
        user_id = sample["sample_id"]
        marker = home / f"ingested-{user_id}"  # a conversation half ingested is ingested again
        if not marker.exists():
            for turn in locomo.build_turns(sample, user_id):
                ingest_turn(ctx, "default", TurnIn.model_validate(turn), wait=True)
            marker.touch()
        dia_of: dict[str, set] = {}
        for question in locomo.scored_questions(sample)[0]:
            found = signals(user_id, question["question"])
            missing = [item for item in found if item not in dia_of]
            for item, memory in memory_rows.get_many(conn, "default", missing).items():
                dia_of[item] = {s["metadata"].get("dia_id") for s in memory["sources"]}
            evidence = [s for item, s in found.items() if dia_of.get(item, set()) & set(question["evidence"])]
            observations.append(observation(user_id, found, False, evidence))
        for query in OFF_TOPIC:
            observations.append(observation(user_id, signals(user_id, query), True, []))
    for name, (_, questions) in SHORT_HISTORIES.items():
        user_id = f"short-{name}"
        marker = home / f"ingested-{user_id}"
        if not marker.exists():
            for turn in short_turns(name):
                ingest_turn(ctx, "default", TurnIn.model_validate(turn), wait=True)
            marker.touch()
        for question, answer in questions.items():
            found = signals(user_id, question)
            said = memory_rows.get_many(conn, "default", list(found))
            evidence = [s for item, s in found.items() if item in said and answer.lower() in
                        f"{said[item]['content']} {said[item].get('value')}".lower()]
            observations.append(observation(user_id, found, False, evidence))
        for query in OFF_TOPIC:
            observations.append(observation(user_id, signals(user_id, query), True, []))
    return observations


def agreeing(found) -> list:
    """The candidates both channels found that no other beats on both coverage and similarity: the
    gate opens on one of them if on any (a few per query where all of them would slow choosing)."""
    from memex.retrieval import floor

    both = sorted(((s.coverage, s.similarity) for s in found.values() if s.similarity is not None and s.coverage > 0),
                  reverse=True)
    front = []
    for coverage, similarity in both:
        if not front or similarity > front[-1].similarity:
            front.append(floor.Signals(similarity=similarity, coverage=coverage))
    return front


def is_short(o: Observation) -> bool:
    return o.conversation.startswith("short-")


def measure(observations: Sequence[Observation], thresholds) -> dict[str, float]:
    """The floor's figures; `thresholds` None: the previous floor's, for comparison (gate: cosine
    >= 0.35 or BM25 >= 0.9 units; item floor: cosine >= 0.2 or BM25 >= 0.33 units)."""
    from memex.retrieval import floor

    def opens(o: Observation) -> bool:
        if thresholds is None:
            return o.best_similarity >= 0.35 or o.best_bm25 >= 0.9
        return floor.query_passes([floor.Signals(similarity=o.best_similarity), floor.Signals(coverage=o.best_coverage),
                                   *o.both], thresholds)

    def keeps(s) -> bool:
        if thresholds is None:
            return (s.similarity or 0.0) >= 0.2 or (s.bm25 or 0.0) >= 0.33
        return floor.item_passes(s, thresholds)

    questions = [o for o in observations if not o.off_topic]
    off_topic = [o for o in observations if o.off_topic]
    evidence = [(o, s) for o in questions for s in o.evidence]
    return {
        "questions_pass": sum(map(opens, questions)) / max(len(questions), 1),
        "off_topic_pass": sum(map(opens, off_topic)) / max(len(off_topic), 1),
        "item_floor_keeps": sum(keeps(s) for _, s in evidence) / max(len(evidence), 1),
        "evidence_kept": sum(opens(o) and keeps(s) for o, s in evidence)
        / max(len(evidence), 1),
        "questions": len(questions), "off_topic": len(off_topic), "evidence": len(evidence),
    }


def measure_alone(observations: Sequence[Observation], coverage: float) -> dict[str, float]:
    """The floor's figures when only the keyword channel ran: no cosine, the gate on coverage alone."""
    from memex.retrieval import floor

    questions = [o for o in observations if not o.off_topic]
    off_topic = [o for o in observations if o.off_topic]
    evidence = [(o, s._replace(similarity=None)) for o in questions for s in o.evidence if s.bm25 is not None]
    every = sum(len(o.evidence) for o in questions)
    return {
        "questions_pass": sum(o.best_coverage >= coverage for o in questions) / max(len(questions), 1),
        "off_topic_pass": sum(o.best_coverage >= coverage for o in off_topic) / max(len(off_topic), 1),
        "item_floor_keeps": sum(floor.item_passes(s) for _, s in evidence) / max(every, 1),
        "evidence_kept": sum(o.best_coverage >= coverage and floor.item_passes(s) for o, s in evidence) / max(every, 1),
    }


def choose_alone(observations: Sequence[Observation]) -> float:
    """The keyword-only gate: the lowest coverage that lets through no more of the long histories'
    off-topic queries than the hybrid gate chosen on the same observations does (what a keyword
    search can find without a vector is limited; what it may let in is held to the hybrid's)."""
    long = [o for o in observations if not is_short(o)]
    allowed = measure(long, choose(observations))["off_topic_pass"]
    return next((c for c in ALONE_COVERAGE if measure_alone(long, c)["off_topic_pass"] <= allowed), ALONE_COVERAGE[-1])


def choose(observations: Sequence[Observation]):
    """The gate with the least leakage on the long histories that keeps MIN_EVIDENCE_KEPT of their
    evidence and passes every short-history question."""
    from memex.retrieval import floor

    long = [o for o in observations if not is_short(o)]
    short = [o for o in observations if is_short(o) and not o.off_topic]
    best, best_key = floor.DEFAULT, None
    for gate_similarity, gate_coverage in itertools.product(GATE_SIMILARITY, GATE_COVERAGE):
        thresholds = replace(floor.DEFAULT, gate_similarity=gate_similarity, gate_coverage=gate_coverage)
        figures = measure(long, thresholds)
        if figures["evidence_kept"] < MIN_EVIDENCE_KEPT or measure(short, thresholds)["questions_pass"] < 1:
            continue
        key = (figures["off_topic_pass"], -figures["evidence_kept"])
        if best_key is None or key < best_key:
            best, best_key = thresholds, key
    return best


def leave_one_out(observations: Sequence[Observation], chooser=None, measurer=None) -> tuple[dict[str, float], list]:
    """LoCoMo figures averaged over the conversations, each measured with the gate chosen on the
    other four (and the short histories); `chooser` and `measurer` default to the hybrid gate's
    (`choose`, `measure`), `choose_alone` and `measure_alone` give the keyword-only gate's."""
    chooser, measurer = chooser or choose, measurer or measure
    conversations = sorted({o.conversation for o in observations if not is_short(o)})
    folds = []
    for held_out in conversations:
        chosen = chooser([o for o in observations if o.conversation != held_out])
        folds.append((held_out, chosen, measurer([o for o in observations if o.conversation == held_out], chosen)))
    keys = ("questions_pass", "off_topic_pass", "item_floor_keeps", "evidence_kept")
    return {key: sum(f[2][key] for f in folds) / len(folds) for key in keys}, folds


def report(observations: Sequence[Observation]) -> str:
    from memex.retrieval import floor

    long = [o for o in observations if not is_short(o)]
    short = short_observations = [o for o in observations if is_short(o)]
    previous, previous_short = measure(long, None), measure(short, None)
    shipped, short = measure(long, floor.DEFAULT), measure(short, floor.DEFAULT)
    averaged, folds = leave_one_out(observations)
    lines = [f"{shipped['questions']} LoCoMo questions, {shipped['off_topic']} off-topic queries "
             f"({len(OFF_TOPIC)} per conversation), {shipped['evidence']} evidence-holding candidates; "
             f"{len(SHORT_HISTORIES)} short histories, {short['questions']} questions, {short['off_topic']} off-topic",
             f"shipped thresholds: {floor.DEFAULT}",
             f"gate chosen on the whole file: {choose(observations)}",
             "", f"{'':38} {'previous':>9} {'shipped':>9} {'LOO':>9} {'short: previous':>16} {'shipped':>9}"]
    for key, label in (("questions_pass", "gate: questions pass"), ("off_topic_pass", "gate: off-topic queries pass"),
                       ("item_floor_keeps", "item floor keeps evidence"),
                       ("evidence_kept", "evidence kept end to end")):
        lines.append(f"{label:38} {previous[key]:9.3f} {shipped[key]:9.3f} {averaged[key]:9.3f} "
                     f"{previous_short[key]:16.3f} {short[key]:9.3f}")
    alone = floor.DEFAULT.gate_coverage_alone
    alone_long, alone_short = measure_alone(long, alone), measure_alone(short_observations, alone)
    before_long, before_short = measure_alone(long, floor.DEFAULT.gate_coverage), \
        measure_alone(short_observations, floor.DEFAULT.gate_coverage)
    alone_averaged, alone_folds = leave_one_out(observations, choose_alone, measure_alone)
    lines += ["", f"keyword only (mode bm25, or the embedder down): gate coverage {alone} shipped, "
                  f"{choose_alone(observations)} chosen on the whole file",
              f"{'':38} {'at ' + str(floor.DEFAULT.gate_coverage):>9} {'shipped':>9} {'LOO':>9} "
              f"{'short: at ' + str(floor.DEFAULT.gate_coverage):>16} {'shipped':>9}"]
    for key, label in (("questions_pass", "gate: questions pass"), ("off_topic_pass", "gate: off-topic queries pass"),
                       ("evidence_kept", "evidence kept end to end")):
        lines.append(f"{label:38} {before_long[key]:9.3f} {alone_long[key]:9.3f} {alone_averaged[key]:9.3f} "
                     f"{before_short[key]:16.3f} {alone_short[key]:9.3f}")
    for held_out, chosen, figures in alone_folds:
        lines.append(f"held out {held_out}: keyword-only coverage {chosen} -> off-topic {figures['off_topic_pass']:.3f},"
                     f" evidence kept {figures['evidence_kept']:.3f}, questions {figures['questions_pass']:.3f}")
    lines.append("")
    for held_out, chosen, figures in folds:
        lines.append(f"held out {held_out}: gate similarity {chosen.gate_similarity}, coverage {chosen.gate_coverage}"
                     f" -> off-topic {figures['off_topic_pass']:.3f}, evidence kept {figures['evidence_kept']:.3f},"
                     f" questions {figures['questions_pass']:.3f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
