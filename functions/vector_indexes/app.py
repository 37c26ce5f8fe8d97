"""VectorIndexesFunction (every hour): an HNSW index of their own for the largest users, built
concurrently; those no longer wanted dropped (memex/vector_indexes.py)."""

from memex.vector_indexes import maintain
from memex_edge.context import get_context
from memex_edge.scheduled import scheduled_handler


@scheduled_handler
def handler(event, context):
    return maintain(get_context()).to_dict()
