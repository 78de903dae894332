"""symscope's engine: extract, index, search and retrieve whole code symbols.

Nothing here imports textual or rich; the TUI and CLI sit on top. `Index` is
imported on first use, so the parser processes that import this package (to
reach `symscope.core.workers`) do not load the search stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from symscope.core.errors import SymscopeError
from symscope.core.models import FileRecord, SearchHit, SkippedFile, Symbol

if TYPE_CHECKING:
    from symscope.core.index import Index

__all__ = ["FileRecord", "Index", "SearchHit", "SkippedFile", "Symbol", "SymscopeError"]


def __getattr__(name: str) -> Any:
    if name == "Index":
        from symscope.core.index import Index

        return Index
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
