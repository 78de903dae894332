; Python symbols. Conventions: see core/parse.py (docstrings are found generically).

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module- and class-level UPPER_CASE constants: `MAX_SIZE = 10`, `TIMEOUT: float = 1.0`.
; Imports hidden behind calls (`X = importlib.import_module(...)`) are not constants.
(module
  (assignment
    left: (identifier) @name
    right: (_) @_value) @definition.constant
  (#match? @name "^_?[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^(__import__|importlib\\.|import_module)"))

(class_definition
  body: (block
    (assignment
      left: (identifier) @name) @definition.constant)
  (#match? @name "^_?[A-Z][A-Z0-9_]*$"))

; Type aliases: `Handler: TypeAlias = Callable[...]` and `type Handler = Callable[...]`.
(module
  (assignment
    left: (identifier) @name
    type: (type) @_t) @definition.type
  (#match? @_t "TypeAlias$"))

(type_alias_statement
  (type (identifier) @name)) @definition.type

(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (dotted_name) @import)
(import_from_statement module_name: (relative_import) @import)

; What a package's `__init__.py` re-exports, and its `__all__`: the public API
; (collected only from the entry files `languages.json` names).
(import_from_statement name: (dotted_name . (identifier) @export .))
(import_from_statement name: (aliased_import name: (dotted_name . (identifier) @export .)))
(expression_statement
  (assignment
    left: (identifier) @_all
    right: [(list (string (string_content) @export)) (tuple (string (string_content) @export))])
  (#eq? @_all "__all__"))
