"""The study's workflow through the MCP server, counting exactly what the model receives.

    python -m benchmarks.mcp_workflow CORPORA_DIR [--repos express,fastapi,gin] [--cache-dir DIR] [--json FILE]

Per study query: `search_symbols` with 5 hits, then `get_symbols` for the top 3,
through the real server and the SDK's own client (in memory). The tools return
text only, so the tokens counted are those of each result's text; the counts in
each result's `_meta` are checked against them. Beside them: the CLI workflow
(`search --json` then `show --json` x3, `benchmarks.payload`) and the study's
AST figures. The server ranks with the CLI's function, and every query checks
it listed the CLI's ids in the CLI's order; precision@1 over the labelled
queries (`queries.json`) is computed from the ids in the server's text.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import CallToolResult, TextContent

from benchmarks import FETCH_TOP, SEARCH_LIMIT, STUDY_QUERIES, STUDY_REFERENCE
from benchmarks.metrics import LineSpan, score_results
from benchmarks.payload import symbol_workflow, symscope_search
from benchmarks.quality import (
    QualityQuery,
    QueryFileError,
    load_queries,
    queries_for,
    resolve_targets,
    spans_of,
)
from symscope.core.api import Workspace, count_tokens
from symscope.mcp_server.server import build_server

DEFAULT_REPOS = ("express", "fastapi", "gin")
#: A search hit's first line: `N. <id> L<a>[-<b>], <t> tokens`.
_HIT = re.compile(r"^\d+\. (.+) L\d+(?:-\d+)?, \d+ tokens")


@dataclass(frozen=True, slots=True)
class McpCost:
    """One search-then-fetch round trip through the server, and the CLI's for the same query."""

    query: str
    search_tokens: int
    fetch_tokens: int
    cli_search_tokens: int
    cli_total: int
    ids: tuple[str, ...]
    same_ranking: bool
    meta_exact: bool
    seconds: float

    @property
    def total(self) -> int:
        return self.search_tokens + self.fetch_tokens


def result_text(result: CallToolResult) -> str:
    """Everything the model receives from a result: its text blocks (no structured content)."""
    if result.structured_content is not None:
        raise AssertionError("a tool returned structured content")
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def hit_ids(text: str) -> list[str]:
    """The ids a `search_symbols` text lists, in order."""
    return [m.group(1) for line in text.splitlines() if (m := _HIT.match(line))]


def _meta_exact(result: CallToolResult, text: str) -> bool:
    return bool(result.meta) and result.meta.get("symscope/tokens") == count_tokens(text)


async def _call(client: Client, tool: str, args: dict[str, Any]) -> tuple[CallToolResult, str]:
    result = await client.call_tool(tool, args)
    text = result_text(result)
    if result.is_error:
        raise RuntimeError(f"{tool} {args} failed: {text}")
    return result, text


async def workflow(client: Client, index: Workspace, query: str) -> McpCost:
    """The study's round trip for one query, through `client`."""
    t0 = time.perf_counter()
    found, search = await _call(client, "search_symbols", {"query": query, "limit": SEARCH_LIMIT})
    ids = hit_ids(search)
    fetch_tokens = 0
    exact = _meta_exact(found, search)
    if ids:
        fetched, text = await _call(client, "get_symbols", {"ids": ids[:FETCH_TOP]})
        fetch_tokens = count_tokens(text)
        exact = exact and _meta_exact(fetched, text)
    seconds = time.perf_counter() - t0
    cli_hits = symscope_search(index, query, SEARCH_LIMIT)
    cli = symbol_workflow(index, query, cli_hits)
    return McpCost(
        query=query,
        search_tokens=count_tokens(search),
        fetch_tokens=fetch_tokens,
        cli_search_tokens=cli.search_tokens,
        cli_total=cli.total,
        ids=tuple(ids),
        same_ranking=ids == [h.symbol.id for h in cli_hits],
        meta_exact=exact,
        seconds=seconds,
    )


def _precision_at_1(ids: Sequence[str], index: Workspace, targets: Sequence[LineSpan]) -> float:
    spans = []
    for symbol_id in ids:
        s = index.symbol(symbol_id)
        spans.append(LineSpan(s.path, s.start_line, s.end_line))
    return score_results(spans, targets).precision_at_1


async def _measure(index: Workspace, quality: Sequence[QualityQuery]) -> dict[str, Any]:
    async with Client(build_server(index)) as client:
        listed = await client.list_tools()
        schema_tokens = count_tokens(listed.model_dump_json(by_alias=True, exclude_none=True))
        costs = [await workflow(client, index, q) for q in STUDY_QUERIES]
        p1_mcp: list[float] = []
        p1_cli: list[float] = []
        same = 0
        for qq in quality:
            targets = spans_of(resolve_targets(index, qq))
            _, text = await _call(client, "search_symbols", {"query": qq.query, "limit": SEARCH_LIMIT})
            ids = hit_ids(text)
            cli_ids = [h.symbol.id for h in symscope_search(index, qq.query, SEARCH_LIMIT)]
            same += ids == cli_ids
            p1_mcp.append(_precision_at_1(ids, index, targets))
            p1_cli.append(_precision_at_1(cli_ids, index, targets))
    n = len(costs)
    return {
        "schema_tokens": schema_tokens,
        "queries": [{**asdict(c), "total": c.total} for c in costs],
        "summary": {
            "mcp_tokens_per_query": round(sum(c.total for c in costs) / n, 1),
            "mcp_search_tokens_per_query": round(sum(c.search_tokens for c in costs) / n, 1),
            "mcp_fetch_tokens_per_query": round(sum(c.fetch_tokens for c in costs) / n, 1),
            "cli_tokens_per_query": round(sum(c.cli_total for c in costs) / n, 1),
            "search_vs_cli": round(sum(c.search_tokens for c in costs)
                                   / max(1, sum(c.cli_search_tokens for c in costs)), 3),
            "same_ranking": all(c.same_ranking for c in costs) and same == len(quality),
            "meta_exact": all(c.meta_exact for c in costs),
            "round_trip_ms_median": round(statistics.median(c.seconds for c in costs) * 1000, 1),
            "labelled_queries": len(quality),
            "precision_at_1_mcp": round(statistics.fmean(p1_mcp), 3) if p1_mcp else None,
            "precision_at_1_cli": round(statistics.fmean(p1_cli), 3) if p1_cli else None,
        },
    }


def measure(index: Workspace, quality: Sequence[QualityQuery] = ()) -> dict[str, Any]:
    """The MCP workflow's figures on one indexed corpus (the hook `benchmarks.run` can call)."""
    result: dict[str, Any] = anyio.run(_measure, index, quality)
    return result


def render_table(results: dict[str, dict[str, Any]]) -> str:
    """The Markdown table: MCP tokens per query beside the CLI workflow and the study's AST system."""
    rows = [
        "| corpus | MCP tokens/query | search | fetch | CLI workflow | study's AST | MCP ≤ study | "
        "MCP search ÷ CLI search | p@1 MCP | p@1 CLI | same ranking | round trip ms |",
        "|---|---:|---:|---:|---:|---:|:---:|---:|---:|---:|:---:|---:|",
    ]
    for name, r in results.items():
        s = r["summary"]
        study = STUDY_REFERENCE.get(name, {}).get("ast")
        p1 = (f"{s['precision_at_1_mcp']:.2f}", f"{s['precision_at_1_cli']:.2f}") \
            if s["precision_at_1_mcp"] is not None else ("-", "-")
        rows.append(
            f"| {name} | {s['mcp_tokens_per_query']:,.0f} | {s['mcp_search_tokens_per_query']:,.0f} | "
            f"{s['mcp_fetch_tokens_per_query']:,.0f} | {s['cli_tokens_per_query']:,.0f} | "
            f"{f'{study:,}' if study else '-'} | "
            f"{('yes' if s['mcp_tokens_per_query'] <= study else 'NO') if study else '-'} | "
            f"{s['search_vs_cli']:.0%} | {p1[0]} | {p1[1]} | {'yes' if s['same_ranking'] else 'NO'} | "
            f"{s['round_trip_ms_median']} |"
        )
    schema = {r["schema_tokens"] for r in results.values()}
    rows.append("")
    rows.append(f"All tool schemas (`tools/list`): {', '.join(map(str, sorted(schema)))} cl100k tokens "
                "(ceiling 1,500).")
    return "\n".join(rows) + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mcp_workflow",
                                description="The study's workflow through `symscope mcp`.")
    p.add_argument("corpora", metavar="CORPORA_DIR", help="folder holding one folder per corpus")
    p.add_argument("--repos", default=",".join(DEFAULT_REPOS), metavar="A,B")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="indexes cache (default: the one `python -m benchmarks` uses)")
    p.add_argument("--queries", metavar="FILE", default=None,
                   help="labelled queries for precision@1 (default: benchmarks/queries.json)")
    p.add_argument("--json", metavar="FILE", default=None, help="also write the figures as JSON")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from platformdirs import user_cache_dir

    from benchmarks.quality import QUERIES_FILE
    from benchmarks.run import index_dir_for

    args = build_parser().parse_args(argv)
    corpora = Path(args.corpora).expanduser()
    names = [n.strip() for n in args.repos.split(",") if n.strip()]
    missing = [n for n in names if not (corpora / n).is_dir()]
    if not names or missing:
        print(f"mcp_workflow: no corpus folder {', '.join(str(corpora / n) for n in missing) or '(none)'}",
              file=sys.stderr)
        return 2
    try:
        queries = load_queries(Path(args.queries) if args.queries else QUERIES_FILE)
    except QueryFileError as exc:
        print(f"mcp_workflow: {exc}", file=sys.stderr)
        return 2
    cache_dir = Path(args.cache_dir).expanduser() if args.cache_dir else Path(
        user_cache_dir("symscope-bench", appauthor=False))
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        root = corpora / name
        with Workspace.open(root, index_dir_for(cache_dir, root), ensure=False) as index:
            report = index.refresh()
            print(f"[{name}] index ready ({report.parsed} parsed, {report.unchanged} unchanged)",
                  file=sys.stderr, flush=True)
            results[name] = measure(index, queries_for(queries, name))
    print(render_table(results), end="")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
