"""`core/search/abbrev.py`: abbreviations ranked after exact and prefix matches, on real parsed names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core import api
from symscope.core.index import Index
from symscope.core.models import SearchHit, Symbol
from symscope.core.search.abbrev import (
    ABBREVIATION,
    EXACT,
    PREFIX,
    NameIndex,
    abbreviation_score,
    compact,
    rank_names,
    words,
)
from symscope.core.search.abbreviations import FEW_HITS

GIN_MINI = Path(__file__).resolve().parent / "tui" / "fixtures" / "gin_mini"


@pytest.fixture(scope="module")
def gin_symbols(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Symbol]]:
    """Every symbol of a small Go router, parsed and indexed for real."""
    ix = Index.open(GIN_MINI, index_dir=tmp_path_factory.mktemp("idx"))
    ix.update(processes=1)
    yield ix.all_symbols()
    ix.close()


def _ranked(query: str, symbols: list[Symbol], limit: int | None = None) -> list[tuple[str, int]]:
    matches = rank_names(query, [(s.name, s.qualname) for s in symbols], limit)
    return [(symbols[m.index].qualname, m.tier) for m in matches]


def test_words_split_camel_snake_acronyms_and_dots() -> None:
    assert words("RouterGroup.Use") == ("router", "group", "use")
    assert words("handleHTTPRequest") == ("handle", "http", "request")
    assert words("BindJSON") == ("bind", "json")
    assert words("get_value_or_default") == ("get", "value", "or", "default")
    assert words("parseHTTP2Frame") == ("parse", "http", "2", "frame")
    assert words("") == ()


def test_abbreviations_match_prefixes_of_words_in_order() -> None:
    assert abbreviation_score("rgu", "RouterGroup.Use") is not None
    assert abbreviation_score("bjson", "BindJSON") is not None
    assert abbreviation_score("shttp", "ServeHTTP") is not None
    assert abbreviation_score("RGU", "router_group.use") is not None  # case and punctuation ignored
    # Out of order, not at word starts, or letters left over: no match.
    assert abbreviation_score("ugr", "RouterGroup.Use") is None
    assert abbreviation_score("oute", "RouterGroup.Use") is None
    assert abbreviation_score("rgux", "RouterGroup.Use") is None
    assert abbreviation_score("", "RouterGroup.Use") is None


def test_skipping_words_costs_and_covering_all_words_wins() -> None:
    whole = abbreviation_score("bjson", "BindJSON")
    leading = abbreviation_score("bjson", "ShouldBindJSON")
    inside = abbreviation_score("ehttp", "Engine.ServeHTTP")
    left_over = abbreviation_score("esh", "Engine.SetHTMLTemplate")
    exact_words = abbreviation_score("esh", "Engine.ServeHTTP")
    assert None not in (whole, leading, inside, left_over, exact_words)
    assert whole > leading  # type: ignore[operator]
    assert exact_words > left_over  # type: ignore[operator]
    assert inside is not None and inside < exact_words  # type: ignore[operator]


def test_the_issue_examples_on_a_parsed_go_router(gin_symbols: list[Symbol]) -> None:
    assert _ranked("bjson", gin_symbols)[0] == ("Context.BindJSON", ABBREVIATION)
    assert _ranked("rgu", gin_symbols) == [("RouterGroup.Use", ABBREVIATION)]  # not Engine.Use
    assert _ranked("esh", gin_symbols)[:2] == [("Engine.ServeHTTP", ABBREVIATION),
                                               ("Engine.SetHTMLTemplate", ABBREVIATION)]


def test_exact_then_prefix_then_abbreviation(gin_symbols: list[Symbol]) -> None:
    ranked = _ranked("bindjson", gin_symbols)
    assert ranked[0] == ("Context.BindJSON", EXACT)
    assert ("Context.ShouldBindJSON", ABBREVIATION) in ranked
    # `json`: the constant and the method named JSON exactly, then names starting with it
    # (`jsonBinding`), then abbreviations; tiers never interleave.
    ranked = _ranked("json", gin_symbols)
    tiers = [tier for _, tier in ranked]
    assert tiers == sorted(tiers)
    assert {name for name, tier in ranked if tier == EXACT} == {"JSON", "Context.JSON"}
    assert ("jsonBinding", PREFIX) in ranked
    # A qualified name counts as a whole: `routergroupu` is a prefix of RouterGroup.Use.
    assert _ranked("routergroupu", gin_symbols) == [("RouterGroup.Use", PREFIX)]
    assert len(_ranked("e", gin_symbols, limit=3)) == 3


def test_no_match_and_empty_queries(gin_symbols: list[Symbol]) -> None:
    assert _ranked("zzq", gin_symbols) == []
    assert _ranked("  ", gin_symbols) == []
    assert rank_names("rgu", []) == []


def test_a_symbols_own_name_beats_a_match_through_its_owner(gin_symbols: list[Symbol]) -> None:
    ranked = _ranked("routerg", gin_symbols)
    assert ranked[0] == ("RouterGroup", PREFIX)  # before RouterGroup.Use, .GET, ...
    assert {name for name, _ in ranked[1:]} >= {"RouterGroup.Use", "RouterGroup.GET"}
    ranked = _ranked("context", gin_symbols)
    assert ranked[0] == ("Context", EXACT)


def test_the_fast_scan_finds_exactly_what_scoring_each_name_finds(gin_symbols: list[Symbol]) -> None:
    """The one-regex scan of `NameIndex` against the plain definition, name by name."""
    pairs = [(s.name, s.qualname) for s in gin_symbols]
    prepared = NameIndex(pairs)
    assert len(prepared) == len(pairs)
    for query in ("bjson", "rgu", "esh", "json", "use", "e", "zzq", "routergroupu", "ctx", "hh", "cabw"):
        typed = compact(query)
        expected = set()
        for i, (name, qualname) in enumerate(pairs):
            keys = (compact(name), compact(qualname))
            if typed in keys:
                expected.add((i, EXACT))
            elif any(k.startswith(typed) for k in keys):
                expected.add((i, PREFIX))
            elif abbreviation_score(typed, name) is not None or abbreviation_score(typed, qualname) is not None:
                expected.add((i, ABBREVIATION))
        assert {(m.index, m.tier) for m in prepared.rank(query)} == expected, query


# -- the engine's search: abbreviations for every face (core/search/abbreviations.py) ---------


@pytest.fixture(scope="module")
def gin_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    ix = Index.open(GIN_MINI, index_dir=tmp_path_factory.mktemp("idx"))
    ix.update(processes=1)
    yield ix
    ix.close()


def _qualnames(hits: list[SearchHit]) -> list[str]:
    return [h.symbol.qualname for h in hits]


@pytest.mark.parametrize(("query", "expected"), [
    ("bjson", "Context.BindJSON"), ("esh", "Engine.ServeHTTP"), ("rgu", "RouterGroup.Use")])
def test_the_engines_search_finds_abbreviated_names(gin_index: Index, query: str, expected: str) -> None:
    """Issue 28.4: `Index.search` itself (every face's search) answers an abbreviation."""
    hits = gin_index.search(query, limit=10)
    assert hits and hits[0].symbol.qualname == expected, _qualnames(hits)
    assert all(h.abbreviated and h.score == 0.0 for h in hits)  # the ranker found nothing
    assert [h.symbol.id for h in api.Workspace(gin_index).search(query, 10)] == [h.symbol.id for h in hits]


def test_abbreviations_only_follow_a_one_word_query_that_found_little(gin_index: Index) -> None:
    # ranked hits first, then names, each listed once
    hits = gin_index.search("bjson", limit=10)
    assert _qualnames(hits)[:2] == ["Context.BindJSON", "Context.ShouldBindJSON"]
    assert len({h.symbol.id for h in hits}) == len(hits)
    # several words are words: nothing is added
    assert gin_index.search("rgu bjson", limit=10) == []
    # a query the ranker answers with FEW_HITS hits or more keeps exactly the ranker's hits
    ranked = gin_index.search("context", limit=10)
    assert len(ranked) >= FEW_HITS and not any(h.abbreviated for h in ranked)
    # the limit holds
    assert len(gin_index.search("bj", limit=2)) <= 2


def test_abbreviations_honour_the_filters(gin_index: Index) -> None:
    assert _qualnames(gin_index.search("rg", limit=10, kind="struct")) == ["RouterGroup"]
    assert gin_index.search("bj", limit=10, path_glob="binding*") == []
    assert _qualnames(api.Workspace(gin_index).search("kind:struct rg", 10)) == ["RouterGroup"]
    methods = gin_index.search("bjson", limit=10, kind="method")
    assert methods and all(h.symbol.kind == "method" for h in methods)
