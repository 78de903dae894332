"""The `symscope` subcommands: a thin, script-friendly layer over `symscope.core.api`.

Each prints text or, with `--json`, one JSON object. Bad input is one line on
stderr and a non-zero exit, never a traceback. `symscope [PATH]` (the UI) is the
UI package's launcher's job: the engine never imports the UI.

The grammar is `args.py`, the commands `commands.py`, what they print `output.py`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from symscope.cli.args import build_parser, is_command, make_parser
from symscope.cli.commands import HANDLERS
from symscope.cli.output import EXIT_ERROR, EXIT_USAGE, fail
from symscope.core.errors import BadQueryError, SymscopeError

__all__ = ["EXIT_ERROR", "EXIT_USAGE", "fail", "is_command", "main", "make_parser", "run"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(args_list)
    if args.command is None:
        build_parser().print_usage(sys.stderr)
        return fail("give a command (or run `symscope [PATH]` for the terminal UI)", EXIT_USAGE)
    try:
        return int(HANDLERS[args.command](args))
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

