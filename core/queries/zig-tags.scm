; Zig symbols. Conventions: see core/parse.py.
; Containers are `const Name = struct/enum/union/opaque {...}` and functions that
; return a type (generics); functions declared in them are methods (`Point.len`).
; File- and container-level `const`s are constants, except `@import(...)`, `@This()`
; and plain aliases (`const Allocator = std.mem.Allocator;`), which name something
; defined elsewhere. Everything in a function body is local.

(Decl (FnProto function: (IDENTIFIER) @name)) @definition.function

; `fn ArrayList(comptime T: type) type { return struct { ... }; }` builds a type: a
; (generic) struct when it returns a container literal, whose functions are then its
; methods; a type otherwise (`fn Map(comptime V: type) type { return HashMap(V, ...); }`).
(Decl
  (FnProto
    function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (BuildinTypeExpr) @_ret)) .)
  (#eq? @_ret "type")) @definition.type
(Decl
  (FnProto
    function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (BuildinTypeExpr) @_ret)) .)
  (Block (Statement (AssignExpr (ErrorUnionExpr (SuffixExpr (ContainerDecl))))))
  (#eq? @_ret "type")) @definition.struct

; Other `const`s in a file or container (not `var`s, not imports or aliases).
(source_file
  (Decl
    (VarDecl "const" variable_type_function: (IDENTIFIER) @name) @_decl) @definition.constant
  (#not-match? @_decl "^const\\s+[A-Za-z_][A-Za-z0-9_]*\\s*(:[^=]*)?=\\s*(@import\\(|@cImport\\(|@This\\(\\)|[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*\\s*;?\\s*$)"))
(ContainerDecl
  (Decl
    (VarDecl "const" variable_type_function: (IDENTIFIER) @name) @_decl) @definition.constant
  (#not-match? @_decl "^const\\s+[A-Za-z_][A-Za-z0-9_]*\\s*(:[^=]*)?=\\s*(@import\\(|@cImport\\(|@This\\(\\)|[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*\\s*;?\\s*$)"))

(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "struct")))))) @definition.struct
(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum")))))) @definition.enum
; A tagged `union(enum)` is a union (a struct), not an enum: this pattern comes later.
(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "union")))))) @definition.struct
(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "opaque")))))) @definition.type
(Decl
  (VarDecl
    "const"
    variable_type_function: (IDENTIFIER) @name
    (ErrorUnionExpr (SuffixExpr (ErrorSetDecl))))) @definition.type

; `const std = @import("std");`
((SuffixExpr
  (BUILTINIDENTIFIER) @_builtin
  (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import))))
  (#eq? @_builtin "@import"))
