"""What the CLI prints: sanitised text, one JSON object, or one error line."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from symscope.core import api
from symscope.core.api import for_terminal
from symscope.core.models import IndexProgress

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


def progress_text(p: IndexProgress) -> str:
    """One index phase for a person: "walking… 12,345 files", "parsing 1,234 / 50,000", ..."""
    if p.phase == "walk":
        return f"walking… {p.done:,} files"
    if p.phase == "parse":
        return f"parsing {p.done:,} / {p.total:,}"
    return "building search data…"


class ProgressLine:
    """An index run's phase on one line of a terminal, rewritten in place and erased at the end.

    Counts only (never a path from the repo), at most one write per `INTERVAL` within a phase, so
    a burst of small files costs nothing. Only for a terminal: a pipe or a log file gets nothing.
    """

    INTERVAL = 0.1

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.phase = ""
        self.written = 0.0
        self.width = 0
        self.text = ""

    @classmethod
    def on(cls, stream: TextIO) -> ProgressLine | None:
        """A line on `stream` if it is a terminal, else None (output stays as it was)."""
        try:
            return cls(stream) if stream.isatty() else None
        except (AttributeError, ValueError, OSError):  # closed or not a real stream
            return None

    def __call__(self, p: IndexProgress) -> None:
        now = time.monotonic()
        if p.phase == self.phase and now - self.written < self.INTERVAL:
            return
        text = progress_text(p)
        if text == self.text:  # a post that carries only a committed batch
            return
        self.phase, self.written, self.text = p.phase, now, text
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        """Erase the line, so what follows starts on a clean one."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
