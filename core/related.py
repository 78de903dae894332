"""A symbol's related symbols (uses and used-by), and what adding it with its dependencies adds.

Both come from the dependency graph (`Index.deps`, `core/deps.py`): a symbol's
*uses* (what its code calls, instantiates, inherits or reads) and its *callers*
(the symbols whose code uses it), each with the line of the use and whether the
name was certain. Every face reads them here (the TUI's Related pane and its
add-with-dependencies confirmation), so they agree. The graph is cached per index
generation; the first call in a process imports tree-sitter (about 100 ms), so
an interactive face calls these off its UI thread.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from symscope.core.bundle import symbol_key
from symscope.core.deps import Dependency
from symscope.core.errors import SymscopeError
from symscope.core.index import Index
from symscope.core.models import Symbol

#: Callers listed at most (the pane says when there are more).
CALLER_LIMIT = 100
#: How far add-with-dependencies follows uses.
DEPS_DEPTH = 1


@dataclass(frozen=True, slots=True)
class RelatedRow:
    """One row of the Related pane: a symbol, the line where the use is, and whether it is certain."""

    symbol: Symbol
    line: int
    """Uses: the line in the current symbol's code; callers: the line of the call in the caller."""
    ambiguous: bool = False
    """The name has several candidates; every one is listed, none is guessed."""
    caller: bool = False
    """A row of *Used by* (else of *Uses*)."""

    @property
    def where(self) -> str:
        """`path:line`: where a used symbol is defined, or where a caller makes the call."""
        return f"{self.symbol.path}:{self.line if self.caller else self.symbol.start_line}"


@dataclass(frozen=True, slots=True)
class RelatedRows:
    """The Related pane's rows: the uses and callers of one symbol (`Workspace.related_rows`)."""

    symbol: Symbol
    uses: tuple[RelatedRow, ...] = ()
    callers: tuple[RelatedRow, ...] = ()
    more_callers: bool = False
    """The caller list was cut at `CALLER_LIMIT`."""
    error: str | None = None

    @property
    def uses_tokens(self) -> int:
        return sum(r.symbol.tokens for r in self.uses)


def related(index: Index, sym: Symbol | str, caller_limit: int = CALLER_LIMIT) -> RelatedRows:
    """`sym`'s uses (in order of first use) and callers (by path).

    Args:
        sym: The symbol, or its id (a unique name works too, as everywhere an id goes).

    Raises:
        UnknownSymbolError: an id or name no symbol has. A symbol given is never an error:
            a graph that cannot be read is reported in `RelatedRows.error`.
    """
    if isinstance(sym, str):
        sym = index.symbol(sym)
    try:
        uses = tuple(RelatedRow(s, line, ambiguous) for s, ambiguous, line in index.deps.uses(sym))
        refs = index.deps.callers(sym, limit=caller_limit + 1)
    except SymscopeError as exc:
        return RelatedRows(sym, error=str(exc))
    callers = tuple(RelatedRow(r.symbol, r.line, caller=True) for r in refs[:caller_limit])
    return RelatedRows(sym, uses, callers, len(refs) > caller_limit)


@dataclass(frozen=True, slots=True)
class DepsPlan:
    """What add-with-dependencies would add: shown (and confirmed) before anything is added."""

    root: Symbol
    add_root: bool
    """The symbol itself is not in the bundle yet."""
    deps: tuple[Dependency, ...]
    """Its dependencies not in the bundle yet, nearest first (ambiguous candidates included,
    as `symscope bundle --deps` adds them)."""
    present: int = 0
    """Dependencies already in the bundle (not added again)."""
    error: str | None = None

    @property
    def tokens(self) -> int:
        """Tokens the bundle grows by."""
        return (self.root.tokens if self.add_root else 0) + sum(d.symbol.tokens for d in self.deps)

    @property
    def empty(self) -> bool:
        return not self.add_root and not self.deps

    @property
    def delta(self) -> str:
        """`+4 deps, +312 tok` (the symbol itself counted in the tokens when it is new)."""
        noun = "dep" if len(self.deps) == 1 else "deps"
        return f"+{len(self.deps)} {noun}, +{self.tokens:,} tok"


def plan_with_deps(index: Index, sym: Symbol, in_bundle: Collection[str], depth: int = DEPS_DEPTH) -> DepsPlan:
    """The items adding `sym` with its dependencies (to `depth`) would add to a bundle of keys `in_bundle`."""
    try:
        closure = index.deps.closure(sym, depth)
    except SymscopeError as exc:
        return DepsPlan(sym, False, (), error=str(exc))
    new = tuple(d for d in closure if symbol_key(d.symbol.id) not in in_bundle)
    return DepsPlan(sym, symbol_key(sym.id) not in in_bundle, new, len(closure) - len(new))
