"""The search tokenizer: code identifiers and plain English become the same terms.

`sendFile`, `send_file` and "send the file" all yield `send` + `file`; light
stemming folds `routes`/`routing`/`router` together, and common code
abbreviations (`req`, `ctx`, `err`) are expanded so plain-English queries find them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import chain, islice
from typing import TypeVar

#: Bump when tokenizing changes: stored terms must match query terms.
TERMS_VERSION = 11

_NON_ALNUM = re.compile(r"[\W_]+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_Word = TypeVar("_Word", str, bytes)
#: `Cardano's` (straight or curly quote): the `s` is no word of its own.
_POSSESSIVE = re.compile(r"(?<=[A-Za-z])['\u2019]s\b")
#: A plural acronym is one word (`CIDRs`, `URLs`, `IDs`), not `CID` + `Rs`.
_PARTS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

#: English words that carry no meaning in a code search.
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "get", "gets", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "that", "the", "their", "then", "there", "these", "this", "those", "to", "use", "uses", "using", "via", "want", "was", "we", "what", "when", "where", "which", "who", "why", "will", "with", "you", "your", "should", "would", "could", "find", "show", "code", "implement", "implementation", "implemented", "whose", "whom", "has", "have", "had", "been", "being", "were", "our", "they", "them", "than", "such", "like", "through", "about", "upon", "onto", "some", "already", "still", "also", "just", "may", "might"]
)
# `get`/`use` are also real method names (express `app.use`); they stay searchable
# when they are the whole query (see `query_terms`), and count a little in any query
# (the searcher's `nameverbs` lever).

#: Keywords that flood every body and say nothing about it.
KEYWORDS = frozenset(
    ["self", "this", "cls", "def", "function", "func", "fn", "return", "returns", "var", "let", "const", "if", "else", "elif", "for", "while", "do", "in", "of", "new", "true", "false", "none", "null", "nil", "undefined", "void", "int", "str", "string", "bool", "boolean", "float", "double", "char", "long", "public", "private", "protected", "static", "final", "class", "struct", "import", "from", "package", "try", "catch", "except", "finally", "raise", "throw", "throws", "await", "async", "yield", "break", "continue", "pass", "not", "and", "or", "is", "as", "with", "lambda", "type", "interface", "enum", "case", "switch", "default", "go", "defer", "range", "chan", "map", "err", "ok"]
)

#: Code abbreviations and their plain-English words, indexed both ways.
ABBREVIATIONS = {
    "req": "request",
    "res": "response",
    "resp": "response",
    "ctx": "context",
    "err": "error",
    "exc": "exception",
    "cfg": "config",
    "conf": "config",
    "msg": "message",
    "param": "parameter",
    "params": "parameter",
    "arg": "argument",
    "args": "argument",
    "fn": "function",
    "func": "function",
    "cb": "callback",
    "db": "database",
    "auth": "authentication",
    "impl": "implementation",
    "init": "initialize",
    "str": "string",
    "dir": "directory",
    "env": "environment",
    "util": "utility",
    "utils": "utility",
    "mw": "middleware",
    "tmpl": "template",
    "val": "value",
    "len": "length",
    "num": "number",
    "id": "identifier",
    "addr": "address",
    "http": "http",
}
_SUFFIXES = (
    "ifications", "ification", "ations", "ation", "ators", "ator", "ating", "ated", "ates", "ate",
    "ings", "ing", "ers", "er", "ies", "ied", "es", "ed", "s", "e",
)


#: The suffixes by last letter, in `_SUFFIXES` order: a word is only checked against its own.
_SUFFIXES_BY_LAST = {
    last: tuple(s for s in _SUFFIXES if s.endswith(last)) for last in {s[-1] for s in _SUFFIXES}
}


#: Suffixes before which a final consonant may have been doubled (`logging`, `mapper`).
_DOUBLING = frozenset(["ed", "ing", "ings", "er", "ers"])
#: Suffixes after which a stem ending in `er` is stemmed again: `register` loses its `er` as
#: `router` does, so `registered` and `registering` must too.
_AFTER_ER = _DOUBLING | {"s", "es"}


def stem(word: str) -> str:
    """A deliberately light stemmer: consistent on both sides matters more than linguistics.

    A word and its inflected forms share a stem, as docstrings and names inflect it
    differently ("Parses the header", `parseHeader`): `parse`/`parses`, `class`/`classes`,
    `status`/`statuses`, `cookie`/`cookies`, `register`/`registered`, `log`/`logging`/`logger`.
    `tests/test_stemming.py` checks these as properties.
    """
    if word.endswith("ie") and len(word) >= 5:
        return word[:-2] + "y"  # `cookie` meets `cookies`, as `query` meets `queries`
    for suffix in _SUFFIXES_BY_LAST.get(word[-1:], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return base + "y"  # `applies`, `applied` -> apply
            if suffix.startswith("ification"):
                return base + "ify"  # `verification` -> verify
            if suffix == "s" and base.endswith(("s", "u", "ia")):
                continue  # `class`, `access`, `status`, `alias` keep their ending
            if suffix == "ed" and base.endswith("e"):
                continue  # `exceed`, `proceed`: no past tense
            if suffix in _DOUBLING and len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "flsz":
                base = base[:-1]  # `logging`, `mapper`, `committed` -> `log`, `map`, `commit`
            if base.endswith("er") and suffix in _AFTER_ER:
                return stem(base)  # `registered`, `renderer` -> `register`, `render` -> `regist`, `rend`
            return base  # `classes` -> `class`, `parses` -> `pars` (as `parse`)
    return word


@lru_cache(maxsize=65_536)
def name_parts(name: str) -> frozenset[str]:
    """The stemmed parts of one symbol name, for judging how much of it a query covers."""
    return frozenset(stem(p) for p in split_identifier(name))


@lru_cache(maxsize=65_536)
def compact(text: str) -> str:
    """`HTTP_basic`, `httpBasic`, `http basic` -> `httpbasic`: for exact-name matches."""
    return _NON_ALNUM.sub("", text.lower())


def split_identifier(word: str) -> list[str]:
    """`parseHTTPRequest2` -> ['parse', 'http', 'request', '2']; `send_file` -> ['send', 'file']."""
    return [p.lower() for p in _PARTS.findall(word)]


def identifier_terms(text: str, *, drop_keywords: bool = False) -> list[str]:
    """Search terms for every identifier in `text`: its parts, stemmed, plus the whole name.

    Args:
        text: Source, a name or prose.
        drop_keywords: Leave out language keywords (for function bodies).
    """
    table = _TERMS_NO_KEYWORDS if drop_keywords else _TERMS
    return list(chain.from_iterable(map(table.__getitem__, _WORD.findall(text))))


def prose_terms(text: str) -> list[str]:
    """Terms for docstrings: identifiers split, English stop words and possessive `'s` dropped."""
    words = _WORD.findall(_POSSESSIVE.sub("", text))
    return list(chain.from_iterable(map(_PROSE_TERMS.__getitem__, words)))


def body_terms(source: bytes, limit: int) -> list[str]:
    """Distinct terms of the identifiers in a body, keywords dropped, in order of appearance.

    Works on bytes: every symbol's body goes through here, and a class body
    repeats its methods' bodies.
    """
    words = dict.fromkeys(_BODY_IDENT.findall(source))
    terms = dict.fromkeys(chain.from_iterable(map(_BODY_TERMS.__getitem__, words)))
    return list(islice(terms, limit))


def literal_terms(source: bytes, limit: int) -> list[str]:
    """Distinct numbers of three or more digits in a body (`204`, `16384`, `8080`): status
    codes, ports and limits that people type, which identifiers never carry."""
    return [n.decode("ascii") for n in islice(dict.fromkeys(_NUMBER.findall(source)), limit)]


def callee_terms(source: bytes, limit: int) -> list[str]:
    """Distinct terms of the names a body calls (`foo(`, `obj.bar(`), keywords dropped:
    what a function does is told by what it calls more than by its local names."""
    words = dict.fromkeys(_CALLEE.findall(source))
    terms = dict.fromkeys(chain.from_iterable(map(_BODY_TERMS.__getitem__, words)))
    return list(islice(terms, limit))


def _word_terms(word: str) -> tuple[tuple[str, str], ...]:
    """(term, source part) pairs for one identifier."""
    parts = split_identifier(word)
    out = [(t, part) for part in parts for t in _expand_part(part)]
    whole = word.lower().replace("_", "")
    if len(parts) > 1 and whole:
        out.append((whole, whole))
    return tuple(out)


#: Per table, and a parser process keeps four for its whole life: bounded (issue 29).
_TABLE_SIZE = 65_536


class _WordTable(dict[_Word, tuple[str, ...]]):
    """An identifier's terms under one rule, computed on first sight: code repeats its names."""

    rule: Callable[[_Word], tuple[str, ...]]

    def __init__(self, rule: Callable[[_Word], tuple[str, ...]]) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, word: _Word) -> tuple[str, ...]:
        terms = self.rule(word)
        if len(self) < _TABLE_SIZE:
            self[word] = terms
        return terms


_TERMS: _WordTable[str] = _WordTable(lambda word: tuple(t for t, _ in _word_terms(word)))
_TERMS_NO_KEYWORDS: _WordTable[str] = _WordTable(
    lambda word: () if word.lower() in KEYWORDS else _TERMS[word]
)
_PROSE_TERMS: _WordTable[str] = _WordTable(
    lambda word: ()
    if word.lower() in STOPWORDS
    else tuple(t for t, part in _word_terms(word) if part not in STOPWORDS)
)
_BODY_TERMS: _WordTable[bytes] = _WordTable(lambda word: _TERMS_NO_KEYWORDS[word.decode("ascii")])
_BODY_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
#: The check on the byte before a number comes after its first digit: a pattern that starts
#: with a lookbehind is tried at every byte, one that starts with a digit class only at
#: digits (5x faster over a body, the same matches).
_NUMBER = re.compile(rb"[1-9](?<![\w.][1-9])[0-9]{2,5}(?![\w.])")
#: A name before `(`. Tried only where a run of word bytes starts (digits it starts with are
#: skipped, as before), with possessive repeats: one long run (a 100,000-letter literal, hex
#: data) is read once, not once per letter, so the cost is linear in the body.
#: `\b` before a word byte is "no word byte before" (bytes patterns are ASCII), and is
#: found 2.6x faster than the same lookbehind.
_CALLEE = re.compile(rb"\b[0-9]*+([A-Za-z_][A-Za-z0-9_]*+)[ \t]*+\(")


def query_terms(query: str) -> list[str]:
    """Terms for a user's query, keyword or plain English.

    Stop words are dropped unless the query consists of nothing else, so
    `use` still finds `app.use`.
    """
    return prose_terms(query) or identifier_terms(query)


def _expand_part(part: str) -> tuple[str, ...]:
    stemmed = stem(part)
    full = ABBREVIATIONS.get(part)
    if full is not None and full != part:
        return (stemmed, stem(full))
    return (stemmed,)
