"""Parsers and compiled tags queries, one of each per grammar, cached for the process."""

from __future__ import annotations

from functools import cache

from tree_sitter import Node, Parser, Query
from tree_sitter_language_pack import get_language, get_parser

from symscope.core.languages import LanguageSpec


@cache
def _parser(grammar: str) -> Parser:
    return get_parser(grammar)  # type: ignore[arg-type]


@cache
def _ranged_parser(grammar: str) -> Parser:
    """A second parser per grammar for nested parses, whose `included_ranges` change per call."""
    return get_parser(grammar)  # type: ignore[arg-type]


@cache
def _query(spec: LanguageSpec) -> Query:
    return Query(get_language(spec.grammar), spec.query_source())  # type: ignore[arg-type]


@cache
def _has_nested(spec: LanguageSpec) -> bool:
    """Whether the query has `@reparse` or `@embed.*` captures (most do not: skip looking for them)."""
    query = _query(spec)
    names = (query.capture_name(i) for i in range(query.capture_count))
    return any(name == "reparse" or name.startswith("embed.") for name in names)


def check_query(spec: LanguageSpec) -> None:
    """Compile a language's query, raising on syntax errors (used by tests)."""
    _query(spec)


def _definition_capture(caps: dict[str, list[Node]]) -> str | None:
    for key in caps:
        if key.startswith(_DEFINITION_PREFIXES):
            return key
    return None


_DEFINITION_PREFIXES = ("definition.", "scope.")
