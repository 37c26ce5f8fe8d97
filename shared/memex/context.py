"""The services one execution environment shares: settings, database, embedder, publisher, metrics."""

from __future__ import annotations

from dataclasses import dataclass, field

from memex.config import Settings
from memex.db.connection import Database
from memex.embeddings.base import Embedder
from memex.extraction import Extractor
from memex.metrics import NoMetrics
from memex.ports import Metrics, Publisher
from memex.retrieval.ahead import KeptAhead
from memex.supersession import Judge


@dataclass
class Context:
    settings: Settings
    db: Database
    embedder: Embedder
    publisher: Publisher
    extractor: Extractor
    judge: Judge
    metrics: Metrics = field(default_factory=NoMetrics)
    # what searches read of their users ahead of the first round (retrieval/ahead.py)
    ahead: KeptAhead = field(default_factory=KeptAhead)
