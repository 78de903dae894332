"""The `kind:`, `lang:` and `path:` filters as a mask over the ranking data (or a test per symbol).

The syntax is read by `query.parse_query`; this applies what it read. Ranked hits and
abbreviation matches are filtered by the same mask, so no face filters on its own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from symscope.core.pathnames import escape_controls
from symscope.core.search.paths import glob_match
from symscope.core.search.rankdata import RankData


def filter_mask(data: RankData, kind: str | None, language: str | None, path_glob: str | None
                 ) -> NDArray[np.bool_]:
    """The symbols the kind, language and path filters allow (whatever their words)."""
    allowed = np.ones(len(data.ids), dtype=bool)
    if kind:
        allowed &= data.kinds == kind
    if language:
        allowed &= data.languages == language.lower()
    if path_glob:
        glob = escape_controls(path_glob)  # paths are kept escaped (core/pathnames.py): a raw name matches too
        paths = np.array([glob_match(p, glob) for p in data.unique_paths], dtype=bool)
        allowed &= paths[data.path_ids]
    return allowed


def allows(kind: str | None, language: str | None, path_glob: str | None) -> Callable[[str, str, str], bool]:
    """The same filters for one symbol at a time, by its path, kind and language."""
    glob = escape_controls(path_glob) if path_glob else None
    lang = language.lower() if language else None

    def test(path: str, sym_kind: str, sym_language: str) -> bool:
        return (not kind or sym_kind == kind) and (not lang or sym_language == lang) \
            and (glob is None or glob_match(path, glob))
    return test
