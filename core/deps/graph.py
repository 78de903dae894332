"""`Dependencies`: uses, closures, callers and importers over one `Index`, cached per generation."""

from __future__ import annotations

from symscope.core.deps.context import _Context
from symscope.core.deps.lookup import _Lookup
from symscope.core.deps.values import (
    _HOLDERS,
    Dependency,
    Importer,
    _Scan,
)
from symscope.core.errors import StaleSymbolError
from symscope.core.models import Reference, Symbol


class Dependencies(_Lookup):
    """Uses, closures, callers and importers over one `Index` (thread-safe, cached per generation)."""

    # -- resolving -------------------------------------------------------------------

    def uses(self, sym: Symbol) -> list[tuple[Symbol, bool, int]]:
        """(symbol used, ambiguous, line of first use), in order of first use."""
        with self._lock:
            self.table()
            cached = self._uses.get(sym.id)
        if cached is not None:
            return cached
        scan, resolved = self._analyse(sym)
        # `Limits.max()` uses Limits.max, not the whole class Limits.
        receivers = {u.receiver for u, f in zip(scan.uses, resolved, strict=True) if f and not u.via_call}
        receivers = {i for i in receivers if i >= 0 and all(s.kind in _HOLDERS for s in resolved[i] or ())}
        out: dict[str, tuple[Symbol, bool, int]] = {}
        for i, (use, found) in enumerate(zip(scan.uses, resolved, strict=True)):
            if not found or i in receivers:
                continue
            ambiguous = len(found) > 1
            for cand in found:
                if cand.id not in out:
                    out[cand.id] = (cand, ambiguous, use.line)
        result = sorted(out.values(), key=lambda t: t[2])
        with self._lock:
            self._uses[sym.id] = result
        return result

    def _analyse(self, sym: Symbol) -> tuple[_Scan, list[list[Symbol] | None]]:
        """`sym`'s scan, and per use the symbols it names: [] when unknown, None when surely none.

        Runs under the lock: the table's memos (with their cycle markers) are filled as it goes.
        """
        with self._lock:
            table = self.table()
            scan = self._scan(sym)
            ctx = _Context(self, table, sym, scan)
            return scan, [ctx.resolve(i) for i in range(len(scan.uses))]

    # -- closures, callers, importers ---------------------------------------------------

    def closure(self, sym: Symbol, depth: int = 1) -> list[Dependency]:
        """Uses to `depth`, nearest first; cycles end; ambiguous candidates are not followed."""
        seen = {sym.id}
        out: list[Dependency] = []
        frontier = [sym]
        for distance in range(1, depth + 1):
            nxt: list[Symbol] = []
            for s in frontier:
                for dep, ambiguous, _ in self.uses(s):
                    if dep.id in seen:
                        continue
                    seen.add(dep.id)
                    out.append(Dependency(dep, distance, ambiguous, s.id))
                    if not ambiguous:
                        nxt.append(dep)
            frontier = nxt
            if not frontier:
                break
        return out

    def callers(self, sym: Symbol, limit: int = 200) -> list[Reference]:
        """The symbols that use `sym`, each with the line of the first use.

        Candidates are the symbols whose code mentions `sym`'s name; one is dropped
        only when every mention resolves to other symbols (`other.Get()` where
        `other` is another class) or to nothing in the repo (a local variable of
        the same name), so calls through a receiver of unknown type still count.
        """
        out: list[Reference] = []
        for ref in self.index.references(sym, limit=max(limit * 4, 200)):
            try:
                scan, resolved = self._analyse(ref.symbol)
            except StaleSymbolError:
                continue
            lines = [u.line for u, found in zip(scan.uses, resolved, strict=True)
                     if u.name == sym.name and found is not None and (not found or sym in found)]
            if lines:
                out.append(Reference(ref.symbol, lines[0]))
            if len(out) >= limit:
                break
        return out

    def importers(self, target: str) -> list[Importer]:
        """Files that import `target` (a repo file, a folder, or a module name as written)."""
        table = self.table()
        target = target.strip("/")
        wanted = set(table.stems.get(target.rsplit(".", 1)[0], ())) | set(table.dirs.get(target, ()))
        if target in table.files:
            wanted.add(target)
        out: list[Importer] = []
        for path in sorted(table.imports):
            for module, line in table.imports[path]:
                files = set(table.module_files(module, path))
                hit = bool(files & wanted) if wanted else module.strip("'\"") == target
                if not hit or path in wanted:
                    continue
                users = []
                for s in self.index.file_symbols(path):
                    try:
                        if any(d.path in (files or wanted) for d, _, _ in self.uses(s)):
                            users.append(s)
                    except StaleSymbolError:
                        break
                out.append(Importer(path, module, line, tuple(users)))
                break
        return out
