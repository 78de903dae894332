"""`extract`: one file's candidates nested by byte range into symbols with qualified names and ids."""

from __future__ import annotations

from dataclasses import dataclass, field

from symscope.core.hashing import content_hash
from symscope.core.languages import LanguageSpec
from symscope.core.models import CONTAINER_KINDS, Import, Symbol
from symscope.core.parse.candidate import _LOCAL, _LOCAL_SCOPE_KINDS, _Candidate
from symscope.core.parse.comments import _content_end, _leading
from symscope.core.parse.docstrings import _clean_doc
from symscope.core.parse.matching import _candidates
from symscope.core.parse.names import _FILE_NAMED, _name_of_file, _text
from symscope.core.parse.nodes import _only_trivia_between, _terminated
from symscope.core.parse.parsers import _parser
from symscope.core.parse.recovery import _recovered_candidates
from symscope.core.parse.signatures import MAX_SIGNATURE, _body, _leading_string, _signature
from symscope.core.tokens import count_file_and_spans


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything one file yields."""

    symbols: list[Symbol]
    imports: list[Import]
    has_errors: bool
    tokens: int
    """cl100k_base tokens of the whole file (counted with its symbols, in one pass)."""
    exports: list[str] = field(default_factory=list)
    """Names an entry file re-exports (`from .polys import gcd` in `__init__.py`): the public API."""


@dataclass(slots=True)
class _Pending:
    """A symbol being built; `merge_clauses` grows its end while later clauses follow."""

    id: str
    name: str
    qualname: str
    kind: str
    parent_id: str | None
    start_row: int
    end_row: int
    start_byte: int
    end_byte: int
    signature: str
    docstring: str
    last: _Candidate | None
    """Its last clause so far (None for a `file_symbol`)."""


def _file_symbol(path: str, source: bytes, kind: str) -> _Pending:
    """The whole file as one symbol named after it: the component of `Button.vue` is `Button`."""
    file_name = path.rpartition("/")[2]
    name = file_name.rpartition(".")[0] or file_name
    text_end = len(source.rstrip(b"\r\n")) or len(source)
    return _Pending(
        id=f"{path}::{name}#{kind}",
        name=name,
        qualname=name,
        kind=kind,
        parent_id=None,
        start_row=0,
        end_row=source.count(b"\n", 0, text_end),
        start_byte=0,
        end_byte=len(source),
        signature=file_name[:MAX_SIGNATURE],
        docstring="",
        last=None,
    )


def _trim(pending: list[_Pending], host_start: int, end_byte: int, end_row: int) -> None:
    """End the definitions in the node starting at `host_start` where its content ends: the
    comments after it belong to the next definition."""
    for entry in reversed(pending):
        if entry.last is None:
            continue  # the file symbol
        if entry.last.anchor.start_byte < host_start:
            break
        if entry.end_byte > end_byte:
            entry.end_byte, entry.end_row = end_byte, max(end_row, entry.start_row)


def extract(path: str, source: bytes, spec: LanguageSpec) -> Extraction:
    """Extract every symbol and import of one file.

    Args:
        path: Repo-relative path with `/` separators; becomes part of each ID.
        source: The file's exact bytes (invalid UTF-8 is tolerated).
        spec: The file's language.

    Returns:
        Symbols in source order with parents before children, and the imports.
    """
    tree = _parser(spec.grammar).parse(source)
    misread_comments: set[tuple[int, int]] = set()
    # A package's entry file (`__init__.py`, `lib.rs`, `index.ts`) names its public API.
    exports: list[str] | None = [] if path.rsplit("/", 1)[-1] in spec.entry_files else None
    if tree.root_node.has_error:
        cands, imports, embed_errors = _recovered_candidates(source, spec, tree, misread_comments, exports)
    else:
        cands, imports, embed_errors = _candidates(source, spec, tree.root_node, misread_comments, 0, exports)
    cands.sort(key=lambda c: (c.anchor.start_byte, -c.end.end_byte, c.is_scope is False))
    for cand in cands:
        if cand.name == _FILE_NAMED:
            cand.name = _name_of_file(path)
    definitions = {(c.node.start_byte, c.node.end_byte) for c in cands}

    stack: list[tuple[_Candidate, str, str | None]] = []  # candidate, qualname, symbol id
    used_ids: dict[str, int] = {}
    pending: list[_Pending] = []
    ids_by_qualname: dict[str, str] = {}
    file_id: str | None = None  # the symbol for the whole file (`file_symbol`): top-level symbols' parent
    if spec.file_symbol and source.strip():
        whole = _file_symbol(path, source, spec.file_symbol)
        pending.append(whole)
        file_id = whole.id
        used_ids[file_id] = 1
    last_under: dict[str | None, _Pending] = {}  # parent id -> its latest child (for merge_clauses)
    for cand in cands:
        while stack and not (
            stack[-1][0].anchor.start_byte <= cand.anchor.start_byte
            and cand.end.end_byte <= stack[-1][0].end.end_byte
        ):
            stack.pop()
        if any(not c.is_scope and c.kind in _LOCAL_SCOPE_KINDS for c, _, _ in stack):
            continue  # local to a function body
        if cand.kind == _LOCAL:
            stack.append((cand, "", None))  # an anonymous callback: what it defines is local
            continue
        enclosing = stack[-1] if stack else None
        if cand.prefix and enclosing is not None and enclosing[0].opens:
            # `sub Foo::bar` after `package Baz;` is Foo::bar: the statement only names what is unqualified.
            enclosing = stack[-2] if len(stack) > 1 else None
        parent_qual = enclosing[1] if enclosing else ""
        kind = cand.kind
        if cand.prefix:
            qual_prefix = f"{parent_qual}.{cand.prefix}" if parent_qual else cand.prefix
        else:
            qual_prefix = parent_qual
        qualname = f"{qual_prefix}.{cand.name}" if qual_prefix else cand.name
        in_container = enclosing is not None and enclosing[0].kind in CONTAINER_KINDS
        if kind == "function" and (in_container or cand.prefix):
            kind = "method"
        elif kind == "method" and enclosing is None and not cand.prefix:
            kind = "function"
        if cand.is_scope:
            # Members of `impl Foo` / `extension Foo` belong to Foo when it is defined here.
            owner = ids_by_qualname.get(qualname) or (enclosing[2] if enclosing else None)
            stack.append((cand, qualname, owner))
            continue
        parent_id = enclosing[2] if enclosing else None
        if parent_id is None and cand.prefix:
            parent_id = ids_by_qualname.get(qual_prefix)
        if parent_id is None:
            parent_id = file_id
        prev = last_under.get(parent_id)
        if (
            cand.spec.merge_clauses
            and prev is not None
            and prev.last is not None
            and prev.qualname == qualname
            and prev.kind == kind
            and _only_trivia_between(prev.last.end, cand.anchor, cand.spec.attached)
            and not _terminated(prev.last.end, cand.spec.clause_terminators)
        ):
            # Another clause of the same definition (Elixir `def` heads, Haskell equations): grow it.
            prev.last = cand
            end_byte, end_row = _content_end(source, cand, misread_comments)
            prev.end_byte, prev.end_row = end_byte, max(end_row, prev.start_row)
            stack.append((cand, qualname, prev.id))
            continue
        base_id = f"{path}::{qualname}#{kind}"
        n = used_ids.get(base_id, 0) + 1
        used_ids[base_id] = n
        sym_id = base_id if n == 1 else f"{base_id}~{n}"
        ids_by_qualname.setdefault(qualname, sym_id)
        lead = _leading(source, cand.anchor, cand.spec, misread_comments)
        start_byte, start_row, comments = lead.start_byte, lead.start_row, lead.comments
        if lead.cut is not None:
            _trim(pending, *lead.cut)
        body = cand.body if cand.body is not None else _body(cand.node, definitions)
        doc_node = cand.doc if cand.doc is not None else _leading_string(body)
        if doc_node is not None:
            doc = _clean_doc(_text(source, doc_node))
        elif comments:
            doc = _clean_doc("\n".join(_text(source, c).rstrip("\r\n") for c in comments))
        else:
            doc = ""
        end_byte, end_row = _content_end(source, cand, misread_comments)
        entry = _Pending(
            id=sym_id,
            name=cand.name,
            qualname=qualname,
            kind=kind,
            parent_id=parent_id,
            start_row=start_row,
            end_row=max(end_row, start_row),
            start_byte=start_byte,
            end_byte=end_byte,
            signature=_signature(source, cand.node, cand.name_node, body),
            docstring=doc,
            last=cand,
        )
        pending.append(entry)
        last_under[parent_id] = entry
        stack.append((cand, qualname, sym_id))

    file_tokens, counts = count_file_and_spans(source, [(p.start_byte, p.end_byte) for p in pending])
    symbols = [
        Symbol(
            id=p.id,
            name=p.name,
            qualname=p.qualname,
            kind=p.kind,
            language=spec.name,
            path=path,
            start_line=p.start_row + 1,
            end_line=p.end_row + 1,
            start_byte=p.start_byte,
            end_byte=p.end_byte,
            signature=p.signature,
            docstring=p.docstring,
            parent_id=p.parent_id,
            tokens=tokens,
            content_hash=content_hash(source[p.start_byte : p.end_byte]),
        )
        for p, tokens in zip(pending, counts, strict=True)
    ]
    file_imports = [Import(path=path, module=i.module, line=i.line) for i in imports]
    return Extraction(
        symbols=symbols,
        imports=file_imports,
        exports=sorted({e for e in exports or () if e.isidentifier()}),
        has_errors=tree.root_node.has_error or embed_errors,
        tokens=file_tokens,
    )
