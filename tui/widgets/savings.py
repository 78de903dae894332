"""`SavingsPanel`: the bundle drawn against the whole files it comes from and the whole repo.

The bars against the files and the repo show how many times smaller the bundle
is, on a log scale from 1x (empty) to 10,000x (full): on a real repository the
bundle is a tiny share of the whole, so a linear bar would be a sliver at 99% and
the same sliver at 99.9%; here 100x fills half and 1,000x three quarters. The budget
bar is linear: the packed text against the budget. Beside each bar, the exact
figures and the factor. Every number is the core's exact cl100k count
(`BundleState.text_savings`: the count of the text a copy gives now, against the items'
whole files and the repo; and that count against the budget).
"""

from __future__ import annotations

import math

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
#: Decades the factor bars span: full at 10**DECADES times smaller.
DECADES = 4


def factor_fraction(part: int, whole: int) -> float:
    """Where `whole / part` lies on a log scale from 1x (0.0) to 10**DECADES x (1.0)."""
    if part <= 0 or whole <= part:
        return 0.0
    return min(1.0, math.log10(whole / part) / DECADES)


def _versus(part: int, whole: int, saved_pct: float) -> str:
    """`269 of 26,900 tok · 100x · -99.0%` (no factor when nothing is saved; the title says "smaller")."""
    factor = f" · {fmt.ratio(whole / part)}" if 0 < part < whole else ""
    return f"{fmt.tokens(part)} of {fmt.tokens(whole)} tok{factor} · {fmt.saved(saved_pct)}"


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
    """Two or three bars: how many times smaller the bundle is than its files and the repo (log
    scale), and the packed text against the budget (linear)."""

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
        self.border_title = f"Savings · {fmt.TIMES} smaller, log scale"

    def watch_bundled(self, state: BundleState) -> None:
        self.display = state.count > 0

    def rows(self) -> list[tuple[str, float, str]]:
        """(label, filled fraction of the bar, figures) per bar, as drawn."""
        state = self.bundled
        s = state.text_savings  # the text a copy gives now, not the code alone
        rows = [
            ("vs files", factor_fraction(s.tokens, s.file_tokens), _versus(s.tokens, s.file_tokens,
                                                                            s.vs_file_saved_pct)),
            ("vs repo", factor_fraction(s.tokens, s.repo_tokens), _versus(s.tokens, s.repo_tokens,
                                                                           s.vs_repo_saved_pct)),
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
