"""The everyday-words-to-code-words thesaurus, and how search uses it."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from symscope.core import levers
from symscope.core.index import Index
from symscope.core.thesaurus import related_terms


def test_thesaurus_file_is_well_formed() -> None:
    raw = json.loads(resources.files("symscope.core").joinpath("thesaurus.json").read_text("utf-8"))
    word = re.compile(r"^[a-z0-9]+$")
    assert len(raw["groups"]) >= 200 and len(raw["phrases"]) >= 100
    for group in raw["groups"]:
        assert 2 <= len(group) <= 8 and len(set(group)) == len(group), group
        assert all(word.match(w) for w in group), group
    for phrase, words in raw["phrases"].items():
        assert 2 <= len(phrase.split()) <= 4 and all(word.match(w) for w in phrase.split()), phrase
        assert words and all(word.match(w) for w in words), phrase


def test_related_terms_translate_words_and_phrases() -> None:
    assert {"xhr", "xmlhttprequest"} <= set(related_terms("is this an ajax call"))
    assert "ttl" in related_terms("remove keys whose time to live passed")
    assert "retry" in related_terms("wait and try again")
    # a short code word is matched as written: `case` is not compare-and-swap's `cas`
    assert not {"atomic", "compareandswap"} & set(related_terms("upper case"))
    # only the words asked for (phrases always count), and never the query's own terms
    assert related_terms("ajax", words=[]) == []
    assert "ajax" not in related_terms("ajax xhr")


def test_a_one_word_query_with_nothing_to_translate_builds_no_tables() -> None:
    """A keyword search in a fresh process (`symscope search middleware`) pays nothing here."""
    from symscope.core import thesaurus

    thesaurus._tables.cache_clear()
    thesaurus._phrases.cache_clear()
    assert related_terms("ajax", words=[]) == []
    assert thesaurus._tables.cache_info().currsize == thesaurus._phrases.cache_info().currsize == 0
    # two words may make a phrase: only the phrase table (5 ms, not the words' 10 ms)
    assert "ttl" in related_terms("time to live", words=[])
    assert (thesaurus._tables.cache_info().currsize, thesaurus._phrases.cache_info().currsize) == (0, 1)
    assert "xhr" in related_terms("ajax", words=["ajax"])  # a word to translate builds the rest
    assert thesaurus._tables.cache_info().currsize == 1


@pytest.fixture
def web_repo(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    root = write_repo({
        "lib/request.js": '''
            /** Whether the request came from an XMLHttpRequest. */
            req.xhr = function xhr() {
              var val = this.get('X-Requested-With') || '';
              return val.toLowerCase() === 'xmlhttprequest';
            };

            /** Whether the client accepts the given type. */
            req.accepts = function accepts(type) {
              return this.negotiate(type);
            };

            /** The user agent of the client. */
            req.client = function client() {
              return this.get('User-Agent');
            };
            ''',
        "lib/router.js": '''
            /** Bind a handler to a route. */
            function bind(route, handler) {
              route.handlers.push(handler);
            }

            /** Listen on a port. */
            function listen(port) {
              return server.listen(port);
            }
            ''',
    })
    index = Index.open(root, tmp_path / "idx")
    index.update(processes=1)
    return index


def test_a_sentence_finds_the_code_word(web_repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "detect ajax calls made by the browser"
    assert web_repo.search(query, limit=1)[0].symbol.name == "xhr"
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    assert "xhr" not in [h.symbol.name for h in web_repo.search(query, limit=1)]


def test_a_keyword_query_is_not_translated(web_repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bind` is in the repo: a short query means it, not its relatives (`listen`)."""
    with_it = [h.symbol.id for h in web_repo.search("bind route", limit=5)]
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    assert [h.symbol.id for h in web_repo.search("bind route", limit=5)] == with_it


def test_everyday_verbs_find_the_code_verb(write_repo, tmp_path: Path,  # type: ignore[no-untyped-def]
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """"add" is what a reader says for `append`, "stop" for `shutdown`."""
    assert "append" in related_terms("add a header")
    assert "shutdown" in related_terms("stop the server")
    root = write_repo({
        "lib/response.js": '''
            /** Append to a response field, keeping what it held. */
            res.append = function append(field, val) {
              var prev = this.get(field);
              return this.set(field, prev ? [prev, val] : val);
            };

            /** Set a response field to one value, replacing the old. */
            res.set = function set(field, val) {
              this.setHeader(field, String(val));
              return this;
            };

            /** A header of the request, by name, with an added default value. */
            req.header = function header(name, value) {
              return this.headers[name.toLowerCase()] || value;
            };
            ''',
    })
    index = Index.open(root, tmp_path / "idx")
    index.update(processes=1)
    query = "add another value to a field of the response"
    assert index.search(query, limit=1)[0].symbol.name == "append"
    monkeypatch.setattr(levers, "OFF", frozenset({"thesaurus"}))
    assert index.search(query, limit=1)[0].symbol.name != "append"
