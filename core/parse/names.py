"""Names as a reader writes them: quoting removed, generic arguments and pointer marks dropped,
`a::b` -> `a.b`."""

from __future__ import annotations

import re

from tree_sitter import Node

_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _unquote(text: str) -> str:
    """A name without the quoting around it: `` `%||%` `` -> `%||%`, `"users"` -> `users`."""
    found = _QUOTED.fullmatch(text)
    return next(g for g in found.groups() if g is not None) if found else text


_QUOTED = re.compile(r'``(.+?)``|`([^`]+)`|@?"([^"]+)"')
"""Quoted identifiers: F# ``` ``a b`` ```, SQL/R/Haskell backticks, SQL `"name"`, Zig `@"name"`."""
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")


def _normalize_prefix(text: str) -> str:
    """`*Engine` -> `Engine`, `Router.prototype` -> `Router`, `Foo<T>` -> `Foo`, `a::b` -> `a.b`,
    `"storage"."buckets"` -> `storage.buckets` (quoted parts are taken as written)."""
    if text.isidentifier():
        return text  # the common case: a plain name
    quoted: list[str] = []
    if '"' in text or "`" in text:

        def hide(found: re.Match[str]) -> str:
            quoted.append(next(g for g in found.groups() if g is not None))
            return f"\ue000{len(quoted) - 1}\ue001"

        text = _QUOTED.sub(hide, text)
    text = text.strip().lstrip("*&(").rstrip(")")
    while True:  # drop balanced generic arguments: `ns::Foo<T>::bar` -> `ns::Foo::bar`
        stripped = _GENERIC_ARGS.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = re.split(r"[\[<(]", text, maxsplit=1)[0]
    text = text.replace("::", ".").replace("\\", ".").replace("->", ".")
    parts = [p for p in (s.strip() for s in text.split(".")) if p and p != "prototype"]
    joined = ".".join(parts)
    if quoted:
        joined = _PLACEHOLDER.sub(lambda found: quoted[int(found.group(1))], joined)
    return joined


_FILE_NAMED = "\x00file"
"""Stands for the name of a definition that `@name.file` names after its file."""


def _name_of_file(path: str) -> str:
    """What a module's readers call its anonymous default export: the file's name without its
    extension (`parseHeaders.js` -> `parseHeaders`), or the folder's for an `index` file."""
    folder, _, file_name = path.rpartition("/")
    name = file_name.partition(".")[0] or file_name
    if name == "index" and folder:
        name = folder.rpartition("/")[2]
    return name
