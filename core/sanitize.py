"""The one sanitiser: everything from a repository reaches a terminal only through here.

File names, source, signatures and docstrings are untrusted. A raw ESC can set a
terminal's title or clipboard, ask it to type a reply into the shell, or clear
the screen; bidi overrides and zero-width characters make `adm<ZWJ>in` look like
`admin`. So:

* `for_terminal`: C0/C1 control characters (except tab and newline; a CR right
  before a newline is harmless and kept) become visible escapes such as `\\x1b`,
  and invisible format characters (Unicode category Cf: bidi controls,
  zero-width joiners, BOM...) and line/paragraph separators become `<U+202E>`.
* `dumps`: JSON (which escapes control characters already) with format
  characters escaped too, so `--json` stays exact but never hides text.
* `for_paste`: a bundle's text, exact except for raw control characters, which
  are made visible and counted.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

_C0_C1 = "".join(chr(c) for c in (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)) if chr(c) not in "\t\n")


#: Every Unicode Cf, Zl and Zp character (invisible, or moving text around when shown), as
#: ranges: scanning `unicodedata` at start-up costs 0.2 s. A test checks this covers the
#: running Python's Unicode database; 0x13439-0x1343F are Unicode 15's additions.
FORMAT_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)


def _format_chars() -> str:
    # Lone surrogates too: undecodable bytes in a file name or argv (`\udcff`) cannot be written out.
    return "".join(re.escape(chr(lo)) + ("-" + re.escape(chr(hi)) if hi > lo else "")
                   for lo, hi in FORMAT_RANGES) + "\ud800-\udfff"


def _class(chars: str) -> str:
    return "[" + "".join(re.escape(c) for c in chars) + "]"


@cache
def _terminal_pattern() -> re.Pattern[str]:
    # `\r` followed by `\n` is kept (CRLF files); any other control character is escaped.
    controls = _C0_C1.replace("\r", "")
    return re.compile(f"{_class(controls)}|\\r(?!\\n)|[{_format_chars()}]")


@cache
def _format_pattern() -> re.Pattern[str]:
    return re.compile(f"[{_format_chars()}]")


_PASTE_PATTERN = re.compile(_class(_C0_C1.replace("\r", "")) + "|\\r(?!\\n)")


def _visible(char: str) -> str:
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # an undecodable byte, as `pathnames.escape_name` shows it
    return f"<U+{code:04X}>"


def for_terminal(text: str) -> str:
    """`text` safe to print or draw: no raw control, bidi or zero-width characters."""
    if text.isprintable() and text.isascii():
        return text  # the common case, without a regex pass
    return _terminal_pattern().sub(lambda m: _visible(m.group()), text)


def is_safe(text: str) -> bool:
    """True when `text` holds nothing `for_terminal` would change."""
    return _terminal_pattern().search(text) is None


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def dumps(obj: Any) -> str:
    """One JSON text, UTF-8 kept readable, with format characters as `\\uXXXX` escapes.

    Decoding gives back exactly the same strings: only the encoding differs.
    """
    text = json.dumps(obj, ensure_ascii=False)
    if text.isascii():
        return text
    return _format_pattern().sub(lambda m: _json_escape(m.group()), text)


def for_paste(text: str) -> tuple[str, int]:
    """A bundle's text with raw control characters made visible; returns (text, how many)."""
    count = 0

    def visible(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return _visible(match.group())

    return _PASTE_PATTERN.sub(visible, text), count
