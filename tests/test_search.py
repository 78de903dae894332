"""Search behaviour on real parsed code: tokenization, filters, duplicates, ranking order."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symscope.core import levers
from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.errors import BadQueryError
from symscope.core.index import Index
from symscope.core.search.scoring import union
from symscope.core.terms import query_terms, split_identifier, stem


def test_identifier_splitting_and_stemming() -> None:
    assert split_identifier("parseHTTPRequest2") == ["parse", "http", "request", "2"]
    assert split_identifier("send_file") == ["send", "file"]
    # a plural acronym is one word: `CIDRs` is not `CID` + `Rs`
    assert split_identifier("prepareTrustedCIDRs") == ["prepare", "trusted", "cidrs"]
    assert split_identifier("getIDsForURLs") == ["get", "ids", "for", "urls"]
    assert stem("routes") == stem("routing") == stem("router") == stem("route")
    assert stem("class") == "class"
    # a verb, its past and its noun meet: "where is the token verified" finds `verify_token`
    assert stem("verify") == stem("verified") == stem("verification") == stem("verifies")
    assert stem("simplify") == stem("simplified") == stem("simplifications")
    assert stem("applied") == stem("apply") and stem("tied") != stem("ty")
    assert query_terms("how does express handle errors") == ["express", "handl", "error"]
    assert "request" in query_terms("req")  # abbreviations expand
    assert query_terms("use") == ["use"]  # a stop word alone is still searchable
    assert "sendfile" in query_terms("sendFile")
    # a possessive is no word `s`, and relative pronouns or auxiliaries say nothing of the code
    assert query_terms("Cardano's formula") == ["cardano", "formula"]
    assert query_terms("a key whose time has passed") == ["key", "tim", "pass"]


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
        ids = [h.symbol.id for h in repo.search(query, limit=3)]
        assert "src/files.py::send_file#function" in ids[:2], query
        # typed as one of the two spells it, that one comes first
        first = {"send_file": "src/files.py::send_file#function", "sendFile": "web/server.js::sendFile#function"}
        assert ids[0] == first.get(query, "src/files.py::send_file#function"), query


def test_tests_rank_below_library_unless_asked(repo: Index) -> None:
    ids = [h.symbol.id for h in repo.search("send file", limit=5)]
    assert ids.index("tests/test_files.py::send_file#function") > ids.index("src/files.py::send_file#function")
    assert ids.index("tests/test_files.py::send_file#function") > ids.index("web/server.js::sendFile#function")
    asked = repo.search("send file test", limit=1)[0].symbol
    assert asked.path == "tests/test_files.py"
    assert is_auxiliary("docs_src/app/main.py") and is_auxiliary("pkg/foo_test.go")
    assert not is_auxiliary("lib/testing_utils_are_not_tests.py")
    # Cargo's `benches/` and `bench/` are benchmarks and `fuzz/` fuzz targets; mocks and
    # end-to-end suites are test code too, and `dist/` a built copy; JVM and .NET name their tests and
    # benchmarks by suffix, outside any test folder too
    for aux in ("benches/sync_notify.rs", "tokio/benches/spawn.rs", "bench/router.js", "tokio/fuzz/fuzz_targets/x.rs",
                "e2e/login.spec.js", "pkg/models/mocks/store.go", "cli/__mocks__/fs.js", "playground/src/App.vue",
                "dist/esm/axios.js",
                "metrics/src/main/java/ParseBenchmark.java", "src/FooTest.java", "src/BarTests.kt",
                "src/ClientIT.java", "lib/parser_spec.rb", "tokio/src/fs/file/tests.rs", "polls/tests.py"):
        assert is_auxiliary(aux), aux
    for lib in ("src/Contest.java", "src/TestUtils.java", "src/LIMIT.java", "lib/spec.rb", "src/bencher.rs",
                "src/benches.rs", "src/fuzzy.rs", "src/mock.py", "lib/distance.js", "lib/plug/test.ex",
                "src/testsuite.rs"):
        assert not is_auxiliary(lib), lib


def test_test_code_competes_by_its_best_few(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Test code keeps a share of its score, so only its best few matches can rise: a search
    re-ranks a bounded number of them however much test code matches, and the best one still
    competes (found first when the library holds nothing better)."""
    from symscope.core.search import searcher as searcher_module

    tests = "\n\n".join(f"def test_parse_header_{i}():\n    parse_header('x: {i}')\n" for i in range(150))
    best = "def test_parse_header_folding():\n    parse_header(fold_header(parse_header('x')))\n"
    root = write_repo({
        "src/headers.py": "def read_body(stream):\n    return stream.read()\n",
        "tests/test_headers.py": tests + "\n\n" + best,
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    seen: list[int] = []
    searcher = ix.searcher
    searcher.observe = lambda query, data, top, features: seen.append(int(data.auxiliary.sum()))
    hits = ix.search("parse header folding", limit=5)
    assert hits[0].symbol.qualname == "test_parse_header_folding"
    bound = 5 * searcher_module.AUX_PER_HIT + searcher_module.AUX_BASE
    assert seen and seen[0] <= bound < 150


def test_an_inline_test_module_ranks_as_tests(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """Rust keeps unit tests in `#[cfg(test)] mod tests` inside the library file. A test there
    that says every word of the query ranks below the library function, unless tests are
    asked for; Elixir's `Plug.Test`-style helpers and a method named `test` stay library code."""
    root = write_repo({
        "src/notify.rs": '''
            pub struct Notify { waiters: usize }

            impl Notify {
                /// Wakes one task waiting on this notify.
                pub fn notify_one(&self) {
                    self.wake(1);
                }

                /// Tests whether a permit is stored.
                pub fn test(&self) -> bool {
                    self.waiters == 0
                }
            }

            #[cfg(test)]
            mod tests {
                use super::*;

                /// Wake one waiting task: notify one task waiting on the notify and check it wakes.
                #[test]
                fn notify_one_wakes_one_waiting_task() {
                    let notify = Notify { waiters: 1 };
                    notify.notify_one();
                }
            }
            ''',
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    ids = [h.symbol.id for h in ix.search("wake one waiting task", limit=5)]
    test = "src/notify.rs::tests.notify_one_wakes_one_waiting_task#function"
    assert ids[0] == "src/notify.rs::Notify.notify_one#method"
    assert test in ids
    assert ix.search("waiting task test", limit=1)[0].symbol.id == test
    assert in_test_module("tests", "module") and in_test_module("tests.helper", "function")
    assert not in_test_module("Notify.test", "method") and not in_test_module("Plug.Test.conn", "function")
    # the hybrid leaves them to BM25 too, as it does test files
    from symscope.core import semantic

    monkeypatch.setattr(semantic.Encoder, "encode", classmethod(lambda cls, texts: _stand_in_encoder(texts)))
    embedded = semantic.update(ix)
    assert embedded.symbols == 3  # Notify, notify_one and test; not the module or the test in it


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


def test_search_index_is_on_disk_and_opened_not_rebuilt(repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process opens the term index as it is: nothing is read back from the store."""
    repo.search("file")
    assert (repo.search_path / "meta.json").is_file()
    assert not (repo.index_dir / "rank.pickle").exists()  # no pickle: nothing that runs code on load
    reopened = Index.open(repo.root, repo.index_dir)

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("term index rewritten instead of opened")

    monkeypatch.setattr("symscope.core.search.termindex.TermIndex._documents", boom)
    assert reopened.search("send file")[0].symbol.name == "send_file"
    reopened.close()


def test_search_process_loads_no_builder_parser_or_tokenizer(repo: Index) -> None:
    """A search opens the persisted ranker: rank-bm25, tree-sitter and tiktoken stay unimported,
    and so does numpy's masked arrays (`np.unique` imports them: 10 ms of every fresh search)."""
    repo.search("file")
    script = (
        "import sys\n"
        "from symscope.core.index import Index\n"
        f"ix = Index.open({str(repo.root)!r}, {str(repo.index_dir)!r})\n"
        "hits = ix.search('send file')\n"
        "heavy = sorted(m for m in ('rank_bm25', 'tree_sitter', 'tiktoken', 'platformdirs', 'numpy.ma')\n"
        "               if m in sys.modules)\n"
        "print(hits[0].symbol.name, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["send_file", "[]"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 60), max_size=25), st.lists(st.integers(0, 60), max_size=25))
def test_union_is_numpys_union1d(a: list[int], b: list[int]) -> None:
    left, right = np.array(a, dtype=np.intp), np.array(b, dtype=np.int64)
    got = union(left, right)
    assert got.dtype == np.intp and np.array_equal(got, np.union1d(left, right))


def test_ranker_rebuilt_after_change(repo: Index) -> None:
    (repo.root / "src/new.py").write_text("def brand_new_thing():\n    pass\n")
    repo.update(processes=1)
    reopened = Index.open(repo.root, repo.index_dir)
    assert reopened.search("brand new thing")[0].symbol.name == "brand_new_thing"
    reopened.close()


def test_term_index_scores_equal_rank_bm25(repo: Index) -> None:
    """tantivy's BM25, with each term boosted to our IDF, is rank-bm25's BM25Okapi (up to
    tantivy's one-byte length codes): the candidate stage ranks as the engine always did."""
    from rank_bm25 import BM25Okapi

    from symscope.core.settings import DEFAULTS

    bags = repo.store.bags([r for (r,) in repo.store.query("SELECT sid FROM symbols")])
    rows = sorted(bags.items())
    docs = [t.split() for _, t in rows]
    ref = BM25Okapi(docs, k1=DEFAULTS.k1, b=DEFAULTS.b, epsilon=DEFAULTS.epsilon)
    ti = repo.searcher.ready()
    for query in (["send", "file"], ["pars", "query", "string"], ["slugify"], ["nothing"]):
        expected = ref.get_scores(query)
        got = {h.row: h.score for h in ti.top({t: ti.idf(t) for t in query}, len(docs))}
        for (row, _), want in zip(rows, expected, strict=True):
            assert got.get(row, 0.0) == pytest.approx(want, rel=0.03, abs=1e-4)


def test_term_index_follows_every_change(repo: Index) -> None:
    """After files are added, changed and removed, the term index holds exactly the store's
    documents: every term's symbols are the rows whose stored terms hold it."""
    (repo.root / "src/new.py").write_text("def zebra_crossing():\n    return 'stripes'\n")
    first = next(p for p in sorted(repo.root.rglob("*.py")) if p.name != "new.py")
    first.unlink()
    repo.update(processes=1)
    ti = repo.searcher.ready()
    for term in ("zebra", "stripe", "file", "send", "slugifi"):
        every = repo.store.bags([r for (r,) in repo.store.query("SELECT sid FROM symbols")])
        stored = {r for r, t in every.items() if term in t.split()}
        assert set(ti.with_term(term)) == stored
    assert not repo.store.query("SELECT 1 FROM search_stale")


def test_an_interrupted_sync_is_finished_by_the_next_search(repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store commits first; a crash before the term index commits leaves the files marked,
    and the next search writes them: never a silent mismatch."""
    import tantivy

    (repo.root / "src/late.py").write_text("def quokka_smile():\n    pass\n")

    class Crash(Exception):
        pass

    def crash(self: object) -> None:
        raise Crash

    with monkeypatch.context() as m:
        m.setattr(tantivy.IndexWriter, "commit", crash)
        with pytest.raises(Crash):
            repo.update(processes=1)
    assert repo.store.query("SELECT path FROM search_stale") == [("src/late.py",)]
    reopened = Index.open(repo.root, repo.index_dir)
    assert reopened.search("quokka smile")[0].symbol.name == "quokka_smile"
    assert not reopened.store.query("SELECT 1 FROM search_stale")
    reopened.close()


def test_a_repo_of_one_symbol_can_be_searched(tmp_path: Path) -> None:
    """rank-bm25's floor is negative when every term is in every document; ours is not."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "only.py").write_text("def lonely_function():\n    return 1\n")
    with Index.open(tmp_path / "repo", tmp_path / "idx") as index:
        index.update(processes=1)
        assert [h.symbol.name for h in index.search("lonely function")] == ["lonely_function"]


# -- issue 14: plain-English search levers -------------------------------------------------


@pytest.fixture
def levers_repo(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    root = write_repo({
        "pkg/shapes.py": '''
            from typing import overload


            class Poly:
                """A polynomial."""

                @property
                def degree(self):
                    return self._degree

                @degree.setter
                def degree(self, value):
                    self._degree = value


            def poly(expr):
                return Poly()


            @overload
            def coerce(value: int, strict_mode: bool = False) -> int: ...
            @overload
            def coerce(value: str, strict_mode: bool = False) -> str: ...
            def coerce(value, strict_mode=False):
                return value
            ''',
        "pkg/status.py": '''
            EMAIL_RE = r"^[^@]+@[^@]+$"


            def check_email(address):
                """Reject an address that does not look like user@host."""
                if not re.match(EMAIL_RE, address):
                    raise ValueError(address)


            def body_allowed(code):
                return not (code < 200 or code in {204, 205, 304})


            def filename(path):
                return path.rsplit("/", 1)[-1]


            def random_delay(base):
                return base * random.random()


            def pre_ping(conn):
                """Check a pooled connection before it is handed out."""
                return conn.execute("SELECT 1")
            ''',
        "tests/test_pool.py": '''
            def test_pre_ping_connection_pool():
                """Test a pooled connection with a ping before it is handed out."""
                assert pool.ping_connection_pool()
            ''',
        "codec/lines.rs": '''
            impl Decoder for LinesCodec {
                fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<String>, Error> {
                    Ok(None)
                }
            }
            ''',
        "codec/bytes.rs": '''
            impl Decoder for BytesCodec {
                fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<String>, Error> {
                    Ok(Some(buf.split()))
                }
            }
            ''',
        "cli/command.py": '''
            class Command:
                def find(self, args):
                    """Walk the arguments down to the subcommand they name."""
                    return self.walk(args)

                def subcommand_named(self, args):
                    """Which subcommand the arguments name."""
                    return [c for c in self.subcommands if c.name == args[0]]
            ''',
        "web/settings.js": '''
            module.exports = {
              load: function (file) { return readConfig(file); },
            };
            ''',
        "web/app.js": '''
            /** Load the settings, then merge the settings from the environment. */
            function loadSettings(settings) {
              return merge(settings, load(settings.path), process.env.SETTINGS);
            }
            ''',
    })
    ix = Index.open(root, tmp_path / "lever-idx")
    ix.update(processes=1)
    return ix


def test_case_exact_name_beats_same_letters(levers_repo: Index) -> None:
    assert levers_repo.search("Poly", limit=3)[0].symbol.id == "pkg/shapes.py::Poly#class"
    assert levers_repo.search("poly", limit=3)[0].symbol.id == "pkg/shapes.py::poly#function"


def test_the_typed_spelling_beats_the_same_letters_joined(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`declarative_base` means the function of that name, `DeclarativeBase` the class,
    although the class is the longer, more substantial definition."""
    methods = "".join(f"    def hook_{i}(self):\n        return {i}\n\n" for i in range(10))
    root = write_repo({"orm/decl.py": f"class DeclarativeBase:\n{methods}\n"
                                      "def declarative_base(metadata=None):\n    return DeclarativeBase\n"})
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    assert ix.search("declarative_base", limit=2)[0].symbol.qualname == "declarative_base"
    assert ix.search("DeclarativeBase", limit=2)[0].symbol.qualname == "DeclarativeBase"


def test_families_fold_into_one_hit(levers_repo: Index) -> None:
    # a property's getter and setter: one hit, the other in `duplicates`
    hits = levers_repo.search("degree", limit=5)
    degree = [h for h in hits if h.symbol.name == "degree"]
    assert len(degree) == 1 and len(degree[0].duplicates) == 1
    # overload stubs and their implementation
    coerce = [h for h in levers_repo.search("coerce strict mode", limit=5) if h.symbol.name == "coerce"]
    assert len(coerce) == 1 and len(coerce[0].duplicates) == 2
    assert degree[0].fold == coerce[0].fold == "variants"  # one file's variants, not copies
    # two implementations of one trait method (same name and signature) in different files
    # are different code (issue 28: fastapi's `APIRouter.add_api_route` was hidden under
    # `FastAPI.add_api_route`): one hit each
    decode = [h for h in levers_repo.search("decode buf", limit=5) if h.symbol.name == "decode"]
    assert sorted(h.symbol.path for h in decode) == ["codec/bytes.rs", "codec/lines.rs"]
    assert not any(h.duplicates for h in decode)


def test_a_stop_word_verb_still_counts_toward_a_name(levers_repo: Index) -> None:
    # `find` is a stop word ("find the code that ..."), and also the name asked for here
    assert levers_repo.search("find the subcommand", limit=1)[0].symbol.name == "find"


def test_numbers_in_a_body_are_searchable(levers_repo: Index) -> None:
    assert levers_repo.search("responses 204 or 304", limit=1)[0].symbol.name == "body_allowed"


def test_absent_word_tries_the_repos_spelling(levers_repo: Index) -> None:
    # "randomized" is not in the repo; "random" is
    assert levers_repo.search("randomized", limit=1)[0].symbol.name == "random_delay"


def test_adjacent_words_match_a_compound_name(levers_repo: Index) -> None:
    assert levers_repo.search("file name", limit=1)[0].symbol.name == "filename"


def test_helper_constant_ranks_below_the_function_applying_it(levers_repo: Index) -> None:
    names = [h.symbol.name for h in levers_repo.search("where is the email validated", limit=5)]
    assert names.index("check_email") < names.index("EMAIL_RE")


def test_test_as_a_verb_does_not_ask_for_test_files(levers_repo: Index) -> None:
    top = levers_repo.search("test a pooled connection with a ping before handing it out", limit=1)[0]
    assert top.symbol.name == "pre_ping"
    assert levers_repo.search("ping connection pool tests", limit=1)[0].symbol.path == "tests/test_pool.py"


def test_module_exports_member_answers_to_the_module_name(levers_repo: Index) -> None:
    assert levers_repo.search("settings.load", limit=1)[0].symbol.qualname == "module.exports.load"


def test_literal_and_callee_terms() -> None:
    from symscope.core.terms import callee_terms, literal_terms

    body = b"if code in {204, 304, 1.5}: return obj.sleep(backoff_delay) + wait (x); port = 8080"
    assert literal_terms(body, 10) == ["204", "304", "8080"]
    assert callee_terms(body, 10) == ["sleep", "wait"]


def _stand_in_encoder(texts: list[str]) -> np.ndarray:  # type: ignore[type-arg]
    """A tiny deterministic 'model': words hashed into 512 dimensions, with a few synonyms
    sharing a dimension, so meaning can be tested without the real one."""
    same = {"probe": "ping", "liveness": "ping", "alive": "ping", "handle": "connection"}
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            word = same.get(word, word)
            out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 512] += 1.0
        out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
    return out


def _use_stand_in_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `semantic` extra as if installed, with `_stand_in_encoder` as its model."""
    from symscope.core import semantic

    monkeypatch.setattr(semantic, "available", lambda: True)
    monkeypatch.setattr(semantic.Encoder, "encode", classmethod(lambda cls, texts: _stand_in_encoder(texts)))


def test_hybrid_search_is_incremental_and_keeps_exact_names(
    levers_repo: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    from symscope.core import semantic

    calls: list[int] = []

    def encode(cls: object, texts: list[str]) -> np.ndarray:  # type: ignore[type-arg]
        calls.append(len(texts))
        return _stand_in_encoder(texts)

    monkeypatch.setattr(semantic.Encoder, "encode", classmethod(encode))
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))  # it knows probe means ping
    query = "liveness probe"
    before = [h.symbol.name for h in levers_repo.search(query, limit=3)]
    assert before == []  # BM25 alone: no word of the query is in the repo
    monkeypatch.setattr(semantic, "available", lambda: False)
    first = semantic.update(levers_repo)
    assert first.embedded == first.symbols > 0  # library symbols only: tests are left to BM25
    assert first.symbols == sum(1 for (i,) in levers_repo.store.query("SELECT id FROM symbols") if not i.startswith("tests/"))
    # without the extra installed, stored vectors change nothing
    assert [h.symbol.name for h in levers_repo.search(query, limit=3)] == before
    monkeypatch.setattr(semantic, "available", lambda: True)
    assert levers_repo.search(query, limit=1)[0].symbol.name == "pre_ping"
    assert levers_repo.search("Poly", limit=1)[0].symbol.id == "pkg/shapes.py::Poly#class"
    # only changed symbols are embedded again
    calls.clear()
    assert semantic.update(levers_repo).embedded == 0 and calls == []
    status = levers_repo.root / "pkg/status.py"
    status.write_text(status.read_text() + "\n\ndef brand_new():\n    return 1\n")
    levers_repo.update(processes=1)
    assert semantic.update(levers_repo).embedded == 1


def test_the_model_reads_each_part_of_a_symbol_once(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The model reads only its first word pieces: in a long symbol the signature and the
    docstring's summary come once, in the head, and the rest of the source follows without
    them (doc comments and decorators first). A short symbol is read whole."""
    from symscope.core.semantic import symbol_text

    root = write_repo({"pool.py": '''
        @traced("pool")
        def checkout(
            pool,
            timeout=30,
        ):
            """Hand out a pooled connection.

            Pings it first when the pool asks for that.
            """
            conn = pool.get(timeout)
            if pool.pre_ping:
                conn.ping()
            for attempt in range(pool.retries):
                if conn.closed:
                    pool.log.info("connection %r closed; reconnecting (attempt %d)", conn, attempt)
                    conn = pool.reconnect(conn, timeout=timeout)
            pool.checked_out.add(conn)
            pool.log.debug("checked out %r after %d attempts", conn, attempt)
            return conn


        def size(pool):
            return len(pool.idle)
        ''', "pool.js": '''
        /**
         * Hand out a pooled connection.
         *
         * Pings it first when the pool asks for that.
         */
        function checkout(pool, timeout) { let conn = pool.get(timeout).ping()
          for (let attempt = 0; attempt < pool.retries && conn.closed; attempt++) {
            pool.log.info(`connection ${conn.id} closed; reconnecting (attempt ${attempt})`)
            conn = pool.reconnect(conn, { timeout })
          }
          pool.checkedOut.add(conn)
          return conn
        }
        '''})
    with Index.open(root, tmp_path / "ix") as ix:
        ix.update(processes=1)
        texts = {}
        for path in ("pool.py", "pool.js"):
            for sym in ix.file_symbols(path):
                source = ix.indexed_bytes(path)[sym.start_byte : sym.end_byte].decode()
                texts[f"{path}::{sym.name}"] = symbol_text(sym, source)
    py, js, short = texts["pool.py::checkout"], texts["pool.js::checkout"], texts["pool.py::size"]
    assert py.startswith("checkout (function) in pool.py\n")
    assert py.count("timeout=30") == 1 and py.count("Hand out a pooled connection.") == 1
    assert py.index("Hand out") < py.index('@traced("pool")') < py.index("Pings it first") < py.index("conn = pool.")
    assert js.count("function checkout(pool, timeout)") == 1 and js.count("Hand out a pooled connection.") == 1
    assert js.index("Hand out") < js.index("Pings it first") < js.index("{ let conn = pool.get(timeout)")
    # a symbol short enough to be read whole is: its name said again weighs it more
    assert short == "size (function) in pool.py\ndef size(pool)\n\ndef size(pool):\n    return len(pool.idle)"


def test_cli_index_semantic(levers_repo: Index, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """`symscope index --semantic` says plainly when the extra is missing, embeds when it is
    there, and later plain `index` runs keep the stored vectors current."""
    from symscope.cli import main as cli
    from symscope.core import semantic

    root, idx = str(levers_repo.root), str(levers_repo.index_dir)
    levers_repo.close()
    monkeypatch.setattr(semantic, "available", lambda: False)
    assert cli.main(["index", root, "--index-dir", idx, "--semantic"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "symscope[semantic]" in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (levers_repo.index_dir / semantic.VECTORS_FILE).exists()

    _use_stand_in_model(monkeypatch)
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    assert cli.main(["index", root, "--index-dir", idx, "--semantic", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["semantic"]
    assert first["embedded"] == first["symbols"] > 0
    status = levers_repo.root / "pkg/status.py"
    status.write_text(status.read_text() + "\n\ndef brand_new():\n    return 1\n")
    assert cli.main(["index", root, "--index-dir", idx, "--json"]) == 0  # no flag: vectors exist
    assert json.loads(capsys.readouterr().out)["semantic"]["embedded"] == 1
    assert cli.main(["search", "liveness probe", "--repo", root, "--index-dir", idx, "--json",
                     "--limit", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["name"] == "pre_ping"


def _rank_afresh(ix: Index) -> None:
    """Forget what the searcher cached, so the next search reads everything with the levers now set."""
    ix.searcher.invalidate()


@pytest.fixture
def container_repo(write_repo, tmp_path: Path):  # type: ignore[no-untyped-def]
    def build(off: frozenset[str] = frozenset()) -> Index:
        root = write_repo({
            "pkg/pool.py": '''
                class ConnectionPool:
                    """Hands out pooled database connections."""

                    size = 5

                    def checkout(self):
                        """Take a connection from the pool."""
                        conn = self._queue.get()
                        conn.execute("SELECT 1")  # ping it before handing it out
                        return conn

                    def recycle_stale(self):
                        return [c for c in self._all if c.age > self.recycle_seconds]
                ''',
            "deps/fastnum/parse.c": '''
                long parse_decimal_text(const char *s) { return strtol(s, NULL, 10); }
                ''',
            "src/util.c": '''
                long parse_decimal_string(const char *s) { return strtol(s, NULL, 10); }
                ''',
        })
        ix = Index.open(root, tmp_path / ("idx-" + "-".join(sorted(off))))
        ix.update(processes=1)
        return ix

    return build


def _bag(ix: Index, qualname: str) -> list[str]:
    """The stored term bag of the symbol with this qualified name."""
    (row,), = ix.store.query("SELECT sid FROM symbols WHERE qualname = ?", (qualname,))
    return ix.store.bags([row])[row].split()


def test_a_class_is_found_by_its_members_names_not_their_bodies(
    container_repo, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    ix = container_repo()
    terms = _bag(ix, "ConnectionPool")
    assert {"checkout", "recycl", "stal", "recyclestale", "siz", "pool"} <= set(terms)
    assert "ping" not in terms and "queu" not in terms  # words of the members' bodies
    hits = [h.symbol.qualname for h in ix.search("ping", limit=5)]
    assert hits[0] == "ConnectionPool.checkout" and "ConnectionPool" not in hits
    # with the lever off, the class's bag repeats every word of its methods
    monkeypatch.setattr(levers, "OFF", frozenset({"members"}))
    whole = container_repo(frozenset({"members"}))
    terms = _bag(whole, "ConnectionPool")
    assert "ping" in terms and "queu" in terms


def test_bundled_third_party_code_ranks_below_the_repos_own(
    container_repo, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    ix = container_repo()
    names = [h.symbol.name for h in ix.search("parse decimal strtol", limit=2)]
    assert names == ["parse_decimal_string", "parse_decimal_text"]
    monkeypatch.setattr(levers, "OFF", frozenset({"vendored"}))
    _rank_afresh(ix)
    names = [h.symbol.name for h in ix.search("parse decimal strtol", limit=2)]
    assert names == ["parse_decimal_text", "parse_decimal_string"]


def test_code_under_internal_or_a_private_module_ranks_below_the_public_api(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """Go's `internal/` cannot be imported from outside, and a Java `internal` package or a
    Python `_impl` module is private by convention: a public twin is the one to show."""
    root = write_repo({
        "internal/frame/encode.go": """
            package frame

            // EncodeFrame writes the frame header and then the frame payload.
            func EncodeFrame(w io.Writer, payload []byte) error {
                return writeAll(w, header(len(payload)), payload)
            }
            """,
        "wire/encode.go": """
            package wire

            // EncodeFrame writes a frame: its header and payload.
            func EncodeFrame(w io.Writer, body []byte) error {
                return frame.EncodeFrame(w, body)
            }
            """,
        "pkg/_impl/codec.py": '''
            def decode_frame(data):
                """Split the frame header from the frame payload."""
                return data[:4], data[4:]
            ''',
        "pkg/codec.py": '''
            def decode_frame(data):
                """Split a frame into header and payload."""
                return _impl.decode_frame(data)
            ''',
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)

    def first(query: str) -> str:
        return ix.search(query, limit=1)[0].symbol.path

    assert first("encode frame header payload") == "wire/encode.go"
    assert first("decode frame header payload") == "pkg/codec.py"
    monkeypatch.setattr(levers, "OFF", frozenset({"privatepaths"}))
    _rank_afresh(ix)
    assert first("encode frame header payload") == "internal/frame/encode.go"
    assert first("decode frame header payload") == "pkg/_impl/codec.py"


def test_a_class_moves_below_new_hits_when_its_member_is_listed(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    root = write_repo({
        "pkg/router.py": '''
            class Router:
                """Routes requests; include_router mounts another router under a prefix."""

                def include_router(self, other, prefix):
                    """Mount another router's routes under a prefix."""
                    for route in other.routes:
                        self.add(prefix + route.path, route)
            ''',
        "pkg/mount.py": '''
            def mount_prefix(app, prefix):
                """Mount an app under a prefix."""
                return app.with_prefix(prefix)


            def prefix_routes(routes, prefix):
                return [prefix + r for r in routes]


            def include_static(app, folder):
                return app.serve(folder)


            def router_for(path):
                return ROUTERS[path]
            ''',
    })

    def names() -> list[str]:
        ix = Index.open(root, tmp_path / "idx")
        ix.update(processes=1)
        _rank_afresh(ix)
        return [h.symbol.qualname for h in ix.search("include_router", limit=5)]

    monkeypatch.setattr(levers, "OFF", frozenset({"nesting"}))
    plain = names()
    assert plain[:2] == ["Router.include_router", "Router"]
    monkeypatch.setattr(levers, "OFF", frozenset())
    nested = names()
    assert nested[0] == "Router.include_router"
    assert nested.index("Router") == 3 and set(nested) == set(plain), (plain, nested)


#: A package that re-exports `gcd` from `pkg.tools`, and a method of the same name elsewhere.
_GCD_PACKAGE = {
    "pkg/__init__.py": "from pkg.tools import gcd\n",
    "pkg/monomials.py": '''
        class Monomial:
            def gcd(self, other):
                """Greatest common divisor: the greatest common divisor of two monomials."""
                return Monomial(min(a, b) for a, b in zip(self, other))
        ''',
}


def test_a_definition_the_package_re_exports_ranks_above_a_same_named_method(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    root = write_repo({
        **_GCD_PACKAGE,
        "pkg/tools.py": '''
            def gcd(f, g):
                """Compute the greatest common divisor of two polynomials in any domain."""
                return f.gcd(g)
            ''',
    })

    def top(off: frozenset[str]) -> str:
        monkeypatch.setattr(levers, "OFF", off)
        ix = Index.open(root, tmp_path / "idx")
        ix.update(processes=1)
        _rank_afresh(ix)
        return ix.search("greatest common divisor", limit=1)[0].symbol.qualname

    assert Index.open(root, tmp_path / "idx").store.exported_names() == set()  # not indexed yet
    assert top(frozenset({"public"})) == "Monomial.gcd"
    assert top(frozenset()) == "gcd"


def test_the_public_definition_comes_before_methods_sharing_its_name(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """The methods' docstrings say the query's words; the exported function that
    dispatches to them does not, and still comes first (lever apifirst)."""
    root = write_repo({
        **_GCD_PACKAGE,
        "pkg/rings.py": '''
            class PolyElement:
                def gcd(self, other):
                    """Greatest common divisor of two polynomials in a ring."""
                    return self.ring.dmp_gcd(self, other)
            ''',
        "pkg/tools.py": '''
            def gcd(f, g, *gens, **args):
                """Compute GCD of ``f`` and ``g``, dispatching on their domain."""
                options = build_options(gens, args)
                return domain_of(f, g, options).gcd(f, g)

            def lcm(f, g):
                """Compute LCM of ``f`` and ``g``."""
                return f * g // gcd(f, g)
            ''',
    })

    def hits(off: frozenset[str]) -> list[str]:
        monkeypatch.setattr(levers, "OFF", off)
        ix = Index.open(root, tmp_path / "idx")
        ix.update(processes=1)
        _rank_afresh(ix)
        return [h.symbol.qualname for h in ix.search("greatest common divisor of two polynomials", limit=3)]

    plain = hits(frozenset({"apifirst"}))
    assert plain[:2] == ["PolyElement.gcd", "Monomial.gcd"], plain
    assert hits(frozenset()) == ["gcd", *plain[:2]]
    # nothing is lifted for a name no entry file re-exports
    assert hits(frozenset({"public"}))[:2] == plain[:2]


def test_a_name_typed_in_a_sentence_is_the_surest_clue(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """`mul_symbol` in the question weighs double: the method that checks it beats a
    `validate` whose name the sentence also spells (lever typednames)."""
    others = "".join(f"def symbol_{i}(symbol, mul):\n    return symbol.name + mul.args[{i}]\n\n" for i in range(8))
    root = write_repo({
        "pkg/printer.py": '''
            class LatexPrinter:
                def __init__(self, settings=None):
                    mul_symbol = settings.get("mul_symbol")
                    if mul_symbol not in ("dot", "times", None):
                        raise ValueError(mul_symbol)
                    self.mul_symbol_latex = mul_symbol

            def validate(printer):
                """Check what it was given."""
                return printer.validated_settings()
            ''',
        "pkg/symbols.py": others,
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    query = "where are the LaTeX printer settings such as mul_symbol validated"
    # (filecontext off: in a repo of two files, the file that holds both is the whole context)
    monkeypatch.setattr(levers, "OFF", frozenset({"filecontext"}))
    assert [h.symbol.qualname for h in ix.search(query, limit=2)] == ["LatexPrinter.__init__", "validate"]
    monkeypatch.setattr(levers, "OFF", frozenset({"typednames", "filecontext"}))
    assert [h.symbol.qualname for h in ix.search(query, limit=2)] == ["validate", "LatexPrinter.__init__"]


def test_hybrid_fusion_applies_the_priors(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    from symscope.core import semantic

    _use_stand_in_model(monkeypatch)
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    root = write_repo({
        "pkg/__init__.py": "from pkg.public import check_ping\n",
        # the same words (so the same stand-in vector), but private and first in index order
        "pkg/inner.py": "def _check_ping(conn):\n    return conn.ping()\n",
        "pkg/public.py": "def check_ping(conn):\n    return conn.ping()\n",
        "pkg/other.py": "def rarely_ping_anything(a, b, c, d, e, f, g):\n    return a + b + c + d + e + f + g\n",
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    semantic.update(ix)
    # no word of the query is in the repo: the embeddings alone find both, the priors order them
    assert [h.symbol.name for h in ix.search("liveness probe", limit=3)] == [
        "check_ping", "_check_ping", "rarely_ping_anything"]


def test_fusion_protects_names_the_user_spelled_not_ones_the_thesaurus_did(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """`remove_expire` is spelled only with the thesaurus's `expire` (for "time to live"):
    a guess, which must not override the embeddings the way a typed name does."""
    from symscope.core import semantic

    _use_stand_in_model(monkeypatch)
    helpers = "".join(f"def helper_{i}(value):\n    return value * {i} + len(str(value))\n\n" for i in range(12))
    root = write_repo({
        "src/helpers.py": helpers,
        "src/expire.py": '''
            def remove_expire(db, key):
                """Remove the time to live of one key: it never goes stale."""
                return db.expires.pop(key, None)

            def active_cycle(db):
                """Background job: sample keys with a time to live and remove the stale ones."""
                for key in db.sample(20):
                    if db.is_stale(key):
                        db.delete(key)
            ''',
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    semantic.update(ix)
    query = "background job that samples keys with a time to live and removes the stale ones"
    assert ix.search(query, limit=1)[0].symbol.name == "active_cycle"
    # typed, the same name is protected: the user asked for it
    assert ix.search("remove expire entry for a key", limit=1)[0].symbol.name == "remove_expire"


def test_fusion_keeps_bm25s_first_two_in_the_top_five(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """Six symbols the embeddings like better (`ping` means the query's
    liveness and probe to the stand-in model) would fill the top five; BM25's two best, which
    hold the query's own words, keep a place there, in BM25's order."""
    from symscope.core import semantic
    from symscope.core.search import fusion

    _use_stand_in_model(monkeypatch)
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    pings = "".join(f"def ping_connection_{i}(conn):\n    return conn.ping({i})\n\n" for i in range(6))
    # many other words: the stand-in's vector of each is far from the query's
    chores = "".join(f"    ledger.record_{w}(batch, quota, {i})\n" for i, w in enumerate(
        ["audit", "billing", "tariff", "invoice", "margin", "refund", "rebate", "voucher"]))
    root = write_repo({
        "pkg/pings.py": pings,
        "pkg/pool.py": f"def drain_pooled_lease(ledger, batch, quota):\n{chores}\n\n"
                       f"def renew_pooled_lease(ledger, batch, quota):\n{chores}    return quota\n",
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    semantic.update(ix)
    query = "liveness probe of a pooled lease"
    names = [h.symbol.name for h in ix.search(query, limit=5)]
    assert names.index("drain_pooled_lease") < names.index("renew_pooled_lease")
    assert sum(n.startswith("ping_connection") for n in names) == 3
    monkeypatch.setattr(fusion, "LEXICAL_KEEP", 0)
    names = [h.symbol.name for h in ix.search(query, limit=5)]
    assert "renew_pooled_lease" not in names


def test_fusion_ranks_a_constant_below_the_function_applying_it(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """The helpers lever holds for the fused score too: the stand-in model finds the
    constant closer to "liveness probe" (`ping`), but the function that pings is the answer."""
    from symscope.core import semantic

    _use_stand_in_model(monkeypatch)
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    others = "".join(f'def helper_{i}(value):\n    """Keeps nothing alive."""\n    return value * {i}\n\n'
                     for i in range(6))
    root = write_repo({"pkg/other.py": others, "pkg/ping.py": '''
        PING_EVERY = 30


        def keep_alive(conn):
            """Ping the peer now and then."""
            conn.ping()
        '''})
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    semantic.update(ix)
    assert [h.symbol.name for h in ix.search("liveness probe", limit=2)] == ["keep_alive", "PING_EVERY"]
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus", "helpers"}))
    assert [h.symbol.name for h in ix.search("liveness probe", limit=2)] == ["PING_EVERY", "keep_alive"]


def test_a_copy_in_another_file_folds_but_a_sibling_variant_does_not(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    """The CLI's copy of the server's slot hash is one hit with `also`; the same file's
    look-alike that hashes a different span, with nearly the same words, stays a hit of its
    own (lever copies)."""
    body = '''
        /* Keys sharing a tag in braces land in one slot, so multi-key commands can
         * reach every key on the same node of the cluster. */
        int s, e;
        for (s = 0; s < keylen; s++)
            if (key[s] == '{') break;
        /* no opening brace: hash the whole key */
        if (s == keylen) return crc16(key, keylen) & 0x3FFF;
        for (e = s + 1; e < keylen; e++)
            if (key[e] == '}') break;
        /* nothing between the braces: hash the whole key */
        if (e == keylen || e == s + 1) return crc16(key, keylen) & 0x3FFF;
        return crc16(key + s + 1, e - s - 1) & MASK;
    }
    '''
    root = write_repo({
        "src/cluster.c": "unsigned int keyHashSlot(char *key, int keylen) {" + body
                         + "\nunsigned int keyHashSlotLoose(char *key, int keylen) {"
                         + body.replace("key + s + 1, e - s - 1", "key + s, e - s + 1"),
        "src/cli.c": "static unsigned int cliKeyHashSlot(char *key, int keylen) {" + body.replace("MASK", "0x3FFF"),
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    hits = ix.search("hash slot of a key between braces", limit=5)
    names = [h.symbol.name for h in hits]
    assert "keyHashSlotLoose" in names and len(names) == 2
    folded = next(h for h in hits if h.symbol.name in ("keyHashSlot", "cliKeyHashSlot"))
    assert {folded.symbol.name, *(ix.symbol(d).name for d in folded.duplicates)} == {"keyHashSlot", "cliKeyHashSlot"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(levers, "OFF", frozenset({"copies"}))
        assert len(ix.search("hash slot of a key between braces", limit=5)) == 3


def test_an_exact_name_means_the_main_definition_not_a_shim(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """Three structs named `Mutex`, as in tokio: the documented public one, a crate-private
    shim over std's, and a test mock. Typed exactly, the name means the public one; the
    others follow it (lever substance). BM25 alone would pick the shortest."""
    docs = "".join(f"/// An asynchronous mutex: note {i} on fairness, poisoning and guards.\n" for i in range(12))
    root = write_repo({
        "src/sync/mutex.rs": docs + "pub struct Mutex<T: ?Sized> {\n    s: Semaphore,\n    c: UnsafeCell<T>,\n}\n",
        "src/loom/std/mutex.rs": "/// std's mutex without poisoning.\npub(crate) struct Mutex<T: ?Sized>(sync::Mutex<T>);\n",
        "src/fs/mocks.rs": "pub(super) struct Mutex<T> {\n    inner: T,\n}\n",
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    hits = ix.search("Mutex", limit=3)
    assert hits[0].symbol.path == "src/sync/mutex.rs"
    # three different bodies: not copies, so each is a hit of its own below the main one
    # (issue 28; they used to fold under it as same-named definitions)
    assert {h.symbol.path for h in hits[1:]} == {"src/loom/std/mutex.rs", "src/fs/mocks.rs"}
    assert not any(h.duplicates for h in hits)
    monkeypatch.setattr(levers, "OFF", frozenset({"substance"}))
    assert ix.search("Mutex", limit=3)[0].symbol.path != "src/sync/mutex.rs"


def test_an_exact_name_means_the_implementation_not_its_type_declaration(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    members = "".join(f"  /** Option {i}. */\n  option{i}: string;\n" for i in range(8))
    root = write_repo({
        "index.d.ts": f"export class Widget {{\n{members}  render(): string;\n}}\n",
        "lib/widget.js": "class Widget {\n  render() {\n    return this.option0 + this.option1;\n  }\n}\n"
                         "module.exports = Widget;\n",
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    hit = ix.search("Widget", limit=3)[0]
    assert hit.symbol.path == "lib/widget.js"
    assert [ix.symbol(d).path for d in hit.duplicates] == ["index.d.ts"]


def test_the_plural_of_a_two_letter_word_also_means_the_word(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    root = write_repo({
        "pkg/records.py": '''
            def parse_ids(text):
                return text.split(",")


            def validate_id(value):
                return value.isdigit()


            def load_records(path):
                return open(path).read()


            def save_records(path, records):
                return open(path, "w").write(records)
            ''',
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    # `ids` stays whole under the stemmer (its stem would be two letters), yet it means `id`
    assert ix.search("where are event ids validated", limit=1)[0].symbol.name == "validate_id"


def test_a_class_name_finds_the_class_before_its_constructor(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    root = write_repo({
        "src/main/java/com/example/JsonReader.java": '''
            package com.example;

            /** Reads a JSON document token by token. */
            public class JsonReader {
                private final Reader in;

                /** Creates a reader over {@code in}. */
                public JsonReader(Reader in) {
                    this.in = in;
                }

                public JsonToken peek() throws IOException {
                    return doPeek(in.read());
                }

                public String nextString() throws IOException {
                    return readQuoted(in);
                }
            }
            ''',
        "binding/validator.go": '''
            package binding

            // Engine returns the validation engine behind this validator.
            func (v *defaultValidator) Engine() any {
                return v.validate
            }
            ''',
        "engine.go": '''
            package gin

            // Engine is the framework's instance: the muxer, middleware and settings.
            type Engine struct {
                RouterGroup
                trees methodTrees
                pool  sync.Pool
                maxParams uint16
                maxSections uint16
                trustedProxies []string
                trustedCIDRs []*net.IPNet
            }
            ''',
        "src/main/java/com/example/JsonReaderFactory.java": '''
            package com.example;

            public class JsonReaderFactory {
                public JsonReaderFactory() {}

                public JsonReader create(Reader in) { return new JsonReader(in); }
            }
            ''',
    })

    def names(query: str) -> list[str]:
        ix = Index.open(root, tmp_path / "idx")
        ix.update(processes=1)
        _rank_afresh(ix)
        return [h.symbol.qualname for h in ix.search(query, limit=4)]

    monkeypatch.setattr(levers, "OFF", frozenset({"toplevel"}))
    assert names("JsonReader")[0] == "JsonReader.JsonReader"  # the short constructor wins on score
    monkeypatch.setattr(levers, "OFF", frozenset())
    assert names("JsonReader")[:2] == ["JsonReader", "JsonReader.JsonReader"]
    # a struct before the methods that happen to share its name; a qualified name is exact
    assert names("Engine")[:2] == ["Engine", "defaultValidator.Engine"]
    assert names("defaultValidator.Engine")[0] == "defaultValidator.Engine"
    # a constructor's name is its class's: the other class answers to its own name first
    found = names("JsonReaderFactory")
    assert found.index("JsonReaderFactory") < found.index("JsonReaderFactory.JsonReaderFactory")


def test_a_file_about_the_sentence_lifts_its_symbols(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """Two functions say the same; the one whose file is about the sentence's subject wins
    (lever filecontext). Without it, the tie goes to index order: `cache.py` first."""
    doc = '"""Remove the key when its time to live has passed."""'
    root = write_repo({
        "cache.py": f"def prune_one(key):\n    {doc}\n\n\ndef render_page(html):\n"
                    '    """Render an HTML page."""\n',
        "store.py": f"def sweep_one(key):\n    {doc}\n\n\ndef seconds_left(key):\n"
                     '    """Seconds of time to live the key has left."""\n\n\n'
                     'def set_deadline(key, when):\n    """When the key passes its time to live."""\n',
    })
    ix = Index.open(root, tmp_path / "ctx-idx")
    ix.update(processes=1)
    query = "remove a key when its time to live has passed"
    assert ix.search(query, limit=1)[0].symbol.name == "sweep_one"
    monkeypatch.setattr(levers, "OFF", frozenset({"filecontext"}))
    assert ix.search(query, limit=1)[0].symbol.name == "prune_one"
    ix.close()


def test_a_name_is_spelled_by_the_words_typed_not_by_a_shared_stem() -> None:
    """The light stemmer makes `outer` `out`: "multiply out products" must not count as
    typing `OuterProduct` (which the hybrid would then protect like a name asked for)."""
    from symscope.core.search.scoring import spells, typed_words

    assert not spells("OuterProduct", typed_words("multiply out products and powers"))
    assert spells("sendFile", typed_words("send a file to the client"))
    assert spells("parse_config", typed_words("where are configs parsed"))
    assert spells("load_cfg", typed_words("load the config"))
    assert spells("LatexPrinter", typed_words("the LaTeX printer settings"))


def test_fusion_leans_to_the_definition_that_does_the_work(
    write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """A sentence about what code does: the model's vector of a short helper is all about
    the query's words, that of the long function doing the work is spread over everything
    it does. The heft lever lets the doer through; without it the helper comes before it.
    (`audit_eviction` holds every word of the query: BM25's clear winner keeps first place.)"""
    from symscope.core import semantic

    _use_stand_in_model(monkeypatch)
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    steps = "".join(f"    for entry in cache.stale_entries(tier={i}):\n        cache.evict(entry)\n"
                    for i in range(20))
    fillers = "".join(f'def helper_{i}(value):\n    """Count a cache hit."""\n    return value * {i}\n\n' for i in range(12))
    root = write_repo({
        "pkg/helpers.py": fillers,
        "pkg/evict.py": f'''
def make_room(cache, ledger, quota):
    """Evict stale entries from the cache until its memory fits the quota."""
{steps}    while cache.memory() > quota:
        cache.evict(cache.stalest())
    return quota


def stale_bytes(cache):
    """Memory of stale entries."""
    return cache.memory()


def audit_eviction(ledger, cache, quota):
    """Audit line for stale cache entries evicted when memory exceeds the quota: billing,
    tariff, invoice, margin, refund, rebate, voucher, credit and debit totals."""
    return ledger.write(cache, quota)
''',
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    semantic.update(ix)
    query = "evict stale cache entries when memory exceeds the quota"
    names = [h.symbol.name for h in ix.search(query, limit=3)]
    assert names[0] == "audit_eviction"  # BM25's clear winner keeps first place
    assert names.index("make_room") < names.index("stale_bytes")
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus", "heft"}))
    names = [h.symbol.name for h in ix.search(query, limit=3)]
    assert names.index("make_room") > names.index("stale_bytes")


def test_a_stem_shared_with_a_query_word_does_not_name_a_symbol(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    """The light stemmer makes `outer` `out`, so both queries below have the same BM25
    terms; but only "outer products" names `outer_product` (its name's weight grows by
    half), "out products" does not."""
    root = write_repo({
        "pkg/algebra.py": '''
            def outer_product(a, b):
                """Outer product of two vectors, multiplied entry by entry."""
                return [[x * y for y in b] for x in a]


            def distribute(expr):
                """Multiply out a product of sums."""
                return expr.expand()
            ''',
        "pkg/helpers.py": "".join(f"def helper_{i}(value):\n    return value * {i}\n\n" for i in range(12)),
    })
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)

    def score(query: str) -> float:
        return next(h.score for h in ix.search(query, limit=3) if h.symbol.name == "outer_product")

    assert query_terms("multiply outer products") == query_terms("multiply out products")
    assert score("multiply out products") < 0.8 * score("multiply outer products")


_SHAPES = {
    # An options type's doc comments say every word of the sentence.
    "typescript type": ("src/retry.ts", '''
        /** How requests are retried: the delay between attempts, its random jitter and its upper limit. */
        export type RetryOptions = {
            /** Upper limit of the delay between attempts, in milliseconds. */
            backoffLimit: number;
            /** Random jitter added to each delay between attempts. */
            jitter: boolean;
            /** How many attempts are made. */
            limit: number;
        };

        /** The wait before the next attempt. */
        export function nextDelay(attempt: number, options: RetryOptions): number {
            const base = 0.3 * (2 ** (attempt - 1)) * 1000;
            const jittered = options.jitter ? base * Math.random() : base;
            return Math.min(options.backoffLimit, jittered);
        }
        ''', "src/helpers.ts", "".join(
            f"export function helper{i}(value: number): number {{\n    return value * {i};\n}}\n\n"
            for i in range(8)),
        "RetryOptions", "nextDelay", "retry options"),
    # A struct declares fields, whose comments say the words; its methods are hits of their own.
    "go struct": ("retry.go", '''
        package retry

        // Policy says how requests are retried.
        type Policy struct {
            // Upper limit of the delay between attempts.
            MaxDelay time.Duration
            // Random jitter added to each delay between attempts.
            Jitter bool
            // How many attempts are made.
            Attempts int
        }

        // NextDelay is the random wait before the next attempt.
        func NextDelay(attempt int, p Policy) time.Duration {
            base := time.Duration(300*(1<<attempt)) * time.Millisecond
            if p.Jitter {
                base = time.Duration(rand.Int63n(int64(base)))
            }
            return min(base, p.MaxDelay)
        }
        ''', "helpers.go", "package retry\n\n" + "".join(
            f"func helper{i}(value int) int {{\n    return value * {i}\n}}\n\n" for i in range(8)),
        "Policy", "NextDelay", "retry policy"),
}


@pytest.mark.parametrize("case", sorted(_SHAPES))
def test_a_sentence_finds_the_code_that_does_it_before_the_shape_describing_it(
    case: str, write_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    """A type or struct whose comments say every word of "random delay between attempts up to
    a limit" only declares what the code is given; the function computing that delay is what
    the sentence describes (lever shapes). A keyword query for the shape still finds it first."""
    path, source, helpers_path, helpers, shape, doer, keyword = _SHAPES[case]
    root = write_repo({path: source, helpers_path: helpers})
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    query = "random delay between attempts up to a limit"
    assert [h.symbol.name for h in ix.search(query, limit=2)] == [doer, shape]
    assert ix.search(keyword, limit=1)[0].symbol.name == shape
    monkeypatch.setattr(levers, "OFF", frozenset({"shapes"}))
    assert [h.symbol.name for h in ix.search(query, limit=2)] == [shape, doer]
