"""Messages the App's thread workers post back to it (`post_message` is thread-safe).

Pane messages live on their widgets (`RepoTree.FileChosen`, `Outline.SymbolChosen`,
`SearchPane.ResultChosen`, `BundleView.RemoveRequested`, ...); the index worker's
on `IndexingBar` (`IndexingBar.Finished`, `IndexingBar.Failed`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from symscope.core.api import DepsPlan
from symscope.tui.bundle_controller import BundleState, Note
from symscope.tui.file_view import FileView


@dataclass
class FileLoaded(Message):
    """A file was read for the source and outline panes."""

    view: FileView


@dataclass
class BundleResolved(Message):
    """The bundle was (saved and) looked up in the index again."""

    state: BundleState
    error: Note | None = None
    """Saving it failed."""


@dataclass
class BundleExported(Message):
    """A copy or save finished; the notes say how."""

    notes: list[Note]


@dataclass
class DepsPlanned(Message):
    """What add-with-dependencies would add was worked out (to show and confirm)."""

    plan: DepsPlan
