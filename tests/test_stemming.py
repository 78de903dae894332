"""The stemmer gives a word and its inflected forms one stem.

A docstring or a query says "Parses the headers" or "all subclasses"; a name says
`parseHeader` or `subclass`. If the two stem apart, BM25 never sees the match.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from symscope.core.terms import query_terms, stem

_LETTERS = st.text(alphabet="abcdfghklmnoprtvw", min_size=2, max_size=10)


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("class", ["classes"]),
        ("subclass", ["subclasses"]),
        ("parse", ["parses"]),
        ("case", ["cases"]),
        ("close", ["closes"]),
        ("response", ["responses"]),
        ("process", ["processes"]),
        ("address", ["addresses"]),
        ("status", ["statuses"]),
        ("alias", ["aliases"]),
        ("cookie", ["cookies"]),
        ("database", ["databases"]),
        ("register", ["registers", "registered", "registering"]),
        ("render", ["renders", "rendered", "rendering", "renderer"]),
        ("filter", ["filters", "filtered", "filtering"]),
        ("exceed", ["exceeds", "exceeded"]),
        ("route", ["routes", "routing", "router"]),
        ("query", ["queries"]),
        # a doubled final consonant before a suffix is undone, a doubled root stays
        ("log", ["logs", "logging", "logged", "logger"]),
        ("map", ["maps", "mapping", "mapper"]),
        ("commit", ["commits", "committed", "committer"]),
        ("debug", ["debugging", "debugger"]),
        ("add", ["adds", "added", "adding"]),
        ("call", ["calls", "called", "calling"]),
        ("watt", ["watts"]),
    ],
)
def test_real_words_meet_their_forms(word: str, forms: list[str]) -> None:
    assert {stem(f) for f in forms} == {stem(word)}


def test_a_docstring_sentence_meets_the_name_it_describes() -> None:
    # the auto-labelled queries are docstring sentences: "Parses ..." must meet `parseX`
    assert "pars" in query_terms("Parses the cookies of a request")
    assert stem("cookie") in query_terms("Parses the cookies of a request")


@given(_LETTERS)
def test_a_word_ending_in_se_meets_its_s_form(head: str) -> None:
    word = head + "se"
    assert stem(word + "s") == stem(word)


@given(_LETTERS, st.sampled_from(["ss", "us"]))
def test_a_word_ending_in_s_meets_its_es_form(head: str, end: str) -> None:
    word = head + end
    assert stem(word + "es") == stem(word)


@given(_LETTERS.filter(lambda h: len(h) >= 3))
def test_a_word_ending_in_er_meets_its_inflections(head: str) -> None:
    word = head + "er"
    assert stem(word + "s") == stem(word + "ed") == stem(word + "ing") == stem(word)


@given(_LETTERS.filter(lambda h: len(h) >= 3))
def test_a_word_ending_in_ie_meets_its_plural(head: str) -> None:
    word = head + "ie"
    assert stem(word + "s") == stem(word)


@given(_LETTERS.filter(lambda h: len(h) >= 3 and h[-1] not in "aeioulf" and h[-2] in "aeiou"),
       st.sampled_from(["ed", "ing", "er"]))
def test_a_short_vowel_word_meets_its_doubled_forms(head: str, suffix: str) -> None:
    """`stop`/`stopped`, `scan`/`scanner`: a final consonant after one vowel doubles."""
    assert stem(head + head[-1] + suffix) == stem(head)
