"""The `symscope` subcommands: a thin, script-friendly layer over `symscope.core.api`.

Each prints text or, with `--json`, one JSON object. Bad input is one line on
stderr and a non-zero exit, never a traceback. `symscope [PATH]` (the UI) is the
UI package's launcher's job: the engine never imports the UI.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from symscope.core import api, limits
from symscope.core.errors import BadQueryError, SymscopeError
from symscope.core.limits import IntRange, shown
from symscope.core.models import SYMBOL_KINDS
from symscope.core.sanitize import for_terminal

if TYPE_CHECKING:
    from symscope.core.index import Index

COMMANDS = (
    "index", "search", "show", "outline", "stats", "refs", "deps", "importers", "bundle", "languages", "mcp",
)
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


def _whole(allowed: IntRange) -> Callable[[str], int]:
    """An argparse type: a whole number in `allowed` (the engine's range), else a usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            value = None
        if value is None or not allowed.contains(value):
            raise argparse.ArgumentTypeError(f"must be {allowed.describe()}, not {shown(text)}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--index-dir", metavar="DIR", help="store this repo's index in DIR "
                        "(default: a per-repo folder under the user cache dir, or $SYMSCOPE_INDEX_DIR)")
    common.add_argument("--json", action="store_true", help="print one JSON object")
    common.add_argument("--max-files", type=_whole(limits.MAX_FILES), default=None, metavar="N",
                        help="stop indexing past N indexable files (default 200000)")
    common.add_argument("--allow-any-root", action="store_true",
                        help="index even the filesystem root or your home folder itself")

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
    p.add_argument("--max-file-bytes", type=_whole(limits.MAX_FILE_BYTES), default=None, metavar="N",
                   help="skip files larger than N bytes (default 1000000)")
    p.add_argument("--semantic", action="store_true",
                   help="also embed symbols for hybrid search (needs the `semantic` extra); "
                   "later runs keep the vectors current")

    p = sub.add_parser("search", parents=[common], help="search symbols by keywords or plain English")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--repo", metavar="PATH", default=".")
    p.add_argument("--limit", type=_whole(limits.SEARCH_LIMIT), default=10, metavar="N")
    p.add_argument("--kind", choices=SYMBOL_KINDS, metavar="K", help=f"one of: {', '.join(SYMBOL_KINDS)}")
    p.add_argument("--lang", metavar="L", help="language name, e.g. python, go")
    p.add_argument("--path", metavar="GLOB", help="only paths matching GLOB (e.g. 'lib/*', '*.go')")

    p = sub.add_parser("show", parents=[common], help="print a symbol's exact source")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("outline", parents=[common], help="symbols of a file, or files and symbols of a folder")
    p.add_argument("target", metavar="FILE_OR_DIR", nargs="?", default=".")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("refs", parents=[common], help="symbols that use a symbol, with the line of the use")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("deps", parents=[common], help="what a symbol uses, nearest first, with tokens")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", metavar="PATH", default=".")
    p.add_argument("--depth", type=_whole(limits.DEPTH), default=1, metavar="N",
                   help="follow uses N levels deep (1-5)")

    p = sub.add_parser("importers", parents=[common], help="files that import a file or module")
    p.add_argument("target", metavar="PATH")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("stats", parents=[common], help="files, symbols, tokens and languages")
    p.add_argument("--repo", metavar="PATH", default=".")

    p = sub.add_parser("bundle", parents=[common], help="a paste-ready bundle of symbols, within a budget")
    p.add_argument("ids", metavar="ID", nargs="*", help="symbol IDs or indexed file paths")
    p.add_argument("--repo", metavar="PATH", default=".")
    p.add_argument("--deps", type=_whole(limits.BUNDLE_DEPS), default=0, metavar="N",
                   help="also add what they use, N levels deep (0-5)")
    p.add_argument("--budget", type=_whole(limits.BUDGET), default=None, metavar="T",
                   help="at most T cl100k tokens, exactly")
    p.add_argument("--format", choices=("markdown", "xml"), default="markdown")
    p.add_argument("--diff", nargs="?", const="HEAD", default=None, metavar="REF",
                   help="add the symbols changed against REF (default HEAD) and their callers' signatures")
    p.add_argument("--no-redact", action="store_true", help="keep secrets (redacted by default)")
    p.add_argument("--out", metavar="FILE", help="write the text to FILE (mode 600) instead of stdout")

    sub.add_parser("languages", parents=[common], help="supported languages, extensions and kinds")

    p = sub.add_parser("mcp", parents=[common], help="serve the index to coding agents over MCP (stdio)")
    p.add_argument("--repo", metavar="PATH", default=".")
    p.add_argument("--debug", action="store_true",
                   help="log the traceback of an unexpected error on stderr (also SYMSCOPE_DEBUG=1)")
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
    except BadQueryError as exc:
        return fail(str(exc), EXIT_USAGE)
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


def fail(message: str, code: int = EXIT_ERROR) -> int:
    """Print one `symscope: error:` line (sanitised) and return `code`."""
    print(f"symscope: error: {for_terminal(message)}", file=sys.stderr)
    return code


def _dispatch(args: argparse.Namespace) -> int:
    handler = {
        "index": _cmd_index,
        "search": _cmd_search,
        "show": _cmd_show,
        "outline": _cmd_outline,
        "stats": _cmd_stats,
        "refs": _cmd_refs,
        "deps": _cmd_deps,
        "importers": _cmd_importers,
        "bundle": _cmd_bundle,
        "languages": _cmd_languages,
        "mcp": _cmd_mcp,
    }[args.command]
    return handler(args)


def _out(text: str = "") -> None:
    """Print text for a person: everything from the repo goes through the sanitiser."""
    sys.stdout.write(for_terminal(text) + "\n")


def _emit(obj: Any) -> None:
    sys.stdout.write(api.emit(obj))


def _open(args: argparse.Namespace) -> Index:
    return api.open_index(args.repo, args.index_dir, max_files=args.max_files,
                          allow_any_root=args.allow_any_root)


def _cmd_index(args: argparse.Namespace) -> int:
    from symscope.core.index import Index

    with Index.open(args.path, args.index_dir, discard_corrupt=args.rebuild) as index:
        kwargs: dict[str, Any] = {"rebuild": args.rebuild, "allow_any_root": args.allow_any_root}
        if args.max_files is not None:
            kwargs["max_files"] = args.max_files
        if args.max_file_bytes is not None:
            kwargs["max_file_bytes"] = args.max_file_bytes
        if args.semantic:
            from symscope.core import semantic

            if not semantic.available():
                return fail("hybrid search needs the semantic extra: pip install 'symscope[semantic]'",
                            EXIT_USAGE)
        data = api.report_json(index, index.update(**kwargs))
        embedded = api.refresh_vectors(index, force=args.semantic)
        if embedded is not None:
            data["semantic"] = embedded
    if args.json:
        _emit(data)
        return 0
    _out(f"indexed {data['root']}")
    _out(
        f"  files {data['files']}  symbols {data['symbols']}  parsed {data['parsed']}  "
        f"unchanged {data['unchanged']}  removed {data['removed']}  skipped {data['skipped']}  "
        f"in {data['seconds']:.2f}s"
    )
    by_reason: dict[str, list[str]] = {}
    for s in data["skipped_files"]:
        by_reason.setdefault(s["reason"], []).append(s["path"])
    for reason, paths in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(paths[:3]) + (f", … (+{len(paths) - 3})" if len(paths) > 3 else "")
        _out(f"  skipped {len(paths):>5}  {reason}: {shown}")
    if "semantic" in data:
        sem = data["semantic"]
        _out(f"  embedded {sem['embedded']} new of {sem['symbols']} symbols for hybrid search "
             f"in {sem['seconds']:.1f}s")
    _out(f"  index: {data['index']}  (--json lists every skipped file)")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        return fail("empty query: give one or more words to search for", EXIT_USAGE)
    with _open(args) as index:
        data = api.search(index, args.query, args.limit, args.kind, args.lang, args.path)
    if args.json:
        _emit(data)
        return 0
    if not data["results"]:
        _out(f"no symbols match {args.query!r}")
        return 0
    for h in data["results"]:
        also = f"  (+{h.get('also_count', len(h['also']))} {h['folded']})" if h.get("also") else ""
        _out(f"{h['score']:7.2f}  {h['kind']:<9} {h['qualname']}  {h['path']}:{h['start_line']}  "
             f"{h['tokens']} tok{also}")
        _out(f"         {h['signature']}")
        _out(f"         id: {h['id']}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from symscope.core.secrets import describe, find_secrets

    with _open(args) as index:
        data = api.show(index, args.id)
    if args.json:
        _emit(data)
    else:
        source: str = data["source"]
        _out(source[:-1] if source.endswith("\n") else source)
    found = find_secrets(data["source"], data["path"])  # shown exactly: the user's own terminal
    if found:
        print(f"symscope: note: this text holds {describe(found)}; bundles and MCP redact them",
              file=sys.stderr)
    return 0


def _print_outline(nodes: list[dict[str, Any]], depth: int = 0) -> None:
    for n in nodes:
        _out(f"{'  ' * depth}{n['kind']:<9} {n['name']}  L{n['start_line']}-{n['end_line']}  "
             f"{n['tokens']} tok")
        _print_outline(n["children"], depth + 1)


def _cmd_outline(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.outline(index, args.target)
    if args.json:
        _emit(data)
    elif "symbols" in data:
        _out(f"{data['path']}  ({data['language']}, {data['tokens']} tokens)")
        _print_outline(data["symbols"], 1)
    else:
        for f in data["files"]:
            _out(f"{f['path']}  ({f['tokens']} tok)")
            for s in f["symbols"]:
                _out(f"  {s['kind']:<9} {s['name']}  L{s['start_line']}  {s['tokens']} tok")
    return 0


def _cmd_refs(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.refs(index, args.id)
        name = index.symbol(args.id).name
    if args.json:
        _emit(data)
        return 0
    _out(f"{len(data['references'])} symbols mention {name!r}")
    for r in data["references"]:
        _out(f"  {r['kind']:<9} {r['qualname']}  {r['path']}:{r['line']}")
    return 0


def _cmd_deps(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.deps(index, args.id, args.depth)
    if args.json:
        _emit(data)
        return 0
    _out(f"{data['id']} uses {len(data['deps'])} symbols ({data['tokens']} tokens), depth {data['depth']}")
    for d in data["deps"]:
        mark = "  (ambiguous)" if d["ambiguous"] else ""
        _out(f"  {d['distance']}  {d['kind']:<9} {d['qualname']}  {d['path']}:{d['start_line']}  "
             f"{d['tokens']} tok{mark}")
        _out(f"     id: {d['id']}")
    return 0


def _cmd_importers(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.importers(index, args.target)
    if args.json:
        _emit(data)
        return 0
    _out(f"{len(data['importers'])} files import {data['target']}")
    for i in data["importers"]:
        _out(f"  {i['path']}:{i['line']}  ({i['module']})")
        for sym_id in i["symbols"]:
            _out(f"    used by {sym_id}")
    return 0


def _cmd_bundle(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.bundle(index, args.ids, deps=args.deps, budget=args.budget, fmt=args.format,
                          diff_ref=args.diff, redact=not args.no_redact)
    if args.out:
        from symscope.core.private import write_private

        try:
            write_private(Path(args.out), data["text"])
        except OSError as exc:
            raise SymscopeError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if args.json:
        _emit(data)
    elif not args.out:
        text: str = data["text"]
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    budget = f" of {data['budget']:,}" if data["budget"] is not None else ""
    dropped = f", {len(data['dropped'])} dropped" if data["dropped"] else ""
    where = f" to {args.out}" if args.out else ""
    count = len(data["items"])
    print(for_terminal(f"symscope: bundle of {count} item{'' if count == 1 else 's'}{dropped}, {data['tokens']:,}"
                       f"{budget} tokens, {data['redacted']} secrets redacted{where}"), file=sys.stderr)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.stats(index)
    if args.json:
        _emit(data)
        return 0
    _out(f"{data['root']}\n  files {data['files']}  symbols {data['symbols']}  "
         f"tokens {data['tokens']:,}  skipped {data['skipped']}")
    for lang, v in data["languages"].items():
        _out(f"  {lang:<11} {v['files']:>6} files {v['tokens']:>10,} tokens")
    _out("  kinds: " + ", ".join(f"{k} {n}" for k, n in data["kinds"].items()))
    _out(f"  index: {data['index']} ({data['index_bytes'] / 1e6:.1f} MB)")
    return 0


def _cmd_languages(args: argparse.Namespace) -> int:
    data = api.languages()
    if args.json:
        _emit(data)
        return 0
    for lang in data["languages"]:
        _out(f"{lang['name']:<12} {' '.join(lang['extensions']):<32} {', '.join(lang['kinds'])}")
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from symscope.core.mcp_server import serve
    except ImportError as exc:
        raise SymscopeError(
            f"the MCP server needs the `mcp` extra ({exc.name} is missing): pip install 'symscope[mcp]'"
        ) from None
    return int(serve(args.repo, args.index_dir, args.max_files, args.allow_any_root, args.debug))


if __name__ == "__main__":  # pragma: no cover
    run()
