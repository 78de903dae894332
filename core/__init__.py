"""symscope's engine: extract, index, search and retrieve whole code symbols.

Nothing here imports textual or rich; the TUI and CLI sit on top.
"""

from __future__ import annotations

from symscope.core.errors import SymscopeError
from symscope.core.index import Index
from symscope.core.symbols import FileRecord, SearchHit, SkippedFile, Symbol

__all__ = ["FileRecord", "Index", "SearchHit", "SkippedFile", "Symbol", "SymscopeError"]
