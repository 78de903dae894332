"""Readings of source text around a symbol: import statements, return types, base classes, build
constraints."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from symscope.core.deps.scanner import _skip_group
from symscope.core.deps.values import _DOTTED, _IDENT, _NO_TYPE, MAX_IMPORT_BYTES
from symscope.core.models import Symbol

if TYPE_CHECKING:
    from tree_sitter import Node, Tree


def _line_starts(data: bytes) -> list[int]:
    return [0, *(m.end() for m in re.finditer(b"\n", data))]


def _import_names(parsed: tuple[Tree, bytes], starts: list[int], module: str, line: int) -> dict[str, str]:
    """The names an import statement binds, local -> imported; empty when it binds the module."""
    tree, data = parsed
    if not 0 < line <= len(starts):
        return {}
    lo = starts[line - 1]
    hi = starts[line] if line < len(starts) else len(data)
    raw = module.encode("utf-8", "replace")
    found = re.compile(rb"(?<![\w$])" + re.escape(raw)).search(data, lo, hi)  # not inside a longer word
    if found is None:
        return {}
    at = found.start()
    node: Node | None = tree.root_node.descendant_for_byte_range(at, at + len(raw))
    if node is None:
        return {}
    while node.parent is not None and node.parent.start_byte >= at - 2 and node.parent.end_byte <= at + len(raw) + 2:
        node = node.parent
    module_node = (node.start_byte, node.end_byte)
    stmt = node
    while stmt.parent is not None and stmt.parent.parent is not None and "declarator" not in stmt.type:
        parent = stmt.parent
        if ("list" in parent.type or "block" in parent.type or "body" in parent.type
                or parent.end_byte - parent.start_byte > MAX_IMPORT_BYTES):  # `#ifdef` around includes
            break
        stmt = parent
    names: dict[str, str] = {}

    def text(n: Node) -> str:
        return data[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def walk(n: Node) -> None:
        if (n.start_byte, n.end_byte) == module_node:
            return
        alias = n.child_by_field_name("alias")
        if alias is not None:
            orig = n.child_by_field_name("name") or n.child_by_field_name("path") or n.named_children[0]
            names[text(alias)] = re.split(r"::|\.|/", text(orig))[-1]
            return
        key, value = n.child_by_field_name("key"), n.child_by_field_name("value")
        if key is not None and value is not None and "pattern" in n.type:  # `const {a: b} = require(...)`
            names[text(value)] = text(key)
            return
        if not n.child_count:
            word = text(n)
            if n.is_named and "identifier" in n.type and _IDENT.fullmatch(n.text or b""):
                names[word] = word
            return
        for i, child in enumerate(n.children):
            if n.field_name_for_child(i) != "function":  # `require` and `import` themselves
                walk(child)

    walk(stmt)
    return names


def _holds_untagged(expr: str) -> bool:
    """Whether a build constraint (`!nomsgpack`, `a && (b || !c)`) holds with no tags set."""
    tokens = re.findall(r"!|&&|\|\||\(|\)|[^\s!&|()]+", expr)
    pos = 0

    def either() -> bool:
        nonlocal pos
        value = both()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            value = both() or value
        return value

    def both() -> bool:
        nonlocal pos
        value = one()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            value = one() and value
        return value

    def one() -> bool:
        nonlocal pos
        if pos >= len(tokens):
            return True
        token = tokens[pos]
        pos += 1
        if token == "!":
            return not one()
        if token == "(":
            value = either()
            pos += 1  # ")"
            return value
        return False  # a tag: unset

    try:
        return either()
    except RecursionError:
        return True


def _submodule(module: str, name: str) -> str:
    """`fastapi` + `routing` -> `fastapi.routing`; `.` + `x` -> `.x`; `./lib` + `x` -> `./lib/x`."""
    if not module.strip("."):
        return f"{module}{name}"
    if "::" in module:
        return f"{module}::{name}"
    return f"{module}/{name}" if "/" in module else f"{module}.{name}"


def _return_text(signature: str, name: str) -> str | None:
    """What a signature says the function returns, as written (`*Context`, `Self`, `"APIRoute"`)."""
    at = signature.find(name)
    if at < 0:
        return None
    opening = signature.find("(", at + len(name))
    if opening < 0:
        return None
    close = _skip_group(signature, opening)
    if close < 0:
        return None
    rest = signature[close:].strip()
    if rest.startswith("->"):
        rest = rest[2:]
    elif rest.startswith(":"):
        rest = rest[1:]
    rest = re.split(r"\bwhere\b|\{", rest, maxsplit=1)[0].strip()
    return rest or None


def _type_name(text: str) -> str | None:
    """The one named type an annotation denotes, or None (`&'a mut T` -> T, `Optional[T]` -> T)."""
    t = text.strip()
    if t.startswith(":"):
        t = t[1:].strip()
    for _ in range(6):
        before = t
        t = t.strip().strip("'\"`").strip()
        t = re.sub(r"^(?:[&*]|\.\.\.|'\w+\s+|(?:mut|const|readonly|dyn|impl|struct|class|enum)\s+)", "", t)
        optional = re.fullmatch(r"(?:typing\.)?Optional\[(.+)\]", t)
        if optional:
            t = optional.group(1)
        if "|" in t:
            parts = [p.strip() for p in t.split("|") if p.strip() not in _NO_TYPE]
            if len(parts) != 1:
                return None
            t = parts[0]
        if t == before:
            break
    return t if _DOTTED.fullmatch(t) and t not in _NO_TYPE else None


_BASES = re.compile(r"[A-Za-z_][\w]*")
_BASE_STOP = frozenset({"class", "struct", "interface", "extends", "implements", "public", "private",
                        "protected", "abstract", "final", "sealed", "open", "data", "object", "trait",
                        "impl", "for", "where", "type", "export", "default", "with", "metaclass", "pub"})


def _base_names(container: Symbol) -> list[str]:
    """Names a class header lists after its own name: bases, interfaces, traits."""
    sig = container.signature
    at = sig.find(container.name)
    if at < 0:
        return []
    rest = sig[at + len(container.name):]
    return [w for w in _BASES.findall(rest) if w not in _BASE_STOP and w != container.name][:8]


def _encloses(outer: Symbol, inner: Symbol) -> bool:
    return outer.path == inner.path and outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
