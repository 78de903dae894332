"""Text the tools return: one line per item, sanitised, redacted, and cut to a token budget."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult, TextContent

from symscope.core.api import (
    FolderOutline,
    Workspace,
    count_tokens,
    encoding,
    fence_tag,
    for_terminal,
    redact_secrets,
    secret_marker,
)
from symscope.core.models import FileOutline, Reference, SearchHit, Symbol
from symscope.mcp_server.args import RESULT_BUDGET, SIGNATURE_CHARS, OutputFormat

if TYPE_CHECKING:
    from symscope.core.api import BundleResult

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


def _file_tokens(ws: Workspace, paths: set[str]) -> int:
    """Tokens of reading these files whole: what the answer saves against."""
    total = 0
    for path in paths:
        rec = ws.file(path)
        total += rec.tokens if rec is not None else 0
    return total


def _redact(text: str, filename: str, enabled: bool = True) -> tuple[str, list[str]]:
    """`text` with every secret replaced by its marker, keeping the line count; and the markers.

    The same detector and markers as bundles (`api.redact_secrets`). A secret
    spanning lines (a private key block) becomes its marker and as many newlines, so the
    text's lines still match the file's: headers, cuts and uses keep their line numbers.
    """
    if not enabled or not text:
        return text, []
    _, findings = redact_secrets(text, filename)  # detect-secrets loads on first use
    if not findings:
        return text, []
    parts: list[str] = []
    at = 0
    for f in findings:
        parts += [text[at:f.start], secret_marker(f.label), "\n" * text.count("\n", f.start, f.end)]
        at = f.end
    parts.append(text[at:])
    return "".join(parts), [secret_marker(f.label) for f in findings]


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


def _use_line(file_lines: list[str], ref: Reference, redact: bool) -> tuple[str, list[str]]:
    """The code line of a use, from its symbol's source redacted whole (a key block spanning
    lines is found as one), and the markers that line shows."""
    line_no, start, end = ref.line, ref.symbol.start_line, ref.symbol.end_line
    if not 0 < line_no <= len(file_lines):
        return "", []
    if not start <= line_no <= end:
        start = end = line_no
    source, marks = _redact("\n".join(file_lines[start - 1 : end]), ref.symbol.path, redact)
    code = source.split("\n")[line_no - start] if marks else file_lines[line_no - 1]
    return code, [m for m in dict.fromkeys(marks) for _ in range(min(code.count(m), marks.count(m)))]


def _bundle_notes(result: BundleResult) -> str:
    """The lines `build_bundle` adds under a packed bundle: what the budget left out, what was redacted."""
    notes = ""
    if result.dropped:
        notes += f"\n[{len(result.dropped)} items left out to fit the budget]"
    if result.redacted:
        notes += f"\n[{result.redacted} secrets redacted]"
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
        fence = _fence(source)
        return f"### {ident} {where}{moved}\n{fence}{fence_tag(sym.language)}\n{body}{fence}\n"
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


def _folder_outline(rel: str, outline: FolderOutline) -> list[str]:
    """A folder's direct subfolders (file counts, token totals) and files (tokens, symbols)."""
    prefix = rel + "/" if rel else ""
    folders: dict[str, list[int]] = {}
    direct: list[FileOutline] = []
    files = outline.files
    for f in files:
        rest = f.file.path[len(prefix):]
        if "/" in rest:
            name = rest.split("/", 1)[0]
            entry = folders.setdefault(name, [0, 0])
            entry[0] += 1
            entry[1] += f.file.tokens
        else:
            direct.append(f)
    total = outline.tokens
    lines = [f"{for_terminal(rel or '.')}/: {len(files)} indexed files, {total} tokens"]
    for name, (count, tokens) in sorted(folders.items()):
        lines.append(f"  {for_terminal(name)}/ {count} files, {tokens} tokens")
    for f in sorted(direct, key=lambda f: f.file.path):
        name = f.file.path[len(prefix):]
        lines.append(f"  {for_terminal(name)} {f.file.language}, {f.file.tokens} tokens, "
                     f"{len(f.symbols)} top-level symbols")
    if not files:
        lines.append("  (no indexed files; index_status lists skipped ones)")
    return lines
