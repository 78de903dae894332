"""The floor under a cold index: read every source file, parse it, count its tokens, nothing else.

    python -m benchmarks.monorepo_floor REPO

Run with as many processes as the indexer uses (one per core), so "cold index within 2x the
floor" compares like with like. Prints one JSON line: files, bytes, tokens, parse errors.
"""

from __future__ import annotations

import json
import os
import sys
from multiprocessing import Pool
from pathlib import Path

from benchmarks.monorepo_build import SOURCE_SUFFIXES

_LANGUAGES = {".py": "python", ".js": "javascript", ".go": "go"}


def _one(path: str) -> tuple[int, int, int]:
    """(bytes, tokens, 1 if the tree has an error) for one file."""
    from tree_sitter_language_pack import get_parser

    from symscope.core.api import count_tokens

    data = Path(path).read_bytes()
    tree = get_parser(_LANGUAGES[Path(path).suffix]).parse(data)  # type: ignore[arg-type]
    return len(data), count_tokens(data.decode("utf-8", "replace")), int(tree.root_node.has_error)


def measure(root: Path, processes: int | None = None) -> dict[str, int]:
    paths = sorted(str(p) for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
    with Pool(processes or os.cpu_count() or 1) as pool:
        rows = pool.map(_one, paths, chunksize=64)
    return {"files": len(rows), "bytes": sum(r[0] for r in rows), "tokens": sum(r[1] for r in rows),
            "parse_errors": sum(r[2] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m benchmarks.monorepo_floor REPO_DIR", file=sys.stderr)
        return 2
    print(json.dumps(measure(Path(args[0]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
