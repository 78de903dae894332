"""Generic recovery from a grammar's parse errors: which trees to extract from when a parse has errors.

Some grammars reject real code (an empty PowerShell script block `{}`, a Fortran
`write(unit, fmt) "..."`, a plpgsql `BEGIN END` with nothing inside, an Objective-C
availability macro after a declaration), and their error recovery can then swallow
what follows: a function runs to the end of the file, or the root becomes one
`ERROR`. Two remedies, generic code plus one optional piece of data per language:

* **Blanking.** An error's bytes are replaced by spaces (line breaks and a
  line-continuing `\\` kept, so offsets and line numbers do not move) and the text is
  parsed again, incrementally. For each error, innermost first, two spans are tried:
  its lines (a long error: its first line), then the error itself to the end of that
  line, widened to the call it sits in (`AF_API_AVAILABLE(ios(10), ...)`) and cut
  where the brackets pair up. A span whose brackets do not pair up is never blanked
  (`} else {` would change the nesting around it). A trial is kept only if the
  damage goes down (error and missing nodes, then bytes inside errors) and the
  definitions the query finds get no worse: none is lost or starts elsewhere, none
  moves into a definition it was not in (a function must not swallow the next one),
  and any definition around the blanked bytes reached into them before (a table cut
  short at a column type the grammar rejects takes in its other columns; a blanked
  declaration does not join the function below it) or is new and starts inside an
  error of the old parse (a class recovered from one). A budget bounds the trials.
* **Resync points** (`resync` in `languages.json`): a regex for the lines that start
  a top-level definition or statement (SQL's `CREATE`, Objective-C's
  `@implementation`). The damaged top-level nodes (the whole file, if its root is an
  `ERROR`) are parsed again in pieces cut at those lines and the comments directly
  above them, each in the file's coordinates and blanked if it still has errors. The
  pieces replace the damaged nodes only where they do better: they keep every
  definition found before, nest none deeper, and find or place something
  differently (an `ERROR` root is always replaced).

The blanked copy is only parsed: the extractor slices names, signatures and docs
from the original bytes, and a blanked span holds no node. Only files whose parse
has errors pay. Without resync points an `ERROR` root is left as it is (blanking
cannot fix it), and so are files with more errors than the budget (another dialect
or language) or whose errors neither lie in nor border a definition (they cost no
symbol).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise

from tree_sitter import Node, Parser, Point, Range, Tree
from tree_sitter_language_pack import get_parser

from symscope.core.languages import LanguageSpec

MAX_TRIALS = 32
"""Re-parses one blanking pass may try (of the whole file, or of one piece of it)."""
MAX_MISSES = 8
"""A blanking pass stops after this many trials in a row that were not kept."""
REPARSE_BUDGET = 1 << 19
"""Bytes one blanking pass may re-parse in all: a large file gets fewer trials."""
MAX_BLANK_LINES = 3
"""An error spanning more lines than this has only its first line blanked."""

Span = tuple[int, int]
"""A byte range, end exclusive."""
Definitions = Callable[[Node, Span], dict[Span, Span]]
"""What the query finds under a root, in a byte window: each definition's name span -> its span."""


@dataclass(slots=True)
class Region:
    """A root to extract from, and the spans where its candidates are left out (parsed apart)."""

    root: Node
    dropped: list[Span] = field(default_factory=list)


@dataclass(slots=True)
class Recovery:
    """The regions to extract from, in source order, and the trees that hold their nodes."""

    regions: list[Region]
    trees: list[Tree] = field(default_factory=list)


@cache
def _parser(grammar: str) -> Parser:
    """Its own parser per grammar: the extractor's parsers keep their settings."""
    return get_parser(grammar)  # type: ignore[arg-type]


@cache
def _resync(pattern: str) -> re.Pattern[bytes]:
    return re.compile(pattern.encode(), re.MULTILINE)


class _Lines:
    """Where each line starts: byte offsets to tree-sitter points and back."""

    def __init__(self, source: bytes) -> None:
        starts = [0]
        find = source.find
        i = find(b"\n")
        while i != -1:
            starts.append(i + 1)
            i = find(b"\n", i + 1)
        self.starts = starts

    def point(self, byte: int) -> Point:
        row = bisect.bisect_right(self.starts, byte) - 1
        return Point(row, byte - self.starts[row])

    def span(self, first_row: int, last_row: int, limit: int) -> Span:
        """Bytes of rows `first_row..last_row`, without the last line break."""
        end = self.starts[last_row + 1] - 1 if last_row + 1 < len(self.starts) else limit
        return self.starts[first_row], end


def recover(source: bytes, spec: LanguageSpec, tree: Tree, defs: Definitions) -> Recovery:
    """The regions to extract from, given `tree`, a parse of `source` that has errors.

    Args:
        source: The file's bytes.
        spec: Its language; a `resync` pattern allows parsing damaged parts in pieces.
        tree: The whole file's parse.
        defs: Finds the definitions under a root (the extractor's query).

    Returns:
        The whole file's root (blanked where that helped) or, with resync points, that
        root minus its damaged spans plus the roots of the pieces parsed in their place.
    """
    lines = _Lines(source)
    root = tree.root_node
    if spec.resync:
        spans = [(0, len(source))] if root.is_error else _damaged_spans(root)
        return _split(source, spec.grammar, _resync(spec.resync), spans, tree, lines, defs)
    if root.is_error:
        return Recovery([Region(root)], [tree])  # blanking cannot undo an ERROR root
    errors = sum(1 for _ in _outermost_errors(root))
    if errors <= MAX_TRIALS and _touches_definitions(root, defs(root, (0, len(source))), lines):
        _, tree = _blank(source, spec.grammar, tree, None, lines, defs)
    return Recovery([Region(tree.root_node)], [tree])


def _touches_definitions(root: Node, found: dict[Span, Span], lines: _Lines) -> bool:
    """Whether an error can have changed what is extracted: it spans several lines (it may hide a
    definition), borders a definition, or lies in one that holds other definitions (it may have
    swallowed them) or whose end it is near (it may have moved the end). A one-line error in the
    middle of a function body (a macro the grammar does not know) is left alone."""
    if not found:
        return False  # not code this grammar knows (a test transcript read as Perl)
    spans = sorted(found.values(), key=lambda span: (span[0], -span[1]))
    starts = {start for start, _ in spans}
    ends = {end for _, end in spans}
    holders = {outer for outer, inner in pairwise(spans) if inner[1] <= outer[1] and inner != outer}
    for error in _outermost_errors(root):
        before, after = error.prev_sibling, error.next_sibling
        if (before is not None and before.end_byte in ends) or (after is not None and after.start_byte in starts):
            return True
        first, last = error.start_point.row, error.end_point.row
        if last > first:
            return True
        for span in spans:
            if span[0] > error.start_byte:
                break
            if error.end_byte <= span[1] and (span in holders or lines.point(span[1]).row - last <= 2):
                return True
    return False


def _outermost_errors(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(node.children)


def _damaged_spans(root: Node) -> list[Span]:
    """Byte spans of the root's children that hold errors; ones with only comments between merge
    (a column's trailing comment must not cut its table in two)."""
    spans: list[Span] = []
    joinable = False  # whether the last span may still grow over the comments after it
    for child in root.children:
        if child.has_error or child.is_missing:
            if spans and joinable:
                spans[-1] = (spans[-1][0], max(spans[-1][1], child.end_byte))
            else:
                spans.append((child.start_byte, child.end_byte))
            joinable = True
        elif "comment" not in child.type:
            joinable = False
    return spans


def _split(
    source: bytes,
    grammar: str,
    resync: re.Pattern[bytes],
    spans: list[Span],
    tree: Tree,
    lines: _Lines,
    defs: Definitions,
) -> Recovery:
    """Parse each damaged span in pieces cut at resync lines; elsewhere keep `tree`'s nodes."""
    root = tree.root_node
    spans = [(_above_comments(source, root, a, 0), b) for a, b in spans]
    recovery = Recovery([], [tree])
    if not root.is_error:
        recovery.regions.append(Region(root, spans))
    found: dict[Span, Span] = {}
    for piece in _pieces(source, resync, spans, root):
        part = _parse(grammar, source, piece, lines)
        if part.root_node.has_error and not part.root_node.is_error:
            _, part = _blank(source, grammar, part, piece, lines, defs)
        recovery.trees.append(part)
        recovery.regions.append(Region(part.root_node))
        if not root.is_error:
            found.update(defs(part.root_node, piece))
    if not root.is_error:
        # Pieces only where they do better: they keep every definition found before, nest none
        # deeper, and find or place something differently.
        before: dict[Span, Span] = {}
        for a, b in spans:
            before.update(defs(root, (a, b)))
        before = {name: at for name, at in before.items() if any(a <= at[0] < b for a, b in spans)}
        if found == before or not _no_worse(before, found, root, same_starts=False):
            return Recovery([Region(root)], [tree])
    return recovery


def _pieces(source: bytes, resync: re.Pattern[bytes], spans: list[Span], root: Node) -> list[Span]:
    """The pieces of each span: from a resync line (with the comments directly above it) to the
    next, each ending after its last non-blank byte."""
    pieces: list[Span] = []
    for a, b in spans:
        starts = [a]
        for found in resync.finditer(source, a, b):
            at = found.start()
            if at <= starts[-1] or _inside_token(root, at):
                continue
            at = _above_comments(source, root, at, starts[-1])
            if at > starts[-1]:
                starts.append(at)
        starts.append(b)
        for start, end in pairwise(starts):
            end = start + len(source[start:end].rstrip())
            if end > start:
                pieces.append((start, end))
    return pieces


def _inside_token(root: Node, at: int) -> bool:
    """Whether byte `at` is inside one token of `root` (a string, a comment): not a line that starts code."""
    node = root.descendant_for_byte_range(at, at)
    return node is not None and node.child_count == 0 and node.start_byte < at


def _above_comments(source: bytes, root: Node, at: int, floor: int) -> int:
    """`at` moved up over the comment lines directly above it: they belong to what follows."""
    while at > floor:
        line_start = max(source.rfind(b"\n", floor, at - 1) + 1, floor)
        line = source[line_start : at - 1]
        code = line.lstrip()
        if not code.strip():
            break
        first = line_start + len(line) - len(code)
        node = root.descendant_for_byte_range(first, first + 1)
        if node is None or "comment" not in node.type:
            break
        at = line_start
    return at


def _parse(grammar: str, text: bytes, span: Span | None, lines: _Lines, old: Tree | None = None) -> Tree:
    """Parse `text` (only `span` of it, if given: in the file's coordinates)."""
    parser = _parser(grammar)
    if span is None:
        parser.included_ranges = []
    else:
        a, b = span
        parser.included_ranges = [Range(lines.point(a), lines.point(b), a, b)]
    return parser.parse(text, old) if old is not None else parser.parse(text)


def _damage(root: Node) -> tuple[int, int]:
    """Error and missing nodes under `root`, then bytes inside errors (nested ones again): lower is better."""
    count = size = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            count += 1
        elif node.is_error:
            count += 1
            size += node.end_byte - node.start_byte
            stack.extend(c for c in node.children if c.has_error)
        elif node.has_error:
            stack.extend(node.children)
    return count, size


def _blank(
    source: bytes, grammar: str, tree: Tree, span: Span | None, lines: _Lines, defs: Definitions
) -> tuple[bytes, Tree]:
    """Blank errors while that lowers the damage and keeps the definitions; the best text and tree."""
    size = (span[1] - span[0]) if span is not None else len(source)
    trials = min(MAX_TRIALS, max(1, REPARSE_BUDGET // max(size, 1)))
    best = _damage(tree.root_node)
    tried: set[Span] = set()
    text = source
    misses = 0
    scan = [REPARSE_BUDGET]  # bytes the search for targets may still read, over all trials
    for _ in range(trials):
        if best == (0, 0) or misses >= MAX_MISSES:
            break
        target = _next_target(text, tree.root_node, tried, lines, span or (0, len(source)), scan)
        if target is None:
            break
        tried.add(target)
        a, b = target
        trial = text[:a] + _blanked(text, a, b) + text[b:]
        old = tree.copy()
        old.edit(a, b, b, lines.point(a), lines.point(b), lines.point(b))
        new_tree = _parse(grammar, trial, span, lines, old)
        damage = _damage(new_tree.root_node)
        misses += 1
        if damage >= best:
            continue
        window = (a, b)
        for changed in old.changed_ranges(new_tree):
            window = (min(window[0], changed.start_byte), max(window[1], changed.end_byte))
        if _keeps(defs(tree.root_node, window), defs(new_tree.root_node, window), (a, b), tree.root_node):
            text, tree, best = trial, new_tree, damage
            misses = 0
    return text, tree


def _blanked(text: bytes, a: int, b: int) -> bytes:
    """`text[a:b]` as spaces, keeping line breaks and the `\\` that continues a line (a C macro)."""
    out = bytearray(b - a)
    for i in range(a, b):
        c = text[i]
        keep = c in b"\r\n" or (c == 92 and text[i + 1 : i + 2] in (b"\n", b"\r"))
        out[i - a] = c if keep else 32
    return bytes(out)


def _next_target(
    text: bytes, root: Node, tried: set[Span], lines: _Lines, within: Span, scan: list[int]
) -> Span | None:
    """The next bytes to blank: for each error (in source order, inner ones first), its lines (a
    long error: its first line), then its own bytes up to the end of that line, cut where the
    brackets balance (a macro between a method's header and its `{`). Never a span whose brackets
    do not pair up, nor one tried already or holding nothing to blank.

    Each error costs a read of its lines, taken from `scan[0]`; none is looked at once that is
    spent: one long line the grammar rejects thousands of times (`a$a$...` in Go) would
    otherwise be read once per error, a cost quadratic in the line's length."""
    for node in _errors(root):
        r0, r1 = node.start_point.row, node.end_point.row
        if node.end_point.column == 0 and r1 > r0:
            r1 -= 1
        if r1 - r0 >= MAX_BLANK_LINES:
            r1 = r0
        a, b = lines.span(r0, r1, within[1])
        a, b = max(a, within[0]), min(b, within[1])
        scan[0] -= b - a
        if scan[0] < 0:
            return None
        start = _call_start(text, a, max(node.start_byte, a))
        for span in ((a, b), (start, _balanced_end(text, start, b))):
            chunk = text[span[0] : span[1]]
            if span not in tried and _balanced(chunk) and _blanked(text, *span) != chunk:
                return span
    return None


def _call_start(text: bytes, line_start: int, at: int) -> int:
    """Where the call around `at` starts, if `at` is inside brackets opened earlier on its line
    (`NAME(` of the outermost one), else `at`: an error inside `AF_API_AVAILABLE(ios(10), ...)`
    blanks the whole macro call."""
    opened: list[int] = []
    for i in range(line_start, at):
        c = text[i]
        if c in _PAIRS:
            opened.append(i)
        elif c in _CLOSING and opened:
            opened.pop()
    if not opened:
        return at
    start = opened[0]
    while start > line_start and (chr(text[start - 1]).isalnum() or text[start - 1] == 95):
        start -= 1
    return start


def _balanced_end(text: bytes, start: int, end: int) -> int:
    """Where the longest run of `text[start:end]` whose brackets pair up ends."""
    depth = 0
    last = start
    for i in range(start, end):
        c = text[i]
        if c in _PAIRS:
            depth += 1
        elif c in _CLOSING:
            if depth == 0:
                break
            depth -= 1
        if depth == 0 and c not in b" \t":
            last = i + 1
    return last


def _errors(root: Node) -> Iterator[Node]:
    """ERROR and MISSING nodes under `root` (not the root), in source order, inner ones first."""
    stack: list[tuple[Node, bool]] = [(c, False) for c in reversed(root.children)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            yield node
            continue
        if node.is_error or node.is_missing:
            stack.append((node, True))
        if node.has_error:
            stack.extend((c, False) for c in reversed(node.children))


_PAIRS = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSING = frozenset(_PAIRS.values())


def _balanced(chunk: bytes) -> bool:
    """Whether the brackets in `chunk` pair up: blanking it leaves the nesting around it alone."""
    stack: list[int] = []
    for c in chunk:
        if c in _PAIRS:
            stack.append(_PAIRS[c])
        elif c in _CLOSING and (not stack or stack.pop() != c):
            return False
    return not stack


def _keeps(old: dict[Span, Span], new: dict[Span, Span], blanked: Span, old_root: Node) -> bool:
    """Whether a blanked parse keeps the definitions (`_no_worse`), and every definition around the
    blanked bytes reached into them before (a table cut short at a column type the grammar rejects
    takes in its other columns; a blanked declaration does not join the function below it) or is
    new and starts inside an error of the old parse (a class recovered from one)."""
    a, b = blanked
    for name, (start, end) in new.items():
        if start <= a and b <= end:
            was = old.get(name)
            if was is None:
                if not _in_error(old_root, start):
                    return False
            elif not (was[0] < b and a < was[1]):
                return False
    return _no_worse(old, new, old_root)


def _in_error(root: Node, at: int) -> bool:
    """Whether byte `at` lies inside an ERROR node of `root`'s tree."""
    node: Node | None = root.descendant_for_byte_range(at, at)
    while node is not None:
        if node.is_error:
            return True
        node = node.parent
    return False


def _no_worse(old: dict[Span, Span], new: dict[Span, Span], old_root: Node, same_starts: bool = True) -> bool:
    """Whether `new` has every definition of `old` (starting where it did, with `same_starts`),
    none inside an old definition it was not in before, nor inside a new one that does not start
    inside an error of the old parse."""
    if not old.keys() <= new.keys():
        return False
    if same_starts and any(new[name][0] != start for name, (start, _) in old.items()):
        return False  # its header line was blanked
    before, after = _ancestors(old), _ancestors(new)
    for name in old:
        for outer in after[name] - before[name]:
            if outer in old or not _in_error(old_root, new[outer][0]):
                return False
    return True


def _ancestors(found: dict[Span, Span]) -> dict[Span, frozenset[Span]]:
    """Each definition's enclosing definitions (by name span), from byte ranges."""
    out: dict[Span, frozenset[Span]] = {}
    stack: list[tuple[Span, frozenset[Span]]] = []  # a definition's span, it and its ancestors
    for name, (start, end) in sorted(found.items(), key=lambda item: (item[1][0], -item[1][1])):
        while stack and not (stack[-1][0][0] <= start and end <= stack[-1][0][1]):
            stack.pop()
        outer = stack[-1][1] if stack else frozenset()
        out[name] = outer
        stack.append(((start, end), outer | {name}))
    return out
