"""How a fact's value is named in the dedupe key its memory is written under (pipeline._with_dedupe_keys)."""

from __future__ import annotations

import hashlib

# A value whose casefolded UTF-8 is longer than this is named by its digest: memories_dedupe is a b-tree, which
# refuses an entry over 2,704 bytes, and a value is as long as what was said (a favourite song of 950 Han
# letters made 2,850 bytes, and its turn failed at every delivery). Well under the limit, it leaves room for
# the tenant, the turn's id, the key (at most 64 letters from an LLM) and `:over`. Every shorter value is
# named by itself, as it always was: the memories written before find their keys.
VALUE_BYTES = 1000
DIGEST = "sha256:"


def value_named(value: str) -> str:
    """The value as its dedupe key names it: casefolded, or the digest of that if longer than VALUE_BYTES."""
    folded = value.casefold()
    said = folded.encode()
    return folded if len(said) <= VALUE_BYTES else DIGEST + hashlib.sha256(said).hexdigest()
