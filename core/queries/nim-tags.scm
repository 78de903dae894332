; Nim symbols. Conventions: see core/parse.py.
;
; `proc`, `func`, `iterator`, `converter`, `template` and `macro` are functions
; (forward declarations without a body are skipped); a `method` is a method of
; the type of its first parameter (`method speak(s: Shape)` is `Shape.speak`, as
; Go receivers are). Names are taken without the export marker (`area*` is
; `area`) or backquotes (`` `$` `` is `$`). In a `type` section, `object` is a
; struct, `ref object` and `object of Base` are classes, `enum` an enum, `concept`
; an interface and anything else (distinct, alias, `ref Foo`, tuple, proc types)
; a type; fields are not symbols. `const` names are constants; `let`/`var`
; globals are not. A `##` doc comment opening a routine's body is its doc.

(proc_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)
         (accent_quoted (_) @name) (exported_symbol (accent_quoted (_) @name))]
  (documentation_comment)? @doc
  body: (_)) @definition.function
(func_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)
         (accent_quoted (_) @name) (exported_symbol (accent_quoted (_) @name))]
  (documentation_comment)? @doc
  body: (_)) @definition.function
(iterator_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)]
  (documentation_comment)? @doc
  body: (_)) @definition.function
(converter_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)]
  (documentation_comment)? @doc
  body: (_)) @definition.function
(template_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)
         (accent_quoted (_) @name) (exported_symbol (accent_quoted (_) @name))]
  (documentation_comment)? @doc
  body: (_)) @definition.function
(macro_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)]
  (documentation_comment)? @doc
  body: (_)) @definition.function

(method_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)
         (accent_quoted (_) @name) (exported_symbol (accent_quoted (_) @name))]
  (documentation_comment)? @doc
  body: (_)) @definition.method
(method_declaration
  name: [(identifier) @name (exported_symbol (identifier) @name)
         (accent_quoted (_) @name) (exported_symbol (accent_quoted (_) @name))]
  parameters: (parameter_declaration_list
    . (parameter_declaration
      type: (type_expression [(identifier) @receiver
                              (var_type (type_expression (identifier) @receiver))
                              (ref_type (type_expression (identifier) @receiver))])))
  (documentation_comment)? @doc
  body: (_)) @definition.method

; Types.
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  [(distinct_type) (type_expression) (tuple_type)
   (ref_type (type_expression)) (pointer_type (type_expression))]) @definition.type
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (object_declaration !inherits)) @definition.struct
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  [(object_declaration inherits: (_)) (ref_type (object_declaration)) (pointer_type (object_declaration))]) @definition.class
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (enum_declaration)) @definition.enum
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (concept_declaration)) @definition.interface

(const_section
  (variable_declaration
    (symbol_declaration_list
      (symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]))) @definition.constant)

; `import os, json`, `import std/strutils`, `import std/[os, strutils]`,
; `from math import sqrt`, `include helpers`.
(import_statement (expression_list (identifier) @import))
(import_statement (expression_list (infix_expression right: (identifier)) @import))
(import_statement (expression_list (infix_expression right: (array_construction (identifier) @import))))
(import_from_statement module: (_) @import)
(include_statement (expression_list (_) @import))
