"""A definition's docstring: the first paragraph of its docstring or doc comment, markers stripped."""

from __future__ import annotations

import re

MAX_DOCSTRING = 400
_XML_DOC_END = re.compile(r"^<(param|returns?|remarks|example|exception|typeparam|seealso)\b")
_LINT_DIRECTIVE = re.compile(
    r"^(eslint[- ]|@ts-|nolint|noqa|type:\s*ignore|pylint:|prettier-ignore|istanbul |c8 |jshint|"
    r"rubocop:|phpcs:|NOSONAR|clang-format|NOLINT|@formatter:|region\b|endregion\b)"
)
_XML_DOC_TAG = re.compile(r"</?(summary|para)\s*/?>")


_MARKER = re.compile(r"^(/\*\*?|\*/|\*|///?!?|//|#+|--|=begin|=end)\s?")
_COMMENT_MARKER = re.compile(
    r"^(/\*\*?|\*/|\*|///?!?|//|#+'?|--\[=*\[|--+(\s*[|^](?=\s|$))?|=begin|=end|!+[<>]?|%+|;+|\(\*+|\{-\|?|<#)\s?"
)
"""Comment markers: C-family, `#` and roxygen `#'`, Lua `---` and `--[[`, Haddock `-- |` / `-- ^`,
Fortran `!`, `!>`, `!<`, Erlang `%%`, Lisp `;;`, ML `(**`, Elm/Haskell `{-|`, PowerShell `<#`."""
_COMMENT_ENDS = {"(*": re.compile(r"\s*\*\)$"), "{-": re.compile(r"\s*-\}$"), "<#": re.compile(r"\s*#>$")}
"""Block comments that do not end in `*/`, by how they open."""
_C_COMMENT_END = re.compile(r"\s*\*/$")
_LUA_BLOCK_END = re.compile(r"\s*\]=*\]$")
_DOC_TAG = re.compile(r"^@(doc|brief)\b\s*")
"""Tags that introduce the summary itself (Erlang `%% @doc`, Doxygen `@brief`)."""
_HELP_KEYWORD = re.compile(r"^\.[A-Z]+\b")
"""PowerShell comment-based help: `.SYNOPSIS` opens the summary, `.DESCRIPTION` ends it."""
_POD_COMMAND = re.compile(r"^=[a-z]+\d?\b")
"""Perl POD (`=head2 name`, `=cut`) and Ruby `=begin`/`=end`: commands around the text."""


def _clean_doc(raw: str) -> str:
    """First paragraph of a docstring or doc comment, markers stripped, on one line."""
    text = raw.strip()
    is_string = False
    for quote in ('"""', "'''", '"', "'"):
        stripped = text.lstrip("rRbBuUfF")
        if stripped.startswith(quote) and stripped.endswith(quote) and len(stripped) >= 2 * len(quote):
            text = stripped[len(quote) : -len(quote)]
            is_string = True
            break
    comment_end = _LUA_BLOCK_END if text.startswith("--[") else _COMMENT_ENDS.get(text[:2], _C_COMMENT_END)
    lines: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if is_string:
            line = _MARKER.sub("", line)
            line = re.sub(r"\s*\*/$", "", line).strip()
        else:
            line = _COMMENT_MARKER.sub("", line)
            line = comment_end.sub("", line).strip()
            line = _DOC_TAG.sub("", line)
            if _HELP_KEYWORD.match(line) or _POD_COMMAND.match(line):
                if lines:
                    break
                continue
        if _LINT_DIRECTIVE.match(line):
            continue  # `eslint-disable-next-line`, `noqa`, `@ts-expect-error` are not docs
        if (line.startswith("@") or _XML_DOC_END.match(line)) and lines:
            break  # JSDoc / Javadoc / C# XML tags end the summary
        line = _XML_DOC_TAG.sub("", line).strip()
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    doc = " ".join(lines)
    return doc if len(doc) <= MAX_DOCSTRING else doc[: MAX_DOCSTRING - 1] + "…"
