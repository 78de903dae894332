"""The one typed engine API: a `Workspace` answers every question a face asks, in typed values.

The faces (the CLI, the MCP server, the TUI) and the benchmarks import only this module
(with `core/models.py` and `core/errors.py`): it re-exports the workspace, the value
types, the filter syntax, the JSON projection (`core/json_shapes.py`), the sanitiser,
token counting and the limits, so no face reaches into an engine module and the same
question gets the same answer everywhere. `Workspace` lives in `core/workspace.py`.

    with Workspace.open("path/to/repo") as ws:
        hits = ws.search("kind:class router")
        print(emit(search_json("kind:class router", hits)))

Heavy libraries load on first use only (tree-sitter, tiktoken, detect-secrets, numpy):
`symscope search` must start fast, so every such import below is inside a function, and
the value types that live beside heavy modules (the bundle's, the Related pane's) are
named here but loaded when first read (`__getattr__`).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from symscope.core import limits
from symscope.core.json_shapes import (
    ALSO_SHOWN,
    Json,
    bundle_json,
    dependency_json,
    emit,
    hit_json,
    importers_json,
    languages_json,
    outline_json,
    outline_node_json,
    report_json,
    search_json,
    show_json,
    stats_json,
    status_json,
    symbol_json,
    used_by_json,
    uses_json,
    vectors_json,
)
from symscope.core.limits import IntRange
from symscope.core.pathnames import escape_name, fs_path
from symscope.core.results import (
    Dependency,
    FileOutlineResult,
    FolderOutline,
    Importers,
    ImportingFile,
    LanguageInfo,
    Location,
    Outline,
    Related,
    Status,
    SymbolSource,
    UsedBy,
    Uses,
    VectorsReport,
)
from symscope.core.sanitize import for_paste, for_terminal
from symscope.core.search.query import FILTER_KEYS, ParsedQuery, parse_query, set_filter
from symscope.core.workspace import (
    MAX_DEPTH,
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
    Cancel,
    Workspace,
    check_length,
)

if TYPE_CHECKING:
    import tiktoken

    from symscope.core.bundle import (
        DEPENDENCY_DETAIL,
        FORMAT_SUFFIX,
        BudgetError,
        Bundle,
        BundleError,
        BundleItem,
        BundleResult,
        DependencyOf,
        Detail,
        Format,
        Redaction,
        ResolvedItem,
        file_key,
        next_detail,
        symbol_key,
    )
    from symscope.core.index import Index as Index
    from symscope.core.related import DepsPlan, RelatedRow, RelatedRows
    from symscope.core.secrets import Finding
    from symscope.core.watch import WATCH_ENV, RepoWatcher, watch_mode

# The workspace, its limits and its cancellation signal.
__all__ = ["MAX_DEPTH", "MAX_PATH_CHARS", "MAX_QUERY_CHARS", "Cancel", "IntRange", "Workspace",
           "check_length", "limits"]
# The answers' value types (`core/results.py`; `core/models.py` holds the rest).
__all__ += ["Dependency", "FileOutlineResult", "FolderOutline", "Importers", "ImportingFile",
            "LanguageInfo", "Location", "Outline", "Related", "Status", "SymbolSource", "UsedBy",
            "Uses", "VectorsReport"]
# The bundle model, its levels and formats, and the rendered result (loaded on first use).
__all__ += ["DEPENDENCY_DETAIL", "FORMAT_SUFFIX", "BudgetError", "Bundle", "BundleError", "BundleItem",
            "BundleResult", "DependencyOf", "Detail", "Format", "Redaction", "ResolvedItem",
            "file_key", "next_detail", "symbol_key"]
# The Related pane's rows and the add-with-dependencies plan (loaded on first use).
__all__ += ["DepsPlan", "RelatedRow", "RelatedRows"]
# Live updates: the file watcher of a repository and its mode (`SYMSCOPE_WATCH`).
__all__ += ["WATCH_ENV", "RepoWatcher", "watch_mode"]
# The search box's filter syntax (`kind:struct lang:go path:lib/* words`).
__all__ += ["FILTER_KEYS", "ParsedQuery", "parse_query", "set_filter"]
# The one JSON projection of the answers (CLI `--json`, MCP, benchmarks).
__all__ += ["ALSO_SHOWN", "Json", "bundle_json", "dependency_json", "emit", "hit_json",
            "importers_json", "languages_json", "outline_json", "outline_node_json", "report_json",
            "search_json", "show_json", "stats_json", "status_json", "symbol_json", "used_by_json",
            "uses_json", "vectors_json"]
# What needs no workspace: text for a terminal or a paste, names and paths, languages, tokens,
# secrets, private files.
__all__ += ["count_tokens", "describe_secrets", "encoding", "escape_name", "fence_tag", "for_paste",
            "for_terminal", "fs_path", "language_names", "languages", "pygments_name",
            "redact_secrets", "secret_marker", "semantic_available", "write_private"]

#: Value types named above that live beside heavy engine modules, with the module of each:
#: loaded when first read, so importing this API does not load the index or the graph.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("DEPENDENCY_DETAIL", "FORMAT_SUFFIX", "BudgetError", "Bundle", "BundleError",
                     "BundleItem", "BundleResult", "DependencyOf", "Detail", "Format", "Redaction",
                     "ResolvedItem", "file_key", "next_detail", "symbol_key"), "symscope.core.bundle"),
    **dict.fromkeys(("DepsPlan", "RelatedRow", "RelatedRows"), "symscope.core.related"),
    **dict.fromkeys(("WATCH_ENV", "RepoWatcher", "watch_mode"), "symscope.core.watch"),
}


def __getattr__(name: str) -> Any:
    """Load a lazily re-exported value type (PEP 562) and keep it, so the next read is plain."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

# -- what needs no workspace -----------------------------------------------------------------


def languages() -> tuple[LanguageInfo, ...]:
    """Every supported language with its extensions and the kinds its query can produce."""
    from symscope.core.languages import all_languages
    from symscope.core.models import CONTAINER_KINDS, SYMBOL_KINDS

    specs = all_languages()

    def kinds_of(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        spec = specs[name]
        source = spec.query_source()
        captured = set(_DEFINITION.findall(source))
        if spec.file_symbol:
            captured.add(spec.file_symbol)
        for embedded in set(_EMBED.findall(source)) - seen - {"lang"}:  # script blocks of a Vue file
            if embedded in specs:
                captured |= kinds_of(embedded, seen | {name})
        if "@embed.lang" in source:  # `lang="ts"` picks TypeScript
            captured |= kinds_of("typescript", seen | {name}) if "typescript" not in seen else set()
        if "function" in captured and captured & CONTAINER_KINDS:
            captured.add("method")  # the extractor names a function inside a type a method
        return captured

    out = []
    for spec in sorted(specs.values(), key=lambda s: s.name):
        captured = kinds_of(spec.name)
        out.append(LanguageInfo(spec.name, tuple(spec.extensions),
                                tuple(k for k in SYMBOL_KINDS if k in captured)))
    return tuple(out)


_DEFINITION = re.compile(r"@definition\.(\w+)")
_EMBED = re.compile(r"@embed\.(\w+)")


def fence_tag(language: str) -> str:
    """The Markdown code-fence tag for a language name (`python`, `go`), empty when unknown."""
    from symscope.core.languages import language_by_name

    spec = language_by_name(language)
    return spec.fence if spec else ""


def semantic_available() -> bool:
    """True when the `semantic` extra (hybrid search) is installed."""
    from symscope.core import semantic

    return semantic.available()


def count_tokens(text: str) -> int:
    """The exact cl100k_base token count of `text` (tiktoken loads on first use)."""
    from symscope.core.tokens import count_tokens as count

    return count(text)


def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding itself, for cutting a text between tokens."""
    from symscope.core.tokens import encoding as cl100k

    return cl100k()


def redact_secrets(text: str, filename: str = "") -> tuple[str, list[Finding]]:
    """`text` with every secret replaced by its marker, and the findings (the bundles' detector)."""
    from symscope.core.secrets import redact  # detect-secrets loads on first use

    return redact(text, filename)


def secret_marker(label: str) -> str:
    """The visible text that replaces a secret of this label."""
    from symscope.core.secrets import marker

    return marker(label)


def describe_secrets(text: str, filename: str = "") -> str | None:
    """`2 likely secrets (AWS access key, ...)` when `text` holds any, else None."""
    from symscope.core.secrets import describe, find_secrets

    found = find_secrets(text, filename)
    return describe(found) if found else None


def write_private(path: Path, text: str | bytes, *, replace: bool = True) -> None:
    """Write `text` to `path` readable by its owner only (mode 600), atomically; with `replace`
    False, FileExistsError when something is already there."""
    from symscope.core.private import write_private as write

    write(path, text, replace=replace)



def language_names() -> list[str]:
    """The names of every supported language, sorted."""
    from symscope.core.languages import all_languages

    return sorted(all_languages())


def pygments_name(language: str) -> str | None:
    """The Pygments lexer name languages.json gives a symscope language, None when none."""
    from symscope.core.languages import language_by_name

    spec = language_by_name(language)
    return spec.pygments if spec is not None and spec.pygments else None
