"""What a symbol uses, what uses it, and who imports a file: resolved the way a reader would.

A symbol's uses are the names in its own code (for a class: its header and
class-level code, not its methods' bodies) that name repo symbols. Each name is
looked up in order, stopping at the first place that has it:

1. a name the symbol binds itself (a parameter, `x :=`, `let x`, `x = ...`) is
   local: never a repo symbol, however it is spelled;
2. `recv.name`: the type of `recv` is worked out as a reader would, from
   `self`/`this`/a Go receiver (the own class; a JS `app.x = function` or a
   constructor function's `this` is its qualified-name prefix), `super`, the
   symbol's own parameters and simple declarations (`c *Context`, `x := &T{}`,
   `x = T(...)`, `let x = T::new()`, `x: T`, `new T()`), fields whose type the
   class declares (`c.Writer.Status()`), and what a repo function returns
   (`c.AbortWithError(...).SetType`); then `name` is looked up in that type and
   the classes it inherits from;
3. otherwise `X.name`: the members of a repo type `X`, or the top-level symbols
   of a module the file imports as `X` (or a sibling module file, Rust's `mod x;`);
4. a bare name: the same class (where a bare name can be a member), the same
   file, the file's imports (an import statement that names the symbol is
   followed to that symbol, through `as` aliases and one re-export; a name
   imported from outside the repo is external), the same folder, and only for
   names the file does not import at all, a name few symbols in the whole repo have.

A name that more than one candidate still answers is returned with every
candidate marked `ambiguous`, never guessed. Built-ins and external libraries
are not repo symbols, so they never appear. Names are found with tree-sitter, so
comments and strings never count. What differs between languages is data in
languages.json, read through `_facts`: which receivers mean "this object"
(`self_names`, `receiver_regex`, `implicit_self`), `super_names`, the member
operators (`member_operators`; `->` is one only in C-like languages), the
manifest that names a module's root (`module_manifest`, Go's go.mod), whether
files see each other only through imports (`explicit_imports`: then no repo-wide
guess for a module's bare names), and the header that keeps a file out of a
default build (`build_constraint`: of candidates in several files, those built
without tags win).
"""

from __future__ import annotations

import json
import posixpath
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
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
#: Receiver chains longer than this (`a.b.c.d...`) are not followed.
MAX_CHAIN = 8
#: An import statement longer than this is not one (a C `#ifdef` block around `#include`s).
MAX_IMPORT_BYTES = 4000
#: Member operators of a language that does not list its own.
DEFAULT_MEMBER_OPERATORS = (".", "::")
#: Kinds a use can resolve to (a module is a namespace, not something code calls).
USABLE_KINDS = frozenset(
    {"function", "method", "class", "struct", "interface", "trait", "enum", "type", "constant"}
)
_TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type", "constant"})
#: Kinds whose members are looked up (a Go named type `type HandlersChain []HandlerFunc` has methods).
_HOLDERS = CONTAINER_KINDS | {"type"}
_CALLABLE = frozenset({"function", "method"})
_IDENT = re.compile(rb"#?[A-Za-z_$][A-Za-z0-9_$]*")
_DOTTED = re.compile(r"#?[A-Za-z_$][\w$]*(?:(?:\.|::)#?[A-Za-z_$][\w$]*)*")
_NOT_CODE = ("string", "comment", "content", "fragment", "escape", "heredoc", "regex", "char")
#: Leaves in these fields name a declaration's subject: with a declaring parent, a binding.
_BIND_FIELDS = frozenset({"name", "pattern", "left", "declarator", "parameter"})
_DECLARER_ENDS = ("_spec", "_item", "_arm", "_clause", "declaration", "declarator", "definition",
                  "signature", "parameters", "parameter")
_DECLARER_STARTS = ("for", "let", "catch", "except", "lambda", "closure", "function", "class", "arrow",
                    "variable", "generator")
_DEFINERS = ("function", "class", "arrow", "lambda", "closure", "method", "func_literal")
_NO_TYPE = frozenset({"None", "null", "undefined", "nil", "void", "never"})


@dataclass(frozen=True, slots=True)
class Use:
    """One name in a symbol's code."""

    name: str
    qualifier: str | None
    """The receiver before a member operator: None for a bare name, "?" for an expression."""
    line: int
    call: bool
    """Followed by `(` (a call or constructor), or `{` (a composite literal)."""
    member: bool = False
    """Followed by a member operator: the receiver of the next name."""
    receiver: int = -1
    """Index (in the scan) of the use written as this one's receiver; -1 if none."""
    via_call: bool = False
    """The receiver is the result of calling `receiver` (`f(x).name`)."""
    start: int = 0
    """Byte offset in the file."""
    key_of: str | None = None
    """For a key in a typed literal (`Engine{root: true}`): the literal's type as written."""
    in_type: bool = False
    """Written where only a type can stand (an annotation, `setter setter`): never a local variable."""


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


#: A value written as a chain of names, each maybe called: `engine.trees.get(m)`.
_Chain = tuple[tuple[str, bool], ...]
#: How a name is declared: (type annotation as written, value chain), either may be None.
_Decl = tuple[str | None, _Chain | None]


@dataclass(slots=True)
class _Scan:
    """One symbol's code as a reader sees it."""

    uses: list[Use]
    locals: frozenset[str]
    """Names the code binds itself: parameters, declarations, assignments, loop variables."""
    declared: dict[str, list[_Decl]]
    """What each local (or, for a class, each field) is declared or assigned as."""
    body: int
    """Byte where the body starts: uses before it are the header (signature, receiver, return type)."""
    embedded: tuple[str, ...] = ()
    """Types a struct embeds (a Go field with a type and no name): their members are its members."""
    bound_at: dict[str, int] = field(default_factory=dict)
    """Where each local comes into scope (after its declaration's value)."""


_EMPTY = _Scan([], frozenset(), {}, 0)


@dataclass(frozen=True, slots=True)
class _Imp:
    """One import statement of a file, with the names it binds."""

    module: str
    files: tuple[str, ...]
    names: dict[str, str]
    """Local name -> name in the module; empty when the whole module is imported."""


@dataclass(frozen=True, slots=True)
class _Lang:
    """Per-language facts from languages.json."""

    self_names: frozenset[str]
    receiver: re.Pattern[str] | None
    implicit_self: bool
    member_ops: frozenset[str]
    super_names: frozenset[str]
    manifest: tuple[str, re.Pattern[str]] | None
    self_field: re.Pattern[str] | None
    """`self.x: T = value` anywhere in a class: a field and its type."""
    explicit_imports: bool
    """A module sees another file's names only through imports (or its folder, for Go/Java packages)."""
    build_constraint: re.Pattern[str] | None
    """A file header that keeps the file out of a default build unless it holds (`//go:build x`)."""
    returns_self: re.Pattern[str] | None
    """`return this` (group 1 empty), or `return this.m(...)` (group 1: m): returning its own object."""


@cache
def _language_facts() -> dict[str, dict[str, Any]]:
    raw = json.loads(resources.files("symscope.core").joinpath("languages.json").read_text("utf-8"))
    return {name: entry for name, entry in raw.items() if isinstance(entry, dict)}


@cache
def _facts(language: str) -> _Lang:
    """The dependency facts of a language (defaults for languages that state none)."""
    entry = _language_facts().get(language, {})
    pattern = entry.get("receiver_regex")
    manifest = entry.get("module_manifest")
    self_names = frozenset(entry.get("self_names", ()))
    ops = frozenset(entry.get("member_operators", DEFAULT_MEMBER_OPERATORS))
    self_field = None
    if self_names:
        names = "|".join(re.escape(n) for n in sorted(self_names))
        op = "|".join(re.escape(o) for o in sorted(ops, key=len, reverse=True))
        self_field = re.compile(
            rf"(?<![\w$.])\$?(?:{names})[ \t]*(?:{op})[ \t]*(#?[A-Za-z_]\w*)[ \t]*(?::[ \t]*([^=\n;]+?))?[ \t]*"
            rf"=(?![=>])[ \t]*([^\n;]*)"
        )
    return _Lang(
        self_names=self_names,
        receiver=re.compile(pattern) if pattern else None,
        implicit_self=bool(entry.get("implicit_self", False)),
        member_ops=ops,
        super_names=frozenset(entry.get("super_names", ())),
        manifest=(manifest[0], re.compile(manifest[1], re.MULTILINE)) if manifest else None,
        self_field=self_field,
        explicit_imports=bool(entry.get("explicit_imports", False)),
        build_constraint=re.compile(entry["build_constraint"], re.MULTILINE) if entry.get("build_constraint") else None,
        returns_self=re.compile(
            rf"\breturn\s+(?:{'|'.join(re.escape(n) for n in sorted(self_names))})\s*(?:(?:;|\n|\}}|$)|"
            rf"(?:{'|'.join(re.escape(o) for o in sorted(ops))})\s*(#?[A-Za-z_$][\w$]*)\s*\()"
        ) if self_names else None,
    )


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


# -- scanning --------------------------------------------------------------------------
# A symbol's leaves are read in order, as tokens, so that what stands before a name (a
# member operator after an identifier, or after a call's closing parenthesis) and after
# it (`(`, `{`, a member operator) is known without reading raw bytes, which would run
# into comments. A leaf's place in the tree (its field, its parents' types) says whether
# it binds a name (a parameter, a declaration) rather than using one.

_T_IDENT, _T_OP, _T_OPEN, _T_CLOSE, _T_OTHER = range(5)
_WORD = re.compile(r"#?[A-Za-z_$][\w$]*")
#: What a value may start with before the name it is built from: `&Engine{}`, `new View()`.
_VALUE_PREFIX = re.compile(r"(?:[\s&*(]|\b(?:new|await|mut)\b)*")
#: A frame of the tree walk: the node, its type, and the field it sits in within its parent.
_Frame = tuple["Node", str, str | None]


@dataclass(slots=True)
class _Draft:
    """A use being read: whether it is called or a receiver is known only at the next token."""

    name: str
    qualifier: str | None
    line: int
    receiver: int
    via_call: bool
    start: int
    key_of: str | None
    in_type: bool
    call: bool = False
    member: bool = False


class _Scanner:
    """Reads one stretch of a parsed file into a `_Scan`."""

    def __init__(self, data: bytes, lang: _Lang) -> None:
        self.data, self.ops = data, lang.member_ops
        self.drafts: list[_Draft] = []
        # Tokens so far: kind, the use index (identifiers) or matching opener (closers), text.
        self.kinds: list[int] = []
        self.vals: list[int] = []
        self.words: list[str] = []
        self.opens: list[int] = []
        self.bound: dict[str, int] = {}
        self.declared: dict[str, list[_Decl]] = defaultdict(list)
        self.headers: list[tuple[int, int]] = []
        self.embedded: list[str] = []
        self.body = -1

    def run(self, tree: Tree, start: int, end: int, skip: list[tuple[int, int]]) -> _Scan:
        """The uses, bindings and declarations in `[start, end)`, leaving out the `skip` ranges."""
        node = tree.root_node.descendant_for_byte_range(start, end) or tree.root_node
        cursor = node.walk()
        frames: list[_Frame] = []
        si = 0  # the first skip range that may still matter (nodes come in document order)
        while True:
            n = cursor.node
            assert n is not None
            frames.append((n, n.type, cursor.field_name if frames else None))
            ns, ne = n.start_byte, n.end_byte
            while si < len(skip) and skip[si][1] <= ns:
                si += 1
            skipped = ne <= start or ns >= end or (si < len(skip) and skip[si][0] <= ns and ne <= skip[si][1])
            if not skipped and "comment" not in n.type and self._visit(n, frames) and cursor.goto_first_child():
                continue
            frames.pop()
            while frames and not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    frames.clear()
                    break
                frames.pop()
            if not frames:
                break
        self._token(_T_OTHER, -1, "")
        uses = [Use(d.name, d.qualifier, d.line, d.call, d.member, d.receiver, d.via_call, d.start, d.key_of,
                    d.in_type) for d in self.drafts]
        return _Scan(uses, frozenset(self.bound), dict(self.declared), self.body if self.body >= 0 else start,
                     tuple(self.embedded), self.bound)

    def _visit(self, n: Node, frames: list[_Frame]) -> bool:
        """Read one node; True to read its children."""
        kind, data = n.type, self.data
        opaque = any(word in kind for word in _NOT_CODE)
        if n.child_count and not opaque:
            if self.body < 0 and frames[-1][2] == "body":
                self.body = n.start_byte
            if "assignment" in kind:
                _note_header(n, self.headers)
            elif kind == "field_declaration" and n.child_by_field_name("name") is None:
                typ = n.child_by_field_name("type")  # a Go embedded field
                if typ is not None:
                    self.embedded.append(data[typ.start_byte : typ.end_byte].decode("utf-8", "replace"))
            return True
        if opaque:  # a string or the like: an expression, and maybe a type written as a string
            self._token(_T_OTHER, -1, "")
            self._string_type(n, frames)
            return False
        text = data[n.start_byte : n.end_byte]
        word = text.decode("utf-8", "replace")
        if word in self.ops:
            self._token(_T_OP, -1, word)
        elif word in ("(", "[", "{"):
            self.opens.append(len(self.kinds))
            self._token(_T_OPEN, -1, word)
        elif word in (")", "]", "}"):
            self._token(_T_CLOSE, self.opens.pop() if self.opens else -1, word)
        elif n.is_named and _IDENT.fullmatch(text):
            self._identifier(n, word.lstrip("$"), frames)
        else:
            self._token(_T_OTHER, -1, word)
        return False

    def _identifier(self, n: Node, name: str, frames: list[_Frame]) -> None:
        role, decl, single = _role(frames)
        fld = frames[-1][2]
        if role == 1:
            # In scope after its declaration's value: `let offset = offset(i)` calls the function.
            holder = frames[decl][0]
            value = holder.child_by_field_name("value") or holder.child_by_field_name("right")
            active = value.end_byte if value is not None and value.start_byte >= n.end_byte else n.end_byte
            self.bound[name] = min(self.bound.get(name, active), active)
            if single:
                self._declare(name, holder)
        elif not (
            role == 2
            or name.strip("_") == ""  # Go's blank identifier
            or any(lo <= n.start_byte < hi for lo, hi in self.headers)
            or (fld == "field" and not (self.kinds and self.kinds[-1] == _T_OP))  # `Server { port: 1 }`
        ):
            keyed = fld == "key" or (len(frames) > 1 and frames[-2][2] == "key")
            self._token(_T_IDENT, self._emit(name, n, frames, _literal_type(frames, self.data) if keyed else None),
                        name)
            return
        self._token(_T_IDENT, -1, name)

    def _token(self, kind: int, val: int, word: str) -> None:
        if self.kinds and self.kinds[-1] == _T_IDENT and self.vals[-1] >= 0:
            last = self.drafts[self.vals[-1]]
            last.call = kind == _T_OPEN and word in ("(", "{")
            last.member = kind == _T_OP
        self.kinds.append(kind)
        self.vals.append(val)
        self.words.append(word)

    def _emit(self, name: str, at: Node, frames: list[_Frame], key_of: str | None) -> int:
        kinds, vals, t = self.kinds, self.vals, len(self.kinds)
        qualifier: str | None = None
        receiver, via_call = -1, False
        if t and kinds[t - 1] == _T_OP:
            qualifier = "?"
            if t >= 2 and kinds[t - 2] == _T_IDENT:
                qualifier, receiver = self.words[t - 2], vals[t - 2]
            elif t >= 2 and kinds[t - 2] == _T_CLOSE and self.words[t - 2] == ")":
                opener = vals[t - 2]  # `f(x).name`: the receiver is what f returns
                if opener >= 1 and kinds[opener - 1] == _T_IDENT and vals[opener - 1] >= 0:
                    receiver, via_call = vals[opener - 1], True
        self.drafts.append(_Draft(name, qualifier, at.start_point[0] + 1, receiver, via_call, at.start_byte,
                                  key_of, _in_type(frames)))
        return len(self.drafts) - 1

    def _declare(self, name: str, holder: Node) -> None:
        """Note what `name` is declared as: its type annotation, else the value it is given."""
        data = self.data
        type_node = holder.child_by_field_name("type")
        if type_node is not None:
            self.declared[name].append((data[type_node.start_byte : type_node.end_byte].decode("utf-8", "replace"),
                                        None))
            return
        value = holder.child_by_field_name("value") or holder.child_by_field_name("right")
        if value is not None and not holder.type.startswith("for") and "range" not in holder.type:
            # (a loop variable is an element of its value, not the value itself)
            text = data[value.start_byte : min(value.end_byte, value.start_byte + 240)]
            chain = _chain_of(text.decode("utf-8", "replace"), self.ops)
            if chain is not None:
                self.declared[name].append((None, chain))

    def _string_type(self, n: Node, frames: list[_Frame]) -> None:
        """A type written as a string (`route: "APIRoute"`, a forward reference) uses that type."""
        parent_type = frames[-2][1] if len(frames) > 1 else ""
        if frames[-1][2] != "type" and parent_type != "type":
            return
        text = self.data[n.start_byte : n.end_byte].decode("utf-8", "replace").strip("'\"` ")
        if _DOTTED.fullmatch(text) and "#" not in text:
            self._emit(re.split(r"\.|::", text)[-1], n, frames, None)


def _declarer(kind: str) -> bool:
    """A node type that introduces names: parameters, declarations, assignments, loops, patterns."""
    if "augmented" in kind or "compound" in kind:
        return False
    return ("assignment" in kind or "parameter" in kind or "declarat" in kind
            or kind.endswith(_DECLARER_ENDS) or kind.startswith(_DECLARER_STARTS))


def _role(frames: list[_Frame]) -> tuple[int, int, bool]:
    """For the identifier leaf on top of `frames`: (0 use / 1 binding / 2 label, the frame of the
    declaring node, whether it declares this one name alone).

    A label names a thing without using it: a keyword argument's name.
    """
    k = len(frames) - 1
    single = True
    while k > 0:
        fld = frames[k][2]
        parent, ptype, _ = frames[k - 1]
        if fld == "alias":
            return 1, k - 1, single
        if "pattern" in ptype and fld in (None, "value", "pattern", "left", "name"):
            single = single and parent.named_child_count == 1
            k -= 1
            continue
        if fld is None:
            if "parameter" in ptype:
                return 1, k - 1, single and "parameters" not in ptype
            if ("list" in ptype or "tuple" in ptype or "parenthesized" in ptype) and "argument" not in ptype:
                single = single and parent.named_child_count == 1
                k -= 1
                continue
            return 0, -1, False
        if fld in _BIND_FIELDS and _declarer(ptype):
            return 1, k - 1, single
        if fld == "name" and "argument" in ptype:
            return 2, -1, False  # f(name=value)
        return 0, -1, False
    return 0, -1, False


def _in_type(frames: list[_Frame]) -> bool:
    """The leaf on top of `frames` stands in a type (a `type` field, an annotation)."""
    if "type" in frames[-1][1]:
        return True
    for k in range(len(frames) - 1, max(0, len(frames) - 7), -1):
        kind, fld = frames[k][1], frames[k][2]
        if fld in ("type", "return_type") or kind.endswith("type_annotation"):
            return True
    return False


def _note_header(n: Node, headers: list[tuple[int, int]]) -> None:
    """`a.b = c.d = function ...`: the left sides name the definition, they do not use anything."""
    lefts: list[Node] = []
    cur: Node | None = n
    while cur is not None and "assignment" in cur.type:
        left = cur.child_by_field_name("left")
        if left is None:
            return
        lefts.append(left)
        cur = cur.child_by_field_name("right")
    if cur is not None and any(word in cur.type for word in _DEFINERS):
        headers.extend((left.start_byte, left.end_byte) for left in lefts)


def _literal_type(frames: list[_Frame], data: bytes) -> str | None:
    """The type written on the literal around a key (`Engine{root: true}` -> Engine), if any."""
    for k in range(len(frames) - 2, max(0, len(frames) - 6), -1):
        typ = frames[k][0].child_by_field_name("type")
        if typ is not None:
            return data[typ.start_byte : typ.end_byte].decode("utf-8", "replace")
    return None


def _chain_of(text: str, ops: frozenset[str]) -> _Chain | None:
    """The names a value is built from: `&Engine{...}` -> ((Engine, called),),
    `engine.trees.get(m)` -> ((engine, -), (trees, -), (get, called)); None for anything else
    (a literal, arithmetic, a lambda).
    """
    n = len(text)
    i = _VALUE_PREFIX.match(text).end()  # type: ignore[union-attr]
    operators = sorted(ops, key=len, reverse=True)
    chain: list[tuple[str, bool]] = []
    while True:
        m = _WORD.match(text, i)
        if m is None:
            return None
        i = m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] == "<":  # type arguments: `new Map<K, V>()`, `Vec::<T>::new`
            close = text.find(">", i)
            if close < 0:
                return None
            i = close + 1
        called = i < n and text[i] in "({"
        chain.append((m.group(0), called))
        if called:
            i = _skip_group(text, i)
            if i < 0:  # cut off inside the call: the chain so far still holds
                return tuple(chain)
        while i < n and text[i] in " \t\r\n":
            i += 1
        op = next((o for o in operators if text.startswith(o, i)), None)
        if op is None:
            rest = text[i:].lstrip()
            return tuple(chain) if not rest or rest[0] in ",;)]}" or rest.startswith(("//", "#")) else None
        i += len(op)
        while i < n and text[i] in " \t\r\n":
            i += 1


def _skip_group(text: str, i: int) -> int:
    """The index after the bracket group opening at `i`, or -1 if it does not close in `text`."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


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
        return self._parsed(sym.path, sym, sym.language)

    def _parsed(self, path: str, sym: Symbol | None, language: str) -> tuple[Tree, bytes]:
        from tree_sitter_language_pack import get_parser

        from symscope.core.languages import language_by_name

        record = self.index.file(path)
        key = (path, record.hash if record else "")
        with self._lock:
            hit = self._trees.get(key)
            if hit is not None:
                self._trees.move_to_end(key)
                return hit
        data = self.index.indexed_bytes(path, sym)
        spec = language_by_name(language)
        if spec is None:
            raise StaleSymbolError(f"no parser for {language}")
        tree = get_parser(spec.grammar).parse(data)  # type: ignore[arg-type]
        with self._lock:
            self._trees[key] = (tree, data)
            while len(self._trees) > TREE_CACHE:
                self._trees.popitem(last=False)
        return tree, data

    def _file(self, table: _Table, path: str) -> tuple[Tree, bytes] | None:
        """A whole file's tree (for its import statements and definition headers), if readable."""
        language = table.languages.get(path)
        if language is None:
            return None
        try:
            return self._parsed(path, None, language)
        except StaleSymbolError:
            return None

    def _scan(self, sym: Symbol) -> _Scan:
        tree, data = self._tree(sym)
        table = self.table()
        skip = sorted(
            (c.start_byte, c.end_byte) for c in table.children.get(sym.id, ())
            if sym.kind in CONTAINER_KINDS or c.kind in CONTAINER_KINDS
        )
        return _Scanner(data, _facts(sym.language)).run(tree, sym.start_byte, sym.end_byte, skip)

    def scan(self, sym: Symbol) -> list[Use]:
        """The names `sym`'s own code uses, in order (a container's members are left out).

        Names the code binds (parameters, declarations), the header of a
        `a.b = function` definition and a keyword argument's name are not uses.
        """
        return self._scan(sym).uses

    # -- resolving -------------------------------------------------------------------

    def uses(self, sym: Symbol) -> list[tuple[Symbol, bool, int]]:
        """(symbol used, ambiguous, line of first use), in order of first use."""
        with self._lock:
            self.table()
            cached = self._uses.get(sym.id)
        if cached is not None:
            return cached
        scan, resolved = self._analyse(sym)
        # `Limits.max()` uses Limits.max, not the whole class Limits.
        receivers = {u.receiver for u, f in zip(scan.uses, resolved, strict=True) if f and not u.via_call}
        receivers = {i for i in receivers if i >= 0 and all(s.kind in _HOLDERS for s in resolved[i] or ())}
        out: dict[str, tuple[Symbol, bool, int]] = {}
        for i, (use, found) in enumerate(zip(scan.uses, resolved, strict=True)):
            if not found or i in receivers:
                continue
            ambiguous = len(found) > 1
            for cand in found:
                if cand.id not in out:
                    out[cand.id] = (cand, ambiguous, use.line)
        result = sorted(out.values(), key=lambda t: t[2])
        with self._lock:
            self._uses[sym.id] = result
        return result

    def _analyse(self, sym: Symbol) -> tuple[_Scan, list[list[Symbol] | None]]:
        """`sym`'s scan, and per use the symbols it names: [] when unknown, None when surely none.

        Runs under the lock: the table's memos (with their cycle markers) are filled as it goes.
        """
        with self._lock:
            table = self.table()
            scan = self._scan(sym)
            ctx = _Context(self, table, sym, scan)
            return scan, [ctx.resolve(i) for i in range(len(scan.uses))]

    @staticmethod
    def _owner(table: _Table, sym: Symbol) -> Symbol | None:
        """The class (struct, impl, Go named type...) a symbol belongs to, if any."""
        parent = table.by_id.get(sym.parent_id) if sym.parent_id else None
        while parent is not None and parent.kind not in _HOLDERS:
            parent = table.by_id.get(parent.parent_id) if parent.parent_id else None
        if parent is None and sym.kind in _HOLDERS:
            return sym
        return parent

    def _bases(self, table: _Table, owner: Symbol) -> list[Symbol]:
        """The repo classes `owner`'s header names as its bases, and the types it embeds."""
        cached = table.bases.get(owner.id)
        if cached is not None:
            return cached
        table.bases[owner.id] = []  # a cycle ends here
        found = {b.id: b for base in _base_names(owner) for b in self._bare(table, owner.path, base)[0]
                 if b.kind in _HOLDERS and b.id != owner.id}
        embedded = self._class_facts(table, owner)[1]
        if embedded:
            ctx = _Context(self, table, owner, _EMPTY)
            for text in embedded:
                found.update((b.id, b) for b in ctx.type_of_text(text) if b.id != owner.id)
        table.bases[owner.id] = list(found.values())
        return table.bases[owner.id]

    def _member(self, table: _Table, owner: Symbol, name: str) -> list[Symbol]:
        """`owner`'s members named `name`, then its base classes' (breadth first)."""
        frontier, seen = [owner], {owner.id}
        for _ in range(MAX_BASE_DEPTH):
            found = [m for o in frontier for m in table.members.get(o.id, {}).get(name, ())]
            if not found:  # Go: a method declared in another file of the type's package
                found = [m for o in frontier for m in table.by_qualname.get(f"{o.name}.{name}", ())
                         if posixpath.dirname(m.path) == posixpath.dirname(o.path) and m.name == name]
            if found:
                return found
            nxt = []
            for o in frontier:
                for b in self._bases(table, o):
                    if b.id not in seen:
                        seen.add(b.id)
                        nxt.append(b)
                # Go/Rust: methods attach to the type by name, wherever they are declared.
                for twin in table.by_name.get(o.name, ()):
                    if twin.id not in seen and twin.kind in _HOLDERS and twin.path == o.path:
                        seen.add(twin.id)
                        nxt.append(twin)
            if not nxt:
                return []
            frontier = nxt
        return []

    def _fields(self, table: _Table, holder: Symbol) -> dict[str, list[_Decl]]:
        """The fields a class declares (`Writer ResponseWriter`, `x: T`, `self.x = T()`) and their types."""
        return self._class_facts(table, holder)[0]

    def _class_facts(self, table: _Table, holder: Symbol) -> tuple[dict[str, list[_Decl]], tuple[str, ...]]:
        """A class's fields with their declarations, and the types it embeds."""
        cached = table.fields.get(holder.id)
        if cached is not None:
            return cached
        out: dict[str, list[_Decl]] = {}
        embedded: tuple[str, ...] = ()
        try:
            scan = self._scan(holder)
            out = {k: list(v) for k, v in scan.declared.items()}
            embedded = scan.embedded
            lang = _facts(holder.language)
            if lang.self_field is not None:
                _, data = self._tree(holder)
                text = data[holder.start_byte : holder.end_byte].decode("utf-8", "replace")
                for m in lang.self_field.finditer(text):
                    ann = m.group(2).strip() if m.group(2) else None
                    chain = None if ann else _chain_of(m.group(3), lang.member_ops)
                    if ann or chain:
                        out.setdefault(m.group(1), []).append((ann, chain))
        except StaleSymbolError:
            pass
        table.fields[holder.id] = (out, embedded)
        return table.fields[holder.id]

    def _field_type(self, table: _Table, holder: Symbol, name: str) -> list[Symbol]:
        """The repo types field `name` of `holder` is declared as (its own declarations only)."""
        key = (holder.id, name)
        cached = table.field_types.get(key)
        if cached is not None:
            return cached
        table.field_types[key] = []  # a cycle ends here
        found: list[Symbol] = []
        decls = self._fields(table, holder).get(name)
        if decls:
            ctx = _Context(self, table, holder, _EMPTY)
            ctx.owner = holder
            found = ctx._decl_types(decls)
        table.field_types[key] = found
        return found

    def _returns_self(self, table: _Table, func: Symbol) -> bool:
        """Whether a function returns its own object (`return this`), as fluent APIs do."""
        hit = table.self_returns.get(func.id)
        if hit is None:
            hit = False
            pattern = _facts(func.language).returns_self
            if pattern is not None and func.kind in _CALLABLE:
                table.self_returns[func.id] = False  # a cycle ends here
                try:
                    _, data = self._tree(func)
                    found = pattern.findall(data[func.start_byte : func.end_byte].decode("utf-8", "replace"))
                except StaleSymbolError:
                    found = []
                # `return this`, or `return this.set(...)` where set returns `this` in turn.
                hit = "" in found or (bool(found) and all(self._all_return_self(table, func, n) for n in found))
            table.self_returns[func.id] = hit
        return hit

    def _all_return_self(self, table: _Table, func: Symbol, name: str) -> bool:
        """Whether `this.name` inside `func` names methods that all return their own object."""
        owner = self._owner(table, func)
        targets = (self._member(table, owner, name) if owner is not None
                   else _Context(self, table, func, _EMPTY)._this_member(name))
        return bool(targets) and all(self._returns_self(table, t) for t in targets)

    def _var_types(self, table: _Table, var: Symbol) -> list[Symbol]:
        """The repo types a package-level variable or constant is declared as (`var API Core`)."""
        cached = table.var_types.get(var.id)
        if cached is not None:
            return cached
        table.var_types[var.id] = []  # a cycle ends here
        found: list[Symbol] = []
        try:
            decls = self._scan(var).declared.get(var.name)
            if decls:
                found = _Context(self, table, var, _EMPTY)._decl_types(decls)
        except StaleSymbolError:
            pass
        table.var_types[var.id] = found
        return found

    def _returns(self, table: _Table, func: Symbol) -> list[Symbol]:
        """The repo type a function's signature says it returns (`-> Self`, `*Engine`, `): Ky`)."""
        cached = table.returns.get(func.id)
        if cached is not None:
            return cached
        table.returns[func.id] = []  # a cycle ends here
        text = _return_text(func.signature, func.name)
        found: list[Symbol] = []
        if text:
            owner = self._owner(table, func)
            found = _Context(self, table, func, _EMPTY).type_of_text(text, owner)
        table.returns[func.id] = found
        return found

    def _imports(self, table: _Table, path: str) -> list[_Imp]:
        """A file's import statements with the names each binds (`from m import A as B`: B -> A)."""
        cached = table.file_imports.get(path)
        if cached is not None:
            return cached
        out: list[_Imp] = []
        parsed = self._file(table, path) if table.imports.get(path) else None
        starts = _line_starts(parsed[1]) if parsed else []
        for module, line in table.imports.get(path, ()):
            names = _import_names(parsed, starts, module, line) if parsed else {}
            files = table.module_files(module, path)
            if not files and not names:
                # `use crate::dent::DirEntry`, `import app.Worker`: the last part names a symbol.
                parts = re.split(r"(::|\.)", module.strip("'\"`"))
                if len(parts) >= 3 and (parts[-2] == "::" or parts[-1][:1].isupper()) and parts[-1] != "self":
                    head = "".join(parts[:-2])
                    files = table.module_files(head, path) if head.strip(".:/") else ()
                    if files:
                        names = {parts[-1]: parts[-1]}
            out.append(_Imp(module, files, names))
        table.file_imports[path] = out
        return out

    def _aliases(self, table: _Table, path: str) -> dict[str, list[Symbol]]:
        """`res.set = res.header = function header`: every name a definition is assigned to."""
        cached = table.aliases.get(path)
        if cached is not None:
            return cached
        out: dict[str, list[Symbol]] = defaultdict(list)
        parsed = self._file(table, path)
        if parsed is not None:
            tree, data = parsed
            for top in tree.root_node.children:
                for n in (top, *top.named_children):
                    if "assignment" not in n.type:
                        continue
                    lefts: list[str] = []
                    cur: Node | None = n
                    while cur is not None and "assignment" in cur.type:
                        left = cur.child_by_field_name("left")
                        if left is None:
                            break
                        lefts.append(re.sub(r"\s+|\.prototype\b", "", data[left.start_byte : left.end_byte].decode(
                            "utf-8", "replace")))
                        cur = cur.child_by_field_name("right")
                    if cur is None or not any(word in cur.type for word in _DEFINERS):
                        continue
                    at = cur.start_byte
                    inside = [s for s in table.in_file.get(path, ()) if s.start_byte <= at < s.end_byte]
                    if inside:
                        target = min(inside, key=lambda s: s.end_byte - s.start_byte)
                        for name in lefts:
                            out[name].append(target)
        table.aliases[path] = dict(out)
        return table.aliases[path]

    def _default_build(self, table: _Table, found: list[Symbol]) -> list[Symbol]:
        """Of candidates in several files, those whose file is in a default build, if some are not.

        `binding.go` (`//go:build !nomsgpack`) and `binding_nomsgpack.go` both define
        Binding; a reader builds without tags, so the first one is meant.
        """
        if len({s.path for s in found}) < 2:
            return found
        kept = [s for s in found if self._in_default_build(table, s.path)]
        return kept or found

    def _in_default_build(self, table: _Table, path: str) -> bool:
        hit = table.builds.get(path)
        if hit is None:
            hit = True
            pattern = _facts(table.languages.get(path, "")).build_constraint
            if pattern is not None:
                try:
                    head = self.index.indexed_bytes(path)[:4096].decode("utf-8", "replace")
                except StaleSymbolError:
                    head = ""
                match = pattern.search(head)
                hit = _holds_untagged(match.group(1)) if match else True
            table.builds[path] = hit
        return hit

    def _bare(self, table: _Table, path: str, name: str) -> tuple[list[Symbol], int]:
        """A bare name seen from `path`, and where it was found.

        Steps: 0 the same file, 1 an import that names it, 2 a whole imported module,
        3 the same folder, 4 the whole repo; -1 imported from outside the repo.
        """
        key = (path, name)
        hit = table.bare_memo.get(key)
        if hit is not None:
            return hit
        found, step = self._find_bare(table, path, name)
        result = (self._default_build(table, found), step)
        table.bare_memo[key] = result
        return result

    def _find_bare(self, table: _Table, path: str, name: str) -> tuple[list[Symbol], int]:
        same = table.top.get((path, name))
        if same:
            return list(same), 0
        imports = self._imports(table, path)
        named = [imp for imp in imports if name in imp.names]
        external = False
        found: list[Symbol] = []
        for imp in named:
            if not imp.files:
                external = external or not imp.module.strip("'\"`").startswith(".")
                continue
            orig = imp.names[name]
            hits = [s for f in imp.files for s in table.top.get((f, orig), ())]
            if not hits:  # one re-export: `export { X } from './x'`, `from .x import X` in a package
                for f in imp.files:
                    for again in self._imports(table, f):
                        if again.files and (orig in again.names or not again.names):
                            inner = again.names.get(orig, orig)
                            hits.extend(s for g in again.files for s in table.top.get((g, inner), ()))
            found.extend(hits)
        if found:
            return list({s.id: s for s in found}.values()), 1
        if external:
            return [], -1
        whole = [s for imp in imports if not imp.names for f in imp.files for s in table.top.get((f, name), ())]
        if whole:
            return list({s.id: s for s in whole}.values()), 2
        folder = posixpath.dirname(path)
        local = [s for f in table.dirs.get(folder, ()) for s in table.top.get((f, name), ())]
        if local:
            return local, 3
        if named or (imports and _facts(table.languages.get(path, "")).explicit_imports):
            # Imported by name from a repo module that does not define it, or, in a module of a
            # language whose files see each other only through imports, neither defined nor
            # imported: a built-in or a global (TypeScript's Required), not another file's symbol.
            return [], 4
        anywhere = [s for s in table.by_name.get(name, ()) if s in table.top.get((s.path, name), ())]
        return (anywhere if len(anywhere) <= MAX_REPO_WIDE else []), 4

    def _qualified(self, table: _Table, path: str, qualifier: str, name: str) -> list[Symbol]:
        """`qualifier.name` where `qualifier` is a name (not a variable) seen from `path`."""
        key = (path, qualifier, name)
        hit = table.qualified_memo.get(key)
        if hit is None:
            hit = self._default_build(table, self._find_qualified(table, path, qualifier, name))
            table.qualified_memo[key] = hit
        return hit

    def _find_qualified(self, table: _Table, path: str, qualifier: str, name: str) -> list[Symbol]:
        # `Type.name`: a member of a repo type the file can see.
        seen, step = self._bare(table, path, qualifier)
        if step < 0:
            return []  # an external module or object
        types = [t for t in seen if t.kind in _HOLDERS]
        if types:
            found = [m for t in types for m in self._member(table, t, name)]
            if found:
                return found
        # `module.name`: a top-level symbol of an imported module.
        for imp in self._imports(table, path):
            candidates: Iterable[str] = ()
            if imp.names:
                if qualifier not in imp.names or not imp.files:
                    continue
                orig = imp.names[qualifier]
                candidates = table.module_files(_submodule(imp.module, orig), path) or imp.files
            else:
                last = re.split(r"::|[./\\]", imp.module.strip("'\"`"))[-1]
                candidates = imp.files if last == qualifier else table.module_files(
                    _submodule(imp.module, qualifier), path)
            found = [s for f in candidates for s in table.top.get((f, name), ())]
            if found:
                return found
        # A module file beside this one (Rust: `mod util;` then `util::device_num()`).
        stem = path.rsplit(".", 1)[0]
        for base in (posixpath.dirname(path), stem):
            near = [s for f in table.stems.get(posixpath.join(base, qualifier), ()) if f != path
                    for s in table.top.get((f, name), ())]
            if near:
                return near
        # `obj.name` where the repo defines exactly that qualified name (`app.render` in express).
        named = table.by_qualname.get(f"{qualifier}.{name}", [])
        return list(named) if len(named) <= MAX_REPO_WIDE else []

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
        only when every mention resolves to other symbols (`other.Get()` where
        `other` is another class) or to nothing in the repo (a local variable of
        the same name), so calls through a receiver of unknown type still count.
        """
        out: list[Reference] = []
        for ref in self.index.references(sym, limit=max(limit * 4, 200)):
            try:
                scan, resolved = self._analyse(ref.symbol)
            except StaleSymbolError:
                continue
            lines = [u.line for u, found in zip(scan.uses, resolved, strict=True)
                     if u.name == sym.name and found is not None and (not found or sym in found)]
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


class _Context:
    """Resolves the uses of one symbol, remembering the types it has worked out."""

    def __init__(self, deps: Dependencies, table: _Table, sym: Symbol, scan: _Scan) -> None:
        self.deps, self.table, self.sym, self.scan = deps, table, sym, scan
        self.lang = _facts(sym.language)
        self.owner = deps._owner(table, sym)
        self.self_names = self.lang.self_names
        if self.lang.receiver is not None:
            match = self.lang.receiver.search(sym.signature)
            if match:
                self.self_names = self.self_names | {match.group(1)}
        aliases = {name for name, decls in scan.declared.items()  # `var self = this`
                   if all(chain is not None and len(chain) == 1 and chain[0][0] in self.self_names
                          and not chain[0][1] for _, chain in decls)}
        self.self_names = self.self_names | aliases
        self._types: dict[_Chain, list[Symbol]] = {}
        self._found: dict[int, list[Symbol] | None] = {}
        self._busy: set[str] = set()

    def resolve(self, i: int) -> list[Symbol] | None:
        """The symbols use `i` names: [] when that cannot be told, None when it is surely none."""
        u, sym, owner = self.scan.uses[i], self.sym, self.owner
        if u.qualifier is None and (u.name == sym.name or u.name in self.self_names):
            return None  # its own name (recursion), or `self` itself
        if u.key_of is not None:
            kinds = self.type_of_text(u.key_of)
            if any(u.name in self.deps._fields(self.table, t) for t in kinds):
                return None  # `Engine{root: true}`: a field name, not the constant `root`
        found = self._find(u)
        self._found[i] = found
        if found is None:
            return None
        in_body = u.qualifier is None and u.start >= self.scan.body
        return [c for c in found if c.id != sym.id and (
            in_body if c is owner else not _encloses(c, sym)
        )]

    def _find(self, u: Use) -> list[Symbol] | None:
        deps, table, sym = self.deps, self.table, self.sym
        q = u.qualifier
        if q is None:
            if u.name in self.scan.locals and not u.in_type and self.scan.bound_at.get(u.name, 0) <= u.start:
                if not (u.call and u.name[:1].isupper()):
                    return None
                # `var View = this.get('view'); new View(...)`: a local named like a repo type
                # and then constructed holds that type, as a reader assumes.
                named, step = deps._bare(table, sym.path, u.name)
                return named if step >= 0 and named else None
            if self.lang.implicit_self and self.owner is not None:
                found = deps._member(table, self.owner, u.name)
                if found:
                    return found
            found, step = deps._bare(table, sym.path, u.name)
            if step < 0:
                return None
            if not u.call:
                # A bare name that is not called: a type, a constant, or a function passed
                # along; trust the last only when this file defines or imports it by name.
                found = [s for s in found if s.kind in _TYPE_KINDS] or (
                    found if len(found) == 1 and step in (0, 1) else []
                )
            return found
        chain = self._chain_at(u.receiver, u.via_call)
        head = self.chain_types(chain) if chain else []
        if not head and u.via_call:  # `this.location(url).get(...)`: location returns `this`
            callees = self._found.get(u.receiver) or []
            if callees and all(deps._returns_self(table, f) for f in callees):
                owners = [deps._owner(table, f) for f in callees]
                if all(o is not None for o in owners):
                    head = list({o.id: o for o in owners if o is not None}.values())
                else:
                    return list({m.id: m for f in callees for m in self._this_member(u.name, f)}.values())
        if head:
            if not u.call and any(u.name in deps._fields(table, t) for t in head):
                return None  # `self.path` reads the field, not the method path()
            members = [m for t in head for m in deps._member(table, t, u.name)]
            return list({m.id: m for m in members}.values()) or None
        if q in self.self_names and self.owner is None:
            return self._this_member(u.name)
        if q == "?" or q in self.self_names or q in self.lang.super_names:
            return []
        if u.receiver >= 0 and self.scan.uses[u.receiver].qualifier is None and q in self.scan.locals:
            return self._untyped(q, u.name)
        return deps._qualified(table, sym.path, q, u.name)

    def _untyped(self, var: str, name: str) -> list[Symbol]:
        """`var.name` where `var` is a local of undeclared type.

        A qualified name the repo defines exactly (`app.render`), else a member of
        the type the variable is named after (`view.render` -> View's render).
        """
        table = self.table
        named = table.by_qualname.get(f"{var}.{name}", [])
        if named:
            return list(named) if len(named) <= MAX_REPO_WIDE else []
        if not var[:1].islower() or var in self.scan.declared:
            return []  # declared as something outside the repo
        found: list[Symbol] = []
        for t in self.deps._bare(table, self.sym.path, var[0].upper() + var[1:])[0]:
            if t.kind in _HOLDERS:
                found.extend(self.deps._member(table, t, name))
            elif t.kind == "function":  # a constructor function: `View.prototype.render`
                found.extend(m for m in table.by_qualname.get(f"{t.qualname}.{name}", ()) if m.path == t.path)
        return found

    def _chain_at(self, index: int, called: bool) -> _Chain | None:
        """The receiver chain ending at use `index` (`c.Writer` for `c.Writer.Status()`)."""
        parts: list[tuple[str, bool]] = []
        k = index
        for _ in range(MAX_CHAIN):
            r = self.scan.uses[k]
            parts.append((r.name, called))
            if r.receiver < 0:
                if r.qualifier is not None:
                    return None  # starts at an expression: `(a + b).x`, `xs[0].y`
                return tuple(reversed(parts))
            called, k = r.via_call, r.receiver
        return None

    def _this_member(self, name: str, sym: Symbol | None = None) -> list[Symbol]:
        """`this.x` in `app.x = function` or in a constructor function: its qualified-name prefix's x."""
        sym, table = sym or self.sym, self.table
        prefixes = [sym.qualname] if sym.kind == "function" else []
        if "." in sym.qualname:
            prefixes.append(sym.qualname.rsplit(".", 1)[0])
        for prefix in prefixes:
            key = f"{prefix}.{name}"
            named = table.by_qualname.get(key, [])
            here = [s for s in named if s.path == sym.path] or self.deps._aliases(table, sym.path).get(key, [])
            if here:
                return list(here)
            if named and len(named) <= MAX_REPO_WIDE:
                return list(named)
        return []

    def chain_types(self, chain: _Chain, as_type: bool = False) -> list[Symbol]:
        """The repo types the value `chain` has ([] when unknown)."""
        key = chain if not as_type else (("", True), *chain)
        hit = self._types.get(key)
        if hit is None:
            hit = self._types[key] = self._chain_types(chain, as_type)
        return hit

    def _chain_types(self, chain: _Chain, as_type: bool) -> list[Symbol]:
        deps, table, scan = self.deps, self.table, self.scan
        name, called = chain[-1]
        if len(chain) == 1:
            if name in self.self_names:
                return [self.owner] if self.owner is not None and not called else []
            if name in self.lang.super_names:
                return deps._bases(table, self.owner) if self.owner is not None else []
            if not as_type and name in scan.declared and name not in self._busy:
                self._busy.add(name)
                try:
                    return self._decl_types(scan.declared[name])
                finally:
                    self._busy.discard(name)
            if not as_type and name in scan.locals:
                return []
            found, step = deps._bare(table, self.sym.path, name)
            if step < 0:
                return []
        else:
            head = self.chain_types(chain[:-1], as_type)
            if head:
                if not called:
                    return self._field_types(head, name)
                found = [m for t in head for m in deps._member(table, t, name)]
            else:
                q, q_called = chain[-2]
                if q_called or q in self.self_names or q in self.lang.super_names or (
                    len(chain) == 2 and not as_type and q in scan.locals
                ):
                    return []
                found = deps._qualified(table, self.sym.path, q, name)
        holders = [s for s in found if s.kind in _HOLDERS]
        if not called and not holders:  # a package-level variable: `json.API.Marshal`
            return list({t.id: t for v in found if v.kind == "constant" for t in deps._var_types(table, v)}.values())
        if holders or not called:
            return holders
        return list({t.id: t for f in found if f.kind in _CALLABLE for t in deps._returns(table, f)}.values())

    def _decl_types(self, decls: list[_Decl]) -> list[Symbol]:
        out: dict[str, Symbol] = {}
        for ann, chain in decls:
            if ann is not None:
                found = self.type_of_text(ann, self.owner)
            elif chain is not None:
                found = self.chain_types(chain)
            else:
                found = []
            out.update((t.id, t) for t in found)
        return list(out.values())

    def _field_types(self, holders: list[Symbol], name: str) -> list[Symbol]:
        """The types of field `name` of these classes (or the classes they inherit from)."""
        deps, table = self.deps, self.table
        frontier, seen = list(holders), {h.id for h in holders}
        for _ in range(MAX_BASE_DEPTH):
            out: dict[str, Symbol] = {}
            for h in frontier:
                out.update((t.id, t) for t in deps._field_type(table, h, name))
            if out:
                return list(out.values())
            nxt = [b for h in frontier for b in deps._bases(table, h) if b.id not in seen]
            seen.update(b.id for b in nxt)
            if not nxt:
                break
            frontier = nxt
        return []

    def type_of_text(self, text: str, owner: Symbol | None = None) -> list[Symbol]:
        """The repo types a type annotation names (`*gin.Context`, `"APIRoute"`, `ModelField | None`)."""
        name = _type_name(text)
        if name is None:
            return []
        if name in ("Self", "self") or (owner is not None and name == owner.name):
            return [owner] if owner is not None else []
        parts = tuple((p, False) for p in re.split(r"\.|::", name) if p)
        return self.chain_types(parts, as_type=True) if parts else []


def _line_starts(data: bytes) -> list[int]:
    return [0, *(m.end() for m in re.finditer(b"\n", data))]


def _import_names(parsed: tuple[Tree, bytes], starts: list[int], module: str, line: int) -> dict[str, str]:
    """The names an import statement binds, local -> imported; empty when it binds the module."""
    tree, data = parsed
    if not 0 < line <= len(starts):
        return {}
    lo = starts[line - 1]
    hi = starts[line] if line < len(starts) else len(data)
    raw = module.encode("utf-8", "replace")
    found = re.compile(rb"(?<![\w$])" + re.escape(raw)).search(data, lo, hi)  # not inside a longer word
    if found is None:
        return {}
    at = found.start()
    node: Node | None = tree.root_node.descendant_for_byte_range(at, at + len(raw))
    if node is None:
        return {}
    while node.parent is not None and node.parent.start_byte >= at - 2 and node.parent.end_byte <= at + len(raw) + 2:
        node = node.parent
    module_node = (node.start_byte, node.end_byte)
    stmt = node
    while stmt.parent is not None and stmt.parent.parent is not None and "declarator" not in stmt.type:
        parent = stmt.parent
        if ("list" in parent.type or "block" in parent.type or "body" in parent.type
                or parent.end_byte - parent.start_byte > MAX_IMPORT_BYTES):  # `#ifdef` around includes
            break
        stmt = parent
    names: dict[str, str] = {}

    def text(n: Node) -> str:
        return data[n.start_byte : n.end_byte].decode("utf-8", "replace")

    def walk(n: Node) -> None:
        if (n.start_byte, n.end_byte) == module_node:
            return
        alias = n.child_by_field_name("alias")
        if alias is not None:
            orig = n.child_by_field_name("name") or n.child_by_field_name("path") or n.named_children[0]
            names[text(alias)] = re.split(r"::|\.|/", text(orig))[-1]
            return
        key, value = n.child_by_field_name("key"), n.child_by_field_name("value")
        if key is not None and value is not None and "pattern" in n.type:  # `const {a: b} = require(...)`
            names[text(value)] = text(key)
            return
        if not n.child_count:
            word = text(n)
            if n.is_named and "identifier" in n.type and _IDENT.fullmatch(n.text or b""):
                names[word] = word
            return
        for i, child in enumerate(n.children):
            if n.field_name_for_child(i) != "function":  # `require` and `import` themselves
                walk(child)

    walk(stmt)
    return names


def _holds_untagged(expr: str) -> bool:
    """Whether a build constraint (`!nomsgpack`, `a && (b || !c)`) holds with no tags set."""
    tokens = re.findall(r"!|&&|\|\||\(|\)|[^\s!&|()]+", expr)
    pos = 0

    def either() -> bool:
        nonlocal pos
        value = both()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            value = both() or value
        return value

    def both() -> bool:
        nonlocal pos
        value = one()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            value = one() and value
        return value

    def one() -> bool:
        nonlocal pos
        if pos >= len(tokens):
            return True
        token = tokens[pos]
        pos += 1
        if token == "!":
            return not one()
        if token == "(":
            value = either()
            pos += 1  # ")"
            return value
        return False  # a tag: unset

    try:
        return either()
    except RecursionError:
        return True


def _submodule(module: str, name: str) -> str:
    """`fastapi` + `routing` -> `fastapi.routing`; `.` + `x` -> `.x`; `./lib` + `x` -> `./lib/x`."""
    if not module.strip("."):
        return f"{module}{name}"
    if "::" in module:
        return f"{module}::{name}"
    return f"{module}/{name}" if "/" in module else f"{module}.{name}"


def _return_text(signature: str, name: str) -> str | None:
    """What a signature says the function returns, as written (`*Context`, `Self`, `"APIRoute"`)."""
    at = signature.find(name)
    if at < 0:
        return None
    opening = signature.find("(", at + len(name))
    if opening < 0:
        return None
    close = _skip_group(signature, opening)
    if close < 0:
        return None
    rest = signature[close:].strip()
    if rest.startswith("->"):
        rest = rest[2:]
    elif rest.startswith(":"):
        rest = rest[1:]
    rest = re.split(r"\bwhere\b|\{", rest, maxsplit=1)[0].strip()
    return rest or None


def _type_name(text: str) -> str | None:
    """The one named type an annotation denotes, or None (`&'a mut T` -> T, `Optional[T]` -> T)."""
    t = text.strip()
    if t.startswith(":"):
        t = t[1:].strip()
    for _ in range(6):
        before = t
        t = t.strip().strip("'\"`").strip()
        t = re.sub(r"^(?:[&*]|\.\.\.|'\w+\s+|(?:mut|const|readonly|dyn|impl|struct|class|enum)\s+)", "", t)
        optional = re.fullmatch(r"(?:typing\.)?Optional\[(.+)\]", t)
        if optional:
            t = optional.group(1)
        if "|" in t:
            parts = [p.strip() for p in t.split("|") if p.strip() not in _NO_TYPE]
            if len(parts) != 1:
                return None
            t = parts[0]
        if t == before:
            break
    return t if _DOTTED.fullmatch(t) and t not in _NO_TYPE else None


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
