"""Where a definition starts and ends: the comments and attributes directly above it belong to it,
the ones a grammar nests at its end below its column do not."""

from __future__ import annotations

import re
from typing import NamedTuple

from tree_sitter import Node

from symscope.core.languages import LanguageSpec
from symscope.core.parse.candidate import _Candidate
from symscope.core.parse.nodes import _end_row, _is_comment, _last_child, _prev


class _Lead(NamedTuple):
    """What sits directly above a definition and belongs to it."""

    start_byte: int
    start_row: int
    comments: list[Node]
    cut: tuple[int, int, int] | None
    """When the first attached comment lies inside an earlier node (the grammar put the
    comments between two declarations at the end of the first one): that node's start byte
    and where its content ends (byte, row); definitions ending there are trimmed."""


def _trailing_comment(
    source: bytes, node: Node, comments: frozenset[str], misread: set[tuple[int, int]]
) -> Node | None:
    """The comment on its own line that ends `node`, however deep (an F# `let` can hold the
    comments below it), if one does."""
    end = node.end_byte
    if end > node.start_byte and source[end - 1 : end] == b"\n":
        end -= 1
    line_start = source.rfind(b"\n", node.start_byte, end) + 1
    if line_start == 0:
        return None  # one line: a comment at its end trails code
    first = _LINE_START.match(source, line_start, end)
    if first is None or first.group(1).isalnum() or first.group(1) in _NOT_COMMENT_START:
        return None  # the common case, cheaply: the last line is code, not a comment
    child = _last_child(node)
    while child is not None and child.is_named:  # a closing `}` or `end` ends it: no comment does
        if _is_comment(child, comments, misread):
            return child
        child = _last_child(child)
    return None


_LINE_START = re.compile(rb"[ \t]*(\S)")
_NOT_COMMENT_START = b"_\"')]}"
"""Characters no comment starts with (nor does any letter or digit)."""


def _content_end(source: bytes, cand: _Candidate, misread: set[tuple[int, int]]) -> tuple[int, int]:
    """End byte and row of a definition, without the comments a grammar nested at its end that
    sit on their own lines at or left of the definition's column: they come after it (an F#
    `let` holds the section comment below it), while a comment indented into a body is its own."""
    end = cand.end
    spec = cand.spec
    node = _trailing_comment(source, end, spec.comments, misread)
    column = cand.anchor.start_point.column if node is not None else 0
    first = None
    while node is not None and _is_comment(node, spec.comments, misread):
        before = _prev(node)
        if node.start_point.column > column or (before is not None and before.end_point.row == node.start_point.row):
            break
        first, node = node, before
    content = _prev(first) if first is not None else None
    if content is None:
        return end.end_byte, end.end_point.row - (1 if end.end_point.column == 0 and end.end_point.row else 0)
    return content.end_byte, content.end_point.row - (1 if content.end_point.column == 0 else 0)


def _leading(source: bytes, anchor: Node, spec: LanguageSpec, misread: set[tuple[int, int]]) -> _Lead:
    """Start byte/row including directly attached comments and decorators, plus the comments.

    A first definition in its container looks above the container when that starts at the same
    byte (a GraphQL `document`, an HCL `body`, a Nix `binding_set`), below the root; comments
    the grammar nested at the end of the previous node (Haskell imports, F# declarations)
    count as directly above.
    """
    attached, comment_types = spec.attached, spec.comments
    start_byte, start_row = anchor.start_byte, anchor.start_point.row
    node = anchor
    prev = _prev(node)
    while prev is None:
        parent = node.parent
        if parent is None or parent.parent is None or parent.start_byte != node.start_byte:
            break
        node = parent
        prev = _prev(node)
    comments: list[Node] = []
    host: Node | None = None  # the earlier node holding the comments, if they are nested
    nested: Node | None = None  # the first attached comment inside `host`
    while prev is not None:
        end = prev.end_point
        gap = start_row - (end.row - (1 if end.column == 0 else 0)) - 1
        if gap > 1:
            break  # blank lines separate it
        kind = prev.type
        is_comment = (
            "comment" in kind
            or kind in comment_types
            or (bool(misread) and (prev.start_byte, prev.end_byte) in misread)
        )
        if not (is_comment or kind in attached):
            if gap or host is not None:
                break  # (comments nested in it must end right above to count)
            inner = _trailing_comment(source, prev, comment_types, misread)
            if inner is None:
                break
            host, prev, is_comment = prev, inner, True  # `inner` ends on `prev`'s last line
        if gap == 1 and not (is_comment and _is_doc_block(source, prev) and not comments):
            break  # a blank line separates it, except below a `/** ... */` doc block
        before = _prev(prev)
        prev_start_row = prev.start_point.row
        if is_comment and before is not None:
            before_end = before.end_point
            # A trailing comment on the previous statement's line (preprocessor lines end at column 0).
            if before_end.row == prev_start_row and before_end.column > 0:
                break
        start_byte, start_row = prev.start_byte, prev_start_row
        if is_comment:
            comments.insert(0, prev)
        if host is not None:
            nested = prev
        prev = before
    cut = None
    if host is not None and nested is not None:
        content = _prev(nested)
        if content is not None:
            cut = (host.start_byte, content.end_byte, _end_row(content, content.start_point.row))
        else:
            cut = (host.start_byte, host.start_byte, host.start_point.row)
    return _Lead(start_byte, start_row, comments, cut)


def _is_doc_block(source: bytes, node: Node) -> bool:
    # From `source`, not `node.text`: a repaired tree was parsed from a blanked copy.
    text = source[node.start_byte : node.start_byte + 4]
    return text.startswith(b"/**") and not text.startswith(b"/***")
