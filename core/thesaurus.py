"""Everyday words to code words: `ajax` finds `xhr`, "time to live" finds `ttl`.

People describe what code does in the words they would say; code names it in the
words programmers write. `thesaurus.json` holds both directions of that gap as data:
groups of words that mean one thing, and phrases with the code words they mean.
Search adds a query's related words as weaker terms (see `Searcher`), so a word
typed always counts for more than one the thesaurus supplied.

Everything is reduced to search terms (stemmed, abbreviations expanded) with the
same functions the index uses, so `serializing` meets `serialize` and `marshal`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from symscope.core.terms import identifier_terms, stem

_WORDS = re.compile(r"[a-z0-9]+")
#: Shorter terms (`n`, `k`, `io`) relate too many unrelated words.
MIN_TERM = 3
#: Words this long also match by stem.
MIN_STEMMED = 5


def _terms(word: str) -> tuple[str, ...]:
    """A word's search terms, without the pieces too short to mean anything (`i18n` -> i, 18, n)."""
    return tuple(t for t in identifier_terms(word) if len(t) >= MIN_TERM and not t.isdigit())


@cache
def _raw() -> dict[str, Any]:
    """`thesaurus.json`, read once."""
    loaded: dict[str, Any] = json.loads(
        resources.files("symscope.core").joinpath("thesaurus.json").read_text("utf-8"))
    return loaded


@cache
def _tables() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """(word -> related terms, stem -> related terms), built once, and only for a query with a
    word to translate (2,400 words' terms: 15 ms).

    A short word is looked up as written: `cas` (compare-and-swap) must not answer to
    `case`, whose stem it shares; words of `MIN_STEMMED` letters or more also answer to
    their other forms (`serializing` for `serialize`).
    """
    by_word: dict[str, set[str]] = {}
    by_stem: dict[str, set[str]] = {}
    for group in _raw()["groups"]:
        terms = {word: set(_terms(word)) for word in group}
        every = set().union(*terms.values())
        for word, own in terms.items():
            by_word.setdefault(word, set()).update(every - own)
            if len(word) >= MIN_STEMMED:
                for term in own:
                    by_stem.setdefault(term, set()).update(every - own)
    return {k: frozenset(v) for k, v in by_word.items()}, {k: frozenset(v) for k, v in by_stem.items()}


@cache
def _phrases() -> dict[tuple[str, ...], frozenset[str]]:
    """Each phrase, as the stems of its words -> the terms of the code words it means."""
    phrases: dict[tuple[str, ...], frozenset[str]] = {}
    for phrase, words in _raw()["phrases"].items():
        key = tuple(stem(w) for w in phrase.split())
        phrases[key] = frozenset(t for word in words for t in _terms(word)) - set(key)
    return phrases


def related_terms(query: str, words: Iterable[str] | None = None) -> list[str]:
    """Terms the thesaurus relates to the query's words and phrases (none of the query's own).

    Each table is built on first need: a keyword search in a fresh process with no word to
    translate builds neither.

    Args:
        query: The query as typed.
        words: Only expand these of its words (lowercase); phrases always count.
    """
    typed = _WORDS.findall(query.lower())
    chosen = set(typed) if words is None else set(words)
    own = {t for w in typed for t in _terms(w)}
    out: dict[str, None] = {}
    if chosen.intersection(typed):
        by_word, by_stem = _tables()
        for word in typed:
            if word not in chosen:
                continue
            out.update(dict.fromkeys(sorted(by_word.get(word, ()))))
            if len(word) >= MIN_STEMMED:
                out.update(dict.fromkeys(sorted(by_stem.get(stem(word), ()))))
    if len(typed) >= 2:
        phrases = _phrases()
        stems = [stem(w) for w in typed]
        longest = max((len(k) for k in phrases), default=0)
        for size in range(2, longest + 1):
            for i in range(len(stems) - size + 1):
                found = phrases.get(tuple(stems[i : i + size]))
                if found:
                    out.update(dict.fromkeys(sorted(found)))
    return [t for t in out if t not in own]


__all__ = ["related_terms"]
