"""Faults around the index: killed parents, files swapped mid-index, full and read-only disks,
file modes, absurd roots. Each test drives the real code (real processes, real SQLite files,
real mounts where this machine allows them)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from symscope.core.errors import (
    IndexAccessError,
    IndexCorruptError,
    IndexFullError,
    IndexPermissionError,
    IndexReadOnlyError,
    StaleSymbolError,
        UnsafeRootError,
)
from symscope.core.files import UnsafeFileError, read_current, read_repo_file
from symscope.core.hashing import content_hash
from symscope.core.index import Index
from symscope.core.ingest import ingest
from symscope.core.store import Store, classify, intact, os_error
from symscope.core.walk import _sniff_shebang, check_root, walk

LINUX_PROC = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()


def _within(seconds: float, fn: Callable[[], Any], unblock: Callable[[], None] | None = None) -> Any:
    """Run `fn` in a thread; fail (after calling `unblock`) if it has not returned in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if unblock is not None:
            unblock()
        pytest.fail(f"still blocked after {seconds} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _release_fifo(path: Path) -> Callable[[], None]:
    """Open a FIFO's write end once, so a reader stuck in open() returns (then sees EOF)."""

    def unblock() -> None:
        with contextlib.suppress(OSError):  # no reader waiting: nothing to release
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    return unblock


# -- 1. parser processes die with their parent ------------------------------------------------


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of a process from /proc, or None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), int(fields[19])


def _children(pid: int) -> dict[int, int]:
    """pid -> start time of every live child of `pid`."""
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _proc_stat(int(entry))
            if info is not None and info[1] == pid and info[0] != "Z":
                out[int(entry)] = info[2]
    return out


def _alive(pid: int, started: int) -> bool:
    info = _proc_stat(pid)
    return info is not None and info[2] == started and info[0] not in ("Z", "X")


_INDEX_SCRIPT = textwrap.dedent(
    """
    import sys, threading, time
    from symscope.core.index import Index

    if sys.argv[3] == "spawn":  # a running thread makes ParserPool use the spawn method
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()

    def progress(p):
        if p.phase == "parse":
            print("parsed", p.done, flush=True)

    with Index.open(sys.argv[1], sys.argv[2]) as ix:
        ix.update(processes=2, progress=progress)
    print("finished", flush=True)
    """
)


@pytest.mark.skipif(not LINUX_PROC, reason="finds the workers through /proc")
@pytest.mark.parametrize(
    ("method", "sig"),
    [("fork", signal.SIGKILL), ("spawn", signal.SIGKILL), ("fork", signal.SIGTERM)],
    ids=["fork-kill", "spawn-kill", "fork-term"],
)
def test_parser_processes_die_when_the_index_is_killed(tmp_path: Path, method: str, sig: int) -> None:
    repo = tmp_path / "repo"
    for i in range(160):  # well over the pool threshold (48 files), a few seconds of parsing
        body = "".join(
            f"def handler_{i}_{j}(request, context):\n    return request.get({j}) or context\n\n\n"
            f"class Thing{i}_{j}:\n    def run(self):\n        return handler_{i}_{j}(self, None)\n\n\n"
            for j in range(40)
        )
        path = repo / f"pkg{i % 8}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    proc = subprocess.Popen(
        [sys.executable, "-c", _INDEX_SCRIPT, str(repo), str(tmp_path / "idx"), method],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    workers: dict[int, int] = {}
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the first parsed batch: the workers are mid-parse now
        assert line.startswith("parsed"), line
        workers = _children(proc.pid)
        assert len(workers) >= 2
        assert all(_alive(pid, started) for pid, started in workers.items())
        proc.send_signal(sig)
        proc.wait(10)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(_alive(p, s) for p, s in workers.items()):
            time.sleep(0.05)
        survivors = [pid for pid, started in workers.items() if _alive(pid, started)]
        assert survivors == [], f"parser processes outlived their parent: {survivors}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid, started in workers.items():  # only the processes this test started
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)


_ORPHAN = textwrap.dedent(
    """
    import os, time
    import symscope.core.workers as workers

    workers._set_parent_death_signal = lambda: False  # only the portable watcher is left
    workers.die_with_parent(os.getppid())
    print(os.getpid(), flush=True)
    time.sleep(60)
    """
)


@pytest.mark.skipif(not LINUX_PROC, reason="finds the processes through /proc")
def test_parent_watcher_ends_a_worker_without_prctl() -> None:
    """The fallback where prctl is missing: the worker notices its parent is gone by itself."""
    middle = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {_ORPHAN!r}])"],
        stdout=subprocess.PIPE, text=True,
    )
    worker = 0
    started = 0
    try:
        assert middle.stdout is not None
        worker = int(middle.stdout.readline())
        info = _proc_stat(worker)
        assert info is not None and info[1] == middle.pid
        started = info[2]
        middle.send_signal(signal.SIGKILL)
        middle.wait(10)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and _alive(worker, started):
            time.sleep(0.05)
        assert not _alive(worker, started)
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()
        if worker and _alive(worker, started):
            os.kill(worker, signal.SIGKILL)


# -- 2. files swapped between the walk and the read ------------------------------------------


@pytest.fixture
def swap_repo(write_repo, tmp_path: Path) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def outside_secret():\n    return 'password'\n")
    root = write_repo({"app.py": "def app():\n    pass\n", "tool": "#!/usr/bin/env python3\ndef tool():\n    pass\n"})
    return root, outside


def _found(root: Path, rel: str) -> Any:
    return next(f for f in walk(root).files if f.path == rel)


def test_file_swapped_for_symlink_outside_is_skipped_as_unsafe(swap_repo: tuple[Path, Path]) -> None:
    root, outside = swap_repo
    f = _found(root, "app.py")
    (root / "app.py").unlink()
    os.symlink(outside / "secret.py", root / "app.py")
    result = ingest(f.path, f.abspath, f.mtime_ns, f.language.name)
    assert result.record is None and result.symbols == []
    assert result.skip_reason == "unsafe: is a symlink"


def test_folder_swapped_for_symlink_outside_is_skipped_as_unsafe(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"pkg/mod.py": "def mod():\n    pass\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mod.py").write_text("def outside_secret():\n    pass\n")
    f = _found(root, "pkg/mod.py")
    (root / "pkg").rename(tmp_path / "moved")
    os.symlink(elsewhere, root / "pkg")
    result = ingest(f.path, f.abspath, f.mtime_ns, f.language.name)
    assert result.record is None
    assert result.skip_reason is not None and result.skip_reason.startswith("unsafe: is outside the repo")
    with pytest.raises(UnsafeFileError, match="outside the repo"):
        read_repo_file(root, "pkg/mod.py")


def test_file_swapped_for_fifo_does_not_hang(swap_repo: tuple[Path, Path]) -> None:
    root, _ = swap_repo
    f = _found(root, "app.py")
    (root / "app.py").unlink()
    os.mkfifo(root / "app.py")
    result = _within(5, lambda: ingest(f.path, f.abspath, f.mtime_ns, f.language.name),
                     _release_fifo(root / "app.py"))
    assert result.record is None
    assert result.skip_reason == "unsafe: is not a regular file (a FIFO)"


def test_index_update_with_a_file_swapped_after_the_walk(
    swap_repo: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole update: the swap happens right after the walk listed the file."""
    import symscope.core.walk as walk_module

    root, outside = swap_repo
    real_walk = walk_module.walk

    def walk_then_swap(*args: Any, **kwargs: Any) -> Any:
        found = real_walk(*args, **kwargs)
        (root / "app.py").unlink()
        os.symlink(outside / "secret.py", root / "app.py")
        (root / "tool").unlink()
        os.mkfifo(root / "tool")
        return found

    monkeypatch.setattr(walk_module, "walk", walk_then_swap)
    with Index.open(root, tmp_path / "idx") as ix:
        _within(20, lambda: ix.update(processes=1), _release_fifo(root / "tool"))
        reasons = {s.path: s.reason for s in ix.skipped()}
        assert reasons["app.py"] == "unsafe: is a symlink"
        assert reasons["tool"] == "unsafe: is not a regular file (a FIFO)"
        assert all(s.name != "outside_secret" for s in ix.all_symbols())


def test_read_current_refuses_a_symlink_even_with_identical_bytes(swap_repo: tuple[Path, Path]) -> None:
    """`show` must not print a file outside the repo, even one that hashes like the indexed one."""
    root, outside = swap_repo
    data = (root / "app.py").read_bytes()
    (outside / "copy.py").write_bytes(data)
    (root / "app.py").unlink()
    os.symlink(outside / "copy.py", root / "app.py")
    with pytest.raises(StaleSymbolError, match="is a symlink"):
        read_current(root, "app.py", content_hash(data))


def test_read_repo_file_refuses_paths_that_climb_out(swap_repo: tuple[Path, Path]) -> None:
    root, _ = swap_repo
    for rel in ("../outside/secret.py", "/etc/passwd", "a//b.py", ""):
        with pytest.raises(UnsafeFileError):
            read_repo_file(root, rel)
    assert read_repo_file(root, "app.py").startswith(b"def app")


def test_shebang_sniff_and_gitignore_never_block_on_a_fifo(write_repo) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"src/a.py": "def a():\n    pass\n"})
    os.mkfifo(root / "script")
    os.mkfifo(root / ".gitignore")
    os.mkfifo(root / "src" / ".gitignore")
    assert _within(5, lambda: _sniff_shebang(str(root / "script")), _release_fifo(root / "script")) is None

    def release_all() -> None:
        for fifo in (root / ".gitignore", root / "src" / ".gitignore"):
            _release_fifo(fifo)()

    result = _within(5, lambda: walk(root), release_all)
    assert [f.path for f in result.files] == ["src/a.py"]
    reasons = {s.path: s.reason for s in result.skipped}
    assert reasons[".gitignore"] == "not a regular file"
    assert reasons["script"] == "not a regular file"


# -- 3. deep folders --------------------------------------------------------------------------


def _chain(root: Path, levels: int) -> Path:
    """root/d/d/.../d (`levels` folders), with a file at a few depths; returns the deepest."""
    path = root
    for level in range(1, levels + 1):
        path = path / "d"
        path.mkdir()
        if level in (1, 100, 256, 257, 1200):
            (path / f"at{level}.py").write_text(f"def at_{level}():\n    pass\n")
    return path


def _remove_chain(root: Path, levels: int) -> None:
    """Remove a deep chain bottom-up without recursion (shutil.rmtree recurses per level)."""
    for n in range(levels, 0, -1):
        folder = str(root) + "/d" * n
        for name in os.listdir(folder):
            if name != "d":
                os.unlink(f"{folder}/{name}")
        os.rmdir(folder)


def test_walk_survives_1200_nested_folders(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    _chain(root, 1200)
    try:
        result = walk(root)
        found = [f.path.rsplit("/", 1)[-1] for f in result.files]
        assert found == ["at1.py", "at100.py", "at256.py"]
        too_deep = [s for s in result.skipped if s.reason.startswith("nested too deep")]
        assert len(too_deep) == 1
        assert too_deep[0].path == "/".join(["d"] * 257) + "/"
        assert too_deep[0].reason == "nested too deep (over 256 folders)"
    finally:
        _remove_chain(root, 1200)


# -- 4. full disk, read-only index, permissions: never "corrupted" ----------------------------


#: Enough symbols for BM25 to score a name (with two, every term's IDF is about zero).
THREE = "def alpha():\n    pass\n\ndef beta():\n    pass\n\ndef gamma():\n    pass\n"


def _build(root: Path, index_dir: Path) -> None:
    with Index.open(root, index_dir) as ix:
        ix.update(processes=1)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _checkpoint(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def test_database_full_says_disk_full_and_leaves_the_index_intact(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from symscope.core.models import FileRecord

    root = write_repo({"a.py": "def alpha():\n    pass\n", "b.py": "def beta():\n    pass\n"})
    _build(root, tmp_path / "idx")
    db = tmp_path / "idx" / "index.sqlite"
    _checkpoint(db)
    before = _digest(db)
    store = Store(db)
    try:
        store.query("PRAGMA max_page_count = 1")  # clamped to the current size: no page to spare
        big = FileRecord("big.py", "python", 1, "h", 1, 1, 0)
        with pytest.raises(IndexFullError) as caught, store.transaction() as conn:
            Store.replace_file(conn, big, 1, False, [], [], [])
            for i in range(2000):
                Store.set_meta(conn, f"filler{i}", "x" * 200)
        message = str(caught.value)
        assert message.startswith("disk full") and "corrupt" not in message and "--rebuild" not in message
        assert store.quick_check()
        assert store.file("a.py") is not None and store.file("big.py") is None
    finally:
        store.close()
    _checkpoint(db)
    assert _digest(db) == before


def _readonly_error() -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError("attempt to write a readonly database")
    exc.sqlite_errorcode = 8  # type: ignore[attr-defined]  # SQLITE_READONLY, as SQLite sets it
    return exc


def test_read_only_index_opens_read_only_and_still_searches(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    root = write_repo({"a.py": THREE})
    _build(root, tmp_path / "idx")
    db = tmp_path / "idx" / "index.sqlite"
    _checkpoint(db)
    before = _digest(db)

    def read_only_setup(self: Store) -> None:
        raise _readonly_error()

    monkeypatch.setattr(Store, "_setup", read_only_setup)  # as on a read-only mount, writes fail
    with Index.open(root, tmp_path / "idx", discard_corrupt=True) as ix:
        assert ix.store.read_only
        with pytest.raises(IndexReadOnlyError):
            ix.store.check_writable()
        assert [h.symbol.name for h in ix.search("alpha")] == ["alpha"]
        assert ix.source("a.py::beta#function").startswith("def beta")
        assert ix.store.quick_check()
        with pytest.raises(IndexReadOnlyError, match="read-only") as caught, ix.store.transaction() as conn:
            Store.set_meta(conn, "x", "y")
        assert "corrupt" not in str(caught.value)
    assert db.exists() and not (tmp_path / "idx" / "index.sqlite.corrupt").exists()
    _checkpoint(db)
    assert _digest(db) == before


def test_read_only_index_of_another_schema_is_an_error_not_corruption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "idx" / "index.sqlite"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE old (x)")
    conn.commit()
    conn.close()

    def read_only_setup(self: Store) -> None:
        raise _readonly_error()

    monkeypatch.setattr(Store, "_setup", read_only_setup)
    with pytest.raises(IndexReadOnlyError, match="not a complete index of this symscope version"):
        Store(db)


def test_errors_are_classified_by_what_they_are(tmp_path: Path) -> None:
    db = tmp_path / "index.sqlite"

    def err(message: str, code: int | None = None) -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError(message)
        if code is not None:
            exc.sqlite_errorcode = code  # type: ignore[attr-defined]
        return exc

    assert isinstance(classify(db, err("database or disk is full", 13)), IndexFullError)
    assert isinstance(classify(db, err("database or disk is full")), IndexFullError)  # by message
    assert isinstance(classify(db, err("attempt to write a readonly database", 8)), IndexReadOnlyError)
    assert isinstance(classify(db, err("attempt to write a readonly database", 1032)), IndexReadOnlyError)
    assert isinstance(classify(db, err("access permission denied", 3)), IndexPermissionError)
    assert isinstance(classify(db, err("database is locked", 5)), IndexAccessError)
    assert isinstance(classify(db, err("disk I/O error", 10)), IndexAccessError)
    assert isinstance(classify(db, err("file is not a database", 26)), IndexCorruptError)
    assert isinstance(classify(db, err("no such table: symbols", 1)), IndexCorruptError)
    assert isinstance(os_error(db, OSError(28, "No space left on device")), IndexFullError)
    assert isinstance(os_error(db, OSError(30, "Read-only file system")), IndexReadOnlyError)
    assert isinstance(os_error(db, PermissionError(13, "Permission denied")), IndexPermissionError)
    for error in (classify(db, err("database or disk is full", 13)), os_error(db, OSError(30, "x"))):
        assert not isinstance(error, IndexCorruptError) and "corrupt" not in str(error)


def test_newer_schema_is_not_called_corrupt(tmp_path: Path) -> None:
    db = tmp_path / "idx" / "index.sqlite"
    db.parent.mkdir()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE files (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(IndexAccessError, match="newer symscope") as caught:
        Store(db)
    assert not isinstance(caught.value, IndexCorruptError)
    assert intact(db)  # so `--rebuild` keeps it


def test_lost_table_is_repaired_in_place(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": THREE})
    _build(root, tmp_path / "idx")
    store = Store(tmp_path / "idx" / "index.sqlite")
    try:
        store.query("DROP TABLE imports")
        with pytest.raises(IndexCorruptError):
            store.imports()
        assert store.quick_check()  # intact as a file: `--rebuild` must keep it
        store.repair_schema()
        assert store.imports() == [] and store.file("a.py") is not None
    finally:
        store.close()


def test_garbage_file_is_still_corruption_and_quick_check_tells(tmp_path: Path, write_repo) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "bad" / "index.sqlite"
    db.parent.mkdir()
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(IndexCorruptError, match="rebuild"):
        Store(db)
    root = write_repo({"a.py": "def alpha():\n    pass\n"})
    _build(root, tmp_path / "idx")
    assert not intact(db)
    good = tmp_path / "idx" / "index.sqlite"
    store = Store(good)
    try:
        assert store.quick_check()
    finally:
        store.close()
    assert intact(good)
    _checkpoint(good)
    with open(good, "r+b") as fh:  # damage the pages after the header
        fh.seek(1024)
        fh.write(b"\xff" * (good.stat().st_size - 1024))
    assert not intact(good)


# Real mounts: a tmpfs made read-only, and a tiny tmpfs filled up. Needs root and mount(8).


def _can_mount() -> bool:
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return True


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    if not _can_mount():
        pytest.skip("needs root and mount(8) on Linux")
    point = tmp_path / "mnt"
    point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(point)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield point
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(point)], capture_output=True)
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def test_index_on_a_read_only_mount_searches_and_refuses_updates(write_repo, tmpfs: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": THREE})
    _build(root, tmpfs / "idx")
    db = tmpfs / "idx" / "index.sqlite"
    before = _digest(db)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with Index.open(root, tmpfs / "idx", discard_corrupt=True) as ix:
        assert ix.store.read_only
        assert [h.symbol.name for h in ix.search("alpha")] == ["alpha"]
        (root / "c.py").write_text("def gamma():\n    pass\n")
        with pytest.raises(IndexReadOnlyError, match=r"read-only \(read-only file system\)"):
            ix.update(processes=1)
    assert _digest(db) == before
    assert sorted(p.name for p in (tmpfs / "idx").iterdir()) == ["index.sqlite", "search.tantivy"]


def test_index_on_a_full_disk_says_disk_full_and_is_never_set_aside(write_repo, tmpfs: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": THREE})
    _build(root, tmpfs / "idx")
    db = tmpfs / "idx" / "index.sqlite"
    before = _digest(db)
    with open(tmpfs / "filler", "wb") as fh, pytest.raises(OSError):  # fill the disk
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    (root / "big.py").write_text("".join(f"def f{i}():\n    return {i}\n" for i in range(3000)))
    with pytest.raises(IndexFullError, match=r"^disk full"), Index.open(
        root, tmpfs / "idx", discard_corrupt=True
    ) as ix:
        assert [h.symbol.name for h in ix.search("alpha")] == ["alpha"]
        ix.update(processes=1, rebuild=True)
    assert not (tmpfs / "idx" / "index.sqlite.corrupt").exists()
    (tmpfs / "filler").unlink()
    assert _digest(db) == before
    with Index.open(root, tmpfs / "idx") as ix:
        assert ix.store.quick_check()
        ix.update(processes=1)
        assert {s.name for s in ix.all_symbols()} >= {"alpha", "f2999"}


def test_missing_index_folder_on_a_read_only_mount(write_repo, tmpfs: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": "def alpha():\n    pass\n"})
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    with pytest.raises(IndexReadOnlyError, match="Read-only file system"):
        Index.open(root, tmpfs / "idx")


# -- 5. file modes: the index holds the repo's code --------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_index_folder_and_files_are_private(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": "def alpha():\n    pass\n", "b.py": "def beta():\n    pass\n"})
    old = os.umask(0)  # whatever the umask, the index is private
    try:
        with Index.open(root, tmp_path / "cache" / "idx") as ix:
            ix.update(processes=1)
            folder = tmp_path / "cache" / "idx"
            names = {p.name for p in folder.iterdir()}
            assert {"index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "search.tantivy"} <= names
            assert _mode(folder) == 0o700
            for path in folder.iterdir():
                assert _mode(path) == (0o700 if path.is_dir() else 0o600), path.name
            for path in (folder / "search.tantivy").iterdir():
                assert _mode(path) == 0o600, path.name
    finally:
        os.umask(old)


def test_looser_index_from_an_older_version_is_tightened(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": THREE})
    folder = tmp_path / "idx"
    _build(root, folder)
    folder.chmod(0o755)
    for path in folder.iterdir():
        path.chmod(0o644)
    (folder / "rank.tmp").write_bytes(b"left over")
    (folder / "rank.tmp").chmod(0o640)  # readable, not writable, by others: tightened, not refused
    with Index.open(root, folder) as ix:
        assert _mode(folder) == 0o700
        assert all(_mode(p) == (0o700 if p.is_dir() else 0o600) for p in folder.iterdir())
        assert [h.symbol.name for h in ix.search("alpha")] == ["alpha"]


def test_shared_folder_is_not_changed_but_our_files_are_private(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": "def alpha():\n    pass\n"})
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    (shared / "notes.txt").write_text("the user's own file")
    _build(root, shared)
    assert _mode(shared) == 0o755
    assert _mode(shared / "index.sqlite") == 0o600
    (shared / "index.sqlite").chmod(0o644)  # as an older symscope left it
    (shared / "notes.txt").chmod(0o644)
    Store(shared / "index.sqlite").close()
    assert _mode(shared / "index.sqlite") == 0o600
    assert (_mode(shared), _mode(shared / "notes.txt")) == (0o755, 0o644)


# -- 6. absurd roots and file counts ------------------------------------------------------------


def test_check_root_refuses_the_filesystem_root_and_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnsafeRootError, match=r"filesystem root.*--allow-any-root"):
        check_root(Path("/"))
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(UnsafeRootError, match=r"home folder.*--allow-any-root"):
        check_root(home)
    check_root(Path("/"), allow=True)
    check_root(home, allow=True)
    (home / "project").mkdir()
    check_root(home / "project")
