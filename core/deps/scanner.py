"""Reading one symbol's code with tree-sitter into the names it uses, the names it binds and their
declarations."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from symscope.core.deps.facts import _Lang
from symscope.core.deps.values import _DEFINERS, _DOTTED, _IDENT, Use, _Chain, _Decl, _Scan

if TYPE_CHECKING:
    from tree_sitter import Node, Tree

_NOT_CODE = ("string", "comment", "content", "fragment", "escape", "heredoc", "regex", "char")
#: Leaves in these fields name a declaration's subject: with a declaring parent, a binding.
_BIND_FIELDS = frozenset({"name", "pattern", "left", "declarator", "parameter"})
_DECLARER_ENDS = ("_spec", "_item", "_arm", "_clause", "declaration", "declarator", "definition",
                  "signature", "parameters", "parameter")
_DECLARER_STARTS = ("for", "let", "catch", "except", "lambda", "closure", "function", "class", "arrow",
                    "variable", "generator")


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
