"""Languages on real code: recall and precision of each language's query on a pinned repository.

    python -m benchmarks.languages CORPORA_DIR [--only NAME[,NAME]] [--markdown] [--write]

Every `benchmarks/languages/<name>.json` names a public repository, a commit and a
hand-written sample of definitions read from that code (format below). The script
indexes `CORPORA_DIR/<name>` (that repository extracted at that commit; nothing is
downloaded: a missing folder is reported with the command that fetches it) into a
temporary index and prints, per language: files, symbols and files with parse
errors of that language, seconds to index the whole corpus (every language in it),
recall and precision on the sample, and every miss and false positive.

    {"language": "proto", "repo": "owner/name", "commit": "<40 hex>",
     "sample": [{"path": "a/b.proto", "qualname": "Svc.Get", "kind": "method",
                 "start_line": 12, "end_line": 14}, ...],
     "not_symbols": [{"path": "a/b.proto", "name": "option_key", "line": 30}, ...]}

Recall: the share of sample entries extracted with the same path, qualname, kind
and line range. Precision: over the files the sample names, the share of extracted
symbols that match no `not_symbols` entry (those list the false positives found by
reading the code). `--write` puts the table into `benchmarks/results.md` under
"## Languages on real code", leaving the rest of that file alone.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from symscope.core.index import Index
from symscope.core.languages import all_languages
from symscope.core.models import SYMBOL_KINDS, Symbol
from symscope.core.sanitize import for_terminal

try:
    import fcntl
except ImportError:  # not on Windows: --write is then unlocked
    fcntl = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
SAMPLES_DIR = HERE / "languages"
RESULTS_MD = HERE / "results.md"
SECTION = "## Languages on real code"
MIN_SAMPLE = 20
#: Targets from the language brief: below these a language's query needs work.
TARGET_RECALL = 0.95
TARGET_PRECISION = 0.95

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")


class SampleError(ValueError):
    """A `benchmarks/languages/*.json` file that does not have the documented shape."""


@dataclass(frozen=True, slots=True)
class Expected:
    """One definition read from the real code, which the extractor must produce exactly."""

    path: str
    qualname: str
    kind: str
    start_line: int
    end_line: int

    def describe(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line} {self.qualname} ({self.kind})"


@dataclass(frozen=True, slots=True)
class NotSymbol:
    """Something that looks like a definition but is not one (a config key, a call)."""

    path: str
    name: str
    """The extracted symbol's name or qualname."""
    line: int
    """A line of the wrong symbol's range (normally its first)."""


@dataclass(frozen=True, slots=True)
class LanguageSample:
    """A parsed `benchmarks/languages/<name>.json`."""

    language: str
    repo: str
    commit: str
    sample: tuple[Expected, ...]
    not_symbols: tuple[NotSymbol, ...]

    @property
    def paths(self) -> list[str]:
        """The files the sample names, in first-mention order."""
        return list(dict.fromkeys(e.path for e in self.sample))


@dataclass(frozen=True, slots=True)
class Miss:
    """A sample entry the extractor did not produce, and what it produced instead."""

    expected: Expected
    near: tuple[Symbol, ...]
    """Extracted symbols in that file with the same qualname or the same first line."""
    file_indexed: bool


@dataclass(frozen=True, slots=True)
class Score:
    """Recall and precision of one language's extraction on its sample."""

    matched: int
    sample_size: int
    checked: int
    """Symbols extracted from the files the sample names."""
    misses: tuple[Miss, ...]
    false_positives: tuple[Symbol, ...]

    @property
    def recall(self) -> float:
        return self.matched / self.sample_size if self.sample_size else 0.0

    @property
    def precision(self) -> float | None:
        if not self.checked:
            return None
        return (self.checked - len(self.false_positives)) / self.checked


@dataclass(slots=True)
class LanguageResult:
    """One language's row: its figures on the real corpus, or why it was skipped."""

    sample: LanguageSample
    corpus: Path
    skipped: str = ""
    files: int = 0
    symbols: int = 0
    error_files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    score: Score | None = None

    @property
    def language(self) -> str:
        return self.sample.language


def _require(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise SampleError(f"{where}: {message}")


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def parse_sample(raw: object, where: str = "sample") -> LanguageSample:
    """Check a sample file's decoded JSON and turn it into a `LanguageSample`.

    Raises:
        SampleError: naming the first problem found (unknown language or kind, a commit
            that is not 40 hex digits, too few entries, impossible line numbers...).
    """
    _require(isinstance(raw, dict), where, "must be a JSON object")
    assert isinstance(raw, dict)
    language = raw.get("language")
    _require(language in all_languages(), where, f"language {language!r} is not in core/languages.json")
    repo = raw.get("repo")
    _require(isinstance(repo, str) and bool(_REPO.match(repo)), where, f"repo {repo!r} is not owner/name")
    commit = raw.get("commit")
    _require(isinstance(commit, str) and bool(_COMMIT.match(commit)), where,
             f"commit {commit!r} is not 40 lowercase hex digits")
    entries = raw.get("sample")
    _require(isinstance(entries, list) and len(entries) >= MIN_SAMPLE, where,
             f"sample must list at least {MIN_SAMPLE} definitions")
    assert isinstance(entries, list)
    sample: list[Expected] = []
    for i, e in enumerate(entries):
        at = f"{where}: sample[{i}]"
        _require(isinstance(e, dict), at, "must be an object")
        _require(_relative_path(e.get("path")), at, f"path {e.get('path')!r} must be repo-relative")
        _require(isinstance(e.get("qualname"), str) and bool(e["qualname"].strip()), at, "qualname missing")
        _require(e.get("kind") in SYMBOL_KINDS, at, f"kind {e.get('kind')!r} is not one of {SYMBOL_KINDS}")
        start, end = e.get("start_line"), e.get("end_line")
        _require(_positive_int(start) and _positive_int(end) and start <= end, at,
                 f"lines {start!r}-{end!r} are not 1 <= start_line <= end_line")
        sample.append(Expected(e["path"], e["qualname"], e["kind"], start, end))
    keys = [(s.path, s.qualname, s.kind, s.start_line) for s in sample]
    _require(len(keys) == len(set(keys)), where, "sample lists the same definition twice")
    _require(len({s.path for s in sample}) >= 2, where, "sample must span several files")
    not_symbols: list[NotSymbol] = []
    raw_not = raw.get("not_symbols", [])
    _require(isinstance(raw_not, list), where, "not_symbols must be a list")
    for i, n in enumerate(raw_not):
        at = f"{where}: not_symbols[{i}]"
        _require(isinstance(n, dict), at, "must be an object")
        _require(_relative_path(n.get("path")), at, f"path {n.get('path')!r} must be repo-relative")
        _require(isinstance(n.get("name"), str) and bool(n["name"]), at, "name missing")
        _require(_positive_int(n.get("line")), at, f"line {n.get('line')!r} must be >= 1")
        not_symbols.append(NotSymbol(n["path"], n["name"], n["line"]))
    return LanguageSample(str(language), str(repo), str(commit), tuple(sample), tuple(not_symbols))


def _relative_path(path: object) -> bool:
    return (
        isinstance(path, str)
        and bool(path)
        and not path.startswith(("/", "./"))
        and "\\" not in path
        and ".." not in path.split("/")
    )


def load_sample(path: Path) -> LanguageSample:
    """Read and check one `benchmarks/languages/<name>.json`; its file name must be the language."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SampleError(f"{path.name}: {exc}") from exc
    sample = parse_sample(raw, path.name)
    _require(sample.language == path.stem, path.name, f"language {sample.language!r} != file name")
    return sample


def load_samples(folder: Path = SAMPLES_DIR, only: Iterable[str] = ()) -> list[LanguageSample]:
    """Every sample file in `folder` (or just the `only` languages), sorted by language."""
    wanted = set(only)
    files = sorted(folder.glob("*.json"))
    missing = wanted - {p.stem for p in files}
    if missing:
        raise SampleError(f"no sample file for {', '.join(sorted(missing))} in {folder}")
    return [load_sample(p) for p in files if not wanted or p.stem in wanted]


def score(sample: LanguageSample, symbols_by_path: Mapping[str, Sequence[Symbol]]) -> Score:
    """Score extracted symbols against a sample (pure: the caller extracts).

    Args:
        sample: The expected definitions and known non-definitions.
        symbols_by_path: Extracted symbols of (at least) every file the sample names;
            a file absent from the mapping was not indexed.
    """
    matched = 0
    misses: list[Miss] = []
    for e in sample.sample:
        syms = symbols_by_path.get(e.path)
        if syms is not None and any(
            (s.qualname, s.kind, s.start_line, s.end_line) == (e.qualname, e.kind, e.start_line, e.end_line)
            for s in syms
        ):
            matched += 1
            continue
        near = tuple(s for s in syms or () if s.qualname == e.qualname or s.start_line == e.start_line)
        misses.append(Miss(e, near, syms is not None))
    checked = [s for p in sample.paths for s in symbols_by_path.get(p, ())]
    wrong: dict[str, Symbol] = {}
    for n in sample.not_symbols:
        hits = [
            s
            for s in symbols_by_path.get(n.path, ())
            if n.name in (s.name, s.qualname) and s.start_line <= n.line <= s.end_line
        ]
        if hits:  # the innermost symbol of that name around the line
            best = min(hits, key=lambda s: (s.end_line - s.start_line, -s.start_line))
            wrong.setdefault(best.id, best)
    false_positives = tuple(s for s in checked if s.id in wrong)
    return Score(matched, len(sample.sample), len(checked), tuple(misses), false_positives)


def fetch_command(sample: LanguageSample, dest: Path) -> str:
    """A shell command that puts the sample's repository at its commit into `dest`."""
    d = shlex.quote(str(dest))
    url = f"https://github.com/{sample.repo}"
    return (
        f"git init -q {d} && git -C {d} fetch -q --depth 1 {shlex.quote(url)} {sample.commit} "
        f"&& git -C {d} checkout -q FETCH_HEAD"
    )


def run_language(sample: LanguageSample, corpora: Path, processes: int | None = None) -> LanguageResult:
    """Index `corpora/<language>` into a temporary index and score it."""
    corpus = corpora / sample.language
    result = LanguageResult(sample, corpus)
    if not corpus.is_dir():
        result.skipped = f"no corpus at {corpus}; fetch it with: {fetch_command(sample, corpus)}"
        return result
    lang = sample.language
    with (
        tempfile.TemporaryDirectory(prefix=f"symscope-lang-{lang}-") as tmp,
        Index.open(corpus, tmp) as index,
    ):
        started = time.perf_counter()
        index.update(processes=processes)
        result.seconds = time.perf_counter() - started
        result.files = sum(1 for f in index.files() if f.language == lang)
        (result.symbols,), = index.store.query("SELECT count(*) FROM symbols WHERE language = ?", (lang,))
        result.error_files = [
            path
            for (path,) in index.store.query(
                "SELECT path FROM files WHERE language = ? AND has_errors = 1 ORDER BY path", (lang,)
            )
        ]
        symbols = {p: index.file_symbols(p) for p in sample.paths if index.file(p) is not None}
    result.score = score(sample, symbols)
    return result


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _row(r: LanguageResult, markdown: bool = True) -> list[str]:
    repo = f"`{r.sample.repo}`" if markdown else r.sample.repo
    if r.skipped or r.score is None:
        return [r.language, repo, r.sample.commit[:12], "skipped", "", "", "", "", ""]
    s = r.score
    return [
        r.language,
        repo,
        r.sample.commit[:12],
        f"{r.files:,}",
        f"{r.symbols:,}",
        f"{len(r.error_files):,}",
        f"{r.seconds:.1f}",
        f"{_pct(s.recall)} ({s.matched}/{s.sample_size})",
        f"{_pct(s.precision)} ({s.checked - len(s.false_positives)}/{s.checked})",
    ]


HEADER = ["language", "repo", "commit", "files", "symbols", "parse errors", "seconds", "recall", "precision"]


def render_markdown(results: Sequence[LanguageResult]) -> str:
    """The results table as Markdown (no heading)."""
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(_row(r)) + " |" for r in results]
    return "\n".join(lines) + "\n"


def render_text(results: Sequence[LanguageResult]) -> str:
    """The table as aligned text, then each language's misses, false positives and errors."""
    rows = [HEADER] + [_row(r, markdown=False) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    for r in results:
        out += _details(r)
    return "\n".join(out) + "\n"


def _details(r: LanguageResult) -> list[str]:
    if r.skipped:
        return ["", f"{r.language}: skipped: {r.skipped}"]
    assert r.score is not None
    out: list[str] = []
    for m in r.score.misses:
        if not out:
            out += ["", f"{r.language}: misses"]
        extra = "" if m.file_indexed else "  [file not indexed]"
        out.append(f"  - {m.expected.describe()}{extra}")
        for s in m.near:
            out.append(f"      got {s.path}:{s.start_line}-{s.end_line} {s.qualname} ({s.kind})")
    if r.score.false_positives:
        out += ["", f"{r.language}: false positives"]
        out += [f"  - {s.path}:{s.start_line}-{s.end_line} {s.qualname} ({s.kind})" for s in r.score.false_positives]
    if r.error_files:
        shown = r.error_files[:20]
        more = f" (+{len(r.error_files) - len(shown)} more)" if len(r.error_files) > len(shown) else ""
        out += ["", f"{r.language}: files with parse errors{more}"] + [f"  - {p}" for p in shown]
    return out


def merge_rows(old_table: str, results: Sequence[LanguageResult]) -> str:
    """The Markdown table for `results`, keeping `old_table`'s rows for languages not run now.

    A language that was skipped this time (no corpus here) keeps its old row, so
    `--only go --write` updates one row instead of erasing the others.
    """
    rows: dict[str, str] = {}
    for line in old_table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == len(HEADER) and cells[0] not in ("language", "") \
                and not cells[0].startswith("-"):
            rows[cells[0]] = line.rstrip()
    for r in results:
        if not r.skipped or r.language not in rows:
            rows[r.language] = "| " + " | ".join(_row(r)) + " |"
    head = render_markdown([]).rstrip("\n")
    return "\n".join([head, *(rows[k] for k in sorted(rows))]) + "\n"


def write_section(text: str, results: Sequence[LanguageResult], note: str = "") -> str:
    """`text` (a Markdown document) with the languages section updated, or appended when absent.

    Everything outside the section is left byte for byte as it was.
    """
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    end = len(lines)
    old_section = ""
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        old_section = "".join(lines[start:end])
    body = f"{SECTION}\n\n" + (f"{note}\n\n" if note else "") + merge_rows(old_section, results)
    if start is None:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return text + sep + body
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + body + ("\n" + tail if tail else "")


def update_results(path: Path, results: Sequence[LanguageResult], note: str = "") -> None:
    """Rewrite `path`'s languages section in place, locked: several language runs may write at once."""
    with open(path, "a+", encoding="utf-8") as fh:
        if fcntl is not None:
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        text = write_section(fh.read(), results, note)
        fh.seek(0)
        fh.truncate()
        fh.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.languages", description=__doc__.split("\n")[0])
    parser.add_argument("corpora", type=Path, help="folder holding one extracted repository per language")
    parser.add_argument("--only", default="", help="comma-separated languages (default: every sample file)")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--write", action="store_true", help=f"also write the table into {RESULTS_MD.name}")
    parser.add_argument("--processes", type=int, default=None, help="parser processes (default: every core)")
    args = parser.parse_args(argv)
    only = [n.strip() for n in args.only.split(",") if n.strip()]
    try:
        samples = load_samples(SAMPLES_DIR, only)
    except SampleError as exc:
        print(f"benchmarks.languages: {for_terminal(str(exc))}", file=sys.stderr)
        return 2
    results: list[LanguageResult] = []
    for sample in samples:
        print(f"indexing {sample.language} ({sample.repo})...", file=sys.stderr, flush=True)
        results.append(run_language(sample, args.corpora, args.processes))
    text = render_markdown(results) if args.markdown else render_text(results)
    sys.stdout.write(for_terminal(text))
    if args.write:
        note = (
            "`python -m benchmarks.languages CORPORA_DIR --write`: each language's query on one pinned "
            "public repository. Recall: hand-read sample definitions extracted with the exact qualname, "
            "kind and line range; precision: extracted symbols in the sampled files that are real "
            "definitions (`benchmarks/languages/<name>.json`)."
        )
        update_results(RESULTS_MD, results, note)
        print(f"wrote {RESULTS_MD.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
