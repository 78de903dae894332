"""Which language a file is in, from data: `languages.json` plus `queries/<name>-tags.scm`.

Adding a language means adding an entry to `languages.json`, a query file and a
fixture; no Python changes.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: Bump when core/parse/ changes what it extracts for the same source.
EXTRACTOR_VERSION = 7


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """How to recognise and parse one language."""

    name: str
    grammar: str
    """Name of the grammar in tree-sitter-language-pack."""
    extensions: tuple[str, ...]
    shebangs: tuple[str, ...]
    fence: str
    """Markdown code-fence tag for bundles."""
    query: str
    """Whose `queries/<query>-tags.scm` to use: its own name, or a superset's (tsx uses typescript)."""
    pygments: str | None
    """Pygments lexer name for highlighting (None: guess from the file name)."""
    aliases: tuple[str, ...]
    """Other names people type for it (`py`, `golang`), e.g. in a `lang:` filter."""
    wrappers: frozenset[str]
    """Node types that wrap a definition without changing it (`decorated_definition`,
    `export_statement`): the symbol's range grows to cover them."""
    attached: frozenset[str]
    """Node types directly above a definition that belong to it (decorators, attributes)."""
    merge_clauses: bool = False
    """Adjacent definitions with the same qualname and kind (only comments and `attached` nodes between
    them) are one symbol spanning every clause: Elixir `def` heads, Haskell equations."""
    clause_terminators: frozenset[str] = frozenset()
    """With `merge_clauses`: a clause whose last token is one of these ends its definition (Erlang's
    `.`), so the next clause of the same name starts another one (`f/1` then `f/2`)."""
    verbatim_names: bool = False
    """Names are taken as written, not split on `.`, `::` or `->` into a prefix (Clojure
    `str->bytes`, R `filter.data.frame`, Nim's `.=`); only quoting around them is removed."""
    comments: frozenset[str] = frozenset()
    """Node types that are comments although their type does not say `comment` (Haskell's
    `haddock`, Perl's POD and what follows `__END__`): they attach to the definition below as its
    doc, and a scope or definition does not end with them."""
    file_symbol: str | None = None
    """Kind of a symbol that is the whole file, named after it (a Vue/Svelte component: `Button`
    for `Button.vue`); the file's top-level symbols are its children but keep plain qualnames."""
    entry_files: frozenset[str] = frozenset()
    """File names that are a package's entry (`__init__.py`, `lib.rs`, `index.ts`): the names
    their `@export` captures list are the package's public API, which search ranks a little up."""
    resync: str | None = None
    """A regex (multiline: `^` is a line start) matching the lines that start a top-level
    definition or statement (SQL `CREATE`, Objective-C `@implementation`): where a parse is
    damaged, the file is parsed again in parts cut at those lines (see `repair`)."""

    def query_source(self) -> str:
        """The tags query that defines this language's symbols."""
        return resources.files("symscope.core.queries").joinpath(f"{self.query}-tags.scm").read_text("utf-8")


@cache
def all_languages() -> dict[str, LanguageSpec]:
    """Every supported language, keyed by name."""
    raw = json.loads(resources.files("symscope.core").joinpath("languages.json").read_text("utf-8"))
    return {
        name: LanguageSpec(
            name=name,
            grammar=entry["grammar"],
            extensions=tuple(entry["extensions"]),
            shebangs=tuple(entry["shebangs"]),
            fence=entry["fence"],
            query=entry.get("query", name),
            pygments=entry.get("pygments"),
            aliases=tuple(entry.get("aliases", ())),
            wrappers=frozenset(entry.get("wrappers", ())),
            attached=frozenset(entry.get("attached", ())),
            merge_clauses=bool(entry.get("merge_clauses", False)),
            file_symbol=entry.get("file_symbol"),
            resync=entry.get("resync"),
            entry_files=frozenset(entry.get("entry_files", ())),
            comments=frozenset(entry.get("comments", ())),
            clause_terminators=frozenset(entry.get("clause_terminators", ())),
            verbatim_names=bool(entry.get("verbatim_names", False)),
        )
        for name, entry in raw.items()
    }


@cache
def _by_extension() -> dict[str, LanguageSpec]:
    return {ext: spec for spec in all_languages().values() for ext in spec.extensions}


@cache
def _by_interpreter() -> dict[str, LanguageSpec]:
    return {exe: spec for spec in all_languages().values() for exe in spec.shebangs}


def language_for_extension(path: str) -> LanguageSpec | None:
    """The language a file name's extension implies, if any."""
    _, ext = os.path.splitext(path)
    return _by_extension().get(ext.lower())


def language_for_shebang(first_line: bytes) -> LanguageSpec | None:
    """The language named by a `#!` line (`#!/usr/bin/env python3`, `#!/bin/bash`)."""
    if not first_line.startswith(b"#!"):
        return None
    words = first_line[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    exe = os.path.basename(words[0])
    if exe == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        if not rest:
            return None
        exe = os.path.basename(rest[0])
    exe = exe.rstrip("0123456789.") if exe not in _by_interpreter() else exe
    return _by_interpreter().get(exe)


@cache
def extractor_fingerprint() -> str:
    """Changes whenever what an index stores for the same source would change.

    Covers the language table, every query file and the tokenizer's version, so
    an upgraded symscope re-parses instead of mixing old and new terms.
    """
    from symscope.core.terms import TERMS_VERSION  # local: terms is not needed to detect languages

    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"terms={TERMS_VERSION};extractor={EXTRACTOR_VERSION};".encode())
    digest.update(resources.files("symscope.core").joinpath("languages.json").read_bytes())
    for name in sorted(all_languages()):
        digest.update(name.encode())
        digest.update(all_languages()[name].query_source().encode())
    return digest.hexdigest()


def language_by_name(name: str) -> LanguageSpec | None:
    """Look a language up by its symscope name (`python`, `cpp`, ...)."""
    return all_languages().get(name.lower())


@cache
def _by_alias() -> dict[str, LanguageSpec]:
    return {alias: spec for spec in all_languages().values() for alias in spec.aliases}


def resolve_language(name: str) -> LanguageSpec | None:
    """A language by its name or one of its aliases (`py`, `golang`, `c++`), any case."""
    key = name.strip().lower()
    return all_languages().get(key) or _by_alias().get(key)
