"""Issue 27, point 8: an index folder someone else could have written is refused, never used or chmod'ed.

The index holds the repo's code, so a folder or index file that is a symlink, another
user's, or writable by group/others (who could plant what a search or bundle then shows) is
refused with a one-line reason and the fix. Real folders, modes and symlinks; "another
user" is simulated by changing what the folder check (`store_folder`) takes for the user's
id (tests may run as root).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from symscope.cli import main as cli
from symscope.core import store_folder
from symscope.core.errors import UntrustedIndexError
from symscope.core.index import INDEX_DIR_ENV, Index, default_index_dir
from symscope.core.store import Store

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")

CODE = "def alpha():\n    return 1\n"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _build(root: Path, folder: Path) -> None:
    with Index.open(root, folder) as ix:
        ix.update(processes=1)


def _modes(folder: Path) -> dict[str, int]:
    return {p.name: _mode(p) for p in [folder, *folder.iterdir()]}


def test_world_writable_folder_with_a_world_writable_database_is_refused(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    folder.chmod(0o777)
    (folder / "index.sqlite").chmod(0o666)
    before = _modes(folder)
    with pytest.raises(UntrustedIndexError) as caught:
        Index.open(root, folder)
    message = str(caught.value)
    assert message == (f"index folder {folder} is writable by others (mode 0777); "
                       f"run chmod 700 {folder} or remove it and index again")
    assert _modes(folder) == before  # refused as it is: nothing tightened behind the user's back
    folder.chmod(0o700)  # the fix the message gives, then the database is the next problem
    with pytest.raises(UntrustedIndexError, match=r"index file .*index.sqlite is writable by others "
                                                  r"\(mode 0666\); run chmod 600 "):
        Index.open(root, folder)
    (folder / "index.sqlite").chmod(0o600)
    with Index.open(root, folder) as ix:
        assert [h.symbol.name for h in ix.search("alpha")] == ["alpha"]


@pytest.mark.parametrize("name", ["index.sqlite-wal", "index.sqlite-shm", "rank.pickle", "bundle.json",
                                  "semantic.npz"])
def test_group_writable_index_files_are_refused(write_repo, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    path = folder / name
    if not path.exists():
        path.write_bytes(b"planted")
    path.chmod(0o620)
    with pytest.raises(UntrustedIndexError, match=rf"index file .*{name} is writable by others \(mode 0620\)"):
        Store(folder / "index.sqlite")
    assert _mode(path) == 0o620


def test_a_search_folder_others_could_write_or_a_symlink_is_refused(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The term index's folder is checked as the index folder is: a symlink or a folder others
    could write is refused (its files are then only ever written by us)."""
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    search = folder / "search.tantivy"
    search.chmod(0o770)
    with pytest.raises(UntrustedIndexError, match=r"index folder .*search.tantivy is writable by others"):
        Index.open(root, folder)
    search.chmod(0o700)
    elsewhere = tmp_path / "elsewhere"
    search.rename(elsewhere)
    search.symlink_to(elsewhere)
    with pytest.raises(UntrustedIndexError, match=r"index folder .*search.tantivy is a symlink"):
        Index.open(root, folder)


def test_folder_of_another_user_is_refused_and_left_alone(write_repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    folder.chmod(0o755)  # as an older version left it: ours would be tightened
    monkeypatch.setattr(store_folder, "_euid", lambda: os.geteuid() + 1)
    with pytest.raises(UntrustedIndexError, match=rf"index folder {folder} belongs to another user "
                                                  rf"\(uid {os.geteuid()}\); remove it"):
        Index.open(root, folder)
    assert _mode(folder) == 0o755


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a file away")
def test_index_file_of_another_user_is_refused(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    os.chown(folder / "index.sqlite", 4242, -1)
    with pytest.raises(UntrustedIndexError, match=r"index file .*index.sqlite belongs to another user \(uid 4242\)"):
        Index.open(root, folder)
    os.chown(folder / "index.sqlite", os.geteuid(), -1)
    os.chown(folder / "search.tantivy", 4242, -1)
    with pytest.raises(UntrustedIndexError, match=r"index folder .*search.tantivy belongs to another user"):
        Index.open(root, folder)


def test_index_folder_planted_as_a_symlink_is_refused_and_its_target_untouched(
        write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    target = tmp_path / "victim"
    target.mkdir()
    target.chmod(0o755)
    (target / "keep.txt").write_text("the victim's file")
    link = tmp_path / "idx"
    link.symlink_to(target)
    with pytest.raises(UntrustedIndexError, match=rf"index folder {link} is a symlink; remove the link"):
        Index.open(root, link)
    assert _mode(target) == 0o755  # never chmod'ed through the link
    assert sorted(p.name for p in target.iterdir()) == ["keep.txt"]  # nothing created there


def test_default_index_folder_planted_as_a_symlink_is_refused(write_repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_repo({"a.py": CODE})
    monkeypatch.setenv(INDEX_DIR_ENV, str(tmp_path / "cache"))
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o755)
    folder = default_index_dir(root.resolve())
    folder.parent.mkdir(parents=True)
    folder.symlink_to(target)
    assert cli.main(["index", str(root)]) == cli.EXIT_ERROR
    assert _mode(target) == 0o755 and not any(target.iterdir())


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal", "rank.pickle"])
def test_index_file_planted_as_a_symlink_is_refused(write_repo, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    _build(root, folder)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    (folder / name).unlink(missing_ok=True)
    (folder / name).symlink_to(victim)
    with pytest.raises(UntrustedIndexError, match=rf"index file .*{name} is a symlink"):
        Index.open(root, folder)
    assert victim.read_text() == "precious\n" and _mode(victim) == 0o644


def test_cli_says_why_in_one_line_and_fails(write_repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo({"a.py": CODE})
    folder = tmp_path / "idx"
    folder.mkdir()
    folder.chmod(0o777)
    assert cli.main(["index", str(root), "--index-dir", str(folder)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err == (f"symscope: error: index folder {folder} is writable by others (mode 0777); "
                   f"run chmod 700 {folder} or remove it and index again\n")
    assert list(folder.iterdir()) == []  # no database created in it


def test_fresh_index_folder_and_its_new_parents_are_private(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    old = os.umask(0)
    try:
        _build(root, tmp_path / "cache" / "symscope" / "idx")
    finally:
        os.umask(old)
    for path in (tmp_path / "cache", tmp_path / "cache" / "symscope", tmp_path / "cache" / "symscope" / "idx"):
        assert _mode(path) == 0o700, path
    assert all(_mode(p) == (0o700 if p.is_dir() else 0o600) for p in (tmp_path / "cache" / "symscope" / "idx").iterdir())


def test_fresh_folder_is_0700_even_under_a_umask_that_takes_the_owners_bits(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a.py": CODE})
    old = os.umask(0o277)
    try:
        Store(tmp_path / "idx" / "index.sqlite").close()
    finally:
        os.umask(old)
    assert _mode(tmp_path / "idx") == 0o700
    _build(root, tmp_path / "idx")
