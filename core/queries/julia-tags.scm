; Julia symbols. Conventions: see core/parse.py.
;
; Every Julia function is generic, so `function f` and the short form `f(x) = ...`
; are functions; a definition that extends another module's function keeps the
; path it is written with (`Base.show(io::IO, p::Point) = ...` is `Base.show`, a
; method, inside whatever module defines it). Operator methods are named by their
; operator (`Base.:+` is `Base.+`), parametric constructors by their type
; (`Vector{T}(x) = ...` is `Vector`). Constructors written inside a struct are its
; methods. `struct`/`mutable struct` are structs, `abstract type`/`primitive type`
; types, `@enum` an enum, `macro` a function, `const` a constant; globals, struct
; fields and closures are not symbols.
; A docstring literal directly above a definition belongs to it (`attached`) and
; is its @doc; macros wrapping a definition (`@inline`, `Base.@kwdef`) are part of
; it (`wrappers`).

((string_literal)? @doc . (module_definition name: (identifier) @name) @definition.module)

((string_literal)? @doc
  . (struct_definition
    (type_head [
      (identifier) @name
      (parametrized_type_expression . (identifier) @name)
      (binary_expression . (identifier) @name)
      (binary_expression . (parametrized_type_expression . (identifier) @name))
    ])) @definition.struct)

((string_literal)? @doc
  . [(abstract_definition
      (type_head [
        (identifier) @name
        (parametrized_type_expression . (identifier) @name)
        (binary_expression . (identifier) @name)
        (binary_expression . (parametrized_type_expression . (identifier) @name))
      ]))
     (primitive_definition
      (type_head [
        (identifier) @name
        (binary_expression . (identifier) @name)
      ]))] @definition.type)

; `@enum Color red green blue`, `@enum Fruit::UInt8 begin ... end`.
((string_literal)? @doc
  . (macrocall_expression
    (macro_identifier (identifier) @_m)
    (macro_argument_list . [(identifier) @name (typed_expression . (identifier) @name)])) @definition.enum
  (#eq? @_m "enum"))

((string_literal)? @doc
  . (macro_definition (signature (call_expression . (identifier) @name))) @definition.function)

; `const MAX = 10`, `const T::Int = 3`, `global const G = 1`; in `const A, B = 1, 2`
; each name is its own one-token constant.
((string_literal)? @doc
  . (const_statement
    (assignment . [(identifier) @name (typed_expression . (identifier) @name)])) @definition.constant)
(const_statement (assignment . (open_tuple (identifier) @name @definition.constant)))

; Functions: `function f(x)`, `function f(x)::T where {T}`, `function nobody end` and
; the short forms `f(x) = ...`, `f(x)::T = ...`, `f(x::T) where {T} = ...`, with
; names `f`, `Base.show`, `+`, `(+)`, `Base.:+`, `Base.:(==)`, `Vector{T}`. The
; wildcard levels are `::` return types and `where` clauses (an `f(x).a = 1` or
; `f(x)[i] = 1` assignment has neither, so it is no definition).
((string_literal)? @doc
  . (function_definition (signature (identifier) @name)) @definition.function)
((string_literal)? @doc
  . [(function_definition
      (signature
        [(call_expression
           . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
              (field_expression (identifier) .) @name
              (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
              (field_expression . (identifier) @receiver
                (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
         (_ . (call_expression
           . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
              (field_expression (identifier) .) @name
              (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
              (field_expression . (identifier) @receiver
                (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
            ["::" "where"])
         (_ . (_ . (call_expression
           . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
              (field_expression (identifier) .) @name
              (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
              (field_expression . (identifier) @receiver
                (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
                 ["::" "where"])
            "where")]))
     (assignment
       . [(call_expression
          . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
             (field_expression (identifier) .) @name
             (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
             (field_expression . (identifier) @receiver
               (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
        (_ . (call_expression
          . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
             (field_expression (identifier) .) @name
             (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
             (field_expression . (identifier) @receiver
               (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
           ["::" "where"])
        (_ . (_ . (call_expression
          . [(identifier) @name (operator) @name (parenthesized_expression (operator)) @name
             (field_expression (identifier) .) @name
             (parametrized_type_expression . [(identifier) (field_expression (identifier) .)] @name)
             (field_expression . (identifier) @receiver
               (quote_expression [(operator) (parenthesized_expression (operator))] @name))])
                ["::" "where"])
           "where")])] @definition.function)

; Functions defined in `let`, `while`, `try` and `do` blocks and in `@testset`s are
; local closures (a `for` loop is not listed: `for T in types; @eval f(x::$T) = ...`
; defines global methods).
[(let_statement) (while_statement) (try_statement) (do_clause)] @local
((macrocall_expression (macro_identifier (identifier) @_testset)) @local
  (#match? @_testset "^(testset|testitem)$"))

(using_statement [(identifier) (import_path)] @import)
(using_statement (selected_import . [(identifier) (import_path)] @import))
(import_statement [(identifier) (import_path)] @import)
(import_statement (selected_import . [(identifier) (import_path)] @import))
