"""A warm searcher keeps what it judged of each candidate for one index generation: its answers
must be exactly a fresh process's, before and after the repository changes."""

from __future__ import annotations

import shutil
from pathlib import Path

from symscope.core.index import Index

ENGINE = Path(__file__).resolve().parent.parent / "core"
QUERIES = ["search", "rank candidates by bm25", "store rows", "parse a file into symbols", "Searcher",
           "term index sync", "secret detector", "bundle within a token budget"]


def _answers(ix: Index) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    return [[(h.symbol.id, h.score, h.duplicates) for h in ix.search(q, limit=10)] for q in QUERIES]


def _fresh(root: Path, index_dir: Path) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    ix = Index.open(root, index_dir)
    try:
        return _answers(ix)
    finally:
        ix.close()


def test_warm_answers_equal_a_fresh_process_before_and_after_a_change(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(ENGINE, root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    ix = Index.open(root, tmp_path / "idx")
    try:
        ix.update(processes=1)
        first = _answers(ix)
        assert first == _answers(ix)  # warm: every row and fact from the cache
        assert first == _fresh(root, tmp_path / "idx")
        # many new references to `Store` move its prior; a new definition joins the candidates
        (root / "core" / "extra.py").write_text(
            "def use_stores(a: Store, b: Store, c: Store) -> Store:\n"
            "    '''Rank candidates by bm25 from a store of rows.'''\n    return Store(a, b, c)\n",
            encoding="utf-8")
        ix.update(processes=1)
        second = _answers(ix)
        assert second != first
        assert second == _fresh(root, tmp_path / "idx")
    finally:
        ix.close()
