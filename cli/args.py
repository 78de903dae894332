"""The `symscope` command line's grammar: subcommands, options and their ranges.

Usage errors are one `symscope: error:` line and exit 2, never argparse's usage dump.
The ranges are the engine's (`symscope.core.limits`), so the CLI and the engine agree.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from symscope.cli.output import EXIT_USAGE
from symscope.core.api import IntRange, limits
from symscope.core.models import SYMBOL_KINDS

COMMANDS = (
    "index", "search", "show", "outline", "stats", "refs", "deps", "importers", "bundle", "languages", "mcp",
)


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


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked: reading the installed metadata costs every
    other command (a search in a fresh process) about 20 ms."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit", **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"symscope {_version()}")  # on stdout, as argparse's own version action prints
        parser.exit()


def _whole(allowed: IntRange) -> Callable[[str], int]:
    """An argparse type: a whole number in `allowed` (the engine's range), else a usage error."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10)
        except ValueError:
            value = None
        if value is None or not allowed.contains(value):
            raise argparse.ArgumentTypeError(f"must be {allowed.describe()}, not {limits.shown(text)}")
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
    parser.add_argument("--version", action=_VersionAction)
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
    p.add_argument("--deps-level", choices=("signature", "full"), default="signature",
                   help="the level --deps adds them at (default signature; the IDs named stay full)")
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
