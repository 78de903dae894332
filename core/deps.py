"""What a symbol uses, what uses it, and who imports a file: resolved the way a reader would.

A symbol's uses are the names in its own code (for a class: its header and
class-level code, not its methods' bodies) that name repo symbols. Each name is
looked up in order, stopping at the first place that has it:

1. the same class, through `self`/`this`/a Go receiver (and, in languages where
   a bare name can be a member, a bare name), then the classes it inherits from;
2. for `X.name`: the members of a repo type `X`, or the top-level symbols of a
   module the file imports as `X`; an unknown receiver (`obj.name`) is skipped;
3. for a bare name: the same file, the files the file imports, the same folder,
   and finally a name that only a few symbols in the whole repo have.

A name that more than one candidate still answers is returned with every
candidate marked `ambiguous`, never guessed. Built-ins and external libraries
are not repo symbols, so they never appear. Names are found with tree-sitter, so
comments and strings never count; which receivers mean "this object" is data in
languages.json (`self_names`, `receiver_regex`, `implicit_self`).
"""

from __future__ import annotations

import json
import posixpath
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from symscope.core.errors import StaleSymbolError
from symscope.core.models import CONTAINER_KINDS, Reference, Symbol

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

    from symscope.core.index import Index

#: More candidates than this at the last, repo-wide step is noise, not a dependency.
MAX_REPO_WIDE = 3
#: Base classes followed when a member is not found on the class itself.
MAX_BASE_DEPTH = 4
#: Parsed files kept for repeated lookups (the TUI moves through one file at a time).
TREE_CACHE = 32
#: Kinds a use can resolve to (a module is a namespace, not something code calls).
USABLE_KINDS = frozenset(
    {"function", "method", "class", "struct", "interface", "trait", "enum", "type", "constant"}
)
_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type", "constant"})
_IDENT = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_IDENT_CHAR = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_NOT_CODE = ("string", "comment", "content", "fragment", "escape", "heredoc", "regex", "char")
_SPACE = b" \t\r\n"


@dataclass(frozen=True, slots=True)
class Use:
    """One name in a symbol's code."""

    name: str
    qualifier: str | None
    """The receiver before `.`/`::`/`->`: None for a bare name, "?" for an expression."""
    line: int
    call: bool
    """Followed by `(` (a call or constructor), or `{` (a composite literal)."""
    member: bool = False
    """Followed by `.`/`::`/`->`: the receiver of the next name."""


@dataclass(frozen=True, slots=True)
class Dependency:
    """A symbol that another one uses, `distance` steps away."""

    symbol: Symbol
    distance: int
    ambiguous: bool
    via: str
    """The ID of the symbol whose code uses it."""


@dataclass(frozen=True, slots=True)
class Importer:
    """A file that imports another file or module, and its symbols that use what it imports."""

    path: str
    module: str
    line: int
    symbols: tuple[Symbol, ...]


@cache
def _language_facts() -> dict[str, dict[str, Any]]:
    raw = json.loads(resources.files("symscope.core").joinpath("languages.json").read_text("utf-8"))
    return {name: entry for name, entry in raw.items() if isinstance(entry, dict)}


def _facts(language: str) -> tuple[frozenset[str], re.Pattern[str] | None, bool]:
    """(self names, receiver regex, implicit self) for a language."""
    entry = _language_facts().get(language, {})
    pattern = entry.get("receiver_regex")
    return (
        frozenset(entry.get("self_names", ())),
        re.compile(pattern) if pattern else None,
        bool(entry.get("implicit_self", False)),
    )


class _Table:
    """Every symbol of one index generation, arranged for name lookups."""

    def __init__(self, index: Index) -> None:
        self.generation = index.generation()
        symbols = index.all_symbols()
        self.by_id: dict[str, Symbol] = {s.id: s for s in symbols}
        self.by_name: dict[str, list[Symbol]] = defaultdict(list)
        self.top: dict[tuple[str, str], list[Symbol]] = defaultdict(list)
        """(path, name) -> top-level symbols (no parent, or a module/file parent)."""
        self.by_qualname: dict[str, list[Symbol]] = defaultdict(list)
        self.members: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        self.children: dict[str, list[Symbol]] = defaultdict(list)
        for s in symbols:
            if s.kind not in USABLE_KINDS:
                continue
            self.by_name[s.name].append(s)
            self.by_qualname[s.qualname].append(s)
            parent = self.by_id.get(s.parent_id) if s.parent_id else None
            if parent is None or parent.kind not in CONTAINER_KINDS:
                self.top[(s.path, s.name)].append(s)
            else:
                self.members[parent.id][s.name].append(s)
        for s in symbols:
            if s.parent_id:
                self.children[s.parent_id].append(s)
        self.files = sorted({s.path for s in symbols} | {r.path for r in index.files()})
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
            return self._stem_or_dir(target)
        if text.startswith("."):  # Python: `.x` is this package, `..x` its parent
            dots = len(text) - len(text.lstrip("."))
            base = here
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = text[dots:].replace(".", "/")
            return self._stem_or_dir(posixpath.join(base, rest) if rest else base)
        hosted = "." in text.split("/", 1)[0] and "/" in text  # github.com/org/repo/pkg
        parts = [p for p in re.split(r"::|[./\\:]", text) if p and p not in ("crate", "self", "super", "*")]
        for start in range(len(parts)):
            if len(parts) - start < 2 and start > 0 and not hosted:
                break  # `encoding/json` is not the repo's `codec/json`: one segment is too weak
            found = self._suffix("/".join(parts[start:]))
            if found:
                return found
        return []

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


class Dependencies:
    """Uses, closures, callers and importers over one `Index` (thread-safe, cached per generation)."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._table: _Table | None = None
        self._trees: OrderedDict[tuple[str, str], tuple[Tree, bytes]] = OrderedDict()
        self._uses: dict[str, list[tuple[Symbol, bool, int]]] = {}
        self._lock = threading.RLock()

    def table(self) -> _Table:
        with self._lock:
            generation = self.index.generation()
            if self._table is None or self._table.generation != generation:
                self._table = _Table(self.index)
                self._uses.clear()
            return self._table

    # -- scanning --------------------------------------------------------------------

    def _tree(self, sym: Symbol) -> tuple[Tree, bytes]:
        from tree_sitter_language_pack import get_parser

        from symscope.core.languages import language_by_name

        record = self.index.file(sym.path)
        key = (sym.path, record.hash if record else "")
        with self._lock:
            hit = self._trees.get(key)
            if hit is not None:
                self._trees.move_to_end(key)
                return hit
        data = self.index.indexed_bytes(sym.path, sym)
        spec = language_by_name(sym.language)
        if spec is None:
            raise StaleSymbolError(f"no parser for {sym.language}")
        tree = get_parser(spec.grammar).parse(data)  # type: ignore[arg-type]
        with self._lock:
            self._trees[key] = (tree, data)
            while len(self._trees) > TREE_CACHE:
                self._trees.popitem(last=False)
        return tree, data

    def scan(self, sym: Symbol) -> list[Use]:
        """The names in `sym`'s own code, in order (a container's members are left out)."""
        tree, data = self._tree(sym)
        table = self.table()
        skip = sorted(
            (c.start_byte, c.end_byte) for c in table.children.get(sym.id, ())
            if sym.kind in CONTAINER_KINDS or c.kind in CONTAINER_KINDS
        )
        start, end = sym.start_byte, sym.end_byte
        node = tree.root_node.descendant_for_byte_range(start, end) or tree.root_node
        uses: list[Use] = []
        stack: list[Node] = [node]
        while stack:
            n = stack.pop()
            if n.end_byte <= start or n.start_byte >= end:
                continue
            if any(lo <= n.start_byte and n.end_byte <= hi for lo, hi in skip):
                continue
            if n.child_count:
                if not any(word in n.type for word in _NOT_CODE):
                    stack.extend(reversed(n.children))
                continue
            if not n.is_named or any(word in n.type for word in _NOT_CODE):
                continue
            text = data[n.start_byte : n.end_byte]
            if not _IDENT.fullmatch(text):
                continue
            uses.append(Use(
                text.decode("ascii").lstrip("$"),
                _qualifier(data, n.start_byte),
                n.start_point.row + 1,
                _followed_by_call(data, n.end_byte),
                _followed_by_member(data, n.end_byte),
            ))
        return uses

    # -- resolving -------------------------------------------------------------------

    def uses(self, sym: Symbol) -> list[tuple[Symbol, bool, int]]:
        """(symbol used, ambiguous, line of first use), in order of first use."""
        with self._lock:
            self.table()
            cached = self._uses.get(sym.id)
        if cached is not None:
            return cached
        resolve = self._resolver(sym)
        out: dict[str, tuple[Symbol, bool, int]] = {}
        scanned = self.scan(sym)
        resolved = [resolve(use) for use in scanned]
        for i, (use, found) in enumerate(zip(scanned, resolved, strict=True)):
            nxt = i + 1
            if use.member and nxt < len(scanned) and scanned[nxt].qualifier == use.name and resolved[nxt]:
                continue  # `Limits.max()` uses Limits.max, not the whole class Limits
            ambiguous = len(found) > 1
            for cand in found:
                if cand.id not in out:
                    out[cand.id] = (cand, ambiguous, use.line)
        result = sorted(out.values(), key=lambda t: t[2])
        with self._lock:
            self._uses[sym.id] = result
        return result

    def _resolver(self, sym: Symbol) -> Callable[[Use], list[Symbol]]:
        """A function from one of `sym`'s uses to the repo symbols it names (empty: none)."""
        table = self.table()
        self_names, receiver, implicit = _facts(sym.language)
        if receiver is not None:
            match = receiver.search(sym.signature)
            if match:
                self_names = self_names | {match.group(1)}
        owner = self._owner(table, sym)

        def resolve(use: Use) -> list[Symbol]:
            if use.qualifier is None and (use.name == sym.name or use.name in self_names):
                return []  # its own name (a definition, or recursion), or `self` itself
            found = self._resolve(table, sym, owner, use, self_names, implicit)
            return [c for c in found if c.id != sym.id and c is not owner and not _encloses(c, sym)]

        return resolve

    @staticmethod
    def _owner(table: _Table, sym: Symbol) -> Symbol | None:
        """The class (struct, impl...) a symbol belongs to, if any."""
        parent = table.by_id.get(sym.parent_id) if sym.parent_id else None
        while parent is not None and parent.kind not in CONTAINER_KINDS:
            parent = table.by_id.get(parent.parent_id) if parent.parent_id else None
        if parent is None and sym.kind in CONTAINER_KINDS:
            return sym
        return parent

    def _resolve(
        self,
        table: _Table,
        sym: Symbol,
        owner: Symbol | None,
        use: Use,
        self_names: frozenset[str],
        implicit: bool,
    ) -> list[Symbol]:
        q = use.qualifier
        if q in self_names or (q is None and implicit and owner is not None):
            found = self._member(table, owner, use.name) if owner is not None else []
            if found or q is not None:
                return found
        if q == "?":
            return []
        if q is not None:
            return self._qualified(table, sym, q, use.name)
        found = self._bare(table, sym, use.name)
        if not use.call:
            # A bare name that is not called: a type, a constant, or a function passed along;
            # a variable of the same name as a repo function is far more common than the latter.
            found = [s for s in found if s.kind in _TYPE_KINDS] or (
                found if len(found) == 1 and found[0].path == sym.path else []
            )
        return found

    def _member(self, table: _Table, owner: Symbol, name: str) -> list[Symbol]:
        """`owner`'s members named `name`, then its base classes' (breadth first)."""
        frontier, seen = [owner], {owner.id}
        for _ in range(MAX_BASE_DEPTH):
            found = [m for o in frontier for m in table.members.get(o.id, {}).get(name, ())]
            if found:
                return found
            nxt = []
            for o in frontier:
                for base in _base_names(o):
                    for b in self._bare(table, o, base):
                        if b.kind in CONTAINER_KINDS and b.id not in seen:
                            seen.add(b.id)
                            nxt.append(b)
                # Go/Rust: methods attach to the type by name, wherever they are declared.
                for twin in table.by_name.get(o.name, ()):
                    if twin.id not in seen and twin.kind in CONTAINER_KINDS and twin.path == o.path:
                        seen.add(twin.id)
                        nxt.append(twin)
            if not nxt:
                return []
            frontier = nxt
        return []

    def _qualified(self, table: _Table, sym: Symbol, qualifier: str, name: str) -> list[Symbol]:
        # `Type.name`: a member of a repo type the file can see.
        types = [t for t in self._bare(table, sym, qualifier) if t.kind in CONTAINER_KINDS]
        if types:
            found = [m for t in types for m in self._member(table, t, name)]
            if found:
                return found
        # `module.name`: a top-level symbol of an imported module.
        for module, _ in table.imports.get(sym.path, ()):
            last = re.split(r"::|[./\\]", module.strip("'\"`"))[-1]
            candidates: Iterable[str] = ()
            if last == qualifier:
                candidates = table.module_files(module, sym.path)
            else:
                candidates = table.module_files(f"{module.rstrip('.')}.{qualifier}", sym.path) if (
                    module.startswith(".") or "/" not in module
                ) else table.module_files(f"{module}/{qualifier}", sym.path)
            found = [s for f in candidates for s in table.top.get((f, name), ())]
            if found:
                return found
        # `obj.name` where the repo defines exactly that qualified name (`app.render` in express).
        named = table.by_qualname.get(f"{qualifier}.{name}", [])
        return list(named) if len(named) <= MAX_REPO_WIDE else []

    def _bare(self, table: _Table, sym: Symbol, name: str) -> list[Symbol]:
        """A bare name: the same file, imported files, the same folder, then the whole repo."""
        same = table.top.get((sym.path, name))
        if same:
            return list(same)
        imported: list[Symbol] = []
        for module, _ in table.imports.get(sym.path, ()):
            for f in table.module_files(module, sym.path):
                imported.extend(table.top.get((f, name), ()))
        if imported:
            return list({s.id: s for s in imported}.values())
        folder = posixpath.dirname(sym.path)
        local = [s for f in table.dirs.get(folder, ()) for s in table.top.get((f, name), ())]
        if local:
            return local
        anywhere = [s for s in table.by_name.get(name, ()) if (s.path, name) in table.top
                    and s in table.top[(s.path, name)]]
        return anywhere if len(anywhere) <= MAX_REPO_WIDE else []

    # -- closures, callers, importers ---------------------------------------------------

    def closure(self, sym: Symbol, depth: int = 1) -> list[Dependency]:
        """Uses to `depth`, nearest first; cycles end; ambiguous candidates are not followed."""
        seen = {sym.id}
        out: list[Dependency] = []
        frontier = [sym]
        for distance in range(1, depth + 1):
            nxt: list[Symbol] = []
            for s in frontier:
                for dep, ambiguous, _ in self.uses(s):
                    if dep.id in seen:
                        continue
                    seen.add(dep.id)
                    out.append(Dependency(dep, distance, ambiguous, s.id))
                    if not ambiguous:
                        nxt.append(dep)
            frontier = nxt
            if not frontier:
                break
        return out

    def callers(self, sym: Symbol, limit: int = 200) -> list[Reference]:
        """The symbols that use `sym`, each with the line of the first use.

        Candidates are the symbols whose code mentions `sym`'s name; one is dropped
        only when every mention resolves, by receiver or import, to other symbols
        (`other.Get()` where `other` is another class), so calls through a receiver
        of unknown type still count.
        """
        out: list[Reference] = []
        for ref in self.index.references(sym, limit=max(limit * 4, 200)):
            try:
                resolve = self._resolver(ref.symbol)
                own = {None, "prototype", *ref.symbol.qualname.split(".")}
                mentions = [u for u in self.scan(ref.symbol) if u.name == sym.name and not (
                    u.name == ref.symbol.name and u.qualifier in own  # its own definition
                )]
            except StaleSymbolError:
                continue
            lines = [u.line for u in mentions if not (found := resolve(u)) or sym in found]
            if lines:
                out.append(Reference(ref.symbol, lines[0]))
            if len(out) >= limit:
                break
        return out

    def importers(self, target: str) -> list[Importer]:
        """Files that import `target` (a repo file, a folder, or a module name as written)."""
        table = self.table()
        target = target.strip("/")
        wanted = set(table.stems.get(target.rsplit(".", 1)[0], ())) | set(table.dirs.get(target, ()))
        if target in table.files:
            wanted.add(target)
        out: list[Importer] = []
        for path in sorted(table.imports):
            for module, line in table.imports[path]:
                files = set(table.module_files(module, path))
                hit = bool(files & wanted) if wanted else module.strip("'\"") == target
                if not hit or path in wanted:
                    continue
                users = []
                for s in self.index.file_symbols(path):
                    try:
                        if any(d.path in (files or wanted) for d, _, _ in self.uses(s)):
                            users.append(s)
                    except StaleSymbolError:
                        break
                out.append(Importer(path, module, line, tuple(users)))
                break
        return out


def _qualifier(data: bytes, start: int) -> str | None:
    """The receiver written before the name at `start` (`self` in `self.x`), if any."""
    i = start - 1
    while i >= 0 and data[i] in _SPACE:
        i -= 1
    if i >= 1 and data[i - 1 : i + 1] in (b"::", b"->", b"?."):
        i -= 2
    elif i >= 0 and data[i] == ord("."):
        i -= 1
        if i >= 0 and data[i] == ord("."):
            return None  # `..` (a range or spread), not a member access
    else:
        return None
    while i >= 0 and data[i] in _SPACE:
        i -= 1
    j = i
    while j >= 0 and data[j] in _IDENT_CHAR:
        j -= 1
    word = data[j + 1 : i + 1].lstrip(b"$")
    if not word or not _IDENT.fullmatch(word):
        return "?"
    return word.decode("ascii")


def _followed_by_member(data: bytes, end: int) -> bool:
    i = end
    while i < len(data) and data[i] in _SPACE:
        i += 1
    nxt = data[i : i + 2]
    return nxt[:1] == b"." or nxt in (b"::", b"->", b"?.")


def _followed_by_call(data: bytes, end: int) -> bool:
    i = end
    while i < len(data) and data[i] in b" \t":
        i += 1
    if i < len(data) and data[i] == ord("!"):  # a Rust macro: `name!(...)`
        return False
    return i < len(data) and data[i] in b"({"


_BASES = re.compile(r"[A-Za-z_][\w]*")
_BASE_STOP = frozenset({"class", "struct", "interface", "extends", "implements", "public", "private",
                        "protected", "abstract", "final", "sealed", "open", "data", "object", "trait",
                        "impl", "for", "where", "type", "export", "default", "with", "metaclass", "pub"})


def _base_names(container: Symbol) -> list[str]:
    """Names a class header lists after its own name: bases, interfaces, traits."""
    sig = container.signature
    at = sig.find(container.name)
    if at < 0:
        return []
    rest = sig[at + len(container.name):]
    return [w for w in _BASES.findall(rest) if w not in _BASE_STOP and w != container.name][:8]


def _encloses(outer: Symbol, inner: Symbol) -> bool:
    return outer.path == inner.path and outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte
