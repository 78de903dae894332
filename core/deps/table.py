"""The table of names: every symbol of one index generation arranged for lookups, and how modules
map to files."""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from typing import TYPE_CHECKING

from symscope.core.deps.facts import _facts
from symscope.core.deps.values import _HOLDERS, USABLE_KINDS, _Decl, _Imp
from symscope.core.models import Symbol

if TYPE_CHECKING:
    from symscope.core.index import Index


class _Table:
    """Every symbol of one index generation, arranged for name lookups, with per-file facts memoised."""

    def __init__(self, index: Index) -> None:
        self.generation = index.generation()
        self.root = index.root
        symbols = index.all_symbols()
        self.by_id: dict[str, Symbol] = {s.id: s for s in symbols}
        self.by_name: dict[str, list[Symbol]] = defaultdict(list)
        self.top: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
        """(path, name) -> top-level symbols (no parent, or a module/file parent)."""
        self.by_qualname: dict[str, list[Symbol]] = defaultdict(list)
        self.members: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        self.children: dict[str, list[Symbol]] = defaultdict(list)
        self.in_file: dict[str, list[Symbol]] = defaultdict(list)
        for s in symbols:
            if s.parent_id:
                self.children[s.parent_id].append(s)
            if s.kind not in USABLE_KINDS:
                continue
            self.in_file[s.path].append(s)
            self.by_name[s.name].append(s)
            self.by_qualname[s.qualname].append(s)
            parent = self.by_id.get(s.parent_id) if s.parent_id else None
            if parent is None or parent.kind not in _HOLDERS:
                self.top[(s.path, s.name)].append(s)
            else:
                self.members[parent.id][s.name].append(s)
        records = index.files()
        self.languages = {r.path: r.language for r in records}
        self.files = sorted({s.path for s in symbols} | set(self.languages))
        self.file_set = frozenset(self.files)
        self.stems: dict[str, list[str]] = defaultdict(list)
        """Path without extension (and `pkg/__init__`/`dir/index` as `pkg`/`dir`) -> files."""
        self.dirs: dict[str, list[str]] = defaultdict(list)
        for path in self.files:
            stem = path.rsplit(".", 1)[0] if "." in posixpath.basename(path) else path
            self.stems[stem].append(path)
            base = posixpath.basename(stem)
            if base in ("__init__", "index", "mod", "lib"):
                self.stems[posixpath.dirname(stem)].append(path)
            self.dirs[posixpath.dirname(path)].append(path)
        self.imports: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for imp in index.imports():
            self.imports[imp.path].append((imp.module, imp.line))
        self._resolved: dict[tuple[str, str], tuple[str, ...]] = {}
        self._roots: list[tuple[str, str]] | None = None
        # Facts derived from one file or one class, shared by every symbol (and every
        # `Dependencies` that shares this table): filled on first need.
        self.file_imports: dict[str, list[_Imp]] = {}
        self.aliases: dict[str, dict[str, list[Symbol]]] = {}
        self.fields: dict[str, tuple[dict[str, list[_Decl]], tuple[str, ...]]] = {}
        self.bases: dict[str, list[Symbol]] = {}
        self.var_types: dict[str, list[Symbol]] = {}
        self.field_types: dict[tuple[str, str], list[Symbol]] = {}
        self.builds: dict[str, bool] = {}
        self.self_returns: dict[str, bool] = {}
        self.returns: dict[str, list[Symbol]] = {}
        self.bare_memo: dict[tuple[str, str], tuple[list[Symbol], int]] = {}
        self.qualified_memo: dict[tuple[str, str, str], list[Symbol]] = {}

    def module_files(self, module: str, from_path: str) -> tuple[str, ...]:
        """Repo files an import of `module` in `from_path` refers to (none for external modules)."""
        key = (module, from_path)
        cached = self._resolved.get(key)
        if cached is None:
            cached = self._resolved[key] = tuple(self._module_files(module, from_path))
        return cached

    def _module_files(self, module: str, from_path: str) -> list[str]:
        text = module.strip().strip("'\"`<>")
        if not text:
            return []
        here = posixpath.dirname(from_path)
        if text.startswith(("./", "../")):
            target = posixpath.normpath(posixpath.join(here, text))
            found = self._stem_or_dir(target)
            if not found and "." in posixpath.basename(target):  # TypeScript's `./x.js` is ./x.ts
                found = self._stem_or_dir(target.rsplit(".", 1)[0])
            return found
        if text.startswith("."):  # Python: `.x` is this package, `..x` its parent
            dots = len(text) - len(text.lstrip("."))
            base = here
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = text[dots:].replace(".", "/")
            return self._stem_or_dir(posixpath.join(base, rest) if rest else base)
        if "::" in text and text.split("::", 1)[0] in ("crate", "self", "super"):
            rust = self._rust_path(text.split("::"), from_path)
            if rust is not None:
                return rust
        for prefix, folder in self.module_roots():
            if text == prefix or text.startswith(prefix + "/"):
                found = self._stem_or_dir(posixpath.join(folder, text[len(prefix):].strip("/")))
                if found:
                    return found
        hosted = "." in text.split("/", 1)[0] and "/" in text  # github.com/org/repo/pkg
        parts = [p for p in re.split(r"::|[./\\:]", text) if p and p not in ("crate", "self", "super", "*")]
        for start in range(len(parts)):
            if len(parts) - start < 2 and start > 0 and not hosted:
                break  # `encoding/json` is not the repo's `codec/json`: one segment is too weak
            found = self._suffix("/".join(parts[start:]))
            if found:
                return found
        return []

    def _rust_path(self, parts: list[str], from_path: str) -> list[str] | None:
        """`crate::a::b`, `self::a`, `super::a`: the module file, from the crate root or this module."""
        stem = from_path.rsplit(".", 1)[0]
        folder = posixpath.dirname(stem) if posixpath.basename(stem) in ("mod", "lib", "main") else stem
        if parts[0] == "crate":
            folder = posixpath.dirname(from_path)
            while not any(posixpath.join(folder, root) in self.file_set for root in ("lib.rs", "main.rs")):
                if not folder:
                    return None
                folder = posixpath.dirname(folder)
        rest = list(parts)
        while rest and rest[0] in ("crate", "self", "super"):
            if rest.pop(0) == "super":
                folder = posixpath.dirname(folder)
        if not rest or "*" in rest or "{" in "".join(rest):
            return None
        return self._stem_or_dir(posixpath.join(folder, *rest))

    def module_roots(self) -> list[tuple[str, str]]:
        """(module path, folder) from the manifests that name a module's root (`module x` in go.mod)."""
        if self._roots is not None:
            return self._roots
        from symscope.core.files import read_repo_file

        roots: list[tuple[str, str]] = []
        folders: dict[tuple[str, str], set[str]] = defaultdict(set)
        for path, language in self.languages.items():
            manifest = _facts(language).manifest
            if manifest is None:
                continue
            folder = posixpath.dirname(path)
            while True:
                folders[(manifest[0], manifest[1].pattern)].add(folder)
                if not folder:
                    break
                folder = posixpath.dirname(folder)
        for (name, pattern), found in folders.items():
            regex = re.compile(pattern, re.MULTILINE)
            for folder in sorted(found):
                try:
                    text = read_repo_file(self.root, posixpath.join(folder, name) if folder else name, 1 << 16)
                except (OSError, ValueError):
                    continue
                match = regex.search(text.decode("utf-8", "replace"))
                if match:
                    roots.append((match.group(1).strip().strip('"'), folder))
        self._roots = sorted(roots, key=lambda r: -len(r[0]))
        return self._roots

    def _stem_or_dir(self, target: str) -> list[str]:
        target = target.strip("/")
        if target in self.stems:
            return list(self.stems[target])
        return list(self.dirs.get(target, ()))

    def _suffix(self, suffix: str) -> list[str]:
        exact = self._stem_or_dir(suffix)
        if exact:
            return exact
        tail = "/" + suffix
        stems = [s for s in self.stems if s.endswith(tail)]
        if stems:
            return sorted({f for s in stems for f in self.stems[s]})
        dirs = [d for d in self.dirs if d.endswith(tail)]
        return sorted({f for d in dirs for f in self.dirs[d]})
