"""The values the dependency analysis passes around (uses, dependencies, importers, scans) and its
limits."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from symscope.core.models import CONTAINER_KINDS, Symbol

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
