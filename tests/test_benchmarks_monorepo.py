"""The synthetic monorepo builder (benchmarks/monorepo_build.py) on the small fixture repo.

Issue 29's figures come from monorepos built out of the pinned corpora; these check, without
any corpus, that a build is the same bytes every time, has exactly the files asked for, and
gives each copy its own symbols (so one query finds distinct symbols per copy, as in a real
monorepo, instead of N equal twins).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.monorepo_build import build, defined_names, plan, rename, source_files
from symscope.core.api import Workspace

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "tests" / "fixtures" / "sample_repo"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_build_is_deterministic_and_has_exactly_the_files_asked_for(tmp_path: Path) -> None:
    sources = source_files(SAMPLE)
    assert len(sources) == 10  # so 25 files are two whole copies and half of a third
    first = build([SAMPLE], tmp_path / "a" / "mono", 25)
    second = build([SAMPLE], tmp_path / "b" / "mono", 25)
    assert first.files == second.files == 25 and first.copies == 3
    assert first.digest == second.digest
    tree = _tree(first.root)
    assert tree == _tree(second.root)
    assert len(tree) == 25
    assert sum(len(data) for data in tree.values()) == first.source_bytes
    assert len([p for p in tree if p.startswith("c002/")]) == 5
    # another count is another build, replacing the folder's content
    again = build([SAMPLE], tmp_path / "a" / "mono", 7)
    assert again.files == len(_tree(again.root)) == 7 and again.digest != first.digest


def test_each_copy_renames_its_definitions_and_their_uses(tmp_path: Path) -> None:
    mono = build([SAMPLE], tmp_path / "mono", 20)
    original = (SAMPLE / "shortener" / "codes.py").read_text()
    copy0 = (mono.root / "c000" / "sample_repo" / "shortener" / "codes.py").read_text()
    copy1 = (mono.root / "c001" / "sample_repo" / "shortener" / "codes.py").read_text()
    assert copy0 == original  # copy 0 keeps the corpus's own names
    assert "def encode_c1(" in copy1 and "def decode_c1(" in copy1 and "def encode(" not in copy1
    main_go = (mono.root / "c001" / "sample_repo" / "cmd" / "redirector" / "main.go").read_text()
    # a use in another file than the definition's follows it
    assert "NewCache_c1(cacheSize" in main_go and "newAPIResolver_c1(" in main_go
    assert "package main" in main_go and "func main()" in main_go  # `main` is never renamed
    assert "return number" in copy1 and "ValueError(" in copy1  # keywords and other names stay


def test_the_same_query_finds_distinct_symbols_per_copy(tmp_path: Path) -> None:
    mono = build([SAMPLE], tmp_path / "mono", 30)
    with Workspace.open(mono.root, tmp_path / "idx") as ws:
        assert ws.stats().files == 30
        hits = ws.search("encode", limit=10)
    by_copy = {h.symbol.path.split("/")[0]: h.symbol for h in hits if h.symbol.name.startswith("encode")}
    assert set(by_copy) == {"c000", "c001", "c002"}
    assert {s.name for s in by_copy.values()} == {"encode", "encode_c1", "encode_c2"}
    assert len({s.id for s in by_copy.values()}) == 3


def test_renaming_touches_whole_words_only() -> None:
    names = frozenset(defined_names(source_files(SAMPLE)))
    assert "encode" in names and "main" not in names and "__init__" not in names
    assert rename("encode(x); encoder(encode)", names, "_c4") == "encode_c4(x); encoder(encode_c4)"
    assert rename("encode(x)", names, "") == "encode(x)"


def test_bad_input_is_one_line_and_a_nonzero_exit(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"no \.py, \.js or \.go files"):
        plan([tmp_path], 5)
    with pytest.raises(ValueError, match="at least 1"):
        build([SAMPLE], tmp_path / "mono", 0)
    done = subprocess.run([sys.executable, "-m", "benchmarks.monorepo", str(tmp_path / "none")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no corpus at" in done.stderr
