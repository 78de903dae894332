"""`symscope mcp`: one repo's index served to coding agents over MCP (stdio), on the official SDK 2.x.

Agents search compact metadata, then fetch whole symbols: few tools, short
descriptions, compact schemas. Everything comes from `symscope.core.api` (the
functions the CLI prints), so the server and the CLI cannot disagree; this
module only formats.

* Text only. Claude Code hands the model only `structuredContent` when a result
  has it, so results carry none: source stays exact instead of JSON-escaped.
* Savings ride in `_meta` (`symscope/tokens`, `symscope/file_tokens`,
  `symscope/saved_pct`, exact cl100k counts), never in the text the model pays for.
* Never stale: before each answer, files changed since the last index are
  re-indexed (`Index.update`: a size+mtime stat check when nothing changed).
* Errors are the SDK's `ToolError`, one line saying what went wrong and what
  to call instead, so the model reads them; the server survives every one.
* Untrusted text: ids, paths and signatures pass through `for_terminal`; source
  stays exact except raw control characters (`for_paste`, counted in a note).
  Log lines (stderr) are sanitised too. Nothing but protocol goes to stdout.
* Secrets: every tool that returns repository text redacts it first, with the
  bundles' detector (`symscope.core.secrets.redact`), before anything is cut;
  `_meta["symscope/redacted"]` counts the markers shown; `redact: false` keeps them.
* Bounded: every result is at most `RESULT_BUDGET` tokens (lists `LIST_BUDGET`),
  counted exactly with every note; messages repeat at most 100 characters of an
  argument (`_echo`).

A tool is one method of `Tools` marked with `@_tool(...)`; adding
`find_dependencies` or `build_bundle` is one such method each.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BeforeValidator, Field, ValidationError

from symscope.core import api
from symscope.core.errors import (
    BadQueryError,
    IndexAccessError,
    NotARepoError,
    StaleSymbolError,
    SymscopeError,
    UnknownSymbolError,
)
from symscope.core.index import Index
from symscope.core.languages import language_by_name
from symscope.core.models import IndexProgress, IndexReport, SearchHit, Symbol
from symscope.core.pathnames import escape_name, fs_path
from symscope.core.sanitize import for_paste, for_terminal
from symscope.core.tokens import count_tokens, encoding

log = logging.getLogger("symscope.mcp")

#: Most tokens one answer carries by default; longer answers are cut and say so.
RESULT_BUDGET = 6000
#: Outlines and reference lists are cut sooner: they are for picking ids.
LIST_BUDGET = 3000
#: Signatures in search hits are cut to this many characters.
SIGNATURE_CHARS = 80
#: Code lines shown beside references.
USE_LINE_CHARS = 100
#: At most this many progress notifications per reindex.
PROGRESS_STEPS = 100
#: Longest symbol id argument: a path (`api.MAX_PATH_CHARS`) and a qualified name.
MAX_ID_CHARS = 8192
#: Longest language name argument (names and aliases are a few letters).
MAX_LANG_CHARS = 50
#: Most paths one `reindex` call takes.
MAX_PATHS = 50
#: Seconds a call may go on after stdin closed before `serve` ends the process.
EXIT_GRACE = 1.5
#: Environment variable that makes unexpected errors log their traceback on stderr.
DEBUG_ENV = "SYMSCOPE_DEBUG"

INSTRUCTIONS = (
    "symscope indexes this repository's code symbols (functions, classes, methods, types). "
    "Search with search_symbols, then fetch exact source with get_symbols for the best ids: "
    "far cheaper than reading whole files. Results always reflect the files on disk."
)

# -- argument types (module level: the SDK evaluates the annotations by name) ---------------

KindName = Literal[
    "function", "method", "class", "struct", "interface", "trait", "enum", "type", "constant", "module"
]
OutputFormat = Literal["plain", "markdown", "xml"]


def _as_list(value: Any) -> Any:
    """A bare string where a list is expected (a common slip of models) is a list of one."""
    return [value] if isinstance(value, str) else value


# Every string argument has a length cap, every list a count cap: a 1 MB argument is refused
# in microseconds by the schema instead of costing seconds to minutes inside the engine.
QueryArg = Annotated[str, Field(max_length=api.MAX_QUERY_CHARS,
                                description="keywords, identifiers or plain English")]
PathGlob = Annotated[str | None, Field(max_length=api.MAX_PATH_CHARS,
                                       description="only paths matching this glob, e.g. lib/* or *.go")]
LangName = Annotated[str | None, Field(max_length=MAX_LANG_CHARS)]
SearchLimit = Annotated[int, Field(ge=1, le=50)]
SymbolId = Annotated[str, Field(max_length=MAX_ID_CHARS)]
IdList = Annotated[
    list[SymbolId],
    BeforeValidator(_as_list),
    Field(min_length=1, max_length=20, description="ids from search_symbols, get_outline or find_references"),
]
RepoPath = Annotated[str, Field(max_length=api.MAX_PATH_CHARS,
                                description="file or folder relative to the repo root; '.' is the root")]
RefLimit = Annotated[int, Field(ge=1, le=100)]
DepthLimit = Annotated[int, Field(ge=1, le=3)]
DepthLimit0 = Annotated[int, Field(ge=0, le=3)]
BudgetLimit = Annotated[int | None, Field(ge=1)]
BundleFormat = Literal["markdown", "xml"]
RedactFlag = Annotated[bool, Field(description="secrets become markers; false: exact text")]
PathList = Annotated[
    Annotated[list[Annotated[str, Field(max_length=api.MAX_PATH_CHARS)]], Field(max_length=MAX_PATHS)] | None,
    BeforeValidator(_as_list),
    Field(description="files or folders to re-read even if unchanged; omit to rebuild everything"),
]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES_INDEX = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

_F = TypeVar("_F", bound=Callable[..., CallToolResult])
#: Tool name -> (description, annotations), in the order `tools/list` shows them.
_TOOLS: dict[str, tuple[str, ToolAnnotations]] = {}


def _tool(description: str, annotations: ToolAnnotations = READ_ONLY) -> Callable[[_F], _F]:
    """Mark a `Tools` method as an MCP tool; its parameters are the tool's arguments."""

    def mark(method: _F) -> _F:
        _TOOLS[method.__name__] = (description, annotations)
        return method

    return mark


# -- small formatting helpers -------------------------------------------------------------------


def _lines(start: int, end: int) -> str:
    return f"L{start}" if start == end else f"L{start}-{end}"


def _one_line(text: str, width: int) -> str:
    """Whitespace collapsed, cut to `width` characters (marked), safe to show."""
    flat = " ".join(text.split())
    if len(flat) > width:
        flat = flat[: width - 1] + "…"
    return for_terminal(flat)


def _safe_line(text: str) -> str:
    """A message for one line: sanitised, newlines folded."""
    return " ".join(for_terminal(text).split())


def _echo(value: str, limit: int = 100) -> str:
    """An argument as a message may repeat it: one safe line of at most `limit` characters.

    A 1 MB id must not come back as a 1 MB error; only a bounded head is even looked at.
    """
    flat = _safe_line(value[: limit * 4])
    if len(flat) <= limit and len(value) <= limit * 4:
        return flat
    return flat[: limit - 1] + "…"


def _echo_words(text: str, total: int = 300) -> str:
    """An engine message, which may quote arguments: each long word shortened, the whole capped."""
    head = text[: total * 8]
    line = " ".join(_echo(word) if len(word) > 100 else _safe_line(word) for word in head.split())
    if len(line) > total or len(head) < len(text):
        line = line[: total - 1] + "…"
    return line


_CANCEL: ContextVar[threading.Event | None] = ContextVar("symscope_cancel", default=None)
"""The running tool call's cancel flag, set by `SymscopeServer.call_tool` (the SDK runs each
tool in a worker thread with a copy of the caller's context, so the thread sees it)."""


def cancelled() -> bool:
    """True once the current tool call was cancelled or its client went away."""
    flag = _CANCEL.get()
    return flag is not None and flag.is_set()


def _fence(code: str) -> str:
    longest = 0
    run = 0
    for ch in code:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _xml_attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _under(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _file_tokens(index: Index, paths: set[str]) -> int:
    """Tokens of reading these files whole: what the answer saves against."""
    total = 0
    for path in paths:
        rec = index.file(path)
        total += rec.tokens if rec is not None else 0
    return total


def _redact(text: str, filename: str, enabled: bool = True) -> tuple[str, list[str]]:
    """`text` with every secret replaced by its marker, keeping the line count; and the markers.

    The same detector and markers as bundles (`symscope.core.secrets.redact`). A secret
    spanning lines (a private key block) becomes its marker and as many newlines, so the
    text's lines still match the file's: headers, cuts and uses keep their line numbers.
    """
    if not enabled or not text:
        return text, []
    from symscope.core.secrets import marker, redact  # detect-secrets loads on first use

    _, findings = redact(text, filename)
    if not findings:
        return text, []
    parts: list[str] = []
    at = 0
    for f in findings:
        parts += [text[at:f.start], marker(f.label), "\n" * text.count("\n", f.start, f.end)]
        at = f.end
    parts.append(text[at:])
    return "".join(parts), [marker(f.label) for f in findings]


def _redacted_lines(lines: list[str], enabled: bool) -> tuple[list[str], list[str]]:
    """Lines redacted as one text (a secret split over lines is still found); and the markers."""
    text, marks = _redact("\n".join(lines), "", enabled)
    return (text.split("\n") if marks else lines), marks


def _count_shown(text: str, marks: list[str]) -> int:
    """How many of the secrets behind `marks` the (perhaps cut) `text` shows as markers."""
    return sum(min(text.count(m), n) for m, n in Counter(marks).items())


def _token_prefix(text: str, tokens: int) -> str:
    """The longest prefix of `text` cut between tokens that counts at most `tokens`."""
    if tokens <= 0:
        return ""
    enc = encoding()
    ids = enc.encode_ordinary(text[: (tokens + 1) * 128])  # no token is longer than 128 bytes
    keep = min(tokens, len(ids))
    while keep > 0:
        head = enc.decode_bytes(ids[:keep]).decode("utf-8", "ignore")
        if count_tokens(head) <= tokens:
            return head
        keep -= 1
    return ""


def _within(text: str, ceiling: int) -> str:
    """`text` if it fits `ceiling` tokens, else its head and one line saying it was cut.

    Every tool fits its own answer first; this is the last guard that no result,
    whatever the repository holds, exceeds the documented ceiling.
    """
    if count_tokens(text) <= ceiling:
        return text
    note = f"\n[cut at {ceiling:,} tokens, the most one result holds; ask for less]"
    return _token_prefix(text, ceiling - count_tokens(note) - 1) + note


def reply(text: str, file_tokens: int | None = None, redacted: int | None = None,
          ceiling: int = RESULT_BUDGET) -> CallToolResult:
    """A text-only result within `ceiling` tokens, its exact cl100k cost (and saving) in `_meta`,
    and, for text from the repository, how many secrets were redacted (`symscope/redacted`)."""
    text = _within(text, ceiling)
    tokens = count_tokens(text)
    meta: dict[str, Any] = {"symscope/tokens": tokens}
    if file_tokens:
        meta["symscope/file_tokens"] = file_tokens
        meta["symscope/saved_pct"] = round(100.0 * (1 - tokens / file_tokens), 1)
    if redacted is not None:
        meta["symscope/redacted"] = redacted
    return CallToolResult(content=[TextContent(type="text", text=text)], _meta=meta)


def hit_text(n: int, hit: SearchHit, redact: bool = True) -> tuple[str, list[str]]:
    """One compact search hit: id, lines, tokens, and the signature on a second line; its markers.

    The id spells path, qualified name and kind (`path::qualname#kind`), so they
    are not repeated; this is the compact counterpart of `api.hit_json`. The whole
    signature is redacted before it is cut, so a cut never leaves half a key.
    """
    s = hit.symbol
    head = f"{n}. {for_terminal(s.id)} {_lines(s.start_line, s.end_line)}, {s.tokens} tokens"
    if hit.duplicates:
        head += f" (+{len(hit.duplicates)} {hit.fold or 'similar'})"
    clean, marks = _redact(s.signature, s.path, redact)
    signature = _one_line(clean, SIGNATURE_CHARS)
    return (f"{head}\n   {signature}" if signature else head), marks


# -- the session: one index, refreshed before each answer ----------------------------------------


class Session:
    """The index as the tools see it: one call at a time, refreshed before each answer."""

    def __init__(self, index: Index, update_options: dict[str, Any] | None = None) -> None:
        self.index = index
        self.update_options = update_options or {}
        """Passed to every `Index.update` (`max_files`, `allow_any_root`)."""
        self.lock = threading.Lock()
        self.shown: dict[str, tuple[int, int]] = {}
        """Every id handed to the agent, with the lines it was shown at."""
        self.note: str | None = None
        """Why the last refresh failed, if it did (then answers come from the index as it was)."""

    def refresh(self) -> IndexReport | None:
        """Re-index files changed since the last index (near-free when nothing changed)."""
        try:
            report = self.index.update(cancelled=cancelled, **self.update_options)
        except IndexAccessError as exc:  # read-only or busy: answer from what is indexed
            if not self.index.is_built:
                raise
            self.note = f"index not refreshed ({exc}); results may be stale"
            log.warning("%s", self.note)
            return None
        self.note = None
        if report.parsed or report.removed:
            log.info("re-indexed %d changed and %d removed files in %.2f s",
                     report.parsed, report.removed, report.seconds)
        return report

    @contextlib.contextmanager
    def fresh(self) -> Iterator[Index]:
        """The refreshed index, held for one answer; engine errors become one-line tool errors."""
        with self.lock:
            try:
                self.refresh()
                yield self.index
            except SymscopeError as exc:
                raise ToolError(self.explain(exc)) from None

    def remember(self, items: list[Symbol] | list[dict[str, Any]]) -> None:
        """Note ids handed to the agent (symbols, or their `api` dicts) and the lines shown."""
        for item in items:
            if isinstance(item, Symbol):
                self.shown[item.id] = (item.start_line, item.end_line)
            else:
                self.shown[item["id"]] = (item["start_line"], item["end_line"])

    def symbol(self, symbol_id: str) -> Symbol:
        """The symbol with this id now, or a tool error saying what to call instead."""
        try:
            return self.index.symbol(symbol_id)
        except UnknownSymbolError:
            raise ToolError(self.unknown(symbol_id)) from None

    def unknown(self, symbol_id: str) -> str:
        shown = _echo(symbol_id)
        if symbol_id in self.shown:
            return (f"{shown} no longer exists: its file changed since you got this id "
                    "(renamed, moved or deleted); call search_symbols again")
        path = symbol_id.split("::", 1)[0]
        if "::" in symbol_id and self.index.file(path) is not None:
            return f"unknown symbol id {shown}; call get_outline on {_echo(path)} for its ids"
        return (f"unknown symbol id {shown}; ids look like path::qualname#kind, "
                "call search_symbols to find one")

    def explain(self, exc: SymscopeError) -> str:
        """One line: what went wrong and what to call instead."""
        text = _echo_words(str(exc))
        if isinstance(exc, BadQueryError):
            return f"{text}; call search_symbols with other words or filters"
        if isinstance(exc, StaleSymbolError):
            return f"{text}; call search_symbols again for current ids"
        if isinstance(exc, NotARepoError):
            return f"{text}; paths are relative to the repo root (get_outline '.' lists it)"
        return text

    def path(self, given: str) -> str:
        """A user-given path as repo-relative, or a tool error if outside the repo or missing.

        What cannot name a file (a NUL byte, longer than PATH_MAX) is refused before the file
        system sees it, and containment is one linear `is_relative_to`, not a scan of every
        parent (quadratic in the number of parts).
        """
        root = self.index.root
        hint = "give a path relative to the repo root (get_outline '.' lists it)"
        if "\x00" in given:
            raise ToolError(f"path {_echo(given)} contains a NUL byte; {hint}")
        if len(given) > api.MAX_PATH_CHARS:
            raise ToolError(f"path too long: {len(given)} characters (at most {api.MAX_PATH_CHARS}); {hint}")
        try:
            raw = Path(given.strip() or ".").expanduser()
        except RuntimeError:  # `~name` of no user: a literal name
            raw = Path(given.strip())
        target = raw if raw.is_absolute() else root / raw
        shown = fs_path(root, given.strip()) if not raw.is_absolute() and given.strip() else ""
        if shown and os.path.exists(shown):  # as the index shows it: names escaped (core/pathnames.py)
            target = Path(shown)
        try:
            resolved = target.resolve()
        except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, say
            raise ToolError(f"cannot resolve {_echo(given)} ({_echo(str(exc), 60)}); {hint}") from None
        if not resolved.is_relative_to(root):
            raise ToolError(f"{_echo(given)} is outside the repository; {hint}")
        try:
            exists = resolved.exists()
        except (OSError, ValueError):  # a name too long for the file system
            exists = False
        if not exists:
            raise ToolError(f"no file or folder {_echo(given)} in the repository; "
                            "call get_outline '.' or search_symbols")
        rel = resolved.relative_to(root).as_posix()
        return "" if rel == "." else escape_name(rel)


# -- the tools ----------------------------------------------------------------------------------


class Tools:
    """Every MCP tool, one method each; `build_server` registers the marked ones."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @_tool("Find code symbols (functions, classes, methods, types...) by keywords or plain English. "
           "Returns ids with lines and token counts, never source: fetch code with get_symbols.")
    def search_symbols(
        self,
        query: QueryArg,
        kind: KindName | None = None,
        lang: LangName = None,
        path: PathGlob = None,
        limit: SearchLimit = 10,
        redact: RedactFlag = True,
    ) -> CallToolResult:
        """Ranked exactly as `symscope search` ranks (the same `api.search_hits`)."""
        with self.session.fresh() as index:
            hits = api.search_hits(index, query, limit + 1, kind, lang, path)
            shown, more = hits[:limit], len(hits) > limit
            self.session.remember([h.symbol for h in shown])
            if not shown:
                return reply("No symbols match; try other words, or fewer filters.", redacted=0)
            parts: list[str] = []
            marks: list[str] = []
            for n, h in enumerate(shown, start=1):
                part, found = hit_text(n, h, redact)
                parts.append(part)
                marks += found
            if more:
                parts.append("[more match: raise limit (max 50) or narrow with kind, lang or path]")
            text = _cut_lines("\n".join(parts).split("\n"), RESULT_BUDGET, "lower limit, or narrow the query")
            return reply(text, _file_tokens(index, {h.symbol.path for h in shown}), _count_shown(text, marks))

    @_tool("Exact source of symbols by id, one header line each; secrets redacted unless redact is false. "
           "Much cheaper than reading whole files.")
    def get_symbols(self, ids: IdList, format: OutputFormat = "plain", redact: RedactFlag = True) -> CallToolResult:
        """Each symbol's bytes as they are on disk now (secrets redacted), within `RESULT_BUDGET` tokens."""
        with self.session.fresh() as index:
            wanted = list(dict.fromkeys(ids))
            found: list[Symbol] = []
            missing: list[str] = []
            for symbol_id in wanted:
                try:
                    found.append(self.session.symbol(symbol_id))
                except ToolError as exc:
                    if len(wanted) == 1:
                        raise
                    missing.append(str(exc))
            if not found:
                raise ToolError(missing[0] if len(missing) == 1 else
                                f"none of these ids exists ({missing[0]})")
            sources: dict[str, tuple[str, list[str], int]] = {}

            def clean(sym: Symbol) -> tuple[str, list[str], int]:
                """The symbol's source redacted (before any cut), controls made visible; cached."""
                if sym.id not in sources:
                    text, marks = _redact(api.show(index, sym.id)["source"], sym.path, redact)
                    text, controls = for_paste(text)
                    sources[sym.id] = (text, marks, controls)
                return sources[sym.id]

            reserve = 0
            for _ in range(8):  # re-fit with room for the notes until the whole answer fits
                text, used, marks = self._fit_symbols(found, missing, format, RESULT_BUDGET - reserve, clean)
                over = count_tokens(text) - RESULT_BUDGET
                if over <= 0:
                    break
                reserve += over
            self.session.remember(found)
            return reply(text, _file_tokens(index, {s.path for s in used}), _count_shown(text, marks))

    def _fit_symbols(
        self, found: list[Symbol], missing: list[str], fmt: OutputFormat, budget: int,
        clean: Callable[[Symbol], tuple[str, list[str], int]],
    ) -> tuple[str, list[Symbol], list[str]]:
        """Items in order while they fit `budget` (the first one cut to fit), then the notes."""
        items: list[str] = []
        notes: list[str] = []
        used: list[Symbol] = []
        left_out: list[Symbol] = []
        marks: list[str] = []
        spent = controls = 0
        for sym in found:
            if items and spent + sym.tokens > budget:  # cheap first test: the raw source alone is too big
                left_out.append(sym)
                continue
            source, found_marks, n = clean(sym)
            was = self.session.shown.get(sym.id)
            item = _render(sym, source, fmt, was)
            cost = count_tokens(item + "\n")
            if spent + cost > budget:
                if items:
                    left_out.append(sym)
                    continue
                frame = count_tokens(_render(sym, "", fmt, was)) + count_tokens(_cut(source, sym, 0)[1]) + 2
                source, cut_note = _cut(source, sym, budget - frame)
                notes.append(cut_note)
                item = _render(sym, source, fmt, was)
                cost = count_tokens(item + "\n")
            items.append(item)
            used.append(sym)
            marks += found_marks
            controls += n
            spent += cost
        if left_out:
            notes.append(_left_out_note(left_out))
        notes += [f"[{m}]" for m in missing]
        if controls:
            notes.append(f"[{controls} raw control characters shown as \\xNN escapes]")
        text = "\n".join(items) + ("\n" + "\n".join(notes) + "\n" if notes else "")
        return text, used, marks

    @_tool("A file's symbols (nested, with lines, tokens and ids), "
           "or a folder's files and subfolders with token totals.")
    def get_outline(self, path: RepoPath = ".", redact: RedactFlag = True) -> CallToolResult:
        """`api.outline`, laid out compactly: a file's tree, or a folder's direct entries."""
        with self.session.fresh() as index:
            rel = self.session.path(path)
            if rel and index.file(rel) is None and os.path.isfile(fs_path(index.root, rel)):
                reason = next((s.reason for s in index.skipped() if s.path == rel), "not a source file")
                raise ToolError(f"{_echo(rel)} is not indexed ({_echo(reason)}); "
                                "call get_outline on its folder, or search_symbols")
            data = api.outline(index, rel or ".", cwd=index.root)
            if "symbols" in data:
                lines, marks = _redacted_lines(self._file_outline(data), redact)
                text = _cut_lines(lines, LIST_BUDGET, f"call get_symbols on {_echo(data['path'])} ids")
                return reply(text, data["tokens"], _count_shown(text, marks), LIST_BUDGET)
            lines, marks = _redacted_lines(_folder_outline(rel, data["files"]), redact)
            text = _cut_lines(lines, LIST_BUDGET, "call get_outline on a subfolder")
            return reply(text, redacted=_count_shown(text, marks), ceiling=LIST_BUDGET)

    def _file_outline(self, data: dict[str, Any]) -> list[str]:
        path = data["path"]
        lines = [f"{for_terminal(path)}: {data['language']}, {data['tokens']} tokens. "
                 f"Ids are \"{for_terminal(path)}::\" + the name before the space."]
        shown: list[dict[str, Any]] = []

        def walk(nodes: list[dict[str, Any]], depth: int) -> None:
            for node in nodes:
                suffix = node["id"].split("::", 1)[1]
                lines.append(f"{'  ' * depth}{for_terminal(suffix)} "
                             f"{_lines(node['start_line'], node['end_line'])}, {node['tokens']} tokens")
                shown.append(node)
                walk(node["children"], depth + 1)

        walk(data["symbols"], 0)
        if len(lines) == 1:
            lines.append("(no symbols)")
        self.session.remember(shown)
        return lines

    @_tool("What a symbol uses (calls, types, constants), nearest first, with ids and tokens: "
           "the context to fetch with it.")
    def find_dependencies(self, id: SymbolId, depth: DepthLimit = 1, redact: RedactFlag = True) -> CallToolResult:
        """`api.deps`: one line per dependency (distance, id, lines, tokens, ambiguous)."""
        with self.session.fresh() as index:
            target = self.session.symbol(id)
            data = api.deps(index, target.id, depth)
            found = data["deps"]
            if not found:
                line, marks = _redact(f"{for_terminal(target.qualname)} uses no other symbol of this repo.",
                                      "", redact)
                return reply(line, redacted=len(marks), ceiling=LIST_BUDGET)
            lines = [f"{for_terminal(target.qualname)} uses {len(found)} symbols, {data['tokens']} tokens "
                     "(distance, id, lines, tokens):"]
            for d in found:
                mark = " (ambiguous)" if d["ambiguous"] else ""
                lines.append(f"{d['distance']} {for_terminal(d['id'])} "
                             f"{_lines(d['start_line'], d['end_line'])}, {d['tokens']} tokens{mark}")
            self.session.remember(found)
            lines, marks = _redacted_lines(lines, redact)
            text = _cut_lines(lines, LIST_BUDGET, "lower depth, or fetch these with get_symbols")
            return reply(text, _file_tokens(index, {d["path"] for d in found}), _count_shown(text, marks),
                         LIST_BUDGET)

    @_tool("A paste-ready bundle of symbols (and optionally what they use) that fits a token budget "
           "exactly (at most 6000); secrets redacted unless redact is false.")
    def build_bundle(self, ids: IdList, deps: DepthLimit0 = 0, budget: BudgetLimit = None,
                     format: BundleFormat = "markdown", redact: RedactFlag = True) -> CallToolResult:
        """`api.bundle` fitted so that its text and every note added here stay within the budget.

        No budget, or one above `RESULT_BUDGET`, packs to `RESULT_BUDGET` (the most one
        result holds) and says so. The notes are reserved for: the bundle is packed, the
        notes it needs are added, and it is packed again with less room while the whole
        text is over; the notes are left out only when they cannot fit at all (`_meta`
        still carries the counts).
        """
        with self.session.fresh() as index:
            refs = [self.session.symbol(i).id if "::" in i else i for i in ids]
            limit = RESULT_BUDGET if budget is None else min(budget, RESULT_BUDGET)
            fixed = ""
            if budget is None:
                fixed = (f"\n[no budget given: fitted to {RESULT_BUDGET:,} tokens, the most one result holds; "
                         "pass budget for less]")
            elif budget > RESULT_BUDGET:
                fixed = f"\n[budget lowered to {RESULT_BUDGET:,} tokens, the most one result holds]"

            def packed(room: int) -> tuple[str, dict[str, Any]]:
                data = api.bundle(index, refs, deps=deps, budget=room, fmt=format, redact=redact)
                return data["text"] + fixed + _bundle_notes(data), data

            best = packed(limit)  # the notes may not fit, but the bundle does: the fallback
            text, data = best
            room = limit
            for _ in range(6):
                over = count_tokens(text) - limit
                if over <= 0:
                    break
                room -= over
                if room < 1:
                    break
                try:
                    text, data = packed(room)
                except SymscopeError:  # too little room left for a name line with the notes
                    break
            if count_tokens(text) > limit:
                data = best[1]
                text = data["text"]
            return reply(text, _file_tokens(index, {i.split("::")[0] for i in ids}), data["redacted"])

    @_tool("The symbols that use this one (mentions resolved by receiver and import), "
           "with the line of each use.")
    def find_references(self, id: SymbolId, limit: RefLimit = 20, redact: RedactFlag = True) -> CallToolResult:
        """`api.refs`, each with the code line of the use (redacted with its symbol, then cut)."""
        with self.session.fresh() as index:
            target = self.session.symbol(id)
            refs = api.refs(index, target.id, limit + 1)["references"]
            shown, more = refs[:limit], len(refs) > limit
            if not shown:
                return reply(f"No other symbol mentions {for_terminal(target.name)}.", redacted=0,
                             ceiling=LIST_BUDGET)
            files: dict[str, list[str]] = {}
            lines = [f"{len(shown)} symbols use {for_terminal(target.name)} (id, line of use, code):"]
            marks: list[str] = []
            for ref in shown:
                if ref["path"] not in files:
                    try:
                        data = index.indexed_bytes(ref["path"])
                        files[ref["path"]] = data.decode("utf-8", "replace").split("\n")
                    except StaleSymbolError:
                        files[ref["path"]] = []
                code, found = _use_line(files[ref["path"]], ref, redact)
                marks += found
                lines.append(f"{for_terminal(ref['id'])} L{ref['line']}: {_one_line(code, USE_LINE_CHARS)}")
            self.session.remember(shown)
            if more:
                lines.append("[more mention it: raise limit (max 100)]")
            text = _cut_lines(lines, LIST_BUDGET, "lower limit, or fetch these with get_symbols")
            return reply(text, _file_tokens(index, set(files)), _count_shown(text, marks), LIST_BUDGET)

    @_tool("Index figures: files, symbols, tokens, languages, when indexed, "
           "files changed since, skipped files by reason.")
    def index_status(self) -> CallToolResult:
        """What the index holds and how fresh it is; this call re-indexes changed files first."""
        with self.session.lock:
            try:
                last = self.session.index.store.get_meta("indexed_at")
                report = self.session.refresh()
                data = api.status(self.session.index, last, report)
            except SymscopeError as exc:
                raise ToolError(self.session.explain(exc)) from None
        langs = sorted(data["languages"].items(), key=lambda kv: -kv[1]["tokens"])
        when = (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(data["last_indexed"]))
                if data["last_indexed"] else "never")
        changed = data["changed_since"]
        lines = [
            f"repo {for_terminal(data['root'])}",
            f"index {for_terminal(data['index'])} ({data['index_bytes'] / 1e6:.1f} MB)",
            f"files {data['files']}, symbols {data['symbols']}, tokens {data['tokens']}",
            "languages: " + ("; ".join(f"{for_terminal(k)} {v['files']} files {v['tokens']} tokens"
                                      for k, v in langs) or "none"),
            f"last indexed {when}; files changed since: "
            + (f"{changed} (re-indexed before this answer)" if changed is not None else "unknown"),
            f"skipped {data['skipped']} files"
            + (": " + ", ".join(f"{for_terminal(r)} {n}" for r, n in data["skipped_by_reason"].items())
               if data["skipped_by_reason"] else ""),
        ]
        if self.session.note:
            lines.append(f"[{for_terminal(self.session.note)}]")
        return reply("\n".join(lines))

    @_tool("Re-index the whole repo from scratch, or re-read the given paths. Rarely needed: "
           "every call already picks up changed files.", WRITES_INDEX)
    def reindex(self, ctx: Context[Any, Any], paths: PathList = None) -> CallToolResult:
        """Progress goes to the caller as notifications, ending at the total."""
        sent: list[tuple[int, int]] = []

        def progress(p: IndexProgress) -> None:
            step = max(1, p.total // PROGRESS_STEPS)
            if not cancelled() and (p.done == p.total or p.done % step == 0):
                sent.append((p.done, p.total))
                anyio.from_thread.run(ctx.report_progress, p.done, p.total, for_terminal(p.path))

        with self.session.lock:
            try:
                index = self.session.index
                if paths:
                    folders = list(dict.fromkeys(self.session.path(p) for p in paths))
                    marked = index.recheck(folders)
                    report = index.update(progress=progress, cancelled=cancelled)
                    scope = f"re-read {marked} indexed files under {_some(folders)}"
                else:
                    report = index.update(progress=progress, cancelled=cancelled, rebuild=True)
                    scope = "rebuilt the index"
            except SymscopeError as exc:
                raise ToolError(self.session.explain(exc)) from None
        if report.cancelled or cancelled():  # the caller is gone: this answer is never read
            raise ToolError(f"reindex cancelled after {report.parsed} files; the index holds what was "
                            "read (call reindex again to finish)")
        if not sent:  # nothing to read: still tell the caller it is over
            anyio.from_thread.run(ctx.report_progress, 0, 0, "nothing to re-read")
        data = api.report_json(index, report)
        return reply(
            f"{scope} in {data['seconds']} s: {data['files']} files, {data['symbols']} symbols "
            f"(parsed {data['parsed']}, unchanged {data['unchanged']}, removed {data['removed']}, "
            f"skipped {data['skipped']})"
        )


def _use_line(file_lines: list[str], ref: dict[str, Any], redact: bool) -> tuple[str, list[str]]:
    """The code line of a use, from its symbol's source redacted whole (a key block spanning
    lines is found as one), and the markers that line shows."""
    line_no, start, end = ref["line"], ref["start_line"], ref["end_line"]
    if not 0 < line_no <= len(file_lines):
        return "", []
    if not start <= line_no <= end:
        start = end = line_no
    source, marks = _redact("\n".join(file_lines[start - 1 : end]), ref["path"], redact)
    code = source.split("\n")[line_no - start] if marks else file_lines[line_no - 1]
    return code, [m for m in dict.fromkeys(marks) for _ in range(min(code.count(m), marks.count(m)))]


def _bundle_notes(data: dict[str, Any]) -> str:
    """The lines `build_bundle` adds under a packed bundle: what the budget left out, what was redacted."""
    notes = ""
    if data["dropped"]:
        notes += f"\n[{len(data['dropped'])} items left out to fit the budget]"
    if data["redacted"]:
        notes += f"\n[{data['redacted']} secrets redacted]"
    return notes


def _some(paths: list[str], most: int = 5) -> str:
    """A few repo paths for a message (each shortened), and how many more there were."""
    shown = ", ".join(_echo(p or ".") for p in paths[:most])
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _render(sym: Symbol, source: str, fmt: OutputFormat, was: tuple[int, int] | None) -> str:
    """One item of `get_symbols`: one header line, then the source exactly."""
    moved = ""
    if was is not None and was != (sym.start_line, sym.end_line):
        moved = f" (moved; was {_lines(*was)})"
    ident = for_terminal(sym.id)
    where = _lines(sym.start_line, sym.end_line)
    body = source if source.endswith("\n") else source + "\n"
    if fmt == "markdown":
        spec = language_by_name(sym.language)
        fence = _fence(source)
        return f"### {ident} {where}{moved}\n{fence}{spec.fence if spec else ''}\n{body}{fence}\n"
    if fmt == "xml":
        note = f' moved_from="{_lines(*was)}"' if moved and was else ""
        return f'<symbol id="{_xml_attr(ident)}" lines="{where[1:]}"{note}>\n{_cdata(body)}\n</symbol>\n'
    return f"--- {ident} {where}{moved}\n{body}"


def _cut(source: str, sym: Symbol, budget: int) -> tuple[str, str]:
    """The leading whole lines of `source` that fit in `budget` tokens, and a note saying so.

    When not even the first line fits (a minified or generated symbol), its head is shown,
    cut between tokens, so the answer never outgrows its ceiling.
    """
    lines = source.splitlines(keepends=True)
    kept: list[str] = []
    spent = 0
    for line in lines:
        cost = count_tokens(line)
        if spent + cost > budget:
            break
        kept.append(line)
        spent += cost
    if not kept and lines:
        kept = [_token_prefix(lines[0], budget)]
    shown = "".join(kept)
    touched = shown.count("\n") + (0 if shown.endswith("\n") else 1)
    last = sym.start_line + max(1, touched) - 1
    note = (f"[cut: {_echo(sym.id)} is {sym.tokens} tokens; showed {_lines(sym.start_line, last)} "
            f"of {_lines(sym.start_line, sym.end_line)}. Its members: get_outline {for_terminal(sym.path)}]")
    return shown, note


def _left_out_note(left_out: list[Symbol]) -> str:
    """Which symbols did not fit, by id (as many as 2,000 characters hold), and what to call."""
    listed: list[str] = []
    size = 0
    for sym in left_out:
        ident = for_terminal(sym.id)
        if listed and size + len(ident) > 2000:
            break
        listed.append(ident)
        size += len(ident) + 2
    rest = len(left_out) - len(listed)
    return (f"[cut at {RESULT_BUDGET} tokens: {len(left_out)} more not shown "
            f"({sum(s.tokens for s in left_out)} tokens): " + ", ".join(listed)
            + (f" and {rest} more of the ids you gave" if rest else "") + "; call get_symbols with them]")


def _cut_lines(lines: list[str], budget: int, hint: str) -> str:
    """Lines joined, within `budget` tokens: whole lines while they fit, then one line saying how many
    were left out and what to call (that line included in the budget)."""
    whole = "\n".join(lines)
    if count_tokens(whole) <= budget:
        return whole

    def note(left: int) -> str:
        return f"[cut at {budget} tokens: {left} more lines; {hint}]"

    reserve = count_tokens(note(len(lines))) + 2
    while True:
        room = budget - reserve
        kept: list[str] = []
        spent = 0
        for line in lines:
            cost = count_tokens(line + "\n")
            if spent + cost > room:
                if not kept:  # one line longer than the whole budget: its head
                    kept.append(_token_prefix(line, room - 1))
                break
            kept.append(line)
            spent += cost
        text = "\n".join(kept) + "\n" + note(len(lines) - len(kept))
        over = count_tokens(text) - budget
        if over <= 0 or room <= 0:
            return text
        reserve += over


def _folder_outline(rel: str, files: list[dict[str, Any]]) -> list[str]:
    """A folder's direct subfolders (file counts, token totals) and files (tokens, symbols)."""
    prefix = rel + "/" if rel else ""
    folders: dict[str, list[int]] = {}
    direct: list[dict[str, Any]] = []
    for f in files:
        rest = f["path"][len(prefix):]
        if "/" in rest:
            name = rest.split("/", 1)[0]
            entry = folders.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += f["tokens"]
        else:
            direct.append(f)
    total = sum(f["tokens"] for f in files)
    lines = [f"{for_terminal(rel or '.')}/: {len(files)} indexed files, {total} tokens"]
    for name, (count, tokens) in sorted(folders.items()):
        lines.append(f"  {for_terminal(name)}/ {count} files, {tokens} tokens")
    for f in sorted(direct, key=lambda f: f["path"]):
        name = f["path"][len(prefix):]
        lines.append(f"  {for_terminal(name)} {f['language']}, {f['tokens']} tokens, "
                     f"{len(f['symbols'])} top-level symbols")
    if not files:
        lines.append("  (no indexed files; index_status lists skipped ones)")
    return lines


# -- the server ---------------------------------------------------------------------------------


class SymscopeServer(MCPServer[Any]):
    """`MCPServer` whose errors are one line naming the argument (or failure) and what to do,
    and whose calls stop when they are cancelled or their client goes away."""

    symscope: Session
    debug: bool = False
    """Log the traceback of an unexpected error on stderr (`--debug`, or SYMSCOPE_DEBUG=1)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in _TOOLS:
            raise ToolError(f"unknown tool {_echo(name)}; symscope's tools are " + ", ".join(_TOOLS))
        try:
            return await self._watched(name, arguments, context)
        except UnexpectedToolError as exc:
            raise ToolError(crash_error(name, exc.__cause__ or exc, self.debug)) from None
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, exc.__cause__)) from exc.__cause__
            raise

    async def _watched(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        """Run the tool with a cancel flag that a watcher task sets once the request is cancelled.

        The SDK runs a tool in a worker thread, which cancellation cannot interrupt (it waits
        for the thread). The watcher is cancelled with the request (`notifications/cancelled`,
        or the transport ending) and sets the flag the tool's work polls (`cancelled()`).
        """
        flag = threading.Event()
        finished = False

        async def watch() -> None:
            try:
                await anyio.sleep_forever()
            finally:
                if not finished:
                    flag.set()

        token = _CANCEL.set(flag)
        result: CallToolResult | InputRequiredResult | None = None
        failure: Exception | None = None
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(watch)
                try:
                    result = await super().call_tool(name, arguments, context)
                except Exception as exc:  # raised below, not from the group (which would wrap it)
                    failure = exc
                finally:
                    finished = True
                    watchers.cancel_scope.cancel()
        finally:
            _CANCEL.reset(token)
        if failure is not None:
            raise failure
        assert result is not None
        return result


def crash_error(tool: str, exc: BaseException, debug: bool = False) -> str:
    """An unexpected exception as one line for the model (what failed, what to call next),
    and one line on stderr; its traceback goes to stderr only in debug mode."""
    detail = _echo(str(exc), 100)
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    if debug:
        log.error("%s failed unexpectedly", tool, exc_info=exc)
    else:
        log.warning("%s failed unexpectedly (%s); %s=1 or --debug logs the traceback", tool, what, DEBUG_ENV)
    return (f"Error executing tool {tool}: failed unexpectedly ({what}); the server still serves: "
            f"call {tool} again with other arguments, or index_status to check the index")


def argument_error(tool: str, error: ValidationError) -> str:
    """A validation failure as one line: which argument, what is wrong, what to call."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    field = str(first["loc"][0]) if first["loc"] else "arguments"
    if first["type"] == "missing":
        what = f"missing argument {where}"
    else:
        got = repr(first.get("input"))
        got = got if len(got) <= 40 else got[:39] + "…"
        what = f"bad argument {where}: {first['msg']} (got {got})"
    return _safe_line(f"Error executing tool {tool}: {what}; call {tool} again with a valid {field}")


def compact_schema(node: Any) -> Any:
    """A pydantic JSON schema without titles, and `X | None` shown as plain X.

    Validation still runs on the full model; this only trims what every
    `tools/list` costs the model (the tools schemas ride along in every prompt).
    """
    if isinstance(node, list):
        return [compact_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: compact_schema(v) for name, v in value.items()}
        else:
            out[key] = compact_schema(value)
    variants = out.get("anyOf")
    if isinstance(variants, list):
        kept = [v for v in variants if v != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(variants):
            del out["anyOf"]
            out = {**kept[0], **out}
            if "default" in out and out["default"] is None:
                del out["default"]
    return out


@contextlib.contextmanager
def _without_rich() -> Iterator[None]:
    """Keep `rich` unimportable while the SDK sets up its logging.

    MCPServer's constructor installs a rich log handler whenever rich can be
    imported (it can: the UI depends on it); core/ must never load rich, so the
    SDK falls back to a plain handler, which `_log_to_stderr` has made a no-op.
    """
    if "rich" in sys.modules:  # already loaded by the embedding process: nothing to keep out
        yield
        return
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.modules.pop("rich", None)


class _SafeFormatter(logging.Formatter):
    """Log lines on stderr reach a person's terminal: sanitised like every other output."""

    def format(self, record: logging.LogRecord) -> str:
        return for_terminal(super().format(record))


def _log_to_stderr() -> None:
    """Sanitised log lines on stderr (stdout is the protocol's), unless logging is set up already."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_SafeFormatter("symscope mcp: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    log.setLevel(logging.INFO)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("symscope")
    except PackageNotFoundError:
        return "unknown"


def debug_requested() -> bool:
    """SYMSCOPE_DEBUG set to anything but empty, 0, false or no."""
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def build_server(
    index: Index, update_options: dict[str, Any] | None = None, debug: bool = False
) -> SymscopeServer:
    """The MCP server over one open index (the caller closes the index)."""
    _log_to_stderr()
    tools = Tools(Session(index, update_options))
    specs: list[Tool] = []
    for name, (description, hints) in _TOOLS.items():
        tool = Tool.from_function(getattr(tools, name), name=name, description=description,
                                  annotations=hints, structured_output=False)
        specs.append(tool.model_copy(update={"parameters": compact_schema(tool.parameters)}))
    with _without_rich():
        server = SymscopeServer("symscope", instructions=INSTRUCTIONS, version=_version(), tools=specs)
    server.symscope = tools.session
    server.debug = debug or debug_requested()
    return server


def _exit_when_stdin_closes() -> None:
    """End the process `EXIT_GRACE` s after the client closes stdin (or SIGINT/SIGTERM), even mid-call.

    Closing stdin cancels a running call, whose work stops at its next check; a step that
    cannot check (walking the repo, starting parser processes) must not keep a server whose
    client is gone alive. A thread copies stdin into a pipe the SDK reads as fd 0, so it sees
    the end first; a signal ends that pipe the same way, so the SDK shuts down as on EOF
    (a bare SIGINT would leave its stdin reader blocked). Exiting mid-write is safe: SQLite
    rolls an unfinished write back on next open. POSIX only (it polls the pipe with select).
    """
    if os.name != "posix":
        return
    try:
        real = os.dup(0)
        read_end, write_end = os.pipe()
        os.dup2(read_end, 0)
        os.close(read_end)
    except OSError as exc:  # no usable stdin: the SDK reports that itself
        log.debug("cannot watch stdin (%s)", exc)
        return
    stop = threading.Event()

    def pump() -> None:
        import select

        try:
            while not stop.is_set():
                if not select.select([real], [], [], 0.1)[0]:
                    continue
                chunk = os.read(real, 1 << 16)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(write_end, view):]
        except OSError:  # the client's end broke: the same as closing it
            pass
        os.close(write_end)
        time.sleep(EXIT_GRACE)
        log.info("stopped (a call was still running %.1f s after the client left)", EXIT_GRACE)
        logging.shutdown()
        os._exit(0)

    def on_signal(signum: int, frame: object) -> None:
        stop.set()  # nothing else here: a handler must not take locks the main thread may hold

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    threading.Thread(target=pump, name="symscope-stdin", daemon=True).start()


def serve(
    repo: str | os.PathLike[str],
    index_dir: str | os.PathLike[str] | None = None,
    max_files: int | None = None,
    allow_any_root: bool = False,
    debug: bool = False,
) -> int:
    """Serve `repo` over stdio until the client closes stdin; returns the exit code.

    The index is opened now (a bad repo or corrupt index fails at once) and built,
    if it never was, on the first call, so the handshake never waits for it. When
    stdin closes mid-call, the call is cancelled and the process ends within about
    `EXIT_GRACE` seconds even if its work does not stop.
    """
    _log_to_stderr()
    index = Index.open(repo, index_dir)
    try:
        options: dict[str, Any] = {"allow_any_root": allow_any_root}
        if max_files is not None:
            options["max_files"] = max_files
        server = build_server(index, options, debug)
        log.info("serving %s over stdio (index %s)", index.root, index.index_dir)
        _exit_when_stdin_closes()
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(server.run_stdio_async)
    finally:
        index.close()
    log.info("stopped")
    return 0
