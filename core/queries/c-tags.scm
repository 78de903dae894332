; C symbols. Conventions: see core/parse.py.
;
; Functions: definitions, plus prototypes that declare an API (a header's
; functions); `static` prototypes are only forward declarations of a definition
; in the same file and are skipped.
; `typedef struct tag { ... } name_t;` is one struct symbol named by the typedef
; name (what code uses); a bare `typedef` is a type.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

((declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
  (#not-match? @definition.function "^static\\s"))
((declaration
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function
  (#not-match? @definition.function "^static\\s"))
((declaration
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
  (#not-match? @definition.function "^static\\s"))

; Macros: `#define MAX_LEN 64` is a constant, `#define MIN(a, b) ...` a function.
; Valueless defines (include guards, feature flags) are not symbols.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; File-level `const` objects: `static const int MAX_RETRIES = 3;`
((declaration
  (type_qualifier) @_const
  declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
  (#eq? @_const "const")
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; Tagged structs, unions and enums with a body, unless a typedef names them (the
; typedef patterns below cover those), at file level or under `#if` blocks.
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_if (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_else (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_elif (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_elif (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_elif (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_elifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_elifdef (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_elifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
; Inside `extern "C" { ... }` (a header's `#ifdef __cplusplus` wrapper).
(declaration_list (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration_list (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration_list (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
; `struct point { ... } origin;` and structs nested in structs.
(declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(field_declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(field_declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(field_declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)

; Typedefs: `typedef unsigned char byte_t;`, `typedef struct node *node_ptr;`,
; `typedef void (*callback_fn)(void *);`, `typedef int vec3[3];`
(type_definition
  type: (_ !body)
  declarator: (type_identifier) @name) @definition.type
(type_definition
  type: (_ !body)
  declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  type: (_ !body)
  declarator: (array_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(type_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name))))) @definition.type

; `typedef struct { ... } point_t;` defines the struct itself.
(type_definition
  type: [(struct_specifier body: (_)) (union_specifier body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

(preproc_include path: (_) @import)
