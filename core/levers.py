"""Switches for the search levers, so a benchmark can measure each one on its own.

Every lever is on by default. `SYMSCOPE_SEARCH_OFF=fold,priors` (a comma-separated
list, read once at import, so parser processes see the same set) turns some off;
`benchmarks/intent.py --off` sets it. Nothing else should need it. A name that is no
lever is an error (`settings.current()`). `settings.RankSettings` holds the levers with
the ranking constants, and its fingerprint keys every cache derived from an index.
"""

from __future__ import annotations

import os

#: Every lever, by the name `SYMSCOPE_SEARCH_OFF` uses.
LEVERS = frozenset({
    "exactcase",  # among exact-name hits, the typed case and spelling beat other cases and separators
    "toplevel",  # among exact-name hits, top-level definitions before members (a class before its constructor)
    "substance",  # then the main definition of the name (public, longer) before shims, mocks, forward declarations
    "fold",  # overloads, accessors, cfg variants, prototypes in one file (and a header's prototype) fold into one hit
    "copies",  # near copies in other files (85% of terms shared: a function and its copy elsewhere) fold too
    "priors",  # widely referenced definitions first, private ones a little lower
    "helpers",  # constants and regexes rank below the functions that apply them (fused scores too)
    "shapes",  # in a sentence, type aliases, interfaces, enums and structs rank below the code that does things
    "neighbours",  # a query word absent from the repo tries its closest spellings there
    "typednames",  # a code name typed in a sentence (`mul_symbol`, `sendFile`) weighs double
    "nameverbs",  # the stop-word verbs find/show/get/use count at 0.4: names start with them (`app.use`)
    "compounds",  # adjacent query words also match their joined form (`file name` -> `filename`)
    "literals",  # numbers and the prose of comments and strings as body fields
    "callees",  # the names a body calls count twice
    "auxverbs",  # "test", "sample" used as verbs in a long query do not ask for test files
    "exports",  # `module.exports` members answer to the module's name
    "members",  # a container's bag holds its members' names, not their bodies
    "privatepaths",  # code under `internal/` or a `_private` module ranks a little lower, as `_x` names do
    "vendored",  # bundled third-party code (`deps/`) ranks below the repo's own
    "filecontext",  # in sentences, symbols of a file whose other symbols match too rank up (at most x1.2, x1.44 at the fitted weight)
    "nesting",  # a class around a hit already listed (or a member of one) comes after the new ones
    "public",  # a definition a package's entry file re-exports (`__init__.py`, `lib.rs`) ranks up
    "apifirst",  # that public definition comes just before a method sharing its name (`gcd`, `Monomial.gcd`)
    "heft",  # in the hybrid, a sentence's fused scores lean a little to longer definitions (the doer, not its helpers)
    "thesaurus",  # everyday words add the code words they mean (`ajax` -> `xhr`), weaker
})

_NAMES = frozenset(w.strip() for w in os.environ.get("SYMSCOPE_SEARCH_OFF", "").split(",") if w.strip())
OFF: frozenset[str] = _NAMES & LEVERS
#: Names in `SYMSCOPE_SEARCH_OFF` that are no lever: `settings.current()` refuses them
#: (raising here, at import, would end a front end with a traceback).
UNKNOWN: frozenset[str] = _NAMES - LEVERS


def on(lever: str) -> bool:
    """Whether `lever` is in use (always, unless a benchmark turned it off)."""
    return lever not in OFF


__all__ = ["LEVERS", "OFF", "UNKNOWN", "on"]
