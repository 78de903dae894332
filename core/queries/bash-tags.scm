; Bash symbols. Conventions: see core/parse.py.
; Functions in both forms (`foo() { }`, `function foo { }`); top-level
; `readonly NAME=...` and `declare -r NAME=...` are constants; `source FILE`
; and `. FILE` are imports (recorded as written, quotes stripped).

(function_definition name: (word) @name) @definition.function

; A statement defining one constant is its definition: `readonly ROOT=/srv`.
(program
  (declaration_command
    "readonly"
    .
    (variable_assignment name: (variable_name) @name)
    .) @definition.constant)
(program
  (declaration_command
    ["declare" "typeset"]
    .
    (word) @_flags
    .
    (variable_assignment name: (variable_name) @name)
    .) @definition.constant
  (#match? @_flags "^-[a-zA-Z]*r"))

; `readonly A=1 B=2`: each assignment defines its own name (so none nests in another).
(program
  (declaration_command
    "readonly"
    (variable_assignment name: (variable_name) @name) @definition.constant
    .
    (variable_assignment)))
(program
  (declaration_command
    "readonly"
    (variable_assignment)
    .
    (variable_assignment name: (variable_name) @name) @definition.constant))
(program
  (declaration_command
    ["declare" "typeset"]
    .
    (word) @_flags
    (variable_assignment name: (variable_name) @name) @definition.constant
    .
    (variable_assignment))
  (#match? @_flags "^-[a-zA-Z]*r"))
(program
  (declaration_command
    ["declare" "typeset"]
    .
    (word) @_flags
    (variable_assignment)
    .
    (variable_assignment name: (variable_name) @name) @definition.constant)
  (#match? @_flags "^-[a-zA-Z]*r"))

(command
  name: (command_name (word) @_cmd)
  .
  argument: (_) @import
  (#match? @_cmd "^(source|\\.)$"))
