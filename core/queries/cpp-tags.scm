; C++ symbols. Conventions: see core/parse.py (template_declaration wrappers are
; climbed automatically, so templates are covered by the plain patterns).
;
; Namespaces are captured as `@scope.package`, not `@scope.namespace`: the
; extractor turns functions inside CONTAINER_KINDS into methods, and a free
; function in a namespace is still a function (`cache::detail::clamp`).
;
; Functions: definitions (in-class, out-of-class `Foo::bar`, free), plus free
; prototypes that declare an API (a header's functions); `static` prototypes are
; forward declarations and are skipped. In-class method declarations are part of
; their class's text and are not separate symbols (their out-of-class
; definitions are). Operator overloads are not indexed: their names do not
; survive qualname normalization (`operator()`, `operator<`).

(namespace_definition name: (_) @name) @scope.package

; --- Functions and methods -------------------------------------------------

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (destructor_name)] @name)) @definition.function
(function_definition
  declarator: (_
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name)] @name))) @definition.function
(function_definition
  declarator: (_
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name)] @name))) @definition.function
(function_definition
  declarator: (_ (_
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name)] @name)))) @definition.function

; `void Foo::bar()`, `Outer::Inner::baz()`, `Foo::~Foo()`: qualname Foo.bar.
((function_definition
  declarator: (function_declarator declarator: (qualified_identifier) @name)) @definition.function
  (#not-match? @name "<|operator\\b"))
((function_definition
  declarator: (_ declarator: (function_declarator declarator: (qualified_identifier) @name))) @definition.function
  (#not-match? @name "<|operator\\b"))
((function_definition
  declarator: (_ (function_declarator declarator: (qualified_identifier) @name))) @definition.function
  (#not-match? @name "<|operator\\b"))

; Out-of-class members of class templates: `bool LruCache<V>::get(...)`.
((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (template_type name: (_) @receiver)
      name: (_) @name))) @definition.function
  (#not-match? @name "operator\\b"))
((function_definition
  declarator: (_ declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (template_type name: (_) @receiver)
      name: (_) @name)))) @definition.function
  (#not-match? @name "operator\\b"))
((function_definition
  declarator: (_ (function_declarator
    declarator: (qualified_identifier
      scope: (template_type name: (_) @receiver)
      name: (_) @name)))) @definition.function
  (#not-match? @name "operator\\b"))

; Free function prototypes, outside classes (in-class ones are field_declarations).
((declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
  (#not-match? @definition.function "^static\\s"))
((declaration
  declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function
  (#not-match? @definition.function "^static\\s"))
((declaration
  declarator: (_ (function_declarator declarator: (identifier) @name))) @definition.function
  (#not-match? @definition.function "^static\\s"))

; --- Macros and constants --------------------------------------------------

(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; `constexpr int kMaxEntries = 16;`, `const double PI = 3.14;`
((declaration
  (type_qualifier) @_const
  declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$")
  (#match? @name "^(k[A-Z][A-Za-z0-9_]*|[A-Z][A-Z0-9_]*)$"))
; `static constexpr std::size_t kBlockSize = 4096;` inside a class.
((field_declaration
  (type_qualifier) @_const
  declarator: (field_identifier) @name
  default_value: (_)) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$")
  (#match? @name "^(k[A-Z][A-Za-z0-9_]*|[A-Z][A-Z0-9_]*)$"))

; --- Types -----------------------------------------------------------------

; Classes, structs, unions and enums with a body, wherever a declaration may
; stand; `typedef struct { ... } name_t;` is handled with the typedefs below.
(class_specifier name: (_) @name body: (_)) @definition.class
(translation_unit (struct_specifier name: (_) @name body: (_)) @definition.struct)
(translation_unit (union_specifier name: (_) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (_) @name body: (_)) @definition.enum)
(declaration_list (struct_specifier name: (_) @name body: (_)) @definition.struct)
(declaration_list (union_specifier name: (_) @name body: (_)) @definition.struct)
(declaration_list (enum_specifier name: (_) @name body: (_)) @definition.enum)
(template_declaration (struct_specifier name: (_) @name body: (_)) @definition.struct)
(template_declaration (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_ifdef (struct_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_ifdef (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_ifdef (enum_specifier name: (_) @name body: (_)) @definition.enum)
(preproc_if (struct_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_if (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_if (enum_specifier name: (_) @name body: (_)) @definition.enum)
(preproc_else (struct_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_else (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_else (enum_specifier name: (_) @name body: (_)) @definition.enum)
(preproc_elif (struct_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_elif (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_elif (enum_specifier name: (_) @name body: (_)) @definition.enum)
(preproc_elifdef (struct_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_elifdef (union_specifier name: (_) @name body: (_)) @definition.struct)
(preproc_elifdef (enum_specifier name: (_) @name body: (_)) @definition.enum)
(declaration type: (struct_specifier name: (_) @name body: (_)) @definition.struct)
(declaration type: (union_specifier name: (_) @name body: (_)) @definition.struct)
(declaration type: (enum_specifier name: (_) @name body: (_)) @definition.enum)
(field_declaration type: (struct_specifier name: (_) @name body: (_)) @definition.struct)
(field_declaration type: (union_specifier name: (_) @name body: (_)) @definition.struct)
(field_declaration type: (enum_specifier name: (_) @name body: (_)) @definition.enum)

; Type aliases: `using Clock = std::chrono::steady_clock;`, `typedef std::string Key;`
(alias_declaration name: (type_identifier) @name) @definition.type
(type_definition
  type: (_ !body)
  declarator: (type_identifier) @name) @definition.type
(type_definition
  type: (_ !body)
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(type_definition
  type: [(struct_specifier body: (_)) (union_specifier body: (_)) (class_specifier body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

(preproc_include path: (_) @import)
