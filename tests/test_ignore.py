"""Many .gitignore rules matched at once (issue 27, point 4): the same verdicts as asking
every rule in turn, at a cost that does not grow with the rules a path cannot match."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pathspec import GitIgnoreSpec

from symscope.core.ignore import IgnoreRules, Rule
from symscope.core.walk import walk

NAMES = ["a", "b", "foo", "Foo", "x.py", "y.pyc", "lib.tar.gz", ".env", "debug", "Debug", "build", "q.md", "b.b"]
PIECES = [*NAMES, "*", "**", "?", "*.py", "*.pyc", "*.gz", "*.tar.gz", "[Dd]ebug", "[ab]", "f*", "*o", "x.*",
          "[!a]", "[a-c]", "\\*", "foo ", ".*", "*.[Pp]y", "[xy].py", "[z-a]", "a\\", "", "#x"]


def _rule_line() -> st.SearchStrategy[str]:
    body = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("/".join)
    return st.tuples(st.sampled_from(["", "!", "/", "!/", "#"]), body, st.sampled_from(["", "/", "/**"])).map(
        lambda t: t[0] + t[1] + t[2]
    )


_paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=5).map("/".join)


def _every_rule(spec: GitIgnoreSpec) -> list[Rule]:
    """All the rules, newest first: what the walk asked, one by one, before."""
    rules = []
    for index, pattern in enumerate(spec.patterns):
        if pattern.include is not None:
            regex = pattern.regex
            rules.append(Rule(index, bool(pattern.include), regex, re.compile(f"(?:{regex.pattern})\\Z")))
    return rules[::-1]


def _readable(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_rule_line(), max_size=12), st.lists(_paths, min_size=1, max_size=12))
def test_verdicts_are_those_of_every_rule_asked_in_turn(lines: list[str], paths: list[str]) -> None:
    """Against pathspec asked about every rule (files) and every rule's own folder test asked
    in turn (folders); a line pathspec cannot read (`[z-a]`, `!` alone) is no rule at all."""
    spec = GitIgnoreSpec.from_lines([line for line in lines if _readable(line)])
    rules = IgnoreRules(lines)
    every = _every_rule(spec)
    for path in paths:
        assert rules.file_verdict(path) == spec.check_file(path).include, (lines, path)
        folder = next((rule.include for rule in every if rule.matches_folder(path)), None)
        assert rules.folder_verdict(path) == folder, (lines, path)


def test_realistic_rules_decide_as_pathspec() -> None:
    lines = ["*.pyc", "[Dd]ebug/", "[Bb]in/", "*.[Cc]ache", "!keep.cache", "/dist", "docs/_build/", "**/tmp",
             "a/**/b", "logs/*.log", "!logs/important.log", "x/**", "!x/y.txt", "*.tar.gz", "build"]
    spec = GitIgnoreSpec.from_lines(lines)
    rules = IgnoreRules(lines)
    paths = ["m.pyc", "src/Debug/x.py", "Debug", "bin/a", "Bin/z/q", "s.Cache", "keep.cache", "dist/a.py",
             "src/dist/a.py", "docs/_build/i.html", "k/tmp/l", "a/q/r/b", "logs/a.log", "logs/important.log",
             "x/y.txt", "x/z.txt", "f.tar.gz", "f.gz", "build/x.py", "src/build"]
    decided = 0
    for path in paths:
        expected = spec.check_file(path).include
        decided += expected is not None
        assert rules.file_verdict(path) == expected, path
    assert decided >= 15


def test_many_rules_ask_only_the_rules_a_path_can_match() -> None:
    """10,000 `**/` rules and 10,000 realistic ones: a path is asked about a handful of rules,
    not every one of them (the walk asked each path about every rule before)."""
    starstar = [f"**/generated_{i}" if i % 2 else f"**/build_{i}/" for i in range(10_000)]
    shapes = ["/src/gen{i}/", "*.tmp{i}", "docs/build{i}/**", "!keep{i}.py", "cache{i}", "src/**/out{i}.py",
              "[Bb]uild{i}/", "/out/{i}/*.json"]
    realistic = ["*.pyc", "__pycache__/", "pkg3/", *(shapes[i % len(shapes)].format(i=i) for i in range(10_000))]
    paths = [f"src/pkg{i}/mod{j}/file{k}.py" for i in range(5) for j in range(5) for k in range(5)]
    paths += ["src/generated_7", "src/gen40/a.py", "x/build_8/y.py", "a/b.tmp1", "src/q/out5.py", "Build6/x"]
    for lines in (starstar, realistic):
        spec = GitIgnoreSpec.from_lines(lines)
        rules = IgnoreRules(lines)
        for path in paths:
            assert len(rules.candidates(path)) <= 3, path
            assert len(rules.candidates(path, folder=True)) <= 3, path
            assert rules.file_verdict(path) == spec.check_file(path).include, path
        assert len(rules.wild) == 0
    rules = IgnoreRules(starstar)
    assert rules.file_verdict("a/generated_7") is True and rules.folder_verdict("a/build_8") is True
    assert rules.file_verdict("a/build_8") is None  # a folder-only rule, and this is a file


def test_duplicate_rules_are_asked_once() -> None:
    lines = ["src/*", "!src/*"] * 5_000 + ["*.py"]
    spec = GitIgnoreSpec.from_lines(lines)
    rules = IgnoreRules(lines)
    assert [rule.index for rule in rules.candidates("src/a.py")] == [10_000, 9_999, 9_998]
    assert rules.file_verdict("src/a.py") is True and rules.file_verdict("src/a.txt") is False
    assert spec.check_file("src/a.txt").include is False


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_lines_pathspec_cannot_read_are_skipped_as_git_skips_them(tmp_path: Path) -> None:
    """`!` alone, `[z-a]` and a trailing `\\` made pathspec raise, and the walk with it
    (a traceback from `symscope index`); git ignores such lines and applies the others."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".gitignore").write_text("!\n[z-a]\nskip_*.py\nx\\\n!skip_keep.py\n")
    for name in ("main.py", "skip_a.py", "skip_keep.py", "x", "z-a.py"):
        (root / name).write_text("#!/usr/bin/env python3\nx = 1\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--exclude-standard", "-z"],
                            check=True, env=env, capture_output=True, text=True).stdout
    expected = {p for p in listed.split("\0") if p and p != ".gitignore"}
    assert expected == {"main.py", "skip_keep.py", "x", "z-a.py"}
    assert {f.path for f in walk(root).files} == expected


def test_unfiled_rules_are_asked_even_without_their_quick_test() -> None:
    rules = IgnoreRules(["*", "!*.py", "!*/", "?x"])
    assert [rule.index for rule in rules.wild] == [0, 2, 3]
    rules.wild_any = None  # as when the combined pattern cannot be compiled
    assert rules.file_verdict("src/tool") is True and rules.file_verdict("src/a.py") is False
    assert rules.folder_verdict("src") is False


def test_a_walk_under_10000_rules_builds_only_the_rules_its_paths_can_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, every folder and file was tested against all 10,000 rules (and all 10,000
    regexes were compiled on every walk)."""
    built: list[int] = []
    rule = IgnoreRules.rule

    def counted(self: IgnoreRules, index: int) -> Rule | None:
        built.append(index)
        return rule(self, index)

    monkeypatch.setattr(IgnoreRules, "rule", counted)
    root = tmp_path / "repo"
    for i in range(20):
        (root / f"pkg{i}" / "generated_3").mkdir(parents=True)
        (root / f"pkg{i}" / "generated_3" / "g.py").write_text("x = 1\n")
        (root / f"pkg{i}" / "m.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("\n".join(f"**/generated_{i}" for i in range(10_000)) + "\n")
    result = walk(root)
    assert sorted(f.path for f in result.files) == sorted(f"pkg{i}/m.py" for i in range(20))
    assert len(built) <= 20  # one rule asked once per folder named generated_3
