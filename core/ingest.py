"""Turn one source file into index rows; runs in worker processes, so it is self-contained."""

from __future__ import annotations

import os

from symscope.core import levers
from symscope.core.files import UnsafeFileError, read_file_inside
from symscope.core.hashing import content_hash
from symscope.core.languages import language_by_name
from symscope.core.models import CALLABLE_KINDS, FileRecord, FileResult, Symbol
from symscope.core.parse import extract
from symscope.core.pathnames import fs_parts
from symscope.core.settings import DEFAULTS
from symscope.core.terms import (
    body_terms,
    callee_terms,
    identifier_terms,
    literal_terms,
    prose_terms,
)
from symscope.core.walk import content_problem

#: Body identifiers beyond this many distinct terms add noise, not recall.
MAX_BODY_TERMS = DEFAULTS.max_body_terms
#: Distinct numbers, and distinct called names, kept per body.
MAX_LITERALS = DEFAULTS.max_literals
MAX_CALLEES = DEFAULTS.max_callees
#: What `\s` matches in bytes: removed before hashing, so re-indented copies compare equal.
_WHITESPACE = b" \t\n\r\x0b\x0c"


def symbol_terms(
    sym: Symbol, source: bytes, path_terms: list[str], members: list[Symbol] | None = None
) -> list[str]:
    """The weighted bag of search terms for one symbol (weights by repetition).

    The body's numbers and the names it calls are added to its identifiers: a query
    says "204" or "sleeps" where the name says `bodyAllowed` or `backoff`.

    Args:
        sym: The symbol.
        source: Its exact bytes.
        path_terms: Terms of its file's path (the same for every symbol in the file).
    """
    name = identifier_terms(sym.name)
    prefix, _, _ = sym.qualname.rpartition(".")
    body = body_terms(source, MAX_BODY_TERMS)
    if levers.on("callees") and sym.kind in CALLABLE_KINDS:
        # (a class's bag already holds every member's body: doubling its calls too would
        # lift whole classes above the methods that do the work)
        body += callee_terms(source, MAX_CALLEES)
    if levers.on("literals"):
        body += literal_terms(source, MAX_LITERALS)
    if members:
        body += list(dict.fromkeys(t for m in members for t in identifier_terms(m.name)))
    return [
        *name * DEFAULTS.name_weight,
        *identifier_terms(prefix) * DEFAULTS.qualifier_weight,
        sym.kind,
        *path_terms,
        *identifier_terms(sym.signature, drop_keywords=True),
        *prose_terms(sym.docstring) * DEFAULTS.doc_weight,
        *body,
    ]


def ingest(path: str, abspath: str, mtime_ns: int, language: str, root: str | None = None) -> FileResult:
    """Read, check, parse and measure one file. Never raises for bad content.

    The file is read through `files.read_file_inside`: one swapped for a symlink,
    a FIFO or anything outside the repo since the walk is skipped as `unsafe: ...`.

    Args:
        path: Repo-relative path with `/` separators.
        abspath: The walk's path to it.
        mtime_ns: Its mtime as the walk saw it.
        language: The language's name.
        root: The repo folder; by default, `abspath` minus `path`.
    """
    base = root if root is not None else repo_root_of(abspath, path)
    if base is None:
        return _skip(path, mtime_ns, "unsafe: is outside the repo")
    try:
        data = read_file_inside(base, abspath, path)
    except UnsafeFileError as exc:
        return _skip(path, mtime_ns, f"unsafe: {exc.reason}")
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
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    record = FileRecord(
        path=path,
        language=spec.name,
        size=len(data),
        hash=content_hash(data),
        tokens=result.tokens,
        lines=lines,
        symbols=len(result.symbols),
    )
    extras: list[tuple[str, str]] = []
    path_terms = identifier_terms(path.rsplit(".", 1)[0].replace("/", " "))
    members: dict[str, list[Symbol]] = {}
    if levers.on("members"):
        for sym in result.symbols:
            if sym.parent_id is not None:
                members.setdefault(sym.parent_id, []).append(sym)
    for sym in result.symbols:
        raw = data[sym.start_byte : sym.end_byte]
        own = members.get(sym.id)
        if own:
            terms = " ".join(symbol_terms(sym, _without_members(data, sym, own), path_terms, own))
        else:
            terms = " ".join(symbol_terms(sym, raw, path_terms))
        extras.append((content_hash(raw.translate(None, _WHITESPACE)), terms))
    return FileResult(path, mtime_ns, record, result.symbols, extras, result.imports, result.has_errors,
                      exports=result.exports)


def _without_members(data: bytes, sym: Symbol, members: list[Symbol]) -> bytes:
    """A container's own source with its members' bodies cut out: a class is found by its
    name, docstring, fields and members' names, not by every word its methods use."""
    out = bytearray()
    pos = sym.start_byte
    for m in sorted(members, key=lambda m: m.start_byte):
        if m.start_byte < pos or m.end_byte > sym.end_byte:
            continue
        out += data[pos : m.start_byte]
        pos = m.end_byte
    out += data[pos : sym.end_byte]
    return bytes(out)


def repo_root_of(abspath: str, path: str) -> str | None:
    """The repo folder `abspath` was found under, given its repo-relative `path` (None: it was not)."""
    native = os.sep.join(fs_parts(path))  # `path`'s names are escaped; `abspath`'s are as on disk
    if not abspath.endswith(os.sep + native):
        return None
    return abspath[: -len(native) - 1] or os.sep


def _skip(path: str, mtime_ns: int, reason: str) -> FileResult:
    return FileResult(path, mtime_ns, None, [], [], [], False, reason)
