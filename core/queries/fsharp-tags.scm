; F# symbols. Conventions: see core/parse.py.
; `namespace A.B` prefixes qualnames; modules (`module Core =`, a file's
; `module A.Utils`) are modules; records are structs, unions and enums enums,
; classes classes, interfaces interfaces, abbreviations types. `let` functions count
; in files, namespaces, modules and types (a class's private helpers); `let` values
; only in files, namespaces and modules (in a class they are fields).

(namespace name: (long_identifier) @name) @scope.namespace
(named_module name: (long_identifier) @name) @definition.module
(module_defn (identifier) @name) @definition.module

; --- types.
(type_definition (anon_type_defn (type_name type_name: (identifier) @name))) @definition.class
(type_definition (record_type_defn (type_name type_name: (identifier) @name))) @definition.struct
(type_definition (union_type_defn (type_name type_name: (identifier) @name))) @definition.enum
(type_definition (enum_type_defn (type_name type_name: (identifier) @name))) @definition.enum
; A single-case union is a wrapper type (`type OrderId = OrderId of int`); so is what the
; grammar reads as one (`type Money = decimal`, an abbreviation).
(type_definition
  (union_type_defn
    (type_name type_name: (identifier) @name)
    block: (union_type_cases . (union_type_case) .))) @definition.type
(type_definition (interface_type_defn (type_name type_name: (identifier) @name))) @definition.interface
; `type IShape = abstract Area : float`: .NET names interfaces `I...`.
((type_definition (anon_type_defn (type_name type_name: (identifier) @name))) @definition.interface
  (#match? @name "^I[A-Z]"))
(type_definition (type_abbrev_defn (type_name type_name: (identifier) @name))) @definition.type
(type_definition (delegate_type_defn (type_name type_name: (identifier) @name))) @definition.type
(exception_definition exception_name: (long_identifier) @name) @definition.type

; `type Shape with member ...` (an extension): its members are `Shape.member`.
(type_definition (type_extension (type_name type_name: (identifier) @name))) @scope.impl

; --- members: `member this.Area = ...`, `static member Create() = ...`,
; `abstract Area : unit -> float`, `override x.ToString() = ...`.
(member_defn (method_or_prop_defn name: (property_or_ident method: (identifier) @name))) @definition.method
(member_defn (method_or_prop_defn name: (property_or_ident . (identifier) @name .))) @definition.method
(member_defn (member_signature . (identifier) @name)) @definition.method

; --- let bindings: functions anywhere declarations live (`let private f x`, too) ...
(declaration_expression
  (function_or_value_defn
    .
    [
      (function_declaration_left . (identifier) @name)
      (function_declaration_left . (access_modifier) . (identifier) @name)
    ])) @definition.function
(type_extension_elements
  (function_or_value_defn
    .
    [
      (function_declaration_left . (identifier) @name)
      (function_declaration_left . (access_modifier) . (identifier) @name)
    ]) @definition.function)

; The grammar sometimes reads `let f (x: T) =` as a pattern (`f` applied to `(x: T)`).
(declaration_expression
  (function_or_value_defn
    .
    (value_declaration_left
      (identifier_pattern . (long_identifier_or_op [(identifier) @name (long_identifier . (identifier) @name .)]) . (_))))) @definition.function

; ... values in files, namespaces and modules: `let timeout = 30`, `[<Literal>] let Max = 10`,
; `let internal cache = ...`.
(file
  (declaration_expression
    (function_or_value_defn
      .
      (value_declaration_left (identifier_pattern . (long_identifier_or_op [(identifier) @name (long_identifier . (identifier) @name .)]) .)))) @definition.constant)
(named_module
  (declaration_expression
    (function_or_value_defn
      .
      (value_declaration_left (identifier_pattern . (long_identifier_or_op [(identifier) @name (long_identifier . (identifier) @name .)]) .)))) @definition.constant)
(namespace
  (declaration_expression
    (function_or_value_defn
      .
      (value_declaration_left (identifier_pattern . (long_identifier_or_op [(identifier) @name (long_identifier . (identifier) @name .)]) .)))) @definition.constant)
(module_defn
  (declaration_expression
    (function_or_value_defn
      .
      (value_declaration_left (identifier_pattern . (long_identifier_or_op [(identifier) @name (long_identifier . (identifier) @name .)]) .)))) @definition.constant)

(import_decl (long_identifier) @import)

; The grammar reads a bare `///` line (an empty line of a doc comment) as an infix operator
; that continues the expression above, or as an error: it is a comment.
((infix_op) @comment (#match? @comment "^///*$"))
((ERROR) @comment (#match? @comment "^///*$"))
