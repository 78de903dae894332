"""`--diff`: the symbols a git diff touches, and their callers' signatures, on real git repos."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core.bundle import build_bundle
from symscope.core.gitdiff import FileChange, GitError, diff_items, git_changes, parse_diff
from symscope.core.index import Index

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

APP = '''\
def helper(x):
    """Double it."""
    return x * 2


def caller(y):
    """Uses the helper."""
    total = helper(y)
    return total + 1


def other():
    return 3


class Box:
    def size(self):
        a = 1
        b = 2
        return a + b
'''
TAIL = '''\
def tail():
    x = 1
    y = 2
    return x


def gone():
    return 0
'''


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(root.parent)}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Index]:
    """A committed repo, then: one function body edited, a method's tail and a whole function
    deleted, a new untracked file, and an ignored one."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(APP)
    (root / "tail.py").write_text(TAIL)
    (root / ".gitignore").write_text("ignored.py\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    (root / "app.py").write_text(APP.replace("x * 2", "x * 3").replace("        b = 2\n        return a + b\n",
                                                                        "        return a\n"))
    (root / "tail.py").write_text(TAIL.split("    return x")[0])
    (root / "fresh.py").write_text("def fresh():\n    return 42\n")
    (root / "ignored.py").write_text("def hidden():\n    return helper(0)\n")
    index = Index.open(root, index_dir=tmp_path / "idx")
    index.update(processes=1)
    yield index
    index.close()


def test_diff_items_are_exactly_the_changed_symbols_then_their_callers(repo: Index) -> None:
    assert [(s.id, why) for s, why in diff_items(repo)] == [
        ("app.py::helper#function", "changed"),
        ("app.py::Box.size#method", "changed"),  # its last lines were rewritten
        ("fresh.py::fresh#function", "changed"),  # untracked: all of it is new
        ("tail.py::tail#function", "changed"),  # its tail was deleted (the deleted `gone` counts for nothing)
        ("app.py::caller#function", "caller"),
    ]


def test_diff_bundle_has_changed_code_in_full_and_callers_signatures(repo: Index) -> None:
    result = build_bundle(repo, diff_ref="HEAD")
    assert [(i.id, i.detail, i.reason) for i in result.items] == [
        ("app.py::helper#function", "full", "changed"),
        ("app.py::Box.size#method", "full", "changed"),
        ("fresh.py::fresh#function", "full", "changed"),
        ("tail.py::tail#function", "full", "changed"),
        ("app.py::caller#function", "signature", "caller"),
    ]
    text = result.text
    assert "    return x * 3\n" in text and "def fresh():\n    return 42\n" in text
    assert "5. app.py:6-9 (function caller, signature, " in text
    assert "Uses the helper.\n\n```python\ndef caller(y)\n```\n" in text
    assert "total = helper(y)" not in text  # a caller's body stays out
    assert "hidden" not in text and "def other" not in text


def test_a_budget_drops_callers_before_changed_code(repo: Index) -> None:
    full = build_bundle(repo, diff_ref="HEAD")
    tight = build_bundle(repo, diff_ref="HEAD", budget=full.tokens - 1)
    assert tight.tokens <= full.tokens - 1
    details = {i.id: i.detail for i in tight.items} | {i.id: None for i in tight.dropped}
    assert details.pop("app.py::caller#function") in (None, "name")
    assert set(details.values()) == {"full"}


def test_the_index_is_refreshed_when_changed_files_are_stale(repo: Index) -> None:
    (repo.root / "fresh.py").write_text("def fresh():\n    return 42\n\n\ndef newer():\n    return 1\n")
    assert not repo.file_is_current("fresh.py")
    ids = [s.id for s, _ in diff_items(repo)]
    assert "fresh.py::newer#function" in ids and repo.file_is_current("fresh.py")


def test_against_another_ref_and_committed_changes(repo: Index) -> None:
    git(repo.root, "add", "app.py")
    git(repo.root, "commit", "-qm", "helper")
    ids = [s.id for s, _ in diff_items(repo)]
    assert "app.py::helper#function" not in ids and "tail.py::tail#function" in ids
    ids = [s.id for s, _ in diff_items(repo, "HEAD~1")]
    assert "app.py::helper#function" in ids


def test_clear_errors_outside_git_and_for_unknown_refs(tmp_path: Path, repo: Index) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitError, match=r"^not a git repository: "):
        git_changes(plain)
    with pytest.raises(GitError, match=r"^unknown git revision: nope$"):
        git_changes(repo.root, "nope")
    with pytest.raises(GitError, match="not a git revision"):
        git_changes(repo.root, "--output=/tmp/x")
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(GitError, match="HEAD has no commit yet"):
        git_changes(empty)
    with pytest.raises(GitError):
        build_bundle(repo, diff_ref="nope")


def test_a_subfolder_of_the_work_tree_sees_its_own_paths(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "pkg").mkdir(parents=True)
    (top / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    (top / "outside.py").write_text("x = 1\n")
    git(top, "init", "-q")
    git(top, "add", ".")
    git(top, "commit", "-qm", "init")
    (top / "pkg" / "m.py").write_text("def f():\n    return 2\n")
    (top / "outside.py").write_text("x = 2\n")
    assert git_changes(top / "pkg") == [FileChange("m.py", added=((2, 2),))]


def test_parse_diff_handles_new_deleted_quoted_and_spaced_paths() -> None:
    patch = (
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n"
        "+a\n+b\n"
        "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n"
        "-x\n"
        'diff --git "a/t\\tab.py" "b/t\\tab.py"\n--- "a/t\\tab.py"\n+++ "b/t\\tab.py"\n@@ -2,0 +3 @@\n+c\n'
        "diff --git a/with space.py b/with space.py\n--- a/with space.py\t\n+++ b/with space.py\t\n"
        "@@ -5,2 +4,0 @@ def f():\n-\n--- not a header: a deleted line\n"
        "diff --git a/caf\u00e9.py b/caf\u00e9.py\n--- a/caf\u00e9.py\n+++ b/caf\u00e9.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert parse_diff(patch) == [
        FileChange("new.py", new=True, added=((1, 2),)),
        FileChange("t\tab.py", added=((3, 3),)),
        FileChange("with space.py", gaps=((4, "-- not a header: a deleted line"),)),
        FileChange("caf\u00e9.py", added=((1, 1),)),
    ]


def test_git_runs_without_external_diff_drivers(repo: Index, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    git(repo.root, "config", "diff.external", f"touch {marker}")
    git(repo.root, "config", "core.fsmonitor", f"touch {marker}")
    assert git_changes(repo.root)
    assert not marker.exists()
