; R symbols. Conventions: see core/parse.py.
; Functions are what a file assigns at its top level: `name <- function(...)`,
; `name = function(...)`, `name <<- function(...)`. UPPER_CASE top-level values are
; constants. R6 (`R6Class`) and Reference (`setRefClass`) classes are classes whose
; `public`/`private`/`active`/`methods` list members are methods; S4 `setClass` is a
; class, `setGeneric` a function and `setMethod("area", "Circle", ...)` `Circle.area`.
; Anything inside a function body is local.

; A dotted name is an S3 method (`print.all_vars` is `print`'s method for `all_vars`);
; names that start with a dot (`.onLoad`) or are backquoted (`%||%`, `[.tbl`,
; `names<-.tbl`) are taken as written (`@name.verbatim`).
(program
  (binary_operator
    lhs: (identifier) @name
    ["<-" "=" "<<-"]
    rhs: (function_definition)) @definition.function
  (#not-match? @name "^[.`]"))
(program
  (binary_operator
    lhs: (identifier) @name.verbatim
    ["<-" "=" "<<-"]
    rhs: (function_definition)) @definition.function
  (#match? @name.verbatim "^[.`]"))

(program
  (binary_operator
    lhs: (identifier) @name
    ["<-" "=" "<<-"]
    rhs: (_) @_value) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_.]+$")
  (#not-match? @_value "^function"))

; R6 and Reference classes.
(program
  (binary_operator
    lhs: (identifier) @name
    ["<-" "=" "<<-"]
    rhs: (call function: [(identifier) @_fn (namespace_operator rhs: (identifier) @_fn)])) @definition.class
  (#match? @_fn "^(R6Class|setRefClass)$"))
((call
  function: [(identifier) @_fn (namespace_operator rhs: (identifier) @_fn)]
  arguments: (arguments
    (argument
      name: (identifier) @_section
      value: (call
        function: (identifier) @_list
        arguments: (arguments
          (argument name: (identifier) @name value: (function_definition)) @definition.method)))))
  (#match? @_fn "^(R6Class|setRefClass)$")
  (#match? @_section "^(public|private|active|methods)$")
  (#eq? @_list "list"))

; S4.
(program
  (call
    function: (identifier) @_fn
    arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.class
  (#match? @_fn "^(setClass|setRefClass)$"))
(program
  (call
    function: (identifier) @_fn
    arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.function
  (#eq? @_fn "setGeneric"))
(program
  (call
    function: (identifier) @_fn
    arguments: (arguments
      .
      (argument value: (string (string_content) @name))
      .
      (comma)
      .
      (argument value: (string (string_content) @receiver)))) @definition.method
  (#eq? @_fn "setMethod"))

; `library(dplyr)`, `require("tidyr")`, `requireNamespace("rlang")`.
((call
  function: (identifier) @_fn
  arguments: (arguments . (argument value: [(identifier) @import (string (string_content) @import)])))
  (#match? @_fn "^(library|require|requireNamespace)$"))
