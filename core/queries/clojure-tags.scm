; Clojure symbols. Conventions: see core/parse.py.
;
; A namespace is a module spanning its file (one `ns` per file is the language's
; rule), so top-level definitions read `my.app.core/greet` as `my.app.core.greet`.
; Only top-level forms define symbols (nothing inside `(comment ...)`, `let`, a
; reader conditional or a function body): `defn`, `defn-`, `defmacro`,
; `defmulti`, `defmethod` (one symbol per multimethod implementation) and `deftest` are
; functions, every arity in the one form; `def`/`defonce` are constants;
; `defprotocol` and `definterface` are interfaces with their method signatures as
; methods; `defrecord` is a struct and `deftype` a class, with the protocol
; methods they implement inline as methods. A docstring after the name is the doc.

((source
  (list_lit
    . (sym_lit name: (sym_name) @_ns)
    . (sym_lit name: (sym_name) @name)
    . (str_lit)? @doc)) @definition.module
  (#eq? @_ns "ns"))

((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit name: (sym_name) @name)
    . (str_lit)? @doc) @definition.function)
  (#match? @_def "^(defn|defn-|defmacro|defmulti|defmethod|deftest)$"))

((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit name: (sym_name) @name)
    . (str_lit)? @doc) @definition.constant)
  (#match? @_def "^(def|defonce)$"))

((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit name: (sym_name) @name)
    . (str_lit)? @doc) @definition.interface)
  (#match? @_def "^(defprotocol|definterface)$"))

((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit name: (sym_name) @name)) @definition.struct)
  (#eq? @_def "defrecord"))

((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit name: (sym_name) @name)) @definition.class)
  (#eq? @_def "deftype"))

; Protocol method signatures and the methods a record or type implements inline.
((source
  (list_lit
    . (sym_lit name: (sym_name) @_def)
    . (sym_lit)
    (list_lit . (sym_lit name: (sym_name) @name)) @definition.method))
  (#match? @_def "^(defprotocol|definterface|defrecord|deftype)$"))

; `(ns app.core (:require [clojure.string :as str] clojure.set) (:import [java.io File]))`:
; the namespaces required and the Java packages imported.
((list_lit
  . (sym_lit name: (sym_name) @_ns)
  (list_lit
    . (kwd_lit name: (kwd_name) @_require)
    [(vec_lit . (sym_lit) @import) (list_lit . (sym_lit) @import) (sym_lit) @import]))
  (#eq? @_ns "ns")
  (#match? @_require "^(require|import|use)$"))
