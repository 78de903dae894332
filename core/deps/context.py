"""Resolving the uses of one symbol: receivers, chains and declared types worked out as a reader
would."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from symscope.core.deps.facts import _facts
from symscope.core.deps.headers import _encloses, _type_name
from symscope.core.deps.table import _Table
from symscope.core.deps.values import (
    _CALLABLE,
    _HOLDERS,
    _TYPE_KINDS,
    MAX_BASE_DEPTH,
    MAX_CHAIN,
    MAX_REPO_WIDE,
    Use,
    _Chain,
    _Decl,
    _Scan,
)
from symscope.core.models import Symbol

if TYPE_CHECKING:
    from symscope.core.deps.lookup import _Lookup


class _Context:
    """Resolves the uses of one symbol, remembering the types it has worked out."""

    def __init__(self, deps: _Lookup, table: _Table, sym: Symbol, scan: _Scan) -> None:
        self.deps, self.table, self.sym, self.scan = deps, table, sym, scan
        self.lang = _facts(sym.language)
        self.owner = deps._owner(table, sym)
        self.self_names = self.lang.self_names
        if self.lang.receiver is not None:
            match = self.lang.receiver.search(sym.signature)
            if match:
                self.self_names = self.self_names | {match.group(1)}
        aliases = {name for name, decls in scan.declared.items()  # `var self = this`
                   if all(chain is not None and len(chain) == 1 and chain[0][0] in self.self_names
                          and not chain[0][1] for _, chain in decls)}
        self.self_names = self.self_names | aliases
        self._types: dict[_Chain, list[Symbol]] = {}
        self._found: dict[int, list[Symbol] | None] = {}
        self._busy: set[str] = set()

    def resolve(self, i: int) -> list[Symbol] | None:
        """The symbols use `i` names: [] when that cannot be told, None when it is surely none."""
        u, sym, owner = self.scan.uses[i], self.sym, self.owner
        if u.qualifier is None and (u.name == sym.name or u.name in self.self_names):
            return None  # its own name (recursion), or `self` itself
        if u.key_of is not None:
            kinds = self.type_of_text(u.key_of)
            if any(u.name in self.deps._fields(self.table, t) for t in kinds):
                return None  # `Engine{root: true}`: a field name, not the constant `root`
        found = self._find(u)
        self._found[i] = found
        if found is None:
            return None
        in_body = u.qualifier is None and u.start >= self.scan.body
        return [c for c in found if c.id != sym.id and (
            in_body if c is owner else not _encloses(c, sym)
        )]

    def _find(self, u: Use) -> list[Symbol] | None:
        deps, table, sym = self.deps, self.table, self.sym
        q = u.qualifier
        if q is None:
            if u.name in self.scan.locals and not u.in_type and self.scan.bound_at.get(u.name, 0) <= u.start:
                if not (u.call and u.name[:1].isupper()):
                    return None
                # `var View = this.get('view'); new View(...)`: a local named like a repo type
                # and then constructed holds that type, as a reader assumes.
                named, step = deps._bare(table, sym.path, u.name)
                return named if step >= 0 and named else None
            if self.lang.implicit_self and self.owner is not None:
                found = deps._member(table, self.owner, u.name)
                if found:
                    return found
            found, step = deps._bare(table, sym.path, u.name)
            if step < 0:
                return None
            if not u.call:
                # A bare name that is not called: a type, a constant, or a function passed
                # along; trust the last only when this file defines or imports it by name.
                found = [s for s in found if s.kind in _TYPE_KINDS] or (
                    found if len(found) == 1 and step in (0, 1) else []
                )
            return found
        chain = self._chain_at(u.receiver, u.via_call)
        head = self.chain_types(chain) if chain else []
        if not head and u.via_call:  # `this.location(url).get(...)`: location returns `this`
            callees = self._found.get(u.receiver) or []
            if callees and all(deps._returns_self(table, f) for f in callees):
                owners = [deps._owner(table, f) for f in callees]
                if all(o is not None for o in owners):
                    head = list({o.id: o for o in owners if o is not None}.values())
                else:
                    return list({m.id: m for f in callees for m in self._this_member(u.name, f)}.values())
        if head:
            if not u.call and any(u.name in deps._fields(table, t) for t in head):
                return None  # `self.path` reads the field, not the method path()
            members = [m for t in head for m in deps._member(table, t, u.name)]
            return list({m.id: m for m in members}.values()) or None
        if q in self.self_names and self.owner is None:
            return self._this_member(u.name)
        if q == "?" or q in self.self_names or q in self.lang.super_names:
            return []
        if u.receiver >= 0 and self.scan.uses[u.receiver].qualifier is None and q in self.scan.locals:
            return self._untyped(q, u.name)
        return deps._qualified(table, sym.path, q, u.name)

    def _untyped(self, var: str, name: str) -> list[Symbol]:
        """`var.name` where `var` is a local of undeclared type.

        A qualified name the repo defines exactly (`app.render`), else a member of
        the type the variable is named after (`view.render` -> View's render).
        """
        table = self.table
        named = table.by_qualname.get(f"{var}.{name}", [])
        if named:
            return list(named) if len(named) <= MAX_REPO_WIDE else []
        if not var[:1].islower() or var in self.scan.declared:
            return []  # declared as something outside the repo
        found: list[Symbol] = []
        for t in self.deps._bare(table, self.sym.path, var[0].upper() + var[1:])[0]:
            if t.kind in _HOLDERS:
                found.extend(self.deps._member(table, t, name))
            elif t.kind == "function":  # a constructor function: `View.prototype.render`
                found.extend(m for m in table.by_qualname.get(f"{t.qualname}.{name}", ()) if m.path == t.path)
        return found

    def _chain_at(self, index: int, called: bool) -> _Chain | None:
        """The receiver chain ending at use `index` (`c.Writer` for `c.Writer.Status()`)."""
        parts: list[tuple[str, bool]] = []
        k = index
        for _ in range(MAX_CHAIN):
            r = self.scan.uses[k]
            parts.append((r.name, called))
            if r.receiver < 0:
                if r.qualifier is not None:
                    return None  # starts at an expression: `(a + b).x`, `xs[0].y`
                return tuple(reversed(parts))
            called, k = r.via_call, r.receiver
        return None

    def _this_member(self, name: str, sym: Symbol | None = None) -> list[Symbol]:
        """`this.x` in `app.x = function` or in a constructor function: its qualified-name prefix's x."""
        sym, table = sym or self.sym, self.table
        prefixes = [sym.qualname] if sym.kind == "function" else []
        if "." in sym.qualname:
            prefixes.append(sym.qualname.rsplit(".", 1)[0])
        for prefix in prefixes:
            key = f"{prefix}.{name}"
            named = table.by_qualname.get(key, [])
            here = [s for s in named if s.path == sym.path] or self.deps._aliases(table, sym.path).get(key, [])
            if here:
                return list(here)
            if named and len(named) <= MAX_REPO_WIDE:
                return list(named)
        return []

    def chain_types(self, chain: _Chain, as_type: bool = False) -> list[Symbol]:
        """The repo types the value `chain` has ([] when unknown)."""
        key = chain if not as_type else (("", True), *chain)
        hit = self._types.get(key)
        if hit is None:
            hit = self._types[key] = self._chain_types(chain, as_type)
        return hit

    def _chain_types(self, chain: _Chain, as_type: bool) -> list[Symbol]:
        deps, table, scan = self.deps, self.table, self.scan
        name, called = chain[-1]
        if len(chain) == 1:
            if name in self.self_names:
                return [self.owner] if self.owner is not None and not called else []
            if name in self.lang.super_names:
                return deps._bases(table, self.owner) if self.owner is not None else []
            if not as_type and name in scan.declared and name not in self._busy:
                self._busy.add(name)
                try:
                    return self._decl_types(scan.declared[name])
                finally:
                    self._busy.discard(name)
            if not as_type and name in scan.locals:
                return []
            found, step = deps._bare(table, self.sym.path, name)
            if step < 0:
                return []
        else:
            head = self.chain_types(chain[:-1], as_type)
            if head:
                if not called:
                    return self._field_types(head, name)
                found = [m for t in head for m in deps._member(table, t, name)]
            else:
                q, q_called = chain[-2]
                if q_called or q in self.self_names or q in self.lang.super_names or (
                    len(chain) == 2 and not as_type and q in scan.locals
                ):
                    return []
                found = deps._qualified(table, self.sym.path, q, name)
        holders = [s for s in found if s.kind in _HOLDERS]
        if not called and not holders:  # a package-level variable: `json.API.Marshal`
            return list({t.id: t for v in found if v.kind == "constant" for t in deps._var_types(table, v)}.values())
        if holders or not called:
            return holders
        return list({t.id: t for f in found if f.kind in _CALLABLE for t in deps._returns(table, f)}.values())

    def _decl_types(self, decls: list[_Decl]) -> list[Symbol]:
        out: dict[str, Symbol] = {}
        for ann, chain in decls:
            if ann is not None:
                found = self.type_of_text(ann, self.owner)
            elif chain is not None:
                found = self.chain_types(chain)
            else:
                found = []
            out.update((t.id, t) for t in found)
        return list(out.values())

    def _field_types(self, holders: list[Symbol], name: str) -> list[Symbol]:
        """The types of field `name` of these classes (or the classes they inherit from)."""
        deps, table = self.deps, self.table
        frontier, seen = list(holders), {h.id for h in holders}
        for _ in range(MAX_BASE_DEPTH):
            out: dict[str, Symbol] = {}
            for h in frontier:
                out.update((t.id, t) for t in deps._field_type(table, h, name))
            if out:
                return list(out.values())
            nxt = [b for h in frontier for b in deps._bases(table, h) if b.id not in seen]
            seen.update(b.id for b in nxt)
            if not nxt:
                break
            frontier = nxt
        return []

    def type_of_text(self, text: str, owner: Symbol | None = None) -> list[Symbol]:
        """The repo types a type annotation names (`*gin.Context`, `"APIRoute"`, `ModelField | None`)."""
        name = _type_name(text)
        if name is None:
            return []
        if name in ("Self", "self") or (owner is not None and name == owner.name):
            return [owner] if owner is not None else []
        parts = tuple((p, False) for p in re.split(r"\.|::", name) if p)
        return self.chain_types(parts, as_type=True) if parts else []
