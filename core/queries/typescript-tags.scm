; TypeScript symbols. Conventions: see core/parse.py.
; Also used for TSX (languages.json: "query": "typescript"): the tsx grammar has the same node names.

; Object literals bound to a name are scopes; their function members are methods. Members of
; other object literals (call arguments, nested objects) are not symbols.
(variable_declarator
  name: (identifier) @name
  value: [(object) (as_expression (object)) (satisfies_expression (object))]) @scope.object
(variable_declarator
  value: (object
    (pair
      key: [(property_identifier) (string) (computed_property_name)] @name
      value: [(function_expression) (arrow_function) (generator_function)]) @definition.function))
(variable_declarator
  value: (object
    (method_definition
      name: [(property_identifier) (private_property_identifier)] @name) @definition.method))
(variable_declarator
  value: (as_expression (object
    (pair
      key: [(property_identifier) (string) (computed_property_name)] @name
      value: [(function_expression) (arrow_function) (generator_function)]) @definition.function)))
(variable_declarator
  value: (as_expression (object
    (method_definition
      name: [(property_identifier) (private_property_identifier)] @name) @definition.method)))
(variable_declarator
  value: (satisfies_expression (object
    (pair
      key: [(property_identifier) (string) (computed_property_name)] @name
      value: [(function_expression) (arrow_function) (generator_function)]) @definition.function)))
(variable_declarator
  value: (satisfies_expression (object
    (method_definition
      name: [(property_identifier) (private_property_identifier)] @name) @definition.method)))

; Module-level constants: const MAX_RETRIES = 3 (not require() calls). After the object scope
; (CONFIG = {...} is a constant) and before functions (HANDLER = () => {} is a function).
((lexical_declaration
  (variable_declarator name: (identifier) @name value: (_) @_value)) @definition.constant
  (#match? @definition.constant "^const\\s")
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require\\("))

; A module-level constant of any case with a JSDoc comment right above it (see javascript-tags.scm).
(program
  (comment) @_doc
  .
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(binary_expression) (call_expression) (member_expression) (identifier) (string)
              (number) (template_string) (array) (parenthesized_expression)
              (ternary_expression) (unary_expression) (new_expression) (await_expression)
              (true) (false) (regex) (as_expression) (satisfies_expression)
              (non_null_expression)] @_value)) @definition.constant
  (#match? @_doc "^/[*][*]")
  (#not-match? @name "^[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require\\("))

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
; `declare function f(): void;` and overload signatures (one symbol each, like Python @overload).
(function_signature name: (identifier) @name) @definition.function

; const handler = async () => {} / const handler: Handler = function () {}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
; Wrapped components and handlers: const Page = lazy(() => ...), const Button = memo(forwardRef(...)).
((lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function
  (#match? @name "^[A-Z][a-z]"))
((lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (call_expression
      arguments: (arguments
        (call_expression arguments: (arguments [(arrow_function) (function_expression)])))))) @definition.function
  (#match? @name "^[A-Z][a-z]"))

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum

; namespace Codec {}, namespace A.B {}, module Legacy {}, declare module "express" {}
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: (string (string_fragment) @name)) @definition.module

; Class and interface members (`declare class` bodies and overloads use method_signature).
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(class_body
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(interface_body
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
; static readonly VERSION = "1.0"
((public_field_definition
  name: (property_identifier) @name) @definition.constant
  (#match? @definition.constant "^(@.*\\s+)?((public|private|protected|declare|override)\\s+)*(static|readonly)\\s")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; export default () => {} / export default function () {}: no name of its own, so it is
; named after its file (`parseHeaders.js` -> parseHeaders; `Button/index.js` -> Button).
(export_statement
  "default" @name.file
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(export_statement
  "default" @name.file
  value: (class)) @definition.class

(import_statement source: (string) @import)

; What an `index` file re-exports (`export {a, b} from './x'`): the package's public API
; (collected only from the entry files `languages.json` names).
(export_specifier name: (identifier) @export)
(import_require_clause source: (string) @import)
(export_statement source: (string) @import)
((call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import))
  (#eq? @_require "require"))
(call_expression
  function: (import)
  arguments: (arguments . (string) @import))

; Callbacks of effect and lifecycle hooks are function bodies: what they define is local.
(call_expression
  function: [(identifier) (member_expression)] @_hook
  arguments: (arguments [(arrow_function) (function_expression)] @local)
  (#match? @_hook "^([$]effect|[$]effect[.]pre|[$]derived[.]by|onMount|onDestroy|onMounted|onBeforeMount|onUnmounted|onBeforeUnmount|watch|watchEffect|computed|useEffect|useLayoutEffect|useCallback|useMemo)$"))
