"""What a symbol uses, what uses it, and who imports a file: resolved the way a reader would.

A symbol's uses are the names in its own code (for a class: its header and
class-level code, not its methods' bodies) that name repo symbols. Each name is
looked up in order, stopping at the first place that has it:

1. a name the symbol binds itself (a parameter, `x :=`, `let x`, `x = ...`) is
   local: never a repo symbol, however it is spelled;
2. `recv.name`: the type of `recv` is worked out as a reader would, from
   `self`/`this`/a Go receiver (the own class; a JS `app.x = function` or a
   constructor function's `this` is its qualified-name prefix), `super`, the
   symbol's own parameters and simple declarations (`c *Context`, `x := &T{}`,
   `x = T(...)`, `let x = T::new()`, `x: T`, `new T()`), fields whose type the
   class declares (`c.Writer.Status()`), and what a repo function returns
   (`c.AbortWithError(...).SetType`); then `name` is looked up in that type and
   the classes it inherits from;
3. otherwise `X.name`: the members of a repo type `X`, or the top-level symbols
   of a module the file imports as `X` (or a sibling module file, Rust's `mod x;`);
4. a bare name: the same class (where a bare name can be a member), the same
   file, the file's imports (an import statement that names the symbol is
   followed to that symbol, through `as` aliases and one re-export; a name
   imported from outside the repo is external), the same folder, and only for
   names the file does not import at all, a name few symbols in the whole repo have.

A name that more than one candidate still answers is returned with every
candidate marked `ambiguous`, never guessed. Built-ins and external libraries
are not repo symbols, so they never appear. Names are found with tree-sitter, so
comments and strings never count. What differs between languages is data in
languages.json, read through `_facts`: which receivers mean "this object"
(`self_names`, `receiver_regex`, `implicit_self`), `super_names`, the member
operators (`member_operators`; `->` is one only in C-like languages), the
manifest that names a module's root (`module_manifest`, Go's go.mod), whether
files see each other only through imports (`explicit_imports`: then no repo-wide
guess for a module's bare names), and the header that keeps a file out of a
default build (`build_constraint`: of candidates in several files, those built
without tags win).
"""

from __future__ import annotations

from symscope.core.deps.graph import Dependencies
from symscope.core.deps.values import Dependency, Importer, Use

__all__ = ["Dependencies", "Dependency", "Importer", "Use"]
