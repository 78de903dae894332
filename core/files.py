"""Reading repository files safely: one regular file inside the repo, read once, hash-checked.

Every read of repo content goes through `read_repo_file`: it opens with
`O_NOFOLLOW | O_NONBLOCK` (a file swapped for a symlink fails instead of leading
outside the repo; a FIFO cannot block), checks with `fstat` that what it opened
is still a regular file, and reads from that same descriptor, so nothing can be
swapped between the check and the read. `read_current` adds the other half of
the contract: the bytes must still be the ones that were indexed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from symscope.core.errors import StaleSymbolError
from symscope.core.hashing import content_hash

_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(
    os, "O_CLOEXEC", 0
)


class UnsafeFileError(OSError):
    """The path is no longer a regular file inside the repo (swapped, a link, a FIFO...)."""


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def read_repo_file(root: Path, rel: str, max_bytes: int | None = None) -> bytes:
    """The bytes of repo-relative `rel`, only if it is a regular file inside `root` now.

    Args:
        root: The repo folder (resolved).
        rel: Repo-relative path with `/` separators.
        max_bytes: Refuse files larger than this (checked on the open descriptor).

    Raises:
        UnsafeFileError: a symlink (at the file or a parent), a folder outside the
            repo, or not a regular file.
        OSError: it cannot be opened or read (missing, permission denied...).
    """
    path = os.path.join(str(root), *rel.split("/"))
    parent = os.path.realpath(os.path.dirname(path))
    if not _inside(os.path.realpath(str(root)), parent):
        raise UnsafeFileError(f"{rel} is outside the repo")
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1) or os.path.islink(path):
            raise UnsafeFileError(f"{rel} is a symlink") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFileError(f"{rel} is not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise UnsafeFileError(f"{rel} is too large ({st.st_size:,} bytes)")
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, max(st.st_size + 1, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_current(root: Path, rel: str, expected_hash: str | None) -> bytes:
    """`rel`'s bytes, if they are still exactly what was indexed (`expected_hash`).

    Raises:
        StaleSymbolError: the file is gone, unreadable, unsafe or changed since indexing.
    """
    try:
        data = read_repo_file(root, rel)
    except OSError as exc:
        reason = str(exc) if isinstance(exc, UnsafeFileError) else (exc.strerror or str(exc))
        raise StaleSymbolError(
            f"cannot read {rel} ({reason}); run `symscope index` again"
        ) from None
    if expected_hash is None or content_hash(data) != expected_hash:
        raise StaleSymbolError(f"{rel} changed since indexing; run `symscope index` again")
    return data
