"""Dump what a cold index stores for a repo, to check that a change to indexing stores the same.

    python -m benchmarks.index_dump REPO OUT.jsonl [--index DIR]

Indexes REPO from scratch (into DIR, by default a temporary folder) and writes one JSON line
per file, symbol (with its decoded term bag and hashes), import, export and skipped file, in a
fixed order, then prints the dump's SHA-256. Two dumps of the same repo taken before and after a
change must be identical (`cmp`); a difference names the row that changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path
from typing import Any

from symscope.core.api import Workspace
from symscope.core.store import Store


def rows(store: Store) -> Iterator[list[Any]]:
    """Every stored row that indexing decides, in a stable order."""
    for record in store.files():
        yield ["file", *astuple(record)]
    for path, has_errors in store.query("SELECT path, has_errors FROM files ORDER BY path"):
        yield ["errors", path, has_errors]
    bags = {r[0]: r[6] for r in store.rank_rows()}
    norms = {r[0]: r[5] for r in store.rank_rows()}
    for sym in store.all_symbols():
        yield ["symbol", *astuple(sym), norms[sym.id], bags[sym.id]]
    for imp in store.imports():
        yield ["import", *astuple(imp)]
    for path, name in store.query("SELECT path, name FROM exports ORDER BY path, name"):
        yield ["export", path, name]
    for skipped in store.skipped():
        yield ["skipped", *astuple(skipped)]


def dump(repo: Path, out: Path, index: Path) -> str:
    """Index `repo` cold into `index`, write the dump to `out`, return its SHA-256."""
    with Workspace.open(str(repo), str(index), ensure=False) as ws:
        ws.refresh(rebuild=True)
        store = ws.index.store
        digest = hashlib.sha256()
        with out.open("w", encoding="utf-8") as f:
            for row in rows(store):
                line = json.dumps(row, ensure_ascii=False) + "\n"
                digest.update(line.encode("utf-8"))
                f.write(line)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--index") or not Path(args[0]).is_dir():
        print("usage: python -m benchmarks.index_dump REPO OUT.jsonl [--index DIR]", file=sys.stderr)
        return 2
    if len(args) == 4:
        print(dump(Path(args[0]), Path(args[1]), Path(args[3])))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        print(dump(Path(args[0]), Path(args[1]), Path(tmp)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
