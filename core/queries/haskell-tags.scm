; Haskell symbols. Conventions: see core/parse.py.
; A top-level function is its type signature plus its equations: each is captured as a
; definition of the same name and languages.json sets `merge_clauses`, so they merge
; into one symbol (from the Haddock comment above the signature to the last equation).
; Type classes are interfaces whose signatures are methods; an `instance C T` is a
; scope named after T, so its methods read `T.method`. Everything in a `where` or
; `let` is local.

(header module: (module) @name) @definition.module

; --- functions and values: signatures, equations (`f x = ...`, `x <+> y = ...`) and
; pattern-less bindings (`main = ...`), at the top level and in classes and instances.
(declarations (signature name: (variable) @name) @definition.function)
(declarations (signature name: (prefix_id (operator) @name)) @definition.function)
(declarations (function name: (variable) @name) @definition.function)
(declarations (function (infix operator: (operator) @name)) @definition.function)
(declarations (bind name: (variable) @name) @definition.function)

(class_declarations (signature name: (variable) @name) @definition.method)
(class_declarations (signature name: (prefix_id (operator) @name)) @definition.method)
(class_declarations (function name: (variable) @name) @definition.method)
(class_declarations (function (infix operator: (operator) @name)) @definition.method)
(class_declarations (bind name: (variable) @name) @definition.method)

(instance_declarations (signature name: (variable) @name) @definition.method)
(instance_declarations (function name: (variable) @name) @definition.method)
(instance_declarations (function (infix operator: (operator) @name)) @definition.method)
(instance_declarations (bind name: (variable) @name) @definition.method)

(foreign_import signature: (signature name: (variable) @name)) @definition.function

; Pattern synonyms (`pattern Zero :: Int`, `pattern T_If id c = OuterToken id (If c)`).
(pattern_synonym (signature synonym: (constructor) @name)) @definition.function
(pattern_synonym
  (equation synonym: [(constructor) @name (apply function: (constructor) @name)])) @definition.function

; --- types: `data` with a record constructor is a struct, with several constructors an
; enum; `newtype`, `type`, GADTs and families are types.
(data_type name: (name) @name) @definition.type
(data_type
  name: (name) @name
  constructors: (data_constructors (data_constructor constructor: (record)))) @definition.struct
(data_type
  name: (name) @name
  constructors: (data_constructors (data_constructor) (data_constructor))) @definition.enum
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(data_family name: (name) @name) @definition.type

(class name: (name) @name) @definition.interface

; `instance Show Shape`, `instance Show (Tree a)`, `instance MonadIO (App m a)`.
(instance
  patterns: (type_patterns
    .
    [
      (name) @name
      (parens type: (apply constructor: (name) @name))
      (parens type: (apply constructor: (apply constructor: (name) @name)))
      (parens type: (apply constructor: (apply constructor: (apply constructor: (name) @name))))
    ])) @scope.impl

(import module: (module) @import)
