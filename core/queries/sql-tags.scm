; SQL symbols (CREATE statements). Conventions: see core/parse.py.
;   TABLE                         -> struct   (a record type with columns)
;   VIEW, MATERIALIZED VIEW       -> type     (a named row type derived by a query)
;   FUNCTION, TRIGGER             -> function (a trigger is a named handler bound to a table)
;   TYPE AS ENUM / AS (...) / other -> enum / struct / type
;   SCHEMA                        -> module   (a namespace)
; Not symbols: temporary tables (a script's scratch), indexes, sequences, roles, extensions,
; ALTER/DROP/GRANT, CTEs, columns.
; The name is the object_reference right after the object keyword (or after IF NOT EXISTS),
; never a later reference (`PARTITION OF parent`, `ON table`, `EXECUTE FUNCTION f`).
; A schema-qualified name keeps its schema (`CREATE FUNCTION auth.uid()` -> auth.uid): the
; schema is a naming scope around the statement, so a function stays a function (a dotted
; prefix alone would make it a method) and belongs to its `CREATE SCHEMA` when that is in the file.

; Permanent tables: TABLE right after CREATE / UNLOGGED / OR REPLACE / EXTERNAL / VIRTUAL, so
; `CREATE TEMP TABLE` and `CREATE TEMPORARY TABLE` do not match.
(create_table
  [(keyword_create) (keyword_unlogged) (keyword_replace) (keyword_external) (keyword_virtual)]
  . (keyword_table) . (object_reference schema: (identifier) @name)) @scope.module
(create_table
  [(keyword_create) (keyword_unlogged) (keyword_replace) (keyword_external) (keyword_virtual)]
  . (keyword_table) . (object_reference name: (identifier) @name)) @definition.struct
(create_table
  [(keyword_create) (keyword_unlogged) (keyword_replace) (keyword_external) (keyword_virtual)]
  . (keyword_table) . (keyword_if) . (keyword_not) . (keyword_exists)
  . (object_reference schema: (identifier) @name)) @scope.module
(create_table
  [(keyword_create) (keyword_unlogged) (keyword_replace) (keyword_external) (keyword_virtual)]
  . (keyword_table) . (keyword_if) . (keyword_not) . (keyword_exists)
  . (object_reference name: (identifier) @name)) @definition.struct

(create_view [(keyword_view) (keyword_exists)] . (object_reference schema: (identifier) @name)) @scope.module
(create_view [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.type
(create_materialized_view
  [(keyword_view) (keyword_exists)] . (object_reference schema: (identifier) @name)) @scope.module
(create_materialized_view
  [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.type

(create_function
  [(keyword_function) (keyword_exists)] . (object_reference schema: (identifier) @name)) @scope.module
(create_function
  [(keyword_function) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.function
(create_trigger
  [(keyword_trigger) (keyword_exists)] . (object_reference schema: (identifier) @name)) @scope.module
(create_trigger
  [(keyword_trigger) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.function

(create_type (keyword_type) . (object_reference schema: (identifier) @name)) @scope.module
(create_type (keyword_type) . (object_reference name: (identifier) @name)) @definition.type
(create_type (keyword_type) . (object_reference name: (identifier) @name) (keyword_enum)) @definition.enum
(create_type (keyword_type) . (object_reference name: (identifier) @name) (column_definitions)) @definition.struct

(create_schema [(keyword_schema) (keyword_exists)] . (identifier) @name) @definition.module

; Statements the grammar rejects as a whole, read from the ERROR that holds them (once a file is
; parsed in pieces at its resync lines, such an ERROR is one statement). Only an ERROR that starts
; with the statement's own keywords counts, so the name is still the one right after them.
; A function whose plpgsql `BEGIN ... END` holds no statement (a stub):
(ERROR . (keyword_create) . (keyword_function) . (object_reference schema: (identifier) @name)) @scope.module
(ERROR . (keyword_create) . (keyword_function) . (object_reference name: (identifier) @name)) @definition.function
(ERROR . (keyword_create) . (keyword_or) . (keyword_replace) . (keyword_function)
  . (object_reference schema: (identifier) @name)) @scope.module
(ERROR . (keyword_create) . (keyword_or) . (keyword_replace) . (keyword_function)
  . (object_reference name: (identifier) @name)) @definition.function
; `CREATE EVENT TRIGGER name ON event EXECUTE FUNCTION f()`, which the grammar does not know: the
; EVENT keyword lands in a nested ERROR (or an empty one) before TRIGGER.
(ERROR . (keyword_create) . (ERROR . (keyword_trigger) . (object_reference name: (identifier) @name)))
  @definition.function
(ERROR . (keyword_create) . (ERROR) . (keyword_trigger) . (object_reference name: (identifier) @name))
  @definition.function
(ERROR . (keyword_create) . (ERROR) . (keyword_trigger) . (ERROR . (object_reference name: (identifier) @name)))
  @definition.function
