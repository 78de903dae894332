"""What a symbol's file says about it: bundled third-party, private, a declaration, a secondary copy.

Judged by path alone (each file once), so the ranking data and folding read them the same way.
"""

from __future__ import annotations

import fnmatch
import re

from symscope.core.code_roles import is_auxiliary

#: Folders of bundled third-party code (kept in the index, ranked below the repo's own).
_VENDORED_SEGMENT = re.compile(r"(^|/)(deps|3rdparty|thirdparty|third-party|_vendor|vendored)(/|$)")
#: Folders and modules private by convention: Go's `internal/` (the compiler enforces it),
#: Java's and JS's `internal` packages, Python's `_compat/`, `_internal/`, `_utils.py`.
PRIVATE_PATH = re.compile(r"(^|/)(internal(/|$)|_(?!_)[^/]+)")
#: Files that only declare what other files implement: TypeScript declarations, Python stubs.
DECLARATION_FILE = re.compile(r"\.d\.[cm]?ts$|\.pyi$")
#: C and C++ headers: a symbol no longer than its signature there is a prototype.
HEADER_FILE = re.compile(r"\.(h|hh|hpp|hxx|h\+\+)$")
#: Superseded code, and examples under a name `code_roles.is_auxiliary` does not read (chi's `_examples/`):
#: a copy there is not the one a folded hit shows.
_SECONDARY_SEGMENT = re.compile(r"(^|/)(legacy|deprecated|obsolete|_examples?|_samples?)(/|$)")


def glob_match(path: str, glob: str) -> bool:
    """`path` matches `glob`, or lies in the folder `glob` names (`lib`, `lib/`)."""
    glob = glob.strip()
    if fnmatch.fnmatchcase(path, glob):
        return True
    folder = glob.rstrip("/")
    return path.startswith(folder + "/") or fnmatch.fnmatchcase(path, folder + "/*")


def is_vendored(path: str) -> bool:
    """True for bundled third-party code (`deps/`, `_vendor/`): real code, but not the repo's own."""
    return bool(_VENDORED_SEGMENT.search(path))


def is_secondary(path: str, *, aux: bool = True) -> bool:
    """A copy not to show first: tests, examples and docs (`is_auxiliary`, unless `aux` is
    False: the query asked for them), bundled third-party code (`is_vendored`), and
    superseded or example code kept under other names (`legacy/`, chi's `_examples/`)."""
    return (aux and is_auxiliary(path)) or is_vendored(path) or bool(_SECONDARY_SEGMENT.search(path))


