"""The search filter syntax, kept at its old path for `core/api.py`: it lives in `core/search/query.py`."""

from symscope.core.search.query import (
    FILTER_KEYS,
    KIND_ALIASES,
    ParsedQuery,
    normalize_kind,
    normalize_language,
    parse_query,
    set_filter,
)

__all__ = ["FILTER_KEYS", "KIND_ALIASES", "ParsedQuery", "normalize_kind", "normalize_language", "parse_query",
           "set_filter"]
