"""Messages the index worker posts to the App (thread-safe via `post_message`).

Progress is not a message: the worker stores its latest `IndexProgress` and the App
polls it, so a burst of small files cannot flood the queue and a slow one never
leaves the bar stale.

Pane messages live on their widgets (`RepoTree.FileChosen`, `Outline.SymbolChosen`,
`SearchPane.ResultChosen`, `BundleView.RemoveRequested`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from symscope.core.models import IndexReport


@dataclass
class IndexFinished(Message):
    """An index update completed (possibly cancelled part-way)."""

    report: IndexReport
    manual: bool


@dataclass
class IndexFailed(Message):
    """An index update raised; `error` is one line for the user."""

    error: str
