"""The index folder: created private (0700, files 0600), and trusted only when it is the user's own.

The index holds the repo's code, secrets included; a folder or file someone else could
have written is refused rather than read.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from symscope.core.errors import IndexAccessError, UntrustedIndexError
from symscope.core.private import PRIVATE_TMP_PREFIX

#: Modes of the index folder and of every file in it: the index holds the repo's code.
DIR_MODE = 0o700
FILE_MODE = 0o600
#: Names this module and its neighbours keep in an index folder; a folder holding
#: only these (or nothing) is ours to tighten, one shared with other files is not.
_OWN_PREFIXES = ("index.sqlite", "rank.", "bundle.", ".bundle-", "semantic.", PRIVATE_TMP_PREFIX, "search.")
#: Folders among them (the search index's segments), checked as folders.
_OWN_DIRS = ("search.tantivy",)
_OWN_FILES = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm")


def prepare_index_dir(folder: Path) -> None:
    """Create the index folder private (0700), or check that an existing one can be trusted.

    An existing folder, and every index file in it, must be the user's own, not a
    symlink and not writable by group or others (`UntrustedIndexError` otherwise:
    someone else could have planted its content). What an older version left
    merely readable is tightened: the files to 0600 wherever they are, the folder
    itself only when it holds nothing but index files (`--index-dir .` names a
    folder that is not ours to change). Modes are changed through a descriptor
    opened with O_NOFOLLOW, never through a symlink.
    """
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        make_private_dirs(folder)
        st = os.lstat(folder)
    _check_trusted(folder, st, "folder")
    entries = _own_entries(folder)
    for name in entries:
        path = folder / name
        try:
            file_st = os.lstat(path)
        except FileNotFoundError:
            continue
        _check_trusted(path, file_st, "folder" if name in _OWN_DIRS else "file")
    for name in entries:  # a read-only folder stays as it is; reads still work
        with contextlib.suppress(OSError):
            _tighten(folder / name, DIR_MODE if name in _OWN_DIRS else FILE_MODE)
    with contextlib.suppress(OSError):
        if stat.S_IMODE(st.st_mode) & 0o077 and _only_ours(folder):
            _tighten(folder, DIR_MODE)


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents 0700 (mkdir's mode is filtered by the umask)."""
    missing: list[Path] = []
    here = folder
    while not os.path.lexists(here) and here.parent != here:
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            os.mkdir(path, DIR_MODE)
            with contextlib.suppress(OSError):
                _tighten(path, DIR_MODE, exact=True)


def _check_trusted(path: Path, st: os.stat_result, what: str) -> None:
    """Raise `UntrustedIndexError` if `path` (lstat `st`) may hold what someone else put there."""
    if stat.S_ISLNK(st.st_mode):
        raise UntrustedIndexError(
            f"index {what} {path} is a symlink; remove the link and index again, or pass --index-dir DIR"
        )
    if what == "folder" and not stat.S_ISDIR(st.st_mode):
        raise IndexAccessError(f"index folder {path} is not a folder; remove it or pass --index-dir DIR")
    if what == "file" and not stat.S_ISREG(st.st_mode):
        raise UntrustedIndexError(f"index file {path} is not a regular file; remove it and index again")
    if not _POSIX_MODES:
        return
    if st.st_uid != _euid():
        raise UntrustedIndexError(
            f"index {what} {path} belongs to another user (uid {st.st_uid}); "
            "remove it and index again, or pass --index-dir DIR"
        )
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022:
        fix = "700" if what == "folder" else "600"
        raise UntrustedIndexError(
            f"index {what} {path} is writable by others (mode {mode:04o}); "
            f"run chmod {fix} {path} or remove it and index again"
        )


def _own_entries(folder: Path) -> list[str]:
    """The index files in `folder`: the known names, and every name with one of our prefixes."""
    try:
        listed = os.listdir(folder)
    except OSError:  # not listable: still check the names we would open
        listed = []
    return sorted(set(_OWN_FILES) | {n for n in listed if n.startswith(_OWN_PREFIXES)})


def _only_ours(folder: Path) -> bool:
    return all(name.startswith(_OWN_PREFIXES) for name in os.listdir(folder))


def _tighten(path: Path, mode: int, exact: bool = False) -> None:
    """Take group and other bits off one of our files or folders, through a no-follow descriptor.

    With `exact`, set `mode` even when nothing is loose (a folder just made under a
    umask that also took the owner's bits).
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return
    try:
        st = os.fstat(fd)
        loose = stat.S_IMODE(st.st_mode) & 0o077
        if (loose or exact) and st.st_uid == _euid() and (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


#: Owners and modes mean something (not on Windows, where every folder looks 0777).
_POSIX_MODES = hasattr(os, "geteuid") and hasattr(os, "fchmod")


def _euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def create_private(path: Path) -> None:
    """Create the database file 0600 before SQLite does (SQLite gives its -wal/-shm the same mode)."""
    if os.path.lexists(path):
        return
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


