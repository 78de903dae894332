; Java symbols. Conventions: see core/parse.py. Annotations live inside `modifiers`,
; so a definition's range already starts at its first annotation.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

; Bodies of enum constants and anonymous classes name their methods: Op.PLUS.apply,
; Store.NULL_SINK.OutputStream.write (anonymous classes inside method bodies stay local).
(enum_constant name: (identifier) @name body: (class_body)) @scope.object
(object_creation_expression type: (_) @name (class_body)) @scope.object

(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method

; Constants: `static final` UPPER_CASE fields, and interface fields (implicitly static final).
(field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator name: (identifier) @name)
  (#match? @_mods "\\bstatic\\b")
  (#match? @_mods "\\bfinal\\b")
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(import_declaration [(scoped_identifier) (identifier)] @import)
