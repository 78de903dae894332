"""Indexing for real: incremental updates, removals, staleness and retrieval."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core.errors import (
    IndexCorruptError,
    NotARepoError,
    StaleSymbolError,
    UnknownSymbolError,
)
from symscope.core.index import Index
from symscope.core.store import SCHEMA_VERSION
from symscope.core.tokens import count_tokens


def test_first_index_reports_counts(sample_repo: Path, tmp_path: Path) -> None:
    with Index.open(sample_repo, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        assert report.parsed == 4 and report.unchanged == 0 and report.removed == 0
        assert report.files == 4
        assert {s.path: s.reason for s in report.skipped} == {"README.md": "unsupported language"}
        ids = {s.id for s in ix.all_symbols()}
        assert {
            "lib/router.py::MAX_ROUTES#constant",
            "lib/router.py::Router#class",
            "lib/router.py::Router.add_route#method",
            "lib/errors.py::handle_error#function",
            "web/app.js::app.use#method",
        } <= ids


def test_reindex_without_changes_parses_nothing(index: Index) -> None:
    report = index.update(processes=1)
    assert (report.parsed, report.unchanged, report.removed) == (0, 4, 0)


def test_touch_without_content_change_is_unchanged(index: Index) -> None:
    path = index.root / "lib/router.py"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    report = index.update(processes=1)
    assert report.parsed == 0 and report.unchanged == 4


def test_changed_file_is_reparsed_and_deleted_file_dropped(index: Index) -> None:
    (index.root / "lib/router.py").write_text("def only_this():\n    return 1\n")
    (index.root / "lib/errors.py").unlink()
    report = index.update(processes=1)
    assert (report.parsed, report.unchanged, report.removed) == (1, 2, 1)
    ids = {s.id for s in index.all_symbols()}
    assert "lib/router.py::only_this#function" in ids
    assert not any(i.startswith(("lib/router.py::Router", "lib/errors.py")) for i in ids)
    assert index.file("lib/errors.py") is None
    assert [h.symbol.name for h in index.search("only this")] == ["only_this"]


def test_source_is_exact_bytes_and_tokens_match(index: Index) -> None:
    sym = index.symbol("lib/errors.py::handle_error#function")
    text = (index.root / "lib/errors.py").read_bytes()
    assert index.source(sym) == text[sym.start_byte : sym.end_byte].decode()
    assert index.source(sym).startswith("def handle_error(err, response):")
    assert sym.tokens == count_tokens(index.source(sym))
    assert index.file("lib/errors.py").tokens == count_tokens(text.decode())  # type: ignore[union-attr]
    assert (sym.start_line, sym.end_line) == (8, 11)
    assert sym.docstring == "Turn an exception into an error response."


def test_stale_symbol_is_detected_not_served(index: Index) -> None:
    sym = index.symbol("lib/errors.py::handle_error#function")
    path = index.root / "lib/errors.py"
    path.write_text("# shifted\n" * 3 + path.read_text())
    with pytest.raises(StaleSymbolError):
        index.source(sym)
    path.unlink()
    with pytest.raises(StaleSymbolError):
        index.source(sym)


def test_edit_elsewhere_in_file_keeps_symbol_readable(index: Index) -> None:
    sym = index.symbol("lib/errors.py::handle_error#function")
    path = index.root / "lib/errors.py"
    path.write_text(path.read_text() + "\n\nX = 1\n")  # bytes of the symbol did not move
    assert index.source(sym).startswith("def handle_error")


def test_unknown_id_and_missing_repo(index: Index, tmp_path: Path) -> None:
    with pytest.raises(UnknownSymbolError):
        index.symbol("nope::nothing#function")
    with pytest.raises(NotARepoError):
        Index.open(tmp_path / "missing")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(NotARepoError):
        Index.open(tmp_path / "file.txt")


def test_schema_version_and_wal(index: Index) -> None:
    conn = sqlite3.connect(index.store.path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"files", "symbols", "imports", "skipped", "meta"} <= tables
    conn.close()


def test_corrupted_index_is_a_clear_error(sample_repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "index.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexCorruptError, match="rebuild"):
        Index.open(sample_repo, folder)


def test_older_schema_is_rebuilt(sample_repo: Path, tmp_path: Path) -> None:
    with Index.open(sample_repo, tmp_path / "idx") as ix:
        ix.update(processes=1)
    conn = sqlite3.connect(tmp_path / "idx" / "index.sqlite")
    conn.execute("PRAGMA user_version=0")
    conn.commit()
    conn.close()
    with Index.open(sample_repo, tmp_path / "idx") as ix:
        assert not ix.is_built
        report = ix.update(processes=1)
        assert report.parsed == 4


def test_default_index_lives_outside_repo(sample_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SYMSCOPE_INDEX_DIR", str(tmp_path / "cache-root"))
    with Index.open(sample_repo) as ix:
        ix.update(processes=1)
        assert ix.store.path.is_relative_to(tmp_path / "cache-root")
    assert not any(p.suffix == ".sqlite" for p in sample_repo.rglob("*"))


def test_parallel_and_serial_index_agree(sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("symscope.core.indexer.POOL_THRESHOLD", 1)
    with Index.open(sample_repo, tmp_path / "a") as a, Index.open(sample_repo, tmp_path / "b") as b:
        a.update(processes=1)
        b.update(processes=2)
        assert a.all_symbols() == b.all_symbols()


def test_outline_nests_methods(index: Index) -> None:
    roots = index.outline("lib/router.py")
    assert [n.symbol.qualname for n in roots] == ["MAX_ROUTES", "Router"]
    assert [c.symbol.qualname for c in roots[1].children] == ["Router.add_route", "Router.dispatch"]
    repo = index.repo_outline()
    assert [f.file.path for f in repo] == ["lib/errors.py", "lib/router.py", "tests/test_router.py", "web/app.js"]


def test_savings_against_file_and_repo(index: Index) -> None:
    sym = index.symbol("lib/router.py::Router.add_route#method")
    sav = index.savings([sym])
    file_tokens = index.file("lib/router.py").tokens  # type: ignore[union-attr]
    assert (sav.tokens, sav.file_tokens) == (sym.tokens, file_tokens)
    assert sav.repo_tokens == sum(f.tokens for f in index.files())
    assert sav.vs_file_ratio == pytest.approx(file_tokens / sym.tokens)


def test_imports_recorded(index: Index, write_repo: object) -> None:
    (index.root / "lib/uses.py").write_text("import os\nfrom lib.router import Router\n")
    index.update(processes=1)
    assert [(i.module, i.line) for i in index.imports("lib/uses.py")] == [("os", 1), ("lib.router", 2)]
    assert [i.path for i in index.importers("router")] == ["lib/uses.py"]


def test_cancelled_update_leaves_consistent_index(sample_repo: Path, tmp_path: Path) -> None:
    with Index.open(sample_repo, tmp_path / "idx") as ix:
        report = ix.update(processes=1, cancelled=lambda: True)
        assert report.cancelled
        assert report.parsed <= 1
        report = ix.update(processes=1)
        assert report.files == 4 and not report.cancelled


def test_references_find_callers_by_identifier(index: Index) -> None:
    refs = index.references("lib/router.py::Router#class")
    assert [(r.symbol.id, r.line) for r in refs] == [("tests/test_router.py::test_add_route#function", 2)]
    refs = index.references("lib/router.py::Router.add_route#method")
    assert [r.symbol.qualname for r in refs] == ["test_add_route"]
    assert index.references("web/app.js::app.use#method") == []


def test_extractor_change_forces_full_reparse(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    assert index.is_built
    index.store.query("SELECT 1")
    with index.store.transaction() as conn:
        conn.execute("UPDATE meta SET value='old' WHERE key='fingerprint'")
    assert not index.is_built
    report = index.update(processes=1)
    assert (report.parsed, report.unchanged) == (4, 0)
    assert index.is_built


def test_pool_failure_falls_back_to_inline_parsing(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("symscope.core.indexer.POOL_THRESHOLD", 1)

    def no_processes(*args: object, **kwargs: object) -> None:
        raise OSError("no processes here")

    monkeypatch.setattr("symscope.core.workers.ParserPool.__init__", no_processes)
    with Index.open(sample_repo, tmp_path / "idx") as ix:
        report = ix.update(processes=2)
        assert report.parsed == report.files > 3


def test_pool_dying_midway_leaves_the_rest_to_inline_parsing(
    sample_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures.process import BrokenProcessPool

    from symscope.core.workers import ParserPool

    monkeypatch.setattr("symscope.core.indexer.POOL_THRESHOLD", 1)
    real_parse = ParserPool.parse

    def dies_after_two(self: ParserPool, files: list, cancelled: object = None) -> Iterator[object]:  # type: ignore[type-arg]
        results = real_parse(self, files)
        yield next(results)
        yield next(results)
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(ParserPool, "parse", dies_after_two)
    with Index.open(sample_repo, tmp_path / "a") as a, Index.open(sample_repo, tmp_path / "b") as b:
        report = a.update(processes=2)
        b.update(processes=1)
        assert report.parsed == report.files > 3
        assert a.all_symbols() == b.all_symbols()


def test_whole_lines_source_and_file_is_current(index: Index) -> None:
    sym = index.symbol("lib/router.py::Router.add_route#method")
    assert index.source(sym).startswith("def add_route")
    assert index.source(sym, whole_lines=True).startswith("    def add_route")
    assert index.file_is_current("lib/router.py")
    (index.root / "lib/router.py").write_text("X = 1\n")
    assert not index.file_is_current("lib/router.py")
    assert not index.file_is_current("nope.py")


def test_interrupted_rebuild_keeps_every_file_searchable(index: Index) -> None:
    calls = iter(range(100))
    report = index.update(processes=1, rebuild=True, cancelled=lambda: next(calls) >= 1)
    assert report.cancelled
    assert {f.path for f in index.files()} == {
        "lib/errors.py", "lib/router.py", "tests/test_router.py", "web/app.js"
    }
    assert index.search("add route")[0].symbol.qualname == "Router.add_route"
    report = index.update(processes=1, rebuild=True)
    assert (report.parsed, report.unchanged, report.files) == (4, 0, 4)


def test_pooled_index_keeps_parser_imports_out_of_the_parent(sample_repo: Path, tmp_path: Path) -> None:
    """Workers import tree-sitter and tiktoken themselves; the parent only stores results."""
    script = (
        "import sys\n"
        "import symscope.core.index as ix\n"
        "import symscope.core.indexer as ixr\n"
        "ixr.POOL_THRESHOLD = 1\n"
        f"index = ix.Index.open({str(sample_repo)!r}, {str(tmp_path / 'idx')!r})\n"
        "report = index.update(processes=2)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('tree_sitter', 'tiktoken'))\n"
        "print(report.parsed, report.files, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    parsed, files, heavy = out.stdout.split(" ", 2)
    assert parsed == files != "0"
    assert heavy.strip() == "[]"


def test_parser_batches_keep_neighbours_together_biggest_first(tmp_path: Path) -> None:
    from symscope.core.languages import language_by_name
    from symscope.core.walk import SourceFile
    from symscope.core.workers import CHUNK_MAX, batches

    python = language_by_name("python")
    assert python is not None
    sizes = [50_000, 400, 90_000, *([100] * 150), 7_000]
    files = [SourceFile(f"f{i:03}.py", str(tmp_path / f"f{i:03}.py"), size, 0, python) for i, size in enumerate(sizes)]
    out = batches(files, workers=2)
    paths = [job[0] for batch in out for job in batch]
    assert sorted(paths) == [f.path for f in files]  # each file exactly once
    assert out[0] == [("f002.py", str(tmp_path / "f002.py"), 0, "python")]  # the biggest alone, first
    by_path = {f.path: f.size for f in files}
    totals = [sum(by_path[job[0]] for job in batch) for batch in out]
    assert totals == sorted(totals, reverse=True)
    for batch in out:  # a run of neighbours in walk order
        assert len(batch) <= CHUNK_MAX
        index = [int(job[0][1:4]) for job in batch]
        assert index == list(range(index[0], index[0] + len(index)))
    assert len(out) > 4
