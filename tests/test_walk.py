"""The walker: .gitignore rules exactly as pathspec decides them, order, depth and file limits."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from pathspec import GitIgnoreSpec

from symscope.core.errors import TooManyFilesError
from symscope.core.ignore import any_of
from symscope.core.walk import walk

RULES = [
    "*.pyc", "build/", "/dist", "!keep.pyc", "docs/**/*.md", "**/tmp", "a/**/b", "*.min.*",
    "[Tt]est?.txt", "logs/*.log", "!logs/important.log", "\\#literal", "space\\ name", "node*/",
    "# a comment", "", "foo/bar/", "*.[oa]", "x/**", "!x/y.txt", "deep/**/keep/",
]
NAMES = ["keep.pyc", "mod.pyc", "build", "dist", "readme.md", "tmp", "b", "app.min.js", "Test1.txt",
         "test22.txt", "x.log", "important.log", "#literal", "space name", "nodes", "y.txt", "lib.o",
         "main.py", "bar", "keep"]
DIRS = ["", "docs", "docs/guide", "a", "a/x", "logs", "x", "foo", "src/deep/z", "deep/q"]


def test_any_rule_matches_whenever_a_rule_does() -> None:
    spec = GitIgnoreSpec.from_lines(RULES)
    any_rule = any_of([p.regex for p in spec.patterns if p.include is not None])
    assert any_rule is not None
    decided = 0
    for folder, name, is_dir in itertools.product(DIRS, NAMES, (False, True)):
        path = f"{folder}/{name}" if folder else name
        candidate = path + "/" if is_dir else path
        if spec.check_file(candidate).include is not None:
            decided += 1
            assert any_rule.search(candidate) is not None, candidate
    assert decided > 50  # the rules above do decide many of these paths


def test_walk_honours_nested_gitignores_exactly(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("\n".join(RULES) + "\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ".gitignore").write_text("generated_*.py\n!generated_keep.py\n")
    expected: set[str] = set()
    root_spec = GitIgnoreSpec.from_lines(RULES)
    src_spec = GitIgnoreSpec.from_lines(["generated_*.py", "!generated_keep.py"])
    for folder in ["", "docs/guide", "logs", "x", "a/x", "src", "src/deep/z"]:
        for name in ["main.py", "keep.py", "generated_a.py", "generated_keep.py", "y.py"]:
            rel = f"{folder}/{name}" if folder else name
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_text("def f():\n    pass\n")
            parts = rel.split("/")
            dirs_ignored = any(
                root_spec.match_file("/".join(parts[:i]) + "/") for i in range(1, len(parts))
            )
            verdict = root_spec.check_file(rel).include
            ignored = bool(verdict)
            if rel.startswith("src/"):
                inner = src_spec.check_file(rel[len("src/"):]).include
                if inner is not None:
                    ignored = bool(inner)
            if not dirs_ignored and not ignored:
                expected.add(rel)
    found = {f.path for f in walk(tmp_path).files}
    assert found == expected
    assert "src/generated_keep.py" in found and "src/generated_a.py" not in found


def test_walk_order_is_sorted_depth_first(write_repo) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({
        "b.py": "x = 1\n", "a/z.py": "x = 1\n", "a/b/c.py": "x = 1\n", "a/a.py": "x = 1\n",
        "a/b/notes.txt": "", "c/d/e.py": "x = 1\n", "a.py": "x = 1\n", "a/node_modules/m.js": "",
    })
    result = walk(root)
    assert [f.path for f in result.files] == ["a/a.py", "a/b/c.py", "a/z.py", "a.py", "b.py", "c/d/e.py"]
    assert [s.path for s in result.skipped] == ["a/b/notes.txt", "a/node_modules/"]


def test_max_depth_is_a_parameter(write_repo) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"x/y/z/deep.py": "x = 1\n", "x/top.py": "x = 1\n"})
    result = walk(root, max_depth=2)
    assert [f.path for f in result.files] == ["x/top.py"]
    assert {s.path: s.reason for s in result.skipped} == {"x/y/z/": "nested too deep (over 2 folders)"}


def test_walk_stops_past_max_files(write_repo) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({f"m{i}.py": "x = 1\n" for i in range(6)})
    with pytest.raises(TooManyFilesError) as caught:
        walk(root, max_files=5)
    assert str(caught.value) == f"more than 5 indexable files under {root}; pass --max-files N to index anyway"
    assert len(walk(root, max_files=6).files) == 6
    assert len(walk(root, max_files=None).files) == 6


def test_files_as_known_come_back_as_paths_only(write_repo) -> None:  # type: ignore[no-untyped-def]
    """A refresh passes what the index knows: only new or changed files become `SourceFile`s
    (and reach `on_file`); the rest are listed by path, in walk order, and still count."""
    root = write_repo({"a.py": "x = 1\n", "b/c.py": "y = 2\n", "d.py": "z = 3\n", "e.py": "w = 4\n"})
    first = {f.path: (f.size, f.mtime_ns, "h") for f in walk(root).files}
    (root / "d.py").write_text("z = 33\n")  # a new size
    os.utime(root / "a.py", ns=(1, 1))  # a new mtime, same size
    known = {p: v for p, v in first.items() if p != "e.py"}  # e.py: never indexed
    seen: list[str] = []
    result = walk(root, known=known, on_file=lambda f: seen.append(f.path))
    assert [f.path for f in result.files] == seen == ["a.py", "d.py", "e.py"]
    assert result.unchanged == ["b/c.py"] and result.found == 4
    with pytest.raises(TooManyFilesError):
        walk(root, known=known, max_files=3)  # unchanged files count toward the limit too


def test_symlinked_gitignore_is_not_followed(tmp_path: Path) -> None:
    """As git (2.32+) does: an in-tree .gitignore that is a symlink is not read."""
    outside = tmp_path / "outside.txt"
    outside.write_text("*.py\n")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / ".gitignore").symlink_to(outside)
    result = walk(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert {s.path: s.reason for s in result.skipped} == {".gitignore": "symlink to outside the repo (not followed)"}


NIMBLE_GITIGNORE = "# ignore files wo extension (posix binaries)\n*\n!*.*\n!*/\n\n/src/nimble\nnimcache/\n"


def test_a_later_folder_rule_reincludes_folders_ignored_by_star(write_repo) -> None:  # type: ignore[no-untyped-def]
    """nim-lang/nimble's .gitignore: `*` ignores everything, `!*.*` and `!*/` bring back files
    with an extension and every folder (git walks `src/`; pathspec's `check_file("src/")` says no)."""
    root = write_repo({
        ".gitignore": NIMBLE_GITIGNORE,
        "nimble.nimble": "x = 1\n",
        "src/nimble.nim": "proc main() = discard\n",
        "src/nimble": "#!/usr/bin/env python3\n",  # a built binary, extensionless
        "src/nimblepkg/cli.nim": "proc f() = discard\n",
        "src/nimblepkg/cli": "#!/bin/sh\n",
        "src/nimblepkg/nimcache/gen.nim": "proc g() = discard\n",
        "tests/deep/er/t.py": "x = 1\n",
        "tests/run": "#!/bin/bash\necho\n",
    })
    found = [f.path for f in walk(root).files]
    assert found == ["src/nimble.nim", "src/nimblepkg/cli.nim", "tests/deep/er/t.py"]


GIT_CASES = [
    NIMBLE_GITIGNORE,
    "\n".join(RULES) + "\n",
    "*\n!*/\n!*.py\nlib/\n",
    "/*\n!/src/\n!/keep.py\n",
    "*/\n!src/\n",
    "build/\n!build/\nbuild/*.py\n!build/keep.py\n",
    "**/q/\n!deep/q/\ndeep/*/z/\n",
    "a*\n!a/\na/x*/\n",
]
GIT_DIRS = ["", "src", "src/sub", "build", "build/q", "x", "x/s", "a", "a/x", "a/xy/z", "deep/q", "deep/q/z",
            "logs", "node1", "docs/guide", "foo/bar", "lib", "lib/q", "tmp/a", "q", "z"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("rules", GIT_CASES, ids=["nimble", "rules", "star", "root", "dirs", "reinclude", "q", "a"])
def test_folders_are_ignored_exactly_as_git_ignores_them(tmp_path: Path, rules: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".gitignore").write_text(rules)
    for folder in GIT_DIRS:
        for name in ["main.py", "keep.py", "y.py", "tool"]:
            rel = f"{folder}/{name}" if folder else name
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("#!/usr/bin/env python3\nx = 1\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True, env=env, capture_output=True, text=True,
    ).stdout
    expected = {p for p in listed.split("\0") if p and p != ".gitignore"}
    assert {f.path for f in walk(root).files} == expected
