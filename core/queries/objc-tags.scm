; Objective-C symbols (`.m`/`.mm`; `.h` headers belong to C). Conventions: see
; core/parse.py.
;
; `@implementation Foo` is the class Foo and `@protocol` an interface. An
; `@interface` (whose public form lives in the `.h`; in a `.m` it is a private
; class's or an extension's declarations) and a category implementation
; (`@implementation Foo (Sorting)`) are naming scopes, not symbols, so a class
; is one symbol and a category's methods read `Foo.method`.
;
; Methods are named by the first keyword of their selector: `-
; initWithName:age:` is `Foo.initWithName`, `+ sharedClient` is
; `Foo.sharedClient`; the signature shows the whole selector (a query can give a
; symbol only one name node). Method definitions are symbols, and so are the
; method declarations of a protocol; declarations in a class interface are not
; (their definitions are). C functions, typedef'd structs/enums (`NS_ENUM`,
; `NS_OPTIONS`), blocks typedefs, `#define`s and file-level `const` objects
; (`NSString * const FooKey = @"..."`, `static const CGFloat kPad = 8`) follow the
; C query; prototypes are forward declarations here and are skipped.

(class_implementation . (identifier) @name !category) @definition.class
(class_implementation . (identifier) @name category: (_)) @scope.class
(class_interface . (identifier) @name) @scope.class
(protocol_declaration . (identifier) @name) @definition.interface

(method_definition . (method_type) . (identifier) @name) @definition.method
(method_definition . (identifier) @name) @definition.method
(protocol_declaration (method_declaration . (method_type) . (identifier) @name) @definition.method)
(protocol_declaration (method_declaration . (identifier) @name) @definition.method)
(protocol_declaration
  (qualified_protocol_interface_declaration
    (method_declaration . (method_type) . (identifier) @name) @definition.method))
(protocol_declaration
  (qualified_protocol_interface_declaration (method_declaration . (identifier) @name) @definition.method))

; C functions. The type, declarator and body must be adjacent and the name no
; keyword: the grammar's error recovery turns `} else if (x) {` inside a method it
; failed to parse into function-shaped nodes.
((function_definition
  type: (_) @_type
  .
  declarator: [(function_declarator declarator: (identifier) @name)
               (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]
  .
  body: (compound_statement)) @definition.function
  (#not-match? @_type "^(else|return|case|do)$")
  (#not-match? @name "^(if|while|for|switch|return|sizeof)$"))

; `#define kTimeout 30` is a constant, `#define MIN3(a, b, c) ...` a function.
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; File-level constants: `NSString * const FooKey = @"..."`, `static const CGFloat kPad = 8`
; (inside a function or method they are locals, which the extractor drops).
(declaration
  declarator: (init_declarator
    declarator: (pointer_declarator (type_qualifier) declarator: (identifier) @name))) @definition.constant
((declaration
  (type_qualifier) @_const
  declarator: (init_declarator declarator: (identifier) @name)) @definition.constant
  (#eq? @_const "const"))

; Structs and enums, as in C: tagged ones at file level or under `#if` blocks
; (typedef'd ones are named by the typedef, below).
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_if (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_else (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_elif (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_elif (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(type_definition
  type: (struct_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

; `typedef NS_ENUM(NSInteger, Kind) { ... }`: the grammar does not know the macro
; and recovers with an error node before the name (the macro's second argument).
((type_definition
  type: (macro_type_specifier
    name: (identifier) @_macro
    (ERROR)
    .
    type: (type_descriptor type: (type_identifier) @name))) @definition.enum
  (#match? @_macro "^(NS|CF)_(ENUM|OPTIONS|CLOSED_ENUM|ERROR_ENUM)$"))

; Typedefs of plain types and blocks: `typedef NSString *Key;`,
; `typedef void (^Completion)(BOOL ok);`.
(type_definition
  type: [(type_identifier) (primitive_type) (sized_type_specifier)]
  declarator: [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      [(block_pointer_declarator declarator: (type_identifier) @name)
       (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type

(preproc_include path: (_) @import)
(module_import path: (_) @import)
