"""SQLite persistence for files, symbols, imports and skips.

WAL mode, schema version in `PRAGMA user_version`, every batch of writes in one
transaction. An index is a cache of the repo: an older schema is rebuilt, an
unreadable one is reported with a one-line hint to rebuild. Every other failure
says what it is (disk full, read-only, permission denied, busy), because
rebuilding would not cure it; a read-only index (a read-only mount, a full
disk) still opens read-only for searching.

The index may hold secrets from the repo, so its folder is 0700 and its files 0600.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from symscope.core.errors import (
    IndexAccessError,
    IndexBusyError,
    IndexCorruptError,
    IndexFullError,
    IndexPermissionError,
    IndexReadOnlyError,
    SymscopeError,
    UntrustedIndexError,
)
from symscope.core.models import FileRecord, Import, SkippedFile, Symbol
from symscope.core.private import PRIVATE_TMP_PREFIX

SCHEMA_VERSION = 4  # 3: symbols_by_name; 4: search_stale, the files the search index must re-read

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    language TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    has_errors INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS symbols (
    id TEXT PRIMARY KEY,
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    kind TEXT NOT NULL,
    language TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    signature TEXT NOT NULL,
    docstring TEXT NOT NULL,
    parent_id TEXT,
    tokens INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    norm_hash TEXT NOT NULL,
    terms TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_by_path ON symbols(path, ord);
CREATE INDEX IF NOT EXISTS symbols_by_name ON symbols(name);
CREATE TABLE IF NOT EXISTS imports (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    module TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_by_path ON imports(path);
CREATE INDEX IF NOT EXISTS imports_by_module ON imports(module);
CREATE TABLE IF NOT EXISTS exports (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS search_stale (path TEXT PRIMARY KEY);
"""

SYMBOL_COLUMNS = (
    "id, name, qualname, kind, language, path, start_line, end_line, start_byte, end_byte, "
    "signature, docstring, parent_id, tokens, content_hash"
)


def symbol_from_row(row: tuple[Any, ...]) -> Symbol:
    return Symbol(*row)


#: Modes of the index folder and of every file in it: the index holds the repo's code.
DIR_MODE = 0o700
FILE_MODE = 0o600
#: Names this module and its neighbours keep in an index folder; a folder holding
#: only these (or nothing) is ours to tighten, one shared with other files is not.
_OWN_PREFIXES = ("index.sqlite", "rank.", "bundle.", ".bundle-", "semantic.", PRIVATE_TMP_PREFIX, "search.")
#: Folders among them (the search index's segments), checked as folders.
_OWN_DIRS = ("search.tantivy",)
_OWN_FILES = ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm")

# SQLite primary result codes (https://sqlite.org/rescode.html).
_SQLITE_ERROR, _SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED = 1, 3, 5, 6
_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL = 8, 10, 11, 13
_SQLITE_CANTOPEN, _SQLITE_AUTH, _SQLITE_NOTADB = 14, 23, 26


class Store:
    """One SQLite database; safe to share between the UI thread and a worker thread.

    Opening never writes when the schema is current. When the database cannot
    be written (a read-only mount, a full disk, permissions) but can be read
    and has the current schema, it opens read-only: `read_only` is True, reads
    work, and every write raises the error that explains why.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.read_only = False
        """True when opened read-only because the database could not be written."""
        self._write_error: IndexAccessError | None = None
        self._lock = threading.RLock()
        try:
            prepare_index_dir(path.parent)
            _create_private(path)
        except OSError as exc:
            self._read_only_or_raise(os_error(path, exc))
            return
        try:
            self._conn = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
        except sqlite3.DatabaseError as exc:
            self._read_only_or_raise(classify(path, exc))
            return
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            self._read_only_or_raise(classify(path, exc))
        except BaseException:
            self._conn.close()
            raise

    def _read_only_or_raise(self, error: SymscopeError) -> None:
        """After `error` opening read-write: open read-only if that is why, else raise it."""
        if isinstance(error, (IndexReadOnlyError, IndexPermissionError, IndexFullError)) and _exists(
            self.path
        ):
            self._open_read_only(error)
            return
        raise error from None

    def _setup(self) -> None:
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        if has_tables and version > SCHEMA_VERSION:  # intact, just not ours to read or rebuild
            raise IndexAccessError(
                f"index at {self.path} was built by a newer symscope (schema {version}, this one "
                f"reads {SCHEMA_VERSION}); upgrade symscope or pass --index-dir DIR"
            )
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode=WAL")
        if has_tables and version == SCHEMA_VERSION:
            return  # current: opening writes nothing (a full or read-only disk can still be read)
        if has_tables:
            self._drop_all()  # an older layout: the index is a cache, so rebuild it
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.commit()

    def _open_read_only(self, why: IndexAccessError) -> None:
        """Open the existing database read-only, or raise `why` if it cannot serve reads."""
        uri = self.path.absolute().as_uri() + "?mode=ro"
        for suffix in ("", "&immutable=1"):  # immutable: no -shm needed (a read-only mount)
            try:
                conn = sqlite3.connect(uri + suffix, uri=True, check_same_thread=False, timeout=10.0)
            except sqlite3.Error:
                continue
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
            except sqlite3.Error:
                conn.close()
                continue
            if has_tables and version == SCHEMA_VERSION:
                conn.execute("PRAGMA foreign_keys=ON")
                self._conn = conn
                self.read_only = True
                self._write_error = why
                return
            conn.close()
            raise type(why)(
                f"{why}; it is not a complete index of this symscope version, so it cannot be "
                "searched read-only either"
            ) from None
        raise why from None

    def _drop_all(self) -> None:
        for (name,) in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            self._conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        self._conn.commit()

    def repair_schema(self) -> None:
        """Re-create any missing table or index, keeping every row that is there.

        Opening no longer runs the schema script (it would write); `--rebuild`
        calls this so an index that passes `quick_check` but lost a table is
        repaired in place instead of being set aside.

        Raises:
            IndexAccessError: the index cannot be written (read-only, full...).
        """
        with self._lock:
            self.check_writable()
            try:
                self._conn.executescript(_SCHEMA)
                self._conn.commit()
            except sqlite3.DatabaseError as exc:
                raise classify(self.path, exc) from None

    def check_writable(self) -> None:
        """Raise now, before any work, if this store was opened read-only.

        Raises:
            IndexAccessError: why it cannot be written (read-only, full, permission denied).
        """
        if self._write_error is not None:
            raise type(self._write_error)(str(self._write_error))

    def quick_check(self) -> bool:
        """True when SQLite's `PRAGMA quick_check` finds the database intact.

        An index that opens and passes this is healthy: `--rebuild` must re-parse
        into it, never set it aside as corrupt.

        Raises:
            IndexAccessError: the check itself could not run (busy, I/O error...).
        """
        with self._lock:
            return _quick_check(self._conn, self.path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All writes inside happen together or not at all."""
        with self._lock:
            self.check_writable()
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise classify(self.path, exc) from None
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.DatabaseError):
                    raise classify(self.path, exc) from None
                raise

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, tuple(params)).fetchall()
            except sqlite3.DatabaseError as exc:
                raise classify(self.path, exc) from None

    # -- meta ---------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else default

    @staticmethod
    def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    # -- files ----------------------------------------------------------------

    def file_stats(self) -> dict[str, tuple[int, int, str]]:
        """path -> (size, mtime_ns, hash) for the fast no-change check."""
        return {p: (s, m, h) for p, s, m, h in self.query("SELECT path, size, mtime_ns, hash FROM files")}

    def files(self) -> list[FileRecord]:
        rows = self.query(
            "SELECT f.path, f.language, f.size, f.hash, f.tokens, f.lines, count(s.id) "
            "FROM files f LEFT JOIN symbols s ON s.path = f.path GROUP BY f.path ORDER BY f.path"
        )
        return [FileRecord(*r) for r in rows]

    def file(self, path: str) -> FileRecord | None:
        rows = self.query(
            "SELECT f.path, f.language, f.size, f.hash, f.tokens, f.lines, "
            "(SELECT count(*) FROM symbols s WHERE s.path = f.path) FROM files f WHERE f.path=?",
            (path,),
        )
        return FileRecord(*rows[0]) if rows else None

    @staticmethod
    def replace_file(
        conn: sqlite3.Connection,
        record: FileRecord,
        mtime_ns: int,
        has_errors: bool,
        symbols: list[Symbol],
        extras: list[tuple[str, str]],
        imports: list[Import],
        exports: Sequence[str] = (),
    ) -> None:
        """Swap one file's rows for new ones (call inside `transaction`); the search index
        re-reads the file at its next sync (`search/termindex.py`)."""
        conn.execute("DELETE FROM files WHERE path=?", (record.path,))
        conn.execute("INSERT OR IGNORE INTO search_stale(path) VALUES (?)", (record.path,))
        conn.execute("DELETE FROM skipped WHERE path=?", (record.path,))
        conn.execute(
            "INSERT INTO files(path, language, size, mtime_ns, hash, tokens, lines, has_errors) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.language, record.size, mtime_ns, record.hash, record.tokens,
             record.lines, int(has_errors)),
        )
        conn.executemany(
            "INSERT INTO symbols(id, path, ord, name, qualname, kind, language, start_line, "
            "end_line, start_byte, end_byte, signature, docstring, parent_id, tokens, "
            "content_hash, norm_hash, terms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (s.id, s.path, i, s.name, s.qualname, s.kind, s.language, s.start_line,
                 s.end_line, s.start_byte, s.end_byte, s.signature, s.docstring, s.parent_id,
                 s.tokens, s.content_hash, norm, terms)
                for i, (s, (norm, terms)) in enumerate(zip(symbols, extras, strict=True))
            ],
        )
        conn.executemany(
            "INSERT INTO imports(path, module, line) VALUES (?, ?, ?)",
            [(i.path, i.module, i.line) for i in imports],
        )
        conn.executemany("INSERT INTO exports(path, name) VALUES (?, ?)", [(record.path, n) for n in exports])

    @staticmethod
    def touch_file(conn: sqlite3.Connection, path: str, mtime_ns: int) -> None:
        conn.execute("UPDATE files SET mtime_ns=? WHERE path=?", (mtime_ns, path))

    @staticmethod
    def remove_file(conn: sqlite3.Connection, path: str) -> None:
        conn.execute("DELETE FROM files WHERE path=?", (path,))
        conn.execute("INSERT OR IGNORE INTO search_stale(path) VALUES (?)", (path,))

    @staticmethod
    def replace_skipped(conn: sqlite3.Connection, skipped: list[SkippedFile]) -> None:
        conn.execute("DELETE FROM skipped")
        conn.executemany(
            "INSERT OR REPLACE INTO skipped(path, reason) VALUES (?, ?)",
            [(s.path, s.reason) for s in skipped],
        )

    def skipped(self) -> list[SkippedFile]:
        return [SkippedFile(p, r) for p, r in self.query("SELECT path, reason FROM skipped ORDER BY path")]

    # -- symbols --------------------------------------------------------------

    def symbol(self, symbol_id: str) -> Symbol | None:
        rows = self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id=?", (symbol_id,))
        return symbol_from_row(rows[0]) if rows else None

    def symbols_named(self, name: str, limit: int) -> list[Symbol]:
        """Up to `limit` symbols whose qualified name, or plain name, is `name` (an index lookup)."""
        last = name.rsplit(".", 1)[-1]
        rows = self.query(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE name=? AND (qualname=? OR name=?) "
            "ORDER BY qualname<>?, path, ord LIMIT ?",
            (last, name, name, name, limit),
        )
        return [symbol_from_row(row) for row in rows]

    def symbols_by_ids(self, ids: list[str]) -> dict[str, Symbol]:
        out: dict[str, Symbol] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id IN ({marks})", chunk):
                out[row[0]] = symbol_from_row(row)
        return out

    def file_symbols(self, path: str) -> list[Symbol]:
        rows = self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE path=? ORDER BY ord", (path,))
        return [symbol_from_row(r) for r in rows]

    def all_symbols(self) -> list[Symbol]:
        rows = self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols ORDER BY path, ord")
        return [symbol_from_row(r) for r in rows]

    def rank_rows(self) -> list[tuple[str, str, str, str, str, str, str]]:
        """(id, path, kind, language, name, norm_hash, terms) for building the ranker."""
        return self.query(
            "SELECT id, path, kind, language, name, norm_hash, terms FROM symbols ORDER BY path, ord"
        )

    def counts(self) -> tuple[int, int, int, int]:
        """(files, symbols, file tokens, skipped)."""
        (files, tokens), = self.query("SELECT count(*), coalesce(sum(tokens), 0) FROM files")
        (symbols,), = self.query("SELECT count(*) FROM symbols")
        (skipped,), = self.query("SELECT count(*) FROM skipped")
        return files, symbols, tokens, skipped

    def kinds(self) -> dict[str, int]:
        return dict(self.query("SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY kind"))

    def languages(self) -> dict[str, tuple[int, int]]:
        rows = self.query("SELECT language, count(*), sum(tokens) FROM files GROUP BY language ORDER BY language")
        return {lang: (n, t) for lang, n, t in rows}

    def exported_names(self) -> set[str]:
        """Every name a package entry file re-exports (its public API)."""
        return {name for (name,) in self.query("SELECT DISTINCT name FROM exports")}

    def imports(self, path: str | None = None) -> list[Import]:
        if path is None:
            rows = self.query("SELECT path, module, line FROM imports ORDER BY path, line")
        else:
            rows = self.query("SELECT path, module, line FROM imports WHERE path=? ORDER BY line", (path,))
        return [Import(*r) for r in rows]


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
        return _quick_check(conn, path)
    finally:
        conn.close()


def _quick_check(conn: sqlite3.Connection, path: Path) -> bool:
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
    return IndexCorruptError(_corrupt_message(path, exc))


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


def _exists(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


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


def _create_private(path: Path) -> None:
    """Create the database file 0600 before SQLite does (SQLite gives its -wal/-shm the same mode)."""
    if os.path.lexists(path):
        return
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def _corrupt_message(path: Path, exc: Exception) -> str:
    return (
        f"index at {path} is unreadable or corrupted ({exc}); "
        "rebuild it with `symscope index --rebuild PATH`"
    )
