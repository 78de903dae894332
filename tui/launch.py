"""The `symscope` console script: subcommands go to the CLI (`symscope.cli`), anything else opens the UI.

This module is the only place that knows about both. It imports neither textual
nor the index until it knows which one is wanted, so `symscope search` starts as
fast as `python -m symscope.cli search` (a test checks the modules it loads).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

from symscope.cli import main as cli


def main(argv: Sequence[str] | None = None) -> int:
    """Run one `symscope` command line; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if cli.is_command(args):
        return cli.main(args)
    return _run_tui(args)


def run() -> NoReturn:
    """Console-script entry point."""
    args = sys.argv[1:]
    if cli.is_command(args):
        cli.run(args)  # exits without interpreter teardown (see `cli.run`)
    sys.exit(_run_tui(args))


def _run_tui(argv: list[str]) -> int:
    parser = cli.make_parser(prog="symscope", description="Open the symscope terminal UI on PATH.")
    parser.add_argument("path", metavar="PATH", nargs="?", default=".")
    parser.add_argument("--index-dir", metavar="DIR")
    args = parser.parse_args(argv)
    from symscope.core.api import Workspace
    from symscope.core.errors import SymscopeError

    try:
        ws = Workspace.open(args.path, args.index_dir, ensure=False)  # the app indexes, with progress
    except SymscopeError as exc:
        return cli.fail(str(exc))
    from symscope.tui.app import run_app  # textual loads only when the UI is wanted

    return int(run_app(ws))


if __name__ == "__main__":  # pragma: no cover
    run()
