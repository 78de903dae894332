"""Bad and hostile input must never crash the index or corrupt it."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from symscope.core.index import Index
from symscope.core.walk import walk


def _reasons(index: Index) -> dict[str, str]:
    return {s.path: s.reason for s in index.skipped()}


def _integrity_ok(index: Index) -> bool:
    conn = sqlite3.connect(index.store.path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_invalid_utf8_is_indexed(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"bad.py": b"def caf\xe9():\n    return '\xff\xfe'\n\ndef ok():\n    pass\n"})
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        names = [s.name for s in ix.all_symbols()]
        assert "ok" in names
        src = ix.source(next(s for s in ix.all_symbols() if s.name == "ok"))
        assert src.startswith("def ok")


def test_nul_bytes_are_skipped_as_binary(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"blob.py": b"x = 1\x00\x00\x01", "good.py": "def good():\n    pass\n"})
    with Index.open(root, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        assert report.files == 1
        assert _reasons(ix)["blob.py"].startswith("binary")


def test_huge_minified_bundle_is_skipped_with_reason(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    line = "var a=function(b){return b*2};" * 170_000  # ~5 MB on one line
    root = write_repo({"dist/app.js": line, "vendor.min.js": "var x=1;", "small.js": "var y=" + "1+" * 20_000 + "1;"})
    with Index.open(root, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        reasons = _reasons(ix)
        assert reasons["dist/app.js"].startswith("too large")
        assert reasons["vendor.min.js"] == "minified"
        assert reasons["small.js"].startswith("minified")
        assert report.files == 0


def test_syntax_errors_still_yield_symbols(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"broken.py": "def fine():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n"})
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        names = {s.name for s in ix.all_symbols()}
        assert {"fine", "After"} <= names


def test_symlink_loop_and_outside_links_not_followed(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    pass\n")
    root = write_repo({"a/real.py": "def real():\n    pass\n"})
    os.symlink(root / "a", root / "a" / "loop")
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.py", root / "secret_link.py")
    with Index.open(root, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        assert [f.path for f in ix.files()] == ["a/real.py"]
        reasons = _reasons(ix)
        assert reasons["a/loop"] == "symlink to inside the repo (not followed)"
        assert reasons["out"] == "symlink to outside the repo (not followed)"
        assert reasons["secret_link.py"] == "symlink to outside the repo (not followed)"
        assert report.files == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_is_reported(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"locked.py": "def x():\n    pass\n"})
    (root / "locked.py").chmod(0)
    with Index.open(root, tmp_path / "idx") as ix:
        ix.update(processes=1)
        assert _reasons(ix)["locked.py"].startswith("unreadable")


def test_unreadable_file_is_reported_even_as_root(write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"locked.py": "def x():\n    pass\n", "fine.py": "def y():\n    pass\n"})
    real_open = os.open

    def fake_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)  # files.read_file_inside opens with os.open
    with Index.open(root, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        assert _reasons(ix)["locked.py"] == "unreadable (Permission denied)"
        assert report.files == 1


def test_empty_files_and_empty_repo(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"empty.py": "", "notes.txt": "hello"})
    with Index.open(root, tmp_path / "idx") as ix:
        report = ix.update(processes=1)
        assert report.files == 1 and report.symbols == 0
        assert ix.search("anything") == []
    empty = tmp_path / "nothing"
    empty.mkdir()
    with Index.open(empty, tmp_path / "idx2") as ix:
        report = ix.update(processes=1)
        assert (report.files, report.symbols) == (0, 0)
        assert ix.search("anything") == []
        assert ix.is_built


def test_gitignore_and_vendored_dirs(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({
        ".gitignore": "build/\n*.gen.py\n",
        "src/.gitignore": "local_*.py\n",
        "src/app.py": "def app():\n    pass\n",
        "src/local_x.py": "def x():\n    pass\n",
        "out.gen.py": "def gen():\n    pass\n",
        "build/b.py": "def b():\n    pass\n",
        "node_modules/m/index.js": "function m() {}\n",
        "vendor/v.go": "package v\nfunc V() {}\n",
        "tool": "#!/usr/bin/env python3\ndef tool_main():\n    pass\n",
    })
    (root / ".git").mkdir()
    (root / ".git" / "config.py").write_text("def nope():\n    pass\n")
    result = walk(root)
    assert sorted(f.path for f in result.files) == ["src/app.py", "tool"]
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons["build/"] == "ignored by .gitignore"
    assert reasons["out.gen.py"] == "ignored by .gitignore"
    assert reasons["src/local_x.py"] == "ignored by .gitignore"
    assert reasons["node_modules/"] == "vendored dependencies"
    assert reasons["vendor/"] == "vendored dependencies"
    assert reasons[".git/"] == "version-control directory"
    assert next(f for f in result.files if f.path == "tool").language.name == "python"


def test_file_changing_while_indexing(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(60)}
    root = write_repo(files)
    stop = threading.Event()

    def churn() -> None:
        n = 0
        while not stop.is_set():
            (root / "m7.py").write_text(f"def changed_{n}():\n    return {n}\n" * (n % 5 + 1))
            (root / "m9.py").unlink(missing_ok=True)
            (root / "m9.py").write_text("def back():\n    pass\n")
            n += 1
            time.sleep(0.001)

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        with Index.open(root, tmp_path / "idx") as ix:
            for _ in range(3):
                ix.update(processes=1)
    finally:
        stop.set()
        thread.join()
    with Index.open(root, tmp_path / "idx") as ix:
        assert _integrity_ok(ix)
        ix.update(processes=1)
        # Once settled, every symbol reads back exactly from disk.
        for sym in ix.all_symbols():
            assert ix.source(sym)
        assert {f.path for f in ix.files()} == set(files)


def test_index_damaged_after_opening_is_a_clear_error(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from symscope.core.errors import SymscopeError

    root = write_repo({"a.py": "def a():\n    pass\n"})
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    ix.store.query("DROP TABLE symbols")
    with pytest.raises(SymscopeError, match="rebuild"):
        ix.all_symbols()
    (root / "b.py").write_text("def b():\n    pass\n")
    with pytest.raises(SymscopeError):
        ix.update(processes=1)
    ix.close()
