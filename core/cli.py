"""The `symscope` subcommands: a thin, script-friendly layer over `symscope.core.api`.

Each prints text or, with `--json`, one JSON object. Bad input is one line on
stderr and a non-zero exit, never a traceback. `symscope [PATH]` (the UI) is
`symscope.tui.launch`'s job: the engine never imports the UI.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from symscope.core.errors import SymscopeError
from symscope.core.models import SYMBOL_KINDS, SearchHit, Symbol

if TYPE_CHECKING:
    from symscope.core.index import Index
    from symscope.core.models import IndexReport, OutlineNode

COMMANDS = ("index", "search", "show", "outline", "stats", "refs")
#: Exit codes: 1 for a failed operation, 2 for bad usage (argparse's convention).
EXIT_ERROR = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"symscope: error: {message} (see `symscope --help`)\n")


def make_parser(**kwargs: Any) -> argparse.ArgumentParser:
    """An argument parser whose usage errors are one `symscope: error:` line and exit 2."""
    return _Parser(**kwargs)


def is_command(argv: Sequence[str]) -> bool:
    """True when `argv` is a subcommand (or `--help`/`--version`), not `symscope [PATH]`."""
    return bool(argv) and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version"))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("symscope")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--index-dir", metavar="DIR", help="store this repo's index in DIR "
                        "(default: a per-repo folder under the user cache dir, or $SYMSCOPE_INDEX_DIR)")
    common.add_argument("--json", action="store_true", help="print one JSON object")

    parser = _Parser(
        prog="symscope",
        description="Browse, search and retrieve whole code symbols. "
        "Run `symscope [PATH]` for the terminal UI.",
    )
    parser.add_argument("--version", action="version", version=f"symscope {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("index", parents=[common], help="index (or refresh) a repository")
    p.add_argument("path", metavar="PATH", nargs="?", default=".")
    p.add_argument("--rebuild", action="store_true", help="discard the index and parse everything")
    p.add_argument("--max-file-bytes", type=int, default=None, metavar="N",
                   help="skip files larger than N bytes (default 1000000)")

    p = sub.add_parser("search", parents=[common], help="search symbols by keywords or plain English")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--repo", metavar="PATH", default=".")
    p.add_argument("--limit", type=int, default=10, metavar="N")
    p.add_argument("--kind", choices=SYMBOL_KINDS, metavar="K", help=f"one of: {', '.join(SYMBOL_KINDS)}")
    p.add_argument("--lang", metavar="L", help="language name, e.g. python, go")
    p.add_argument("--path", metavar="GLOB", help="only paths matching GLOB (e.g. 'lib/*', '*.go')")

    p = sub.add_parser("show", parents=[common], help="print a symbol's exact source")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("outline", parents=[common], help="symbols of a file, or files and symbols of a folder")
    p.add_argument("target", metavar="FILE_OR_DIR", nargs="?", default=".")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("refs", parents=[common], help="symbols that mention a symbol's name")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("stats", parents=[common], help="files, symbols, tokens and languages")
    p.add_argument("--repo", metavar="PATH", default=".")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(args_list)
    if args.command is None:
        build_parser().print_usage(sys.stderr)
        return fail("give a command (or run `symscope [PATH]` for the terminal UI)", EXIT_USAGE)
    try:
        return int(_dispatch(args))
    except SymscopeError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return fail("interrupted")
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """`main`, then exit without tearing the interpreter down.

    A command such as `search` does milliseconds of work in a process whose
    start-up and teardown dominate; finalizing every loaded module (numpy among
    them) costs about 0.1 s more. Every command has closed its index and the
    output is flushed first.
    """
    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader went away (`| head`)
            stream.flush()
    os._exit(code)


def _index_class() -> type[Index]:
    """`Index`, imported on first use: parser processes that re-import this module
    (the `spawn` start method, used beside the UI's threads) never load numpy for it."""
    from symscope.core.index import Index

    return Index


def fail(message: str, code: int = EXIT_ERROR) -> int:
    print(f"symscope: error: {message}", file=sys.stderr)
    return code


def _open(repo: str, index_dir: str | None, *, ensure: bool = True) -> Index:
    index = _index_class().open(repo, index_dir)
    if ensure and not index.is_built:
        index.update()
    return index


def _dispatch(args: argparse.Namespace) -> int:
    handler = {
        "index": _cmd_index,
        "search": _cmd_search,
        "show": _cmd_show,
        "outline": _cmd_outline,
        "stats": _cmd_stats,
        "refs": _cmd_refs,
    }[args.command]
    return handler(args)


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _cmd_index(args: argparse.Namespace) -> int:
    with _index_class().open(args.path, args.index_dir, discard_corrupt=args.rebuild) as index:
        kwargs: dict[str, Any] = {"rebuild": args.rebuild}
        if args.max_file_bytes is not None:
            kwargs["max_file_bytes"] = args.max_file_bytes
        report = index.update(**kwargs)
        if args.json:
            _emit(_report_json(index, report))
        else:
            _print_report(index, report)
    return 0


def _report_json(index: Index, report: IndexReport) -> dict[str, Any]:
    return {
        "root": str(index.root),
        "index": str(index.store.path),
        "files": report.files,
        "symbols": report.symbols,
        "parsed": report.parsed,
        "unchanged": report.unchanged,
        "removed": report.removed,
        "skipped": len(report.skipped),
        "seconds": round(report.seconds, 3),
        "skipped_files": [{"path": s.path, "reason": s.reason} for s in report.skipped],
    }


def _print_report(index: Index, report: IndexReport) -> None:
    print(f"indexed {index.root}")
    print(
        f"  files {report.files}  symbols {report.symbols}  parsed {report.parsed}  "
        f"unchanged {report.unchanged}  removed {report.removed}  skipped {len(report.skipped)}  "
        f"in {report.seconds:.2f}s"
    )
    by_reason: dict[str, list[str]] = {}
    for s in report.skipped:
        by_reason.setdefault(s.reason, []).append(s.path)
    for reason, paths in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(paths[:3]) + (f", … (+{len(paths) - 3})" if len(paths) > 3 else "")
        print(f"  skipped {len(paths):>5}  {reason}: {shown}")
    print(f"  index: {index.store.path}  (--json lists every skipped file)")


def symbol_json(sym: Symbol) -> dict[str, Any]:
    """The compact metadata shape of `search --json` results (without score)."""
    return {
        "id": sym.id,
        "name": sym.name,
        "qualname": sym.qualname,
        "kind": sym.kind,
        "language": sym.language,
        "path": sym.path,
        "start_line": sym.start_line,
        "end_line": sym.end_line,
        "signature": sym.signature,
        "tokens": sym.tokens,
    }


def _hit_json(hit: SearchHit) -> dict[str, Any]:
    """One search result; `also` (other IDs of identical copies) appears only when there are some."""
    out: dict[str, Any] = {**symbol_json(hit.symbol), "score": round(hit.score, 4)}
    if hit.duplicates:
        out["also"] = list(hit.duplicates)
    return out


def _cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        return fail("empty query: give one or more words to search for", EXIT_USAGE)
    if args.limit < 1:
        return fail("--limit must be at least 1", EXIT_USAGE)
    with _open(args.repo, args.index_dir) as index:
        hits = index.search(args.query, limit=args.limit, kind=args.kind, language=args.lang,
                            path_glob=args.path)
        if args.json:
            _emit({
                "query": args.query,
                "results": [_hit_json(h) for h in hits],
            })
            return 0
        if not hits:
            print(f"no symbols match {args.query!r}")
            return 0
        for h in hits:
            s = h.symbol
            also = f"  (+{len(h.duplicates)} identical)" if h.duplicates else ""
            print(f"{h.score:7.2f}  {s.kind:<9} {s.qualname}  {s.path}:{s.start_line}  "
                  f"{s.tokens} tok{also}")
            print(f"         {s.signature}")
            print(f"         id: {s.id}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    with _open(args.repo, args.index_dir) as index:
        sym = index.symbol(args.id)
        source = index.source(sym)
        if args.json:
            _emit({**symbol_json(sym), "docstring": sym.docstring, "source": source})
        else:
            sys.stdout.write(source if source.endswith("\n") else source + "\n")
    return 0


def _outline_json(node: OutlineNode) -> dict[str, Any]:
    return {**symbol_json(node.symbol), "children": [_outline_json(c) for c in node.children]}


def _print_outline(nodes: list[OutlineNode], depth: int = 0) -> None:
    for n in nodes:
        s = n.symbol
        print(f"{'  ' * depth}{s.kind:<9} {s.name}  L{s.start_line}-{s.end_line}  {s.tokens} tok")
        _print_outline(n.children, depth + 1)


def _cmd_outline(args: argparse.Namespace) -> int:
    with _open(args.repo, args.index_dir) as index:
        target = args.target
        if not Path(target).is_absolute() and not (Path.cwd() / target).exists():
            target = str(index.root / target)
        rel = index.relpath(target)
        record = index.file(rel) if rel else None
        if record is not None:
            nodes = index.outline(rel)
            if args.json:
                _emit({"path": rel, "language": record.language, "tokens": record.tokens,
                       "symbols": [_outline_json(n) for n in nodes]})
            else:
                print(f"{rel}  ({record.language}, {record.tokens} tokens)")
                _print_outline(nodes, 1)
            return 0
        if (index.root / rel).is_file():
            raise SymscopeError(f"{rel} is not indexed (run `symscope index` to see why it was skipped)")
        files = index.repo_outline(rel)
        if args.json:
            _emit({"path": rel or ".", "tokens": sum(f.file.tokens for f in files), "files": [
                {"path": f.file.path, "language": f.file.language, "tokens": f.file.tokens,
                 "symbols": [symbol_json(s) for s in f.symbols]} for f in files
            ]})
        else:
            for f in files:
                print(f"{f.file.path}  ({f.file.tokens} tok)")
                for s in f.symbols:
                    print(f"  {s.kind:<9} {s.name}  L{s.start_line}  {s.tokens} tok")
    return 0


def _cmd_refs(args: argparse.Namespace) -> int:
    with _open(args.repo, args.index_dir) as index:
        target = index.symbol(args.id)
        refs = index.references(target)
        if args.json:
            _emit({"id": target.id, "references": [
                {**symbol_json(r.symbol), "line": r.line} for r in refs
            ]})
            return 0
        print(f"{len(refs)} symbols mention {target.name!r}")
        for r in refs:
            print(f"  {r.symbol.kind:<9} {r.symbol.qualname}  {r.symbol.path}:{r.line}")
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open(args.repo, args.index_dir) as index:
        st = index.stats()
        if args.json:
            _emit({
                "root": st.root, "index": st.index_path, "index_bytes": st.index_bytes,
                "files": st.files, "symbols": st.symbols, "tokens": st.tokens,
                "skipped": st.skipped,
                "languages": {k: {"files": n, "tokens": t} for k, (n, t) in st.languages.items()},
                "kinds": st.kinds,
            })
        else:
            print(f"{st.root}\n  files {st.files}  symbols {st.symbols}  tokens {st.tokens:,}  "
                  f"skipped {st.skipped}")
            for lang, (n, t) in st.languages.items():
                print(f"  {lang:<11} {n:>6} files {t:>10,} tokens")
            print("  kinds: " + ", ".join(f"{k} {n}" for k, n in st.kinds.items()))
            print(f"  index: {st.index_path} ({st.index_bytes / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    run()
