"""The symscope workflow as an agent sees it: `search --json --limit 5`, then `show --json` x3.

The texts come from `symscope.core.api`, the same functions and encoding the CLI
prints with, so they are byte-identical to what the commands print
(`verify_against_cli` checks); nothing here builds a JSON shape by hand.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks import FETCH_TOP, SEARCH_LIMIT
from symscope.cli import main as cli
from symscope.core import api
from symscope.core.api import SymbolSource, Workspace, count_tokens
from symscope.core.models import SearchHit, Symbol


def search_text(query: str, hits: Sequence[SearchHit]) -> str:
    """`symscope search QUERY --json` output for these hits (folded copies listed in `also`)."""
    return api.emit(api.search_json(query, hits))


def show_text(sym: Symbol, source: str) -> str:
    """`symscope show ID --json` output."""
    return api.emit(api.show_json(SymbolSource(sym, source)))


@dataclass(frozen=True, slots=True)
class WorkflowCost:
    """Tokens of one search-then-fetch round trip."""

    query: str
    search_tokens: int
    fetch_tokens: int
    results: tuple[Symbol, ...]
    fetched: tuple[Symbol, ...]

    @property
    def total(self) -> int:
        return self.search_tokens + self.fetch_tokens

    @property
    def ok(self) -> bool:
        return bool(self.results)


def symbol_workflow(
    index: Workspace,
    query: str,
    results: Sequence[SearchHit],
    fetch_top: int = FETCH_TOP,
) -> WorkflowCost:
    """Cost of showing these results as search JSON and then fetching the top `fetch_top`."""
    fetched = [h.symbol for h in results[:fetch_top]]
    fetch_tokens = sum(count_tokens(show_text(s, index.source(s))) for s in fetched)
    return WorkflowCost(
        query=query,
        search_tokens=count_tokens(search_text(query, results)),
        fetch_tokens=fetch_tokens,
        results=tuple(h.symbol for h in results),
        fetched=tuple(fetched),
    )


def symscope_search(index: Workspace, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
    """symscope's own ranking, exactly as `symscope search` runs it (filters in the text work)."""
    return Workspace.of(index).search(query, limit)


def run_cli(argv: list[str]) -> str:
    """Run the real CLI in-process and return what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    if code != 0:
        raise RuntimeError(f"symscope {' '.join(argv)} exited {code}")
    return out.getvalue()


def verify_against_cli(index: Workspace, query: str, limit: int = SEARCH_LIMIT) -> int:
    """Check the search and show texts match the CLI byte for byte; returns texts checked.

    Raises:
        AssertionError: a text differs from what the CLI printed.
    """
    common = ["--repo", str(index.root), "--index-dir", str(index.index_dir), "--json"]
    results = symscope_search(index, query, limit)
    printed = run_cli(["search", query, "--limit", str(limit), *common])
    if printed != search_text(query, results):
        raise AssertionError(f"search text for {query!r} differs from the CLI output")
    checked = 1
    for hit in results[:FETCH_TOP]:
        sym = hit.symbol
        shown = run_cli(["show", sym.id, *common])
        if shown != show_text(sym, index.source(sym)):
            raise AssertionError(f"show text for {sym.id} differs from the CLI output")
        checked += 1
    return checked
