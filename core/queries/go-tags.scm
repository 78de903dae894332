; Go symbols. Conventions: see core/parse.py.

(function_declaration name: (identifier) @name) @definition.function

; func (e *Engine) Run() -> Engine.Run; the receiver's `*` and type arguments are dropped.
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @receiver))
  name: (field_identifier) @name) @definition.method

; Named types. A lone `type X ...` covers the whole declaration (keyword and doc comment);
; inside a `type ( ... )` group each spec is its own symbol. Generic first, specific after.
(type_spec name: (type_identifier) @name) @definition.type
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_alias name: (type_identifier) @name) @definition.type

(type_declaration . (type_spec name: (type_identifier) @name) .) @definition.type
(type_declaration . (type_spec name: (type_identifier) @name type: (struct_type)) .) @definition.struct
(type_declaration . (type_spec name: (type_identifier) @name type: (interface_type)) .) @definition.interface
(type_declaration . (type_alias name: (type_identifier) @name) .) @definition.type

; Interface methods: Router.Handle.
(interface_type (method_elem name: (field_identifier) @name) @definition.method)

; Package-level constants, and exported package-level variables (ErrClosed, DefaultWriter).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (const_declaration . (const_spec name: (identifier) @name) .) @definition.constant)
(source_file
  (var_declaration (var_spec name: (identifier) @name) @definition.constant)
  (#match? @name "^[A-Z]"))
(source_file
  (var_declaration . (var_spec name: (identifier) @name) .) @definition.constant
  (#match? @name "^[A-Z]"))
; Grouped: var ( DefaultWriter io.Writer = os.Stdout ... ), each exported spec its own constant.
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.constant))
  (#match? @name "^[A-Z]"))

(import_spec path: (_) @import)
