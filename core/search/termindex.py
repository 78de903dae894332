"""`TermIndex`: the search's candidate stage, a tantivy index of every symbol's term bag.

Why tantivy (docs/search-engine-choice.md): segments on disk, memory-mapped, so a process
opens it without reading it; a change is a delete and an add per changed file; top-k
queries with block-max WAND stay under a millisecond at 50,000 files. SQLite stays the
store of symbols: this holds one document per symbol, written from the term bags the
indexer already stores (packed per file, `store_rows.py`), and nothing the store does not hold.

The two are kept in step through the store's `search_stale` table: every write of a
file's rows records its path in the same transaction, and `sync` re-writes those paths'
documents here, commits, then clears them. A crash between the two commits leaves the
paths recorded, so the next sync redoes them; nothing is ever silently out of step.

Scoring: tantivy's BM25 has the same k1, b and length normalisation as `rank.py`, but
another IDF. Each query term is boosted by its weight x our IDF / tantivy's, so a
document's score is the sum `rank.SparseBM25.get_scores` would give it (up to tantivy's
one-byte length codes).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy

from symscope.core.code_roles import in_test_module, is_auxiliary
from symscope.core.settings import DEFAULTS
from symscope.core.store import Store, make_private_dirs
from symscope.core.store_rows import nth_bag
from symscope.core.terms import compact

#: Bump when the documents' shape changes: an index of another version is rebuilt from the store.
VERSION = "1"
FOLDER = "search.tantivy"
#: The writer's memory budget (tantivy's floor is 15 MB per thread): bounded whatever the repo.
WRITER_HEAP = 64_000_000
#: Paths re-written per tantivy commit while syncing. Each commit makes a segment that the
#: writer's merges later read and re-write, so a first index's 50,000 files in batches of 500
#: paid for 100 segments' merges; memory stays bounded by `WRITER_HEAP` either way.
SYNC_BATCH = 4000
#: Rows read back from the store at a time when writing documents.
READ_BATCH = 900


@dataclass(frozen=True, slots=True)
class Hit:
    """One document found: its BM25 score (our IDF), the symbol's store row and bag length."""

    score: float
    row: int
    length: int
    pathkey: int
    """`path_key` of the file the document was written for (checked against the row's)."""


def path_key(path: str) -> int:
    """A 63-bit digest of a path: a document's row is trusted only when its path still matches."""
    return int.from_bytes(hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=8).digest(),
                          "big") >> 1


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_integer_field("row", stored=False, indexed=False, fast=True)
    b.add_integer_field("pathkey", stored=False, indexed=False, fast=True)
    b.add_integer_field("length", stored=False, indexed=False, fast=True)
    b.add_integer_field("aux", stored=False, indexed=True, fast=False)
    b.add_text_field("path", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("bag", stored=False, tokenizer_name="whitespace", index_option="freq")
    b.add_text_field("keys", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("xkeys", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("kind", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_text_field("lang", stored=False, tokenizer_name="raw", index_option="basic")
    return b.build()


def okapi_idf(df: int, n: int) -> float:
    """BM25Okapi's IDF for one term, before its floor (negative for a term in most documents).
    `df` counts deleted documents until tantivy merges them away: it is capped at `n`."""
    df = min(df, n)
    return math.log(n - df + 0.5) - math.log(df + 0.5)


def tantivy_idf(df: int, n: int) -> float:
    """The IDF tantivy's BM25 multiplies each term by."""
    df = min(df, n)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


class TermIndex:
    """The tantivy index beside one store; safe to share between threads of one process."""

    def __init__(self, index_dir: Path, store: Store) -> None:
        self.folder = index_dir / FOLDER
        self.store = store
        self._lock = threading.RLock()
        self._index: tantivy.Index | None = None
        self._searcher: tantivy.Searcher | None = None
        self._generation = -1
        self.epoch = 0
        """Counts searcher (re)loads: what a caller derived from document frequencies is good
        while it stays the same."""
        self._df: dict[str, int] = {}
        self._mean_idf: float | None = None
        self._avg_length: float | None = None
        self._memory = False
        """The index is in memory (`_in_memory`): nothing to sync, the store cannot change."""

    # -- opening and keeping in step ----------------------------------------------------------

    def _open(self) -> tantivy.Index:
        """The index, created (and every file marked for a sync) when missing or of another version."""
        if self._index is not None:
            return self._index
        stamp = self.folder / "symscope-version"
        # The stamp names the store it was written from: a store rebuilt from scratch (its
        # rows numbered anew) never reads an older store's documents.
        want = f"{VERSION} {self.store.get_meta('search_index') or ''}"
        fresh = not (self.folder.is_dir() and stamp.is_file() and stamp.read_text().strip() == want.strip()
                     and self.store.get_meta("search_index"))
        if not fresh and self.store.read_only:
            try:
                if self.store.query("SELECT 1 FROM search_stale LIMIT 1"):
                    raise ValueError("behind the store, and it cannot be synced")
                index = tantivy.Index.open(str(self.folder))
            except ValueError:  # tantivy takes a lock file to read: not on a read-only mount
                index = self._in_memory()
            self._index = index
            return index
        if fresh:
            if self.store.read_only:
                self._index = self._in_memory()
                return self._index
            if self.folder.exists():
                _clear(self.folder)
            make_private_dirs(self.folder)
            with contextlib.suppress(OSError):  # what older versions pickled instead
                (self.folder.parent / "rank.pickle").unlink(missing_ok=True)
            index = tantivy.Index(_schema(), path=str(self.folder))
            ident = secrets.token_hex(8)
            with self.store.transaction() as conn:
                conn.execute("INSERT OR IGNORE INTO search_stale(path) SELECT path FROM files")
                Store.set_meta(conn, "search_index", ident)
            stamp.write_text(f"{VERSION} {ident}")
            _private_files(self.folder)
        else:
            index = tantivy.Index.open(str(self.folder))
        self._index = index
        return index

    def _in_memory(self) -> tantivy.Index:
        """A term index in memory, written from the whole store: for an index that cannot be
        written (a read-only mount), so it can still be searched. Costs one pass at opening."""
        index = tantivy.Index(_SCHEMA)
        writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
        paths = [p for (p,) in self.store.query("SELECT path FROM files ORDER BY path")]
        for doc in self._documents(paths):
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self._memory = True
        return index

    def forget(self) -> None:
        """Drop the open searcher and cached statistics (the next read reloads)."""
        with self._lock:
            self._searcher = None

    def reset(self) -> None:
        """Forget the index on disk (`--rebuild`): the next sync writes every file again."""
        with self._lock:
            self._index = self._searcher = None
            if self.folder.exists():
                _clear(self.folder)

    def stale(self) -> bool:
        """True while some file's documents are not written yet (or the index is missing)."""
        if self._memory:
            return False
        if self._index is None and not (self.folder / "symscope-version").is_file():
            return True
        return bool(self.store.query("SELECT 1 FROM search_stale LIMIT 1"))

    def sync(self, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> int:
        """Write the documents of every file changed since the last sync; returns how many files.

        Raises:
            OSError: the index folder cannot be written (a read-only copy searches as it is).
            ValueError: another process holds tantivy's writer lock (it is syncing now).
        """
        with self._lock:
            index = self._open()
            todo = self.store.query("SELECT count(*) FROM search_stale")[0][0]
            if not todo:
                return 0
            writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
            done = 0
            try:
                while not (cancelled is not None and cancelled()):
                    paths = [p for (p,) in self.store.query(
                        "SELECT path FROM search_stale ORDER BY path LIMIT ?", (SYNC_BATCH,))]
                    if not paths:
                        break
                    for path in paths:
                        writer.delete_documents_by_term("path", path)
                    for doc in self._documents(paths):
                        writer.add_document(doc)
                    writer.commit()
                    with self.store.transaction() as conn:
                        conn.executemany("DELETE FROM search_stale WHERE path=?", [(p,) for p in paths])
                    done += len(paths)
                    if progress is not None:
                        progress(done, todo)
            finally:
                with contextlib.suppress(Exception):
                    writer.wait_merging_threads()
                _private_files(self.folder)
            self._searcher = None
            return done

    def _documents(self, paths: Sequence[str]) -> Iterable[tantivy.Document]:
        for start in range(0, len(paths), READ_BATCH):
            chunk = list(paths[start : start + READ_BATCH])
            marks = ",".join("?" * len(chunk))
            aux_file = {p: is_auxiliary(p) for p in chunk}
            bags = self.store.file_bags(chunk)  # packed per file in the store (`store_rows.py`)
            keyed = {p: path_key(p) for p in chunk}  # once per file, not per symbol
            for row, path, ord_, name, qualname, kind, language in self.store.query(
                f"SELECT sid, path, ord, name, qualname, kind, language FROM symbols "
                f"WHERE path IN ({marks})", chunk,
            ):
                terms = nth_bag(bags.get(path, []), ord_)
                bag = terms.split()
                keys = list(dict.fromkeys(k for k in (compact(name), compact(qualname)) if k))
                doc = tantivy.Document(
                    row=row, pathkey=keyed[path], length=len(bag),
                    aux=int(aux_file[path] or in_test_module(qualname, kind)),
                    path=path, bag=terms, kind=kind, lang=language,
                )
                for key in keys:
                    doc.add_text("keys", key)
                if qualname.startswith(("module.exports.", "exports.")):
                    # `module.exports.load` in settings.js is `settings.load` to its readers
                    stem_name = path.rsplit("/", 1)[-1].split(".", 1)[0]
                    doc.add_text("xkeys", compact(f"{stem_name}.{name}"))
                yield doc

    # -- reading ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Look at the store's generation once (a search starts here): reload when it moved."""
        self.searcher(self.store.generation())

    def _current(self) -> tantivy.Searcher:
        """The searcher as of the last `refresh` (no store read: a search asks many times)."""
        return self._searcher if self._searcher is not None else self.searcher(self.store.generation())

    def searcher(self, generation: int) -> tantivy.Searcher:
        """A searcher over the last commit, reloaded when the store's generation moved."""
        with self._lock:
            if self._searcher is None or generation != self._generation:
                index = self._open()
                index.reload()
                self._searcher = index.searcher()
                self._generation = generation
                self.epoch += 1
                self._df = {}
                self._mean_idf = self._avg_length = None
            return self._searcher

    @property
    def size(self) -> int:
        """How many symbols are searchable."""
        return int(self._current().num_docs)

    def df(self, term: str) -> int:
        """How many symbols' bags hold `term` (cached per generation)."""
        searcher = self._current()
        got = self._df.get(term)
        if got is None:
            got = self._df[term] = int(searcher.doc_freq("bag", term))
        return got

    def __contains__(self, term: str) -> bool:
        return self.df(term) > 0

    def prefixed(self, prefix: str, limit: int | None = 64) -> list[tuple[str, int]]:
        """Terms starting with `prefix`, commonest first, with their document frequencies."""
        return [(t, int(n)) for t, n in self._current().terms_with_prefix("bag", prefix, limit=limit)]

    def idf(self, term: str) -> float:
        """BM25Okapi's IDF (as rank-bm25 has it): a term in most documents gets the floor,
        epsilon x the mean IDF."""
        n, df = self.size, self.df(term)
        if df == 0 or n == 0:
            return 0.0
        idf = okapi_idf(df, n)
        if idf >= 0:
            return idf
        mean = self._mean()
        return DEFAULTS.epsilon * mean if mean > 0 else DEFAULTS.epsilon

    def _mean(self) -> float:
        """The mean IDF over the vocabulary (only a term in most documents needs it: read once
        per generation, and only then)."""
        if self._mean_idf is None:
            n = self.size
            dfs = [df for _, df in self._current().terms_with_prefix("bag", "")]
            self._mean_idf = sum(okapi_idf(df, n) for df in dfs) / len(dfs) if dfs else 0.0
        return self._mean_idf

    def avg_length(self) -> float:
        """The mean bag length (BM25's avgdl)."""
        if self._avg_length is None:
            searcher = self._current()
            if not searcher.num_docs:
                return 0.0
            got = searcher.aggregate(tantivy.Query.all_query(), {"avg": {"avg": {"field": "length"}}})
            self._avg_length = float(got["avg"]["value"] or 0.0)
        return self._avg_length

    def top(self, weights: dict[str, float], limit: int, *, kind: str | None = None,
            language: str | None = None, path_regex: str | None = None, aux: bool | None = None,
            key: str | None = None, exports: bool = False) -> list[Hit]:
        """The `limit` best documents for the terms, each weighted by its query weight x our IDF
        (`idf`), under the filters; `key` keeps only symbols with that compacted name or
        qualified name (and, with `exports`, `module.exports` members by their file's name)."""
        searcher = self._current()
        n = int(searcher.num_docs)
        should = []
        for term, weight in weights.items():
            df = self.df(term)
            if df == 0:
                continue
            boost = weight / tantivy_idf(df, n)
            should.append((tantivy.Occur.Should, tantivy.Query.boost_query(
                tantivy.Query.term_query(_SCHEMA, "bag", term), max(boost, 0.0))))
        if not should:
            return []
        must = [(tantivy.Occur.Must, tantivy.Query.boolean_query(should))]
        # filters score nothing (a term query on `aux` or `keys` would add its own BM25)
        must += [(tantivy.Occur.Must, tantivy.Query.const_score_query(q, 0.0))
                 for q in self._filters(kind, language, path_regex, key, exports)]
        if aux is not None:
            # Test and example code is most of a big repository: "not library code" is the
            # cheaper way to say "auxiliary" (measured 2.3 against 3.3 ms at 50k files).
            must.append((tantivy.Occur.MustNot, tantivy.Query.term_query(_SCHEMA, "aux", 0)) if aux
                        else (tantivy.Occur.Must, tantivy.Query.const_score_query(
                            tantivy.Query.term_query(_SCHEMA, "aux", 0), 0.0)))
        result = searcher.search(tantivy.Query.boolean_query(must), limit, count=False)
        return self._hits(searcher, result.hits)

    def with_term(self, term: str) -> list[int]:
        """The rows of every symbol whose bag holds `term`."""
        searcher = self._current()
        df = self.df(term)
        if df == 0:
            return []
        query = tantivy.Query.term_query(_SCHEMA, "bag", term)
        return [h.row for h in self._hits(searcher, searcher.search(query, df, count=False).hits)]

    def _filters(self, kind: str | None, language: str | None, path_regex: str | None,
                 key: str | None, exports: bool) -> list[tantivy.Query]:
        out = []
        if kind:
            out.append(tantivy.Query.term_query(_SCHEMA, "kind", kind))
        if language:
            out.append(tantivy.Query.term_query(_SCHEMA, "lang", language.lower()))
        if path_regex:
            out.append(tantivy.Query.regex_query(_SCHEMA, "path", path_regex))
        if key:
            fields = ("keys", "xkeys") if exports else ("keys",)
            out.append(tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(_SCHEMA, f, key)) for f in fields]))
        return out

    @staticmethod
    def _hits(searcher: tantivy.Searcher, hits: list[tuple[float, tantivy.DocAddress]]) -> list[Hit]:
        if not hits:
            return []
        addresses = [a for _, a in hits]
        rows = searcher.fast_field_values("row", addresses)
        lengths = searcher.fast_field_values("length", addresses)
        keys = searcher.fast_field_values("pathkey", addresses)
        return [Hit(float(s), int(r), int(n or 0), int(k or 0))
                for (s, _), r, n, k in zip(hits, rows, lengths, keys, strict=True) if r is not None]


_SCHEMA = _schema()


def _private_files(folder: Path) -> None:
    """tantivy writes its files with the umask's mode: take group and other bits off (the
    folder is 0700 already; the index holds the repo's words)."""
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            if entry.is_file() and not entry.is_symlink() and entry.stat().st_mode & 0o077:
                entry.chmod(0o600)


def _clear(folder: Path) -> None:
    """Remove the tantivy folder's files (never following a link out of it)."""
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            _clear(entry)
            entry.rmdir()
        else:
            entry.unlink(missing_ok=True)


def glob_regex(glob: str) -> str:
    """`paths.glob_match` as one regex over whole paths: fnmatch's `*`, `?` and `[...]` (a `*`
    crosses folders, as in fnmatch), or anything under the folder the glob names."""
    glob = glob.strip()
    out: list[str] = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[" and "]" in glob[i + 2 :]:
            end = glob.index("]", i + 2)
            body = glob[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(_escape(ch))
        i += 1
    folder = "".join(_escape(c) for c in glob.rstrip("/"))
    return f"(?:{''.join(out)})|(?:{folder}/.*)"


def _escape(ch: str) -> str:
    return "\\" + ch if ch in _META else ch


_META = frozenset("\\.+*?()|[]{}^$#&-~")
