; Erlang symbols. Conventions: see core/parse.py.
; Each clause of a function is its own `fun_decl` here; languages.json sets
; `merge_clauses`, so `f(0) -> ...; f(N) -> ...` is one symbol, from the `-spec`/`-doc`
; above it (`attached`) to its last clause. The module is its `-module(name).` line.

(module_attribute name: (atom) @name) @definition.module

(fun_decl clause: (function_clause name: (atom) @name)) @definition.function

; Behaviour callbacks: the functions a callback module must provide.
(callback fun: (atom) @name) @definition.function

(record_decl name: (atom) @name) @definition.struct
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type

; `-define(TIMEOUT, 5000).` is a constant, `-define(MAX(A, B), ...)` a function-like macro.
(pp_define lhs: (macro_lhs name: (_) @name !args)) @definition.constant
(pp_define lhs: (macro_lhs name: (_) @name args: (_))) @definition.function

(behaviour_attribute name: (atom) @import)
(import_attribute module: (atom) @import)
(pp_include file: (string) @import)
(pp_include_lib file: (string) @import)
