"""Issue 27, point 10: one writer for every private file; 0600 even over a wider file, atomic, no symlinks."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from symscope.cli import main as cli
from symscope.core.bundle import Bundle, BundleError
from symscope.core.private import PRIVATE_TMP_PREFIX, write_private, write_private_with
from tests.conftest import WriteRepo

pytestmark = pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX modes")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(PRIVATE_TMP_PREFIX)]


@pytest.fixture
def wide(tmp_path: Path) -> Path:
    path = tmp_path / "out.md"
    path.write_text("old\n")
    path.chmod(0o644)
    return path


def test_replacing_a_wide_file_leaves_it_0600(wide: Path) -> None:
    old = os.umask(0)
    try:
        write_private(wide, "new\r\nline\n")
    finally:
        os.umask(old)
    assert wide.read_bytes() == b"new\r\nline\n" and _mode(wide) == 0o600
    assert _leftovers(wide.parent) == []


def test_symlink_at_the_destination_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    with pytest.raises(OSError) as caught:
        write_private(link, "x")
    assert caught.value.errno == errno.ELOOP
    assert victim.read_text() == "precious\n" and _mode(victim) == 0o644 and link.is_symlink()
    assert _leftovers(tmp_path) == []


def test_no_replace_keeps_an_existing_file(wide: Path) -> None:
    with pytest.raises(FileExistsError):
        write_private(wide, "new", replace=False)
    assert wide.read_text() == "old\n" and _mode(wide) == 0o644
    write_private(wide.with_name("fresh.md"), "new", replace=False)
    assert _mode(wide.with_name("fresh.md")) == 0o600


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(wide: Path) -> None:
    def boom(fh: object) -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_private_with(wide, boom)
    assert wide.read_text() == "old\n" and _leftovers(wide.parent) == []


def test_missing_folders_are_created_private(tmp_path: Path) -> None:
    write_private(tmp_path / "a" / "b" / "out.md", "x")
    assert _mode(tmp_path / "a" / "b") == 0o700 and _mode(tmp_path / "a" / "b" / "out.md") == 0o600


def test_index_side_files_are_private_over_wider_ones(tmp_path: Path) -> None:
    saved = tmp_path / "bundle.json"
    saved.write_text("{}")
    saved.chmod(0o644)
    Bundle().save(saved)
    assert _mode(saved) == 0o600

    from symscope.core import semantic

    vectors = tmp_path / semantic.VECTORS_FILE
    vectors.write_bytes(b"old")
    vectors.chmod(0o644)
    semantic._save(vectors, ["a"], ["h"], np.zeros((1, 4), dtype=np.float16))
    assert _mode(vectors) == 0o600
    assert semantic._load(vectors) is not None
    assert _leftovers(tmp_path) == []


def test_bundle_save_refuses_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / "bundle.json").symlink_to(victim)
    with pytest.raises(BundleError, match="symlink"):
        Bundle().save(tmp_path / "bundle.json")
    assert victim.read_text() == "precious\n"


def test_cli_out_over_a_symlink_is_refused(write_repo: WriteRepo, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo({"a.py": "def alpha():\n    return 1\n"})
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "prompt.md"
    out.symlink_to(victim)
    code = cli.main(["bundle", "a.py::alpha#function", "--repo", str(root), "--index-dir", str(tmp_path / "idx"),
                     "--out", str(out)])
    assert code == cli.EXIT_ERROR
    assert capsys.readouterr().err == f"symscope: error: cannot write {out}: it is a symlink\n"
    assert victim.read_text() == "precious\n"
