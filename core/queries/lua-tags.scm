; Lua symbols. Conventions: see core/parse.py.
; Lua has no classes: tables play modules and classes. `function M.foo()` and
; `function M:bar()` are `M.foo` / `M.bar` (methods on the table M); `local
; function f()` and `function f()` are functions. Functions assigned at the top
; level (`M.x = function`, `local f = function`) are symbols; anything inside a
; function body is local.

(function_declaration name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @definition.method
(function_declaration
  name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.method

; `M.setup = function(opts) ... end`, `local helper = function() end` (top level only),
; and closures built once: `M.path_tail = (function() ... return function(p) end end)()`.
(chunk
  (assignment_statement
    (variable_list
      .
      name: (dot_index_expression table: (_) @receiver field: (identifier) @name) .)
    (expression_list
      .
      value: [
        (function_definition)
        (function_call name: (parenthesized_expression (function_definition)))
      ] .)) @definition.method)
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name .)
      (expression_list
        .
        value: [
          (function_definition)
          (function_call name: (parenthesized_expression (function_definition)))
        ] .))) @definition.function)
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name .)
    (expression_list . value: (function_definition) .)) @definition.function)

; `local M = { setup = function() end }`: a table literal bound at the top level is a
; scope, its function fields are methods on it.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name .)
      (expression_list . value: (table_constructor) .))) @scope.object)
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) .)
      (expression_list
        .
        value: (table_constructor
          (field name: (identifier) @name value: (function_definition)) @definition.method)
        .))))

; Top-level UPPER_CASE bindings are constants by convention: `local MAX_RETRIES = 3`.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name .)
      (expression_list . value: (_) @_value .))) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]+$")
  (#not-match? @_value "^(require|function|\\{)"))

; `require("telescope.actions")`, `require "cjson"`.
((function_call
  name: (identifier) @_require
  arguments: [
    (arguments . (string content: (string_content) @import) .)
    (string content: (string_content) @import)
  ])
  (#eq? @_require "require"))
