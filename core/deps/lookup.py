"""Name lookups over the table of names: members and bases of a class, field and return types,
imports and aliases, bare and qualified names, each memoised in the table."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from symscope.core.deps.context import _Context
from symscope.core.deps.facts import _facts
from symscope.core.deps.headers import (
    _base_names,
    _holds_untagged,
    _import_names,
    _line_starts,
    _return_text,
    _submodule,
)
from symscope.core.deps.scanner import _chain_of
from symscope.core.deps.sources import _Sources
from symscope.core.deps.table import _Table
from symscope.core.deps.values import (
    _CALLABLE,
    _DEFINERS,
    _EMPTY,
    _HOLDERS,
    MAX_BASE_DEPTH,
    MAX_REPO_WIDE,
    _Decl,
    _Imp,
)
from symscope.core.errors import StaleSymbolError
from symscope.core.models import Symbol

if TYPE_CHECKING:
    from tree_sitter import Node



class _Lookup(_Sources):
    """Where a name leads, seen from a file or a class: the steps `_Context` resolves uses with."""

    @staticmethod
    def _owner(table: _Table, sym: Symbol) -> Symbol | None:
        """The class (struct, impl, Go named type...) a symbol belongs to, if any."""
        parent = table.by_id.get(sym.parent_id) if sym.parent_id else None
        while parent is not None and parent.kind not in _HOLDERS:
            parent = table.by_id.get(parent.parent_id) if parent.parent_id else None
        if parent is None and sym.kind in _HOLDERS:
            return sym
        return parent

    def _bases(self, table: _Table, owner: Symbol) -> list[Symbol]:
        """The repo classes `owner`'s header names as its bases, and the types it embeds."""
        cached = table.bases.get(owner.id)
        if cached is not None:
            return cached
        table.bases[owner.id] = []  # a cycle ends here
        found = {b.id: b for base in _base_names(owner) for b in self._bare(table, owner.path, base)[0]
                 if b.kind in _HOLDERS and b.id != owner.id}
        embedded = self._class_facts(table, owner)[1]
        if embedded:
            ctx = _Context(self, table, owner, _EMPTY)
            for text in embedded:
                found.update((b.id, b) for b in ctx.type_of_text(text) if b.id != owner.id)
        table.bases[owner.id] = list(found.values())
        return table.bases[owner.id]

    def _member(self, table: _Table, owner: Symbol, name: str) -> list[Symbol]:
        """`owner`'s members named `name`, then its base classes' (breadth first)."""
        frontier, seen = [owner], {owner.id}
        for _ in range(MAX_BASE_DEPTH):
            found = [m for o in frontier for m in table.members.get(o.id, {}).get(name, ())]
            if not found:  # Go: a method declared in another file of the type's package
                found = [m for o in frontier for m in table.by_qualname.get(f"{o.name}.{name}", ())
                         if posixpath.dirname(m.path) == posixpath.dirname(o.path) and m.name == name]
            if found:
                return found
            nxt = []
            for o in frontier:
                for b in self._bases(table, o):
                    if b.id not in seen:
                        seen.add(b.id)
                        nxt.append(b)
                # Go/Rust: methods attach to the type by name, wherever they are declared.
                for twin in table.by_name.get(o.name, ()):
                    if twin.id not in seen and twin.kind in _HOLDERS and twin.path == o.path:
                        seen.add(twin.id)
                        nxt.append(twin)
            if not nxt:
                return []
            frontier = nxt
        return []

    def _fields(self, table: _Table, holder: Symbol) -> dict[str, list[_Decl]]:
        """The fields a class declares (`Writer ResponseWriter`, `x: T`, `self.x = T()`) and their types."""
        return self._class_facts(table, holder)[0]

    def _class_facts(self, table: _Table, holder: Symbol) -> tuple[dict[str, list[_Decl]], tuple[str, ...]]:
        """A class's fields with their declarations, and the types it embeds."""
        cached = table.fields.get(holder.id)
        if cached is not None:
            return cached
        out: dict[str, list[_Decl]] = {}
        embedded: tuple[str, ...] = ()
        try:
            scan = self._scan(holder)
            out = {k: list(v) for k, v in scan.declared.items()}
            embedded = scan.embedded
            lang = _facts(holder.language)
            if lang.self_field is not None:
                _, data = self._tree(holder)
                text = data[holder.start_byte : holder.end_byte].decode("utf-8", "replace")
                for m in lang.self_field.finditer(text):
                    ann = m.group(2).strip() if m.group(2) else None
                    chain = None if ann else _chain_of(m.group(3), lang.member_ops)
                    if ann or chain:
                        out.setdefault(m.group(1), []).append((ann, chain))
        except StaleSymbolError:
            pass
        table.fields[holder.id] = (out, embedded)
        return table.fields[holder.id]

    def _field_type(self, table: _Table, holder: Symbol, name: str) -> list[Symbol]:
        """The repo types field `name` of `holder` is declared as (its own declarations only)."""
        key = (holder.id, name)
        cached = table.field_types.get(key)
        if cached is not None:
            return cached
        table.field_types[key] = []  # a cycle ends here
        found: list[Symbol] = []
        decls = self._fields(table, holder).get(name)
        if decls:
            ctx = _Context(self, table, holder, _EMPTY)
            ctx.owner = holder
            found = ctx._decl_types(decls)
        table.field_types[key] = found
        return found

    def _returns_self(self, table: _Table, func: Symbol) -> bool:
        """Whether a function returns its own object (`return this`), as fluent APIs do."""
        hit = table.self_returns.get(func.id)
        if hit is None:
            hit = False
            pattern = _facts(func.language).returns_self
            if pattern is not None and func.kind in _CALLABLE:
                table.self_returns[func.id] = False  # a cycle ends here
                try:
                    _, data = self._tree(func)
                    found = pattern.findall(data[func.start_byte : func.end_byte].decode("utf-8", "replace"))
                except StaleSymbolError:
                    found = []
                # `return this`, or `return this.set(...)` where set returns `this` in turn.
                hit = "" in found or (bool(found) and all(self._all_return_self(table, func, n) for n in found))
            table.self_returns[func.id] = hit
        return hit

    def _all_return_self(self, table: _Table, func: Symbol, name: str) -> bool:
        """Whether `this.name` inside `func` names methods that all return their own object."""
        owner = self._owner(table, func)
        targets = (self._member(table, owner, name) if owner is not None
                   else _Context(self, table, func, _EMPTY)._this_member(name))
        return bool(targets) and all(self._returns_self(table, t) for t in targets)

    def _var_types(self, table: _Table, var: Symbol) -> list[Symbol]:
        """The repo types a package-level variable or constant is declared as (`var API Core`)."""
        cached = table.var_types.get(var.id)
        if cached is not None:
            return cached
        table.var_types[var.id] = []  # a cycle ends here
        found: list[Symbol] = []
        try:
            decls = self._scan(var).declared.get(var.name)
            if decls:
                found = _Context(self, table, var, _EMPTY)._decl_types(decls)
        except StaleSymbolError:
            pass
        table.var_types[var.id] = found
        return found

    def _returns(self, table: _Table, func: Symbol) -> list[Symbol]:
        """The repo type a function's signature says it returns (`-> Self`, `*Engine`, `): Ky`)."""
        cached = table.returns.get(func.id)
        if cached is not None:
            return cached
        table.returns[func.id] = []  # a cycle ends here
        text = _return_text(func.signature, func.name)
        found: list[Symbol] = []
        if text:
            owner = self._owner(table, func)
            found = _Context(self, table, func, _EMPTY).type_of_text(text, owner)
        table.returns[func.id] = found
        return found

    def _imports(self, table: _Table, path: str) -> list[_Imp]:
        """A file's import statements with the names each binds (`from m import A as B`: B -> A)."""
        cached = table.file_imports.get(path)
        if cached is not None:
            return cached
        out: list[_Imp] = []
        parsed = self._file(table, path) if table.imports.get(path) else None
        starts = _line_starts(parsed[1]) if parsed else []
        for module, line in table.imports.get(path, ()):
            names = _import_names(parsed, starts, module, line) if parsed else {}
            files = table.module_files(module, path)
            if not files and not names:
                # `use crate::dent::DirEntry`, `import app.Worker`: the last part names a symbol.
                parts = re.split(r"(::|\.)", module.strip("'\"`"))
                if len(parts) >= 3 and (parts[-2] == "::" or parts[-1][:1].isupper()) and parts[-1] != "self":
                    head = "".join(parts[:-2])
                    files = table.module_files(head, path) if head.strip(".:/") else ()
                    if files:
                        names = {parts[-1]: parts[-1]}
            out.append(_Imp(module, files, names))
        table.file_imports[path] = out
        return out

    def _aliases(self, table: _Table, path: str) -> dict[str, list[Symbol]]:
        """`res.set = res.header = function header`: every name a definition is assigned to."""
        cached = table.aliases.get(path)
        if cached is not None:
            return cached
        out: dict[str, list[Symbol]] = defaultdict(list)
        parsed = self._file(table, path)
        if parsed is not None:
            tree, data = parsed
            for top in tree.root_node.children:
                for n in (top, *top.named_children):
                    if "assignment" not in n.type:
                        continue
                    lefts: list[str] = []
                    cur: Node | None = n
                    while cur is not None and "assignment" in cur.type:
                        left = cur.child_by_field_name("left")
                        if left is None:
                            break
                        lefts.append(re.sub(r"\s+|\.prototype\b", "", data[left.start_byte : left.end_byte].decode(
                            "utf-8", "replace")))
                        cur = cur.child_by_field_name("right")
                    if cur is None or not any(word in cur.type for word in _DEFINERS):
                        continue
                    at = cur.start_byte
                    inside = [s for s in table.in_file.get(path, ()) if s.start_byte <= at < s.end_byte]
                    if inside:
                        target = min(inside, key=lambda s: s.end_byte - s.start_byte)
                        for name in lefts:
                            out[name].append(target)
        table.aliases[path] = dict(out)
        return table.aliases[path]

    def _default_build(self, table: _Table, found: list[Symbol]) -> list[Symbol]:
        """Of candidates in several files, those whose file is in a default build, if some are not.

        `binding.go` (`//go:build !nomsgpack`) and `binding_nomsgpack.go` both define
        Binding; a reader builds without tags, so the first one is meant.
        """
        if len({s.path for s in found}) < 2:
            return found
        kept = [s for s in found if self._in_default_build(table, s.path)]
        return kept or found

    def _in_default_build(self, table: _Table, path: str) -> bool:
        hit = table.builds.get(path)
        if hit is None:
            hit = True
            pattern = _facts(table.languages.get(path, "")).build_constraint
            if pattern is not None:
                try:
                    head = self.index.indexed_bytes(path)[:4096].decode("utf-8", "replace")
                except StaleSymbolError:
                    head = ""
                match = pattern.search(head)
                hit = _holds_untagged(match.group(1)) if match else True
            table.builds[path] = hit
        return hit

    def _bare(self, table: _Table, path: str, name: str) -> tuple[list[Symbol], int]:
        """A bare name seen from `path`, and where it was found.

        Steps: 0 the same file, 1 an import that names it, 2 a whole imported module,
        3 the same folder, 4 the whole repo; -1 imported from outside the repo.
        """
        key = (path, name)
        hit = table.bare_memo.get(key)
        if hit is not None:
            return hit
        found, step = self._find_bare(table, path, name)
        result = (self._default_build(table, found), step)
        table.bare_memo[key] = result
        return result

    def _find_bare(self, table: _Table, path: str, name: str) -> tuple[list[Symbol], int]:
        same = table.top.get((path, name))
        if same:
            return list(same), 0
        imports = self._imports(table, path)
        named = [imp for imp in imports if name in imp.names]
        external = False
        found: list[Symbol] = []
        for imp in named:
            if not imp.files:
                external = external or not imp.module.strip("'\"`").startswith(".")
                continue
            orig = imp.names[name]
            hits = [s for f in imp.files for s in table.top.get((f, orig), ())]
            if not hits:  # one re-export: `export { X } from './x'`, `from .x import X` in a package
                for f in imp.files:
                    for again in self._imports(table, f):
                        if again.files and (orig in again.names or not again.names):
                            inner = again.names.get(orig, orig)
                            hits.extend(s for g in again.files for s in table.top.get((g, inner), ()))
            found.extend(hits)
        if found:
            return list({s.id: s for s in found}.values()), 1
        if external:
            return [], -1
        whole = [s for imp in imports if not imp.names for f in imp.files for s in table.top.get((f, name), ())]
        if whole:
            return list({s.id: s for s in whole}.values()), 2
        folder = posixpath.dirname(path)
        local = [s for f in table.dirs.get(folder, ()) for s in table.top.get((f, name), ())]
        if local:
            return local, 3
        if named or (imports and _facts(table.languages.get(path, "")).explicit_imports):
            # Imported by name from a repo module that does not define it, or, in a module of a
            # language whose files see each other only through imports, neither defined nor
            # imported: a built-in or a global (TypeScript's Required), not another file's symbol.
            return [], 4
        anywhere = [s for s in table.by_name.get(name, ()) if s in table.top.get((s.path, name), ())]
        return (anywhere if len(anywhere) <= MAX_REPO_WIDE else []), 4

    def _qualified(self, table: _Table, path: str, qualifier: str, name: str) -> list[Symbol]:
        """`qualifier.name` where `qualifier` is a name (not a variable) seen from `path`."""
        key = (path, qualifier, name)
        hit = table.qualified_memo.get(key)
        if hit is None:
            hit = self._default_build(table, self._find_qualified(table, path, qualifier, name))
            table.qualified_memo[key] = hit
        return hit

    def _find_qualified(self, table: _Table, path: str, qualifier: str, name: str) -> list[Symbol]:
        # `Type.name`: a member of a repo type the file can see.
        seen, step = self._bare(table, path, qualifier)
        if step < 0:
            return []  # an external module or object
        types = [t for t in seen if t.kind in _HOLDERS]
        if types:
            found = [m for t in types for m in self._member(table, t, name)]
            if found:
                return found
        # `module.name`: a top-level symbol of an imported module.
        for imp in self._imports(table, path):
            candidates: Iterable[str] = ()
            if imp.names:
                if qualifier not in imp.names or not imp.files:
                    continue
                orig = imp.names[qualifier]
                candidates = table.module_files(_submodule(imp.module, orig), path) or imp.files
            else:
                last = re.split(r"::|[./\\]", imp.module.strip("'\"`"))[-1]
                candidates = imp.files if last == qualifier else table.module_files(
                    _submodule(imp.module, qualifier), path)
            found = [s for f in candidates for s in table.top.get((f, name), ())]
            if found:
                return found
        # A module file beside this one (Rust: `mod util;` then `util::device_num()`).
        stem = path.rsplit(".", 1)[0]
        for base in (posixpath.dirname(path), stem):
            near = [s for f in table.stems.get(posixpath.join(base, qualifier), ()) if f != path
                    for s in table.top.get((f, name), ())]
            if near:
                return near
        # `obj.name` where the repo defines exactly that qualified name (`app.render` in express).
        named = table.by_qualname.get(f"{qualifier}.{name}", [])
        return list(named) if len(named) <= MAX_REPO_WIDE else []
