; Dart symbols. Conventions: see core/parse.py.
; The grammar keeps a function's signature and its body as sibling nodes
; (`function_signature` / `method_signature`, then `function_body`): the signature is
; the definition, and `@body` marks the body that belongs to it. Until the extractor
; honours `@body`, a function's range is its signature (see the helpers' report).
; Named extensions are classes (`StringX.shout`); an unnamed `extension on T` is a scope
; named after T. Local functions live in bodies and are not matched.

(class_definition name: (identifier) @name) @definition.class
(class_definition (interface) name: (identifier) @name) @definition.interface
(mixin_declaration (identifier) @name) @definition.trait
(extension_declaration name: (identifier) @name) @definition.class
(extension_declaration !name class: (type_identifier) @name) @scope.impl
(extension_type_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum

; `typedef Json = Map<String, dynamic>;`, `typedef Handler<E> = ...` and the old
; `typedef void Callback(int x);`.
(type_alias . (type_identifier) @name . "=") @definition.type
(type_alias . (type_identifier) @name . (type_parameters) . "=") @definition.type
(type_alias (type_identifier) @name . (formal_parameter_list)) @definition.type

; --- top-level functions, getters and setters.
(program
  (function_signature name: (identifier) @name) @definition.function
  .
  (function_body) @body)
(program
  (getter_signature name: (identifier) @name) @definition.function
  .
  (function_body) @body)
(program
  (setter_signature name: (identifier) @name) @definition.function
  .
  (function_body) @body)

; --- members: methods, getters, setters, constructors (`Point.new` is `Point.Point`,
; `Point.origin()` is `Point.origin`), factories; abstract ones have no body.
(_
  (method_signature
    [
      (function_signature name: (identifier) @name)
      (getter_signature name: (identifier) @name)
      (setter_signature name: (identifier) @name)
      (constructor_signature . name: (identifier) @name . parameters: (formal_parameter_list))
      (constructor_signature name: (identifier) name: (identifier) @name)
      (factory_constructor_signature . (identifier) @name . (formal_parameter_list))
      (factory_constructor_signature (identifier) . (identifier) @name)
    ]) @definition.method
  .
  (function_body) @body)
(declaration
  [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
    (constructor_signature . name: (identifier) @name . parameters: (formal_parameter_list))
    (constructor_signature name: (identifier) name: (identifier) @name)
    (factory_constructor_signature . (identifier) @name . (formal_parameter_list))
    (factory_constructor_signature (identifier) . (identifier) @name)
    (constant_constructor_signature (const_builtin) . (identifier) @name . (formal_parameter_list))
    (constant_constructor_signature (identifier) . (identifier) @name)
    (redirecting_factory_constructor_signature . (const_builtin)? . (identifier) @name . (formal_parameter_list))
    (redirecting_factory_constructor_signature (identifier) . (identifier) @name)
  ]) @definition.method

; --- constants: top-level `const`/`final`, class-level `static const`/`static final`.
(program
  (static_final_declaration_list . (static_final_declaration . (identifier) @name) .) @definition.constant)
(class_body
  (declaration
    (static_final_declaration_list . (static_final_declaration . (identifier) @name) .)) @definition.constant)

(library_import (import_specification (configurable_uri (uri (string_literal) @import))))
(library_export (configurable_uri (uri (string_literal) @import)))
