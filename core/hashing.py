"""Content hashes for files and symbols (kept tiny: the CLI imports it on every run)."""

from __future__ import annotations

import hashlib


def content_hash(data: bytes) -> str:
    """Short, stable hash of exact bytes."""
    return hashlib.blake2b(data, digest_size=10).hexdigest()
