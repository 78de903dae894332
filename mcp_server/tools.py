"""Every MCP tool, one method of `Tools` each, marked with `@_tool(...)`.

Adding a tool is one such method; `build_server` registers the marked ones.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations

from symscope.core.api import (
    FileOutlineResult,
    count_tokens,
    for_paste,
    for_terminal,
    fs_path,
    report_json,
)
from symscope.core.errors import (
    StaleSymbolError,
    SymscopeError,
)
from symscope.core.models import IndexProgress, OutlineNode, Symbol
from symscope.mcp_server.args import (
    LIST_BUDGET,
    PROGRESS_STEPS,
    RESULT_BUDGET,
    USE_LINE_CHARS,
    BudgetLimit,
    BundleFormat,
    BundleIds,
    DepthLimit,
    DepthLimit0,
    DiffRef,
    IdList,
    KindName,
    LangName,
    OutputFormat,
    PathGlob,
    PathList,
    QueryArg,
    RedactFlag,
    RefLimit,
    RepoPath,
    SearchLimit,
    SymbolId,
)
from symscope.mcp_server.formatting import (
    _bundle_notes,
    _count_shown,
    _cut,
    _cut_lines,
    _echo,
    _file_tokens,
    _folder_outline,
    _left_out_note,
    _lines,
    _one_line,
    _redact,
    _redacted_lines,
    _render,
    _some,
    _use_line,
    hit_text,
    reply,
)
from symscope.mcp_server.session import Session, cancelled

if TYPE_CHECKING:
    from symscope.core.api import BundleResult

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


class Progress:
    """Index progress for the caller of one tool, as `notifications/progress` whose message
    names the phase: "walking: 12,345 files found", "parsing: <path>", then the search data.

    Every tool that answers from the index refreshes it first, and the first call on a repo
    never indexed builds the whole index: a client that sent a progress token sees it advance
    (and may keep waiting) instead of a silent call that outlasts its timeout. The SDK sends
    nothing for a caller that sent no token.

    The protocol wants each notification's number above the last: the walk (whose total is not
    known yet) counts in fractions below 1, at most one a `WALK_SECONDS` and none for a walk
    shorter than that; parsing counts `done` of `total` files, at most `PROGRESS_STEPS` of them
    plus the last, which also names the search data built after it.
    """

    WALK_SECONDS = 1.0

    def __init__(self, ctx: Context[Any, Any] | None) -> None:
        self.ctx = ctx
        self.sent: list[tuple[float, float | None]] = []
        self._walk_due = time.monotonic() + self.WALK_SECONDS

    def __call__(self, p: IndexProgress) -> None:
        if self.ctx is None or cancelled():
            return
        note = self._note(p)
        if note is None or (self.sent and note[0] <= self.sent[-1][0]):
            return
        value, total, message = note
        self.sent.append((value, total))
        anyio.from_thread.run(self.ctx.report_progress, value, total, message)

    def _note(self, p: IndexProgress) -> tuple[float, float | None, str] | None:
        """The notification for `p` (number, total, message), or None when it is not sent."""
        if p.phase == "walk":
            if time.monotonic() < self._walk_due:
                return None
            self._walk_due = time.monotonic() + self.WALK_SECONDS
            return p.done / (p.done + 1), None, f"walking the repository: {p.done:,} files found"
        if p.phase == "parse":
            if p.done == p.total:
                return p.done, p.total, f"parsed {p.total:,} files; building the search data"
            if p.done % max(1, p.total // PROGRESS_STEPS) == 0:
                return p.done, p.total, f"parsing: {for_terminal(p.path)}"
        return None  # the search data: named by the last parse notification


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
        ctx: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        """Ranked exactly as `symscope search` ranks (the same `Workspace.search`)."""
        with self.session.fresh(Progress(ctx)) as ws:
            hits = ws.search(query, limit + 1, kind, lang, path)
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
            return reply(text, _file_tokens(ws, {h.symbol.path for h in shown}), _count_shown(text, marks))

    @_tool("Exact source of symbols by id, one header line each; secrets redacted unless redact is false. "
           "Much cheaper than reading whole files.")
    def get_symbols(self, ids: IdList, format: OutputFormat = "plain", redact: RedactFlag = True,
                    ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """Each symbol's bytes as they are on disk now (secrets redacted), within `RESULT_BUDGET` tokens."""
        with self.session.fresh(Progress(ctx)) as ws:
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
                    text, marks = _redact(ws.show(sym.id).source, sym.path, redact)
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
            return reply(text, _file_tokens(ws, {s.path for s in used}), _count_shown(text, marks))

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
    def get_outline(self, path: RepoPath = ".", redact: RedactFlag = True,
                    ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """`Workspace.outline`, laid out compactly: a file's tree, or a folder's direct entries."""
        with self.session.fresh(Progress(ctx)) as ws:
            rel = self.session.path(path)
            if rel and ws.file(rel) is None and os.path.isfile(fs_path(ws.root, rel)):
                reason = next((s.reason for s in ws.skipped() if s.path == rel), "not a source file")
                raise ToolError(f"{_echo(rel)} is not indexed ({_echo(reason)}); "
                                "call get_outline on its folder, or search_symbols")
            outline = ws.outline(rel or ".", cwd=ws.root)
            if isinstance(outline, FileOutlineResult):
                lines, marks = _redacted_lines(self._file_outline(outline), redact)
                text = _cut_lines(lines, LIST_BUDGET, f"call get_symbols on {_echo(outline.path)} ids")
                return reply(text, outline.tokens, _count_shown(text, marks), LIST_BUDGET)
            lines, marks = _redacted_lines(_folder_outline(rel, outline), redact)
            text = _cut_lines(lines, LIST_BUDGET, "call get_outline on a subfolder")
            return reply(text, redacted=_count_shown(text, marks), ceiling=LIST_BUDGET)

    def _file_outline(self, outline: FileOutlineResult) -> list[str]:
        path = outline.path
        lines = [f"{for_terminal(path)}: {outline.language}, {outline.tokens} tokens. "
                 f"Ids are \"{for_terminal(path)}::\" + the name before the space."]
        shown: list[Symbol] = []

        def walk(nodes: Sequence[OutlineNode], depth: int) -> None:
            for node in nodes:
                sym = node.symbol
                suffix = sym.id.split("::", 1)[1]
                lines.append(f"{'  ' * depth}{for_terminal(suffix)} "
                             f"{_lines(sym.start_line, sym.end_line)}, {sym.tokens} tokens")
                shown.append(sym)
                walk(node.children, depth + 1)

        walk(outline.nodes, 0)
        if len(lines) == 1:
            lines.append("(no symbols)")
        self.session.remember(shown)
        return lines

    @_tool("What a symbol uses (calls, types, constants), nearest first, with ids and tokens: "
           "the context to fetch with it.")
    def find_dependencies(self, id: SymbolId, depth: DepthLimit = 1, redact: RedactFlag = True,
                          ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """`Workspace.uses`: one line per dependency (distance, id, lines, tokens, ambiguous)."""
        with self.session.fresh(Progress(ctx)) as ws:
            target = self.session.symbol(id)
            uses = ws.uses(target.id, depth)
            found = uses.deps
            if not found:
                line, marks = _redact(f"{for_terminal(target.qualname)} uses no other symbol of this repo.",
                                      "", redact)
                return reply(line, redacted=len(marks), ceiling=LIST_BUDGET)
            lines = [f"{for_terminal(target.qualname)} uses {len(found)} symbols, {uses.tokens} tokens "
                     "(distance, id, lines, tokens):"]
            for d in found:
                mark = " (ambiguous)" if d.ambiguous else ""
                lines.append(f"{d.distance} {for_terminal(d.symbol.id)} "
                             f"{_lines(d.symbol.start_line, d.symbol.end_line)}, {d.symbol.tokens} tokens{mark}")
            self.session.remember(d.symbol for d in found)
            lines, marks = _redacted_lines(lines, redact)
            text = _cut_lines(lines, LIST_BUDGET, "lower depth, or fetch these with get_symbols")
            return reply(text, _file_tokens(ws, {d.symbol.path for d in found}), _count_shown(text, marks),
                         LIST_BUDGET)

    @_tool("A paste-ready bundle of symbols by ids (and optionally what they use) or of a git diff, that "
           "fits a token budget exactly (at most 6000); secrets redacted unless redact is false.")
    def build_bundle(self, ids: BundleIds = None, deps: DepthLimit0 = 0, budget: BudgetLimit = None,
                     format: BundleFormat = "markdown", redact: RedactFlag = True,
                     diff: DiffRef = None, ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """`Workspace.bundle` fitted so that its text and every note added here stay within the budget.

        No budget, or one above `RESULT_BUDGET`, packs to `RESULT_BUDGET` (the most one
        result holds) and says so. The notes are reserved for: the bundle is packed, the
        notes it needs are added, and it is packed again with less room while the whole
        text is over; the notes are left out only when they cannot fit at all (`_meta`
        still carries the counts). With `diff` (`symscope bundle --diff REF`), the symbols
        changed in the working tree against that revision come in full, their callers as
        signatures.
        """
        given = ids or []
        if not given and diff is None:
            raise ToolError("give ids (from search_symbols or get_outline), or diff (a git revision such as HEAD)")
        with self.session.fresh(Progress(ctx)) as ws:
            refs = [self.session.symbol(i).id if "::" in i else i for i in given]
            limit = RESULT_BUDGET if budget is None else min(budget, RESULT_BUDGET)
            fixed = ""
            if budget is None:
                fixed = (f"\n[no budget given: fitted to {RESULT_BUDGET:,} tokens, the most one result holds; "
                         "pass budget for less]")
            elif budget > RESULT_BUDGET:
                fixed = f"\n[budget lowered to {RESULT_BUDGET:,} tokens, the most one result holds]"

            def packed(room: int) -> tuple[str, BundleResult]:
                result = ws.bundle(refs, deps=deps, budget=room, fmt=format, diff_ref=diff, redact=redact)
                return result.text + fixed + _bundle_notes(result), result

            best = packed(limit)  # the notes may not fit, but the bundle does: the fallback
            text, result = best
            room = limit
            for _ in range(6):
                over = count_tokens(text) - limit
                if over <= 0:
                    break
                room -= over
                if room < 1:
                    break
                try:
                    text, result = packed(room)
                except SymscopeError:  # too little room left for a name line with the notes
                    break
            if count_tokens(text) > limit:
                result = best[1]
                text = result.text
            paths = {i.split("::")[0] for i in given}
            if diff is not None:
                paths |= {item.id.split("::")[0] for item in result.items}
            return reply(text, _file_tokens(ws, paths), result.redacted)

    @_tool("The symbols that use this one (mentions resolved by receiver and import), "
           "with the line of each use.")
    def find_references(self, id: SymbolId, limit: RefLimit = 20, redact: RedactFlag = True,
                        ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """`Workspace.used_by`, each with the code line of the use (redacted with its symbol, then cut)."""
        with self.session.fresh(Progress(ctx)) as ws:
            target = self.session.symbol(id)
            refs = ws.used_by(target.id, limit + 1).references
            shown, more = refs[:limit], len(refs) > limit
            if not shown:
                return reply(f"No other symbol mentions {for_terminal(target.name)}.", redacted=0,
                             ceiling=LIST_BUDGET)
            files: dict[str, list[str]] = {}
            lines = [f"{len(shown)} symbols use {for_terminal(target.name)} (id, line of use, code):"]
            marks: list[str] = []
            for ref in shown:
                where = ref.symbol.path
                if where not in files:
                    try:
                        files[where] = ws.indexed_text(where).split("\n")
                    except StaleSymbolError:
                        files[where] = []
                code, found = _use_line(files[where], ref, redact)
                marks += found
                lines.append(f"{for_terminal(ref.symbol.id)} L{ref.line}: {_one_line(code, USE_LINE_CHARS)}")
            self.session.remember(r.symbol for r in shown)
            if more:
                lines.append("[more mention it: raise limit (max 100)]")
            text = _cut_lines(lines, LIST_BUDGET, "lower limit, or fetch these with get_symbols")
            return reply(text, _file_tokens(ws, set(files)), _count_shown(text, marks), LIST_BUDGET)

    @_tool("Index figures: files, symbols, tokens, languages, when indexed, "
           "files changed since, skipped files by reason.")
    def index_status(self, ctx: Context[Any, Any] | None = None) -> CallToolResult:
        """What the index holds and how fresh it is; this call re-indexes changed files first."""
        with self.session.lock, self.session.reporting(Progress(ctx)):
            try:
                last = self.session.ws.last_indexed()
                report = self.session.refresh()
                status = self.session.ws.status(last, report)
            except SymscopeError as exc:
                raise ToolError(self.session.explain(exc)) from None
        st = status.stats
        langs = sorted(st.languages.items(), key=lambda kv: -kv[1][1])
        when = (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(status.last_indexed))
                if status.last_indexed else "never")
        changed = status.changed_since
        lines = [
            f"repo {for_terminal(st.root)}",
            f"index {for_terminal(st.index_path)} ({st.index_bytes / 1e6:.1f} MB)",
            f"files {st.files}, symbols {st.symbols}, tokens {st.tokens}",
            "languages: " + ("; ".join(f"{for_terminal(k)} {files} files {tokens} tokens"
                                      for k, (files, tokens) in langs) or "none"),
            f"last indexed {when}; files changed since: "
            + (f"{changed} (re-indexed before this answer)" if changed is not None else "unknown"),
            f"skipped {st.skipped} files"
            + (": " + ", ".join(f"{for_terminal(r)} {n}" for r, n in status.skipped_by_reason.items())
               if status.skipped_by_reason else ""),
        ]
        lines.append(f"live updates: {self.session.watching()}")
        if self.session.note:
            lines.append(f"[{for_terminal(self.session.note)}]")
        return reply("\n".join(lines))

    @_tool("Re-index the whole repo from scratch, or re-read the given paths. Rarely needed: "
           "every call already picks up changed files.", WRITES_INDEX)
    def reindex(self, ctx: Context[Any, Any], paths: PathList = None) -> CallToolResult:
        """Progress goes to the caller as notifications, ending at the total."""
        progress = Progress(ctx)
        with self.session.lock:
            try:
                ws = self.session.ws
                if paths:
                    folders = list(dict.fromkeys(self.session.path(p) for p in paths))
                    marked = ws.recheck(folders)
                    report = ws.refresh(progress, cancelled)
                    scope = f"re-read {marked} indexed files under {_some(folders)}"
                else:
                    report = ws.refresh(progress, cancelled, rebuild=True)
                    scope = "rebuilt the index"
            except SymscopeError as exc:
                raise ToolError(self.session.explain(exc)) from None
        if report.cancelled or cancelled():  # the caller is gone: this answer is never read
            raise ToolError(f"reindex cancelled after {report.parsed} files; the index holds what was "
                            "read (call reindex again to finish)")
        if not progress.sent:  # nothing to read: still tell the caller it is over
            anyio.from_thread.run(ctx.report_progress, 0, 0, "nothing to re-read")
        data = report_json(ws.location, report)
        return reply(
            f"{scope} in {data['seconds']} s: {data['files']} files, {data['symbols']} symbols "
            f"(parsed {data['parsed']}, unchanged {data['unchanged']}, removed {data['removed']}, "
            f"skipped {data['skipped']})"
        )
