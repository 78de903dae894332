; GDScript symbols. Conventions: see core/parse.py.
;
; A script is a class: with `class_name Player` the whole file is the class
; Player, so its functions read `Player.take_damage` (a script without
; `class_name` is anonymous and its functions stay plain). Inner `class` blocks
; are classes, `func` (static or not) functions or methods, named `enum`s enums,
; `const` constants, and `signal` declarations constants too (a signal is an
; immutable member naming an event; listed kinds have no closer match). `var`
; members and anonymous enums are not symbols. `##` comments above a definition
; are its doc (a script's own class doc is not taken: it may sit above or below
; `class_name`, where a comment may as well document the next member). Imports
; are the scripts and scenes `preload`ed and a path `extends "res://base.gd"` names.

((source (class_name_statement name: (name) @name)) @definition.class)

(class_definition name: (name) @name) @definition.class
(function_definition name: (name) @name) @definition.function
(constructor_definition "_init" @name) @definition.function
(enum_definition name: (name) @name) @definition.enum
(const_statement name: (name) @name) @definition.constant
(signal_statement name: (name) @name) @definition.constant

((call (identifier) @_preload arguments: (arguments . (string) @import))
  (#eq? @_preload "preload"))
(extends_statement (string) @import)
