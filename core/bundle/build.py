"""The one call every face renders a bundle with, and building a bundle from ids.

`render_bundle` turns a `Bundle` (the model: items, levels, dependencies, budget,
format, secret decisions) into the paste-ready text and its exact cl100k count. The
app renders the bundle people edit with it; `build_bundle` (`symscope bundle`, MCP
`build_bundle`) makes a `Bundle` from ids, dependencies and a diff, then renders it
with the same call, so the same items and settings give the same bytes everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from symscope.core import limits
from symscope.core.bundle.model import (
    DEPENDENCY_DETAIL,
    FORMATS,
    REASONS,
    Bundle,
    BundleError,
    BundleItem,
    DependencyOf,
    Format,
    Reason,
    symbol_key,
)
from symscope.core.bundle.pack import BundleResult, pack
from symscope.core.bundle.packer import LEVEL, Detail
from symscope.core.bundle.render import make_entry
from symscope.core.bundle.resolve import ResolvedItem, resolve_item
from symscope.core.errors import StaleSymbolError

if TYPE_CHECKING:
    from symscope.core.index import Index

#: The depth the app's add-with-dependencies key and `--deps` without a number use.
DEPS_DEPTH = 1


def render_bundle(index: Index, bundle: Bundle, *, fmt: Format | None = None,
                  resolved: Sequence[ResolvedItem] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> BundleResult:
    """The bundle's text, exactly as every face copies, saves or prints it, and its exact count.

    Each item is pasted at its level (`bundle.details`, or lower, chosen by the exact
    packer, under `bundle.budget`), secrets redacted unless `bundle.redact` is False
    or their fingerprint is in `bundle.keep`, control characters made visible, and
    the items added as dependencies named after the item list. `tokens` is
    `count_tokens(text)`, and the text's header states that number.

    Args:
        index: The repo's index (items are looked up in it now).
        bundle: The model to render.
        fmt: Another format than `bundle.format` (saving to a `.xml` file).
        resolved: The items already looked up (the app resolves once per edit).
        cancelled: Checked between look-ups; the result is then of the items read so far.

    Raises:
        BudgetError: the budget cannot hold even one item's name line.
        BundleError: an unknown format or detail level.
    """
    chosen = fmt or bundle.format
    if chosen not in FORMATS:
        raise BundleError(f"unknown bundle format {chosen!r}: use markdown or xml")
    if resolved is None:
        out: list[ResolvedItem] = []
        for item in bundle.items:
            if cancelled is not None and cancelled():
                break
            out.append(resolve_item(index, item))
        resolved = out
    entries = [make_entry(index, r, bundle.reason(r.key), bundle.level(r.key)) for r in resolved]
    return pack(entries, chosen, bundle.budget, redact=bundle.redact, keep=bundle.keep,
                dependency_of=bundle.dependency_of)


def lookup_item(index: Index, ref: str) -> BundleItem:
    """A bundle item for a symbol ID, a repo-relative path of an indexed file, or a name of
    one symbol (`Context.BindJSON`, `BindJSON`: `Index.symbol`).

    Raises:
        UnknownSymbolError: none of these (the message names the candidates or nearest ids).
    """
    if "::" not in ref:
        rec = index.file(ref)
        if rec is not None:
            return BundleItem.for_file(rec)
    return BundleItem.for_symbol(index.symbol(ref))


def add_dependencies(index: Index, bundle: Bundle, owner: str, depth: int = DEPS_DEPTH,
                     detail: Detail = DEPENDENCY_DETAIL) -> list[str]:
    """Add what the symbol item `owner` uses (to `depth`), right after it, as its dependencies
    at `detail` (signature by default); the keys added. The app's add-with-dependencies key
    and `--deps` both add them this way.
    """
    i = bundle.index_of(owner)
    if i < 0 or bundle.items[i].type != "symbol":
        return []
    root = index.symbol(bundle.items[i].ref)
    found = [BundleItem.for_symbol(d.symbol) for d in index.deps.closure(root, depth)]
    return bundle.add_after_group(owner, found, DependencyOf(owner, root.qualname), detail)


def build_bundle(
    index: Index,
    items: Sequence[str | tuple[str, Reason]] = (),
    *,
    deps: int = 0,
    budget: int | None = None,
    fmt: Format = "markdown",
    diff_ref: str | None = None,
    redact: bool = True,
    details: Mapping[str, Detail] | None = None,
    keep: Collection[str] = (),
    deps_level: Detail = DEPENDENCY_DETAIL,
) -> BundleResult:
    """Look items up, add dependencies and what changed, and render one paste-ready bundle.

    Order in the bundle: each of `items` as given, followed by its dependencies,
    then (with `diff_ref`) the changed symbols and their callers; an item already
    present keeps its first place and reason.

    Args:
        index: The repo's index.
        items: Symbol IDs or indexed file paths (reason `added`), or (ref, reason) pairs.
        deps: Also add what each added symbol uses, to this depth (reason `dependency`).
        budget: The most tokens the text may have (see `pack`); None: no limit.
        fmt: `markdown` or `xml`.
        diff_ref: Add the symbols changed in the working tree against this git
            revision (`HEAD` for uncommitted work), in full (reason `changed`), and
            their callers at signature level (reason `caller`).
        redact: Replace secrets with markers (the default; False keeps them).
        details: Per ID, the most detail wanted (a level chosen by hand).
        keep: Fingerprints of secrets to leave in (see `Redaction`).
        deps_level: The level dependencies are added at: `signature` (the default) or `full`.

    Raises:
        UnknownSymbolError: an ID is neither a symbol nor an indexed file.
        StaleSymbolError: an item's file changed since indexing.
        BudgetError: see `pack`.
        GitError: with `diff_ref`, git is missing, the repo is not a git work tree,
            or the revision is unknown.
        BundleError: an unknown format or detail level.
        BadArgumentError: `deps` or `budget` out of range (`core.limits`).
    """
    limits.BUNDLE_DEPS.check("deps", deps)
    if budget is not None:
        limits.BUDGET.check("budget", budget)
    if fmt not in FORMATS:
        raise BundleError(f"unknown bundle format {fmt!r}: use markdown or xml")
    if deps_level not in LEVEL:
        raise BundleError(f"unknown detail level {deps_level!r}: use full, signature or name")
    bundle = Bundle(format=fmt, budget=budget, keep=frozenset(keep), redact=redact)
    roots: list[str] = []
    for raw in items:
        ref, reason = (raw, "added") if isinstance(raw, str) else raw
        if reason not in REASONS:
            raise BundleError(f"unknown reason {reason!r}")
        item = lookup_item(index, ref)
        if bundle.add(item, reason=reason) and reason == "added" and item.type == "symbol":
            roots.append(item.key)
    if deps:
        for root in roots:
            add_dependencies(index, bundle, root, deps, deps_level)
    if diff_ref is not None:
        from symscope.core.gitdiff import diff_items  # only diff bundles need git

        for sym, why in diff_items(index, diff_ref):
            bundle.add(BundleItem.for_symbol(sym), reason=why, detail="signature" if why == "caller" else "full")
    for ref, level in (details or {}).items():
        for key in (symbol_key(ref), f"file:{ref}"):
            if key in bundle:
                if level not in LEVEL:
                    raise BundleError(f"unknown detail level {level!r}: use full, signature or name")
                bundle.set_level(key, level)
    resolved = [resolve_item(index, item) for item in bundle.items]
    for r in resolved:
        if not r.usable:
            raise StaleSymbolError(f"{r.item.path} changed since indexing (or vanished); "
                                   "run `symscope index` again")
    return render_bundle(index, bundle, resolved=resolved)

