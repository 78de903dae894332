"""The hooks into `repair`: definitions it must keep, and candidates from the trees it recovers."""

from __future__ import annotations

from functools import partial

from tree_sitter import Node, QueryCursor, Tree

from symscope.core.languages import LanguageSpec
from symscope.core.models import Import
from symscope.core.parse.candidate import _Candidate
from symscope.core.parse.matching import _candidates
from symscope.core.parse.nodes import _anchor
from symscope.core.parse.parsers import _definition_capture, _query
from symscope.core.repair import recover


def _definition_spans(
    spec: LanguageSpec, root: Node, window: tuple[int, int]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Name span -> definition span of every definition and scope the query finds under `root`
    (what `repair` checks a blanked parse keeps)."""
    found: dict[tuple[int, int], tuple[int, int]] = {}
    cursor = QueryCursor(_query(spec))
    cursor.set_byte_range(*window)
    for _, caps in cursor.matches(root):
        def_key = _definition_capture(caps)
        names = caps.get("name.verbatim") or caps.get("name")
        if def_key is None or not names:
            continue
        node = _anchor(caps[def_key][0], spec.wrappers)
        end = max([node.end_byte] + [b.end_byte for b in caps.get("body", ())])
        key = (names[0].start_byte, names[0].end_byte)
        old = found.get(key)
        if old is None or old[1] - old[0] < end - node.start_byte:
            found[key] = (node.start_byte, end)
    return found


def _recovered_candidates(
    source: bytes, spec: LanguageSpec, tree: Tree, comments: set[tuple[int, int]],
    exports: list[str] | None = None,
) -> tuple[list[_Candidate], list[Import], bool]:
    """Candidates and imports of a file whose parse has errors, from the trees `repair` recovers
    (the whole file's root, blanked where that helped, or its undamaged part plus pieces)."""
    recovery = recover(source, spec, tree, partial(_definition_spans, spec))
    cands: list[_Candidate] = []
    imports: list[Import] = []
    embed_errors = False
    for region in recovery.regions:
        more, more_imports, more_errors = _candidates(source, spec, region.root, comments, 0, exports)
        if region.dropped:  # parsed again in pieces: the pieces' candidates replace these
            dropped = region.dropped
            more = [c for c in more if not any(a <= c.anchor.start_byte < b for a, b in dropped)]
            lines = [(source.count(b"\n", 0, a) + 1, source.count(b"\n", 0, b) + 1) for a, b in dropped]
            more_imports = [i for i in more_imports if not any(r0 <= i.line <= r1 for r0, r1 in lines)]
        cands.extend(more)
        imports.extend(more_imports)
        embed_errors = embed_errors or more_errors
    imports.sort(key=lambda i: i.line)
    return cands, imports, embed_errors
