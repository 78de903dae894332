"""The pure half of the auto-labelled set (issue 30): which docstrings make a query, and how a
docstring is hidden from the index while every line keeps its number.

A pair is CodeSearchNet style: the first sentence of a definition's docstring or doc comment
is the query, the definition is the target. Nothing here touches an index or the disk, so the
filter and the blanking are tested directly on real fixture files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The kinds a pair may target: what a user asks for by describing it.
TARGET_KINDS = frozenset({"function", "method", "class", "struct", "interface", "trait"})

#: Fewer words than this outside the name's own words make no query (`Returns the foo.`).
MIN_WORDS = 4
#: ...of which at least this many must be more than glue (`the`, `of`, `returns`).
MIN_CONTENT_WORDS = 2
#: Longer sentences are cut to this many words: a query, not a paragraph.
MAX_WORDS = 40

_STOP = frozenset({
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "is", "are", "be", "by", "as", "at", "it",
    "its", "this", "that", "with", "from", "into", "if", "returns", "return", "gets", "get", "sets", "set",
    "given", "when", "whether",
})
_BOILERPLATE = re.compile(
    r"^(initiali[sz]es? a new instance|creates? a new instance|gets or sets|gets a value indicating|"
    r"(default |the )?constructor\b|deprecated\b|todo\b|fixme\b|xxx\b|see\b|inheritdoc\b|\{@inheritdoc|"
    r"nodoc\b|overrides?\b|implements?\b|@|:nodoc:|copyright\b|licen[cs]ed\b)",
    re.IGNORECASE,
)
"""Sentences every such definition carries: they say nothing about this one."""
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "no"})
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
_LINK = re.compile(r"\S+://\S+|```.*?(```|$)|\{@\w+|</?\w+[^>]*>", re.DOTALL)
"""Links, fenced code and markup (`{@link`, `<see cref=...>`): words, but not a description."""
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

_TEST_PARTS = frozenset({"test", "tests", "__tests__", "testing", "testdata", "spec", "specs", "fixtures",
                         "fixture", "__mocks__", "mocks", "e2e", "integration-tests", "unittests"})
_SKIPPED_PARTS = frozenset({"vendor", "vendored", "node_modules", "third_party", "thirdparty", "third-party",
                            "dist", "client-dist", "build", "generated", "gen", "examples", "example", "samples", "sample",
                            "docs", "doc", "site", "bench", "benches", "benchmark", "benchmarks", "scripts"})
_TEST_FILE = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb|rs)$|_spec\.rb$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|cs|kt|php)$|"
    r"^Test.*\.java$)"
)
_GENERATED_FILE = re.compile(r"(\.min\.js$|\.d\.ts$|\.pyi$|\.generated\.|\.g\.cs$|\.pb\.go$|_pb2\.py$|Designer\.cs$)")


def name_words(name: str) -> set[str]:
    """A symbol name's words, lower case: `parseHTTPRequest` and `parse_http_request` both give
    {parse, http, request}."""
    words: set[str] = set()
    for part in re.split(r"[^A-Za-z0-9]+", name):
        words.update(w.lower() for w in _CAMEL.findall(part))
    return words


def first_sentence(doc: str) -> str:
    """The docstring's first sentence: up to the first `.`, `!` or `?` that ends a word which is not
    an abbreviation (`e.g.`), else the whole first paragraph."""
    for m in _SENTENCE_END.finditer(doc):
        before = doc[: m.start()].rsplit(None, 1)
        last = before[-1].lower().lstrip("([{\"'`") if before else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        return doc[: m.end()].strip()
    return doc.strip()


def drop_reason(path: str, kind: str, name: str, doc: str) -> str | None:
    """Why this definition makes no pair, or None when it does. The reasons are the report's
    categories: `kind`, `test`, `vendored`, `no doc`, `boilerplate`, `too long`, `name verbatim`,
    `too short`."""
    if kind not in TARGET_KINDS:
        return "kind"
    if not doc.strip():
        return "no doc"
    parts = path.lower().split("/")
    if any(p in _TEST_PARTS for p in parts[:-1]) or _TEST_FILE.search(path.rsplit("/", 1)[-1]):
        return "test"
    if any(p in _SKIPPED_PARTS for p in parts[:-1]) or _GENERATED_FILE.search(path):
        return "vendored"
    sentence = query_of(name, doc)
    if _BOILERPLATE.match(sentence):
        return "boilerplate"
    if doc.endswith("…") and len(sentence) >= len(doc) - 1:
        return "too long"  # no sentence end within the stored 400 characters
    if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", sentence):
        return "name verbatim"
    own = name_words(name)
    words = [w.lower() for w in _WORD.findall(_LINK.sub(" ", sentence))]
    other = [w for w in words if w not in own]
    if len(other) < MIN_WORDS or len([w for w in other if w not in _STOP]) < MIN_CONTENT_WORDS:
        return "too short"
    return None


def query_of(name: str, doc: str) -> str:
    """The query a docstring gives: its first sentence, without the definition's name when the
    sentence opens with it (the Go and C# habit: `Sunset sets ...`), at most `MAX_WORDS` words."""
    sentence = first_sentence(doc)
    for lead in (f"{name} ", f"The {name} ", f"{name}() "):
        if sentence.startswith(lead):
            sentence = sentence[len(lead):].strip()
            break
    words = sentence.split()
    return " ".join(words[:MAX_WORDS])


# -- hiding a docstring ------------------------------------------------------------------------

#: Separators between a docstring's words in the source: anything but a word, or a whole markup
#: tag (`<summary>`, `<para>`), which the stored docstring drops.
_GAP = rb"(?:[^0-9A-Za-z_\x80-\xff]|<[^>\n]{0,80}>)*?"
_LEAD_WORDS = 12
_LINE_COMMENT = re.compile(rb"([ \t]*)(///?!?|#+(?![\[!])|--+)")


@dataclass(frozen=True, slots=True)
class Span:
    """A byte range [start, end) to blank, every byte but line ends turned into a space."""

    start: int
    end: int


def _words(doc: str) -> list[bytes]:
    words = re.findall(r"\w+", doc.rstrip("…"))
    if doc.endswith("…") and words:
        words.pop()  # cut mid-word
    return [w.encode("utf-8") for w in words[:_LEAD_WORDS]]


def find_doc(source: bytes, start: int, end: int, doc: str) -> int | None:
    """Where, in `source[start:end]` (one definition), the stored docstring `doc` begins; None if
    its words do not appear there in order."""
    words = _words(doc)
    if not words:
        return None
    pattern = re.compile(_GAP.join(re.escape(w) for w in words))
    m = pattern.search(source, start, end)
    return m.start() if m else None


def doc_spans(source: bytes, start: int, end: int, doc: str) -> list[Span] | None:
    """The byte ranges holding the whole docstring or doc comment of the definition at
    `source[start:end]` whose stored docstring is `doc`, markers and quotes left out (so the
    file still parses): a string literal's inside (Python), a `/* */` block's inside, or each
    line of a run of line comments after its marker. None when it cannot be found."""
    at = find_doc(source, start, end, doc)
    if at is None:
        return None
    line_start = source.rfind(b"\n", 0, at) + 1
    # a string docstring: the nearest triple (or single) quote before it on the way back
    for quote in (b'"""', b"'''"):
        opening = source.rfind(quote, start, at)
        if opening >= 0 and source.count(quote, start, at) % 2 == 1:  # inside a string
            closing = source.find(quote, at, end)
            if closing >= 0:
                return [Span(opening + len(quote), closing)]
    block = source.rfind(b"/*", start, at)
    if block >= 0 and source.rfind(b"*/", block, at) < 0:
        closing = source.find(b"*/", at, end)
        if closing < 0:
            return None
        opener = len(re.match(rb"/\*+!?", source[block:block + 8]).group(0))  # type: ignore[union-attr]
        return [Span(block + opener, closing)]
    marked = _LINE_COMMENT.match(source, line_start)
    if marked is not None:
        return _comment_run(source, start, end, line_start)
    line = source[line_start:at]
    for quote in (b'"', b"'"):
        if line.rstrip().endswith(quote) or quote in line:
            opening = source.rfind(quote, line_start, at)
            closing = source.find(quote, at, source.find(b"\n", at) if b"\n" in source[at:end] else end)
            if opening >= 0 and closing >= 0:
                return [Span(opening + 1, closing)]
    return None


def _lines_around(source: bytes, start: int, end: int, line_start: int) -> Iterable[int]:
    """Line starts from the first comment line of the run holding `line_start` to its last."""
    first = line_start
    while first > start:
        prev = source.rfind(b"\n", 0, first - 1) + 1
        if prev < start or _LINE_COMMENT.match(source, prev) is None:
            break
        first = prev
    at = first
    while at < end and _LINE_COMMENT.match(source, at) is not None:
        yield at
        nl = source.find(b"\n", at, end)
        if nl < 0:
            break
        at = nl + 1


def _comment_run(source: bytes, start: int, end: int, line_start: int) -> list[Span]:
    spans = []
    for at in _lines_around(source, start, end, line_start):
        m = _LINE_COMMENT.match(source, at)
        assert m is not None
        nl = source.find(b"\n", at)
        stop = nl if nl >= 0 else len(source)
        if stop > at and source[stop - 1:stop] == b"\r":
            stop -= 1
        spans.append(Span(m.end(), stop))
    return spans


def blank(source: bytes, spans: Sequence[Span]) -> bytes:
    """`source` with every byte of the spans but line ends replaced by a space: offsets and line
    numbers stay, the text is gone."""
    out = bytearray(source)
    for span in spans:
        for i in range(span.start, span.end):
            if out[i] not in (0x0A, 0x0D):
                out[i] = 0x20
    return bytes(out)
