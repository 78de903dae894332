"""What the CLI prints: sanitised text, one JSON object, or one error line."""

from __future__ import annotations

import sys
from typing import Any

from symscope.core import api
from symscope.core.api import for_terminal

#: Exit codes: 1 for a failed operation, 2 for bad usage (argparse's convention).
EXIT_ERROR = 1
EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_ERROR) -> int:
    """Print one `symscope: error:` line (sanitised) and return `code`."""
    print(f"symscope: error: {for_terminal(message)}", file=sys.stderr)
    return code


def out(text: str = "") -> None:
    """Print text for a person: everything from the repo goes through the sanitiser."""
    sys.stdout.write(for_terminal(text) + "\n")


def emit(obj: Any) -> None:
    """Print one JSON object, byte-identical to what MCP and the benchmarks get (`api.emit`)."""
    sys.stdout.write(api.emit(obj))

