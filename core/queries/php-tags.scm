; PHP symbols. Conventions: see core/parse.py.
;
; Namespaces prefix qualnames. They are captured as `@scope.package`, not
; `@scope.namespace`: the extractor turns functions inside CONTAINER_KINDS into
; methods, and a namespaced function is still a function. The statement form
; `namespace App\Billing;` names the rest of the file, so the whole program is
; its scope; the braced form scopes its block.

(namespace_definition name: (_) @name body: (_)) @scope.package
(program (namespace_definition name: (_) @name !body)) @scope.package

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

; Methods (abstract and interface ones included) and functions, also those
; declared under `if (!function_exists(...))`. Closures are not symbols.
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function

; `const TAX_RATE = 21;` in a class, interface, enum or file. `const A = 1, B = 2;`
; gives one symbol per element; a single element's symbol is the whole
; declaration, with modifiers and docs.
(const_declaration (const_element . (name) @name) @definition.constant)
(const_declaration . (const_element . (name) @name) .) @definition.constant
(const_declaration
  [(visibility_modifier) (final_modifier) (attribute_list)]
  .
  (const_element . (name) @name)
  .) @definition.constant
(const_declaration type: (_) . (const_element . (name) @name) .) @definition.constant

; `define('APP_ROOT', __DIR__);`
((expression_statement
  (function_call_expression
    function: (name) @_define
    arguments: (arguments . (argument (string . (string_content) @name .))))) @definition.constant
  (#eq? @_define "define"))

; `use App\Models\Customer;`, `use Psr\Log\LoggerInterface as Logger;`,
; `use function App\Support\money_format;`. A group use
; (`use App\Events\{InvoicePaid, InvoiceVoided};`) imports from its prefix.
(namespace_use_declaration
  (namespace_use_clause . [(qualified_name) (name)] @import))
(namespace_use_declaration
  (namespace_name) @import
  body: (namespace_use_group))
