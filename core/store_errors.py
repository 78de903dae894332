"""What a failure on the index means to the user, and whether a database file is intact.

Only real damage says "corrupted" and suggests `--rebuild`; a full disk, a read-only or
forbidden file, a lock or an I/O error each say what they are, since rebuilding cures none.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from symscope.core.errors import (
    IndexAccessError,
    IndexBusyError,
    IndexCorruptError,
    IndexFullError,
    IndexPermissionError,
    IndexReadOnlyError,
    SymscopeError,
)

# SQLite primary result codes (https://sqlite.org/rescode.html).
_SQLITE_ERROR, _SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED = 1, 3, 5, 6
_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL = 8, 10, 11, 13
_SQLITE_CANTOPEN, _SQLITE_AUTH, _SQLITE_NOTADB = 14, 23, 26


def intact(path: Path) -> bool:
    """True when the database file at `path` opens read-only and passes `PRAGMA quick_check`.

    The last check before an index is set aside as corrupt: one that passes is
    healthy, whatever error led there (a full disk, a lock), and is kept.

    Raises:
        IndexAccessError: it cannot even be checked (permissions, I/O, busy).
    """
    try:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, timeout=10.0)
    except sqlite3.DatabaseError as exc:
        error = classify(path, exc)
        if isinstance(error, IndexCorruptError):
            return False
        raise error from None
    try:
        return passes_quick_check(conn, path)
    finally:
        conn.close()


def passes_quick_check(conn: sqlite3.Connection, path: Path) -> bool:
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.DatabaseError as exc:
        error = classify(path, exc)
        if isinstance(error, IndexCorruptError):
            return False
        raise error from None
    return rows == [("ok",)]


def classify(path: Path, exc: sqlite3.DatabaseError) -> SymscopeError:
    """The user-facing error for a SQLite failure on the index at `path`.

    Only real damage (a malformed file, a missing table) says "corrupted" and
    suggests `--rebuild`; a full disk, a read-only or forbidden file, a lock
    or an I/O error each say what they are, since rebuilding cures none of them.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else _code_from_message(str(exc))
    if primary == _SQLITE_FULL:
        return _full(path, str(exc))
    if primary == _SQLITE_READONLY:
        return _read_only(path, _why_unwritable(path) or str(exc))
    if primary in (_SQLITE_PERM, _SQLITE_AUTH):
        return _denied(path, str(exc))
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return IndexBusyError(
            f"index at {path} is busy: another symscope is writing it ({exc}); try again in a moment"
        )
    if primary in (_SQLITE_IOERR, _SQLITE_CANTOPEN):
        return _diagnosed(path, str(exc)) or IndexAccessError(
            f"index at {path} cannot be read or written ({exc}); check the disk it is on"
        )
    return IndexCorruptError(corrupt_message(path, exc))


def os_error(path: Path, exc: OSError) -> SymscopeError:
    """The user-facing error for an OSError while preparing or writing the index at `path`."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return _full(path, reason)
    if exc.errno == errno.EROFS:
        return _read_only(path, reason)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return _denied(path, reason)
    return IndexAccessError(f"cannot open index at {path}: {reason}")


def _code_from_message(message: str) -> int:
    """A primary result code guessed from SQLite's message (Pythons without `sqlite_errorcode`)."""
    text = message.lower()
    for words, code in (
        (("disk is full",), _SQLITE_FULL),
        (("readonly", "read-only"), _SQLITE_READONLY),
        (("locked", "busy"), _SQLITE_BUSY),
        (("disk i/o",), _SQLITE_IOERR),
        (("unable to open",), _SQLITE_CANTOPEN),
        (("not a database", "malformed"), _SQLITE_CORRUPT),
    ):
        if any(word in text for word in words):
            return code
    return _SQLITE_ERROR


def _diagnosed(path: Path, detail: str) -> IndexAccessError | None:
    """Full, read-only or forbidden, from the file system itself (SQLite's I/O errors do not say)."""
    why = _why_unwritable(path)
    if why is not None:
        return _read_only(path, why) if "read-only" in why else _denied(path, why)
    try:
        fs = os.statvfs(path.parent)
    except (OSError, AttributeError):
        return None
    if fs.f_bavail * fs.f_frsize < 64 * 1024:
        return _full(path, f"no space left on the device: {detail}")
    return None


def _why_unwritable(path: Path) -> str | None:
    """"read-only file system" or "permission denied" when the index cannot be written, else None."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return "read-only file system"
    except (OSError, AttributeError):
        pass
    for target in (path, folder):
        try:
            if target.exists() and not os.access(target, os.W_OK):
                return "permission denied"
        except OSError:
            return None
    return None


def _full(path: Path, detail: str) -> IndexFullError:
    return IndexFullError(
        f"disk full: cannot write the index at {path} ({detail}); "
        "free some space (or pass --index-dir DIR on another disk) and run the command again"
    )


def _read_only(path: Path, detail: str) -> IndexReadOnlyError:
    return IndexReadOnlyError(
        f"index at {path} is read-only ({detail}): it can be searched but not updated; "
        "make it writable or pass --index-dir DIR"
    )


def _denied(path: Path, detail: str) -> IndexPermissionError:
    return IndexPermissionError(
        f"permission denied for the index at {path} ({detail}); "
        "fix the folder's permissions or pass --index-dir DIR"
    )


def exists(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False



def corrupt_message(path: Path, exc: Exception) -> str:
    return (
        f"index at {path} is unreadable or corrupted ({exc}); "
        "rebuild it with `symscope index --rebuild PATH`"
    )
