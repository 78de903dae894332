"""The search filter syntax every front end shares: `kind:class lang:go path:lib/* words`.

Short keys work too (`k:`, `l:`, `p:`/`in:`), kinds have aliases (`fn`, `cls`) and
languages their aliases from languages.json (`py`, `golang`). A `foo:bar` whose
key is not a filter stays a word, so `std::vector` still searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from symscope.core.errors import BadQueryError
from symscope.core.languages import all_languages, resolve_language
from symscope.core.models import SYMBOL_KINDS

KIND_ALIASES: dict[str, str] = {
    "fn": "function", "func": "function", "def": "function", "meth": "method",
    "cls": "class", "const": "constant", "iface": "interface", "mod": "module",
}
FILTER_KEYS: dict[str, str] = {
    "kind": "kind", "k": "kind",
    "lang": "language", "language": "language", "l": "language",
    "path": "path", "p": "path", "in": "path",
}
_FILTER = re.compile(r"(?<!\S)(\w+):(\S*)")


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A query's text split into words and filters (and the filters it could not read)."""

    words: str
    kind: str | None = None
    language: str | None = None
    path: str | None = None
    errors: tuple[str, ...] = field(default=())

    @property
    def filters(self) -> str:
        """The filters, written back in their canonical form."""
        parts = []
        if self.kind:
            parts.append(f"kind:{self.kind}")
        if self.language:
            parts.append(f"lang:{self.language}")
        if self.path:
            parts.append(f"path:{self.path}")
        return " ".join(parts)

    def merged(self, kind: str | None, language: str | None, path: str | None) -> ParsedQuery:
        """These filters, with explicit options (CLI flags) taking precedence."""
        return ParsedQuery(
            self.words,
            normalize_kind(kind) if kind else self.kind,
            normalize_language(language) if language else self.language,
            path or self.path,
            self.errors,
        )


def normalize_kind(value: str) -> str:
    """A kind or its alias as a kind name; BadQueryError when it is neither."""
    kind = KIND_ALIASES.get(value.lower(), value.lower())
    if kind not in SYMBOL_KINDS:
        raise BadQueryError(f"unknown kind {value!r} (one of: {', '.join(SYMBOL_KINDS)})")
    return kind


def normalize_language(value: str) -> str:
    """A language name or alias as its symscope name; BadQueryError when unknown."""
    spec = resolve_language(value)
    if spec is None:
        raise BadQueryError(
            f"unknown language {value!r} (one of: {', '.join(sorted(all_languages()))})"
        )
    return spec.name


def parse_query(text: str) -> ParsedQuery:
    """Split `kind:… lang:… path:… words` into a `ParsedQuery`; bad filters go to `errors`."""
    values: dict[str, str | None] = {"kind": None, "language": None, "path": None}
    errors: list[str] = []

    def take(match: re.Match[str]) -> str:
        key = FILTER_KEYS.get(match.group(1).lower())
        if key is None:
            return match.group(0)
        value = match.group(2)
        if not value:
            return ""
        try:
            if key == "kind":
                values["kind"] = normalize_kind(value)
            elif key == "language":
                values["language"] = normalize_language(value)
            else:
                values["path"] = value
        except BadQueryError as exc:
            errors.append(str(exc))
        return ""

    words = " ".join(_FILTER.sub(take, text).split())
    return ParsedQuery(words, values["kind"], values["language"], values["path"], tuple(errors))


def set_filter(text: str, key: str, value: str | None) -> str:
    """`text` with filter `key` (`kind`, `language` or `path`) replaced by `value` (None removes)."""

    def drop(match: re.Match[str]) -> str:
        return "" if FILTER_KEYS.get(match.group(1).lower()) == key else match.group(0)

    rest = " ".join(_FILTER.sub(drop, text).split())
    if not value:
        return rest
    short = {"kind": "kind", "language": "lang", "path": "path"}[key]
    return f"{short}:{value} {rest}".rstrip() + " "
