; Solidity symbols. Conventions: see core/parse.py.
;
; `contract` (abstract or not) and `library` are classes, `interface` an
; interface; their functions and modifiers are methods (`Token.transfer`), as are
; `constructor`, `receive` and `fallback` (named by that keyword). Functions at
; file level are functions. `struct`, `enum` and user-defined value types
; (`type Price is uint128`) are struct/enum/type; `event` and custom `error`
; declarations are types (a log or revert payload, not callable code). File-level
; constants and `constant`/`immutable` state variables are constants; other state
; variables are fields, not symbols. NatSpec `///` comments above are the doc.

(contract_declaration name: (identifier) @name) @definition.class
(library_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface

(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(constructor_definition "constructor" @name) @definition.function
(fallback_receive_definition ["receive" "fallback"] @name) @definition.function

(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(user_defined_type_definition name: (identifier) @name) @definition.type
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type

(constant_variable_declaration name: (identifier) @name) @definition.constant
(state_variable_declaration "constant" name: (identifier) @name) @definition.constant
(state_variable_declaration (immutable) name: (identifier) @name) @definition.constant

(import_directive source: (string) @import)
