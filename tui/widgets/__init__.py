"""The panes of the symscope app."""

from __future__ import annotations

from symscope.tui.widgets.bundle_view import BundleView
from symscope.tui.widgets.counters import Counters
from symscope.tui.widgets.outline import Outline
from symscope.tui.widgets.repo_tree import RepoTree
from symscope.tui.widgets.search import SearchPane
from symscope.tui.widgets.source_view import SourceView
from symscope.tui.widgets.workspace import Workspace

__all__ = ["BundleView", "Counters", "Outline", "RepoTree", "SearchPane", "SourceView", "Workspace"]
