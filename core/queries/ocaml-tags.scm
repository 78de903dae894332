; OCaml symbols (.ml). Conventions: see core/parse.py.
; Modules nest (`Counter.Inner.deep`), module types are interfaces, records are
; structs, variants enums, exceptions types. A lone `let`/`type`/`module` item spans
; the whole item (with the doc comment above it); in an `and` group each binding is
; its own symbol, from its name on. Items count in a file, in a `struct`, and in a
; module type's `sig`; a `module M : sig ... end = struct` states its items twice, and
; the struct's count. `let ... in` inside an expression is local.

; --- let-bound values: a binding without parameters is a constant (not `let _ = ...` or
; `_unused`; `let _PATH = ...` is a name) ...
(compilation_unit
  (value_definition . (let_binding pattern: (value_name) @name) .) @definition.constant
  (#not-match? @name "^_($|[a-z0-9_])"))
(structure
  (value_definition . (let_binding pattern: (value_name) @name) .) @definition.constant
  (#not-match? @name "^_($|[a-z0-9_])"))
(compilation_unit
  (value_definition (let_binding pattern: (value_name) @name) @definition.constant)
  (#not-match? @name "^_($|[a-z0-9_])"))
(structure
  (value_definition (let_binding pattern: (value_name) @name) @definition.constant)
  (#not-match? @name "^_($|[a-z0-9_])"))

; ... and one with parameters, or bound to `fun`/`function` (also behind a `let ... in`
; closure: `let next = let n = ref 0 in fun () -> ...`), is a function (`let ( >>= ) m f` too).
(compilation_unit
  (value_definition
    .
    [
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name (parameter))
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name
        body: [
          (fun_expression)
          (function_expression)
          (let_expression body: [(fun_expression) (function_expression)])
        ])
    ]
    .) @definition.function)
(structure
  (value_definition
    .
    [
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name (parameter))
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name
        body: [
          (fun_expression)
          (function_expression)
          (let_expression body: [(fun_expression) (function_expression)])
        ])
    ]
    .) @definition.function)
(compilation_unit
  (value_definition
    [
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name (parameter))
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name
        body: [
          (fun_expression)
          (function_expression)
          (let_expression body: [(fun_expression) (function_expression)])
        ])
    ] @definition.function))
(structure
  (value_definition
    [
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name (parameter))
      (let_binding pattern: [(value_name) (parenthesized_operator)] @name
        body: [
          (fun_expression)
          (function_expression)
          (let_expression body: [(fun_expression) (function_expression)])
        ])
    ] @definition.function))

(compilation_unit (external (value_name) @name) @definition.function)
(structure (external (value_name) @name) @definition.function)

; `val` declarations in a module type.
(module_type_definition
  body: (signature
    (value_specification (value_name) @name type: (function_type)) @definition.function))
(module_type_definition
  body: (signature
    (value_specification (value_name) @name type: (_) @_t) @definition.constant)
  (#not-match? @_t "->"))

; --- types: `type t = { ... }` struct, `type t = A | B` enum, anything else a type
; (not `type t += A`, which extends one).
(compilation_unit
  (type_definition . (type_binding name: (type_constructor) @name) .) @definition.type)
(structure
  (type_definition . (type_binding name: (type_constructor) @name) .) @definition.type)
(module_type_definition body: (signature
  (type_definition . (type_binding name: (type_constructor) @name) .) @definition.type))
(compilation_unit
  (type_definition (type_binding name: (type_constructor) @name) @definition.type))
(structure
  (type_definition (type_binding name: (type_constructor) @name) @definition.type))
(module_type_definition body: (signature
  (type_definition (type_binding name: (type_constructor) @name) @definition.type)))

(compilation_unit
  (type_definition
    . (type_binding name: (type_constructor) @name body: (record_declaration)) .) @definition.struct)
(structure
  (type_definition
    . (type_binding name: (type_constructor) @name body: (record_declaration)) .) @definition.struct)
(module_type_definition body: (signature
  (type_definition
    . (type_binding name: (type_constructor) @name body: (record_declaration)) .) @definition.struct))
(compilation_unit
  (type_definition
    (type_binding name: (type_constructor) @name body: (record_declaration)) @definition.struct))
(structure
  (type_definition
    (type_binding name: (type_constructor) @name body: (record_declaration)) @definition.struct))
(module_type_definition body: (signature
  (type_definition
    (type_binding name: (type_constructor) @name body: (record_declaration)) @definition.struct)))

(compilation_unit
  (type_definition
    . (type_binding name: (type_constructor) @name body: (variant_declaration)) .) @definition.enum)
(structure
  (type_definition
    . (type_binding name: (type_constructor) @name body: (variant_declaration)) .) @definition.enum)
(module_type_definition body: (signature
  (type_definition
    . (type_binding name: (type_constructor) @name body: (variant_declaration)) .) @definition.enum))
(compilation_unit
  (type_definition
    (type_binding name: (type_constructor) @name body: (variant_declaration)) @definition.enum))
(structure
  (type_definition
    (type_binding name: (type_constructor) @name body: (variant_declaration)) @definition.enum))
(module_type_definition body: (signature
  (type_definition
    (type_binding name: (type_constructor) @name body: (variant_declaration)) @definition.enum)))

(compilation_unit
  (exception_definition (constructor_declaration (constructor_name) @name)) @definition.type)
(structure
  (exception_definition (constructor_declaration (constructor_name) @name)) @definition.type)
(module_type_definition body: (signature
  (exception_definition (constructor_declaration (constructor_name) @name)) @definition.type))

; --- modules (functors too) and module types.
(compilation_unit
  (module_definition . (module_binding (module_name) @name) .) @definition.module)
(structure
  (module_definition . (module_binding (module_name) @name) .) @definition.module)
(module_type_definition body: (signature
  (module_definition . (module_binding (module_name) @name) .) @definition.module))
(compilation_unit
  (module_definition (module_binding (module_name) @name) @definition.module))
(structure
  (module_definition (module_binding (module_name) @name) @definition.module))
(module_type_definition body: (signature
  (module_definition (module_binding (module_name) @name) @definition.module)))

(compilation_unit (module_type_definition (module_type_name) @name) @definition.interface)
(structure (module_type_definition (module_type_name) @name) @definition.interface)
(module_type_definition body: (signature
  (module_type_definition (module_type_name) @name) @definition.interface))

; --- classes and their methods.
(compilation_unit
  (class_definition . (class_binding (class_name) @name) .) @definition.class)
(structure
  (class_definition . (class_binding (class_name) @name) .) @definition.class)
(compilation_unit
  (class_definition (class_binding (class_name) @name) @definition.class))
(structure
  (class_definition (class_binding (class_name) @name) @definition.class))
(compilation_unit
  (class_type_definition (class_type_binding (class_type_name) @name)) @definition.interface)
(structure
  (class_type_definition (class_type_binding (class_type_name) @name)) @definition.interface)
(class_binding
  body: (object_expression (method_definition (method_name) @name) @definition.method))

; `open Stdune` at module level (a `let open M in` is a local scope); a file-level
; `include Dag_intf` (an `include` inside a module usually names a sibling module).
(compilation_unit (open_module module: (module_path) @import))
(structure (open_module module: (module_path) @import))
(compilation_unit (include_module module: (module_path) @import))
