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
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from symscope.core.errors import (
    IndexAccessError,
    IndexCorruptError,
    IndexFullError,
    IndexPermissionError,
    IndexReadOnlyError,
    SymscopeError,
)
from symscope.core.models import FileRecord, Import, SkippedFile, Symbol
from symscope.core.store_errors import (
    classify,
    corrupt_message,
    exists,
    os_error,
    passes_quick_check,
)
from symscope.core.store_errors import intact as intact
from symscope.core.store_folder import create_private, prepare_index_dir
from symscope.core.store_folder import make_private_dirs as make_private_dirs
from symscope.core.store_rows import (
    MAX_PARAMS,
    BagCache,
    dup_of,
    id_key,
    id_lookups,
    nth_bag,
    pack_bags,
    pack_imports,
    read_bags,
    unpack_bags,
    unpack_imports,
)

#: 3: symbols_by_name; 4: search_stale, the files the search index must re-read; 5: the
#: compact layout (docs/storage.md): term bags packed per file, ids derived, hashes as bytes,
#: imports packed per file.
SCHEMA_VERSION = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    fid INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    language TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    has_errors INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS symbols (
    sid INTEGER PRIMARY KEY,
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
    content_hash BLOB NOT NULL,
    norm_hash BLOB NOT NULL,
    dup INTEGER,
    idkey INTEGER NOT NULL,
    id TEXT GENERATED ALWAYS AS (path || '::' || qualname || '#' || kind || coalesce('~' || dup, '')) VIRTUAL
);
CREATE INDEX IF NOT EXISTS symbols_by_path ON symbols(path, ord);
CREATE INDEX IF NOT EXISTS symbols_by_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_by_key ON symbols(idkey);
CREATE TABLE IF NOT EXISTS bags (
    fid INTEGER NOT NULL REFERENCES files(fid) ON DELETE CASCADE,
    first INTEGER NOT NULL,
    terms BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS bags_by_file ON bags(fid, first);
CREATE TABLE IF NOT EXISTS imports (
    fid INTEGER PRIMARY KEY REFERENCES files(fid) ON DELETE CASCADE,
    modules TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS exports (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS search_stale (path TEXT PRIMARY KEY);
"""
#: What the schema needs: generated columns (SQLite 3.31, January 2020).
MIN_SQLITE = (3, 31, 0)

SYMBOL_COLUMNS = (
    "id, name, qualname, kind, language, path, start_line, end_line, start_byte, end_byte, "
    "signature, docstring, parent_id, tokens, content_hash"
)


def symbol_from_row(row: tuple[Any, ...]) -> Symbol:
    """A `Symbol` from a row of `SYMBOL_COLUMNS` (its content hash is stored as bytes)."""
    values = list(row)
    values[-1] = values[-1].hex() if isinstance(values[-1], bytes) else str(values[-1])
    return Symbol(*values)


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
        self._bag_cache = BagCache()
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise IndexAccessError(
                f"symscope needs SQLite {'.'.join(map(str, MIN_SQLITE))} or newer; this Python has "
                f"{sqlite3.sqlite_version}"
            )
        try:
            prepare_index_dir(path.parent)
            create_private(path)
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
        if isinstance(error, (IndexReadOnlyError, IndexPermissionError, IndexFullError)) and exists(
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
        self._conn.execute("VACUUM")  # the file keeps the old layout's pages otherwise; empty, it is cheap

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
            return passes_quick_check(self._conn, self.path)

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
            "SELECT f.path, f.language, f.size, f.hash, f.tokens, f.lines, count(s.sid) "
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
        cursor = conn.execute(
            "INSERT INTO files(path, language, size, mtime_ns, hash, tokens, lines, has_errors) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.path, record.language, record.size, mtime_ns, record.hash, record.tokens,
             record.lines, int(has_errors)),
        )
        fid = cursor.lastrowid
        conn.executemany(
            "INSERT INTO symbols(path, ord, name, qualname, kind, language, start_line, end_line, "
            "start_byte, end_byte, signature, docstring, parent_id, tokens, content_hash, norm_hash, "
            "dup, idkey) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (s.path, i, s.name, s.qualname, s.kind, s.language, s.start_line, s.end_line,
                 s.start_byte, s.end_byte, s.signature, s.docstring, s.parent_id, s.tokens,
                 bytes.fromhex(s.content_hash), bytes.fromhex(norm), dup_of(s), id_key(s.id))
                for i, (s, (norm, _)) in enumerate(zip(symbols, extras, strict=True))
            ],
        )
        if symbols:
            conn.executemany("INSERT INTO bags(fid, first, terms) VALUES (?, ?, ?)",
                             [(fid, first, blob) for first, blob in pack_bags([t for _, t in extras])])
        if imports:
            conn.execute("INSERT INTO imports(fid, modules) VALUES (?, ?)", (fid, pack_imports(imports)))
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
        return self.symbols_by_ids([symbol_id]).get(symbol_id)

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
        return {row[0]: symbol_from_row(row) for row in self.rows_by_ids(SYMBOL_COLUMNS, ids)}

    def rows_by_ids(self, columns: str, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """`columns` of the symbols with these ids (found by their digests: `store_rows.id_lookups`)."""
        out: list[tuple[Any, ...]] = []
        for where, params in id_lookups(ids):
            out += self.query(f"SELECT {columns} FROM symbols WHERE {where}", params)
        return out

    def bags(self, rows: Sequence[int]) -> dict[int, str]:
        """Each symbol's term bag (space-separated terms), by its store row (`sid`)."""
        try:
            return read_bags(self.query, self._bag_cache, rows)
        except ValueError as exc:
            raise IndexCorruptError(corrupt_message(self.path, exc)) from None

    def file_bags(self, paths: Sequence[str]) -> dict[str, list[str]]:
        """Each file's symbols' term bags, in the symbols' order (`ord`)."""
        out: dict[str, list[str]] = {}
        try:
            for start in range(0, len(paths), MAX_PARAMS):
                chunk = list(paths[start : start + MAX_PARAMS])
                for path, blob in self.query(
                    "SELECT f.path, b.terms FROM files f JOIN bags b ON b.fid = f.fid "
                    f"WHERE f.path IN ({','.join('?' * len(chunk))}) ORDER BY f.path, b.first", chunk):
                    out.setdefault(path, []).extend(unpack_bags(blob))
        except ValueError as exc:
            raise IndexCorruptError(corrupt_message(self.path, exc)) from None
        return out

    def file_symbols(self, path: str) -> list[Symbol]:
        rows = self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE path=? ORDER BY ord", (path,))
        return [symbol_from_row(r) for r in rows]

    def all_symbols(self) -> list[Symbol]:
        rows = self.query(f"SELECT {SYMBOL_COLUMNS} FROM symbols ORDER BY path, ord")
        return [symbol_from_row(r) for r in rows]

    def rank_rows(self) -> list[tuple[str, str, str, str, str, str, str]]:
        """(id, path, kind, language, name, norm_hash, terms) of every symbol (benchmarks
        build other engines from these)."""
        rows = self.query("SELECT id, path, kind, language, name, norm_hash, ord FROM symbols ORDER BY path, ord")
        bags = self.file_bags(sorted({r[1] for r in rows}))
        return [(i, p, k, lang, n, norm.hex(), nth_bag(bags.get(p, []), o)) for i, p, k, lang, n, norm, o in rows]

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
        sql = "SELECT f.path, i.modules FROM imports i JOIN files f ON f.fid = i.fid"
        rows = self.query(sql + " ORDER BY f.path") if path is None else self.query(sql + " WHERE f.path=?", (path,))
        try:
            return [imp for p, packed in rows for imp in unpack_imports(p, packed)]
        except ValueError as exc:
            raise IndexCorruptError(corrupt_message(self.path, exc)) from None
