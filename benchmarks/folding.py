"""What search folds on a repository (issue 28, point 6): copies only, or unrelated code too.

For each of the repository's most repeated definition names (the queries where folding
matters) it searches as an agent would (`search --json --limit 5`) and counts the hits,
the copies folded into them, the folded copies that are *not* copies (another file,
another text: what a same-name fold used to hide), the longest `also`, and the JSON's
cl100k tokens. Runs against whatever `symscope.core` is importable, so the figures of an
older checkout come from the same script (`PYTHONPATH=<old tree> python -m benchmarks.folding`).

    python -m benchmarks.folding REPO [REPO ...] [--names 30] [--limit 5]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

from symscope.core import api
from symscope.core.api import count_tokens
from symscope.core.index import Index


@dataclass(frozen=True, slots=True)
class FoldFigures:
    """One repository's figures over its repeated names."""

    repo: str
    queries: int
    hits: int
    folded_hits: int
    copies: int
    unlike: int
    """Folded copies in another file than their head, with another normalised text."""
    longest_also: int
    json_tokens: int


def repeated_names(index: Index, count: int) -> list[str]:
    """The `count` names defined most often in different files (`parse`, `main`, `render`)."""
    rows = index.store.query("SELECT name, COUNT(DISTINCT path) FROM symbols GROUP BY name "
                             "HAVING COUNT(DISTINCT path) > 1 ORDER BY 2 DESC, 1 LIMIT ?", (count,))
    return [str(name) for name, _ in rows if str(name).strip()]


def measure(root: Path, names: int, limit: int, index_dir: Path) -> FoldFigures:
    """Index `root` into `index_dir` and search its repeated names."""
    index = Index.open(root, index_dir=index_dir)
    try:
        index.update(processes=1)
        queries = repeated_names(index, names)
        norm = dict(index.store.query("SELECT id, norm_hash FROM symbols"))
        hits = folded = copies = unlike = longest = tokens = 0
        for query in queries:
            found = index.search(query, limit=limit)
            tokens += count_tokens(api.emit(api.search_json(query, found)))
            for hit in found:
                hits += 1
                longest = max(longest, len(api.hit_json(hit).get("also", [])))
                if hit.duplicates:
                    folded += 1
                copies += len(hit.duplicates)
                unlike += sum(1 for d in hit.duplicates
                              if d.split("::")[0] != hit.symbol.path and norm.get(d) != norm.get(hit.symbol.id))
        return FoldFigures(root.name, len(queries), hits, folded, copies, unlike, longest, tokens)
    finally:
        index.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--names", type=int, default=30, help="repeated names to search (default 30)")
    parser.add_argument("--limit", type=int, default=5, help="hits per search (default 5, as agents ask)")
    args = parser.parse_args()
    print("repo                 queries  hits  folded  copies  unlike  max-also  json-tok")
    with tempfile.TemporaryDirectory() as tmp:
        for n, repo in enumerate(args.repos):
            f = measure(repo.resolve(), args.names, args.limit, Path(tmp) / str(n))
            print(f"{f.repo:<20} {f.queries:>7} {f.hits:>5} {f.folded_hits:>7} {f.copies:>7} {f.unlike:>7} "
                  f"{f.longest_also:>9} {f.json_tokens:>9}")


if __name__ == "__main__":
    main()
