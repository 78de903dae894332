"""`SourceView`: a read-only, syntax-highlighted file view built on the Line API.

Only the visible lines are rendered (`render_line`), each once per theme and
cached, so a 10,000-line file scrolls as smoothly as a 10-line one. Pygments
tokenizes the text; token types map to Textual theme variables, so highlighting
follows the theme. Large files show plain text at once and are tokenized in a
thread worker. The marked line range (the current symbol) gets a tinted
background and a bar in the line-number gutter.

File contents are untrusted: `prepare_text` passes them through
`sanitize.for_terminal`, so an ESC, a bidi override or a zero-width joiner is drawn
as a visible escape (`\x1b`, `<U+202E>`), the same spelling every other pane uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Token, _TokenType
from pygments.util import ClassNotFound
from rich.cells import cell_len
from rich.segment import Segment
from textual import events, work
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.content import Content, Span
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from symscope.core.api import for_terminal, pygments_name
from symscope.tui import formatting as fmt
from symscope.tui.file_view import FileView
from symscope.tui.keys import bindings

#: Files with more characters than this are tokenized in a worker thread.
SYNC_HIGHLIGHT_CHARS = 60_000
TAB_SIZE = 4
#: Lines of context kept above a symbol scrolled into view.
CONTEXT_LINES = 2

#: Token type -> Textual style (theme variables, so colours follow the theme).
TOKEN_STYLES: dict[_TokenType, str] = {
    Token.Comment: "$text-muted italic",
    Token.Comment.Preproc: "$text-accent",
    Token.Keyword: "$text-accent bold",
    Token.Keyword.Constant: "$text-warning",
    Token.Keyword.Type: "$text-secondary",
    Token.Operator.Word: "$text-accent bold",
    Token.Name.Builtin: "$text-secondary",
    Token.Name.Builtin.Pseudo: "$text-secondary italic",
    Token.Name.Class: "$text-warning bold",
    Token.Name.Function: "$text-primary bold",
    Token.Name.Function.Magic: "$text-primary bold",
    Token.Name.Decorator: "$text-primary",
    Token.Name.Tag: "$text-primary",
    Token.Name.Attribute: "$text-warning",
    Token.Name.Constant: "$text-warning",
    Token.Name.Exception: "$text-error",
    Token.Literal.String: "$text-success",
    Token.Literal.String.Doc: "$text-success italic",
    Token.Literal.String.Escape: "$text-warning",
    Token.Literal.Number: "$text-warning",
    Token.Generic.Deleted: "$text-error",
    Token.Generic.Inserted: "$text-success",
    Token.Error: "$text-error",
}

LineSpans = list[tuple[int, int, str]]


def prepare_text(text: str) -> list[str]:
    """Split a file into display lines: CR/LF normalised, tabs expanded, controls made visible."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "")
    text = for_terminal(text)
    lines = [line.expandtabs(TAB_SIZE) for line in text.split("\n")]
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline does not start another line
    return lines


def find_lexer(language: str, path: str) -> Lexer | None:
    """The lexer languages.json names for a symscope language or, failing that, the file name's."""
    options = {"stripnl": False, "ensurenl": False, "stripall": False}
    name = pygments_name(language)
    if name is not None:
        try:
            return get_lexer_by_name(name, **options)
        except ClassNotFound:
            pass
    try:
        return get_lexer_for_filename(path, **options)
    except ClassNotFound:
        return None


def _style_for(token_type: _TokenType) -> str:
    while True:
        style = TOKEN_STYLES.get(token_type)
        if style is not None:
            return style
        parent = token_type.parent
        if parent is None:
            return ""
        token_type = parent


def tokenize(lines: list[str], lexer: Lexer | None, cancelled: object = None) -> list[LineSpans] | None:
    """Per-line style spans for `lines`, or None if the lexer disagreed with the text."""
    if lexer is None:
        return None
    text = "\n".join(lines) + "\n"
    spans: list[LineSpans] = [[] for _ in lines]
    row = col = 0
    consumed = 0
    style_cache: dict[_TokenType, str] = {}
    for n, (token_type, value) in enumerate(lexer.get_tokens(text)):
        if cancelled is not None and n % 4096 == 0 and getattr(cancelled, "is_cancelled", False):
            return None
        consumed += len(value)
        style = style_cache.get(token_type)
        if style is None:
            style = style_cache[token_type] = _style_for(token_type)
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                row += 1
                col = 0
            if part and style and row < len(spans):
                spans[row].append((col, col + len(part), style))
            col += len(part)
    if consumed != len(text):
        return None
    return spans


@dataclass
class _Document:
    path: str
    language: str
    lines: list[str]
    spans: list[LineSpans] | None
    width: int


class SourceView(ScrollView, can_focus=True):
    """Shows one file with line numbers; `mark` highlights a line range (1-based)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "source--gutter",
        "source--gutter-marked",
        "source--marked",
        "source--placeholder",
    }

    DEFAULT_CSS = """
    SourceView {
        background: $surface;
        color: $foreground;
        & > .source--gutter { color: $foreground 35%; }
        & > .source--gutter-marked { color: $accent; text-style: bold; }
        & > .source--marked { background: $primary 22%; }
        & > .source--placeholder { color: $text-muted; }
        &:focus { background-tint: $foreground 4%; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("source")
    BORDER_TITLE = "Source"

    marked: reactive[tuple[int, int] | None] = reactive(None, init=False)
    """The highlighted range of 1-based, inclusive line numbers."""

    @dataclass
    class LineClicked(Message):
        """Posted when a line is clicked (1-based line number)."""

        view: SourceView
        path: str
        line: int

        @property
        def control(self) -> SourceView:
            return self.view

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._doc: _Document | None = None
        self._placeholder = ""
        self._cache: LRUCache[tuple[int, bool], Strip] = LRUCache(1024)

    # -- public API ---------------------------------------------------------------

    @property
    def path(self) -> str | None:
        return self._doc.path if self._doc is not None else None

    @property
    def line_count(self) -> int:
        return len(self._doc.lines) if self._doc is not None else 0

    @property
    def highlighted(self) -> bool:
        """True once syntax highlighting is applied to the current file."""
        return self._doc is not None and self._doc.spans is not None

    def show_placeholder(self, text: str) -> None:
        """Show a centred-ish hint instead of a file."""
        self._doc = None
        self._placeholder = for_terminal(text)
        self.marked = None
        self._cache.clear()
        self.virtual_size = Size(0, 0)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def show_view(self, view: FileView | None, refresh_key: str = "r") -> None:
        """Show a file read by `file_view.load_file`, titled with its path, size and tokens.

        Args:
            view: The file, or None for no file (the titles go back to "Source").
            refresh_key: The key that re-indexes, named when the file changed since indexing.
        """
        if view is None:
            self.border_title, self.border_subtitle = "Source", ""
            return
        self.border_title = Content(for_terminal(view.path))
        rec = view.record
        if view.error is not None:
            self.show_placeholder(view.error)
            return
        self.show_file(view.path, view.text, rec.language if rec else "")
        self.border_subtitle = "" if rec is None else (
            f"{rec.language} · {rec.lines:,} lines · {fmt.tokens(rec.tokens)} tok"
            + ("" if view.current else f" · changed since indexing: {refresh_key} refreshes")
        )

    def show_file(self, path: str, text: str, language: str) -> None:
        """Display `text` as file `path`; highlighting follows (in a worker if large)."""
        lines = prepare_text(text)
        width = max((cell_len(line) for line in lines), default=0)
        self._doc = _Document(path, language, lines, None, width)
        self._cache.clear()
        self.marked = None
        self.virtual_size = Size(self._gutter_width + width + 1, len(lines))
        self.scroll_to(0, 0, animate=False)
        self.refresh()
        lexer = find_lexer(language, path)
        if lexer is None:
            return
        if len(text) <= SYNC_HIGHLIGHT_CHARS:
            self._doc.spans = tokenize(lines, lexer)
        else:
            self._highlight_in_thread(self._doc, lexer)

    def mark(self, start: int, end: int, *, scroll: bool = True) -> None:
        """Highlight lines `start..end` (1-based, inclusive) and scroll them into view."""
        self.marked = (start, end)
        if scroll:
            self.scroll_to_mark()
            # A file shown just now has no scroll range until the next layout.
            self.call_after_refresh(self.scroll_to_mark)

    def scroll_to_mark(self) -> None:
        if self.marked is None:
            return
        start, end = self.marked
        height = self.scrollable_content_region.height
        top = start - 1 - CONTEXT_LINES
        if height and end - start + 1 + CONTEXT_LINES > height:
            top = start - 1  # a long symbol: show its first line at the top
        self.scroll_to(0, max(0, top), animate=False, immediate=True)

    def action_jump_to_mark(self) -> None:
        self.scroll_to_mark()

    def on_resize(self, event: events.Resize) -> None:
        """Keep the marked symbol in view when the pane changes height."""
        if self.marked is None:
            return
        start, end = self.marked
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        first_visible = top <= start - 1 < top + height
        fits = end - start + 1 <= height
        if not first_visible or (fits and end > top + height):
            self.call_after_refresh(self.scroll_to_mark)

    # -- highlighting ---------------------------------------------------------------

    @work(thread=True, exclusive=True, group="highlight", exit_on_error=False)
    def _highlight_in_thread(self, doc: _Document, lexer: Lexer) -> None:
        spans = tokenize(doc.lines, lexer, cancelled=get_current_worker())
        if spans is not None and not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._apply_spans, doc, spans)

    def _apply_spans(self, doc: _Document, spans: list[LineSpans]) -> None:
        if doc is self._doc:
            doc.spans = spans
            self._cache.clear()
            self.refresh()

    # -- rendering -------------------------------------------------------------------

    @property
    def _gutter_width(self) -> int:
        return len(str(max(1, self.line_count))) + 2

    def watch_marked(self, old: tuple[int, int] | None, new: tuple[int, int] | None) -> None:
        for rng in (old, new):
            if rng is not None:
                for line in range(rng[0] - 1, rng[1]):
                    self._cache.discard((line, True))
                    self._cache.discard((line, False))
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def _is_marked(self, line_index: int) -> bool:
        marked = self.marked
        return marked is not None and marked[0] <= line_index + 1 <= marked[1]

    def _code_strip(self, line_index: int, marked: bool) -> Strip:
        key = (line_index, marked)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        assert self._doc is not None
        doc = self._doc
        text = doc.lines[line_index]
        base = self.get_visual_style("source--marked") if marked else self.visual_style
        spans = doc.spans[line_index] if doc.spans is not None else []
        content = Content(text, [Span(s, e, style) for s, e, style in spans])
        parse = self.app.stylesheet.parse_style
        segments = [
            Segment(part, (base + style).rich_style)
            for part, style in content.render(base, end="", parse_style=parse)
        ]
        strip = Strip(segments, cell_len(text))
        self._cache[key] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x, scroll_y = self.scroll_offset
        base = self.rich_style
        doc = self._doc
        if doc is None:
            lines = self._placeholder.splitlines()
            if 1 <= y <= len(lines):
                style = self.get_component_rich_style("source--placeholder")
                return Strip([Segment("  " + lines[y - 1], style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        index = scroll_y + y
        if index >= len(doc.lines):
            return Strip.blank(width, base)
        marked = self._is_marked(index)
        gutter_width = self._gutter_width
        number = str(index + 1).rjust(gutter_width - 2)
        if marked:
            gutter_style = self.get_component_rich_style("source--gutter-marked")
            gutter = Strip([Segment("▌" + number + " ", gutter_style)])
        else:
            gutter_style = self.get_component_rich_style("source--gutter")
            gutter = Strip([Segment(" " + number + " ", gutter_style)])
        fill = self.get_visual_style("source--marked").rich_style if marked else base
        code = self._code_strip(index, marked).crop_extend(
            scroll_x, scroll_x + max(0, width - gutter_width), fill
        )
        return Strip.join([gutter, code]).simplify()

    async def on_click(self, event: events.Click) -> None:
        if self._doc is None:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = self.scroll_offset.y + offset.y + 1
        if 1 <= line <= len(self._doc.lines):
            self.post_message(self.LineClicked(self, self._doc.path, line))
