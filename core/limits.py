"""The sensible range of every number a face passes to the engine, checked in one place.

A number that makes no sense (`--max-file-bytes -1` skips every file, so an update would
empty the index) is refused with `BadArgumentError` before anything is read or written.
The CLI builds its argparse types from the same ranges, so both say the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from symscope.core.errors import BadArgumentError

__all__ = [
    "BUDGET",
    "BUNDLE_DEPS",
    "DEPTH",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "PROCESSES",
    "REF_LIMIT",
    "SEARCH_LIMIT",
    "IntRange",
]

#: Longest rendering of a refused value quoted back in an error.
_SHOWN = 40


@dataclass(frozen=True, slots=True)
class IntRange:
    """Whole numbers from `lo` to `hi`, both included."""

    lo: int
    hi: int

    def describe(self) -> str:
        return f"a whole number from {self.lo:,} to {self.hi:,}"

    def contains(self, value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi

    def check(self, name: str, value: object) -> int:
        """`value` if it is in range, else `BadArgumentError` naming `name`.

        Raises:
            BadArgumentError: not a whole number (booleans are not), or out of range.
        """
        if isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi:
            return value
        raise BadArgumentError(f"{name} must be {self.describe()}, not {shown(value)}")


def shown(value: object) -> str:
    """A refused value as quoted in an error, cut to a few dozen characters."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


#: Files larger than this are skipped: below 1 kB nearly every source file would be (and an
#: update would drop them all); above 1 GB the parser's offsets and memory give out.
MAX_FILE_BYTES = IntRange(1_000, 1_000_000_000)
#: Stop indexing past this many indexable files.
MAX_FILES = IntRange(1, 10_000_000)
#: Parser processes.
PROCESSES = IntRange(1, 1_024)
#: Search results asked for.
SEARCH_LIMIT = IntRange(1, 10_000)
#: References asked for.
REF_LIMIT = IntRange(1, 100_000)
#: How deep `deps` follows uses (each level multiplies the work).
DEPTH = IntRange(1, 5)
#: How deep a bundle adds what its symbols use (0: not at all).
BUNDLE_DEPS = IntRange(0, 5)
#: Tokens a bundle may have.
BUDGET = IntRange(1, 10_000_000)
