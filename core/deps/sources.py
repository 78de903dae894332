"""The index, its table of names and the parsed trees behind `Dependencies`, cached: a few trees,
one table per index generation, one scan per symbol asked."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from symscope.core.deps.facts import _facts
from symscope.core.deps.scanner import _Scanner
from symscope.core.deps.table import _Table
from symscope.core.deps.values import TREE_CACHE, Use, _Scan
from symscope.core.errors import StaleSymbolError
from symscope.core.models import CONTAINER_KINDS, Symbol

if TYPE_CHECKING:
    from tree_sitter import Tree

    from symscope.core.index import Index


class _Sources:
    """The index, its table and its parsed files (thread-safe, cached per generation)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._table: _Table | None = None
        self._trees: OrderedDict[tuple[str, str], tuple[Tree, bytes]] = OrderedDict()
        self._uses: dict[str, list[tuple[Symbol, bool, int]]] = {}
        self._lock = threading.RLock()

    def table(self) -> _Table:
        with self._lock:
            generation = self.index.generation()
            if self._table is None or self._table.generation != generation:
                self._table = _Table(self.index)
                self._uses.clear()
            return self._table


    def _tree(self, sym: Symbol) -> tuple[Tree, bytes]:
        return self._parsed(sym.path, sym, sym.language)

    def _parsed(self, path: str, sym: Symbol | None, language: str) -> tuple[Tree, bytes]:
        from tree_sitter_language_pack import get_parser

        from symscope.core.languages import language_by_name

        record = self.index.file(path)
        key = (path, record.hash if record else "")
        with self._lock:
            hit = self._trees.get(key)
            if hit is not None:
                self._trees.move_to_end(key)
                return hit
        data = self.index.indexed_bytes(path, sym)
        spec = language_by_name(language)
        if spec is None:
            raise StaleSymbolError(f"no parser for {language}")
        tree = get_parser(spec.grammar).parse(data)  # type: ignore[arg-type]
        with self._lock:
            self._trees[key] = (tree, data)
            while len(self._trees) > TREE_CACHE:
                self._trees.popitem(last=False)
        return tree, data

    def _file(self, table: _Table, path: str) -> tuple[Tree, bytes] | None:
        """A whole file's tree (for its import statements and definition headers), if readable."""
        language = table.languages.get(path)
        if language is None:
            return None
        try:
            return self._parsed(path, None, language)
        except StaleSymbolError:
            return None

    def _scan(self, sym: Symbol) -> _Scan:
        tree, data = self._tree(sym)
        table = self.table()
        skip = sorted(
            (c.start_byte, c.end_byte) for c in table.children.get(sym.id, ())
            if sym.kind in CONTAINER_KINDS or c.kind in CONTAINER_KINDS
        )
        return _Scanner(data, _facts(sym.language)).run(tree, sym.start_byte, sym.end_byte, skip)

    def scan(self, sym: Symbol) -> list[Use]:
        """The names `sym`'s own code uses, in order (a container's members are left out).

        Names the code binds (parameters, declarations), the header of a
        `a.b = function` definition and a keyword argument's name are not uses.
        """
        return self._scan(sym).uses
