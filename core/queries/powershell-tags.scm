; PowerShell symbols. Conventions: see core/parse.py.
;
; `function`, `filter` and `workflow` are functions (named as written,
; `Get-Greeting`); a function inside another is local. `class` is a class whose
; methods and constructors (named by the class) are methods; properties are not
; symbols. `enum` is an enum. Comment-based help or comments directly above a
; definition are its doc. Imports: `using module`/`using namespace`/`using
; assembly` targets, `Import-Module Name` and dot-sourced scripts (`. .\lib.ps1`).

(function_statement (function_name) @name) @definition.function

(class_statement . (simple_name) @name) @definition.class
(class_method_definition . (simple_name) @name) @definition.method
(class_method_definition (class_attribute) . (simple_name) @name) @definition.method
(class_method_definition (type_literal) . (simple_name) @name) @definition.method

(enum_statement . (simple_name) @name) @definition.enum

((command
  command_name: (command_name) @_using
  command_elements: (command_elements
    . (command_argument_sep)
    . (generic_token)
    . (command_argument_sep)
    . (generic_token) @import))
  (#match? @_using "^[Uu][Ss][Ii][Nn][Gg]$"))
((command
  command_name: (command_name) @_import
  command_elements: (command_elements . (command_argument_sep) . (generic_token) @import))
  (#match? @_import "^[Ii]mport-[Mm]odule$"))
(command
  (command_invokation_operator) @_dot
  command_name: (command_name_expr (command_name) @import)
  (#eq? @_dot "."))
