"""What an episodic memory says: the message as sent, prefixed by its speaker's name when the client
gave one, so that "what did Caroline say about…" finds Caroline's words. The pipeline stores it so;
recall reads a message whose turn is not processed yet the same way. Its own module: the recall
handler needs it without the pipeline's imports (extraction, the LLM client).

A message that shows nothing (empty, spaces, invisible format characters: an assistant message that
only called a tool) makes no episodic memory: no question is about it, and embedded with the line it
answers it would be found in that line's place and recalled as an empty bullet. It stays among the
session's messages as sent."""

from __future__ import annotations

import unicodedata


def episodic_text(message: dict) -> str:
    return f"{message['name']}: {message['content']}" if message["name"] else message["content"]


def shows_nothing(text: str) -> bool:
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in text)
