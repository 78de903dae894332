"""SQLite persistence for files, symbols, imports and skips.

WAL mode, schema version in `PRAGMA user_version`, every batch of writes in one
transaction. An index is a cache of the repo: an older schema is rebuilt, an
unreadable one is reported with a one-line hint to rebuild.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from symscope.core.errors import IndexCorruptError, SymscopeError
from symscope.core.models import FileRecord, Import, SkippedFile, Symbol

SCHEMA_VERSION = 1

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
CREATE TABLE IF NOT EXISTS imports (
    path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
    module TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_by_path ON imports(path);
CREATE INDEX IF NOT EXISTS imports_by_module ON imports(module);
CREATE TABLE IF NOT EXISTS skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
"""

SYMBOL_COLUMNS = (
    "id, name, qualname, kind, language, path, start_line, end_line, start_byte, end_byte, "
    "signature, docstring, parent_id, tokens, content_hash"
)


def symbol_from_row(row: tuple[Any, ...]) -> Symbol:
    return Symbol(*row)


class Store:
    """One SQLite database; safe to share between the UI thread and a worker thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(path, check_same_thread=False, timeout=10.0)
            self._setup()
        except sqlite3.DatabaseError as exc:
            raise IndexCorruptError(_corrupt_message(path, exc)) from None
        except OSError as exc:
            raise IndexCorruptError(f"cannot open index at {path}: {exc.strerror or exc}") from None

    def _setup(self) -> None:
        conn = self._conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        has_tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        if has_tables and version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"schema version {version} is newer than this symscope ({SCHEMA_VERSION})"
            )
        if has_tables and version != SCHEMA_VERSION:
            self._drop_all()  # an older layout: the index is a cache, so rebuild it
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.executescript(_SCHEMA)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.commit()

    def _drop_all(self) -> None:
        for (name,) in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            self._conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All writes inside happen together or not at all."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise _user_error(self.path, exc) from None
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.DatabaseError):
                    raise _user_error(self.path, exc) from None
                raise

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, tuple(params)).fetchall()
            except sqlite3.DatabaseError as exc:
                raise _user_error(self.path, exc) from None

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
    ) -> None:
        """Swap one file's rows for new ones (call inside `transaction`)."""
        conn.execute("DELETE FROM files WHERE path=?", (record.path,))
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

    @staticmethod
    def touch_file(conn: sqlite3.Connection, path: str, mtime_ns: int) -> None:
        conn.execute("UPDATE files SET mtime_ns=? WHERE path=?", (mtime_ns, path))

    @staticmethod
    def remove_file(conn: sqlite3.Connection, path: str) -> None:
        conn.execute("DELETE FROM files WHERE path=?", (path,))

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

    def imports(self, path: str | None = None) -> list[Import]:
        if path is None:
            rows = self.query("SELECT path, module, line FROM imports ORDER BY path, line")
        else:
            rows = self.query("SELECT path, module, line FROM imports WHERE path=? ORDER BY line", (path,))
        return [Import(*r) for r in rows]


def _user_error(path: Path, exc: sqlite3.DatabaseError) -> SymscopeError:
    """A one-line error for the user: busy or read-only, versus unreadable."""
    if isinstance(exc, sqlite3.OperationalError) and any(
        word in str(exc) for word in ("locked", "busy", "readonly", "read-only", "disk I/O", "full")
    ):
        return SymscopeError(f"index at {path} cannot be written right now ({exc})")
    return IndexCorruptError(_corrupt_message(path, exc))


def _corrupt_message(path: Path, exc: Exception) -> str:
    return (
        f"index at {path} is unreadable or corrupted ({exc}); "
        "rebuild it with `symscope index --rebuild PATH`"
    )
