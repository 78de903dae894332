; Kotlin symbols. Conventions: see core/parse.py.
; `object` declarations (and named companion objects) are classes; an unnamed
; `companion object` is transparent, so its members read `Outer.member`.

(class_declaration (type_identifier) @name) @definition.class
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration "enum" (type_identifier) @name) @definition.enum

(object_declaration (type_identifier) @name) @definition.class
(companion_object (type_identifier) @name) @definition.class

(function_declaration (simple_identifier) @name) @definition.function

; Extension functions: `fun Item.describe()`, `fun <T> List<T>.second()`, `fun String?.orEmpty()`.
(function_declaration
  receiver: (receiver_type
    [(user_type) @receiver
     (nullable_type (user_type) @receiver)])
  (simple_identifier) @name) @definition.function

(type_alias (type_identifier) @name) @definition.type

; `const val` anywhere it is legal (top level, objects, companions).
(property_declaration
  (modifiers (property_modifier) @_const)
  (variable_declaration (simple_identifier) @name)
  (#eq? @_const "const")) @definition.constant

; UPPER_CASE `val`s at top level and in objects / companion objects.
(source_file
  (property_declaration
    (binding_pattern_kind) @_val
    (variable_declaration (simple_identifier) @name)) @definition.constant
  (#eq? @_val "val")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(object_declaration
  (class_body
    (property_declaration
      (binding_pattern_kind) @_val
      (variable_declaration (simple_identifier) @name)) @definition.constant)
  (#eq? @_val "val")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(companion_object
  (class_body
    (property_declaration
      (binding_pattern_kind) @_val
      (variable_declaration (simple_identifier) @name)) @definition.constant)
  (#eq? @_val "val")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(import_header (identifier) @import)
