"""The auto-labelled set (issue 30): hiding a docstring keeps every line and every definition but
takes the docstring out of the index; the pair filter drops trivia; the split is by repository."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.autolabel import REPOS_FILE, candidates, load_repos, report
from benchmarks.autolabel_pairs import (
    Span,
    blank,
    doc_spans,
    drop_reason,
    first_sentence,
    name_words,
    query_of,
)
from benchmarks.metrics import score_query
from symscope.core.api import Workspace

FIXTURES = Path(__file__).parent / "fixtures" / "languages"
LANGUAGES = ("python", "go", "java", "rust", "ruby", "csharp", "typescript", "javascript", "php")
BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def _index(root: Path, index_dir: Path) -> Workspace:
    ws = Workspace.open(root, index_dir, ensure=False)
    ws.refresh()
    return ws


@pytest.mark.parametrize("language", LANGUAGES)
def test_blanking_hides_every_docstring_and_keeps_lines(language: str, tmp_path: Path) -> None:
    """Every documented definition of a real fixture file, its docstring blanked: the file keeps
    its length and line count, the re-indexed copy has the same definitions at the same lines,
    and none of them holds a word of its docstring any more."""
    original = tmp_path / "original"
    shutil.copytree(FIXTURES / language, original)
    (original / "expected.json").unlink()
    with _index(original, tmp_path / "i1") as ws:
        before = {s.id: s for s in ws.all_symbols()}
    documented = [s for s in before.values() if s.docstring]
    assert documented, "the fixture must document something"
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    by_file: dict[str, list[Span]] = {}
    for sym in documented:
        data = (original / sym.path).read_bytes()
        spans = doc_spans(data, sym.start_byte, sym.end_byte, sym.docstring)
        assert spans, f"{language}: no doc found for {sym.id}"
        by_file.setdefault(sym.path, []).extend(spans)
    for path, file_spans in by_file.items():
        data = (original / path).read_bytes()
        out = blank(data, file_spans)
        assert len(out) == len(data) and out.count(b"\n") == data.count(b"\n")
        (copy / path).write_bytes(out)
    with _index(copy, tmp_path / "i2") as ws:
        after = {s.id: s for s in ws.all_symbols()}
    assert {k: (s.start_line, s.end_line) for k, s in after.items()} == \
        {k: (s.start_line, s.end_line) for k, s in before.items()}
    for sym in documented:
        assert not re.search(r"[A-Za-z]{3,}", after[sym.id].docstring), (sym.id, after[sym.id].docstring)
        text = (copy / sym.path).read_text(encoding="utf-8")
        assert sym.docstring not in text


def test_blanking_keeps_the_markers_so_code_stays_code() -> None:
    src = b'def f():\n    """Read the settings\n    from a file."""\n    return 1\n'
    spans = doc_spans(src, 0, len(src), "Read the settings from a file.")
    assert spans is not None
    out = blank(src, spans)
    assert out.startswith(b'def f():\n    """') and b'"""\n    return 1\n' in out and b"settings" not in out
    go = b"// Sunset marks a route as retired.\n// It sets two headers.\nfunc Sunset() {}\n"
    out = blank(go, doc_spans(go, 0, len(go), "Sunset marks a route as retired. It sets two headers.") or [])
    assert out.splitlines()[0].rstrip() == b"//" and out.endswith(b"func Sunset() {}\n") and b"retired" not in out


def test_the_filter_drops_trivial_sentences() -> None:
    assert drop_reason("src/a.py", "method", "get_foo", "Returns the foo.") == "too short"
    assert drop_reason("src/a.py", "function", "fooBar", "Foo bar.") == "too short"
    assert drop_reason("src/A.cs", "method", "Value", "Gets or sets the value of the cell.") == "boilerplate"
    assert drop_reason("src/A.cs", "method", "A", "Initializes a new instance of the A class.") == "boilerplate"
    assert drop_reason("src/a.py", "function", "parse", "Call parse on each chunk of the input stream.") \
        == "name verbatim"
    assert drop_reason("tests/test_a.py", "function", "f", "Check that the parser rejects a bad header.") == "test"
    assert drop_reason("pkg/a_test.go", "function", "f", "Check that the parser rejects a bad header.") == "test"
    assert drop_reason("vendor/x/a.go", "function", "f", "Split a header into its comma separated parts.") \
        == "vendored"
    assert drop_reason("src/a.py", "constant", "F", "Split a header into its comma separated parts.") == "kind"
    assert drop_reason("src/a.py", "function", "split", "See https://example.com/docs/split-the-header.") \
        is not None
    good = "Split a header value into its comma separated parts, honouring quotes."
    assert drop_reason("src/a.py", "function", "split_header", good) is None
    assert query_of("Sunset", "Sunset marks a route as retired on a date. More.") == \
        "marks a route as retired on a date."
    assert first_sentence("Use a list, e.g. of rows, as input. Then more.") == "Use a list, e.g. of rows, as input."
    assert first_sentence("Dates in ISO 8601 (e.g. 2020-01-01) form. More.") == "Dates in ISO 8601 (e.g. 2020-01-01) form."
    assert name_words("parseHTTPRequest") == name_words("parse_http_request") == {"parse", "http", "request"}


def test_a_sentence_two_definitions_share_names_neither(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    doc = '    """Copy the buffered bytes out to the underlying stream."""\n'
    (root / "a.py").write_text(f"def flush():\n{doc}\n\ndef drain():\n{doc}\n\ndef close():\n"
                               '    """Release the socket and forget any pending writes."""\n')
    with _index(root, tmp_path / "idx") as ws:
        drops: Counter[str] = Counter()
        kept = candidates(ws.all_symbols(), drops)
    assert [s.name for s, _ in kept] == ["close"] and drops["shared sentence"] == 2


def test_the_split_is_by_repository() -> None:
    """No repository (nor owner/name) on both sides, every language on both, and none shared with
    the project's own query sets or the blind set."""
    repos = load_repos()
    sides: dict[str, set[str]] = {}
    for r in repos.values():
        sides.setdefault(r["repo"].lower(), set()).add(r["split"])
    assert all(len(s) == 1 for s in sides.values())
    by_language: dict[str, set[str]] = {}
    for r in repos.values():
        by_language.setdefault(r["language"], set()).add(r["split"])
    assert len(by_language) >= 8 and all(s == {"train", "validation"} for s in by_language.values())
    taken = {"expressjs/express", "fastapi/fastapi", "gin-gonic/gin"}
    for name in ("queries.json", "intent_queries.json", "heldout_queries.json", "blind_queries.json"):
        raw = json.loads((BENCHMARKS / name).read_text(encoding="utf-8"))
        taken |= {r["repo"].lower() for r in raw.get("repos", {}).values()}
        taken |= {str(q.get("repo", "")).lower() for q in raw["queries"]}
    assert not set(sides) & {t.lower() for t in taken}
    assert not set(repos) & taken
    # the report files each pair under its repository's one split
    records = [{"repo": name, "score": score_query([frozenset({0})], 1)} for name in repos]
    result = report(records, repos)
    assert result["train"]["queries"] + result["validation"]["queries"] == len(repos)
    # ... and under its size stratum within that split
    records = [{"repo": name, "score": score_query([frozenset({0})], 1), "stratum": "large" if i % 2 else "small"}
               for i, name in enumerate(repos)]
    result = report(records, repos)
    assert sum(result[f"{s}:{z}"]["queries"] for s in ("train", "validation") for z in ("small", "large")
               if f"{s}:{z}" in result) == len(repos)
    assert result["train:large"]["queries"] + result["train:small"]["queries"] == result["train"]["queries"]
    assert REPOS_FILE.name == "autolabel_repos.json"


def test_the_blind_set_is_well_formed() -> None:
    """Four repositories in four languages, 12 queries each: 4 keyword, 5 intent, 3 config."""
    from benchmarks.blind import BLIND_FILE
    from benchmarks.heldout import load

    repos, queries = load(BLIND_FILE)
    assert len({r["language"] for r in repos.values()}) == len(repos) == 4
    for repo in repos:
        styles = Counter(q["style"] for q in queries if q["repo"] == repo)
        assert styles == {"keyword": 4, "intent": 5, "config": 3}, repo
    assert not {r["repo"] for r in repos.values()} & {r["repo"] for r in load_repos().values()}


def test_the_scorer_takes_any_search(tmp_path: Path) -> None:
    """A re-ranker plugs in as a `search(query) -> hits` callable: the same pair scores 1 under a
    search that puts its target first, 0 under one that returns nothing or another symbol."""
    from benchmarks.autolabel import score_pairs

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "python", root)
    with _index(root, tmp_path / "idx") as ws:
        target = next(s for s in ws.all_symbols() if s.name == "load_settings")
        pair = {"id": target.id, "query": "read the configuration file"}
        first = [h for h in ws.search("load_settings", limit=10) if h.symbol.id == target.id]
        other = [h for h in ws.search("Router", limit=10) if h.symbol.id != target.id][:1]
        assert first and other
        assert [s.precision_at_1 for s in score_pairs(ws, [pair], lambda q: first)] == [1.0]
        assert [s.reciprocal_rank for s in score_pairs(ws, [pair], lambda q: other + first)] == [0.5]
        assert [s.recall_at_k for s in score_pairs(ws, [pair], lambda q: [])] == [0.0]
