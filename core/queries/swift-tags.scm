; Swift symbols. Conventions: see core/parse.py.
; Extensions are scopes named after the extended type, so their members read
; `Type.member`. Constants: every file-scope `let` and every `static let` in a
; type (Swift names constants in lowerCamelCase, so names are not filtered).

(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @scope.impl
(protocol_declaration name: (type_identifier) @name) @definition.interface

(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method

(typealias_declaration name: (type_identifier) @name) @definition.type
(associatedtype_declaration name: (type_identifier) @name) @definition.type

(source_file
  (property_declaration
    (value_binding_pattern) @_let
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant
  (#eq? @_let "let"))

(property_declaration
  (modifiers (property_modifier) @_static)
  (value_binding_pattern) @_let
  name: (pattern bound_identifier: (simple_identifier) @name)
  (#eq? @_static "static")
  (#eq? @_let "let")) @definition.constant

(import_declaration (identifier) @import)
