; Perl symbols. Conventions: see core/parse.py.
;
; A package is a module. The block form `package Foo { ... }` spans its block and
; the statement form `package Foo;` runs to the next package (`@open`; POD and
; `__END__` after the code are left out: languages.json lists them as comments), so
; their subs read `Foo.name`. Every `sub` is a function (Perl does not mark methods),
; except in a `class` block (perl 5.38), whose `method`s are methods; `sub Foo::bar`
; is `Foo.bar`. `role` blocks are traits. `use constant` names are constants;
; `our` variables, attributes (`has`) and anonymous subs are not symbols.
; Imports are the modules `use`d (pragmas such as `strict` are lowercase and
; skipped) and `require`d.

(package_statement name: (_) @name (block)) @definition.module
(package_statement name: (_) @name ";") @definition.module @open

(class_statement name: (_) @name (block)) @definition.class
(class_statement name: (_) @name .) @definition.class
(role_statement name: (_) @name) @definition.trait

(subroutine_declaration_statement name: (_) @name) @definition.function
(method_declaration_statement name: (_) @name) @definition.method

; `use constant PI => 3.14;` and `use constant { E => 2.71, DEBUG => 0 };` (each
; name of the hash form is its own one-token constant).
((use_statement
  module: (package) @_constant
  (list_expression . (autoquoted_bareword) @name)) @definition.constant
  (#eq? @_constant "constant"))
((use_statement
  module: (package) @_constant
  (anonymous_hash_expression
    (list_expression (autoquoted_bareword) @name @definition.constant)))
  (#eq? @_constant "constant"))

((use_statement module: (package) @import)
  (#match? @import "^[A-Z]"))
(require_expression (bareword) @import)
