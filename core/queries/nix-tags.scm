; Nix symbols. Conventions: see core/parse.py.
; Nix files are mostly configuration: an attribute is a config key, not a symbol. Only a
; function bound at the file's top level counts: `name = args: body;` in the outermost
; let or attribute set, reached from the file's root through nothing but function headers
; (`{ lib, ... }:`), `with`, `assert` and `let ... in` (every one of those keeps its
; result in a `body:` field). Bindings inside a package's `mkDerivation { ... }`, a module's
; `config = { ... }`, a nested set or a list are config, and so are dotted paths
; (`meta.description = ...`) and point-free values (`f = g 1;`), which are not lambdas. A
; value that is `let ... in args: body` (helpers closed over) is a function too.
; Functions nest nothing: anything inside one is local. The five patterns below differ only
; in how many `body:` links lead from the root to the let or set holding the binding.

(source_code
  expression: [
    (let_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (rec_attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
  ])

(source_code
  expression: (_ body: [
    (let_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (rec_attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
  ]))

(source_code
  expression: (_ body: (_ body: [
    (let_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (rec_attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
  ])))

(source_code
  expression: (_ body: (_ body: (_ body: [
    (let_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (rec_attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
  ]))))

(source_code
  expression: (_ body: (_ body: (_ body: (_ body: [
    (let_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
    (rec_attrset_expression (binding_set binding: (binding
      attrpath: (attrpath . (identifier) @name .)
      expression: [(function_expression) (let_expression body: (function_expression))]) @definition.function))
  ])))))

; `import ./path.nix`, `import <nixpkgs>`, `callPackage ./pkg.nix { }`: files a file depends on.
(apply_expression
  function: (variable_expression name: (identifier) @_fn)
  argument: [(path_expression) (spath_expression)] @import
  (#any-of? @_fn "import" "callPackage"))
(apply_expression
  function: (select_expression attrpath: (attrpath attr: (identifier) @_fn .))
  argument: [(path_expression) (spath_expression)] @import
  (#eq? @_fn "callPackage"))
