; Scala 2/3 symbols. Conventions: see core/parse.py.
; `object`s (including `case object`s and package objects) are modules, so an
; object and its companion class get distinct IDs (`Foo#class`, `Foo#module`).
; Extensions and givens are scopes: their defs read `Type.method`.

(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(object_definition name: (identifier) @name) @definition.module
(package_object name: (identifier) @name) @definition.module

(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function

(type_definition name: (type_identifier) @name) @definition.type

; `extension (i: Invoice) def total` / `extension [T](xs: List[T]) { ... }`
(extension_definition
  parameters: (parameters . (parameter type: (_) @name))) @scope.impl

; `given Ordering[Invoice] with ...` (named after its type) and `given intOrd: ...`
(given_definition !name return_type: (_) @name) @scope.impl
(given_definition name: (identifier) @name) @scope.impl

; Constants: capitalised `val`s at top level and in objects (`val MaxLines`, `val DEFAULT_TTL`).
(compilation_unit
  (val_definition pattern: (identifier) @name) @definition.constant
  (#match? @name "^[A-Z]"))
(object_definition
  body: (template_body
    (val_definition pattern: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z]"))
(package_object
  body: (template_body
    (val_definition pattern: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z]"))

; The grammar has no node for a dotted import path (`path:` is a flat run of
; identifiers): each part is captured and the extractor joins them, so
; `import java.time.Instant` -> java.time.Instant and
; `import scala.concurrent.{A, B}` -> scala.concurrent.
(import_declaration (identifier) @import.part) @import.group
