"""`Index`: the one facade the CLI, the TUI and the benchmarks use.

    with Index.open("path/to/repo") as index:
        index.update()
        hits = index.search("middleware", limit=5)
        print(index.source(hits[0].symbol.id))
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from symscope.core.errors import (
    BadQueryError,
    IndexCorruptError,
    NotARepoError,
    StaleSymbolError,
    UnknownSymbolError,
)
from symscope.core.hashing import content_hash
from symscope.core.languages import extractor_fingerprint
from symscope.core.models import (
    FileOutline,
    FileRecord,
    FileResult,
    Import,
    IndexProgress,
    IndexReport,
    OutlineNode,
    Reference,
    Savings,
    SearchHit,
    SkippedFile,
    Stats,
    Symbol,
)
from symscope.core.rank import SparseBM25, load_ranker, save_ranker
from symscope.core.store import Store
from symscope.core.terms import compact, name_parts, query_terms

if TYPE_CHECKING:
    from symscope.core.walk import SourceFile, WalkResult
    from symscope.core.workers import EarlyPool, ParserPool

#: Default size limit (mirrors walk.MAX_FILE_BYTES, which is imported only to index).
MAX_FILE_BYTES = 1_000_000

#: Environment variable that moves the cache root (one folder per repo below it).
INDEX_DIR_ENV = "SYMSCOPE_INDEX_DIR"
#: Path segments and file names that mark tests, examples and docs.
_AUX_SEGMENT = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|fixtures?|examples?|samples?|demos?|"
    r"docs?|docs_src|documentation|benchmarks?|tutorials?|scripts)(/|$)"
)
_AUX_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py)$")
_AUX_QUERY_WORDS = frozenset(
    ["test", "tests", "testing", "spec", "specs", "example", "examples", "sample", "samples", "demo", "demos", "doc", "docs", "docs_src", "tutorial", "tutorials", "fixture", "fixtures", "bench", "benchmark", "benchmarks", "script", "scripts"]
)
AUX_PENALTY = 0.3
#: Top BM25 candidates re-scored by how much of their name the query covers.
RERANK_DEPTH = 200
NAME_COVERAGE_WEIGHT = 0.5
EXACT_NAME_BOOST = 1.5
#: Files to parse before a process pool pays for itself.
POOL_THRESHOLD = 48
WRITE_BATCH = 200


def is_auxiliary(path: str) -> bool:
    """True for test, example, docs and benchmark files, which rank below library code."""
    return bool(_AUX_SEGMENT.search(path) or _AUX_FILE.search(path))


def default_index_dir(root: Path) -> Path:
    """Per-repo folder under the user's cache dir (or under $SYMSCOPE_INDEX_DIR)."""
    base = os.environ.get(INDEX_DIR_ENV)
    if not base:
        from platformdirs import user_cache_dir  # only this default needs it

        base = user_cache_dir("symscope", appauthor=False)
    real = str(root.resolve())
    digest = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", root.resolve().name) or "root"
    return Path(base) / f"{name}-{digest}"


@dataclass(slots=True)
class _RankData:
    """The search structures, persisted beside the SQLite file."""

    ids: list[str]
    paths: list[str]
    names: list[str]
    norm_hashes: list[str]
    kinds: NDArray[np.object_]
    languages: NDArray[np.object_]
    path_ids: NDArray[np.int32]
    unique_paths: list[str]
    auxiliary: NDArray[np.bool_]
    bm25: SparseBM25


class Index:
    """An index of one repository: build it, search it, read symbols back exactly."""

    def __init__(self, root: Path, index_dir: Path, store: Store) -> None:
        self.root = root
        self.index_dir = index_dir
        self.store = store
        self._rank: _RankData | None = None
        self._rank_lock = threading.Lock()

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        index_dir: str | os.PathLike[str] | None = None,
        discard_corrupt: bool = False,
    ) -> Index:
        """Open (creating if needed) the index of the repo at `root`.

        Args:
            root: The repository folder.
            index_dir: Where this repo's index lives (default: a per-repo cache folder).
            discard_corrupt: If the index cannot be read, move it aside (to
                `index.sqlite.corrupt`) and start a fresh one instead of raising.

        Raises:
            NotARepoError: `root` is missing or not a directory.
            IndexCorruptError: the index exists but cannot be read.
        """
        path = Path(root).expanduser()
        if not path.exists():
            raise NotARepoError(f"no such directory: {root}")
        if not path.is_dir():
            raise NotARepoError(f"not a directory: {root}")
        path = path.resolve()
        folder = Path(index_dir).expanduser() if index_dir else default_index_dir(path)
        db = folder / "index.sqlite"
        try:
            store = Store(db)
        except IndexCorruptError:
            if not discard_corrupt or not db.exists():
                raise
            # The index is a cache of the repo: keep the broken file for inspection, start over.
            db.replace(db.with_name("index.sqlite.corrupt"))
            for extra in ("index.sqlite-wal", "index.sqlite-shm", "rank.pickle"):
                (folder / extra).unlink(missing_ok=True)
            store = Store(db)
        return cls(path, folder, store)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def ranker_path(self) -> Path:
        return self.index_dir / "rank.pickle"

    @property
    def is_built(self) -> bool:
        """True once an `update()` has completed with this version's extractor and tokenizer."""
        return (
            self.store.get_meta("indexed_at") is not None
            and self.store.get_meta("fingerprint") == extractor_fingerprint()
        )

    # -- building -------------------------------------------------------------

    def update(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        processes: int | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
        rebuild: bool = False,
    ) -> IndexReport:
        """Bring the index up to date, parsing only files whose content changed.

        Args:
            progress: Called after each parsed file (from this thread).
            cancelled: Polled between files; when it returns True, work stops after
                committing what is done, leaving a consistent index.
            processes: Parser processes; default uses every core when there is enough work.
            max_file_bytes: Larger files are skipped and reported.
            rebuild: Re-parse every file even if unchanged.
        """
        from symscope.core.walk import walk  # only indexing needs pathspec

        started = time.perf_counter()
        fingerprint = extractor_fingerprint()
        if self.store.get_meta("fingerprint") != fingerprint:
            rebuild = True  # queries or tokenizer changed since this index was built
        known = self.store.file_stats()
        workers = processes if processes is not None else (os.cpu_count() or 1)
        early: EarlyPool | None = None
        if workers > 1 and (rebuild or not known):  # every file will be parsed
            from symscope.core.workers import EarlyPool

            early = EarlyPool(workers, POOL_THRESHOLD)
        try:
            found = walk(self.root, max_file_bytes, on_file=early.on_file if early else None)
            return self._apply(
                found, known, rebuild, fingerprint, workers, early.pool if early else None,
                progress, cancelled, started,
            )
        finally:
            if early is not None:
                early.close()

    def _apply(
        self,
        found: WalkResult,
        known: dict[str, tuple[int, int, str]],
        rebuild: bool,
        fingerprint: str,
        workers: int,
        pool: ParserPool | None,
        progress: Callable[[IndexProgress], None] | None,
        cancelled: Callable[[], bool] | None,
        started: float,
    ) -> IndexReport:
        """Parse what changed in `found` and store it (the body of `update`)."""
        # A rebuild re-parses everything but replaces each file's rows one at a time,
        # so an interrupted rebuild still leaves every file searchable.
        to_parse: list[SourceFile] = []
        touch: list[tuple[str, int]] = []
        unchanged = 0
        for f in found.files:
            old = known.get(f.path)
            if not rebuild and old is not None and old[0] == f.size and old[1] == f.mtime_ns:
                unchanged += 1
            else:
                to_parse.append(f)
        seen = {f.path for f in found.files}
        removed = [p for p in known if p not in seen]
        skipped = list(found.skipped)
        parsed = 0
        changed = bool(removed)
        was_cancelled = False
        batch: list[FileResult] = []
        counted: dict[str, Counter[str]] = {}  # ranker input, counted while workers parse

        def flush() -> None:
            nonlocal changed
            if not batch and not touch:
                return
            with self.store.transaction() as conn:
                for res in batch:
                    if res.record is None:
                        Store.remove_file(conn, res.path)
                    else:
                        Store.replace_file(conn, res.record, res.mtime_ns, res.has_errors,
                                           res.symbols, res.extras, res.imports)
                for path, mtime in touch:
                    Store.touch_file(conn, path, mtime)
                if batch:
                    changed = True
                    Store.set_meta(conn, "generation", str(self.store.generation() + 1))
            batch.clear()
            touch.clear()

        done = 0
        results = contextlib.closing(self._parse_all(to_parse, workers, pool, cancelled))
        with results as parsed_files:
            for done, res in enumerate(parsed_files, start=1):
                old = known.get(res.path)
                if res.record is None:
                    skipped.append(SkippedFile(res.path, res.skip_reason or "skipped"))
                    if old is not None:
                        batch.append(res)
                        removed.append(res.path)
                elif not rebuild and old is not None and old[2] == res.record.hash:
                    touch.append((res.path, res.mtime_ns))
                    unchanged += 1
                else:
                    batch.append(res)
                    parsed += 1
                    for sym, (_, terms) in zip(res.symbols, res.extras, strict=True):
                        counted[sym.id] = Counter(terms.split())
                if progress is not None:
                    progress(IndexProgress(done, len(to_parse), res.path))
                if len(batch) >= WRITE_BATCH:
                    flush()
                if cancelled is not None and cancelled():
                    was_cancelled = True
                    break
        if done < len(to_parse):
            was_cancelled = True  # the parser stopped early because `cancelled` said so
        flush()
        with self.store.transaction() as conn:
            if not was_cancelled:
                for path in removed:
                    Store.remove_file(conn, path)
                Store.replace_skipped(conn, skipped)
                Store.set_meta(conn, "indexed_at", f"{time.time():.0f}")
                Store.set_meta(conn, "fingerprint", fingerprint)
                Store.set_meta(conn, "root", str(self.root))
            if changed:
                Store.set_meta(conn, "generation", str(self.store.generation() + 1))
        if changed or not self.ranker_path.exists():
            with self._rank_lock:
                self._rank = None
            self._ranks(counted)  # rebuild and persist now, so the next search starts fast
        files, symbols, _, _ = self.store.counts()
        return IndexReport(
            files=files,
            symbols=symbols,
            parsed=parsed,
            unchanged=unchanged,
            removed=len(set(removed)),
            skipped=sorted(skipped, key=lambda s: s.path),
            seconds=time.perf_counter() - started,
            cancelled=was_cancelled,
        )

    def _parse_all(
        self,
        files: list[SourceFile],
        workers: int,
        pool: ParserPool | None,
        cancelled: Callable[[], bool] | None,
    ) -> Generator[FileResult, None, None]:
        """Parse files in `pool` (or a new one, when there are enough), else in this process."""
        from symscope.core.workers import ParserPool

        if workers > 1 and len(files) >= POOL_THRESHOLD:
            own: ParserPool | None = None
            done: set[str] = set()
            try:
                if pool is None:
                    pool = own = ParserPool(workers)
                for result in pool.parse(files, cancelled):
                    done.add(result.path)
                    yield result
                return
            except (OSError, ValueError, RuntimeError) as exc:  # no processes here: parse inline
                import logging

                logging.getLogger(__name__).debug("parser pool unavailable (%s); parsing inline", exc)
                files = [f for f in files if f.path not in done]
            finally:
                if own is not None:
                    own.close()
        # Parsing pulls in tree-sitter and tiktoken: searches, and a parent whose
        # workers parse, never pay for that import.
        from symscope.core.ingest import ingest

        for f in files:
            if cancelled is not None and cancelled():
                return
            yield ingest(f.path, f.abspath, f.mtime_ns, f.language.name)

    # -- search -----------------------------------------------------------------

    def _ranks(self, counted: dict[str, Counter[str]] | None = None) -> _RankData:
        """The search structures: cached, else loaded from disk, else built.

        Args:
            counted: Term counts already made for some symbol IDs (by `update`,
                while parser processes were busy), so building skips them.
        """
        with self._rank_lock:
            generation = self.store.generation()
            if self._rank is not None:
                return self._rank
            loaded = load_ranker(self.ranker_path, generation)
            if isinstance(loaded, _RankData):
                self._rank = loaded
                return loaded
            rows = self.store.rank_rows()
            unique_paths = sorted({r[1] for r in rows})
            path_index = {p: i for i, p in enumerate(unique_paths)}
            data = _RankData(
                ids=[r[0] for r in rows],
                paths=[r[1] for r in rows],
                names=[r[4] for r in rows],
                norm_hashes=[r[5] for r in rows],
                kinds=np.array([r[2] for r in rows], dtype=object),
                languages=np.array([r[3] for r in rows], dtype=object),
                path_ids=np.array([path_index[r[1]] for r in rows], dtype=np.int32),
                unique_paths=unique_paths,
                auxiliary=np.array([is_auxiliary(r[1]) for r in rows], dtype=bool),
                bm25=SparseBM25([
                    (counted or {}).get(r[0]) or Counter(r[6].split()) for r in rows
                ]),
            )
            with contextlib.suppress(OSError):  # a read-only cache dir only costs speed
                save_ranker(self.ranker_path, generation, data)
            self._rank = data
            return data

    def search(
        self,
        query: str,
        limit: int = 10,
        kind: str | None = None,
        language: str | None = None,
        path_glob: str | None = None,
    ) -> list[SearchHit]:
        """Rank symbols for a keyword or plain-English query.

        Args:
            query: Words or identifiers; `sendFile`, `send file` and "how files are sent" all work.
            limit: Most results to return.
            kind: Only this kind (`function`, `class`, ...).
            language: Only this language (`python`, ...).
            path_glob: Only paths matching this glob (`lib/*`, `*.go`); a folder name also works.

        Returns:
            Hits, best first; near-identical copies are folded into one hit's `duplicates`.
        """
        if not query or not query.strip():
            raise BadQueryError("empty query: give one or more words to search for")
        if limit < 1:
            raise BadQueryError("--limit must be at least 1")
        terms = query_terms(query)
        if not terms:
            raise BadQueryError(f"query {query!r} has no searchable words")
        data = self._ranks()
        if not data.ids:
            return []
        scores = data.bm25.get_scores(terms)
        mask = scores > 0
        if kind:
            mask &= data.kinds == kind
        if language:
            mask &= data.languages == language.lower()
        if path_glob:
            allowed = np.array([_glob_match(p, path_glob) for p in data.unique_paths], dtype=bool)
            mask &= allowed[data.path_ids]
        asks_aux = any(w in _AUX_QUERY_WORDS for w in re.findall(r"[a-z_]+", query.lower()))
        if not path_glob and not asks_aux:
            scores = np.where(data.auxiliary, scores * AUX_PENALTY, scores)
        candidates = np.flatnonzero(mask)
        if candidates.size == 0:
            return []
        want = min(candidates.size, max(limit * 8 + 20, RERANK_DEPTH))
        top = candidates[np.argpartition(-scores[candidates], want - 1)[:want]]
        scores = scores.copy()
        scores[top] *= self._name_boosts(data, top, terms, query)
        top = top[np.lexsort((top, -scores[top]))]  # score desc, then index order: deterministic
        picked: list[int] = []
        groups: dict[tuple[str, str], int] = {}
        dupes: dict[int, list[int]] = {}
        for doc in top.tolist():
            key = (data.names[doc], data.norm_hashes[doc])
            first = groups.get(key)
            if first is not None:
                dupes.setdefault(first, []).append(doc)
                continue
            if len(picked) >= limit:
                continue
            groups[key] = doc
            picked.append(doc)
        symbols = self.store.symbols_by_ids([data.ids[d] for d in picked])
        hits: list[SearchHit] = []
        for doc in picked:
            sym = symbols.get(data.ids[doc])
            if sym is None:
                continue
            others = tuple(data.ids[d] for d in dupes.get(doc, []))
            hits.append(SearchHit(sym, float(scores[doc]), others))
        return hits

    @staticmethod
    def _name_boosts(
        data: _RankData, docs: NDArray[np.intp], terms: list[str], query: str
    ) -> NDArray[np.float32]:
        """Favour symbols whose own name the query spells out.

        BM25 treats a name term like any other; people mean the symbol named
        `ClientIP` when they ask for "the client IP", not one that mentions it.
        """
        wanted = set(terms)
        whole = compact(query)
        words = {compact(w) for w in query.split()}
        out = np.ones(len(docs), dtype=np.float32)
        for i, doc in enumerate(docs.tolist()):
            name = data.names[doc]
            parts = name_parts(name)
            if parts:
                matched = len(parts & wanted)
                # A one-word name (`Query`, `Body`) is "covered" by any query saying that word;
                # full credit needs two of the query's words in the name.
                out[i] += NAME_COVERAGE_WEIGHT * matched / len(parts) * min(matched, 2) / 2
            key = compact(name)
            if key and (key == whole or (len(words) <= 2 and key in words)):
                out[i] *= EXACT_NAME_BOOST
        return out

    # -- retrieval ----------------------------------------------------------------

    def symbol(self, symbol_id: str) -> Symbol:
        sym = self.store.symbol(symbol_id)
        if sym is None:
            raise UnknownSymbolError(f"unknown symbol id: {symbol_id}")
        return sym

    def file_is_current(self, path: str) -> bool:
        """True when the file on disk still has the content that was indexed."""
        record = self.store.file(path)
        try:
            return record is not None and content_hash((self.root / path).read_bytes()) == record.hash
        except OSError:
            return False

    def source(self, symbol_or_id: Symbol | str, whole_lines: bool = False) -> str:
        """The symbol's exact source, read from the file now.

        Args:
            symbol_or_id: The symbol or its ID.
            whole_lines: Start at the beginning of its first line when only indentation
                precedes it, so a method keeps its indentation (for pasting); the
                default is the exact byte range.

        Raises:
            StaleSymbolError: the file changed since indexing and the symbol's bytes moved.
        """
        sym = self.symbol(symbol_or_id) if isinstance(symbol_or_id, str) else symbol_or_id
        record = self.store.file(sym.path)
        try:
            data = (self.root / sym.path).read_bytes()
        except OSError:
            raise StaleSymbolError(
                f"{sym.path} is gone or unreadable since indexing; run `symscope index` again"
            ) from None
        chunk = data[sym.start_byte : sym.end_byte]
        if record is None or (content_hash(data) != record.hash and content_hash(chunk) != sym.content_hash):
            raise StaleSymbolError(
                f"{sym.path} changed since indexing, so {sym.qualname} may have moved; "
                "run `symscope index` again"
            )
        if whole_lines:
            line_start = data.rfind(b"\n", 0, sym.start_byte) + 1
            if not data[line_start : sym.start_byte].strip(b" \t"):  # only indentation before it
                chunk = data[line_start : sym.end_byte]
        return chunk.decode("utf-8", "replace")

    def file_text(self, path: str) -> str:
        """A whole indexed file as text (invalid UTF-8 replaced)."""
        if self.store.file(path) is None:
            raise NotARepoError(f"not an indexed file: {path}")
        try:
            return (self.root / path).read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            raise StaleSymbolError(f"cannot read {path}: {exc.strerror or exc}") from None

    def file(self, path: str) -> FileRecord | None:
        return self.store.file(path)

    def files(self) -> list[FileRecord]:
        return self.store.files()

    def file_symbols(self, path: str) -> list[Symbol]:
        return self.store.file_symbols(path)

    def all_symbols(self) -> list[Symbol]:
        return self.store.all_symbols()

    def skipped(self) -> list[SkippedFile]:
        return self.store.skipped()

    def imports(self, path: str | None = None) -> list[Import]:
        return self.store.imports(path)

    def importers(self, module: str) -> list[Import]:
        """Files whose imports name `module` (exactly or as a dotted/slashed tail)."""
        return [
            i for i in self.store.imports()
            if i.module == module or i.module.endswith(("." + module, "/" + module))
        ]

    def references(self, symbol_or_id: Symbol | str, limit: int = 200) -> list[Reference]:
        """Symbols whose source mentions this symbol's name as a whole identifier.

        A name-based reference graph: fast (candidates come from the search
        postings, then each is confirmed on the real source) and language-agnostic,
        but not type-aware, so same-named symbols share their references.
        """
        target = self.symbol(symbol_or_id) if isinstance(symbol_or_id, str) else symbol_or_id
        data = self._ranks()
        parts = query_terms(target.name)
        if not parts or not data.ids:
            return []
        term = parts[-1] if len(parts) == 1 else target.name.lower().replace("_", "")
        idx = data.bm25.vocab.get(term)
        if idx is None:
            return []
        lo, hi = data.bm25.indptr[idx], data.bm25.indptr[idx + 1]
        candidates = sorted({int(d) for d in data.bm25.postings[lo:hi]})
        symbols = self.store.symbols_by_ids([data.ids[d] for d in candidates])
        pattern = re.compile(rb"(?<![A-Za-z0-9_$])" + re.escape(target.name.encode()) + rb"(?![A-Za-z0-9_$])")
        by_file: dict[str, list[Symbol]] = {}
        for sym in symbols.values():
            if sym.id != target.id:
                by_file.setdefault(sym.path, []).append(sym)
        out: list[Reference] = []
        for path in sorted(by_file):
            try:
                data_bytes = (self.root / path).read_bytes()
            except OSError:
                continue
            # Innermost symbols first, so a method wins over its class.
            for sym in sorted(by_file[path], key=lambda s: s.end_byte - s.start_byte):
                body = data_bytes[sym.start_byte : sym.end_byte]
                contains_target = (path == target.path and sym.start_byte <= target.start_byte
                                   and target.end_byte <= sym.end_byte)
                match = next(
                    (m for m in pattern.finditer(body)
                     if not (contains_target and target.start_byte <= sym.start_byte + m.start()
                             < target.end_byte)),
                    None,
                )
                if match is None:
                    continue  # only the target's own definition names it
                inner = [o for o in out if o.symbol.path == path
                         and sym.start_byte <= o.symbol.start_byte and o.symbol.end_byte <= sym.end_byte]
                if inner:
                    continue  # already attributed to a nested symbol
                line = sym.start_line + body.count(b"\n", 0, match.start())
                out.append(Reference(sym, line))
                if len(out) >= limit:
                    return sorted(out, key=lambda r: (r.symbol.path, r.line))
        return sorted(out, key=lambda r: (r.symbol.path, r.line))

    def outline(self, path: str) -> list[OutlineNode]:
        """A file's symbols as a tree (class -> methods)."""
        nodes: dict[str, OutlineNode] = {}
        roots: list[OutlineNode] = []
        for sym in self.store.file_symbols(path):
            node = OutlineNode(sym)
            nodes[sym.id] = node
            parent = nodes.get(sym.parent_id) if sym.parent_id else None
            (parent.children if parent is not None else roots).append(node)
        return roots

    def repo_outline(self, under: str = "") -> list[FileOutline]:
        """Every indexed file (below `under`) with its top-level symbols and token counts."""
        prefix = under.strip("/")
        out: list[FileOutline] = []
        for rec in self.store.files():
            if prefix and not (rec.path == prefix or rec.path.startswith(prefix + "/")):
                continue
            tops = [s for s in self.store.file_symbols(rec.path) if s.parent_id is None]
            out.append(FileOutline(rec, tops))
        return out

    def relpath(self, path: str | os.PathLike[str]) -> str:
        """A user-given path (absolute or relative to cwd or the repo) as a repo-relative one."""
        p = Path(path)
        candidates = [p] if p.is_absolute() else [Path.cwd() / p, self.root / p]
        for cand in candidates:
            try:
                rel = cand.resolve().relative_to(self.root)
            except (ValueError, OSError):
                continue
            if cand.exists():
                return "" if str(rel) == "." else rel.as_posix()
        raise NotARepoError(f"no such path in {self.root}: {path}")

    # -- tokens -------------------------------------------------------------------

    def repo_tokens(self) -> int:
        return self.store.counts()[2]

    def savings(self, symbols: list[Symbol]) -> Savings:
        """Tokens of these symbols against their whole files and against the repo."""
        tokens = sum(s.tokens for s in symbols)
        file_tokens = 0
        for path in dict.fromkeys(s.path for s in symbols):
            rec = self.store.file(path)
            file_tokens += rec.tokens if rec else 0
        return Savings(tokens, file_tokens, self.repo_tokens())

    def stats(self) -> Stats:
        files, symbols, tokens, skipped = self.store.counts()
        size = sum(
            p.stat().st_size for p in self.index_dir.glob("*") if p.is_file()
        ) if self.index_dir.exists() else 0
        return Stats(
            root=str(self.root),
            index_path=str(self.store.path),
            index_bytes=size,
            files=files,
            symbols=symbols,
            tokens=tokens,
            skipped=skipped,
            languages=self.store.languages(),
            kinds=self.store.kinds(),
        )


def _glob_match(path: str, glob: str) -> bool:
    glob = glob.strip()
    if fnmatch.fnmatchcase(path, glob):
        return True
    folder = glob.rstrip("/")
    return path.startswith(folder + "/") or fnmatch.fnmatchcase(path, folder + "/*")
