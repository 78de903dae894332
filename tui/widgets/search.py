"""`SearchPane`: a query box with live, debounced results from a thread worker.

Filters live in the query itself (`core/search/query.py` reads them: `kind:class lang:go
path:lib/* request body`). The palette edits the same box.

Few keys to a prompt: `tab` adds the highlighted result to the bundle without
leaving the box; `/` starts a fresh query (it selects the old one, so typing
replaces it, except inside a `path:` filter, where it types a slash); and a
one-word query the engine finds little for also lists the symbols it abbreviates
(`bjson` -> `Context.BindJSON`: the engine's search does it, `core/search/abbreviations.py`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual import events, on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.widgets import Input
from textual.worker import get_current_worker

from symscope.core.api import (
    FILTER_KEYS,
    ParsedQuery,
    Workspace,
    for_terminal,
    parse_query,
    set_filter,
)
from symscope.core.errors import SymscopeError
from symscope.core.models import SearchHit, Symbol
from symscope.tui import formatting as fmt
from symscope.tui.bundle_controller import BundleState
from symscope.tui.keys import bindings

#: Keys closer together than this are coalesced into one search; a key after a pause
#: searches at once.
DEBOUNCE = 0.04
RESULT_LIMIT = 50
#: Below this many cells for name and place, a result row shows no place.
NARROW_ROW = 30


def _fit(text: str, width: int, *, keep_end: bool = False) -> str:
    """`text` cropped (with an ellipsis) or padded to exactly `width` cells."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    if keep_end:
        tail = text[-width:]
        while cell_len(tail) > width - 1:
            tail = tail[1:]
        return set_cell_size("\u2026" + tail, width)
    return set_cell_size(text, width - 1) + "\u2026"


_FOLDED = re.compile(r" \+\d+$")


def _fit_name(name: str, width: int) -> str:
    """`name` in exactly `width` cells, cropped so that rows stay told apart.

    Rows often differ only at the end (`Context.BindJSON`, `Context.ShouldBindJSON`), so
    the ellipsis goes in the middle: the last part of the qualified name stays whole
    (`Con…BindJSON`), and when it alone is too long, its start and its end stay
    (`Sho…ndJSON`). A `+N` of folded copies stays with it.
    """
    if width <= 0 or cell_len(name) <= width:
        return _fit(name, width)
    folded = _FOLDED.search(name)
    body, suffix = (name[: folded.start()], folded.group()) if folded else (name, "")
    head, dot, last = body.rpartition(".")
    room = width - cell_len(suffix) - 1
    if cell_len(last) <= room:
        return set_cell_size(_crop_end(head + dot, room - cell_len(last)) + "\u2026" + last + suffix, width)
    if room < 2:
        return _fit(name, width)
    front = _crop_end(last, room // 3)
    back = _crop_start(last, room - cell_len(front))
    return set_cell_size(front + "\u2026" + back + suffix, width)


def _crop_end(text: str, width: int) -> str:
    """The longest start of `text` within `width` cells (a hostile name may be very long)."""
    text = text[: max(width, 0)]  # every character takes at least one cell
    while cell_len(text) > width:
        text = text[:-1]
    return text


def _crop_start(text: str, width: int) -> str:
    """The longest end of `text` within `width` cells."""
    text = text[-width:] if width > 0 else ""
    while cell_len(text) > width:
        text = text[1:]
    return text


def _where(path: str, line: int, width: int) -> str:
    """`path:line`, or `file:line` when the whole path does not fit (`path` already sanitised)."""
    full = f"{path}:{line}"
    if cell_len(full) <= width:
        return full
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def _in_path_filter(before_cursor: str) -> bool:
    """The word being typed is a path (`path:lib/`, `in:src`), where `/` is part of it."""
    word = before_cursor.rsplit(None, 1)[-1] if before_cursor.strip() and not before_cursor[-1].isspace() else ""
    key, colon, _ = word.partition(":")
    return (bool(colon) and FILTER_KEYS.get(key.lower()) == "path") or "/" in word


class ResultsList(ScrollView, can_focus=True):
    """Search hits as aligned one-line rows, drawn with the Line API (cheap to redraw per keystroke).

    Names and paths are untrusted: they are drawn only after `sanitize.for_terminal`.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "results--cursor",
        "results--kind",
        "results--name",
        "results--meta",
        "results--mark",
    }

    DEFAULT_CSS = """
    ResultsList {
        height: auto;
        background: $surface;
        overflow-x: hidden;
        & > .results--cursor {
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .results--kind { color: $text-secondary; text-style: italic; }
        & > .results--name { text-style: bold; }
        & > .results--meta { color: $text-muted; }
        & > .results--mark { color: $text-accent; text-style: bold; }
    }
    SearchPane:focus-within ResultsList > .results--cursor {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("results")

    cursor: reactive[int] = reactive(0, init=False)
    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound through `SearchPane.bundled`): hits in it get a mark."""

    @dataclass
    class Selected(Message):
        """A row was chosen (enter or click)."""

        results: ResultsList
        row: int

    @dataclass
    class CopiesRequested(Message):
        """Show (`show`) or hide the copies folded under the hit at `row`."""

        results: ResultsList
        row: int
        show: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: list[SearchHit] = []
        """The rows on screen: the engine's hits, each followed by its copies when expanded."""
        self._found: list[SearchHit] = []
        self._copies: dict[str, list[SearchHit]] = {}
        """Expanded hits (by symbol ID): the copies folded under them, as rows."""
        self._is_copy: list[bool] = []
        self._bundled: frozenset[str] = frozenset()
        self._names: list[str] = []
        self._paths: list[str] = []
        self._longest_name = 0
        self._cache: dict[tuple[int, bool, int], Strip] = {}

    def set_hits(self, hits: list[SearchHit], cursor: int = 0) -> None:
        # A new virtual size means a layout pass: Textual 8.2.8 has no public way to update
        # only the scrollbar. It costs about 1 ms here; panes whose size is unchanged do not
        # repaint.
        self._found = hits
        self._copies = {}
        self._lay_out(cursor, home=True)

    def _lay_out(self, cursor: int, home: bool) -> None:
        """Rows from the hits and the expanded ones' copies; `home` scrolls back to the top."""
        rows: list[SearchHit] = []
        is_copy: list[bool] = []
        for hit in self._found:
            copies = self._copies.get(hit.symbol.id, [])
            rows += [hit, *copies]
            is_copy += [False] + [True] * len(copies)
        self.hits, self._is_copy = rows, is_copy
        self._names = [self._row_name(h, copy) for h, copy in zip(rows, is_copy, strict=True)]
        self._paths = [for_terminal(h.symbol.path) for h in rows]
        self._longest_name = max((cell_len(n) for n in self._names), default=0)
        self._cache.clear()
        self.set_reactive(ResultsList.cursor, min(max(cursor, 0), max(0, len(rows) - 1)))
        self.virtual_size = Size(self.size.width, len(rows))
        if home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self._scroll_cursor_visible()
        self.refresh()

    def _row_name(self, hit: SearchHit, copy: bool) -> str:
        """A row's name: a copy indented under its hit; a folded hit with `+N` (`-N` once expanded)."""
        name = for_terminal(hit.symbol.qualname)
        if copy:
            return "↳ " + name
        if not hit.duplicates:
            return name
        sign = "-" if hit.symbol.id in self._copies else "+"
        return f"{name} {sign}{len(hit.duplicates)}"

    def head_row(self, row: int) -> int:
        """The row of the hit that `row` belongs to (itself, unless it is a folded copy)."""
        while 0 < row < len(self._is_copy) and self._is_copy[row]:
            row -= 1
        return row

    def is_expanded(self, row: int) -> bool:
        head = self.head_row(row)
        return 0 <= head < len(self.hits) and self.hits[head].symbol.id in self._copies

    def can_expand(self, row: int) -> bool:
        """`row` is a folded hit (or one of its copies): its copies can be shown or hidden."""
        head = self.head_row(row)
        return 0 <= head < len(self.hits) and bool(self.hits[head].duplicates)

    def show_copies(self, row: int, copies: list[Symbol] | None) -> None:
        """Show `copies` under the hit at `row` (or hide them: None); the cursor stays on the hit."""
        head = self.head_row(row)
        if not 0 <= head < len(self.hits):
            return
        hit = self.hits[head]
        if copies is None:
            self._copies.pop(hit.symbol.id, None)
        else:
            self._copies[hit.symbol.id] = [SearchHit(c, hit.score) for c in copies]
        self._lay_out(head, home=False)

    def watch_bundled(self, state: BundleState) -> None:
        ids = state.symbol_ids
        if ids != self._bundled:
            self._bundled = ids
            self._cache.clear()
            self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Clamped here too: the pane sizes itself from this figure, and would otherwise
        # keep blank rows below a long list cut short by `max-height`.
        rows = len(self.hits)
        max_height = self.styles.max_height
        if max_height is not None:
            rows = min(rows, int(max_height.resolve(container, viewport)))
        return rows

    def watch_cursor(self, old: int, new: int) -> None:
        for row in (old, new):
            for key in [k for k in self._cache if k[0] == row]:
                del self._cache[key]
        self._scroll_cursor_visible()
        self.refresh()

    def _scroll_cursor_visible(self) -> None:
        height = self.scrollable_content_region.height
        if not height:
            return
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def action_move(self, delta: int) -> None:
        if self.hits:
            self.cursor = max(0, min(len(self.hits) - 1, self.cursor + delta))

    def action_select(self) -> None:
        if self.hits:
            self.post_message(self.Selected(self, self.cursor))

    def action_copies(self, show: int) -> None:
        """`right`/`left` on a folded row: show or hide the copies folded under it."""
        if not self.can_expand(self.cursor):
            raise SkipAction()
        self.post_message(self.CopiesRequested(self, self.cursor, bool(show)))

    def action_toggle_copies(self) -> None:
        """`+`: show the copies of a folded row, or hide them."""
        self.action_copies(0 if self.is_expanded(self.cursor) else 1)

    async def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = int(self.scroll_y) + offset.y
        if 0 <= row < len(self.hits):
            self.cursor = row
            self.post_message(self.Selected(self, row))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = int(self.scroll_y) + y
        if row >= len(self.hits):
            return Strip.blank(width, self.rich_style)
        key = (row, row == self.cursor, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._cache[key] = self._render_row(row, width)
        return strip

    def _render_row(self, row: int, width: int) -> Strip:
        hit = self.hits[row]
        sym = hit.symbol
        base = self.rich_style
        if row == self.cursor:
            base = base + self.get_component_rich_style("results--cursor")
        style = self.get_component_rich_style
        longest = self._longest_name
        fixed = 2 + 7 + 8  # mark, kind, tokens
        room = width - fixed
        # Narrow: the name takes the whole row (a cropped `…9` of a path tells nothing).
        name_width = max(8, room if room < NARROW_ROW else min(longest + 1, int(room * 0.62)))
        where_width = max(0, width - fixed - name_width)
        tokens = fmt.tokens(sym.tokens).rjust(6) + "  "
        segments = [
            Segment("\u25cf " if sym.id in self._bundled else "  ", base + style("results--mark", partial=True)),
            Segment(_fit(fmt.kind_label(sym.kind), 7), base + style("results--kind", partial=True)),
            Segment(_fit_name(self._names[row], name_width), base + style("results--name", partial=True)),
            Segment(tokens, base + style("results--meta", partial=True)),
            Segment(_fit(_where(self._paths[row], sym.start_line, where_width), where_width, keep_end=True),
                    base + style("results--meta", partial=True)),
        ]
        return Strip(segments).adjust_cell_length(width, base)


class SearchInput(Input):
    """The query box (a distinct type so CSS and tests can find it).

    Textual 8.2's `Input` sets its virtual size on every keystroke, a layout pass (about
    1 ms here; only the box repaints); there is no public way to skip it for a fixed-size box.
    """


class SearchPane(Vertical):
    """Search symbols as you type; Enter opens the highlighted result."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("search")

    bundled: reactive[BundleState] = reactive(BundleState, init=False)
    """The App's bundle (bound with `data_bind`), passed on to the result list."""

    @dataclass
    class ResultChosen(Message):
        """The user opened a result."""

        pane: SearchPane
        symbol: Symbol

        @property
        def control(self) -> SearchPane:
            return self.pane

    @dataclass
    class ToggleRequested(Message):
        """The user asked to add or remove a result's symbol."""

        pane: SearchPane
        symbol: Symbol

        @property
        def control(self) -> SearchPane:
            return self.pane

    @dataclass
    class Left(Message):
        """The user pressed escape in the search pane."""

        pane: SearchPane

    @dataclass
    class _Results(Message):
        generation: int
        text: str
        parsed: ParsedQuery
        hits: list[SearchHit]
        error: str | None
        seconds: float
        abbreviated: int = 0
        """Hits added because the query abbreviates their names."""

    def __init__(self, ws: Workspace, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.ws = ws
        self.hits: list[SearchHit] = []
        self.shown_query: str = ""
        """The query text whose results are on screen."""
        self._generation = 0
        self._add_when_shown: int | None = None
        """`tab` came before the results of the text in the box: add the top hit of this generation."""
        self._timer: Timer | None = None
        self._last_key = 0.0

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="Search symbols…  kind:class lang:go path:lib/*", id="search-input",
                          select_on_focus=False)
        results = ResultsList(id="results").data_bind(SearchPane.bundled)
        results.display = False
        yield results

    def on_mount(self) -> None:
        self.border_title = "Search"

    @property
    def input(self) -> SearchInput:
        return self.query_one(SearchInput)

    @property
    def results(self) -> ResultsList:
        return self.query_one(ResultsList)

    @property
    def value(self) -> str:
        return self.input.value

    @value.setter
    def value(self, text: str) -> None:
        self.input.value = text
        self.input.cursor_position = len(text)

    def focus_input(self, fresh: bool = False) -> None:
        """Focus the box; `fresh` selects its text, so what is typed next replaces it.

        The focus moves now, not after a refresh (`Widget.focus`): a key typed right after
        `/` is already queued, and must reach the box, not the pane that had the focus.
        """
        self.screen.set_focus(self.input)
        if fresh:
            self.input.select_all()

    def apply_filter(self, key: str, value: str | None) -> None:
        """Set or clear one filter in the box (used by the palette) and search again."""
        self.value = set_filter(self.value, key, value)
        self.focus_input()

    def clear_filters(self) -> None:
        for key in ("kind", "language", "path"):
            self.apply_filter(key, None)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._warm_names()  # the names for abbreviations, before the first query needs them

    @work(thread=True, exclusive=True, group="names", exit_on_error=False)
    def _warm_names(self) -> None:
        self.ws.prepare_search()  # (while a first index run works, the first query prepares them)

    def rerun(self) -> None:
        """Search the current text again (after the index changed)."""
        self._start(immediately=True)

    @property
    def highlighted_symbol(self) -> Symbol | None:
        results = self.results
        rows = results.hits
        if not rows or not results.display:
            return None
        row = results.cursor
        return rows[row].symbol if 0 <= row < len(rows) else None

    def action_copies_at_end(self) -> None:
        """`right` at the end of the box on a folded row: show or hide its copies (elsewhere
        the key moves the box's cursor as usual)."""
        box, results = self.input, self.results
        at_end = self.screen.focused is box and box.selection.is_empty and box.cursor_position == len(box.value)
        if not (at_end and results.display and results.can_expand(results.cursor)):
            raise SkipAction()
        results.action_toggle_copies()

    @on(ResultsList.CopiesRequested)
    def _copies_requested(self, event: ResultsList.CopiesRequested) -> None:
        """The folded copies of a hit, read from the index: every copy is reachable in the app."""
        event.stop()
        results = event.results
        if not event.show:
            results.show_copies(event.row, None)
            return
        hit = results.hits[results.head_row(event.row)]
        copies: list[Symbol] = []
        for sym_id in hit.duplicates:
            try:
                copies.append(self.ws.symbol(sym_id))
            except SymscopeError:
                continue  # gone since the search (a refresh is on its way)
        results.show_copies(event.row, copies)

    # -- searching -----------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._start()

    def _start(self, immediately: bool = False) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._generation += 1
        text = self.value
        parsed = parse_query(text)
        if not parsed.words:
            self.workers.cancel_group(self, "search")
            self._show(text, parsed, [], None, 0.0)
            return
        now = time.monotonic()
        quiet = now - self._last_key >= DEBOUNCE
        self._last_key = now
        if immediately or quiet:
            self._search(self._generation, text, parsed)
        else:
            generation = self._generation

            def fire() -> None:
                self._timer = None
                self._search(generation, text, parsed)

            self._timer = self.set_timer(DEBOUNCE, fire)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _search(self, generation: int, text: str, parsed: ParsedQuery) -> None:
        started = time.perf_counter()
        hits: list[SearchHit] = []
        error: str | None = None
        try:
            hits = self.ws.search_parsed(parsed, RESULT_LIMIT)
        except SymscopeError as exc:
            error = str(exc)
        except Exception as exc:  # never let a search take the app down
            error = f"search failed: {exc}"
        if not get_current_worker().is_cancelled:
            self.post_message(self._Results(generation, text, parsed, hits, error,
                                            time.perf_counter() - started, sum(h.abbreviated for h in hits)))

    @on(_Results)
    def _got_results(self, message: SearchPane._Results) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # an older query; a newer one is on its way
        self._show(message.text, message.parsed, message.hits, message.error, message.seconds,
                   message.abbreviated)
        if self._add_when_shown == message.generation:
            self._add_when_shown = None
            self.action_toggle_bundle()

    def _show(self, text: str, parsed: ParsedQuery, hits: list[SearchHit], error: str | None,
              seconds: float, abbreviated: int = 0) -> None:
        self.hits = hits
        self.shown_query = text
        problems = [*parsed.errors, *([error] if error else [])]
        if problems:
            self.border_subtitle = Content(for_terminal(problems[0]))
            self.add_class("-error")
        else:
            self.remove_class("-error")
            if not parsed.words:
                filters = parsed.filters + (" · type words to search" if parsed.filters else "")
                self.border_subtitle = Content(for_terminal(filters))
            elif hits:
                more = "+" if len(hits) >= RESULT_LIMIT else ""
                noun = "result" if len(hits) == 1 else "results"
                by_name = f" · {abbreviated} by abbreviation" if abbreviated else ""
                self.border_subtitle = f"{len(hits)}{more} {noun}{by_name} · {seconds * 1000:.0f} ms"
            else:
                self.border_subtitle = "no symbols match"
        results = self.results
        results.display = bool(hits)
        results.set_hits(hits)

    # -- choosing ------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        if self.results.display:
            self.results.action_move(delta)

    def action_leave(self) -> None:
        self.post_message(self.Left(self))

    def action_clear(self) -> None:
        self.value = ""
        self.focus_input()

    def action_fresh_query(self) -> None:
        """`/`: select the query so typing replaces it; inside a `path:` filter, type the slash."""
        box = self.input
        typing = self.screen.focused is box and box.selection.is_empty
        if typing and _in_path_filter(box.value[: box.cursor_position]):
            box.insert_text_at_cursor("/")
            return
        self.focus_input(fresh=True)

    def action_toggle_bundle(self) -> None:
        """Add or remove the highlighted result (`tab` in the box, `space` in the list).

        If the results on screen are not yet those of the text in the box, search now and
        add the top result when it arrives (typing on drops that).
        """
        if self.screen.focused is self.input and (self._timer is not None or self.shown_query != self.value):
            self._start(immediately=True)
            self._add_when_shown = self._generation
            return
        sym = self.highlighted_symbol
        if sym is not None:
            self.post_message(self.ToggleRequested(self, sym))

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None or self.shown_query != self.value:
            self._start(immediately=True)  # Enter before the debounce fired: search now
            return
        self._choose()

    @on(ResultsList.Selected)
    def _row_selected(self, event: ResultsList.Selected) -> None:
        event.stop()
        self._choose()

    def _choose(self) -> None:
        sym = self.highlighted_symbol
        if sym is not None:
            self.post_message(self.ResultChosen(self, sym))
