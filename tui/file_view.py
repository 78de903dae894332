"""Reading one file for display, off the UI thread (no Textual here).

`load_file` reads the file once: the core checks those same bytes against the
index (`Index.indexed_bytes`), so showing a file and saying whether it changed
since indexing costs one read and one hash. Only a changed file is read again,
as the text on disk now.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from symscope.core.api import Workspace
from symscope.core.errors import StaleSymbolError, SymscopeError
from symscope.core.models import FileRecord, OutlineNode


@dataclass(frozen=True, slots=True)
class FileView:
    """What the source and outline panes show for one file."""

    path: str
    record: FileRecord | None
    text: str = ""
    current: bool = True
    """The file on disk is still what was indexed."""
    outline: list[OutlineNode] = field(default_factory=list)
    error: str | None = None
    """Why the file cannot be shown (then `text` is empty)."""


def load_file(ws: Workspace, path: str) -> FileView:
    """Read `path` (repo-relative) and its outline from `ws`; never raises a SymscopeError."""
    record = ws.file(path)
    try:
        try:
            text = ws.indexed_text(path)
            current = True
        except StaleSymbolError:
            text = ws.file_text(path)  # changed since indexing (or unreadable: raises)
            current = False
        outline = ws.file_outline(path)
    except SymscopeError as exc:
        return FileView(path, record, error=str(exc))
    return FileView(path, record, text, current, outline)
