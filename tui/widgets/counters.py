"""`Counters`: always-visible token costs of the current symbol and of the bundle.

Every figure is the core's exact count; ratios and percentages come from
`symscope.core.models.Savings`. The bundle's size is the exact count of the text a
copy would give now (`BundleState.tokens`), never the code's sum. Money uses a price per million tokens. The bundle,
the price and the key names are the App's reactives, bound with `data_bind`.
Symbol names and paths are drawn only after `sanitize.for_terminal`.

The bundle line also shows, when they apply: the budget with the packed text's
exact count and how many items it reduced or dropped, how many secrets a copy
would redact and how many it keeps on purpose, and, while add-with-dependencies
waits for a yes, its delta, labelled code only (`+4 deps, +312 tok (code only)`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from symscope.core.api import DepsPlan, for_terminal
from symscope.core.models import Savings
from symscope.tui import formatting as fmt
from symscope.tui.actions import KeyHints
from symscope.tui.bundle_controller import BundleState


@dataclass(frozen=True, slots=True)
class SymbolCost:
    """The current symbol against its whole file."""

    name: str
    kind: str
    savings: Savings


@dataclass(frozen=True, slots=True)
class FileCost:
    """The current file (no symbol picked) against the repo."""

    path: str
    tokens: int
    repo_tokens: int


@dataclass(frozen=True, slots=True)
class BundleCost:
    """The bundle against the whole files its items come from and the whole repo."""

    items: int
    flagged: int
    savings: Savings


def _pick(width: int, *variants: Content) -> Content:
    """The first variant that fits in `width` cells, else the last one truncated."""
    for variant in variants:
        if variant.cell_length <= width:
            return variant
    return variants[-1].truncate(width, ellipsis=True)


class Counters(Widget):
    """Two lines: the current symbol (or file) and the bundle, with savings."""

    DEFAULT_CSS = """
    Counters {
        height: 2;
        padding: 0 1;
        background: $panel;
        color: $foreground;
    }
    """

    current: reactive[SymbolCost | FileCost | None] = reactive(None)
    bundled: reactive[BundleState] = reactive(BundleState)
    price: reactive[float] = reactive(fmt.DEFAULT_PRICE_PER_MTOK)
    """Dollars per million tokens."""
    hints: reactive[KeyHints] = reactive(KeyHints)
    """Key names for the hints shown while nothing is picked."""
    pending: reactive[DepsPlan | None] = reactive(None)
    """Add-with-dependencies waiting for confirmation: its delta is shown."""

    @property
    def bundle(self) -> BundleCost:
        """The bundle's figures, code only: the items' own tokens against their files and the repo."""
        state = self.bundled
        return BundleCost(state.count, state.flagged, state.savings)

    @property
    def shown(self) -> BundleCost:
        """The bundle's figures as the second line shows them: the exact count of the text a
        copy would give now (headers, fences, dependency lines, redaction markers included)."""
        state = self.bundled
        return BundleCost(state.count, state.flagged, state.text_savings)

    def render(self) -> Content:
        width = max(1, self.content_region.width)
        return Content("\n").join([self._current_line(width), self._bundle_line(width)])

    def _current_line(self, width: int) -> Content:
        cur = self.current
        label = ("Symbol ", "bold $text-primary")
        if isinstance(cur, SymbolCost):
            s = cur.savings
            name = (for_terminal(cur.name), "bold")
            kind = (f" {fmt.kind_label(cur.kind)}", "$text-muted")
            toks = (f"{fmt.tokens(s.tokens)} tok", "bold $text-success")
            vs = f"whole file {fmt.tokens(s.file_tokens)} tok"
            saved = (f"{fmt.ratio(s.vs_file_ratio)} smaller, {fmt.pct(s.vs_file_saved_pct)} saved",
                     "$text-success")
            money = (f"  {fmt.money(fmt.cost(s.tokens, self.price))} vs "
                     f"{fmt.money(fmt.cost(s.file_tokens, self.price))}", "$text-muted")
            return _pick(
                width,
                Content.assemble(label, name, kind, "  ", toks, " │ ", vs, " │ ", saved, money),
                Content.assemble(label, name, kind, "  ", toks, " │ ", vs, " │ ", saved),
                Content.assemble(label, name, "  ", toks, " / file ", fmt.tokens(s.file_tokens),
                                 " │ ", (fmt.saved(s.vs_file_saved_pct), "$text-success")),
                Content.assemble(toks, " / ", fmt.tokens(s.file_tokens), " ",
                                 (fmt.saved(s.vs_file_saved_pct), "$text-success"), "  ", name),
            )
        if isinstance(cur, FileCost):
            share = 100.0 * cur.tokens / cur.repo_tokens if cur.repo_tokens else 0.0
            toks = (f"{fmt.tokens(cur.tokens)} tok", "bold")
            path = (for_terminal(cur.path), "bold")
            return _pick(
                width,
                Content.assemble(("File   ", "bold $text-primary"), path, "  ", toks,
                                 " │ ", f"{share:.1f}% of repo ({fmt.tokens(cur.repo_tokens)} tok)",
                                 " │ ", ("pick a symbol to see what it saves", "$text-muted")),
                Content.assemble(("File   ", "bold $text-primary"), path, "  ", toks,
                                 " │ ", f"{share:.1f}% of repo"),
                Content.assemble(toks, "  ", path),
            )
        h = self.hints
        keys = f"none yet · {h['app.search']} search · {h['app.focus_tree']} files · {h['app.focus_outline']} outline"
        return _pick(
            width,
            Content.assemble(label, (f"{keys} · the counters show what a symbol saves", "$text-muted")),
            Content.assemble(label, (keys, "$text-muted")),
            Content.assemble(label, ("none yet", "$text-muted")),
        )

    def _extras(self) -> tuple[Content, Content]:
        """(long, short) segments about a pending add, the budget and secrets ("" when none apply)."""
        long: list[Content] = []
        short: list[Content] = []
        plan = self.pending
        if plan is not None:
            text = f"{for_terminal(plan.root.qualname)} {plan.delta} (code only)?"
            long.append(Content.styled(text, "bold $text-warning"))
            short.append(Content.styled(f"{plan.delta} code only?", "bold $text-warning"))
        packing = self.bundled.packing
        if packing is not None and packing.budget is not None:
            if packing.error is not None:
                long.append(Content.styled(f"budget {fmt.tokens(packing.budget)} too small", "bold $text-error"))
                short.append(Content.styled("budget too small", "bold $text-error"))
            else:
                cut = f", {packing.reduced} reduced, {packing.dropped} dropped" if packing.reduced or \
                    packing.dropped else ""
                long.append(Content.assemble(f"budget {fmt.tokens(packing.budget)}: packed ",
                                             (f"{fmt.tokens(packing.tokens)} tok", "bold"), cut))
                short.append(Content(f"packed {fmt.tokens(packing.tokens)}/{fmt.tokens(packing.budget)}"))
        if packing is not None and packing.redacted:
            noun = "secret" if packing.redacted == 1 else "secrets"
            long.append(Content.styled(f"{packing.redacted} {noun} redacted", "bold $text-warning"))
            short.append(Content.styled(f"{packing.redacted} redacted", "bold $text-warning"))
        refs = {r.item.ref for r in self.bundled.items}
        kept = sum(1 for finding in self.bundled.kept.values() if finding.id in refs)
        if kept:  # left in on purpose: still worth seeing before each paste
            noun = "secret" if kept == 1 else "secrets"
            long.append(Content.styled(f"{kept} {noun} kept", "bold $text-error"))
            short.append(Content.styled(f"{kept} kept", "bold $text-error"))
        sep = Content(" │ ")
        return (sep + sep.join(long) if long else Content(""), sep + sep.join(short) if short else Content(""))

    def _bundle_line(self, width: int) -> Content:
        label = ("Bundle ", "bold $text-accent")
        b = self.shown
        long, short = self._extras()
        if b.items == 0 and self.pending is not None:
            return _pick(width, Content.assemble(label, ("empty", "$text-muted"), long),
                         Content.assemble(label, short))
        if b.items == 0:
            h = self.hints
            add = f"empty · {h['app.toggle_symbol']} adds the symbol"
            return _pick(
                width,
                Content.assemble(label, (f"{add}, {h['app.toggle_file']} the whole file, {h['app.bundle']} "
                                         f"shows it, {h['app.copy']} copies", "$text-muted"),
                                 (f"  @ {fmt.money(self.price)}/Mtok", "$text-muted")),
                Content.assemble(label, (add, "$text-muted")),
            )
        s = b.savings
        noun = "item" if b.items == 1 else "items"
        count = (f"{b.items} {noun}", "bold")
        toks = (f"{fmt.tokens(s.tokens)} tok", "bold $text-success")
        flag = (f" ⚠ {b.flagged} flagged", "bold $text-warning") if b.flagged else ""
        files = (f"files {fmt.tokens(s.file_tokens)}: {fmt.ratio(s.vs_file_ratio)}, "
                 f"{fmt.pct(s.vs_file_saved_pct)} saved")
        repo = (f"repo {fmt.tokens(s.repo_tokens)}: {fmt.ratio(s.vs_repo_ratio)}, "
                f"{fmt.pct(s.vs_repo_saved_pct)} saved")
        price = self.price
        money = (f"{fmt.money(fmt.cost(s.tokens, price))} vs {fmt.money(fmt.cost(s.file_tokens, price))}"
                 f" @ {fmt.money(price)}/Mtok", "$text-muted")
        short_files = f"files {fmt.tokens(s.file_tokens)} {fmt.saved(s.vs_file_saved_pct)}"
        short_repo = f"repo {fmt.saved(s.vs_repo_saved_pct)}"
        cost = (f"{fmt.money(fmt.cost(s.tokens, price))} vs {fmt.money(fmt.cost(s.file_tokens, price))}",
                "$text-muted")
        return _pick(
            width,
            Content.assemble(label, count, "  ", toks, flag, long, " │ ", files, " │ ", repo, " │ ", money),
            Content.assemble(label, count, "  ", toks, flag, long, " │ ", files, " │ ",
                             f"repo {fmt.tokens(s.repo_tokens)}: {fmt.pct(s.vs_repo_saved_pct)} saved",
                             " │ ", cost),
            Content.assemble(label, count, "  ", toks, flag, long, " │ ", files, " │ ", repo),
            Content.assemble(label, count, " ", toks, flag, short, " │ ", short_files, " │ ", short_repo,
                             " │ ", (fmt.money(fmt.cost(s.tokens, price)), "$text-muted")),
            Content.assemble(label, count, " ", toks, flag, short, " │ ", short_files),
            Content.assemble(label, count, " ", toks, flag, short),
        )
