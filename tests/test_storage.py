"""Issue 29: the store's compact layout (docs/storage.md) loses nothing.

Term bags are packed per file, ids are derived, hashes are bytes, imports are packed per
file: every test here indexes real code and checks that what comes back is what the
parser and `ingest` produced, that a damaged or older index says so in one line, and
that a read-only index with no term index still searches.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from symscope.core.errors import IndexAccessError, IndexCorruptError, IndexReadOnlyError
from symscope.core.index import Index
from symscope.core.ingest import ingest
from symscope.core.models import Import, Symbol
from symscope.core.store import SCHEMA_VERSION, Store
from symscope.core.store_rows import (
    CHUNK_CHARS,
    dup_of,
    id_key,
    id_lookups,
    pack_bags,
    pack_imports,
    unpack_bags,
    unpack_imports,
)

CODE = {
    "pool.py": '''
        """Connection pooling."""
        import os
        import collections.abc as abc


        class ConnectionPool:
            """Keeps connections for reuse."""

            def checkout(self):
                return self.queue.pop() if self.queue else self.ping()

            def recycle_stale(self, size=10):
                """Drop connections older than the pool's size limit."""
                return [c for c in self.queue if c.age < size]


        def checkout():
            return 1


        def checkout():
            return 2
        ''',
    "weird::name.py": "def odd_one():\n    return 'colons in the path'\n",
    "web/app.js": "import x from './x';\nexport function serveStatic(root) {\n  return root + '/index.html';\n}\n",
}


def _open(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    ix = Index.open(write_repo(CODE), tmp_path / "idx")
    ix.update(processes=1)
    return ix


def test_bags_come_back_as_ingest_made_them(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with _open(write_repo, tmp_path) as ix:
        for record in ix.files():
            made = ingest(record.path, str(ix.root / record.path), 0, record.language)
            want = [terms for _, terms in made.extras]
            assert len(want) == record.symbols > 0
            assert ix.store.file_bags([record.path])[record.path] == want
            rows = [r for (r,) in ix.store.query("SELECT sid FROM symbols WHERE path=? ORDER BY ord", (record.path,))]
            got = ix.store.bags(rows)
            assert [got[r] for r in rows] == want


def test_a_large_files_bags_are_read_chunk_by_chunk(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Every symbol of a file far larger than a chunk gets its own bag back, whichever few are asked."""
    body = "".join(f"def handler_{i}(request):\n    return render_page_{i}(request, 'template_{i}')\n\n"
                   for i in range(120))
    root = write_repo({"big.py": body})
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        (chunks,), = ix.store.query("SELECT count(*) FROM bags")
        assert chunks > 2
        rows = [r for (r,) in ix.store.query("SELECT sid FROM symbols WHERE path='big.py' ORDER BY ord")]
        want = [terms for _, terms in ingest("big.py", str(root / "big.py"), 0, "python").extras]
        for pick in (rows[:1], rows[-1:], rows[37:41], rows[::17]):
            got = ix.store.bags(pick)
            assert [got[r] for r in pick] == [want[rows.index(r)] for r in pick]
        assert ix.store.file_bags(["big.py"])["big.py"] == want
        assert [h.symbol.name for h in ix.search("render page 77")][:1] == ["handler_77"]


def test_bags_are_stored_compressed(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with _open(write_repo, tmp_path) as ix:
        packed = sum(n for (n,) in ix.store.query("SELECT length(terms) FROM bags"))
        raw = sum(len(b) for bags in ix.store.file_bags([f.path for f in ix.files()]).values() for b in bags)
        assert 0 < packed < raw / 2


def test_ids_are_derived_and_every_symbol_is_found_by_its_id(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with _open(write_repo, tmp_path) as ix:
        symbols = ix.all_symbols()
        ids = [s.id for s in symbols]
        assert "pool.py::checkout#function~2" in ids and "weird::name.py::odd_one#function" in ids
        assert len(set(ids)) == len(ids)
        for sym in symbols:
            assert ix.store.symbol(sym.id) == sym
        assert ix.store.symbols_by_ids(ids) == {s.id: s for s in symbols}
        assert ix.store.symbol("pool.py::checkout#function~3") is None
        assert ix.store.symbol("no path here") is None
        parsed = ingest("pool.py", str(ix.root / "pool.py"), 0, "python").symbols
        assert [s.content_hash for s in parsed] == [s.content_hash for s in ix.file_symbols("pool.py")]


def test_imports_come_back_in_line_order(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with _open(write_repo, tmp_path) as ix:
        mine = ix.store.imports("pool.py")
        assert [(i.module, i.line) for i in mine] == [("os", 2), ("collections.abc", 3)]
        assert [i.path for i in ix.store.imports()] == sorted(i.path for i in ix.store.imports())
        assert {i.module for i in ix.store.imports()} >= {"os", "collections.abc", "./x"}


def test_packing_round_trips() -> None:
    bags = ["a b b", "", "line\nbreak", "ünï ćødé"]
    (first, blob), = pack_bags(bags)
    assert first == 0 and unpack_bags(blob) == ["a b b", "", "line break", "ünï ćødé"]
    many = [f"term{i} " * 100 for i in range(40)]  # ~40 KB: chunks of at most CHUNK_CHARS
    chunks = pack_bags(many)
    assert len(chunks) > 5 and [f for f, _ in chunks] == sorted(f for f, _ in chunks)
    assert [b for _, blob in chunks for b in unpack_bags(blob)] == many
    assert all(len("\n".join(unpack_bags(blob))) <= CHUNK_CHARS for _, blob in chunks)
    with pytest.raises(ValueError, match="damaged"):
        unpack_bags(b"not zlib")
    imports = [Import("p.py", "b", 9), Import("p.py", "a\n\"q\"", 2)]
    assert unpack_imports("p.py", pack_imports(imports)) == sorted(imports, key=lambda i: i.line)
    with pytest.raises(ValueError, match="damaged"):
        unpack_imports("p.py", "{")


def test_an_id_the_schema_cannot_derive_is_refused() -> None:
    sym = Symbol("a.py::f#function~2", "f", "f", "function", "python", "a.py", 1, 1, 0, 1, "", "", None, 1, "00")
    assert dup_of(sym) == 2
    assert dup_of(replace(sym, id="a.py::f#function")) is None
    for bad in ("a.py::g#function", "a.py::f#function~1", "a.py::f#function~x", "a.py::f#function~02"):
        with pytest.raises(ValueError, match="not derived"):
            dup_of(replace(sym, id=bad))


def test_id_lookups_stay_under_sqlites_parameter_limit() -> None:
    ids = [f"dir/f{i}.py::a::b::c#function" for i in range(1000)]
    clauses = list(id_lookups(ids + ids[:10]))
    assert len(clauses) > 1
    assert all(len(params) <= 900 for _, params in clauses)
    assert [p for _, params in clauses for p in params if isinstance(p, str)] == ids
    assert len({id_key(i) for i in ids}) > 990  # a digest, not a constant


def test_a_damaged_bag_is_a_one_line_corrupt_error(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with _open(write_repo, tmp_path) as ix:
        with ix.store.transaction() as conn:
            conn.execute("UPDATE bags SET terms = x'00010203'")
        rows = [r for (r,) in ix.store.query("SELECT sid FROM symbols")]
        with pytest.raises(IndexCorruptError, match="rebuild") as caught:
            ix.store.bags(rows)
        assert "\n" not in str(caught.value)


def test_read_only_index_without_its_term_index_still_searches(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """No tantivy folder and no way to write one: the term index is built in memory from the
    packed bags, and ranks as the one on disk did."""
    with _open(write_repo, tmp_path) as ix:
        want = [(h.symbol.id, round(h.score, 4)) for h in ix.search("recycle stale connections")]
        folder = ix.searcher.terms.folder
    for entry in folder.iterdir():
        entry.unlink()
    folder.rmdir()

    def read_only_setup(self: Store) -> None:
        exc = sqlite3.OperationalError("attempt to write a readonly database")
        exc.sqlite_errorcode = 8  # type: ignore[attr-defined]
        raise exc

    monkeypatch.setattr(Store, "_setup", read_only_setup)
    with Index.open(tmp_path / "repo", tmp_path / "idx", discard_corrupt=True) as ix:
        assert ix.store.read_only
        got = [(h.symbol.id, round(h.score, 4)) for h in ix.search("recycle stale connections")]
        assert got == want and got[0][0] == "pool.py::ConnectionPool.recycle_stale#method"
    assert not folder.exists()


def test_an_sqlite_without_generated_columns_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from symscope.core import store as store_module

    monkeypatch.setattr(store_module.sqlite3, "sqlite_version_info", (3, 30, 1))
    with pytest.raises(IndexAccessError, match=r"needs SQLite 3\.31\.0 or newer") as caught:
        Store(tmp_path / "idx" / "index.sqlite")
    assert "\n" not in str(caught.value) and not (tmp_path / "idx").exists()


def _v4_index(db: Path) -> None:
    """An index as schema 4 left it: term bags as text in `symbols.terms`."""
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE files (path TEXT PRIMARY KEY, language TEXT, size INTEGER, mtime_ns INTEGER, hash TEXT,"
        " tokens INTEGER, lines INTEGER, has_errors INTEGER);"
        "CREATE TABLE symbols (id TEXT PRIMARY KEY, path TEXT, ord INTEGER, terms TEXT NOT NULL);"
        "INSERT INTO files VALUES ('a.py', 'python', 1, 1, 'ab', 1, 1, 0);"
        "INSERT INTO symbols VALUES ('a.py::f#function', 'a.py', 0, 'f f f');"
        "PRAGMA user_version = 4;"
    )
    conn.commit()
    conn.close()


def test_an_index_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "idx" / "index.sqlite"
    _v4_index(db)
    store = Store(db)
    try:
        assert store.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
        assert store.files() == [] and store.bags([1]) == {}
        assert "dup" in {r[1] for r in store.query("PRAGMA table_xinfo(symbols)")}
    finally:
        store.close()


def test_rebuilding_an_old_layout_gives_its_pages_back(tmp_path: Path) -> None:
    """Dropped tables leave free pages that SQLite never returns on its own: a new index in an
    old index's file would stay the old one's size (the monorepo benchmark measured 2.2x the
    source that way where a fresh folder holds 0.9x)."""
    db = tmp_path / "idx" / "index.sqlite"
    _v4_index(db)
    conn = sqlite3.connect(db)
    conn.executemany("INSERT INTO symbols VALUES (?, 'a.py', 0, ?)",
                     [(f"a.py::f{i}#function", "word " * 200) for i in range(2000)])
    conn.commit()
    conn.close()
    old_size = db.stat().st_size
    store = Store(db)
    try:
        assert store.query("PRAGMA freelist_count") == [(0,)]
    finally:
        store.close()
    assert db.stat().st_size < old_size / 10


def test_a_read_only_index_of_the_previous_schema_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "idx" / "index.sqlite"
    _v4_index(db)

    def read_only_setup(self: Store) -> None:
        exc = sqlite3.OperationalError("attempt to write a readonly database")
        exc.sqlite_errorcode = 8  # type: ignore[attr-defined]
        raise exc

    monkeypatch.setattr(Store, "_setup", read_only_setup)
    with pytest.raises(IndexReadOnlyError, match="not a complete index of this symscope version") as caught:
        Store(db)
    assert "\n" not in str(caught.value)


def test_unpacked_bags_are_never_stale(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Bags are kept unpacked by file id; a changed file gets a new id, even the newest file
    (AUTOINCREMENT), so a warm process never reads a file's old bags."""
    with _open(write_repo, tmp_path) as ix:
        (newest,), = ix.store.query("SELECT path FROM files ORDER BY fid DESC LIMIT 1")
        (fid,), = ix.store.query("SELECT fid FROM files WHERE path=?", (newest,))
        rows = [r for (r,) in ix.store.query("SELECT sid FROM symbols WHERE path=?", (newest,))]
        assert ix.store.bags(rows)  # unpacked, and kept
        (ix.root / newest).write_text("def quixotic_windmill():\n    return 'tilt'\n")
        ix.update(processes=1)
        (new_fid,), = ix.store.query("SELECT fid FROM files WHERE path=?", (newest,))
        assert new_fid > fid
        (row,), = ix.store.query("SELECT sid FROM symbols WHERE path=?", (newest,))
        assert "windmill" in ix.store.bags([row])[row].split()
        assert [h.symbol.name for h in ix.search("quixotic windmill")][:1] == ["quixotic_windmill"]
