"""`RepoTree`: the indexed files of the repo and their folders, each with its token cost."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from symscope.core.api import for_terminal
from symscope.core.models import FileRecord
from symscope.tui import formatting as fmt
from symscope.tui.bundle_controller import BundleState
from symscope.tui.keys import bindings


@dataclass(frozen=True, slots=True)
class Entry:
    """A folder or file in the tree; folder figures are totals of the files below."""

    path: str
    name: str
    is_dir: bool
    tokens: int
    files: int


@dataclass
class _Folder:
    name: str
    path: str
    folders: dict[str, _Folder]
    files: list[FileRecord]
    tokens: int = 0
    count: int = 0


def _build(files: list[FileRecord]) -> _Folder:
    root = _Folder("", "", {}, [])
    for rec in files:
        parts = rec.path.split("/")
        folder = root
        folder.tokens += rec.tokens
        folder.count += 1
        for i, part in enumerate(parts[:-1]):
            child = folder.folders.get(part)
            if child is None:
                child = folder.folders[part] = _Folder(part, "/".join(parts[: i + 1]), {}, [])
            child.tokens += rec.tokens
            child.count += 1
            folder = child
        folder.files.append(rec)
    return root


def _order(entry: Entry | None) -> tuple[bool, str]:
    """Where a node goes among its siblings: folders first, then files, each by name as `load` sorts."""
    if entry is None:
        return (False, "")
    return (not entry.is_dir, entry.name.lower() if entry.is_dir else entry.path.lower())


class RepoTree(Tree[Entry]):
    """Folders first, then files, each labelled with its exact token count.

    File names are untrusted: every label goes through `sanitize.for_terminal`, as plain
    text (never markup).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "repo-tree--dir",
        "repo-tree--tokens",
        "repo-tree--bundled",
    }

    DEFAULT_CSS = """
    RepoTree {
        & > .repo-tree--dir { text-style: bold; }
        & > .repo-tree--tokens { color: $text-muted; }
        & > .repo-tree--bundled { color: $text-accent; text-style: bold; }
    }
    """

    @dataclass
    class FileChosen(Message):
        """The user picked a file."""

        tree: RepoTree
        path: str

        @property
        def control(self) -> RepoTree:
            return self.tree

    BORDER_TITLE = "Files"
    BINDINGS: ClassVar[list[BindingType]] = bindings("tree")

    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound with `data_bind`): files with items in it get a mark."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("repo", id=id, classes=classes)
        self.guide_depth = 2
        self.auto_expand = True
        self._folders: dict[str, _Folder] = {}
        """Every folder by path; a folder's children become nodes when it is first expanded."""
        self._index_nodes: dict[str, TreeNode[Entry]] = {}
        self._loaded: set[str] = set()
        self._paths: set[str] = set()
        """Every file shown (nodes or not yet)."""
        self._file_count = 0
        self._bundled: frozenset[str] = frozenset()

    @property
    def file_count(self) -> int:
        return self._file_count

    def load(self, files: list[FileRecord], root_name: str) -> None:
        """(Re)build from the index's files, keeping expanded folders and the cursor."""
        expanded = {p for p, n in self._index_nodes.items() if n.data and n.data.is_dir and n.is_expanded}
        cursor = self.cursor_node.data.path if self.cursor_node and self.cursor_node.data else None
        tree = _build(files)
        self._file_count = len(files)
        self._paths = {rec.path for rec in files}
        self._folders = {}
        self._collect(tree)
        self.clear()
        self._index_nodes = {"": self.root}
        self._loaded = set()
        self.root.data = Entry("", root_name, True, tree.tokens, tree.count)
        self.root.set_label(Text(for_terminal(root_name)))
        self._ensure_children(self.root)
        self.root.expand()
        for path in sorted(expanded, key=lambda p: p.count("/")):
            node = self._node_for(path)
            if node is not None:
                node.expand()
        if len(tree.folders) == 1 and not tree.files and not expanded:
            self._open_folder(self.root.children[0])  # a lone top folder: open it
        if cursor is not None:
            self.reveal(cursor)

    def add_files(self, records: Sequence[FileRecord], root_name: str) -> None:
        """Show files an index run has just committed, without a reload (a first index fills in).

        Only folders whose nodes exist get new nodes (in sorted place), and only they and the
        folders above are redrawn: the cost is the batch's, not the repo's. Files already shown
        are left as they are; the reload after the run brings every figure up to date.
        """
        if self.root.data is None:
            self.load([], root_name)
        was_empty = not self._file_count
        touched: set[str] = set()
        for rec in records:
            if rec.path in self._paths:
                continue
            self._paths.add(rec.path)
            self._file_count += 1
            parts = rec.path.split("/")
            folder = self._folders[""]
            for i, part in enumerate(parts[:-1]):
                folder.tokens += rec.tokens
                folder.count += 1
                touched.add(folder.path)
                child = folder.folders.get(part)
                if child is None:
                    child = folder.folders[part] = _Folder(part, "/".join(parts[: i + 1]), {}, [])
                    self._folders[child.path] = child
                    self._insert(folder.path, Entry(child.path, part, True, 0, 0))
                folder = child
            folder.tokens += rec.tokens
            folder.count += 1
            touched.add(folder.path)
            folder.files.append(rec)
            self._insert(folder.path, Entry(rec.path, parts[-1], False, rec.tokens, 1))
        for path in touched:
            node = self._index_nodes.get(path)
            if node is not None and node.data is not None:
                folder = self._folders[path]
                node.data = replace(node.data, tokens=folder.tokens, files=folder.count)
                node.refresh()
        top = self._folders[""]
        if was_empty and len(top.folders) == 1 and not top.files and self.root.children:
            self._open_folder(self.root.children[0])  # a lone top folder: open it, as `load` does

    def _insert(self, parent: str, entry: Entry) -> None:
        """Add a node for `entry` under the folder `parent`, if that folder's nodes exist."""
        node = self._index_nodes.get(parent)
        if node is None or parent not in self._loaded:
            return  # made from `_folders` when the folder is first expanded
        at = bisect.bisect_right(node.children, _order(entry), key=lambda n: _order(n.data))
        before = node.children[at] if at < len(node.children) else None
        label = Text(for_terminal(entry.name))
        if entry.is_dir:
            child = node.add(label, entry, before=before, allow_expand=True)
        else:
            child = node.add_leaf(label, entry, before=before)
        self._index_nodes[entry.path] = child

    def _collect(self, folder: _Folder) -> None:
        self._folders[folder.path] = folder
        for sub in folder.folders.values():
            self._collect(sub)

    def _ensure_children(self, node: TreeNode[Entry]) -> None:
        """Create the child nodes of a folder node (once)."""
        entry = node.data
        if entry is None or not entry.is_dir or entry.path in self._loaded:
            return
        self._loaded.add(entry.path)
        folder = self._folders.get(entry.path)
        if folder is None:
            return
        for name in sorted(folder.folders, key=str.lower):
            sub = folder.folders[name]
            child = node.add(Text(for_terminal(name)), Entry(sub.path, name, True, sub.tokens, sub.count),
                             allow_expand=True)
            self._index_nodes[sub.path] = child
        for rec in sorted(folder.files, key=lambda r: r.path.lower()):
            name = rec.path.rsplit("/", 1)[-1]
            self._index_nodes[rec.path] = node.add_leaf(Text(for_terminal(name)),
                                                        Entry(rec.path, name, False, rec.tokens, 1))

    def _open_folder(self, node: TreeNode[Entry]) -> None:
        self._ensure_children(node)
        if not node.is_expanded:
            node.expand()

    def _node_for(self, path: str) -> TreeNode[Entry] | None:
        """The node of `path`, creating the nodes of the folders above it as needed."""
        node = self._index_nodes.get(path)
        if node is not None:
            return node
        parts = path.split("/")
        current = self.root
        for i in range(1, len(parts) + 1):
            self._ensure_children(current)
            found = self._index_nodes.get("/".join(parts[:i]))
            if found is None:
                return None
            current = found
        return current

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[Entry]) -> None:
        event.stop()
        self._ensure_children(event.node)

    def reveal(self, path: str) -> None:
        """Expand the folders above `path` and put the cursor on it."""
        node = self._node_for(path)
        if node is None:
            return
        parent = node.parent
        while parent is not None:
            self._open_folder(parent)
            parent = parent.parent
        self.call_after_refresh(self._move_to, node)

    def _move_to(self, node: TreeNode[Entry]) -> None:
        if node.tree is self and node.line >= 0:
            self.move_cursor(node)

    def watch_bundled(self, state: BundleState) -> None:
        """Mark files with items in the bundle (only the rows that change are redrawn)."""
        paths = state.paths
        changed = self._bundled ^ paths
        self._bundled = paths
        for path in changed:
            node = self._index_nodes.get(path)
            if node is not None:
                node.refresh()

    def get_label_width(self, node: TreeNode[Entry]) -> int:
        """`render_label`'s width without rendering it: the tree measures every shown row after
        each change, so a batch of new files under an open 5,000-file folder stays cheap."""
        entry = node.data
        if entry is None:
            return super().get_label_width(node)
        if node is self.root:
            prefix = 0
        elif entry.is_dir:
            prefix = cell_len(self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE)
        else:
            prefix = 2 + (cell_len("● ") if entry.path in self._bundled else 0)
        slash = 1 if entry.is_dir and node is not self.root else 0
        return prefix + cell_len(for_terminal(entry.name)) + slash + 2 + cell_len(fmt.tokens(entry.tokens))

    def render_label(self, node: TreeNode[Entry], base_style: Style, style: Style) -> Text:
        entry = node.data
        if entry is None:
            return super().render_label(node, base_style, style)
        if entry.is_dir and node is not self.root:
            icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
            prefix = Text(icon, style=base_style)
        elif node is self.root:
            prefix = Text("")
        else:
            prefix = Text("  ", style=base_style)
        name_style = style
        if entry.is_dir:
            name_style += self.get_component_rich_style("repo-tree--dir", partial=True)
        label = Text.assemble(prefix)
        if not entry.is_dir and entry.path in self._bundled:
            label.append("● ", style + self.get_component_rich_style("repo-tree--bundled", partial=True))
        label.append(for_terminal(entry.name) + ("/" if entry.is_dir and node is not self.root else ""),
                     name_style)
        label.append(
            f"  {fmt.tokens(entry.tokens)}",
            style + self.get_component_rich_style("repo-tree--tokens", partial=True),
        )
        return label

    @on(Tree.NodeSelected)
    def _chosen(self, event: Tree.NodeSelected[Entry]) -> None:
        event.stop()
        entry = event.node.data
        if entry is not None and not entry.is_dir:
            self.post_message(self.FileChosen(self, entry.path))
