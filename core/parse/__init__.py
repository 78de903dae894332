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

from symscope.core.parse.docstrings import MAX_DOCSTRING
from symscope.core.parse.extractor import Extraction, extract
from symscope.core.parse.matching import MAX_NESTING
from symscope.core.parse.parsers import check_query
from symscope.core.parse.signatures import MAX_SIGNATURE

__all__ = ["MAX_DOCSTRING", "MAX_NESTING", "MAX_SIGNATURE", "Extraction", "check_query", "extract"]
