"""Running a language's tags query over a tree: the candidates and imports it finds, nested parses
included."""

from __future__ import annotations

from tree_sitter import Node, QueryCursor, Range

from symscope.core.languages import LanguageSpec, resolve_language
from symscope.core.models import Import
from symscope.core.parse.candidate import _Candidate, _local_scope, _wider
from symscope.core.parse.names import _FILE_NAMED, _normalize_prefix, _text, _unquote
from symscope.core.parse.nodes import _anchor, _is_comment
from symscope.core.parse.parsers import _definition_capture, _has_nested, _query, _ranged_parser
from symscope.core.pathnames import escape_controls

MAX_NESTING = 4
"""How deep `@embed`/`@reparse` parses may nest (a macro inside a macro inside ...)."""


def _candidates(
    source: bytes, spec: LanguageSpec, root: Node, comments: set[tuple[int, int]], depth: int = 0,
    exports: list[str] | None = None,
) -> tuple[list[_Candidate], list[Import], bool]:
    """Candidates and imports under `root`, including nested parses; and whether an embed has errors.

    The spans of `@comment` captures are added to `comments`, and the names `@export`
    captures to `exports` (when given).
    """
    by_name: dict[tuple[int, int], _Candidate] = {}
    imports: list[Import] = []
    dotted: dict[tuple[int, int], list[Node]] = {}  # import statement -> its path parts
    nested: dict[tuple[int, int], tuple[int, Node, LanguageSpec | None, bool]] = {}
    locals_: list[_Candidate] = []
    look_nested = depth < MAX_NESTING and _has_nested(spec)
    for pattern, caps in QueryCursor(_query(spec)).matches(root):
        for imp in caps.get("import", []):
            module = _text(source, imp).strip().strip("'\"`<>").strip()
            if module:
                imports.append(Import(path="", module=module, line=imp.start_point.row + 1))
        for group in caps.get("import.group", []):
            dotted.setdefault((group.start_byte, group.end_byte), []).extend(caps.get("import.part", []))
        if look_nested:
            _collect_nested(source, spec, pattern, caps, nested)
        for node in caps.get("comment", ()):
            comments.add((node.start_byte, node.end_byte))
        if exports is not None:
            exports.extend(_text(source, node).strip() for node in caps.get("export", ()))
        for node in caps.get("local", ()):
            locals_.append(_local_scope(node, pattern, spec))
        def_key = _definition_capture(caps)
        verbatim = caps.get("name.verbatim")
        file_named = caps.get("name.file") if not (verbatim or caps.get("name")) else None
        names = verbatim or caps.get("name") or file_named
        if def_key is None or not names:
            continue
        node, name_node = caps[def_key][0], names[0]
        raw_name = _text(source, name_node).strip()
        if file_named:
            prefix, name = "", _FILE_NAMED  # `extract` knows the file's name
        elif spec.verbatim_names or verbatim:
            prefix, name = "", _unquote(raw_name)
        else:
            full = _normalize_prefix(raw_name) or raw_name
            prefix, _, name = full.rpartition(".")
        if not name:
            continue
        receivers = caps.get("receiver")
        if receivers:
            recv = _normalize_prefix(_text(source, receivers[0]))
            prefix = f"{recv}.{prefix}" if prefix and recv else (recv or prefix)
        # A name joins its id and is printed on one line: no newline or control character in it.
        name, prefix = (name if file_named else escape_controls(name)), escape_controls(prefix)
        docs = caps.get("doc")
        anchor = _anchor(node, spec.wrappers)
        bodies = caps.get("body")
        body = bodies[0] if bodies else None
        cand = _Candidate(
            node=node,
            anchor=anchor,
            end=body if body is not None and body.end_byte > anchor.end_byte else anchor,
            body=body,
            kind=def_key.split(".", 1)[1],
            name=name,
            prefix=prefix,
            is_scope=def_key.startswith("scope."),
            doc=docs[0] if docs else None,
            name_node=name_node,
            pattern=pattern,
            spec=spec,
            opens="open" in caps,
        )
        key = (name_node.start_byte, name_node.end_byte)
        old = by_name.get(key)
        if old is None or _wider(cand, old):
            by_name[key] = cand
    for parts in dotted.values():
        unique = {(n.start_byte, n.end_byte): n for n in parts}
        ordered = [unique[key] for key in sorted(unique)]
        module = ".".join(_text(source, n).strip() for n in ordered)
        if module:
            imports.append(Import(path="", module=module, line=ordered[0].start_point.row + 1))
    cands = list(by_name.values())
    openers = [c for c in cands if c.opens]
    if openers:
        _open_scopes(openers, cands, spec)
    cands.extend(locals_)
    embed_errors = False
    for _, node, inner_spec, is_embed in nested.values():
        if inner_spec is None:
            continue  # `lang="coffee"`: not a language we parse
        inner_root = _parse_range(source, inner_spec, node)
        if inner_root is None:
            continue
        if is_embed:
            embed_errors = embed_errors or inner_root.has_error
        elif inner_root.has_error:
            continue  # a macro whose tokens are not items (`lazy_static!`, `bitflags!`): nothing to trust
        more, more_imports, more_errors = _candidates(
            source, inner_spec, inner_root, comments, depth + 1, exports if inner_spec.name == spec.name else None)
        cands.extend(more)
        imports.extend(more_imports)
        embed_errors = embed_errors or more_errors
    imports.sort(key=lambda i: i.line)
    return cands, imports, embed_errors


def _open_scopes(openers: list[_Candidate], cands: list[_Candidate], spec: LanguageSpec) -> None:
    """Extend each `@open` statement over the siblings after it, up to the next definition of its
    kind (or the end of their container), leaving out the comments before that: Perl's
    `package Foo;` owns the subs that follow it."""
    kinds = {c.kind for c in openers}
    starts = {c.anchor.start_byte for c in cands if c.kind in kinds and not c.is_scope}
    for cand in openers:
        last = cand.anchor
        node = cand.anchor.next_sibling
        while node is not None and node.start_byte not in starts:
            if node.end_byte > node.start_byte and not _is_comment(node, spec.comments, set()):
                last = node
            node = node.next_sibling
        cand.end = last


def _collect_nested(
    source: bytes,
    spec: LanguageSpec,
    pattern: int,
    caps: dict[str, list[Node]],
    nested: dict[tuple[int, int], tuple[int, Node, LanguageSpec | None, bool]],
) -> None:
    """Record a match's `@reparse` / `@embed.<language>` nodes; for one node the later pattern wins."""
    found: list[tuple[Node, LanguageSpec | None, bool]] = [(n, spec, False) for n in caps.get("reparse", [])]
    for key, nodes in caps.items():
        if not key.startswith("embed.") or key == "embed.lang":
            continue
        named = caps.get("embed.lang")
        lang = _text(source, named[0]).strip() if named else key[len("embed.") :]
        found.extend((n, resolve_language(lang), True) for n in nodes)
    for node, inner_spec, is_embed in found:
        span = (node.start_byte, node.end_byte)
        old = nested.get(span)
        if old is None or pattern >= old[0]:
            nested[span] = (pattern, node, inner_spec, is_embed)


def _parse_range(source: bytes, spec: LanguageSpec, node: Node) -> Node | None:
    """Parse `node`'s text (without its bracket tokens) as `spec`'s language, in the file's coordinates."""
    start_byte, start_point = node.start_byte, node.start_point
    end_byte, end_point = node.end_byte, node.end_point
    if node.child_count >= 2:
        first, last = node.children[0], node.children[-1]
        if not first.is_named:  # `{` of a Rust token tree
            start_byte, start_point = first.end_byte, first.end_point
        if not last.is_named:  # its `}`
            end_byte, end_point = last.start_byte, last.end_point
    if end_byte <= start_byte or not source[start_byte:end_byte].strip():
        return None
    parser = _ranged_parser(spec.grammar)
    parser.included_ranges = [Range(start_point, end_point, start_byte, end_byte)]
    return parser.parse(source).root_node
