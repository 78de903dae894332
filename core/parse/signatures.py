"""A definition's body and signature (the line of its name up to where the body starts)."""

from __future__ import annotations

import re

from tree_sitter import Node

MAX_SIGNATURE = 160

_WS = re.compile(r"\s+")


def _body(node: Node, definitions: set[tuple[int, int]]) -> Node | None:
    """The body of a definition, searched a few levels down (assignments wrap functions).

    Other definitions are not searched (a whole-file module's first function is not its
    body); without a `body` field or a `*_body` child, a `{` token of the definition itself
    opens the body (a PowerShell function or class, whose members come straight after it).
    """
    own = (node.start_byte, node.end_byte)  # a child spanning it all is the same definition
    frontier = [node]
    for depth in range(4):
        nxt: list[Node] = []
        for n in frontier:
            body = n.child_by_field_name("body")
            if body is not None:
                return body
            brace = None
            for child in n.children if depth == 0 else n.named_children:
                if not child.is_named:
                    if brace is None and child.type == "{":
                        brace = child
                    continue
                if child.type.endswith("_body"):  # grammars without a `body` field (Kotlin)
                    return child
                span = (child.start_byte, child.end_byte)
                if span == own or span not in definitions:
                    nxt.append(child)
            if brace is not None:
                return brace
        frontier = nxt
    return None


def _leading_string(body: Node | None) -> Node | None:
    """A string literal opening the body: a docstring, in languages that have them."""
    if body is None or not body.named_child_count:
        return None
    first = body.named_child(0)
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_child(0)
    return first if first is not None and first.type == "string" else None


_SIGNATURE_TAIL = re.compile(r"\s+do$")
"""Elixir's `def f(x) do`: the `do` opens the body."""


def _signature(source: bytes, node: Node, name_node: Node, body: Node | None) -> str:
    line_start = source.rfind(b"\n", 0, name_node.start_byte) + 1
    start = max(node.start_byte, line_start)
    if body is not None and body.start_byte > start:
        end = body.start_byte
        before = body.prev_sibling
        while before is not None and before.start_byte >= start and "comment" in before.type:
            end = before.start_byte  # `def f():  # noqa` or a comment above the first statement
            before = before.prev_sibling
    else:
        end = source.find(b"\n", name_node.end_byte)
        end = node.end_byte if end == -1 else min(end, node.end_byte)
    sig = _WS.sub(" ", source[start:end].decode("utf-8", "replace")).strip()
    sig = _SIGNATURE_TAIL.sub("", sig).rstrip("{:=;").rstrip()
    if len(sig) > MAX_SIGNATURE:
        sig = sig[: MAX_SIGNATURE - 1].rstrip() + "…"
    return sig
