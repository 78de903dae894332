"""What a change or a question costs on a synthetic monorepo, against the same on gin (issue 29).

    python -m benchmarks.monorepo CORPORA_DIR --files 10000 [--files 50000] --work DIR [--out F]

For each size, in one run: build the monorepo from the pinned corpora (`monorepo_build.py`),
then measure in fresh processes the cold index (wall time, peak RSS of the whole process
tree, workers included), the floor (reading, parsing and counting tokens alone,
`monorepo_floor.py`), the index on disk against the source, a one-file edit made
searchable (index + search, each a fresh process, as a ratio of the cold index), a search
in a fresh process, warm search p50 through the `Workspace` API and through the MCP
server over stdio; gin (indexed in the same run) is the reference for the last three.
Prints a table and writes JSON. Timings are wall-clock on this machine: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import STUDY_QUERIES
from benchmarks.infra import dir_bytes, machine, shown_command
from benchmarks.monorepo_build import build
from benchmarks.proctree import run

CORPORA = ("express", "fastapi", "gin")
#: Rounds of the study's queries for each warm p50 (in-process and MCP).
WARM_ROUNDS = 8
#: Seconds at most to wait for the MCP server's file watcher to be in place before measuring.
MCP_WATCH_WAIT = 120.0
#: The definition appended by the one-file edit, per language, and the query that must find it.
EDIT_QUERY = "zebra probe marker"
_EDIT = {
    ".py": "\n\ndef zebra_probe_marker():\n    return 1\n",
    ".js": "\n\nfunction zebraProbeMarker() { return 1 }\n",
    ".go": "\n\nfunc ZebraProbeMarker() int { return 1 }\n",
}

_INDEX = """
import json, sys
from symscope.core.api import Workspace
with Workspace.open(sys.argv[1], sys.argv[2], ensure=False) as ws:
    r = ws.refresh(rebuild=sys.argv[3] == "cold")
    print(json.dumps({"files": r.files, "symbols": r.symbols, "parsed": r.parsed}))
"""

_WARM = """
import json, sys, time
from symscope.core.api import Workspace
queries, rounds = json.loads(sys.argv[3]), int(sys.argv[4])
with Workspace.open(sys.argv[1], sys.argv[2], ensure=False) as ws:
    for q in queries:
        ws.search(q, limit=5)
    samples = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter(); ws.search(q, limit=5); samples.append(time.perf_counter() - t)
print(json.dumps(samples))
"""


def _py(script: str, *args: str) -> list[str]:
    return [sys.executable, "-c", script, *args]


def _cli_search(repo: Path, index: Path, query: str) -> list[str]:
    return [sys.executable, "-m", "symscope.cli", "search", query, "--repo", str(repo),
            "--index-dir", str(index), "--limit", "5", "--json"]


def _ms(samples: Sequence[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def fresh_search(repo: Path, index: Path) -> dict[str, float]:
    """`symscope search` in a fresh process: median wall over the study's queries, peak RSS."""
    runs = [run(_cli_search(repo, index, q)) for q in STUDY_QUERIES]
    return {"seconds": round(statistics.median(r.seconds for r in runs), 3),
            "rss_mb": round(max(r.tree_mb for r in runs), 1)}


def warm_search(repo: Path, index: Path) -> float:
    """In-process warm search p50 (ms) over the study's queries, through `Workspace.search`."""
    out = run(_py(_WARM, str(repo), str(index), json.dumps(list(STUDY_QUERIES)), str(WARM_ROUNDS)))
    return _ms(json.loads(out.stdout))


def mcp_session(repo: Path, index: Path) -> dict[str, Any]:
    """The MCP server over stdio, driven by the SDK's client: its warm `search_symbols` p50 (ms)
    once its file watcher is in place, and the next answer after an agent edits one file (the
    server re-indexes that file: no walk of the repo), undone after."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.types import TextContent

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "symscope.cli", "mcp", "--repo", str(repo), "--index-dir", str(index)],
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH")},
    )
    samples: list[float] = []
    out: dict[str, Any] = {}
    target = _edit_target(repo)
    original = target.read_bytes()

    def text(result: Any) -> str:
        return "".join(b.text for b in result.content if isinstance(b, TextContent))

    async def go() -> None:
        with open(os.devnull, "w") as err:
            async with Client(stdio_client(params, errlog=err), read_timeout_seconds=600) as client:
                for q in STUDY_QUERIES:  # warm up: the first call may load the index
                    await client.call_tool("search_symbols", {"query": q, "limit": 5})
                deadline = time.monotonic() + MCP_WATCH_WAIT
                while time.monotonic() < deadline:  # measure the watched server, not its start
                    status = text(await client.call_tool("index_status", {}))
                    if "live updates: file events" in status or "live updates: polling" in status:
                        break
                    await anyio.sleep(0.2)
                out["watching"] = next((line.split(": ", 1)[1] for line in status.splitlines()
                                        if line.startswith("live updates: ")), "unknown")
                for _ in range(WARM_ROUNDS):
                    for q in STUDY_QUERIES:
                        t = time.perf_counter()
                        result = await client.call_tool("search_symbols", {"query": q, "limit": 5})
                        samples.append(time.perf_counter() - t)
                        if result.is_error:
                            raise RuntimeError(f"search_symbols failed on {q!r}")
                try:
                    target.write_bytes(original + _EDIT[target.suffix].encode())
                    t = time.perf_counter()
                    found = text(await client.call_tool("search_symbols", {"query": EDIT_QUERY, "limit": 5}))
                    out["edit_ms"] = round((time.perf_counter() - t) * 1000, 1)
                    out["edit_found"] = "zebraprobemarker" in found.lower().replace("_", "")
                finally:
                    target.write_bytes(original)
                await client.call_tool("search_symbols", {"query": EDIT_QUERY, "limit": 5})  # undone

    anyio.run(go)
    out["p50_ms"] = _ms(samples)
    return out


#: What the one-file edit's two fresh processes pay before any repository work: Python, the
#: engine's imports for indexing and the tokenizer's load; the CLI and the ranker's imports.
_START_INDEX = ("from symscope.core import api, ingest, walk, tokens\n"
                "tokens.encoding()\n")
_START_SEARCH = "import symscope.cli.main, symscope.core.search.searcher\n"


def start_up_floor(rounds: int = 5) -> float:
    """Seconds the one-file edit's two fresh processes take to start, doing no repository work
    (median of `rounds` each): the part of the edit that no index layout can remove."""
    index = statistics.median(run(_py(_START_INDEX)).seconds for _ in range(rounds))
    search = statistics.median(run(_py(_START_SEARCH)).seconds for _ in range(rounds))
    return round(index + search, 3)


def _edit_target(repo: Path) -> Path:
    """The file the one-file edits append to: the first Python file of the first copy (or of gin)."""
    first = repo / "c000" if (repo / "c000").is_dir() else repo
    files = sorted(p for p in first.rglob("*") if p.suffix in _EDIT and p.is_file())
    return next((p for p in files if p.suffix == ".py"), files[0])


def one_file_edit(repo: Path, index: Path) -> dict[str, Any]:
    """Append a definition to one file, then index and search in fresh processes; undone after."""
    target = _edit_target(repo)
    original = target.read_bytes()
    try:
        target.write_bytes(original + _EDIT[target.suffix].encode())
        reindex = run(_py(_INDEX, str(repo), str(index), "warm"))
        search = run(_cli_search(repo, index, EDIT_QUERY))
        found = "zebra_probe_marker" in search.stdout
    finally:
        target.write_bytes(original)
        run(_py(_INDEX, str(repo), str(index), "warm"))
    return {"file": target.relative_to(repo).as_posix(), "index_s": round(reindex.seconds, 2),
            "index_cpu_s": reindex.cpu_s,
            "search_s": round(search.seconds, 2), "seconds": round(reindex.seconds + search.seconds, 2),
            "rss_mb": round(max(reindex.tree_mb, search.tree_mb), 1), "found": found,
            "parsed": json.loads(reindex.stdout)["parsed"]}


def measure_size(corpora: list[Path], files: int, work: Path, gin: dict[str, Any]) -> dict[str, Any]:
    """Every figure for one monorepo size (gin's figures are the reference)."""
    t = time.perf_counter()
    mono = build(corpora, work / f"mono-{files}", files)
    built_s = time.perf_counter() - t
    index = work / f"idx-{files}"
    shutil.rmtree(index, ignore_errors=True)  # cold means cold: an old run's file would keep its size
    floor = run([sys.executable, "-m", "benchmarks.monorepo_floor", str(mono.root)])
    cold = run(_py(_INDEX, str(mono.root), str(index), "cold"))
    report = json.loads(cold.stdout)
    disk = dir_bytes(index)
    fresh = fresh_search(mono.root, index)
    warm = warm_search(mono.root, index)
    mcp = mcp_session(mono.root, index)
    edit = one_file_edit(mono.root, index)
    return {
        "files": mono.files, "copies": mono.copies, "source_mb": round(mono.source_bytes / 2**20, 1),
        "digest": mono.digest, "build_s": round(built_s, 1), "symbols": report["symbols"],
        "indexed_files": report["files"],
        "cold_index_s": round(cold.seconds, 1), "cold_index_tree_rss_mb": round(cold.tree_mb, 1),
        "floor_s": round(floor.seconds, 1), "floor_rss_mb": round(floor.tree_mb, 1),
        "cold_over_floor": round(cold.seconds / floor.seconds, 2),
        "cold_index_cpu_s": cold.cpu_s, "floor_cpu_s": floor.cpu_s,
        "cold_over_floor_cpu": round(cold.cpu_s / floor.cpu_s, 2) if floor.cpu_s else None,
        "index_mb": round(disk / 2**20, 1), "index_over_source": round(disk / mono.source_bytes, 2),
        "rss_kb_per_symbol": round(cold.tree_mb * 1024 / max(report["symbols"], 1), 2),
        "edit": edit, "edit_over_cold": round(edit["seconds"] / cold.seconds, 3),
        "start_up_over_cold": round(gin["start_up_s"] / cold.seconds, 3),
        "fresh_search": fresh, "fresh_over_gin": round(fresh["seconds"] / gin["fresh_search"]["seconds"], 2),
        "warm_p50_ms": warm, "mcp_warm_p50_ms": mcp["p50_ms"],
        "mcp_over_gin": round(mcp["p50_ms"] / gin["mcp_warm_p50_ms"], 2), "mcp_edit": mcp,
    }


def measure_gin(gin_repo: Path, work: Path) -> dict[str, Any]:
    index = work / "idx-gin"
    shutil.rmtree(index, ignore_errors=True)
    cold = run(_py(_INDEX, str(gin_repo), str(index), "cold"))
    mcp = mcp_session(gin_repo, index)
    return {"cold_index_s": round(cold.seconds, 2), "fresh_search": fresh_search(gin_repo, index),
            "warm_p50_ms": warm_search(gin_repo, index), "mcp_warm_p50_ms": mcp["p50_ms"],
            "mcp_edit": mcp, "symbols": json.loads(cold.stdout)["symbols"], "start_up_s": start_up_floor()}


#: Rows of the printed table: label, JSON key path, and the issue's target where it has one.
ROWS: tuple[tuple[str, str, str], ...] = (
    ("source (MB) / symbols", "source_mb|symbols", ""),
    ("cold index (s)", "cold_index_s", ""),
    ("floor: read+parse+count (s)", "floor_s", ""),
    ("cold / floor", "cold_over_floor", "<= 2"),
    ("cold / floor, CPU seconds of each tree", "cold_over_floor_cpu", ""),
    ("cold index tree peak RSS (MB)", "cold_index_tree_rss_mb", "< 400"),
    ("index on disk (MB)", "index_mb", ""),
    ("index / source", "index_over_source", "<= 1"),
    ("1-file edit: index+search (s)", "edit.seconds", "< 1 s at 50k"),
    ("1-file edit / cold", "edit_over_cold", "<= 0.03"),
    ("  of which the two processes' start-up (s, measured once)", "start_up_s", ""),
    ("  start-up alone / cold", "start_up_over_cold", ""),
    ("fresh-process search (s)", "fresh_search.seconds", ""),
    ("fresh search / gin", "fresh_over_gin", "<= 2"),
    ("fresh search RSS (MB)", "fresh_search.rss_mb", ""),
    ("warm search p50 (ms)", "warm_p50_ms", "<= 5"),
    ("MCP warm search p50 (ms)", "mcp_warm_p50_ms", ""),
    ("MCP warm / gin", "mcp_over_gin", "<= 3"),
    ("MCP: answer right after a 1-file edit (ms)", "mcp_edit.edit_ms", ""),
)


def _get(row: dict[str, Any], path: str) -> str:
    parts = []
    for alternative in path.split("|"):
        value: Any = row
        for key in alternative.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        parts.append("-" if value is None else f"{value:,}" if isinstance(value, int) else str(value))
    return " / ".join(parts)


def table(result: dict[str, Any]) -> str:
    """A Markdown table: one column per size, then gin's own figure and the target."""
    sizes = result["sizes"]
    gin = result["gin"]
    head = "| | " + " | ".join(f"{s['files']:,} files" for s in sizes) + " | gin | target |"
    lines = [head, "|---" * (len(sizes) + 3) + "|"]
    for label, path, target in ROWS:
        cells = [_get(s, path) for s in sizes]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {_get(gin, path)} | {target} |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.monorepo", description=__doc__.split("\n")[0])
    p.add_argument("corpora", type=Path, help="folder holding express/, fastapi/ and gin/")
    p.add_argument("--files", type=int, action="append", help="monorepo size (repeatable; default 10000)")
    p.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "symscope-monorepo",
                   help="where the monorepos and their indexes go (reused when unchanged)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/monorepo_results.json"))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    corpora = [args.corpora / name for name in CORPORA]
    missing = [str(c) for c in corpora if not c.is_dir()]
    if missing:
        print(f"benchmarks.monorepo: no corpus at {', '.join(missing)}", file=sys.stderr)
        return 2
    sizes = args.files or [10000]
    if any(n < 1 for n in sizes):
        print("benchmarks.monorepo: --files must be at least 1", file=sys.stderr)
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    gin = measure_gin(args.corpora / "gin", args.work)
    command = shown_command("python -m benchmarks.monorepo", list(argv if argv is not None else sys.argv[1:]),
                            {"CORPORA_DIR": args.corpora, "WORK_DIR": args.work})
    result: dict[str, Any] = {"machine": machine(), "command": command, "gin": gin, "sizes": []}
    for files in sizes:
        print(f"measuring {files:,} files ...", file=sys.stderr, flush=True)
        result["sizes"].append(measure_size(corpora, files, args.work, gin))
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
