"""One generic, data-driven symbol extractor over tree-sitter tags queries.

Query conventions (see `queries/*.scm`):

* `@definition.<kind>` marks a symbol's node; `@name` its name. Names are
  normalized: `*Engine` -> `Engine`, `Foo<T>` -> `Foo`, `a::b` -> `a.b` (a
  dotted name is a prefix plus a name), quoting is removed (`"storage"."buckets"`
  -> `storage.buckets`, backticks, Zig's `@"name"`). `@name.verbatim` instead of
  `@name` takes that one name as written (R's `.onLoad`, `` `[.tbl` ``).
* `@scope.<kind>` marks a naming container that is not itself a symbol
  (a Rust `impl`, an object literal bound to a variable, a namespace).
* `@receiver` prefixes the qualified name (Go receivers, JS `app.use = function`).
* `@name.file`, in a match without `@name`, names a definition that has no name of its
  own after its file (JS `export default () => {}` in `parseHeaders.js` is
  `parseHeaders`; in `Button/index.js`, `Button`). Capture any node of the definition.
* `@doc` marks a docstring node inside the definition (Python).
* `@body` marks a definition's body when the grammar keeps it beside the
  definition instead of inside it (Dart's `method_signature` then
  `function_body`): the symbol ends where the body ends, and its signature stops
  where the body starts.
* `@comment` marks a node that is a comment although the grammar reads it as
  something else (F#'s bare `///` line, read as an infix operator): it attaches
  to the definition below like any comment.
* `@import` marks the module named by an import statement. Where a grammar
  leaves a dotted path flat (Scala), `@import.part` marks each part and
  `@import.group` the statement: the parts are joined with dots.
* `@export` marks a name a package's entry file re-exports (`from .polys import
  gcd` in `__init__.py`, `pub use net::TcpListener` in `lib.rs`); it is collected
  only from the files `"entry_files"` names, and search ranks those names up.
* `@reparse` marks a node whose text is parsed again, in place, with the same
  language: the items inside a Rust item-position macro (`cfg_net! { pub struct
  TcpListener {..} }`). Its bracket tokens (an unnamed first and last child) are
  left out; if the text does not parse cleanly, nothing in it is extracted.
* `@embed.<language>` marks a node whose text is source in another language (by
  name or alias), parsed in place with that language's query: a Vue or Svelte
  `<script>` block. `@embed.lang` in the same match names the language instead
  (`lang="ts"`); an unknown name skips the block. For one node the later pattern
  wins, so a default pattern goes first and the `lang` one after it. Embedded
  syntax errors count as the file's.
* `@open`, with `@definition.<kind>` on the same node, marks a statement that
  opens a scope running over the siblings after it, up to the next definition
  of its kind or the end of its container, comments before that left out:
  Perl's `package Foo;`, whose following subs are `Foo.sub` (a qualified
  `sub Bar::x` stays `Bar.x`).
* `@local` marks a node whose inside is local scope although it is not a
  symbol: an anonymous callback such as Svelte's `$effect(() => {..})`, whose
  helper functions are not indexed (like anything in a function body).

A file whose parse has errors is repaired first (`repair.py`; files without errors
are untouched): an error's lines are blanked and parsed again when that lowers the
damage without costing a definition (PowerShell's `$x = {}`, Fortran's
`write(unit, fmt) "..."`), and with `"resync"` in `languages.json` the damaged part
of the file is parsed again in pieces cut at the lines the regex matches. The
extractor still slices every name, signature and doc from the original bytes, and
`Extraction.has_errors` still reports the original parse's errors. A query may
match an `ERROR` node the grammar leaves around a statement it does not know (SQL's
`CREATE EVENT TRIGGER`): anchor it on the statement's own first tokens.

Nested parses keep the file's byte offsets and line numbers, nest by range like
everything else (an `impl` inside a macro gives `TcpListener.bind`), and may
nest themselves up to `MAX_NESTING` levels.

When two patterns capture the same name node, the wider definition wins, then the
later pattern (put specific patterns after general ones).

A symbol starts at the comments and `attached` nodes directly above it (no blank
line between, except below a `/** */` block). For the first definition in a
container that starts where the definition does (a GraphQL `document`, an HCL
`body`, a Nix `binding_set`), the comments above the container count. Comments
a grammar nests at the end of the node before (Haskell's imports, an F# `let`)
count too, and that node's symbols then end where its code ends; zero-width
tokens (F#'s invisible `;`) are skipped. A symbol also ends before the comments
nested at its end that sit on their own lines at or left of its own column
(they come after it); a comment indented into its body stays its own.

The signature runs from the line of the name to the body: a `body` field, a
`*_body` child, or a `{` of the definition itself, searched a few levels down but
not into other definitions (a file-wide module does not end its signature at its
first function's body); without one, to the end of the name's line. A trailing
` do` (Elixir) is dropped.

Doc comments lose their markers: `///`, `/** */`, `#`, roxygen `#'`, Lua `---`
and `--[[ ]]`, Haddock `-- |` and `-- ^`, Fortran `!>`, `!!`, `!<`, Erlang `%%`
(and `@doc`, as Doxygen's `@brief`), Lisp `;;`, ML `(** *)`, Elm `{-| -}`,
PowerShell `<# .SYNOPSIS #>`; the first paragraph is the docstring.

Nesting comes from byte ranges, not from the query: a function inside a class
becomes a method named `Class.method`; anything inside a function body is local
and is not indexed.

Options in `languages.json` (besides `wrappers` and `attached`):

* `"merge_clauses": true` -- a definition written as several clauses is one
  symbol. Definitions with the same qualname and kind under the same parent that
  follow each other as siblings, with only comments, `attached` nodes (Elixir
  `@doc`/`@spec`) or punctuation between them, merge: the symbol starts at the
  first clause (with its leading docs and attributes) and ends at the last; its
  signature and docstring come from the first clause; it has one ID. A Haskell
  type signature captured with the same name merges with its equations.
  Definitions of the same name that are not adjacent stay separate (`~2`).
* `"clause_terminators": ["."]` -- with `merge_clauses`, a clause whose last
  token is one of these ends its definition: Erlang's `f(X) -> ... .` and the
  `f(X, Y)` after it are two functions (`;` between clauses continues one).
* `"verbatim_names": true` -- every name is taken as written, not split on
  `.`, `::` or `->` (Clojure `str->bytes`, `*earmuffs*` and `ring.core.protocols`,
  Nim operators); only quoting is removed. `@name.verbatim` does it for one name.
* `"comments": ["<node type>"]` -- node types that are comments although their
  type does not say `comment` (Haskell's `haddock`).
* `"resync": "<regex>"` -- lines that start a top-level definition or statement
  (SQL `(?i)^(create|alter|...)\\b`, Objective-C `^@(interface|implementation|protocol)\\b`),
  matched with `re.MULTILINE` so `^` is a line start. Where a parse is damaged,
  `repair.py` parses the damaged part again in pieces cut at these lines (and the
  comments directly above them), so one statement the grammar rejects cannot take
  the rest of the file with it. Pick lines that cannot start inside a body.
* `"entry_files": ["__init__.py"]` -- file names that are a package's entry,
  whose `@export` captures list the package's public API.
* `"file_symbol": "<kind>"` -- the file itself is a symbol of that kind, named
  after the file without its extension (`Button.vue` -> `Button`), spanning the
  whole file. Its top-level symbols are its children (outline nesting) but keep
  plain qualnames (`Button.vue::toggle#function`): the path already names the
  component.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, partial
from typing import NamedTuple

from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree
from tree_sitter_language_pack import get_language, get_parser

from symscope.core.hashing import content_hash
from symscope.core.languages import LanguageSpec, resolve_language
from symscope.core.models import CALLABLE_KINDS, CONTAINER_KINDS, Import, Symbol
from symscope.core.pathnames import escape_controls
from symscope.core.repair import recover
from symscope.core.tokens import count_file_and_spans

MAX_SIGNATURE = 160
MAX_DOCSTRING = 400
MAX_NESTING = 4
"""How deep `@embed`/`@reparse` parses may nest (a macro inside a macro inside ...)."""

_WS = re.compile(r"\s+")
_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
_XML_DOC_END = re.compile(r"^<(param|returns?|remarks|example|exception|typeparam|seealso)\b")
_LINT_DIRECTIVE = re.compile(
    r"^(eslint[- ]|@ts-|nolint|noqa|type:\s*ignore|pylint:|prettier-ignore|istanbul |c8 |jshint|"
    r"rubocop:|phpcs:|NOSONAR|clang-format|NOLINT|@formatter:|region\b|endregion\b)"
)
_XML_DOC_TAG = re.compile(r"</?(summary|para)\s*/?>")


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything one file yields."""

    symbols: list[Symbol]
    imports: list[Import]
    has_errors: bool
    tokens: int
    """cl100k_base tokens of the whole file (counted with its symbols, in one pass)."""
    exports: list[str] = field(default_factory=list)
    """Names an entry file re-exports (`from .polys import gcd` in `__init__.py`): the public API."""


@dataclass(slots=True)
class _Candidate:
    node: Node
    anchor: Node
    end: Node
    """The node the symbol ends with: its anchor, or a sibling `@body` (Dart)."""
    body: Node | None
    """Its `@body` capture, if any."""
    kind: str
    name: str
    prefix: str
    is_scope: bool
    doc: Node | None
    name_node: Node
    pattern: int
    spec: LanguageSpec
    """The language whose query found it (an embedded script's, not the host file's)."""
    opens: bool = False
    """Captured with `@open`: a statement whose scope runs over the siblings after it."""


@dataclass(slots=True)
class _Pending:
    """A symbol being built; `merge_clauses` grows its end while later clauses follow."""

    id: str
    name: str
    qualname: str
    kind: str
    parent_id: str | None
    start_row: int
    end_row: int
    start_byte: int
    end_byte: int
    signature: str
    docstring: str
    last: _Candidate | None
    """Its last clause so far (None for a `file_symbol`)."""


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


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _unquote(text: str) -> str:
    """A name without the quoting around it: `` `%||%` `` -> `%||%`, `"users"` -> `users`."""
    found = _QUOTED.fullmatch(text)
    return next(g for g in found.groups() if g is not None) if found else text


_QUOTED = re.compile(r'``(.+?)``|`([^`]+)`|@?"([^"]+)"')
"""Quoted identifiers: F# ``` ``a b`` ```, SQL/R/Haskell backticks, SQL `"name"`, Zig `@"name"`."""
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")


def _normalize_prefix(text: str) -> str:
    """`*Engine` -> `Engine`, `Router.prototype` -> `Router`, `Foo<T>` -> `Foo`, `a::b` -> `a.b`,
    `"storage"."buckets"` -> `storage.buckets` (quoted parts are taken as written)."""
    if text.isidentifier():
        return text  # the common case: a plain name
    quoted: list[str] = []
    if '"' in text or "`" in text:

        def hide(found: re.Match[str]) -> str:
            quoted.append(next(g for g in found.groups() if g is not None))
            return f"\ue000{len(quoted) - 1}\ue001"

        text = _QUOTED.sub(hide, text)
    text = text.strip().lstrip("*&(").rstrip(")")
    while True:  # drop balanced generic arguments: `ns::Foo<T>::bar` -> `ns::Foo::bar`
        stripped = _GENERIC_ARGS.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = re.split(r"[\[<(]", text, maxsplit=1)[0]
    text = text.replace("::", ".").replace("\\", ".").replace("->", ".")
    parts = [p for p in (s.strip() for s in text.split(".")) if p and p != "prototype"]
    joined = ".".join(parts)
    if quoted:
        joined = _PLACEHOLDER.sub(lambda found: quoted[int(found.group(1))], joined)
    return joined


def _anchor(node: Node, wrappers: frozenset[str]) -> Node:
    """The outermost parent that only wraps `node` (its language's `wrappers`), whose range it takes."""
    while node.parent is not None and node.parent.type in wrappers:
        node = node.parent
    return node


class _Lead(NamedTuple):
    """What sits directly above a definition and belongs to it."""

    start_byte: int
    start_row: int
    comments: list[Node]
    cut: tuple[int, int, int] | None
    """When the first attached comment lies inside an earlier node (the grammar put the
    comments between two declarations at the end of the first one): that node's start byte
    and where its content ends (byte, row); definitions ending there are trimmed."""


def _prev(node: Node) -> Node | None:
    """The previous sibling, skipping zero-width tokens (F# inserts invisible `;` between declarations)."""
    prev = node.prev_sibling
    while prev is not None and not prev.is_named and prev.start_byte == prev.end_byte:
        prev = prev.prev_sibling
    return prev


def _last_child(node: Node) -> Node | None:
    count = node.child_count
    child = node.child(count - 1) if count else None
    while child is not None and child.start_byte == child.end_byte:
        child = child.prev_sibling
    return child


def _is_comment(node: Node, comments: frozenset[str], misread: set[tuple[int, int]]) -> bool:
    return (
        "comment" in node.type
        or node.type in comments
        or (bool(misread) and (node.start_byte, node.end_byte) in misread)
    )


def _trailing_comment(
    source: bytes, node: Node, comments: frozenset[str], misread: set[tuple[int, int]]
) -> Node | None:
    """The comment on its own line that ends `node`, however deep (an F# `let` can hold the
    comments below it), if one does."""
    end = node.end_byte
    if end > node.start_byte and source[end - 1 : end] == b"\n":
        end -= 1
    line_start = source.rfind(b"\n", node.start_byte, end) + 1
    if line_start == 0:
        return None  # one line: a comment at its end trails code
    first = _LINE_START.match(source, line_start, end)
    if first is None or first.group(1).isalnum() or first.group(1) in _NOT_COMMENT_START:
        return None  # the common case, cheaply: the last line is code, not a comment
    child = _last_child(node)
    while child is not None and child.is_named:  # a closing `}` or `end` ends it: no comment does
        if _is_comment(child, comments, misread):
            return child
        child = _last_child(child)
    return None


_LINE_START = re.compile(rb"[ \t]*(\S)")
_NOT_COMMENT_START = b"_\"')]}"
"""Characters no comment starts with (nor does any letter or digit)."""


def _content_end(source: bytes, cand: _Candidate, misread: set[tuple[int, int]]) -> tuple[int, int]:
    """End byte and row of a definition, without the comments a grammar nested at its end that
    sit on their own lines at or left of the definition's column: they come after it (an F#
    `let` holds the section comment below it), while a comment indented into a body is its own."""
    end = cand.end
    spec = cand.spec
    node = _trailing_comment(source, end, spec.comments, misread)
    column = cand.anchor.start_point.column if node is not None else 0
    first = None
    while node is not None and _is_comment(node, spec.comments, misread):
        before = _prev(node)
        if node.start_point.column > column or (before is not None and before.end_point.row == node.start_point.row):
            break
        first, node = node, before
    content = _prev(first) if first is not None else None
    if content is None:
        return end.end_byte, end.end_point.row - (1 if end.end_point.column == 0 and end.end_point.row else 0)
    return content.end_byte, content.end_point.row - (1 if content.end_point.column == 0 else 0)


def _leading(source: bytes, anchor: Node, spec: LanguageSpec, misread: set[tuple[int, int]]) -> _Lead:
    """Start byte/row including directly attached comments and decorators, plus the comments.

    A first definition in its container looks above the container when that starts at the same
    byte (a GraphQL `document`, an HCL `body`, a Nix `binding_set`), below the root; comments
    the grammar nested at the end of the previous node (Haskell imports, F# declarations)
    count as directly above.
    """
    attached, comment_types = spec.attached, spec.comments
    start_byte, start_row = anchor.start_byte, anchor.start_point.row
    node = anchor
    prev = _prev(node)
    while prev is None:
        parent = node.parent
        if parent is None or parent.parent is None or parent.start_byte != node.start_byte:
            break
        node = parent
        prev = _prev(node)
    comments: list[Node] = []
    host: Node | None = None  # the earlier node holding the comments, if they are nested
    nested: Node | None = None  # the first attached comment inside `host`
    while prev is not None:
        end = prev.end_point
        gap = start_row - (end.row - (1 if end.column == 0 else 0)) - 1
        if gap > 1:
            break  # blank lines separate it
        kind = prev.type
        is_comment = (
            "comment" in kind
            or kind in comment_types
            or (bool(misread) and (prev.start_byte, prev.end_byte) in misread)
        )
        if not (is_comment or kind in attached):
            if gap or host is not None:
                break  # (comments nested in it must end right above to count)
            inner = _trailing_comment(source, prev, comment_types, misread)
            if inner is None:
                break
            host, prev, is_comment = prev, inner, True  # `inner` ends on `prev`'s last line
        if gap == 1 and not (is_comment and _is_doc_block(source, prev) and not comments):
            break  # a blank line separates it, except below a `/** ... */` doc block
        before = _prev(prev)
        prev_start_row = prev.start_point.row
        if is_comment and before is not None:
            before_end = before.end_point
            # A trailing comment on the previous statement's line (preprocessor lines end at column 0).
            if before_end.row == prev_start_row and before_end.column > 0:
                break
        start_byte, start_row = prev.start_byte, prev_start_row
        if is_comment:
            comments.insert(0, prev)
        if host is not None:
            nested = prev
        prev = before
    cut = None
    if host is not None and nested is not None:
        content = _prev(nested)
        if content is not None:
            cut = (host.start_byte, content.end_byte, _end_row(content, content.start_point.row))
        else:
            cut = (host.start_byte, host.start_byte, host.start_point.row)
    return _Lead(start_byte, start_row, comments, cut)


def _is_doc_block(source: bytes, node: Node) -> bool:
    # From `source`, not `node.text`: a repaired tree was parsed from a blanked copy.
    text = source[node.start_byte : node.start_byte + 4]
    return text.startswith(b"/**") and not text.startswith(b"/***")


_MARKER = re.compile(r"^(/\*\*?|\*/|\*|///?!?|//|#+|--|=begin|=end)\s?")
_COMMENT_MARKER = re.compile(
    r"^(/\*\*?|\*/|\*|///?!?|//|#+'?|--\[=*\[|--+(\s*[|^](?=\s|$))?|=begin|=end|!+[<>]?|%+|;+|\(\*+|\{-\|?|<#)\s?"
)
"""Comment markers: C-family, `#` and roxygen `#'`, Lua `---` and `--[[`, Haddock `-- |` / `-- ^`,
Fortran `!`, `!>`, `!<`, Erlang `%%`, Lisp `;;`, ML `(**`, Elm/Haskell `{-|`, PowerShell `<#`."""
_COMMENT_ENDS = {"(*": re.compile(r"\s*\*\)$"), "{-": re.compile(r"\s*-\}$"), "<#": re.compile(r"\s*#>$")}
"""Block comments that do not end in `*/`, by how they open."""
_C_COMMENT_END = re.compile(r"\s*\*/$")
_LUA_BLOCK_END = re.compile(r"\s*\]=*\]$")
_DOC_TAG = re.compile(r"^@(doc|brief)\b\s*")
"""Tags that introduce the summary itself (Erlang `%% @doc`, Doxygen `@brief`)."""
_HELP_KEYWORD = re.compile(r"^\.[A-Z]+\b")
"""PowerShell comment-based help: `.SYNOPSIS` opens the summary, `.DESCRIPTION` ends it."""
_POD_COMMAND = re.compile(r"^=[a-z]+\d?\b")
"""Perl POD (`=head2 name`, `=cut`) and Ruby `=begin`/`=end`: commands around the text."""


def _clean_doc(raw: str) -> str:
    """First paragraph of a docstring or doc comment, markers stripped, on one line."""
    text = raw.strip()
    is_string = False
    for quote in ('"""', "'''", '"', "'"):
        stripped = text.lstrip("rRbBuUfF")
        if stripped.startswith(quote) and stripped.endswith(quote) and len(stripped) >= 2 * len(quote):
            text = stripped[len(quote) : -len(quote)]
            is_string = True
            break
    comment_end = _LUA_BLOCK_END if text.startswith("--[") else _COMMENT_ENDS.get(text[:2], _C_COMMENT_END)
    lines: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if is_string:
            line = _MARKER.sub("", line)
            line = re.sub(r"\s*\*/$", "", line).strip()
        else:
            line = _COMMENT_MARKER.sub("", line)
            line = comment_end.sub("", line).strip()
            line = _DOC_TAG.sub("", line)
            if _HELP_KEYWORD.match(line) or _POD_COMMAND.match(line):
                if lines:
                    break
                continue
        if _LINT_DIRECTIVE.match(line):
            continue  # `eslint-disable-next-line`, `noqa`, `@ts-expect-error` are not docs
        if (line.startswith("@") or _XML_DOC_END.match(line)) and lines:
            break  # JSDoc / Javadoc / C# XML tags end the summary
        line = _XML_DOC_TAG.sub("", line).strip()
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    doc = " ".join(lines)
    return doc if len(doc) <= MAX_DOCSTRING else doc[: MAX_DOCSTRING - 1] + "…"


def _body(node: Node, definitions: set[tuple[int, int]]) -> Node | None:
    """The body of a definition, searched a few levels down (assignments wrap functions).

    Other definitions are not searched (a whole-file module's first function is not its
    body); without a `body` field or a `*_body` child, a `{` token of the definition itself
    opens the body (a PowerShell function or class, whose members come straight after it).
    """
    own = (node.start_byte, node.end_byte)  # a child spanning it all is the same definition
    frontier = [node]
    for depth in range(4):
        nxt: list[Node] = []
        for n in frontier:
            body = n.child_by_field_name("body")
            if body is not None:
                return body
            brace = None
            for child in n.children if depth == 0 else n.named_children:
                if not child.is_named:
                    if brace is None and child.type == "{":
                        brace = child
                    continue
                if child.type.endswith("_body"):  # grammars without a `body` field (Kotlin)
                    return child
                span = (child.start_byte, child.end_byte)
                if span == own or span not in definitions:
                    nxt.append(child)
            if brace is not None:
                return brace
        frontier = nxt
    return None


def _leading_string(body: Node | None) -> Node | None:
    """A string literal opening the body: a docstring, in languages that have them."""
    if body is None or not body.named_child_count:
        return None
    first = body.named_child(0)
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    return first if first is not None and first.type == "string" else None


_SIGNATURE_TAIL = re.compile(r"\s+do$")
"""Elixir's `def f(x) do`: the `do` opens the body."""


def _signature(source: bytes, node: Node, name_node: Node, body: Node | None) -> str:
    line_start = source.rfind(b"\n", 0, name_node.start_byte) + 1
    start = max(node.start_byte, line_start)
    if body is not None and body.start_byte > start:
        end = body.start_byte
    else:
        end = source.find(b"\n", name_node.end_byte)
        end = node.end_byte if end == -1 else min(end, node.end_byte)
    sig = _WS.sub(" ", source[start:end].decode("utf-8", "replace")).strip()
    sig = _SIGNATURE_TAIL.sub("", sig).rstrip("{:=;").rstrip()
    if len(sig) > MAX_SIGNATURE:
        sig = sig[: MAX_SIGNATURE - 1].rstrip() + "…"
    return sig


def _candidates(
    source: bytes, spec: LanguageSpec, root: Node, comments: set[tuple[int, int]], depth: int = 0,
    exports: list[str] | None = None,
) -> tuple[list[_Candidate], list[Import], bool]:
    """Candidates and imports under `root`, including nested parses; and whether an embed has errors.

    The spans of `@comment` captures are added to `comments`, and the names `@export`
    captures to `exports` (when given).
    """
    by_name: dict[tuple[int, int], _Candidate] = {}
    imports: list[Import] = []
    dotted: dict[tuple[int, int], list[Node]] = {}  # import statement -> its path parts
    nested: dict[tuple[int, int], tuple[int, Node, LanguageSpec | None, bool]] = {}
    locals_: list[_Candidate] = []
    look_nested = depth < MAX_NESTING and _has_nested(spec)
    for pattern, caps in QueryCursor(_query(spec)).matches(root):
        for imp in caps.get("import", []):
            module = _text(source, imp).strip().strip("'\"`<>").strip()
            if module:
                imports.append(Import(path="", module=module, line=imp.start_point.row + 1))
        for group in caps.get("import.group", []):
            dotted.setdefault((group.start_byte, group.end_byte), []).extend(caps.get("import.part", []))
        if look_nested:
            _collect_nested(source, spec, pattern, caps, nested)
        for node in caps.get("comment", ()):
            comments.add((node.start_byte, node.end_byte))
        if exports is not None:
            exports.extend(_text(source, node).strip() for node in caps.get("export", ()))
        for node in caps.get("local", ()):
            locals_.append(_local_scope(node, pattern, spec))
        def_key = _definition_capture(caps)
        verbatim = caps.get("name.verbatim")
        file_named = caps.get("name.file") if not (verbatim or caps.get("name")) else None
        names = verbatim or caps.get("name") or file_named
        if def_key is None or not names:
            continue
        node, name_node = caps[def_key][0], names[0]
        raw_name = _text(source, name_node).strip()
        if file_named:
            prefix, name = "", _FILE_NAMED  # `extract` knows the file's name
        elif spec.verbatim_names or verbatim:
            prefix, name = "", _unquote(raw_name)
        else:
            full = _normalize_prefix(raw_name) or raw_name
            prefix, _, name = full.rpartition(".")
        if not name:
            continue
        receivers = caps.get("receiver")
        if receivers:
            recv = _normalize_prefix(_text(source, receivers[0]))
            prefix = f"{recv}.{prefix}" if prefix and recv else (recv or prefix)
        # A name joins its id and is printed on one line: no newline or control character in it.
        name, prefix = (name if file_named else escape_controls(name)), escape_controls(prefix)
        docs = caps.get("doc")
        anchor = _anchor(node, spec.wrappers)
        bodies = caps.get("body")
        body = bodies[0] if bodies else None
        cand = _Candidate(
            node=node,
            anchor=anchor,
            end=body if body is not None and body.end_byte > anchor.end_byte else anchor,
            body=body,
            kind=def_key.split(".", 1)[1],
            name=name,
            prefix=prefix,
            is_scope=def_key.startswith("scope."),
            doc=docs[0] if docs else None,
            name_node=name_node,
            pattern=pattern,
            spec=spec,
            opens="open" in caps,
        )
        key = (name_node.start_byte, name_node.end_byte)
        old = by_name.get(key)
        if old is None or _wider(cand, old):
            by_name[key] = cand
    for parts in dotted.values():
        unique = {(n.start_byte, n.end_byte): n for n in parts}
        ordered = [unique[key] for key in sorted(unique)]
        module = ".".join(_text(source, n).strip() for n in ordered)
        if module:
            imports.append(Import(path="", module=module, line=ordered[0].start_point.row + 1))
    cands = list(by_name.values())
    openers = [c for c in cands if c.opens]
    if openers:
        _open_scopes(openers, cands, spec)
    cands.extend(locals_)
    embed_errors = False
    for _, node, inner_spec, is_embed in nested.values():
        if inner_spec is None:
            continue  # `lang="coffee"`: not a language we parse
        inner_root = _parse_range(source, inner_spec, node)
        if inner_root is None:
            continue
        if is_embed:
            embed_errors = embed_errors or inner_root.has_error
        elif inner_root.has_error:
            continue  # a macro whose tokens are not items (`lazy_static!`, `bitflags!`): nothing to trust
        more, more_imports, more_errors = _candidates(
            source, inner_spec, inner_root, comments, depth + 1, exports if inner_spec.name == spec.name else None)
        cands.extend(more)
        imports.extend(more_imports)
        embed_errors = embed_errors or more_errors
    imports.sort(key=lambda i: i.line)
    return cands, imports, embed_errors


def _open_scopes(openers: list[_Candidate], cands: list[_Candidate], spec: LanguageSpec) -> None:
    """Extend each `@open` statement over the siblings after it, up to the next definition of its
    kind (or the end of their container), leaving out the comments before that: Perl's
    `package Foo;` owns the subs that follow it."""
    kinds = {c.kind for c in openers}
    starts = {c.anchor.start_byte for c in cands if c.kind in kinds and not c.is_scope}
    for cand in openers:
        last = cand.anchor
        node = cand.anchor.next_sibling
        while node is not None and node.start_byte not in starts:
            if node.end_byte > node.start_byte and not _is_comment(node, spec.comments, set()):
                last = node
            node = node.next_sibling
        cand.end = last


def _collect_nested(
    source: bytes,
    spec: LanguageSpec,
    pattern: int,
    caps: dict[str, list[Node]],
    nested: dict[tuple[int, int], tuple[int, Node, LanguageSpec | None, bool]],
) -> None:
    """Record a match's `@reparse` / `@embed.<language>` nodes; for one node the later pattern wins."""
    found: list[tuple[Node, LanguageSpec | None, bool]] = [(n, spec, False) for n in caps.get("reparse", [])]
    for key, nodes in caps.items():
        if not key.startswith("embed.") or key == "embed.lang":
            continue
        named = caps.get("embed.lang")
        lang = _text(source, named[0]).strip() if named else key[len("embed.") :]
        found.extend((n, resolve_language(lang), True) for n in nodes)
    for node, inner_spec, is_embed in found:
        span = (node.start_byte, node.end_byte)
        old = nested.get(span)
        if old is None or pattern >= old[0]:
            nested[span] = (pattern, node, inner_spec, is_embed)


def _parse_range(source: bytes, spec: LanguageSpec, node: Node) -> Node | None:
    """Parse `node`'s text (without its bracket tokens) as `spec`'s language, in the file's coordinates."""
    start_byte, start_point = node.start_byte, node.start_point
    end_byte, end_point = node.end_byte, node.end_point
    if node.child_count >= 2:
        first, last = node.children[0], node.children[-1]
        if not first.is_named:  # `{` of a Rust token tree
            start_byte, start_point = first.end_byte, first.end_point
        if not last.is_named:  # its `}`
            end_byte, end_point = last.start_byte, last.end_point
    if end_byte <= start_byte or not source[start_byte:end_byte].strip():
        return None
    parser = _ranged_parser(spec.grammar)
    parser.included_ranges = [Range(start_point, end_point, start_byte, end_byte)]
    return parser.parse(source).root_node


_LOCAL = "local"
_LOCAL_SCOPE_KINDS = CALLABLE_KINDS | {_LOCAL}


def _local_scope(node: Node, pattern: int, spec: LanguageSpec) -> _Candidate:
    """A pseudo-candidate for an `@local` node: never a symbol, it makes what is inside it local."""
    return _Candidate(
        node=node,
        anchor=node,
        end=node,
        body=None,
        kind=_LOCAL,
        name="",
        prefix="",
        is_scope=False,
        doc=None,
        name_node=node,
        pattern=pattern,
        spec=spec,
    )


def _definition_capture(caps: dict[str, list[Node]]) -> str | None:
    for key in caps:
        if key.startswith(_DEFINITION_PREFIXES):
            return key
    return None


_DEFINITION_PREFIXES = ("definition.", "scope.")


def _wider(new: _Candidate, old: _Candidate) -> bool:
    new_span = new.end.end_byte - new.anchor.start_byte
    old_span = old.end.end_byte - old.anchor.start_byte
    if new_span != old_span:
        return new_span > old_span
    return new.pattern > old.pattern  # later patterns are the more specific ones


_FILE_NAMED = "\x00file"
"""Stands for the name of a definition that `@name.file` names after its file."""


def _name_of_file(path: str) -> str:
    """What a module's readers call its anonymous default export: the file's name without its
    extension (`parseHeaders.js` -> `parseHeaders`), or the folder's for an `index` file."""
    folder, _, file_name = path.rpartition("/")
    name = file_name.partition(".")[0] or file_name
    if name == "index" and folder:
        name = folder.rpartition("/")[2]
    return name


def _file_symbol(path: str, source: bytes, kind: str) -> _Pending:
    """The whole file as one symbol named after it: the component of `Button.vue` is `Button`."""
    file_name = path.rpartition("/")[2]
    name = file_name.rpartition(".")[0] or file_name
    text_end = len(source.rstrip(b"\r\n")) or len(source)
    return _Pending(
        id=f"{path}::{name}#{kind}",
        name=name,
        qualname=name,
        kind=kind,
        parent_id=None,
        start_row=0,
        end_row=source.count(b"\n", 0, text_end),
        start_byte=0,
        end_byte=len(source),
        signature=file_name[:MAX_SIGNATURE],
        docstring="",
        last=None,
    )


def _end_row(anchor: Node, start_row: int) -> int:
    """The last row of a node; one ending at column 0 ends on the row before."""
    row = anchor.end_point.row
    return row - 1 if anchor.end_point.column == 0 and row > start_row else row


def _terminated(node: Node, terminators: frozenset[str]) -> bool:
    """Whether `node`'s last token is one of `terminators` (an Erlang clause ending in `.`)."""
    if not terminators:
        return False
    last = node
    while last.child_count:
        child = _last_child(last)
        if child is None:
            break
        last = child
    return last.type in terminators


def _only_trivia_between(first: Node, second: Node, attached: frozenset[str]) -> bool:
    """Whether `second` follows `first` as a sibling with only comments, attributes or punctuation between."""
    if first.parent is None or first.parent != second.parent:
        return False
    node = first.next_sibling
    while node is not None and node != second:
        if node.is_named and "comment" not in node.type and node.type not in attached:
            return False
        node = node.next_sibling
    return node is not None


def _trim(pending: list[_Pending], host_start: int, end_byte: int, end_row: int) -> None:
    """End the definitions in the node starting at `host_start` where its content ends: the
    comments after it belong to the next definition."""
    for entry in reversed(pending):
        if entry.last is None:
            continue  # the file symbol
        if entry.last.anchor.start_byte < host_start:
            break
        if entry.end_byte > end_byte:
            entry.end_byte, entry.end_row = end_byte, max(end_row, entry.start_row)


def _definition_spans(
    spec: LanguageSpec, root: Node, window: tuple[int, int]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Name span -> definition span of every definition and scope the query finds under `root`
    (what `repair` checks a blanked parse keeps)."""
    found: dict[tuple[int, int], tuple[int, int]] = {}
    cursor = QueryCursor(_query(spec))
    cursor.set_byte_range(*window)
    for _, caps in cursor.matches(root):
        def_key = _definition_capture(caps)
        names = caps.get("name.verbatim") or caps.get("name")
        if def_key is None or not names:
            continue
        node = _anchor(caps[def_key][0], spec.wrappers)
        end = max([node.end_byte] + [b.end_byte for b in caps.get("body", ())])
        key = (names[0].start_byte, names[0].end_byte)
        old = found.get(key)
        if old is None or old[1] - old[0] < end - node.start_byte:
            found[key] = (node.start_byte, end)
    return found


def _recovered_candidates(
    source: bytes, spec: LanguageSpec, tree: Tree, comments: set[tuple[int, int]],
    exports: list[str] | None = None,
) -> tuple[list[_Candidate], list[Import], bool]:
    """Candidates and imports of a file whose parse has errors, from the trees `repair` recovers
    (the whole file's root, blanked where that helped, or its undamaged part plus pieces)."""
    recovery = recover(source, spec, tree, partial(_definition_spans, spec))
    cands: list[_Candidate] = []
    imports: list[Import] = []
    embed_errors = False
    for region in recovery.regions:
        more, more_imports, more_errors = _candidates(source, spec, region.root, comments, 0, exports)
        if region.dropped:  # parsed again in pieces: the pieces' candidates replace these
            dropped = region.dropped
            more = [c for c in more if not any(a <= c.anchor.start_byte < b for a, b in dropped)]
            lines = [(source.count(b"\n", 0, a) + 1, source.count(b"\n", 0, b) + 1) for a, b in dropped]
            more_imports = [i for i in more_imports if not any(r0 <= i.line <= r1 for r0, r1 in lines)]
        cands.extend(more)
        imports.extend(more_imports)
        embed_errors = embed_errors or more_errors
    imports.sort(key=lambda i: i.line)
    return cands, imports, embed_errors


def extract(path: str, source: bytes, spec: LanguageSpec) -> Extraction:
    """Extract every symbol and import of one file.

    Args:
        path: Repo-relative path with `/` separators; becomes part of each ID.
        source: The file's exact bytes (invalid UTF-8 is tolerated).
        spec: The file's language.

    Returns:
        Symbols in source order with parents before children, and the imports.
    """
    tree = _parser(spec.grammar).parse(source)
    misread_comments: set[tuple[int, int]] = set()
    # A package's entry file (`__init__.py`, `lib.rs`, `index.ts`) names its public API.
    exports: list[str] | None = [] if path.rsplit("/", 1)[-1] in spec.entry_files else None
    if tree.root_node.has_error:
        cands, imports, embed_errors = _recovered_candidates(source, spec, tree, misread_comments, exports)
    else:
        cands, imports, embed_errors = _candidates(source, spec, tree.root_node, misread_comments, 0, exports)
    cands.sort(key=lambda c: (c.anchor.start_byte, -c.end.end_byte, c.is_scope is False))
    for cand in cands:
        if cand.name == _FILE_NAMED:
            cand.name = _name_of_file(path)
    definitions = {(c.node.start_byte, c.node.end_byte) for c in cands}

    stack: list[tuple[_Candidate, str, str | None]] = []  # candidate, qualname, symbol id
    used_ids: dict[str, int] = {}
    pending: list[_Pending] = []
    ids_by_qualname: dict[str, str] = {}
    file_id: str | None = None  # the symbol for the whole file (`file_symbol`): top-level symbols' parent
    if spec.file_symbol and source.strip():
        whole = _file_symbol(path, source, spec.file_symbol)
        pending.append(whole)
        file_id = whole.id
        used_ids[file_id] = 1
    last_under: dict[str | None, _Pending] = {}  # parent id -> its latest child (for merge_clauses)
    for cand in cands:
        while stack and not (
            stack[-1][0].anchor.start_byte <= cand.anchor.start_byte
            and cand.end.end_byte <= stack[-1][0].end.end_byte
        ):
            stack.pop()
        if any(not c.is_scope and c.kind in _LOCAL_SCOPE_KINDS for c, _, _ in stack):
            continue  # local to a function body
        if cand.kind == _LOCAL:
            stack.append((cand, "", None))  # an anonymous callback: what it defines is local
            continue
        enclosing = stack[-1] if stack else None
        if cand.prefix and enclosing is not None and enclosing[0].opens:
            # `sub Foo::bar` after `package Baz;` is Foo::bar: the statement only names what is unqualified.
            enclosing = stack[-2] if len(stack) > 1 else None
        parent_qual = enclosing[1] if enclosing else ""
        kind = cand.kind
        if cand.prefix:
            qual_prefix = f"{parent_qual}.{cand.prefix}" if parent_qual else cand.prefix
        else:
            qual_prefix = parent_qual
        qualname = f"{qual_prefix}.{cand.name}" if qual_prefix else cand.name
        in_container = enclosing is not None and enclosing[0].kind in CONTAINER_KINDS
        if kind == "function" and (in_container or cand.prefix):
            kind = "method"
        elif kind == "method" and enclosing is None and not cand.prefix:
            kind = "function"
        if cand.is_scope:
            # Members of `impl Foo` / `extension Foo` belong to Foo when it is defined here.
            owner = ids_by_qualname.get(qualname) or (enclosing[2] if enclosing else None)
            stack.append((cand, qualname, owner))
            continue
        parent_id = enclosing[2] if enclosing else None
        if parent_id is None and cand.prefix:
            parent_id = ids_by_qualname.get(qual_prefix)
        if parent_id is None:
            parent_id = file_id
        prev = last_under.get(parent_id)
        if (
            cand.spec.merge_clauses
            and prev is not None
            and prev.last is not None
            and prev.qualname == qualname
            and prev.kind == kind
            and _only_trivia_between(prev.last.end, cand.anchor, cand.spec.attached)
            and not _terminated(prev.last.end, cand.spec.clause_terminators)
        ):
            # Another clause of the same definition (Elixir `def` heads, Haskell equations): grow it.
            prev.last = cand
            end_byte, end_row = _content_end(source, cand, misread_comments)
            prev.end_byte, prev.end_row = end_byte, max(end_row, prev.start_row)
            stack.append((cand, qualname, prev.id))
            continue
        base_id = f"{path}::{qualname}#{kind}"
        n = used_ids.get(base_id, 0) + 1
        used_ids[base_id] = n
        sym_id = base_id if n == 1 else f"{base_id}~{n}"
        ids_by_qualname.setdefault(qualname, sym_id)
        lead = _leading(source, cand.anchor, cand.spec, misread_comments)
        start_byte, start_row, comments = lead.start_byte, lead.start_row, lead.comments
        if lead.cut is not None:
            _trim(pending, *lead.cut)
        body = cand.body if cand.body is not None else _body(cand.node, definitions)
        doc_node = cand.doc if cand.doc is not None else _leading_string(body)
        if doc_node is not None:
            doc = _clean_doc(_text(source, doc_node))
        elif comments:
            doc = _clean_doc("\n".join(_text(source, c).rstrip("\r\n") for c in comments))
        else:
            doc = ""
        end_byte, end_row = _content_end(source, cand, misread_comments)
        entry = _Pending(
            id=sym_id,
            name=cand.name,
            qualname=qualname,
            kind=kind,
            parent_id=parent_id,
            start_row=start_row,
            end_row=max(end_row, start_row),
            start_byte=start_byte,
            end_byte=end_byte,
            signature=_signature(source, cand.node, cand.name_node, body),
            docstring=doc,
            last=cand,
        )
        pending.append(entry)
        last_under[parent_id] = entry
        stack.append((cand, qualname, sym_id))

    file_tokens, counts = count_file_and_spans(source, [(p.start_byte, p.end_byte) for p in pending])
    symbols = [
        Symbol(
            id=p.id,
            name=p.name,
            qualname=p.qualname,
            kind=p.kind,
            language=spec.name,
            path=path,
            start_line=p.start_row + 1,
            end_line=p.end_row + 1,
            start_byte=p.start_byte,
            end_byte=p.end_byte,
            signature=p.signature,
            docstring=p.docstring,
            parent_id=p.parent_id,
            tokens=tokens,
            content_hash=content_hash(source[p.start_byte : p.end_byte]),
        )
        for p, tokens in zip(pending, counts, strict=True)
    ]
    file_imports = [Import(path=path, module=i.module, line=i.line) for i in imports]
    return Extraction(
        symbols=symbols,
        imports=file_imports,
        exports=sorted({e for e in exports or () if e.isidentifier()}),
        has_errors=tree.root_node.has_error or embed_errors,
        tokens=file_tokens,
    )
