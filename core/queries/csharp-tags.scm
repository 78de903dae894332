; C# symbols. Conventions: see core/parse.py.
;
; Namespaces prefix qualnames. A file-scoped `namespace Foo.Bar;` names the
; rest of the file, so the whole compilation unit is its scope.

(namespace_declaration name: (_) @name) @scope.namespace
(compilation_unit
  (file_scoped_namespace_declaration name: (_) @name)) @scope.namespace

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(record_declaration "struct" name: (identifier) @name) @definition.struct
; `delegate void StockChanged(string sku, int delta);` declares a function type.
(delegate_declaration name: (identifier) @name) @definition.type

; Methods (with or without a body: interface and abstract members count) and
; constructors. Properties, indexers, events, operators and finalizers are not
; indexed; they stay part of their type's text.
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
; Local functions in top-level statements (C# 9 programs).
(global_statement
  (local_function_statement name: (identifier) @name) @definition.function)

; `const` fields. `const int A = 1, B = 2;` gives one symbol per declarator;
; a single declarator's symbol is the whole field, with modifiers and docs.
((field_declaration
  (modifier) @_const
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.constant))
  (#eq? @_const "const"))
((field_declaration
  (modifier) @_const
  (variable_declaration
    type: (_)
    .
    (variable_declarator name: (identifier) @name)
    .)) @definition.constant
  (#eq? @_const "const"))

; `using System.Text;`, `using static System.Math;`, `global using X;`, and the
; target of an alias (`using Json = System.Text.Json;`).
(using_directive
  !name
  [(identifier) (qualified_name) (alias_qualified_name)] @import)
(using_directive
  name: (_)
  .
  [(identifier) (qualified_name) (alias_qualified_name)] @import)
