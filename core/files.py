"""Reading repository files safely: one regular file inside the repo, read once, hash-checked.

Every read of repo content goes through `read_repo_file` (or, in the indexer,
`read_file_inside`): it opens with `O_NOFOLLOW | O_NONBLOCK` (a file swapped for
a symlink fails instead of leading outside the repo; a FIFO cannot block),
checks with `fstat` that what it opened is a regular file, then checks where
the open descriptor really is (`/proc/self/fd` on Linux: one `readlink`, so a
parent folder swapped for a symlink is caught after the fact, with no window
left), and reads from that same descriptor. `read_current` adds the other half
of the contract: the bytes must still be the ones that were indexed.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from pathlib import Path

from symscope.core.errors import StaleSymbolError
from symscope.core.hashing import content_hash
from symscope.core.pathnames import fs_parts

#: Open flags for every repo read: never follow a final symlink, never block
#: (FIFOs, devices), never become a controlling terminal, never leak to children.
OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
#: Errors from `open(O_NOFOLLOW)` on a symlink: ELOOP (Linux, macOS), EMLINK (FreeBSD).
_LINK_ERRNOS = frozenset(e for e in (getattr(errno, "ELOOP", None), getattr(errno, "EMLINK", None)) if e)
_FD_DIR = "/proc/self/fd"


class UnsafeFileError(OSError):
    """The path is no longer a regular file inside the repo (swapped, a link, a FIFO...).

    `str()` is `"<rel> <reason>"`; `reason` alone (`"is a symlink"`) suits a skip reason.
    """

    reason: str = "is not a safe file"


def _unsafe(rel: str, reason: str) -> UnsafeFileError:
    exc = UnsafeFileError(f"{rel} {reason}")
    exc.reason = reason
    return exc


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=16)
def _real_root(root: str) -> str:
    """The canonical root, once per process (realpath costs a syscall per path component)."""
    return os.path.realpath(root)


@functools.lru_cache(maxsize=1)
def _have_fd_links() -> bool:
    return os.path.isdir(_FD_DIR)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _where(fd: int) -> str | None:
    """The path the open descriptor really names (Linux), or None where that is unknown."""
    if not _have_fd_links():
        return None
    try:
        return os.readlink(f"{_FD_DIR}/{fd}")
    except OSError:
        return None


def read_file_inside(root: str, path: str, rel: str, max_bytes: int | None = None) -> bytes:
    """The bytes at `path` (which names `rel` under `root`), only if it is a regular file inside `root`.

    The indexer's hot path: one open, one fstat, one readlink (Linux), then reads.

    Raises:
        UnsafeFileError: a symlink (at the file or a parent), outside the repo,
            not a regular file, or larger than `max_bytes`.
        OSError: it cannot be opened or read (missing, permission denied...).
    """
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as exc:
        refusal = _open_refusal(path, exc)
        if refusal is None:
            raise
        raise _unsafe(rel, refusal) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _unsafe(rel, f"is not a regular file ({_kind(st.st_mode)})")
        real_root = _real_root(root)
        where = _where(fd)
        if where is None:  # no /proc: check the folders by name (a narrow race remains)
            where = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if not _inside(real_root, where):
            raise _unsafe(rel, "is outside the repo (through a symlinked folder)")
        if max_bytes is not None and st.st_size > max_bytes:
            raise _unsafe(rel, f"is too large ({st.st_size:,} bytes > {max_bytes:,} limit)")
        chunks: list[bytes] = []
        want = st.st_size + 1  # one read for the whole file, and one to see its end
        total = 0
        while True:
            chunk = os.read(fd, max(want, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:  # it grew after the fstat
                raise _unsafe(rel, f"is too large (over {max_bytes:,} bytes)")
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)  # b"" when empty
    finally:
        os.close(fd)


def _open_refusal(path: str, exc: OSError) -> str | None:
    """Why opening `path` failed, when the reason is that it is not a plain file."""
    if exc.errno in _LINK_ERRNOS or os.path.islink(path):
        return "is a symlink"
    if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP):  # a socket or a device
        try:
            return f"is not a regular file ({_kind(os.lstat(path).st_mode)})"
        except OSError:
            return None
    return None


def read_repo_file(root: Path, rel: str, max_bytes: int | None = None) -> bytes:
    """The bytes of repo-relative `rel`, only if it is a regular file inside `root` now.

    Args:
        root: The repo folder (resolved).
        rel: Repo-relative path with `/` separators, names escaped as the index keeps them.
        max_bytes: Refuse files larger than this.

    Raises:
        UnsafeFileError: not a plain relative path, a symlink (at the file or a
            parent), outside the repo, or not a regular file.
        OSError: it cannot be opened or read (missing, permission denied...).
    """
    parts = fs_parts(rel)  # stored names are escaped (core/pathnames.py): back to the bytes on disk
    if not rel or any(part in ("", ".", "..") or "\0" in part for part in parts) or os.path.isabs(rel):
        raise _unsafe(rel, "is not a plain path inside the repo")
    return read_file_inside(str(root), os.path.join(str(root), *parts), rel, max_bytes)


def read_head(path: str, limit: int) -> bytes | None:
    """Up to `limit` bytes from the start of `path`, or None if it cannot be read without risk.

    For sniffing (`#!` lines) and small control files (`.gitignore`): never
    follows a final symlink and never blocks on a FIFO or device. Costs no more
    syscalls than a plain open and read.
    """
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return None
    try:
        return os.read(fd, limit)  # a FIFO gives b"" or EAGAIN here, a folder EISDIR
    except OSError:
        return None
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
