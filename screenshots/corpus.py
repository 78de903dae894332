"""The pinned repository the screenshots are made on, and the check that a folder is it.

The pictures show gin at the commit the benchmarks pin (`benchmarks.PINNED_COMMITS`),
so their savings are a real repository's and the same on every machine. A corpus
folder is usually a `git archive` export with no `.git`, so the check reads a few
files instead: their line counts and SHA-256 digests at that commit. Nothing here
downloads anything.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from benchmarks import PINNED_COMMITS

NAME = "gin"
REPOSITORY = "gin-gonic/gin"
COMMIT = PINNED_COMMITS[NAME]

#: path -> (lines, first 16 hex digits of the SHA-256 of its bytes) at `COMMIT`.
FINGERPRINT: dict[str, tuple[int, str]] = {
    "go.mod": (45, "54c3aed154c76dfb"),
    "version.go": (8, "64a9cd75a68233df"),
    "context.go": (1539, "e883d5e301055579"),
    "gin.go": (832, "7489e54df8c18c20"),
    "tree.go": (950, "89d06fd0d30e5b65"),
    "binding/json.go": (56, "d243c6e10cf15fb5"),
}


def how_to_get(folder: Path) -> str:
    """One sentence saying how to put the pinned corpus in `folder` without this script downloading."""
    return (f"get it with `mkdir -p {folder} && git --git-dir=<a clone of {REPOSITORY}>/.git archive "
            f"{COMMIT} | tar -x -C {folder}`, or pass --sample for the small fixture repo")


def mismatch(folder: Path) -> str | None:
    """Why `folder` is not the pinned corpus (missing, or which file differs); None when it is."""
    if not folder.is_dir():
        return "not found"
    for rel, (lines, digest) in FINGERPRINT.items():
        path = folder / rel
        try:
            data = path.read_bytes()
        except OSError:
            return f"{rel} is missing"
        if data.count(b"\n") != lines or hashlib.sha256(data).hexdigest()[:16] != digest:
            return f"{rel} differs from {REPOSITORY} at {COMMIT[:12]}"
    return None


def check(folder: Path) -> str | None:
    """One line of error when `folder` is not the pinned corpus, saying how to get it; else None."""
    why = mismatch(folder)
    if why is None:
        return None
    return f"screenshots: {folder} is not {REPOSITORY} at {COMMIT[:12]} ({why}); {how_to_get(folder)}"
