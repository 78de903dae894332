; Ruby symbols. Conventions: see core/parse.py.

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module

; `def get(path)`, `def ==(other)`, `def name=(value)`, `def headers = ...`:
; methods in a class or module, functions at the top level. Methods inside
; `class << self` belong to the enclosing class.
(method name: (_) @name) @definition.method

; `def self.default` is `Klass.default`; `def Courier.client` is `Courier.client`.
(singleton_method object: (self) name: (_) @name) @definition.method
(singleton_method
  object: [(constant) (scope_resolution)] @receiver
  name: (_) @name) @definition.method

; `VERSION = "2.1.0"` in a file, class or module body.
(assignment left: (constant) @name) @definition.constant

; `Point = Struct.new(:x, :y) do ... end`, `Error = Class.new(StandardError)`,
; `Coord = Data.define(:lat, :lng)` define classes.
((assignment
  left: (constant) @name
  right: (call receiver: (constant) @_base method: (identifier) @_new)) @definition.class
  (#match? @_base "^(Struct|Class|Data)$")
  (#match? @_new "^(new|define)$"))

; `require "json"`, `require_relative "support/retry"` (plain string literals).
((call
  method: (identifier) @_require
  arguments: (argument_list . (string . (string_content) @import .)))
  (#match? @_require "^(require|require_relative)$"))
