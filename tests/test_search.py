"""Search behaviour on real parsed code: tokenization, filters, duplicates, ranking order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from symscope.core.errors import BadQueryError
from symscope.core.index import Index
from symscope.core.searcher import is_auxiliary
from symscope.core.terms import query_terms, split_identifier, stem


def test_identifier_splitting_and_stemming() -> None:
    assert split_identifier("parseHTTPRequest2") == ["parse", "http", "request", "2"]
    assert split_identifier("send_file") == ["send", "file"]
    assert stem("routes") == stem("routing") == stem("router") == stem("route")
    assert stem("class") == "class"
    assert query_terms("how does express handle errors") == ["express", "handl", "error"]
    assert "request" in query_terms("req")  # abbreviations expand
    assert query_terms("use") == ["use"]  # a stop word alone is still searchable
    assert "sendfile" in query_terms("sendFile")


@pytest.fixture
def repo(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    root = write_repo({
        "src/files.py": '''
            def send_file(path, response):
                """Stream a file from disk to the client."""
                return response.write(open(path).read())


            def parse_query_string(qs):
                return dict(p.split("=") for p in qs.split("&"))
            ''',
        "src/copy_a.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
        "src/copy_b.py": "def slugify(text):\n    return  text.lower().replace(' ', '-')\n",
        "tests/test_files.py": "def send_file(path, response):\n    return None\n",
        "web/server.js": "function sendFile(res, path) {\n  return res.end(path);\n}\n",
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    return ix


def test_camel_and_snake_and_english_all_find_it(repo: Index) -> None:
    for query in ("send_file", "sendFile", "send file", "how is a file streamed to the client"):
        top = repo.search(query, limit=3)[0].symbol
        assert top.id == "src/files.py::send_file#function", query


def test_tests_rank_below_library_unless_asked(repo: Index) -> None:
    ids = [h.symbol.id for h in repo.search("send file", limit=5)]
    assert ids.index("tests/test_files.py::send_file#function") > ids.index("src/files.py::send_file#function")
    assert ids.index("tests/test_files.py::send_file#function") > ids.index("web/server.js::sendFile#function")
    asked = repo.search("send file test", limit=1)[0].symbol
    assert asked.path == "tests/test_files.py"
    assert is_auxiliary("docs_src/app/main.py") and is_auxiliary("pkg/foo_test.go")
    assert not is_auxiliary("lib/testing_utils_are_not_tests.py")


def test_near_identical_duplicates_collapse(repo: Index) -> None:
    hits = repo.search("slugify", limit=5)
    assert len(hits) == 1
    hit = hits[0]
    assert {hit.symbol.id, *hit.duplicates} == {"src/copy_a.py::slugify#function", "src/copy_b.py::slugify#function"}


def test_filters(repo: Index) -> None:
    assert {h.symbol.language for h in repo.search("file", language="javascript")} == {"javascript"}
    assert {h.symbol.path for h in repo.search("file", path_glob="src")} == {"src/files.py"}
    assert {h.symbol.path for h in repo.search("file", path_glob="*.js")} == {"web/server.js"}
    assert repo.search("file", kind="class") == []


def test_limit_and_ordering_are_deterministic(repo: Index) -> None:
    first = [(h.symbol.id, h.score) for h in repo.search("file query string", limit=10)]
    assert first == [(h.symbol.id, h.score) for h in repo.search("file query string", limit=10)]
    assert [s for _, s in first] == sorted((s for _, s in first), reverse=True)
    assert len(repo.search("file", limit=1)) == 1


def test_bad_queries(repo: Index) -> None:
    with pytest.raises(BadQueryError):
        repo.search("   ")
    with pytest.raises(BadQueryError):
        repo.search("...")
    assert repo.search("zzzyyyxxx") == []


def test_ranker_is_persisted_not_rebuilt_per_open(repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.search("file")
    assert repo.ranker_path.is_file()
    reopened = Index.open(repo.root, repo.index_dir)

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("ranker rebuilt instead of loaded")

    monkeypatch.setattr("symscope.core.searcher.BM25Builder", boom)
    assert reopened.search("send file")[0].symbol.name == "send_file"
    reopened.close()


def test_search_process_loads_no_builder_parser_or_tokenizer(repo: Index) -> None:
    """A search opens the persisted ranker: rank-bm25, tree-sitter and tiktoken stay unimported."""
    repo.search("file")
    script = (
        "import sys\n"
        "from symscope.core.index import Index\n"
        f"ix = Index.open({str(repo.root)!r}, {str(repo.index_dir)!r})\n"
        "hits = ix.search('send file')\n"
        "heavy = sorted(m for m in ('rank_bm25', 'tree_sitter', 'tiktoken', 'platformdirs') if m in sys.modules)\n"
        "print(hits[0].symbol.name, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["send_file", "[]"]


def test_ranker_rebuilt_after_change(repo: Index) -> None:
    (repo.root / "src/new.py").write_text("def brand_new_thing():\n    pass\n")
    repo.update(processes=1)
    reopened = Index.open(repo.root, repo.index_dir)
    assert reopened.search("brand new thing")[0].symbol.name == "brand_new_thing"
    reopened.close()


def test_sparse_scores_equal_rank_bm25(repo: Index) -> None:
    from rank_bm25 import BM25Okapi

    from symscope.core.rank import SparseBM25

    docs = [t.split() for (t,) in repo.store.query("SELECT terms FROM symbols ORDER BY path, ord")]
    ours = SparseBM25(docs)
    ref = BM25Okapi(docs, k1=ours.k1, b=ours.b)
    for query in (["send", "file"], ["pars", "query", "string"], ["slugify"], ["nothing"]):
        assert list(ours.get_scores(query)) == pytest.approx(list(ref.get_scores(query)), rel=1e-5, abs=1e-5)
    assert list(SparseBM25([]).get_scores(["x"])) == []


def test_builder_in_any_order_with_replaced_documents_scores_like_rank_bm25() -> None:
    """The indexer adds documents as parser processes finish, replaces re-parsed ones and
    may hold some that are no longer wanted: the built ranker still scores exactly."""
    import random

    from rank_bm25 import BM25Okapi

    from symscope.core.rank import BM25Builder

    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    docs = [[rng.choice(words[: rng.randint(1, 40)]) for _ in range(rng.randint(0, 25))] for _ in range(120)]
    builder = BM25Builder()
    for i in range(len(docs)):
        builder.add(str(i), ["stale", "terms"])
    for i in reversed(range(len(docs))):
        builder.add(str(i), docs[i])
    builder.add("gone", ["w1"] * 9)
    ours = builder.build([str(i) for i in range(len(docs))])
    ref = BM25Okapi(docs, k1=ours.k1, b=ours.b)
    for query in (["w1", "w2"], ["w0"], ["w39", "w3", "w3"], ["stale"], ["nothing"]):
        assert list(ours.get_scores(query)) == pytest.approx(list(ref.get_scores(query)), rel=1e-5, abs=1e-5)
    assert list(ours.documents_with("w0")) == sorted(i for i, d in enumerate(docs) if "w0" in d)


def test_a_repo_of_one_symbol_can_be_searched(tmp_path: Path) -> None:
    """rank-bm25's floor is negative when every term is in every document; ours is not."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "only.py").write_text("def lonely_function():\n    return 1\n")
    with Index.open(tmp_path / "repo", tmp_path / "idx") as index:
        index.update(processes=1)
        assert [h.symbol.name for h in index.search("lonely function")] == ["lonely_function"]
