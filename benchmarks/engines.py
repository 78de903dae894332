"""The candidate stage on two real engines, side by side: SQLite FTS5 and tantivy (issue 29.1).

    python -m benchmarks.engines REPO --index-dir IDX --work DIR [--out F]

Both engines index the same documents: one per symbol of an indexed repository (read through
`Workspace`), with five weighted fields of the engine's own terms (`symscope.core.terms`:
name, qualified name, signature and path split as identifiers, the docstring as prose). Each
figure comes from a fresh process: build, incremental update of 1 and 100 files (their old
documents deleted, new ones added, committed), open, query p50 over the labelled queries
(`queries.json`), size on disk and peak RSS. Recall@50 is the share of the current ranker's
top 5 that the engine's top 50 candidates contain, i.e. what a re-rank of those candidates
by today's ranker could still find. tantivy is a core dependency since it became the engine's candidate stage.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from benchmarks.infra import dir_bytes
from benchmarks.proctree import run

#: Field name -> weight, the same for both engines (BM25 column weights / query boosts).
FIELDS: dict[str, float] = {"name": 10.0, "qualname": 6.0, "signature": 3.0, "docstring": 1.0, "path": 2.0,
                            "body": 1.0}
#: The two document shapes measured: the weighted fields above, or one field holding the bag of
#: terms the engine itself stores per symbol (its names repeated by weight, kind, path, signature,
#: docstring, body, callees and literals: exactly what today's BM25 ranks).
SHAPES: dict[str, dict[str, float]] = {"fields": FIELDS, "bag": {"bag": 1.0}}
#: Body terms per symbol, as many as the engine's own bag keeps (settings' `max_body_terms`).
BODY_TERMS = 300
#: Candidates kept for the re-rank; recall is also given for a wider set, to show the slope.
CANDIDATES = 50
WIDE = 200
QUERIES = Path(__file__).with_name("queries.json")
#: One document: (symbol id, file path, {field: space-joined terms}).
Doc = tuple[str, str, dict[str, str]]


def extract(repo: Path, index_dir: Path) -> list[Doc]:
    """One document per symbol of the repository's index, terms split by the engine's own rules."""
    from symscope.core.api import Workspace
    from symscope.core.terms import body_terms, identifier_terms, prose_terms

    with Workspace.open(repo, index_dir, ensure=False) as ws:
        symbols = ws.all_symbols()
        # the engine's stored bag per symbol (Workspace.index is there for benchmarks like this)
        bags = {row[0]: row[6] for row in ws.index.store.rank_rows()}
    sources: dict[str, bytes] = {}
    for s in symbols:
        if s.path not in sources:
            sources[s.path] = (repo / s.path).read_bytes()
    return [(s.id, s.path, {
        "name": " ".join(identifier_terms(s.name)),
        "qualname": " ".join(identifier_terms(s.qualname)),
        "signature": " ".join(identifier_terms(s.signature)),
        "docstring": " ".join(prose_terms(s.docstring)),
        "path": " ".join(identifier_terms(s.path)),
        "body": " ".join(body_terms(sources[s.path][s.start_byte:s.end_byte], BODY_TERMS)),
        "bag": bags[s.id],
    }) for s in symbols]


def query_terms(query: str) -> list[str]:
    """A query's terms as the engine's ranker sees them (stop words dropped), deduplicated."""
    from symscope.core.terms import query_terms as terms

    return list(dict.fromkeys(t for t in terms(query) if t.isalnum()))


class Engine(Protocol):
    def build(self, docs: Sequence[Doc]) -> None: ...
    def replace(self, old: Sequence[Doc], new: Sequence[Doc]) -> None: ...
    def open(self) -> None: ...
    def search(self, terms: Sequence[str], k: int) -> list[str]: ...


class Fts5:
    """A contentless FTS5 table ranked by bm25() with column weights, and a rowid -> (id, path)
    table; a file's rows are deleted with their old terms, as FTS5 asks of a contentless table.

    `detail=full` because SQLite 3.40's bm25() scores every row 0 on a contentless
    `detail=column` table (the smaller choice), which would make the ranking the rowid order.
    """

    def __init__(self, folder: Path, fields: dict[str, float]) -> None:
        self.path = folder / "fts.sqlite"
        self.fields = fields
        self.db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        return self.db

    def build(self, docs: Sequence[Doc]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = self._connect()
        cols = ", ".join(self.fields)
        db.execute(f"CREATE VIRTUAL TABLE fts USING fts5({cols}, content='', detail=full)")
        db.execute("CREATE TABLE doc(rowid INTEGER PRIMARY KEY, sid TEXT, path TEXT)")
        db.execute("CREATE INDEX doc_path ON doc(path)")
        weights = ", ".join(str(w) for w in self.fields.values())
        db.execute("INSERT INTO fts(fts, rank) VALUES('rank', ?)", (f"bm25({weights})",))
        self._add(db, docs)
        db.commit()
        db.execute("INSERT INTO fts(fts) VALUES('optimize')")
        db.commit()

    def _add(self, db: sqlite3.Connection, docs: Sequence[Doc]) -> None:
        for sid, path, fields in docs:
            rowid = db.execute("INSERT INTO doc(sid, path) VALUES(?, ?)", (sid, path)).lastrowid
            db.execute(f"INSERT INTO fts(rowid, {', '.join(self.fields)}) VALUES(?{', ?' * len(self.fields)})",
                       (rowid, *(fields[f] for f in self.fields)))

    def replace(self, old: Sequence[Doc], new: Sequence[Doc]) -> None:
        db = self.db or self._connect()
        by_id = {sid: fields for sid, _, fields in old}
        for path in sorted({p for _, p, _ in old}):
            for rowid, sid in db.execute("SELECT rowid, sid FROM doc WHERE path = ?", (path,)).fetchall():
                db.execute(f"INSERT INTO fts(fts, rowid, {', '.join(self.fields)}) VALUES('delete', ?{', ?' * len(self.fields)})",
                           (rowid, *(by_id[sid][f] for f in self.fields)))
                db.execute("DELETE FROM doc WHERE rowid = ?", (rowid,))
        self._add(db, new)
        db.commit()

    def open(self) -> None:
        self._connect()

    def search(self, terms: Sequence[str], k: int) -> list[str]:
        assert self.db is not None
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        rows = self.db.execute("SELECT doc.sid FROM fts JOIN doc ON doc.rowid = fts.rowid "
                               "WHERE fts MATCH ? ORDER BY rank LIMIT ?", (match, k)).fetchall()
        return [r[0] for r in rows]


class Tantivy:
    """A tantivy index: the five text fields (boosted at query time), the id stored, the path a
    raw term so a file's documents are deleted by it; memory-mapped segments, one commit per change."""

    def __init__(self, folder: Path, fields: dict[str, float]) -> None:
        self.folder = folder / "tantivy"
        self.fields = fields
        self.index: Any = None
        self.searcher: Any = None

    @staticmethod
    def _module() -> Any:
        try:
            import tantivy
        except ImportError:
            raise SystemExit("benchmarks.engines: tantivy is not installed: pip install -e .") from None
        return tantivy

    def _schema(self) -> Any:
        tantivy = self._module()
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("sid", stored=True, tokenizer_name="raw")
        builder.add_text_field("file", stored=False, tokenizer_name="raw")
        for field in self.fields:
            builder.add_text_field(field, stored=False, index_option="freq")
        return builder.build()

    def _writer(self) -> Any:
        return self.index.writer(heap_size=50_000_000, num_threads=1)

    def _add(self, writer: Any, docs: Sequence[Doc]) -> None:
        tantivy = self._module()
        for sid, path, fields in docs:
            writer.add_document(tantivy.Document(sid=sid, file=path, **fields))

    def build(self, docs: Sequence[Doc]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.index = self._module().Index(self._schema(), path=str(self.folder))
        writer = self._writer()
        self._add(writer, docs)
        writer.commit()
        writer.wait_merging_threads()

    def replace(self, old: Sequence[Doc], new: Sequence[Doc]) -> None:
        if self.index is None:
            self.open()
        writer = self._writer()
        for path in sorted({p for _, p, _ in old}):
            writer.delete_documents("file", path)
        self._add(writer, new)
        writer.commit()
        writer.wait_merging_threads()

    def open(self) -> None:
        self.index = self._module().Index.open(str(self.folder))
        self.searcher = self.index.searcher()

    def search(self, terms: Sequence[str], k: int) -> list[str]:
        if not terms:
            return []
        query = self.index.parse_query(" ".join(terms), list(self.fields), field_boosts=self.fields)
        hits = self.searcher.search(query, k).hits
        return [self.searcher.doc(address)["sid"][0] for _, address in hits]


ENGINES = {"fts5": Fts5, "tantivy": Tantivy}


def _engine(name: str, shape: str, folder: Path) -> Engine:
    engine: Engine = Fts5(folder, SHAPES[shape]) if name == "fts5" else Tantivy(folder, SHAPES[shape])
    return engine


def _load(path: Path) -> list[Doc]:
    with path.open("rb") as f:
        return pickle.load(f)  # type: ignore[no-any-return]  # our own file, written by extract


def _changed(docs: Sequence[Doc], files: int) -> tuple[list[Doc], list[Doc]]:
    """The documents of the first `files` files, and the same with one more term each (an edit)."""
    paths = sorted({p for _, p, _ in docs})[:files]
    chosen = set(paths)
    old = [d for d in docs if d[1] in chosen]
    new = [(sid, path, {key: terms + " edited" for key, terms in fields.items()}) for sid, path, fields in old]
    return old, new


def worker(argv: Sequence[str]) -> dict[str, Any]:
    """One step in this (fresh) process: build, update N, or query; timed inside, in seconds."""
    step, (name, shape), docs_file, folder = argv[0], argv[1].split("/"), Path(argv[2]), Path(argv[3])
    engine = _engine(name, shape, folder)
    if step == "build":
        docs = _load(docs_file)
        t = time.perf_counter()
        engine.build(docs)
        return {"seconds": time.perf_counter() - t}
    if step == "update":
        old, new = _changed(_load(docs_file), int(argv[4]))
        engine.open()
        t = time.perf_counter()
        engine.replace(old, new)
        return {"seconds": time.perf_counter() - t, "docs": len(new)}
    # query: open, then every labelled query several times
    queries = json.loads(argv[4])
    t = time.perf_counter()
    engine.open()
    engine.search(query_terms(queries[0]), CANDIDATES)
    opened = time.perf_counter() - t
    found = {q: engine.search(query_terms(q), WIDE) for q in queries}
    samples = []
    for _ in range(5):
        for q in queries:
            terms = query_terms(q)
            s = time.perf_counter()
            engine.search(terms, CANDIDATES)
            samples.append(time.perf_counter() - s)
    return {"open_s": opened, "p50_ms": statistics.median(samples) * 1000, "found": found}


def _step(*args: str) -> tuple[dict[str, Any], float, float]:
    done = run([sys.executable, "-m", "benchmarks.engines", "--step", *args])
    return json.loads(done.stdout), done.seconds, done.tree_mb


def ranker_top5(repo: Path, index_dir: Path, queries: Sequence[str]) -> dict[str, list[str]]:
    """Today's ranker's top 5 ids for each query, through the API the faces use."""
    from symscope.core.api import Workspace

    with Workspace.open(repo, index_dir, ensure=False) as ws:
        return {q: [h.symbol.id for h in ws.search(q, limit=5)] for q in queries}


def compare(repo: Path, index_dir: Path, work: Path, engines: Sequence[str]) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    docs = extract(repo, index_dir)
    extract_s = time.perf_counter() - t
    docs_file = work / "docs.pickle"
    with docs_file.open("wb") as f:
        pickle.dump(docs, f)
    queries = list(dict.fromkeys(q["query"] for q in json.loads(QUERIES.read_text())["queries"]))
    top5 = ranker_top5(repo, index_dir, queries)
    out: dict[str, Any] = {"docs": len(docs), "files": len({p for _, p, _ in docs}),
                           "extract_s": round(extract_s, 1), "queries": len(queries), "engines": {}}
    variants = [f"{name}/{shape}" for shape in SHAPES for name in engines]
    for name in variants:
        folder = work / name.replace("/", "-")
        if folder.exists():
            shutil.rmtree(folder)
        built, build_wall, build_rss = _step("build", name, str(docs_file), str(folder))
        disk = dir_bytes(folder)
        updates = {}
        for n in (1, 100):
            got, wall, rss = _step("update", name, str(docs_file), str(folder), str(n))
            updates[n] = {"seconds": round(got["seconds"], 3), "wall_s": round(wall, 2), "rss_mb": round(rss, 1)}
        queried, query_wall, query_rss = _step("query", name, str(docs_file), str(folder), json.dumps(queries))
        found = {q: set(queried["found"][q][:CANDIDATES]) for q in queries}
        wide = {q: set(queried["found"][q]) for q in queries}
        hit = [len(set(top5[q]) & found[q]) / len(top5[q]) for q in queries if top5[q]]
        hit_wide = [len(set(top5[q]) & wide[q]) / len(top5[q]) for q in queries if top5[q]]
        full = sum(1 for q in queries if top5[q] and set(top5[q]) <= found[q])
        out["engines"][name] = {
            "build_s": round(built["seconds"], 2), "build_wall_s": round(build_wall, 2),
            "build_rss_mb": round(build_rss, 1), "disk_mb": round(disk / 2**20, 1),
            "update_1": updates[1], "update_100": updates[100],
            "open_s": round(queried["open_s"], 4), "query_process_wall_s": round(query_wall, 2),
            "query_rss_mb": round(query_rss, 1), "query_p50_ms": round(queried["p50_ms"], 2),
            "recall_at_50_of_top5": round(statistics.mean(hit), 3),
            "recall_at_200_of_top5": round(statistics.mean(hit_wide), 3),
            "queries_with_whole_top5": f"{full}/{len(hit)}",
        }
    return out


def table(result: dict[str, Any]) -> str:
    names = list(result["engines"])
    rows = [
        ("build (s, in process)", "build_s"), ("build peak RSS (MB)", "build_rss_mb"),
        ("update 1 file (s)", "update_1.seconds"), ("update 100 files (s)", "update_100.seconds"),
        ("update 100 files peak RSS (MB)", "update_100.rss_mb"),
        ("open + first query, fresh process (s)", "open_s"), ("query p50 (ms)", "query_p50_ms"),
        ("query process peak RSS (MB)", "query_rss_mb"), ("disk (MB)", "disk_mb"),
        ("recall@50 of the ranker's top 5", "recall_at_50_of_top5"),
        ("recall@200 of the ranker's top 5", "recall_at_200_of_top5"),
        ("queries whose whole top 5 is in the 50", "queries_with_whole_top5"),
    ]
    lines = ["| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, key in rows:
        cells = []
        for name in names:
            value: Any = result["engines"][name]
            for part in key.split("."):
                value = value[part]
            cells.append(str(value))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["--step"]:
        print(json.dumps(worker(args_list[1:])))
        return 0
    p = argparse.ArgumentParser(prog="python -m benchmarks.engines", description=__doc__.split("\n")[0])
    p.add_argument("repo", type=Path)
    p.add_argument("--index-dir", type=Path, required=True, help="the repository's symscope index")
    p.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "symscope-engines")
    p.add_argument("--engines", default="fts5,tantivy")
    p.add_argument("--out", type=Path, default=Path("benchmarks/engines_results.json"))
    args = p.parse_args(args_list)
    engines = [e for e in args.engines.split(",") if e]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or not args.index_dir.is_dir():
        print(f"benchmarks.engines: unknown engine {unknown[0]}" if unknown
              else f"benchmarks.engines: no index at {args.index_dir}", file=sys.stderr)
        return 2
    if "tantivy" in engines:
        Tantivy._module()
    result = compare(args.repo, args.index_dir, args.work, engines)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
