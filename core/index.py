"""`Index`: the facade that opens one repo's index and reads symbols back exactly.

Building is `indexer.Indexer`'s job and ranking `search.Searcher`'s; front ends
call `symscope.core.api`, which returns the JSON shapes, or this class directly.

    with Index.open("path/to/repo") as index:
        index.update()
        hits = index.search("middleware", limit=5)
        print(index.source(hits[0].symbol.id))
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from symscope.core import limits
from symscope.core.errors import (
    IndexCorruptError,
    NotARepoError,
    StaleSymbolError,
    SymscopeError,
    UnknownSymbolError,
)
from symscope.core.files import read_current, read_repo_file
from symscope.core.hashing import content_hash
from symscope.core.indexer import MAX_FILE_BYTES, MAX_FILES, Indexer, own_term_index
from symscope.core.languages import extractor_fingerprint
from symscope.core.models import (
    FileOutline,
    FileRecord,
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
from symscope.core.pathnames import escape_controls, escape_name, fs_path
from symscope.core.settings import current, index_fingerprint
from symscope.core.store import Store, intact

if TYPE_CHECKING:
    from symscope.core.deps import Dependencies
    from symscope.core.search.searcher import Searcher

#: Environment variable that moves the cache root (one folder per repo below it).
INDEX_DIR_ENV = "SYMSCOPE_INDEX_DIR"
#: A name given where an id belongs that names several symbols: this many ids are offered.
NAMED_SHOWN = 5
#: An unknown id is answered with this many nearest ids (a search for its name part).
NEAREST_SHOWN = 3
#: Characters of a given id repeated in an error (an answer never echoes a whole argument).
ECHO_CHARS = 100
__all__ = ["INDEX_DIR_ENV", "MAX_FILE_BYTES", "Index", "default_index_dir"]


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


class Index:
    """An index of one repository: build it, search it, read symbols back exactly."""

    def __init__(self, root: Path, index_dir: Path, store: Store) -> None:
        self.root = root
        self.index_dir = index_dir
        self.store = store
        self._searcher: Searcher | None = None
        self._deps: Dependencies | None = None

    @property
    def searcher(self) -> Searcher:
        """The ranker, made on first use: an index-only process (a one-file refresh) never imports it."""
        if self._searcher is None:
            from symscope.core.search.searcher import Searcher

            self._searcher = Searcher(self.store, self.index_dir)
        return self._searcher

    @classmethod
    def open(cls, root: str | os.PathLike[str], index_dir: str | os.PathLike[str] | None = None,
             discard_corrupt: bool = False) -> Index:
        """Open (creating if needed) the index of the repo at `root`.

        Args:
            root: The repository folder.
            index_dir: Where this repo's index lives (default: a per-repo cache folder).
            discard_corrupt: If the index cannot be read, move it aside (to
                `index.sqlite.corrupt`) and start a fresh one instead of raising.

        Raises:
            NotARepoError: `root` is missing or not a directory.
            IndexCorruptError: the index exists but cannot be read.
            UnknownLeverError: `SYMSCOPE_SEARCH_OFF` names no lever (said before anything is touched).
        """
        current()
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
            if not discard_corrupt or not db.exists() or intact(db):
                raise  # never set aside an index that opens and passes PRAGMA quick_check
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
    def search_path(self) -> Path:
        """The term index's folder (`search/termindex.py`)."""
        return self.searcher.terms.folder

    @property
    def is_built(self) -> bool:
        """True once an `update()` has completed with this version's extractor and tokenizer,
        under the search settings in use (a lever that changes stored terms needs a rebuild)."""
        return (
            self.store.get_meta("indexed_at") is not None
            and self.store.get_meta("fingerprint") == index_fingerprint(extractor_fingerprint())
        )

    # -- building -------------------------------------------------------------

    def update(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        processes: int | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
        rebuild: bool = False,
        max_files: int | None = MAX_FILES,
        allow_any_root: bool = False,
    ) -> IndexReport:
        """Bring the index up to date, parsing only files whose content changed.

        Args:
            progress: Called (from this thread) as the run walks, after each parsed file, and
                around building the search data: `IndexProgress.phase` says which.
            cancelled: Polled between files; when it returns True, work stops after
                committing what is done, leaving a consistent index.
            processes: Parser processes; default uses every core when there is enough work.
            max_file_bytes: Larger files are skipped and reported.
            rebuild: Re-parse every file even if unchanged.
            max_files: Stop (TooManyFilesError) past this many indexable files; None: no limit.
            allow_any_root: Index even the filesystem root or the home folder itself.

        Raises:
            BadArgumentError: a number out of its range (`core.limits`), before anything is touched.
        """
        limits.MAX_FILE_BYTES.check("max_file_bytes", max_file_bytes)
        if max_files is not None:
            limits.MAX_FILES.check("max_files", max_files)
        if processes is not None:
            limits.PROCESSES.check("processes", processes)
        synced = self._searcher if self._searcher is not None else own_term_index(self.index_dir, self.store)
        return Indexer(self.root, self.store, synced).update(  # and the search data
            progress, cancelled, processes, max_file_bytes, rebuild, max_files, allow_any_root
        )

    def recheck(self, folders: list[str]) -> int:
        """Make the next update re-read (and re-hash) every indexed file under `folders`.

        For edits that kept size and mtime (`cp -p`, `rsync -t`, archive extraction),
        which the stat check cannot see. Returns how many files were marked.
        """
        wanted = [f.strip("/") for f in folders]
        marked = [r.path for r in self.store.files()
                  if any(not f or r.path == f or r.path.startswith(f + "/") for f in wanted)]
        if marked:
            with self.store.transaction() as conn:
                for path in marked:
                    Store.touch_file(conn, path, -1)
        return len(marked)

    def generation(self) -> int:
        """The index's change counter on disk: every index run that changes it (in any process) bumps it."""
        return self.store.generation()

    # -- search -----------------------------------------------------------------

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
            Hits, best first; copies (same text, or most terms shared) and one file's variants of a
            name are folded into one hit's `duplicates`, headed by the primary copy (`fold` says which).
            A one-word query with few hits also lists, after them, the symbols whose names it
            abbreviates (`bjson` -> `Context.BindJSON`; `SearchHit.abbreviated`), so every face
            answers an abbreviation alike.
        """
        limits.SEARCH_LIMIT.check("limit", limit)
        return self.searcher.search(query, limit, kind, language, path_glob)

    # -- retrieval ----------------------------------------------------------------

    def symbol(self, symbol_id: str) -> Symbol:
        # Ids are stored with control characters and undecodable bytes escaped (core/pathnames.py):
        # one pasted as on disk (a raw newline, `\udcff` from argv) finds the same symbol.
        shown = escape_controls(symbol_id)
        sym = self.store.symbol(shown)
        if sym is not None:
            return sym
        if "::" not in shown and shown.strip():
            named = self.store.symbols_named(shown.strip(), NAMED_SHOWN + 1)
            # a dotted name is a qualified one and may pick one of several same-named members;
            # a plain name is a name, and must be unique among all symbols (top-level or not)
            exact = [s for s in named if s.qualname == shown.strip()] if "." in shown else []
            if len(exact) == 1 or len(named) == 1:
                return exact[0] if len(exact) == 1 else named[0]
            if named:
                ids = tuple(s.id for s in named[:NAMED_SHOWN])
                more = "" if len(named) <= NAMED_SHOWN else ", ..."
                raise UnknownSymbolError(
                    f"{_cut(shown)} names {len(named) if not more else 'more than ' + str(NAMED_SHOWN)} "
                    f"symbols; give one id: " + ", ".join(ids) + more, candidates=ids)
        nearest = self._nearest(shown)
        offer = "; nearest: " + ", ".join(nearest) if nearest else ""
        raise UnknownSymbolError(f"unknown symbol id: {_cut(shown)}{offer}", nearest=nearest)

    def _nearest(self, given: str) -> tuple[str, ...]:
        """Ids a search for the id's name part finds, nearest first (none, never an error)."""
        words = given.split("::", 1)[-1].split("#", 1)[0].replace(".", " ").strip()[:200]
        if not words or not self.is_built:
            return ()
        try:
            hits = self.search(words, limit=NEAREST_SHOWN)
        except SymscopeError:
            return ()
        return tuple(h.symbol.id for h in hits)

    def indexed_bytes(self, path: str, symbol: Symbol | None = None) -> bytes:
        """A file's bytes, read safely now, if they are still what was indexed.

        The one place that reads a file and checks it against the index: `source`,
        `references`, bundles and the TUI all come through here.

        Args:
            path: Repo-relative path of an indexed file.
            symbol: If given, an edit elsewhere in the file is tolerated as long as
                this symbol's own bytes are unchanged at the same place.

        Raises:
            StaleSymbolError: the file is not indexed, gone, unreadable, unsafe (a
                symlink or FIFO swapped in) or changed since indexing.
        """
        record = self.store.file(path)
        if record is None:
            raise StaleSymbolError(f"{path} is not indexed; run `symscope index` again")
        try:
            return read_current(self.root, path, record.hash)
        except StaleSymbolError:
            if symbol is None:
                raise
            try:
                data = read_repo_file(self.root, path)
            except OSError:
                raise StaleSymbolError(f"cannot read {path}; run `symscope index` again") from None
            if content_hash(data[symbol.start_byte : symbol.end_byte]) != symbol.content_hash:
                raise
            return data

    def file_is_current(self, path: str) -> bool:
        """True when the file on disk still has the content that was indexed."""
        try:
            self.indexed_bytes(path)
        except StaleSymbolError:
            return False
        return True

    def source(self, symbol_or_id: Symbol | str, whole_lines: bool = False) -> str:
        """The symbol's exact source, read from the file now.

        Args:
            symbol_or_id: The symbol or its ID.
            whole_lines: Start at the beginning of its first line when only indentation
                precedes it, so a method keeps its indentation (for pasting); the
                default is the exact byte range.

        Raises:
            StaleSymbolError: the file changed since indexing, so the symbol's bytes may have moved.
        """
        sym = self.symbol(symbol_or_id) if isinstance(symbol_or_id, str) else symbol_or_id
        try:
            data = self.indexed_bytes(sym.path, sym)
        except StaleSymbolError as exc:
            raise StaleSymbolError(f"{exc}; {sym.qualname} may have moved") from None
        chunk = data[sym.start_byte : sym.end_byte]
        if whole_lines:
            line_start = data.rfind(b"\n", 0, sym.start_byte) + 1
            if not data[line_start : sym.start_byte].strip(b" \t"):  # only indentation before it
                chunk = data[line_start : sym.end_byte]
        return chunk.decode("utf-8", "replace")

    def file_text(self, path: str) -> str:
        """A whole indexed file as it is on disk now, as text (invalid UTF-8 replaced).

        For display: it may differ from what was indexed (`file_is_current` says).
        """
        if self.store.file(path) is None:
            raise NotARepoError(f"not an indexed file: {path}")
        try:
            return read_repo_file(self.root, path).decode("utf-8", "replace")
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
        return [i for i in self.store.imports()
                if i.module == module or i.module.endswith(("." + module, "/" + module))]

    def references(self, symbol_or_id: Symbol | str, limit: int = 200) -> list[Reference]:
        """Symbols whose source mentions this symbol's name as a whole identifier.

        A name-based reference graph: fast (candidates come from the search
        postings, then each is confirmed on the real source) and language-agnostic,
        but not type-aware, so same-named symbols share their references.
        """
        target = self.symbol(symbol_or_id) if isinstance(symbol_or_id, str) else symbol_or_id
        symbols = self.store.symbols_by_ids(self.searcher.mentioning(target.name))
        pattern = re.compile(rb"(?<![A-Za-z0-9_$])" + re.escape(target.name.encode()) + rb"(?![A-Za-z0-9_$])")
        by_file: dict[str, list[Symbol]] = {}
        for sym in symbols.values():
            if sym.id != target.id:
                by_file.setdefault(sym.path, []).append(sym)
        out: list[Reference] = []
        for path in sorted(by_file):
            try:
                data_bytes = self.indexed_bytes(path)
            except StaleSymbolError:
                continue  # changed since indexing: its offsets cannot be trusted
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

    @property
    def deps(self) -> Dependencies:
        """Uses, callers and importers of this index's symbols (`core/deps/`)."""
        if self._deps is None:
            from symscope.core.deps import Dependencies  # parses on demand: only its users pay

            self._deps = Dependencies(self)
        return self._deps

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

    def relpath(self, path: str | os.PathLike[str], cwd: Path | None = None) -> str:
        """A user-given path (absolute or relative to `cwd` or the repo) as a repo-relative one.

        The path may be given as the index shows it (names escaped: `d\\xff/a.py`) or
        as on disk; the shown form is tried first, so a copied path always finds
        the file it was shown for. The result is in the shown form.
        """
        text = os.fspath(path)
        here = cwd or Path.cwd()
        if Path(text).is_absolute():
            candidates = [Path(text)]
            shown = self._unescaped_under_root(text)
            if shown is not None:
                candidates.append(shown)
        else:
            candidates = [Path(fs_path(here, text)), Path(fs_path(self.root, text)), here / text, self.root / text]
        for cand in candidates:
            try:
                rel = cand.resolve().relative_to(self.root)
            except (ValueError, OSError):
                continue
            if cand.exists():
                return "" if str(rel) == "." else escape_name(rel.as_posix())
        raise NotARepoError(f"no such path in {escape_name(str(self.root))}: {escape_controls(text)}")

    def _unescaped_under_root(self, path: str) -> Path | None:
        """An absolute path below the root whose repo part is in the shown (escaped) form, on disk."""
        root = str(self.root)
        if not path.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return Path(fs_path(root, path[len(root.rstrip(os.sep)) + 1 :].replace(os.sep, "/")))

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
        size = sum(p.stat().st_size for p in self.index_dir.glob("*") if p.is_file()) if self.index_dir.exists() else 0
        return Stats(
            root=escape_name(str(self.root)),
            index_path=escape_name(str(self.store.path)),
            index_bytes=size,
            files=files,
            symbols=symbols,
            tokens=tokens,
            skipped=skipped,
            languages=self.store.languages(),
            kinds=self.store.kinds(),
        )


def _cut(text: str) -> str:
    """`text` as an error may repeat it: at most `ECHO_CHARS` characters, the cut marked."""
    return text if len(text) <= ECHO_CHARS else text[: ECHO_CHARS - 1] + "…"
