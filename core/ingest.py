"""Turn one source file into index rows; runs in worker processes, so it is self-contained."""

from __future__ import annotations

import re
from dataclasses import dataclass

from symscope.core.hashing import content_hash
from symscope.core.languages import language_by_name
from symscope.core.parse import extract
from symscope.core.symbols import FileRecord, Import, Symbol
from symscope.core.terms import body_identifier_terms, identifier_terms, prose_terms
from symscope.core.tokens import count_tokens
from symscope.core.walk import content_problem

#: Body identifiers beyond this many distinct terms add noise, not recall.
MAX_BODY_TERMS = 300
_NON_WS = re.compile(rb"\s+")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class FileResult:
    """What indexing one file produced, or why it was skipped."""

    path: str
    mtime_ns: int
    record: FileRecord | None
    symbols: list[Symbol]
    extras: list[tuple[str, str]]
    """Per symbol: (normalized-source hash, space-joined search terms)."""
    imports: list[Import]
    has_errors: bool
    skip_reason: str | None = None


def symbol_terms(sym: Symbol, body_words: list[str], path_terms: list[str]) -> list[str]:
    """The weighted bag of search terms for one symbol (weights by repetition).

    Args:
        sym: The symbol.
        body_words: Distinct identifiers in its source, in order of appearance.
        path_terms: Terms of its file's path (the same for every symbol in the file).
    """
    name = identifier_terms(sym.name)
    prefix, _, _ = sym.qualname.rpartition(".")
    body_terms = list(dict.fromkeys(body_identifier_terms(body_words)))[:MAX_BODY_TERMS]
    return [
        *name * 4,
        *identifier_terms(prefix) * 2,
        sym.kind,
        *path_terms,
        *identifier_terms(sym.signature, drop_keywords=True),
        *prose_terms(sym.docstring) * 2,
        *body_terms,
    ]


def ingest(path: str, abspath: str, mtime_ns: int, language: str) -> FileResult:
    """Read, check, parse and measure one file. Never raises for bad content."""
    try:
        with open(abspath, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return _skip(path, mtime_ns, f"unreadable ({exc.strerror or exc})")
    problem = content_problem(data)
    if problem is not None:
        return _skip(path, mtime_ns, problem)
    spec = language_by_name(language)
    if spec is None:
        return _skip(path, mtime_ns, "unsupported language")
    try:
        result = extract(path, data, spec)
    except Exception as exc:  # a grammar crash must not stop the whole index
        return _skip(path, mtime_ns, f"parse failed ({type(exc).__name__}: {exc})")
    text = data.decode("utf-8", "replace")
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    record = FileRecord(
        path=path,
        language=spec.name,
        size=len(data),
        hash=content_hash(data),
        tokens=count_tokens(text),
        lines=lines,
        symbols=len(result.symbols),
    )
    extras: list[tuple[str, str]] = []
    path_terms = identifier_terms(path.rsplit(".", 1)[0].replace("/", " "))
    for sym in result.symbols:
        raw = data[sym.start_byte : sym.end_byte]
        body_words = [w.decode("ascii") for w in dict.fromkeys(_IDENT.findall(raw))]
        terms = " ".join(symbol_terms(sym, body_words, path_terms))
        extras.append((content_hash(_NON_WS.sub(b"", raw)), terms))
    return FileResult(path, mtime_ns, record, result.symbols, extras, result.imports, result.has_errors)


def ingest_batch(jobs: list[tuple[str, str, int, str]]) -> list[FileResult]:
    """Several files per task, to keep inter-process overhead low."""
    return [ingest(*job) for job in jobs]


def quiet_worker() -> None:
    """Pool initializer: a worker's stray warnings must not draw over a full-screen UI."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def _skip(path: str, mtime_ns: int, reason: str) -> FileResult:
    return FileResult(path, mtime_ns, None, [], [], [], False, reason)
