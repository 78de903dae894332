; GraphQL symbols (schema SDL and executable documents). Conventions: see core/parse.py.
; Types: object -> class, interface -> interface, enum -> enum, input -> struct (plain data),
; union and scalar -> type; directive definitions -> function (like a decorator's definition).
; Fields of the root types Query, Mutation and Subscription are the API's entry points:
; methods (`Query.user`); other types' fields, arguments and enum values are not symbols.
; Named operations and fragments are functions; anonymous operations have no name to index.
; `extend type Query { ... }` is a naming scope, so its fields are `Query.<field>` too.

(object_type_definition (description)? @doc . (name) @name) @definition.class
(interface_type_definition (description)? @doc . (name) @name) @definition.interface
(enum_type_definition (description)? @doc . (name) @name) @definition.enum
(input_object_type_definition (description)? @doc . (name) @name) @definition.struct
(union_type_definition (description)? @doc . (name) @name) @definition.type
(scalar_type_definition (description)? @doc . (name) @name) @definition.type
(directive_definition (description)? @doc . (name) @name) @definition.function

(object_type_definition
  (name) @_type
  (fields_definition (field_definition (description)? @doc . (name) @name) @definition.method)
  (#any-of? @_type "Query" "Mutation" "Subscription"))

(object_type_extension (name) @name (#any-of? @name "Query" "Mutation" "Subscription")) @scope.class
(object_type_extension
  (name) @_type
  (fields_definition (field_definition (description)? @doc . (name) @name) @definition.method)
  (#any-of? @_type "Query" "Mutation" "Subscription"))

(operation_definition (name) @name) @definition.function
(fragment_definition (fragment_name (name) @name)) @definition.function
