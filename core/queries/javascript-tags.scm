; JavaScript symbols, as people actually write them. Conventions: see core/parse.py.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; const handler = function () {} / const handler = async () => {} / const Foo = class {}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
(variable_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class

; app.use = function use(fn) {}, res.send = function send(body) {},
; Router.prototype.handle = function () {}, exports.json = function () {}
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @receiver
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function) (generator_function)])
  (#not-eq? @name "exports")) @definition.method

; req.get = req.header = function header(name) {}: the inner assignment is the definition.
(assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function) (generator_function)]
  (#not-eq? @name "exports")) @definition.method

; module.exports = function createApplication() {}
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @_exports)
    right: (function_expression name: (identifier) @name))
  (#eq? @_exports "exports")) @definition.function

; Object literals bound to a name are scopes; their function members are methods.
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (object))) @scope.object
(variable_declaration
  (variable_declarator name: (identifier) @name value: (object))) @scope.object
(expression_statement
  (assignment_expression left: (_) @name right: (object))) @scope.object
(pair
  key: [(property_identifier) (string) (computed_property_name)] @name
  value: [(function_expression) (arrow_function) (generator_function)]) @definition.function

; Module-level constants: const MAX_AGE = 60 (not require() calls).
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name value: (_) @_value)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require\\("))

; A module-level constant of any case with a JSDoc comment right above it: the comment says
; the value is part of the module's meaning (`/** ... */ const hasStandardBrowserEnv = ...`).
; Undocumented camelCase values stay out: they are locals of the module, not its API.
(program
  (comment) @_doc
  .
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(binary_expression) (call_expression) (member_expression) (identifier) (string)
              (number) (template_string) (array) (parenthesized_expression)
              (ternary_expression) (unary_expression) (new_expression) (await_expression)
              (true) (false) (regex)] @_value)) @definition.constant
  (#match? @_doc "^/[*][*]")
  (#not-match? @name "^[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require\\("))

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
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @import)
  (#eq? @_require "require"))

; defineGetter(req, 'protocol', function protocol() {}): a getter named on its receiver.
(expression_statement
  (call_expression
    function: (identifier) @_define
    arguments: (arguments
      .
      (identifier) @receiver
      .
      (string (string_fragment) @name)
      .
      [(function_expression) (arrow_function)]))
  (#match? @_define "^define(Getter|Property|Accessor)$")) @definition.method

; Callbacks of effect and lifecycle hooks are function bodies: what they define is local.
(call_expression
  function: [(identifier) (member_expression)] @_hook
  arguments: (arguments [(arrow_function) (function_expression)] @local)
  (#match? @_hook "^([$]effect|[$]effect[.]pre|[$]derived[.]by|onMount|onDestroy|onMounted|onBeforeMount|onUnmounted|onBeforeUnmount|watch|watchEffect|computed|useEffect|useLayoutEffect|useCallback|useMemo)$"))
