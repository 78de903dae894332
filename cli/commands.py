"""One function per subcommand: call `symscope.core.api`, print text or, with `--json`, its JSON."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

from symscope.cli.output import EXIT_USAGE, ProgressLine, emit, fail, out
from symscope.core import api
from symscope.core.api import Workspace, for_terminal
from symscope.core.errors import SymscopeError
from symscope.core.models import OutlineNode


def _open(args: argparse.Namespace) -> Workspace:
    return Workspace.open(args.repo, args.index_dir, max_files=args.max_files,
                          allow_any_root=args.allow_any_root)


def _cmd_index(args: argparse.Namespace) -> int:
    started = time.perf_counter()  # "in X s" is the whole job: opening, walking, parsing, writing, ranking
    with Workspace.open(args.path, args.index_dir, ensure=False, discard_corrupt=args.rebuild) as ws:
        if args.semantic and not api.semantic_available():
            return fail("hybrid search needs the semantic extra: pip install 'symscope[semantic]'", EXIT_USAGE)
        line = ProgressLine.on(sys.stderr)  # the phase, on a terminal only: pipes and --json see nothing new
        try:
            report = ws.refresh(line, rebuild=args.rebuild, max_files=args.max_files,
                                max_file_bytes=args.max_file_bytes, allow_any_root=args.allow_any_root)
        finally:
            if line is not None:
                line.close()
        report = dataclasses.replace(report, seconds=time.perf_counter() - started)
        vectors = ws.embed(force=args.semantic)
        where = ws.location
    if args.json:
        emit(api.report_json(where, report, vectors))
        return 0
    out(f"indexed {where.root}")
    out(
        f"  files {report.files}  symbols {report.symbols}  parsed {report.parsed}  "
        f"unchanged {report.unchanged}  removed {report.removed}  skipped {len(report.skipped)}  "
        f"in {round(report.seconds, 3):.2f}s"
    )
    by_reason: dict[str, list[str]] = {}
    for s in report.skipped:
        by_reason.setdefault(s.reason, []).append(s.path)
    for reason, paths in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(paths[:3]) + (f", … (+{len(paths) - 3})" if len(paths) > 3 else "")
        out(f"  skipped {len(paths):>5}  {reason}: {shown}")
    if vectors is not None:
        out(f"  embedded {vectors.embedded} new of {vectors.symbols} symbols for hybrid search "
            f"in {round(vectors.seconds, 2):.1f}s")
    out(f"  index: {where.index}  (--json lists every skipped file)")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        return fail("empty query: give one or more words to search for", EXIT_USAGE)
    with _open(args) as ws:
        hits = ws.search(args.query, args.limit, args.kind, args.lang, args.path)
    if args.json:
        emit(api.search_json(args.query, hits))
        return 0
    if not hits:
        out(f"no symbols match {args.query!r}")
        return 0
    for h in hits:
        s = h.symbol
        also = f"  (+{len(h.duplicates)} {h.fold or 'similar'})" if h.duplicates else ""
        out(f"{round(h.score, 4):7.2f}  {s.kind:<9} {s.qualname}  {s.path}:{s.start_line}  "
            f"{s.tokens} tok{also}")
        out(f"         {s.signature}")
        out(f"         id: {s.id}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        shown = ws.show(args.id)
    if args.json:
        emit(api.show_json(shown))
    else:
        source = shown.source
        out(source[:-1] if source.endswith("\n") else source)
    found = api.describe_secrets(shown.source, shown.symbol.path)  # shown exactly: the user's own terminal
    if found:
        print(f"symscope: note: this text holds {found}; bundles and MCP redact them", file=sys.stderr)
    return 0


def _print_outline(nodes: tuple[OutlineNode, ...] | list[OutlineNode], depth: int = 0) -> None:
    for n in nodes:
        s = n.symbol
        out(f"{'  ' * depth}{s.kind:<9} {s.name}  L{s.start_line}-{s.end_line}  {s.tokens} tok")
        _print_outline(n.children, depth + 1)


def _cmd_outline(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        outline = ws.outline(args.target)
    if args.json:
        emit(api.outline_json(outline))
    elif isinstance(outline, api.FileOutlineResult):
        out(f"{outline.path}  ({outline.language}, {outline.tokens} tokens)")
        _print_outline(outline.nodes, 1)
    else:
        for f in outline.files:
            out(f"{f.file.path}  ({f.file.tokens} tok)")
            for s in f.symbols:
                out(f"  {s.kind:<9} {s.name}  L{s.start_line}  {s.tokens} tok")
    return 0


def _cmd_refs(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        used_by = ws.used_by(args.id)
    if args.json:
        emit(api.used_by_json(used_by))
        return 0
    out(f"{len(used_by.references)} symbols mention {used_by.target.name!r}")
    for r in used_by.references:
        out(f"  {r.symbol.kind:<9} {r.symbol.qualname}  {r.symbol.path}:{r.line}")
    return 0


def _cmd_deps(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        uses = ws.uses(args.id, args.depth)
    if args.json:
        emit(api.uses_json(uses))
        return 0
    out(f"{uses.target.id} uses {len(uses.deps)} symbols ({uses.tokens} tokens), depth {uses.depth}")
    for d in uses.deps:
        s = d.symbol
        mark = "  (ambiguous)" if d.ambiguous else ""
        out(f"  {d.distance}  {s.kind:<9} {s.qualname}  {s.path}:{s.start_line}  {s.tokens} tok{mark}")
        out(f"     id: {s.id}")
    return 0


def _cmd_importers(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        importers = ws.importers(args.target)
    if args.json:
        emit(api.importers_json(importers))
        return 0
    out(f"{len(importers.files)} files import {importers.target}")
    for i in importers.files:
        out(f"  {i.path}:{i.line}  ({i.module})")
        for sym_id in i.symbol_ids:
            out(f"    used by {sym_id}")
    return 0


def _cmd_bundle(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        result = ws.bundle(args.ids, deps=args.deps, budget=args.budget, fmt=args.format,
                           diff_ref=args.diff, redact=not args.no_redact,
                           deps_level=args.deps_level)
    if args.out:
        try:
            api.write_private(Path(args.out), result.text)
        except OSError as exc:
            raise SymscopeError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if args.json:
        emit(api.bundle_json(result))
    elif not args.out:
        text = result.text
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    budget = f" of {result.budget:,}" if result.budget is not None else ""
    dropped = f", {len(result.dropped)} dropped" if result.dropped else ""
    where = f" to {args.out}" if args.out else ""
    count = len(result.items)
    print(for_terminal(f"symscope: bundle of {count} item{'' if count == 1 else 's'}{dropped}, {result.tokens:,}"
                       f"{budget} tokens, {result.redacted} secrets redacted{where}"), file=sys.stderr)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open(args) as ws:
        st = ws.stats()
    if args.json:
        emit(api.stats_json(st))
        return 0
    out(f"{st.root}\n  files {st.files}  symbols {st.symbols}  tokens {st.tokens:,}  skipped {st.skipped}")
    for lang, (files, tokens) in st.languages.items():
        out(f"  {lang:<11} {files:>6} files {tokens:>10,} tokens")
    out("  kinds: " + ", ".join(f"{k} {n}" for k, n in st.kinds.items()))
    out(f"  index: {st.index_path} ({st.index_bytes / 1e6:.1f} MB)")
    return 0


def _cmd_languages(args: argparse.Namespace) -> int:
    found = api.languages()
    if args.json:
        emit(api.languages_json(found))
        return 0
    for lang in found:
        out(f"{lang.name:<12} {' '.join(lang.extensions):<32} {', '.join(lang.kinds)}")
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from symscope.mcp_server.server import serve
    except ImportError as exc:
        raise SymscopeError(
            f"the MCP server needs the `mcp` extra ({exc.name} is missing): pip install 'symscope[mcp]'"
        ) from None
    return int(serve(args.repo, args.index_dir, args.max_files, args.allow_any_root, args.debug))


#: The handler of each subcommand.
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "index": _cmd_index,
    "search": _cmd_search,
    "show": _cmd_show,
    "outline": _cmd_outline,
    "stats": _cmd_stats,
    "refs": _cmd_refs,
    "deps": _cmd_deps,
    "importers": _cmd_importers,
    "bundle": _cmd_bundle,
    "languages": _cmd_languages,
    "mcp": _cmd_mcp,
}
