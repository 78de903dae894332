"""Rendering: one bundle's items, each at a detail level, as one paste-ready text.

The text is Markdown or XML: a header naming the item count and the text's own
exact cl100k count, a list of the items, the lines saying which items are
dependencies of which, then one block per item (none at `name` level).

The text is built as *pieces*, each starting at a line whose first character is
visible ASCII (`#`, a digit, a letter, `<`), which is always a boundary of cl100k's
pre-tokenizer, so the text's count is the sum of its pieces' counts (see
`symscope.core.bundle.packer`). The header's number is that sum, header included:
a fixed point found in a step or two, since a number's cost (ceil(digits / 3)
tokens) barely moves with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from symscope.core.bundle.model import BundleError, DependencyOf, Format, Reason
from symscope.core.bundle.packer import LEVEL, Detail
from symscope.core.bundle.resolve import ResolvedItem
from symscope.core.sanitize import for_paste
from symscope.core.tokens import count_tokens

if TYPE_CHECKING:
    from symscope.core.index import Index
    from symscope.core.secrets import Finding


@dataclass(frozen=True, slots=True)
class Redaction:
    """A secret replaced in a packed bundle (never the secret itself)."""

    id: str
    """The item's symbol ID or file path."""
    label: str
    """What the marker says: `AWS access key`, `password or secret`..."""
    type: str
    """detect-secrets' name for it: `AWS Access Key`, `Secret Keyword`..."""
    line: int
    """The line in the item's file (its first line when the secret is in a signature or doc)."""
    fingerprint: str
    """Pass it in `keep` to leave this secret in on purpose."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered bundle and what went into it."""

    text: str
    items: int
    tokens: int
    """Sum of the core's token counts of the rendered items (code only, not the wrapper)."""
    left_out: list[ResolvedItem]
    """Flagged items that could not be rendered (missing, or stale on disk)."""


def _location(r: ResolvedItem) -> str:
    return f"{r.path}:{r.start_line}-{r.end_line}"


def _fence_for(code: str) -> str:
    """A backtick fence longer than any backtick run inside `code`."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _with_newline(code: str) -> str:
    return code if code.endswith("\n") else code + "\n"


@dataclass(frozen=True, slots=True)
class Entry:
    """A resolved item ready to render or pack: why it is in the bundle and the most detail it may get."""

    resolved: ResolvedItem
    reason: Reason = "added"
    detail: Detail = "full"
    """The cap: a budget may lower the item's level (or drop it), never raise it."""
    outline: str = ""
    """The `signature` level's code: the signature, plus a class's members' signatures, or a
    file's symbols' signatures indented by nesting; empty when there is none (no such level)."""
    doc: str = ""
    """The symbol's docstring or doc comment (its first paragraph), shown at `signature` level."""

    @property
    def id(self) -> str:
        """The symbol ID, or the file path."""
        return self.resolved.item.ref

    @property
    def key(self) -> str:
        return self.resolved.key


def signature_outline(index: Index, r: ResolvedItem) -> tuple[str, str]:
    """(signature-level code, doc) of an item: what its `signature` level shows.

    A symbol shows its signature, then, for a class (or any symbol with members:
    the symbols whose parent is it, inside its lines), each member's signature
    indented one level.
    A whole file shows every symbol's signature, indented by nesting.
    """
    if r.symbol is not None:
        sym = r.symbol
        # Members inside its own lines only: a Go type's methods live elsewhere in the file, and
        # listing them all would make a type's signature cost more than its definition.
        members = [s for s in index.file_symbols(sym.path) if s.parent_id == sym.id
                   and sym.start_line <= s.start_line and s.end_line <= sym.end_line]
        lines = [sym.signature or sym.qualname] + [
            "    " + (m.signature or m.qualname) for m in sorted(members, key=lambda m: m.start_line)
        ]
        return "\n".join(lines) + "\n", sym.docstring
    if r.item.type == "file":
        depth: dict[str, int] = {}
        lines = []
        for s in sorted(index.file_symbols(r.item.ref), key=lambda s: (s.start_line, -s.end_line)):
            d = depth.get(s.parent_id, -1) + 1 if s.parent_id is not None else 0
            depth[s.id] = d
            lines.append("    " * d + (s.signature or s.qualname))
        return ("\n".join(lines) + "\n" if lines else ""), ""
    return "", ""


def make_entry(index: Index, r: ResolvedItem, reason: Reason = "added", detail: Detail = "full") -> Entry:
    """An `Entry` for a resolved item, with its signature-level outline read from the index."""
    if detail not in LEVEL:
        raise BundleError(f"unknown detail level {detail!r}: use full, signature or name")
    outline, doc = signature_outline(index, r) if r.usable else ("", "")
    return Entry(r, reason, detail, outline, doc)


@dataclass(frozen=True, slots=True)
class View:
    """One item at one detail level, as it is rendered (cleaned when the bundle is packed)."""

    detail: Detail
    path: str
    kind: str
    name: str
    language: str
    location: str
    describe: str
    fence_tag: str
    content: str
    """Code (full), signatures (signature) or nothing (name); ends with a newline unless empty."""
    doc: str
    tokens: int
    """Full: the core's count of the item; signature: the count of its outline and doc line."""
    findings: tuple[Redaction, ...] = ()
    controls: int = 0


#: Cleans one string: (text, file name) -> (text, findings, control characters made visible).
Cleaner = Callable[[str, str], tuple[str, list["Finding"], int]]


def make_view(entry: Entry, detail: Detail, clean: Cleaner | None) -> View:
    r = entry.resolved
    found: list[Redaction] = []
    controls = 0

    def c(text: str, filename: str, line: int | None = None) -> str:
        nonlocal controls
        if clean is None or not text:
            return text
        out, findings, n = clean(text, filename)
        controls += n
        found.extend(Redaction(entry.id, f.label, f.type, r.start_line if line is None else line + f.line - 1,
                               f.fingerprint) for f in findings)
        return out

    path, kind, name = c(r.path, ""), c(r.kind, ""), c(r.name, "")
    describe = "file" if r.item.type == "file" else f"{kind} {name}"
    content, doc, tokens = "", "", 0
    if detail == "full":
        assert r.code is not None
        content, tokens = c(_with_newline(r.code), r.path, r.start_line), r.tokens
    elif detail == "signature":
        content, doc = c(entry.outline, r.path), c(entry.doc, r.path)
        tokens = count_tokens(content) + count_tokens(doc)
    return View(detail, path, kind, name, r.language, f"{path}:{r.start_line}-{r.end_line}", describe,
                 r.fence, content, doc, tokens, tuple(found), controls)


def _plain_view(r: ResolvedItem) -> View:
    """The full level, exactly as the source has it (what `render` pastes)."""
    return make_view(Entry(r), "full", None)



@dataclass(frozen=True, slots=True)
class Links:
    """Which items were added as dependencies of which: the text's dependency lines."""

    keys: Sequence[str] = ()
    """Per usable entry position, its bundle key."""
    names: Sequence[str] = ()
    """Per usable entry position, its name."""
    dependency_of: Mapping[str, DependencyOf] = field(default_factory=dict)


#: A piece of rendered text and the position of the item it belongs to (None: the header,
#: the dependency lines, the XML closing tag).
Piece = tuple[int | None, str]
#: Counts a piece's tokens (cached by the packer).
Counter = Callable[[str], int]


def _fixed_point(header: Callable[[int], str], body: int, count: Counter) -> str:
    """The header whose number is the whole text's count: `body` plus the header's own.

    Starting from the body's count, the guesses only grow (a header costs no less as its
    number grows) and are bounded (a number costs ceil(digits / 3) tokens), so they settle
    at once or after a step or two.
    """
    total = body + count(header(body))
    for _ in range(16):
        again = body + count(header(total))
        if again == total:
            break
        total = again
    return header(total)


def _markdown_pieces(views: Sequence[tuple[int, View]], deps: str, count: Counter) -> list[Piece]:
    noun = "item" if len(views) == 1 else "items"
    body: list[list[object]] = []
    for n, (i, v) in enumerate(views, start=1):
        if v.detail == "full":
            line = f"{n}. {v.location} ({v.describe}, {v.tokens} tokens)\n"
        elif v.detail == "signature":
            line = f"{n}. {v.location} ({v.describe}, signature, {v.tokens} tokens)\n"
        else:
            line = f"{n}. {v.location} ({v.describe}, name only)\n"
        body.append([i, line])
    if deps and body:
        body[-1][1] = str(body[-1][1]) + "\n"
        body.append([None, deps])
    for i, v in views:
        if v.detail == "name":
            continue  # its list line says it all
        fence = _fence_for(v.content)
        label = "" if v.detail == "full" else ", signature"
        doc = f"{v.doc}\n\n" if v.doc else ""
        body[-1][1] = str(body[-1][1]) + "\n"  # the blank line before a block ends the piece before it
        body.append([i, f"## {v.location} ({v.describe}{label})\n\n{doc}{fence}{v.fence_tag}\n{v.content}{fence}\n"])
    pieces: list[Piece] = [(owner if isinstance(owner, int) else None, str(text)) for owner, text in body]
    size = sum(count(text) for _, text in pieces)
    header = _fixed_point(lambda total: f"# Code context: {len(views)} {noun}, {total} tokens\n\n", size, count)
    return [(None, header), *pieces]


def _xml_attr(value: str) -> str:
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _xml_pieces(views: Sequence[tuple[int, View]], deps: str, count: Counter) -> list[Piece]:
    pieces: list[Piece] = [(None, deps)] if deps else []
    for i, v in views:
        attrs = (
            f'path="{_xml_attr(v.path)}" lines="{v.location.rsplit(":", 1)[1]}" '
            f'kind="{_xml_attr(v.kind)}" name="{_xml_attr(v.name)}" language="{_xml_attr(v.language)}"'
        )
        if v.detail == "name":
            pieces.append((i, f'<item {attrs} detail="name"/>\n'))
            continue
        attrs += f' tokens="{v.tokens}"'
        if v.detail == "signature":
            attrs += ' detail="signature"' + (f' doc="{_xml_attr(v.doc)}"' if v.doc else "")
        pieces.append((i, f"<item {attrs}>\n{_cdata(v.content)}\n</item>\n"))
    pieces.append((None, "</code_context>\n"))
    size = sum(count(text) for _, text in pieces)
    header = _fixed_point(lambda total: f'<code_context items="{len(views)}" tokens="{total}">\n', size, count)
    return [(None, header), *pieces]


def pieces(views: Sequence[tuple[int, View]], fmt: Format, links: Links | None = None,
           count: Counter = count_tokens) -> list[Piece]:
    """The text of `views` (position in the entries, view) as pieces; joined, they are the text."""
    deps = ""
    if links is not None and links.dependency_of:
        kept = [links.keys[i] for i, _ in views]
        names = {links.keys[i]: links.names[i] for i, _ in views}
        deps = dependency_lines(fmt, kept, names, links.dependency_of)
    return _xml_pieces(views, deps, count) if fmt == "xml" else _markdown_pieces(views, deps, count)


def dependency_lines(fmt: Format, kept: Sequence[str], names: Mapping[str, str],
                     dependency_of: Mapping[str, DependencyOf]) -> str:
    """The lines saying which of the `kept` items (keys, in text order) are dependencies of which.

    Markdown numbers items as the header's list does: `Dependencies of item 1
    (Context.BindJSON): items 2, 3`; XML names them:
    `<dependency name="Context.MustBindWith" of="Context.BindJSON"/>`. Empty when none is.
    """
    deps = [k for k in kept if k in dependency_of]
    if not deps:
        return ""
    if fmt == "xml":
        return "".join(f'<dependency name="{_xml_attr(_plain(names.get(k, k)))}" '
                       f'of="{_xml_attr(_plain(dependency_of[k].name))}"/>\n' for k in deps)
    number = {k: n for n, k in enumerate(kept, start=1)}
    owners: dict[str, list[int]] = {}
    for k in deps:
        owners.setdefault(dependency_of[k].key, []).append(number[k])
    lines = []
    for owner, numbers in owners.items():
        of = next(d.name for k, d in dependency_of.items() if d.key == owner and k in number)
        listed = ", ".join(map(str, numbers))
        items = f"item {listed}" if len(numbers) == 1 else f"items {listed}"
        if owner in number:
            lines.append(f"Dependencies of item {number[owner]} ({_plain(of)}): {items}\n")
        else:
            lines.append(f"Dependencies of {_plain(of)} (not in this bundle): {items}\n")
    return "".join(lines)


def _plain(name: str) -> str:
    return for_paste(name)[0]


def _rendered(resolved: list[ResolvedItem], fmt: Format) -> Rendered:
    usable = [r for r in resolved if r.usable]
    views = [(i, _plain_view(r)) for i, r in enumerate(usable)]
    text = "".join(piece for _, piece in pieces(views, fmt))
    return Rendered(text, len(usable), sum(v.tokens for _, v in views), [r for r in resolved if not r.usable])


def render_markdown(resolved: list[ResolvedItem]) -> Rendered:
    """Markdown: a header naming the items and the text's exact token count, then one fenced
    block per item.

    Shape (each item, in bundle order)::

        # Code context: 2 items, 171 tokens

        1. lib/router.py:6-15 (class Router, 98 tokens)
        2. web/app.js:1-10 (file, 42 tokens)

        ## lib/router.py:6-15 (class Router)

        ```python
        <code>
        ```

    At lower detail levels (see `pack`) a list line reads `(class Router, signature,
    31 tokens)` and its block holds the doc line and the signatures, or
    `(class Router, name only)` with no block. A bundle with dependencies lists them
    after the items: `Dependencies of item 1 (Router): items 2, 3`.
    """
    return _rendered(resolved, "markdown")


def render_xml(resolved: list[ResolvedItem]) -> Rendered:
    """XML: one `<code_context>` element holding one `<item>` per usable item.

    Shape::

        <code_context items="2" tokens="171">
        <item path="lib/router.py" lines="6-15" kind="class" name="Router" language="python" tokens="98">
        <![CDATA[<code>
        ]]>
        </item>
        </code_context>

    At lower detail levels (see `pack`) an item carries `detail="signature"` (and
    `doc="..."`) around its signatures, or is an empty `<item ... detail="name"/>`.
    Dependencies are `<dependency name="..." of="..."/>` elements after the opening tag.
    """
    return _rendered(resolved, "xml")


def render(resolved: list[ResolvedItem], fmt: Format) -> Rendered:
    """Render in `fmt` (`markdown` or `xml`), every item in full, exactly as the source has it."""
    return _rendered(resolved, fmt)
