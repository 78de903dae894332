"""PNG charts of a benchmark run, for results.md and the README (matplotlib, in the `bench` extra).

    python -m benchmarks.charts [RESULTS_JSON] [--out benchmarks/charts]

Two pictures from `results.json`: tokens per study query for symscope, the
study's own AST system, symscope through MCP and naive RAG at each chunk size,
per corpus; and precision@1 on the labelled queries by retrieval method.
Nothing is measured here: the figures are the run's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from benchmarks import STUDY_REFERENCE

HERE = Path(__file__).parent
TOKENS_PNG = "tokens_per_query.png"
PRECISION_PNG = "precision_by_method.png"


def token_series(results: dict[str, Any]) -> tuple[list[str], dict[str, list[float | None]]]:
    """Corpora, and per system the mean tokens per study query on each (None: not measured)."""
    corpora = list(results["repos"])
    series: dict[str, list[float | None]] = {"symscope (CLI)": [], "symscope (MCP)": [],
                                             "study's AST system": []}
    sizes = sorted({size for r in results["repos"].values() for size in r.get("rag", {})}, key=int)
    for size in sizes:
        series[f"RAG-{size}"] = []
    for name in corpora:
        repo = results["repos"][name]
        series["symscope (CLI)"].append(repo["efficiency"]["summary"]["mean_tokens"])
        mcp = repo.get("mcp", {}).get("summary", {}).get("mcp_tokens_per_query")
        series["symscope (MCP)"].append(mcp)
        series["study's AST system"].append(STUDY_REFERENCE.get(name, {}).get("ast"))
        for size in sizes:
            rag = repo.get("rag", {}).get(size)
            totals = [q["total"] for q in rag["queries"]] if rag else []
            series[f"RAG-{size}"].append(sum(totals) / len(totals) if totals else None)
    return corpora, {k: v for k, v in series.items() if any(x is not None for x in v)}


def precision_series(results: dict[str, Any]) -> tuple[list[str], dict[str, list[float]]]:
    """Corpora, and per retrieval method its precision@1 on the labelled queries."""
    corpora = list(results["repos"])
    methods: dict[str, list[float]] = {}
    for name in corpora:
        for method, summary in results["repos"][name]["quality"]["summary"].items():
            methods.setdefault(method, []).append(summary["precision_at_1"])
    return corpora, {m: v for m, v in methods.items() if len(v) == len(corpora)}


def _bars(ax: Any, corpora: list[str], series: dict[str, list[Any]], ylabel: str) -> None:
    width = 0.8 / max(1, len(series))
    for i, (label, values) in enumerate(series.items()):
        xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(corpora))]
        heights = [v if v is not None else 0 for v in values]
        ax.bar(xs, heights, width, label=label)
    ax.set_xticks(range(len(corpora)), corpora)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)


def draw(results: dict[str, Any], out: Path) -> list[Path]:
    """Write the charts into `out`; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    corpora, tokens = token_series(results)
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    _bars(ax, corpora, tokens, "tokens per study query (search + fetch top 3)")
    ax.set_title("Tokens an agent reads per query (lower is better)")
    fig.tight_layout()
    fig.savefig(out / TOKENS_PNG, metadata={"Software": None})
    plt.close(fig)
    written.append(out / TOKENS_PNG)
    corpora, precision = precision_series(results)
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    _bars(ax, corpora, precision, "precision@1 on the labelled queries")
    ax.set_ylim(0, 1)
    ax.set_title("Is the first result the right one? (higher is better)")
    fig.tight_layout()
    fig.savefig(out / PRECISION_PNG, metadata={"Software": None})
    plt.close(fig)
    written.append(out / PRECISION_PNG)
    return written


def main(argv: list[str] | None = None) -> int:
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, default=HERE / "results.json")
    parser.add_argument("--out", type=Path, default=HERE / "charts")
    args = parser.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("charts: matplotlib is missing: pip install -e '.[bench]'", file=sys.stderr)
        return 1
    for path in draw(json.loads(args.results.read_text()), args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
