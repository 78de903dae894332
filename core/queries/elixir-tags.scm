; Elixir symbols. Conventions: see core/parse.py.
; `defmodule A.B` is the module `A.B`; functions inside are `A.B.fun` (nested modules
; nest). Every `def` head is a definition: languages.json sets `merge_clauses`, so the
; clauses of one function (`def f(0)`, `def f(n) when ...`) are one symbol, from the
; `@doc`/`@spec` above the first clause to the end of the last. Code built by
; `unquote(...)` has no static name and is skipped.

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (do_block)
  (#eq? @_kw "defmodule")) @definition.module

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (do_block)
  (#eq? @_kw "defprotocol")) @definition.interface

; `defimpl Inspect do` (for the enclosing struct) and `defimpl String.Chars, for: User`,
; which Elixir names `String.Chars.User`.
(call
  target: (identifier) @_kw
  (arguments . (alias) @name .)
  (do_block)
  (#eq? @_kw "defimpl")) @definition.module
(call
  target: (identifier) @_kw
  (arguments
    . (alias) @receiver
    (keywords (pair key: (keyword) @_for value: (alias) @name)))
  (do_block)
  (#eq? @_kw "defimpl")
  (#match? @_for "^for:")) @definition.module

; Function, macro and guard heads: `def f(x)`, `def f(x) when x > 0`, `def f`,
; `def f when ...`, `defdelegate f(x), to: M`; with or without a body (protocol
; functions and bodiless heads have none).
(call
  target: (identifier) @_kw
  (arguments
    .
    [
      (call target: (identifier) @name)
      (identifier) @name
      (binary_operator left: (call target: (identifier) @name) operator: "when")
      (binary_operator left: (identifier) @name operator: "when")
    ])
  (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$")
  (#not-eq? @name "unquote")) @definition.function

; Docstrings: `@moduledoc "..."` opening a module, `@doc "..."` above a function's first
; clause (a `@spec`/`@impl` may sit between).
(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (do_block
    .
    (unary_operator
      operand: (call
        target: (identifier) @_doc
        (arguments . (string) @doc))))
  (#eq? @_kw "defmodule")
  (#eq? @_doc "moduledoc")) @definition.module
(_
  (unary_operator
    operand: (call
      target: (identifier) @_doc
      (arguments . (string) @doc)))
  .
  (unary_operator)*
  .
  (call
    target: (identifier) @_kw
    (arguments
      .
      [
        (call target: (identifier) @name)
        (identifier) @name
        (binary_operator left: (call target: (identifier) @name) operator: "when")
        (binary_operator left: (identifier) @name operator: "when")
      ])) @definition.function
  (#eq? @_doc "doc")
  (#match? @_kw "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$")
  (#not-eq? @name "unquote"))

; `@type t :: ...`, `@typep state(a) :: ...`, `@opaque id :: ...`. The definition is the
; attribute's call, not the `@` node: attributes attach to the definition below them
; (`attached`), so a run of `@type` lines would otherwise swallow each other. Under a
; `@typedoc`, the whole attribute is the definition, so the `@typedoc` attaches.
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_kw
    (arguments
      .
      (binary_operator
        left: [(identifier) @name (call target: (identifier) @name)]
        operator: "::"))) @definition.type
  (#match? @_kw "^(type|typep|opaque)$"))
(_
  (unary_operator operand: (call target: (identifier) @_typedoc (arguments . (string) @doc)))
  .
  (unary_operator
    operator: "@"
    operand: (call
      target: (identifier) @_kw
      (arguments
        .
        (binary_operator
          left: [(identifier) @name (call target: (identifier) @name)]
          operator: "::")))) @definition.type
  (#eq? @_typedoc "typedoc")
  (#match? @_kw "^(type|typep|opaque)$"))

; `alias Plug.Conn`, `import Plug.Conn`, `require Logger`, `use GenServer`,
; `alias MyApp.{User, Repo}` (its common prefix).
(call
  target: (identifier) @_kw
  (arguments . [(alias) @import (dot left: (alias) @import right: (tuple))])
  (#match? @_kw "^(alias|import|require|use)$"))
