"""The tools' argument types and the caps on what they take and return.

Module level, since the SDK evaluates the annotations by name. Every string has a length cap,
every list a count cap, every answer a token budget.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from symscope.core import api

#: Most tokens one answer carries by default; longer answers are cut and say so.
RESULT_BUDGET = 6000
#: Outlines and reference lists are cut sooner: they are for picking ids.
LIST_BUDGET = 3000
#: Signatures in search hits are cut to this many characters.
SIGNATURE_CHARS = 80
#: Code lines shown beside references.
USE_LINE_CHARS = 100
#: At most this many progress notifications per reindex.
PROGRESS_STEPS = 100
#: Longest symbol id argument: a path (`api.MAX_PATH_CHARS`) and a qualified name.
MAX_ID_CHARS = 8192
#: Longest language name argument (names and aliases are a few letters).
MAX_LANG_CHARS = 50
#: Most paths one `reindex` call takes.
MAX_PATHS = 50
#: Longest git revision `build_bundle` takes as `diff` (a branch, a tag, `HEAD~3`, a commit id).
MAX_REF_CHARS = 256

# -- argument types (module level: the SDK evaluates the annotations by name) ---------------

KindName = Literal[
    "function", "method", "class", "struct", "interface", "trait", "enum", "type", "constant", "module"
]
OutputFormat = Literal["plain", "markdown", "xml"]


def _as_list(value: Any) -> Any:
    """A bare string where a list is expected (a common slip of models) is a list of one."""
    return [value] if isinstance(value, str) else value


# Every string argument has a length cap, every list a count cap: a 1 MB argument is refused
# in microseconds by the schema instead of costing seconds to minutes inside the engine.
QueryArg = Annotated[str, Field(max_length=api.MAX_QUERY_CHARS,
                                description="keywords, identifiers or plain English")]
PathGlob = Annotated[str | None, Field(max_length=api.MAX_PATH_CHARS,
                                       description="only paths matching this glob, e.g. lib/* or *.go")]
LangName = Annotated[str | None, Field(max_length=MAX_LANG_CHARS)]
SearchLimit = Annotated[int, Field(ge=1, le=50)]
SymbolId = Annotated[str, Field(max_length=MAX_ID_CHARS)]
IdList = Annotated[
    list[SymbolId],
    BeforeValidator(_as_list),
    Field(min_length=1, max_length=20, description="ids from search_symbols, get_outline or find_references"),
]
RepoPath = Annotated[str, Field(max_length=api.MAX_PATH_CHARS,
                                description="file or folder relative to the repo root; '.' is the root")]
RefLimit = Annotated[int, Field(ge=1, le=100)]
DepthLimit = Annotated[int, Field(ge=1, le=3)]
DepthLimit0 = Annotated[int, Field(ge=0, le=3)]
BudgetLimit = Annotated[int | None, Field(ge=1)]
BundleFormat = Literal["markdown", "xml"]
BundleIds = Annotated[
    Annotated[list[SymbolId], Field(min_length=1, max_length=20)] | None,
    BeforeValidator(_as_list),
]
DiffRef = Annotated[str | None, Field(max_length=MAX_REF_CHARS,
                                      description="git ref: add code changed since")]
RedactFlag = Annotated[bool, Field(description="secrets become markers; false: exact text")]
PathList = Annotated[
    Annotated[list[Annotated[str, Field(max_length=api.MAX_PATH_CHARS)]], Field(max_length=MAX_PATHS)] | None,
    BeforeValidator(_as_list),
    Field(description="files or folders to re-read even if unchanged; omit to rebuild everything"),
]
