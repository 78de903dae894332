"""The context bundle: symbols and whole files picked for an LLM, in order, as one text.

One model (`model.Bundle`: items, levels, dependencies, budget, format, secret
decisions), looked up in the index again before use (`resolve`), rendered as
Markdown or XML (`render`) at detail levels chosen by hand or by the exact budget
packer (`packer`, `pack`), by one call for every face (`build.render_bundle`;
`build.build_bundle` makes the model from ids). Token figures are exact cl100k
counts of the text, never estimates. Nothing here imports textual or rich.
"""

from symscope.core.bundle.build import (
    DEPS_DEPTH,
    add_dependencies,
    build_bundle,
    lookup_item,
    render_bundle,
)
from symscope.core.bundle.model import (
    BUNDLE_FILE,
    BUNDLE_VERSION,
    DEPENDENCY_DETAIL,
    FORMAT_SUFFIX,
    FORMATS,
    REASONS,
    SECONDARY_REASONS,
    Bundle,
    BundleError,
    BundleItem,
    DependencyOf,
    Format,
    ItemType,
    Reason,
    file_key,
    next_detail,
    symbol_key,
)
from symscope.core.bundle.pack import BundleResult, PackedItem, Packer, pack
from symscope.core.bundle.packer import DETAILS, BudgetError, Detail
from symscope.core.bundle.render import (
    Entry,
    Redaction,
    Rendered,
    make_entry,
    render,
    render_markdown,
    render_xml,
    signature_outline,
)
from symscope.core.bundle.resolve import (
    ResolvedItem,
    Status,
    bundle_path,
    resolve,
    resolve_item,
    savings,
    symbol_code,
)

__all__ = [
    "BUNDLE_FILE", "BUNDLE_VERSION", "DEPENDENCY_DETAIL", "DEPS_DEPTH", "DETAILS", "FORMATS", "FORMAT_SUFFIX",
    "REASONS", "SECONDARY_REASONS", "BudgetError", "Bundle", "BundleError", "BundleItem", "BundleResult",
    "DependencyOf", "Detail", "Entry", "Format", "ItemType", "PackedItem", "Packer", "Reason", "Redaction",
    "Rendered", "ResolvedItem", "Status", "add_dependencies", "build_bundle", "bundle_path", "file_key",
    "lookup_item", "make_entry", "next_detail", "pack", "render", "render_bundle", "render_markdown",
    "render_xml", "resolve", "resolve_item", "savings", "signature_outline", "symbol_code", "symbol_key",
]
