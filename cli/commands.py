"""One function per subcommand: call `symscope.core.api`, print text or, with `--json`, its JSON."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from symscope.cli.output import EXIT_USAGE, emit, fail, out
from symscope.core import api
from symscope.core.errors import SymscopeError
from symscope.core.sanitize import for_terminal

if TYPE_CHECKING:
    from symscope.core.index import Index


def _open(args: argparse.Namespace) -> Index:
    return api.open_index(args.repo, args.index_dir, max_files=args.max_files,
                          allow_any_root=args.allow_any_root)


def _cmd_index(args: argparse.Namespace) -> int:
    from symscope.core.index import Index

    with Index.open(args.path, args.index_dir, discard_corrupt=args.rebuild) as index:
        kwargs: dict[str, Any] = {"rebuild": args.rebuild, "allow_any_root": args.allow_any_root}
        if args.max_files is not None:
            kwargs["max_files"] = args.max_files
        if args.max_file_bytes is not None:
            kwargs["max_file_bytes"] = args.max_file_bytes
        if args.semantic:
            from symscope.core import semantic

            if not semantic.available():
                return fail("hybrid search needs the semantic extra: pip install 'symscope[semantic]'",
                            EXIT_USAGE)
        data = api.report_json(index, index.update(**kwargs))
        embedded = api.refresh_vectors(index, force=args.semantic)
        if embedded is not None:
            data["semantic"] = embedded
    if args.json:
        emit(data)
        return 0
    out(f"indexed {data['root']}")
    out(
        f"  files {data['files']}  symbols {data['symbols']}  parsed {data['parsed']}  "
        f"unchanged {data['unchanged']}  removed {data['removed']}  skipped {data['skipped']}  "
        f"in {data['seconds']:.2f}s"
    )
    by_reason: dict[str, list[str]] = {}
    for s in data["skipped_files"]:
        by_reason.setdefault(s["reason"], []).append(s["path"])
    for reason, paths in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = ", ".join(paths[:3]) + (f", … (+{len(paths) - 3})" if len(paths) > 3 else "")
        out(f"  skipped {len(paths):>5}  {reason}: {shown}")
    if "semantic" in data:
        sem = data["semantic"]
        out(f"  embedded {sem['embedded']} new of {sem['symbols']} symbols for hybrid search "
             f"in {sem['seconds']:.1f}s")
    out(f"  index: {data['index']}  (--json lists every skipped file)")
    return 0


def _cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        return fail("empty query: give one or more words to search for", EXIT_USAGE)
    with _open(args) as index:
        data = api.search(index, args.query, args.limit, args.kind, args.lang, args.path)
    if args.json:
        emit(data)
        return 0
    if not data["results"]:
        out(f"no symbols match {args.query!r}")
        return 0
    for h in data["results"]:
        also = f"  (+{h.get('also_count', len(h['also']))} {h['folded']})" if h.get("also") else ""
        out(f"{h['score']:7.2f}  {h['kind']:<9} {h['qualname']}  {h['path']}:{h['start_line']}  "
             f"{h['tokens']} tok{also}")
        out(f"         {h['signature']}")
        out(f"         id: {h['id']}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from symscope.core.secrets import describe, find_secrets

    with _open(args) as index:
        data = api.show(index, args.id)
    if args.json:
        emit(data)
    else:
        source: str = data["source"]
        out(source[:-1] if source.endswith("\n") else source)
    found = find_secrets(data["source"], data["path"])  # shown exactly: the user's own terminal
    if found:
        print(f"symscope: note: this text holds {describe(found)}; bundles and MCP redact them",
              file=sys.stderr)
    return 0


def _print_outline(nodes: list[dict[str, Any]], depth: int = 0) -> None:
    for n in nodes:
        out(f"{'  ' * depth}{n['kind']:<9} {n['name']}  L{n['start_line']}-{n['end_line']}  "
             f"{n['tokens']} tok")
        _print_outline(n["children"], depth + 1)


def _cmd_outline(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.outline(index, args.target)
    if args.json:
        emit(data)
    elif "symbols" in data:
        out(f"{data['path']}  ({data['language']}, {data['tokens']} tokens)")
        _print_outline(data["symbols"], 1)
    else:
        for f in data["files"]:
            out(f"{f['path']}  ({f['tokens']} tok)")
            for s in f["symbols"]:
                out(f"  {s['kind']:<9} {s['name']}  L{s['start_line']}  {s['tokens']} tok")
    return 0


def _cmd_refs(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.refs(index, args.id)
        name = index.symbol(args.id).name
    if args.json:
        emit(data)
        return 0
    out(f"{len(data['references'])} symbols mention {name!r}")
    for r in data["references"]:
        out(f"  {r['kind']:<9} {r['qualname']}  {r['path']}:{r['line']}")
    return 0


def _cmd_deps(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.deps(index, args.id, args.depth)
    if args.json:
        emit(data)
        return 0
    out(f"{data['id']} uses {len(data['deps'])} symbols ({data['tokens']} tokens), depth {data['depth']}")
    for d in data["deps"]:
        mark = "  (ambiguous)" if d["ambiguous"] else ""
        out(f"  {d['distance']}  {d['kind']:<9} {d['qualname']}  {d['path']}:{d['start_line']}  "
             f"{d['tokens']} tok{mark}")
        out(f"     id: {d['id']}")
    return 0


def _cmd_importers(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.importers(index, args.target)
    if args.json:
        emit(data)
        return 0
    out(f"{len(data['importers'])} files import {data['target']}")
    for i in data["importers"]:
        out(f"  {i['path']}:{i['line']}  ({i['module']})")
        for sym_id in i["symbols"]:
            out(f"    used by {sym_id}")
    return 0


def _cmd_bundle(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.bundle(index, args.ids, deps=args.deps, budget=args.budget, fmt=args.format,
                          diff_ref=args.diff, redact=not args.no_redact, deps_level=args.deps_level)
    if args.out:
        from symscope.core.private import write_private

        try:
            write_private(Path(args.out), data["text"])
        except OSError as exc:
            raise SymscopeError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if args.json:
        emit(data)
    elif not args.out:
        text: str = data["text"]
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    budget = f" of {data['budget']:,}" if data["budget"] is not None else ""
    dropped = f", {len(data['dropped'])} dropped" if data["dropped"] else ""
    where = f" to {args.out}" if args.out else ""
    count = len(data["items"])
    print(for_terminal(f"symscope: bundle of {count} item{'' if count == 1 else 's'}{dropped}, {data['tokens']:,}"
                       f"{budget} tokens, {data['redacted']} secrets redacted{where}"), file=sys.stderr)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    with _open(args) as index:
        data = api.stats(index)
    if args.json:
        emit(data)
        return 0
    out(f"{data['root']}\n  files {data['files']}  symbols {data['symbols']}  "
         f"tokens {data['tokens']:,}  skipped {data['skipped']}")
    for lang, v in data["languages"].items():
        out(f"  {lang:<11} {v['files']:>6} files {v['tokens']:>10,} tokens")
    out("  kinds: " + ", ".join(f"{k} {n}" for k, n in data["kinds"].items()))
    out(f"  index: {data['index']} ({data['index_bytes'] / 1e6:.1f} MB)")
    return 0


def _cmd_languages(args: argparse.Namespace) -> int:
    data = api.languages()
    if args.json:
        emit(data)
        return 0
    for lang in data["languages"]:
        out(f"{lang['name']:<12} {' '.join(lang['extensions']):<32} {', '.join(lang['kinds'])}")
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
