"""Cost of hostile input (issue 27, point 4): long identifier-like runs and many ignore rules.

    python -m benchmarks.hostile_cost [--quick]

Builds synthetic repositories in a temporary folder and prints:

* the time to index one file holding a 10k/40k/100k-letter literal (lowercase, and hex)
  next to the same bytes written as words: the ratio should be about 1;
* the time to walk a tree of a few thousand files, and to re-index it with nothing
  changed, under a root .gitignore of 0, 2,000 and 10,000 rules (realistic rules, and
  `**/` rules): it should not grow with the number of rules.

Timings are wall-clock on this machine: compare the figures of one run.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from symscope.core.index import Index
from symscope.core.walk import walk

RUN_SIZES = (10_000, 40_000, 100_000)
RULE_COUNTS = (0, 2_000, 10_000)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
HEX = "0123456789abcdef"
#: Enough short lines that the file is not taken for minified (average line under 400 bytes).
PADDING = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n" for i in range(400))


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _run(alphabet: str, size: int, rng: random.Random) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _words(alphabet: str, size: int, rng: random.Random) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        word = _run(alphabet, rng.randint(3, 9), rng)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)[:size]


def _index_seconds(folder: Path, literal: str) -> float:
    """Seconds to index (from scratch, in this process) a repo of one file holding `literal`."""
    repo = folder / "repo"
    repo.mkdir(parents=True)
    source = f'def uses():\n    return consume("{literal}")\n\nBLOB = "{literal}"\n\n' + PADDING
    (repo / "blob.py").write_text(source)
    with Index.open(repo, folder / "index") as index:
        start = time.perf_counter()
        report = index.update(processes=1)
        seconds = time.perf_counter() - start
    assert report.parsed == 1, report.skipped  # indexed, not skipped as minified
    return seconds


def long_runs(sizes: tuple[int, ...] = RUN_SIZES) -> None:
    """Index time of a long literal next to the same bytes as words."""
    print("index one file with a long literal (seconds; ratio run/words should be about 1)")
    print(f"  {'letters':>8}  {'alphabet':>8}  {'run':>8}  {'words':>8}  {'ratio':>6}")
    rng = random.Random(27)
    with tempfile.TemporaryDirectory() as tmp:
        _index_seconds(Path(tmp) / "warm", "warm")  # imports, tokenizer and grammar loads
        for size in sizes:
            for name, alphabet in (("letters", LETTERS), ("hex", HEX)):
                run = _index_seconds(Path(tmp) / f"run-{name}-{size}", _run(alphabet, size, rng))
                words = _index_seconds(Path(tmp) / f"words-{name}-{size}", _words(alphabet, size, rng))
                print(f"  {size:>8,}  {name:>8}  {run:>8.3f}  {words:>8.3f}  {run / words:>6.2f}")


def realistic_rules(count: int) -> list[str]:
    """Rules like those of a large generated .gitignore: paths, extensions, folders, negations."""
    rules = ["*.pyc", "__pycache__/", "pkg3/", "!pkg3/keep/", "*.log", "/dist", "docs/_build/"]
    shapes = ("/src/gen{i}/", "*.tmp{i}", "docs/build{i}/**", "!keep{i}.py", "cache{i}", "src/**/out{i}.py",
              "[Bb]uild{i}/", "/out/{i}/*.json")
    for i in range(max(0, count - len(rules))):
        rules.append(shapes[i % len(shapes)].format(i=i))
    return rules[:count]


def starstar_rules(count: int) -> list[str]:
    """`**/` rules, as a tool that lists every generated file or folder by name writes them."""
    return [f"**/generated_{i}" if i % 2 else f"**/build_{i}/" for i in range(count)]


def make_tree(root: Path, folders: int = 30, subfolders: int = 10, files: int = 10) -> int:
    """`folders` x `subfolders` folders of `files` small Python files; returns the file count."""
    total = 0
    for i in range(folders):
        for j in range(subfolders):
            folder = root / "src" / f"pkg{i}" / f"mod{j}"
            folder.mkdir(parents=True)
            for k in range(files):
                (folder / f"file{k}.py").write_text(f"def f{k}():\n    return {k}\n")
                total += 1
    return total


def many_rules(repeat: int = 3) -> None:
    """Walk and no-change re-index time under many ignore rules.

    `first walk` and `re-index` start with no rules kept from an earlier walk, as a fresh
    `symscope index` does; `next walk` is a later walk in the same process, as the MCP
    server's before each call."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        files = make_tree(root)
        print(f"\nwalk and no-change re-index of {files:,} files under a root .gitignore (seconds)")
        print(f"  {'rules':>7}  {'kind':>10}  {'first walk':>10}  {'next walk':>9}  {'re-index':>8}")
        for kind, make in (("realistic", realistic_rules), ("**/", starstar_rules)):
            for count in RULE_COUNTS:
                (root / ".gitignore").write_text("\n".join(make(count)) + "\n")
                first_s = _best(lambda: (_forget_rules(), walk(root)), repeat)
                next_s = _best(lambda: walk(root), repeat)
                with Index.open(root, Path(tmp) / f"index-{kind}-{count}") as index:
                    index.update(processes=1)
                    reindex_s = _best(lambda index=index: (_forget_rules(), index.update(processes=1)), repeat)  # type: ignore[misc]
                print(f"  {count:>7,}  {kind:>10}  {first_s:>10.3f}  {next_s:>9.3f}  {reindex_s:>8.3f}")


def _forget_rules() -> None:
    """Drop the .gitignore rules kept from earlier walks (absent before issue 27)."""
    try:
        from symscope.core.ignore import rules_of
    except ImportError:
        return
    rules_of.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the two smaller literal sizes")
    args = parser.parse_args(argv)
    long_runs(RUN_SIZES[:2] if args.quick else RUN_SIZES)
    many_rules()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
