"""Auto-labelled pairs (issue 30): `python -m benchmarks.autolabel CORPORA_DIR [--work-dir WORK_DIR]`.

CodeSearchNet style: for each repository of `autolabel_repos.json` (33 repositories in 9
languages, split by repository into training and validation), the first sentence of a
definition's docstring is a query and the definition its target. Up to `PER_REPO` pairs are
sampled per repository (seeded); then a copy of the repository is made in which every sampled
target's docstring is blanked (spaces, line numbers kept), the copy is indexed once, and all of
that repository's queries run on it: the words a query was taken from are not in the index.

The pairs, with the byte ranges blanked, are cached in `WORK_DIR/pairs.json` (a re-run with the
same repositories and generator version reuses them without indexing the originals). Scores are
P@1, R@5 and MRR per split, per split and size stratum (`train:large`: a repository whose blanked
copy indexes `LARGE_FILES` files or more; `small` the rest) and per language. `score_pairs` takes any `search(query) -> hits`
callable, so a re-ranker is measured by passing its own.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.autolabel_pairs import Span, blank, doc_spans, drop_reason, find_doc, query_of
from benchmarks.heldout import summary
from benchmarks.infra import shown_command
from benchmarks.metrics import MRR_CUTOFF, QueryScore, score_query
from symscope.core.api import Workspace, parse_query
from symscope.core.errors import SymscopeError
from symscope.core.models import SearchHit, Symbol

REPOS_FILE = Path(__file__).with_name("autolabel_repos.json")
#: Pairs sampled per repository, at most.
PER_REPO = 150
SEED = 30
#: Bumped when the filter or the blanking changes: cached pairs of another version are rebuilt.
GENERATOR_VERSION = 2
SPLITS = ("train", "validation")
#: A repository of this many indexed files or more is in the `large` stratum (the 27 first
#: repositories hold 50 to 945 files; sympy, the hand-written large set's, 1,600+).
LARGE_FILES = 1000

Search = Callable[[str], Sequence[SearchHit]]


def stratum(ws: Workspace) -> str:
    """`large` or `small`, by the files the repository's index holds (`LARGE_FILES`)."""
    return "large" if len(ws.files()) >= LARGE_FILES else "small"


def load_repos(path: Path = REPOS_FILE) -> dict[str, dict[str, Any]]:
    """The pinned repositories, each with repo, commit, language and split."""
    repos: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["repos"]
    for name, r in repos.items():
        if r.get("split") not in SPLITS or not r.get("commit") or not r.get("language"):
            raise ValueError(f"malformed repository entry: {name}")
    return repos


# -- generation ------------------------------------------------------------------------------


def candidates(symbols: Iterable[Symbol], drops: Counter[str]) -> list[tuple[Symbol, str]]:
    """The definitions whose docstring makes a query, with that query; `drops` counts the rest
    by reason. A sentence two definitions share (overloads, an interface and its implementation)
    names neither: both are dropped."""
    kept: list[tuple[Symbol, str]] = []
    for sym in symbols:
        reason = drop_reason(sym.path, sym.kind, sym.name, sym.docstring)
        if reason is None:
            query = query_of(sym.name, sym.docstring)
            parsed = parse_query(query)
            if parsed.errors or parsed.words.strip() != query.strip():
                reason = "reads as a filter"
            else:
                kept.append((sym, query))
                continue
        if reason not in ("kind", "no doc"):
            drops[reason] += 1  # of the documented definitions of a target kind
    counts = Counter(q.lower() for _, q in kept)
    shared = [(s, q) for s, q in kept if counts[q.lower()] > 1]
    drops["shared sentence"] += len(shared)
    return [(s, q) for s, q in kept if counts[q.lower()] == 1]


def make_pairs(corpus: Path, index_dir: Path, name: str, drops: Counter[str]) -> list[dict[str, Any]]:
    """Index the original repository and sample its pairs, each with the byte ranges that hide
    its docstring."""
    with Workspace.open(corpus, index_dir, ensure=False) as ws:
        ws.refresh()
        found = candidates(ws.all_symbols(), drops)
        rng = random.Random(f"{SEED}:{name}")
        found.sort(key=lambda c: c[0].id)
        sample = rng.sample(found, min(PER_REPO, len(found)))
        drops["not sampled"] += len(found) - len(sample)
        pairs = []
        for sym, query in sample:
            data = (corpus / sym.path).read_bytes()
            spans = doc_spans(data, sym.start_byte, sym.end_byte, sym.docstring)
            if not spans:
                drops["doc not located"] += 1
                continue
            pairs.append({"repo": name, "query": query, "id": sym.id, "path": sym.path, "name": sym.name,
                          "kind": sym.kind, "language": sym.language, "start_line": sym.start_line, "end_line": sym.end_line,
                          "blank": [[s.start, s.end] for s in spans]})
    return pairs


def blanked_copy(corpus: Path, dest: Path, pairs: Sequence[dict[str, Any]]) -> None:
    """A copy of the repository with every pair's docstring blanked."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(corpus, dest, symlinks=True)
    by_file: dict[str, list[Span]] = {}
    for p in pairs:
        by_file.setdefault(p["path"], []).extend(Span(a, b) for a, b in p["blank"])
    for path, spans in by_file.items():
        target = dest / path
        target.write_bytes(blank(target.read_bytes(), spans))


def verify(ws: Workspace, pairs: Sequence[dict[str, Any]], drops: Counter[str]) -> list[dict[str, Any]]:
    """The pairs whose target is still there, at the same lines, with its docstring gone."""
    kept = []
    for p in pairs:
        try:
            sym = ws.symbol(p["id"])
        except SymscopeError:
            drops["target lost"] += 1
            continue
        if (sym.start_line, sym.end_line) != (p["start_line"], p["end_line"]):
            drops["target moved"] += 1
            continue
        text = (ws.root / sym.path).read_bytes()
        if find_doc(text, sym.start_byte, sym.end_byte, p["query"]) is not None or \
                find_doc(sym.docstring.encode("utf-8", "surrogateescape"), 0, len(sym.docstring) * 4, p["query"]):
            drops["not hidden"] += 1
            continue
        kept.append(p)
    return kept


# -- scoring ---------------------------------------------------------------------------------


def score_pair(ws: Workspace, hits: Sequence[SearchHit], pair: dict[str, Any]) -> QueryScore:
    """The hits scored against the pair's one target, as the hit itself or a copy folded into it."""
    def holds(hit: SearchHit) -> bool:
        return hit.symbol.id == pair["id"] or pair["id"] in hit.duplicates

    return score_query([frozenset({0}) if holds(h) else frozenset() for h in hits], 1)


def score_pairs(ws: Workspace, pairs: Sequence[dict[str, Any]], search: Search) -> list[QueryScore]:
    """Every pair's score under `search` (the default search, or a re-ranker's)."""
    return [score_pair(ws, search(p["query"]), p) for p in pairs]


def default_search(ws: Workspace) -> Search:
    """Today's default search, as the CLI runs it."""
    return lambda query: ws.search(query, limit=MRR_CUTOFF)


def run_repo(name: str, spec: dict[str, Any], corpora: Path, work: Path, cached: list[dict[str, Any]] | None,
             drops: Counter[str], search_factory: Callable[[Workspace], Search] = default_search,
             hybrid: bool = False) -> tuple[list[dict[str, Any]], list[QueryScore], str]:
    """One repository: its pairs (cached or made), the blanked copy indexed (and, with `hybrid`,
    embedded: the `semantic` extra), the queries scored, and its size stratum."""
    corpus = corpora / name
    pairs = cached if cached is not None else make_pairs(corpus, work / "index" / name, name, drops)
    copy = work / "blanked" / name
    blanked_copy(corpus, copy, pairs)
    index_dir = work / "index-blanked" / name
    if index_dir.exists():
        shutil.rmtree(index_dir)
    with Workspace.open(copy, index_dir, ensure=False) as ws:
        ws.refresh()
        if hybrid and ws.embed(force=True) is None:
            raise SystemExit("--hybrid needs the semantic extra: pip install 'symscope[semantic]'")
        pairs = verify(ws, pairs, drops)
        return pairs, score_pairs(ws, pairs, search_factory(ws)), stratum(ws)


def report(records: Sequence[dict[str, Any]], repos: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Summaries per split, per split and size stratum, per split and the target's language, and
    per repository."""
    groups: dict[str, list[QueryScore]] = {}
    for r in records:
        spec = repos[r["repo"]]
        language = r.get("language", spec["language"])
        for key in ("all", spec["split"], f"{spec['split']}:{r.get('stratum', 'small')}",
                    f"{spec['split']}/{language}", f"repo/{r['repo']}"):
            groups.setdefault(key, []).append(r["score"])
    return {k: summary(v) for k, v in sorted(groups.items(), key=lambda kv: (kv[0].count("/"), ":" in kv[0], kv[0]))}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.autolabel", description=__doc__.split("\n")[0])
    p.add_argument("corpora", metavar="CORPORA_DIR", type=Path)
    p.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / "symscope-autolabel")
    p.add_argument("--repos", default=None, help="comma-separated names (default: all in the file)")
    p.add_argument("--json", type=Path, default=None, help="write the summary and the drop counts here")
    p.add_argument("--ranks", action="store_true", help="with --json: every pair's rank too (for comparing rankers)")
    p.add_argument("--hybrid", action="store_true",
                   help="embed each blanked copy first (the `semantic` extra): BM25 fused with embeddings")
    args = p.parse_args(argv)
    repos = load_repos()
    names = args.repos.split(",") if args.repos else list(repos)
    missing = [n for n in names if n not in repos or not (args.corpora / n).is_dir()]
    if missing:
        print(f"autolabel: no corpus (or no such repository in {REPOS_FILE.name}): {', '.join(missing)}",
              file=sys.stderr)
        return 2
    work: Path = args.work_dir
    work.mkdir(parents=True, exist_ok=True)
    cache_file = work / "pairs.json"
    cache: dict[str, Any] = {}
    if cache_file.exists():
        cache = json.loads(cache_file.read_text(encoding="utf-8"))
    command = shown_command("python -m benchmarks.autolabel", sys.argv[1:] if argv is None else argv,
                            {"CORPORA_DIR": args.corpora, "WORK_DIR": args.work_dir})
    print("command:", command)
    started = time.perf_counter()
    records: list[dict[str, Any]] = []
    drops: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    for i, name in enumerate(names, 1):
        spec = repos[name]
        t0 = time.perf_counter()
        entry = cache.get(name)
        fresh = entry is not None and entry.get("commit") == spec["commit"] and entry.get("version") == GENERATOR_VERSION
        repo_drops: Counter[str] = Counter()
        made, scores, size = run_repo(name, spec, args.corpora, work, entry["pairs"] if fresh and entry else None,
                                repo_drops, hybrid=args.hybrid)
        if not fresh:
            cache[name] = {"commit": spec["commit"], "version": GENERATOR_VERSION, "pairs": made,
                           "drops": dict(repo_drops)}
        drops[spec["split"]].update(cache[name].get("drops", {}) if fresh else repo_drops)
        records.extend({**pair, "score": s, "stratum": size} for pair, s in zip(made, scores, strict=True))
        s = summary(scores)
        print(f"[{i}/{len(names)}] {name:16} {spec['split']:10} {spec['language']:10} {size:5} pairs {len(made):3}  "
              f"P@1 {s.get('p_at_1', 0):.2f} R@5 {s.get('r_at_5', 0):.2f}  {time.perf_counter() - t0:5.1f}s",
              flush=True)
    cache_file.write_text(json.dumps(cache, indent=0) + "\n", encoding="utf-8")
    result = report(records, repos)
    for key, s in result.items():
        print(f"{key:28} n={s['queries']:4} P@1 {s['p_at_1']:.3f}  R@5 {s['r_at_5']:.3f}  MRR {s['mrr']:.3f}")
    for split in SPLITS:
        print(f"dropped ({split}):", ", ".join(f"{k} {v}" for k, v in drops[split].most_common()))
    seconds = round(time.perf_counter() - started, 1)
    print(f"{len(records)} pairs in {seconds} s")
    if args.json:
        out: dict[str, Any] = {"command": command, "generator_version": GENERATOR_VERSION, "per_repo": PER_REPO,
                               "seed": SEED, "seconds": seconds, "summary": result,
                               "drops": {k: dict(v.most_common()) for k, v in drops.items()}}
        if args.ranks:
            out["pairs"] = [{k: r[k] for k in ("repo", "query", "id")} | {"rank": r["score"].first_hit_rank}
                            for r in records]
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
