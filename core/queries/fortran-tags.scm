; Fortran symbols. Conventions: see core/parse.py.
;   module, submodule, program          -> module (procedures inside: `geometry.distance`)
;   function, subroutine, module procedure -> function (internal procedures are local)
;   derived type                        -> struct; its type-bound `procedure` bindings -> methods
;   named interface (generic)           -> interface; procedures declared inside -> its methods
;   procedures declared in an unnamed or abstract interface block (external and C-bound
;   procedures, abstract interfaces)    -> functions
;   module-level `parameter` constants  -> constant
; Not symbols: variables, `generic`/`final` bindings, enumerators, block data, `use` lists.

(module (module_statement (name) @name)) @definition.module
(submodule (submodule_statement (name) @name)) @definition.module
(program (program_statement (name) @name)) @definition.module

(function (function_statement name: (name) @name)) @definition.function
(subroutine (subroutine_statement name: (name) @name)) @definition.function
(module_procedure (module_procedure_statement name: (name) @name)) @definition.function

(derived_type_definition (derived_type_statement (type_name) @name)) @definition.struct
(derived_type_procedures
  (procedure_statement
    (procedure_kind) @_kind
    declarator: [(binding (binding_name) @name) (method_name) @name]) @definition.method
  (#match? @_kind "(?i)^procedure$"))

(interface (interface_statement (name) @name)) @definition.interface

; Module-level named constants. One declarator: the whole declaration (with its comment);
; several (`integer, parameter :: a = 1, b = 2`): each declarator on its own.
(module
  (variable_declaration
    (type_qualifier)
    .
    (init_declarator left: [(identifier) @name (sized_declarator (identifier) @name)])
    .) @definition.constant
  (#match? @definition.constant "(?i)^[^:]*\\bparameter\\b[^:]*::"))
(module
  (variable_declaration
    (init_declarator left: [(identifier) @name (sized_declarator (identifier) @name)]) @definition.constant
    .
    (init_declarator)) @_decl
  (#match? @_decl "(?i)^[^:]*\\bparameter\\b[^:]*::"))
(module
  (variable_declaration
    (init_declarator)
    .
    (init_declarator left: [(identifier) @name (sized_declarator (identifier) @name)]) @definition.constant) @_decl
  (#match? @_decl "(?i)^[^:]*\\bparameter\\b[^:]*::"))

(use_statement (module_name) @import)
