"""A definition or scope one query match found, before it is named and nested into a symbol."""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from symscope.core.languages import LanguageSpec
from symscope.core.models import CALLABLE_KINDS


@dataclass(slots=True)
class _Candidate:
    node: Node
    anchor: Node
    end: Node
    """The node the symbol ends with: its anchor, or a sibling `@body` (Dart)."""
    body: Node | None
    """Its `@body` capture, if any."""
    kind: str
    name: str
    prefix: str
    is_scope: bool
    doc: Node | None
    name_node: Node
    pattern: int
    spec: LanguageSpec
    """The language whose query found it (an embedded script's, not the host file's)."""
    opens: bool = False
    """Captured with `@open`: a statement whose scope runs over the siblings after it."""


_LOCAL = "local"
_LOCAL_SCOPE_KINDS = CALLABLE_KINDS | {_LOCAL}


def _local_scope(node: Node, pattern: int, spec: LanguageSpec) -> _Candidate:
    """A pseudo-candidate for an `@local` node: never a symbol, it makes what is inside it local."""
    return _Candidate(
        node=node,
        anchor=node,
        end=node,
        body=None,
        kind=_LOCAL,
        name="",
        prefix="",
        is_scope=False,
        doc=None,
        name_node=node,
        pattern=pattern,
        spec=spec,
    )


def _wider(new: _Candidate, old: _Candidate) -> bool:
    new_span = new.end.end_byte - new.anchor.start_byte
    old_span = old.end.end_byte - old.anchor.start_byte
    if new_span != old_span:
        return new_span > old_span
    return new.pattern > old.pattern  # later patterns are the more specific ones
