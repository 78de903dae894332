"""`SavingsPanel`: the bundle drawn against the whole files it comes from and the whole repo.

One bar per comparison: the track is the whole (the files, the repo, the budget)
and the filled part is the bundle, in eighths of a cell so that even 0.1% shows as
a sliver. Beside each bar, the exact figures. Every number is the core's exact
cl100k count (`BundleState.savings`, and the packed text's count under a budget).
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from symscope.tui import formatting as fmt
from symscope.tui.bundle_controller import BundleState

#: Partial blocks, from one eighth of a cell to seven eighths.
EIGHTHS = " ▏▎▍▌▋▊▉"
FULL_BLOCK = "█"
TRACK = "░"
LABEL_WIDTH = 9
MIN_BAR = 6


def bar(fraction: float, width: int) -> tuple[str, str]:
    """(filled, track) strings of exactly `width` cells for `fraction` of the whole.

    Anything above zero shows at least one eighth of a cell; a fraction above 1 fills the bar.
    """
    if width <= 0:
        return "", ""
    fraction = min(max(fraction, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    if fraction > 0 and eighths == 0:
        eighths = 1
    whole, part = divmod(eighths, 8)
    filled = FULL_BLOCK * whole + (EIGHTHS[part] if part else "")
    return filled, TRACK * (width - len(filled))


class SavingsPanel(Widget):
    """Two or three bars: the bundle against its files, against the repo, and the budget."""

    DEFAULT_CSS = """
    SavingsPanel {
        height: auto;
        padding: 0 1;
        border-top: solid $foreground 20%;
        border-title-color: $text-muted;
        background: $surface;
    }
    """

    bundled: reactive[BundleState] = reactive(BundleState, layout=True)
    """The App's bundle (bound with `data_bind`)."""

    def on_mount(self) -> None:
        self.border_title = "Savings"

    def watch_bundled(self, state: BundleState) -> None:
        self.display = state.count > 0

    def rows(self) -> list[tuple[str, float, str]]:
        """(label, fraction of the whole, figures) per bar, as drawn."""
        state = self.bundled
        s = state.savings
        rows = [
            ("vs files", s.tokens / s.file_tokens if s.file_tokens else 0.0,
             f"{fmt.tokens(s.tokens)} of {fmt.tokens(s.file_tokens)} tok · {fmt.saved(s.vs_file_saved_pct)}"),
            ("vs repo", s.tokens / s.repo_tokens if s.repo_tokens else 0.0,
             f"{fmt.tokens(s.tokens)} of {fmt.tokens(s.repo_tokens)} tok · {fmt.saved(s.vs_repo_saved_pct)}"),
        ]
        packing = state.packing
        if packing is not None and packing.budget is not None:
            over = " · too small" if packing.error else ""
            rows.append(("budget", packing.tokens / packing.budget,
                         f"{fmt.tokens(packing.tokens)} of {fmt.tokens(packing.budget)} tok{over}"))
        return rows

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows())

    def render(self) -> Content:
        width = max(1, self.content_region.width)
        rows = self.rows()
        figures_width = max(len(f) for _, _, f in rows) + 1
        bar_width = width - LABEL_WIDTH - figures_width
        lines = []
        for label, fraction, figures in rows:
            if bar_width < MIN_BAR:
                lines.append(Content.assemble((label.ljust(LABEL_WIDTH), "$text-muted"), figures))
                continue
            filled, track = bar(fraction, bar_width)
            style = "$text-error" if fraction > 1 else "$text-success"
            lines.append(Content.assemble((label.ljust(LABEL_WIDTH), "$text-muted"), (filled, style),
                                          (track, "$text-muted"), " ", figures))
        return Content("\n").join(lines)
