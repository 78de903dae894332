"""Synthetic monorepos built from the pinned corpora, the same bytes on every machine.

A monorepo of N files is copies of the corpora's source files (Python, JavaScript, Go),
copy after copy in a fixed order, the last copy cut short so the count is exactly N:

    c000/express/lib/response.js    (copy 0 keeps the corpus's own names)
    c001/express/lib/response.js    (copy 1: every defined name gets the suffix `_c1`)

Renaming the definitions (and every whole-word use of them) per copy keeps each copy's
symbols distinct, as in a real monorepo, where one query does not find N equal twins.
Only the standard library is used, so the builder itself costs nothing to test.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The source files copied: the languages of the three pinned corpora.
SOURCE_SUFFIXES = frozenset({".py", ".js", ".go"})
#: Names never renamed: too short or too common to be one definition (a JavaScript getter's
#: `get`, Go's `main`/`init`, dunder methods), since renaming them could break the syntax.
KEEP = frozenset({
    "main", "init", "self", "this", "super", "constructor", "toString", "String", "Error",
    "then", "call", "apply", "bind", "default", "type", "object", "async", "await", "yield",
    "return", "function", "class", "import", "from", "None", "True", "False", "prototype",
    "exports", "module", "require", "length", "value", "name", "error", "next", "args",
})
#: Definition sites per language: Python def/class, Go func/method/type, JavaScript
#: function, class, `x.name = function` and `const name = (...) =>`.
_DEFINITIONS = {
    ".py": re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.M),
    ".go": re.compile(r"^(?:func\s+(?:\([^)]*\)\s*)?|type\s+)([A-Za-z_]\w*)", re.M),
    ".js": re.compile(
        r"(?:function\s*\*?\s*|class\s+)([A-Za-z_$][\w$]*)"
        r"|^\s*(?:[\w$]+\.)+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function"
        r"|^\s*(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function|class|\()",
        re.M,
    ),
}
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


@dataclass(frozen=True)
class Monorepo:
    """A built monorepo: where, how many files and bytes, and a digest of every path and byte."""

    root: Path
    files: int
    source_bytes: int
    copies: int
    digest: str


def source_files(corpus: Path) -> list[Path]:
    """A corpus's copied files, sorted by path (no hidden folders, no symlinks)."""
    found = [p for p in corpus.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file()
             and not p.is_symlink() and not any(part.startswith(".") for part in p.relative_to(corpus).parts)]
    return sorted(found, key=lambda p: p.relative_to(corpus).as_posix())


def defined_names(files: Iterable[Path]) -> list[str]:
    """Every name the files define (sorted), less the ones kept as they are."""
    names: set[str] = set()
    for path in files:
        pattern = _DEFINITIONS.get(path.suffix)
        if pattern is None:
            continue
        for match in pattern.finditer(path.read_text("utf-8", "replace")):
            names.update(g for g in match.groups() if g)
    return sorted(n for n in names if len(n) >= 4 and not n.startswith("__") and n not in KEEP
                  and "$" not in n)


def rename(text: str, names: frozenset[str], suffix: str) -> str:
    """`text` with every whole-word use of `names` given `suffix` (definitions and uses alike)."""
    if not suffix:
        return text
    return _IDENTIFIER.sub(lambda m: m.group() + suffix if m.group() in names else m.group(), text)


def plan(corpora: Sequence[Path], files: int) -> list[tuple[int, Path, Path]]:
    """(copy number, corpus, file) for the first `files` files, copy after copy."""
    per_corpus = [(corpus, source_files(corpus)) for corpus in corpora]
    if not any(found for _, found in per_corpus):
        raise ValueError("no .py, .js or .go files in " + ", ".join(str(c) for c in corpora))
    out: list[tuple[int, Path, Path]] = []
    copy = 0
    while len(out) < files:
        for corpus, found in per_corpus:
            out += [(copy, corpus, path) for path in found[: files - len(out)]]
        copy += 1
    return out


def build(corpora: Sequence[Path], out: Path, files: int) -> Monorepo:
    """Write the monorepo of exactly `files` files to `out` (replaced if it holds another build).

    An `out` already holding this very build (same corpora bytes, same count) is kept as is.
    """
    if files < 1:
        raise ValueError("--files must be at least 1")
    steps = plan(corpora, files)
    key = _key(corpora, files)
    manifest = out.with_name(out.name + ".json")  # beside it: the index sees only sources
    if manifest.is_file():
        saved = json.loads(manifest.read_text())
        if saved.get("key") == key:
            return Monorepo(out, saved["files"], saved["source_bytes"], saved["copies"], saved["digest"])
    if out.exists():
        shutil.rmtree(out)
    names = {corpus: frozenset(defined_names(source_files(corpus))) for corpus in corpora}
    digest = hashlib.sha256()
    total = 0
    for copy, corpus, path in steps:
        rel = Path(f"c{copy:03d}") / corpus.name / path.relative_to(corpus)
        text = rename(path.read_text("utf-8", "replace"), names[corpus], f"_c{copy}" if copy else "")
        data = text.encode("utf-8")
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        total += len(data)
        digest.update(rel.as_posix().encode() + b"\0" + hashlib.sha256(data).digest())
    copies = steps[-1][0] + 1
    result = Monorepo(out, len(steps), total, copies, digest.hexdigest())
    manifest.write_text(json.dumps({"key": key, "files": result.files, "source_bytes": total,
                                    "copies": copies, "digest": result.digest}))
    return result


def _key(corpora: Sequence[Path], files: int) -> str:
    """What decides a build: the count and the corpora's paths, sizes and mtimes."""
    h = hashlib.sha256(f"{files}".encode())
    for corpus in corpora:
        for path in source_files(corpus):
            st = path.stat()
            h.update(f"{corpus.name}/{path.relative_to(corpus)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()
