; Rust symbols. Conventions: see core/parse.py.

(function_item name: (identifier) @name) @definition.function
; Required trait methods and `extern` block declarations.
(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(macro_definition name: (identifier) @name) @definition.function

; Inline modules only; `mod foo;` just points at another file.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module

; `impl Type`, `impl Trait for Type`, `impl<T> Trait for path::Type<T>`, `impl Trait for &Type`:
; methods are `Type.method`.
(impl_item
  type: [
    (type_identifier) @name
    (primitive_type) @name
    (scoped_type_identifier name: (_) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (_) @name))
    (reference_type type: (type_identifier) @name)
    (reference_type type: (primitive_type) @name)
    (reference_type type: (scoped_type_identifier name: (_) @name))
    (reference_type type: (generic_type type: (type_identifier) @name))
    (reference_type type: (generic_type type: (scoped_type_identifier name: (_) @name)))
    (dynamic_type trait: (type_identifier) @name)
    (array_type) @name
  ]) @scope.impl

(use_declaration argument: [(identifier) (scoped_identifier)] @import)
(use_declaration argument: (use_as_clause path: (_) @import))
(use_declaration argument: (scoped_use_list path: (_) @import))
(use_declaration argument: (use_wildcard . (_) @import))
(use_declaration argument: (use_list [(identifier) (scoped_identifier)] @import))
(extern_crate_declaration name: (identifier) @import)

; What `lib.rs` or a `mod.rs` re-exports with `pub use`: the crate's public API
; (collected only from the entry files `languages.json` names).
(use_declaration (visibility_modifier) argument: (scoped_identifier name: (identifier) @export))
(use_declaration (visibility_modifier) argument: (use_as_clause path: (scoped_identifier name: (identifier) @export)))
(use_declaration (visibility_modifier)
  argument: (scoped_use_list list: (use_list [(identifier) @export (scoped_identifier name: (identifier) @export)])))

; Items inside item-position macro invocations (`cfg_net! { pub struct TcpListener { .. } }`, also in
; `impl` and `mod` bodies, nested ones too): the token tree is parsed again, in place, as Rust items.
; One that does not parse cleanly as items (`lazy_static!`, `bitflags!`, a DSL) yields nothing.
(source_file (macro_invocation (token_tree) @reparse))
(source_file (expression_statement (macro_invocation (token_tree) @reparse)))
(declaration_list (macro_invocation (token_tree) @reparse))

; `cfg_if! { if #[cfg(unix)] { .. } else { .. } }`: each braced branch holds items.
(macro_invocation
  macro: [(identifier) @_macro (scoped_identifier name: (identifier) @_macro)]
  (token_tree (token_tree) @reparse)
  (#eq? @_macro "cfg_if")
  (#match? @reparse "^[{]"))
