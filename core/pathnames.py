"""File and folder names as the engine keeps them: one escaped, printable, lossless form.

A name on disk is any bytes but `/` and NUL. Python hands an undecodable byte over
as a lone surrogate (`\\udcff`), which SQLite, JSON writers and terminals refuse;
a newline or ESC in a name would let a folder forge whole lines of output. So the
walker maps every name through `escape_name`, and every repo-relative path the
engine stores, searches or prints is that escaped form:

* an undecodable byte becomes `\\xNN` (NN from 80 to ff), a C0 control or DEL
  `\\xNN` (00 to 1f, 7f);
* a C1 control, another lone surrogate, an invisible format character, or a
  line/paragraph separator (`sanitize.FORMAT_RANGES`) becomes `\\uNNNN` (or
  `\\UNNNNNNNN` past U+FFFF);
* a backslash becomes `\\\\`, so the mapping is one to one: no real name can
  look like another's escaped form, and `unescape_name` gives the bytes back.

Everything else (letters of any script, spaces, punctuation) is kept as it is.
Both functions are pure and total over any `str`; `fs_path` is the one way back
from a stored path to the filesystem.
"""

from __future__ import annotations

import os
import re
from functools import cache

from symscope.core.sanitize import FORMAT_RANGES

_SURROGATE_BYTES = (0xDC80, 0xDCFF)
"""The lone surrogates `os.fsdecode` gives undecodable bytes 0x80-0xff (`surrogateescape`)."""


def _must_escape(code: int) -> bool:
    """Whether `escape_name` writes the character with this code as an escape."""
    if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or code == 0x5C:
        return True
    return any(lo <= code <= hi for lo, hi in FORMAT_RANGES)


def _pattern(backslash: bool) -> re.Pattern[str]:
    ranges = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in FORMAT_RANGES)
    extra = "\\\\" if backslash else ""
    return re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff{ranges}{extra}]")


@cache
def _escape_pattern() -> re.Pattern[str]:
    return _pattern(backslash=True)


@cache
def _control_pattern() -> re.Pattern[str]:
    return _pattern(backslash=False)


_UNESCAPE = re.compile(r"\\(?:(\\)|x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8}))")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code == 0x5C:
        return "\\\\"
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if _SURROGATE_BYTES[0] <= code <= _SURROGATE_BYTES[1]:
        return f"\\x{code - 0xDC00:02x}"  # the byte it stands for
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_name(name: str) -> str:
    """`name` (a file name, or a path: `/` is kept) as a printable str that SQLite and JSON accept.

    One to one: `unescape_name(escape_name(s)) == s` for every str `s`.
    """
    if name.isprintable() and "\\" not in name:
        return name  # the common case, without a regex pass (every escaped character is unprintable)
    return _escape_pattern().sub(_escape_char, name)


def escape_controls(text: str) -> str:
    """`text` with what `escape_name` escapes shown the same way, except backslashes, kept as they are.

    For names read from source (`App\\Models` in PHP): a symbol's name is part of its
    id and is printed on one line, but never mapped back to the filesystem.
    """
    if text.isprintable():
        return text
    return _control_pattern().sub(_escape_char, text)


def _unescape_match(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\"
    if match.group(2):
        code = int(match.group(2), 16)
        if code < 0x20 or code == 0x7F:
            return chr(code)
        if code >= 0x80:
            return chr(0xDC00 + code)  # back to the undecodable byte's surrogate
        return match.group()  # `\x41`: not something `escape_name` writes, so a literal name
    code = int(match.group(3) or match.group(4), 16)
    if code > 0x10FFFF or not _must_escape(code) or code < 0x20 or code == 0x7F:
        return match.group()
    if _SURROGATE_BYTES[0] <= code <= _SURROGATE_BYTES[1] or (match.group(4) and code <= 0xFFFF):
        return match.group()  # written as `\xNN` / `\uNNNN` by `escape_name`: not its form
    return chr(code)


def unescape_name(text: str) -> str:
    """The name (or path) `escape_name` turned into `text`; total: text it never writes is kept as is."""
    if "\\" not in text:
        return text
    return _UNESCAPE.sub(_unescape_match, text)


def fs_parts(rel: str) -> list[str]:
    """The filesystem names of an escaped repo-relative path's components (`/`-separated)."""
    return [unescape_name(part) for part in rel.split("/")]


def fs_path(root: str | os.PathLike[str], rel: str) -> str:
    """Where escaped repo-relative `rel` is on disk under `root` (no checks: see `files.read_repo_file`)."""
    base = os.fspath(root)
    if not rel:
        return base
    return os.path.join(base, *fs_parts(rel))
