"""What an episodic memory says: the message as sent, prefixed by its speaker's name when the client
gave one, so that "what did Caroline say about…" finds Caroline's words. The pipeline stores it so;
recall reads a message whose turn is not processed yet the same way. Its own module: the recall
handler needs it without the pipeline's imports (extraction, the LLM client)."""

from __future__ import annotations


def episodic_text(message: dict) -> str:
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]
