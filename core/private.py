"""The one way symscope writes a file that holds the repo's code: private, atomic, no symlinks.

Bundles (saved from the CLI or the TUI, or persisted beside the index), the ranker
and the vectors all go through `write_private`: the bytes go to a temporary file
created 0600 with O_EXCL|O_NOFOLLOW in the same folder, are flushed to disk, and the
file is renamed over the destination. So the result is 0600 even when it replaces
a wider file, a crash never leaves half a file, and a symlink planted at the
destination is refused (a rename would not follow it either).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

#: Temporary files start with this (the index folder's check knows them as ours).
PRIVATE_TMP_PREFIX = ".symscope-tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700

__all__ = ["PRIVATE_TMP_PREFIX", "write_private", "write_private_with"]


def write_private(target: Path, data: str | bytes, *, replace: bool = True) -> None:
    """Write `data` (text as UTF-8, newlines untouched) to `target`, mode 0600; see `write_private_with`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    write_private_with(target, lambda fh: fh.write(raw), replace=replace)


def write_private_with(target: Path, write: Callable[[BinaryIO], object], *, replace: bool = True) -> None:
    """Let `write` fill a new private file, then put it at `target` in one rename.

    Missing parent folders are created 0700.

    Raises:
        FileExistsError: `replace` is False and something is already at `target`.
        OSError: the file cannot be written; ELOOP when `target` is a symlink.
    """
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    _check_target(target, replace)
    tmp = _create_tmp(folder)
    try:
        fd = os.open(tmp, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        _check_target(target, replace)
        _put(tmp, target, replace)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _check_target(target: Path, replace: bool) -> None:
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise OSError(errno.ELOOP, "it is a symlink", str(target))
    if not replace:
        raise FileExistsError(errno.EEXIST, "it already exists", str(target))


def _create_tmp(folder: Path) -> Path:
    """A new empty file in `folder`, mode exactly 0600 whatever the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = folder / f"{PRIVATE_TMP_PREFIX}{secrets.token_hex(8)}"
        try:
            fd = os.open(tmp, flags, FILE_MODE)
        except FileExistsError:
            continue
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, FILE_MODE)
        finally:
            os.close(fd)
        return tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _put(tmp: Path, target: Path, replace: bool) -> None:
    """Rename `tmp` to `target`; without `replace`, a hard link makes it fail if `target` appeared."""
    if replace:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # atomic: EEXIST if something got there first
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename
        _check_target(target, replace)
        os.replace(tmp, target)
