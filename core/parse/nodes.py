"""Small walks over tree-sitter nodes that the extractor repeats: siblings, last tokens, comments."""

from __future__ import annotations

from tree_sitter import Node


def _anchor(node: Node, wrappers: frozenset[str]) -> Node:
    """The outermost parent that only wraps `node` (its language's `wrappers`), whose range it takes."""
    while node.parent is not None and node.parent.type in wrappers:
        node = node.parent
    return node


def _prev(node: Node) -> Node | None:
    """The previous sibling, skipping zero-width tokens (F# inserts invisible `;` between declarations)."""
    prev = node.prev_sibling
    while prev is not None and not prev.is_named and prev.start_byte == prev.end_byte:
        prev = prev.prev_sibling
    return prev


def _last_child(node: Node) -> Node | None:
    count = node.child_count
    child = node.child(count - 1) if count else None
    while child is not None and child.start_byte == child.end_byte:
        child = child.prev_sibling
    return child


def _is_comment(node: Node, comments: frozenset[str], misread: set[tuple[int, int]]) -> bool:
    return (
        "comment" in node.type
        or node.type in comments
        or (bool(misread) and (node.start_byte, node.end_byte) in misread)
    )


def _end_row(anchor: Node, start_row: int) -> int:
    """The last row of a node; one ending at column 0 ends on the row before."""
    row = anchor.end_point.row
    return row - 1 if anchor.end_point.column == 0 and row > start_row else row


def _terminated(node: Node, terminators: frozenset[str]) -> bool:
    """Whether `node`'s last token is one of `terminators` (an Erlang clause ending in `.`)."""
    if not terminators:
        return False
    last = node
    while last.child_count:
        child = _last_child(last)
        if child is None:
            break
        last = child
    return last.type in terminators


def _only_trivia_between(first: Node, second: Node, attached: frozenset[str]) -> bool:
    """Whether `second` follows `first` as a sibling with only comments, attributes or punctuation between."""
    if first.parent is None or first.parent != second.parent:
        return False
    node = first.next_sibling
    while node is not None and node != second:
        if node.is_named and "comment" not in node.type and node.type not in attached:
            return False
        node = node.next_sibling
    return node is not None
