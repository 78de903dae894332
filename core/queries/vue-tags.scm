; Vue single-file components. Conventions: see core/parse.py.
; The component itself is the file's symbol (`"file_symbol": "class"` in languages.json); the symbols
; come from its <script> blocks (`<script setup>` too), each parsed in place as JavaScript, or as the
; language its `lang` attribute names (`ts`, `tsx`, ...; an unknown one, like `coffee`, is skipped).
; <template> and <style> define nothing.

(script_element (raw_text) @embed.javascript)

; Later patterns win for the same block: a `lang` attribute overrides the default.
(script_element
  (start_tag
    (attribute
      (attribute_name) @_attr
      [(attribute_value) @embed.lang (quoted_attribute_value (attribute_value) @embed.lang)]))
  (raw_text) @embed.javascript
  (#eq? @_attr "lang"))

; `lang="jsx"` is JavaScript (its grammar parses JSX), not a language name of its own.
(script_element
  (start_tag
    (attribute
      (attribute_name) @_attr
      [(attribute_value) @_lang (quoted_attribute_value (attribute_value) @_lang)]))
  (raw_text) @embed.javascript
  (#eq? @_attr "lang")
  (#eq? @_lang "jsx"))
