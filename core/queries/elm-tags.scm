; Elm symbols. Conventions: see core/parse.py.
;
; A module is its whole file (Elm has one module per file), so top-level
; definitions read `Page.Home.update`. Every top-level value declaration is a
; function (Elm values are zero-argument functions), and its type annotation and
; doc comment directly above belong to it (`attached`); `let` bindings are
; locals. A `port` is a function; `type alias` is a type and a custom type
; (`type Msg = A | B Int`) an enum, whose variants are not separate symbols.

(file
  moduleDeclaration: (module_declaration name: (upper_case_qid) @name)) @definition.module

(file (value_declaration (function_declaration_left . (lower_case_identifier) @name)) @definition.function)
(file (port_annotation name: (lower_case_identifier) @name) @definition.function)

(file (type_alias_declaration name: (upper_case_identifier) @name) @definition.type)
(file (type_declaration name: (upper_case_identifier) @name) @definition.enum)

(import_clause moduleName: (upper_case_qid) @import)
