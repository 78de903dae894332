"""What changed: the symbols a `git diff` touches, and the symbols that call them.

`git_changes` runs git itself (a subprocess; never parses `.git` by hand) for the
working tree against a ref, `HEAD` by default: the changed line ranges of every
tracked file, plus untracked files (not ignored), which count as wholly new.
`changed_symbols` maps those lines onto the index: for each changed line, the
innermost symbol that holds it; a symbol inside another changed symbol is left
out, since the outer one's source already contains it. `diff_items` adds the
callers of each changed symbol (the `refs` graph), for the bundle's `--diff`.

Deleted lines leave a gap between two lines of the new file. A gap inside a
symbol changes that symbol; a gap right after a symbol's last line changes it
only when the first deleted line was indented deeper than the symbol's first
line (the tail of a Python body, not the next definition).

git runs with no network and no user hooks: no pager, no external diff or
textconv drivers, no fsmonitor, and no lazy fetches in partial clones
(`GIT_NO_LAZY_FETCH`, honoured by git 2.44+).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from symscope.core.errors import SymscopeError
from symscope.core.languages import language_for_extension
from symscope.core.models import Reference, Symbol
from symscope.core.pathnames import escape_name, fs_path

if TYPE_CHECKING:
    from symscope.core.index import Index

#: Seconds any one git command may take.
GIT_TIMEOUT = 60
#: Options that keep git from running anything but itself, and its output parseable.
_GIT_CONFIG = (
    "-c", "core.quotepath=off",
    "-c", "core.fsmonitor=false",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "color.ui=false",
)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}

DiffReason = Literal["changed", "caller"]


class GitError(SymscopeError):
    """A diff cannot be computed: git is missing, the folder is not in a repository, or the ref is unknown."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """How one file differs from the ref, in lines of the file as it is now."""

    path: str
    """Relative to the folder the diff was taken in, with `/` separators."""
    new: bool = False
    """Untracked, or absent at the ref: every line counts as changed."""
    added: tuple[tuple[int, int], ...] = ()
    """Inclusive (first, last) line ranges that were added or rewritten."""
    gaps: tuple[tuple[int, str], ...] = field(default=())
    """(line, first non-blank deleted line): lines were deleted right after `line` (0: at the top)."""


def _git(root: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_PAGER")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_NO_LAZY_FETCH="1", LC_ALL="C")
    try:
        done = subprocess.run(
            ["git", "--no-pager", "-C", str(root), *_GIT_CONFIG, *args],
            stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=GIT_TIMEOUT, check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed to find what changed)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {GIT_TIMEOUT} s") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else f"exit status {done.returncode}"
        raise _Failed(reason.removeprefix("fatal: ").removeprefix("error: "))
    return done.stdout.decode("utf-8", "surrogateescape")


class _Failed(GitError):
    """git ran and failed (the message is git's last line)."""


def _commit(root: Path, ref: str) -> str:
    """The commit `ref` names, checked; raises GitError with one clear line otherwise."""
    try:
        inside = _git(root, "rev-parse", "--is-inside-work-tree").strip()
    except _Failed:
        raise GitError(f"not a git repository: {root}") from None
    if inside != "true":
        raise GitError(f"not inside a git work tree: {root}")
    if not ref or ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref):
        raise GitError(f"not a git revision: {ref!r}")
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except _Failed:
        if ref == "HEAD":
            raise GitError("HEAD has no commit yet: commit once, or name a revision to compare with") from None
        raise GitError(f"unknown git revision: {ref}") from None


def git_changes(root: str | os.PathLike[str], ref: str = "HEAD") -> list[FileChange]:
    """Every file under `root` whose working-tree content differs from `ref`, untracked files included.

    Args:
        root: A folder inside a git work tree (the repo, or a subfolder of it: paths
            are relative to it, and files outside it are left out).
        ref: The commit to compare with (any revision git understands).

    Raises:
        GitError: git is missing, `root` is not in a work tree, or `ref` names no commit.
    """
    folder = Path(root)
    commit = _commit(folder, ref)
    try:
        patch = _git(folder, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--unified=0",
                     "--relative", "--ignore-submodules", "--src-prefix=a/", "--dst-prefix=b/",
                     commit, "--")
        untracked = _git(folder, "ls-files", "--others", "--exclude-standard", "-z")
    except _Failed as exc:
        raise GitError(f"git diff failed: {exc}") from None
    changes = [replace(c, path=escape_name(c.path)) for c in parse_diff(patch)]  # as the index names files
    seen = {c.path for c in changes}
    changes += [FileChange(escape_name(p), new=True) for p in untracked.split("\0") if p and escape_name(p) not in seen]
    return sorted(changes, key=lambda c: c.path)


def _unquote(name: str) -> str:
    """A path as git prints it: C-quoted (`"a\\tb"`, octal bytes) when it has unusual characters."""
    if not (len(name) >= 2 and name[0] == name[-1] == '"'):
        return name
    raw = bytearray()
    body = name[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in _ESCAPES:
                raw.append(_ESCAPES[nxt])
                i += 2
                continue
            if body[i + 1 : i + 4].isdigit():
                raw.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
        raw += ch.encode("utf-8", "surrogateescape")
        i += 1
    return raw.decode("utf-8", "surrogateescape")


def _diff_path(header: str) -> str | None:
    """The path on a `---`/`+++` line, without its `a/`/`b/` prefix; None for /dev/null."""
    name = header[4:]
    if not name.startswith('"'):
        name = name.rstrip("\t")  # git ends a name holding spaces with a tab
    name = _unquote(name)
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def parse_diff(patch: str) -> list[FileChange]:
    """The changed lines of each file in a `git diff --unified=0` patch (new-side line numbers)."""
    out: list[FileChange] = []
    path: str | None = None
    new = False
    added: list[tuple[int, int]] = []
    gaps: list[tuple[int, str]] = []
    old_left = new_left = 0
    gap_at: int | None = None

    def flush() -> None:
        if path is not None and (new or added or gaps):
            out.append(FileChange(path, new, tuple(added), tuple(gaps)))

    for line in patch.split("\n"):
        if old_left or new_left:  # inside a hunk: exactly its counted lines
            if line.startswith("-") and old_left:
                old_left -= 1
                if gap_at is not None and line[1:].strip():
                    gaps.append((gap_at, line[1:]))
                    gap_at = None
            elif line.startswith("+") and new_left:
                new_left -= 1
            continue
        if gap_at is not None:  # only blank lines were deleted
            gaps.append((gap_at, ""))
            gap_at = None
        if line.startswith("diff --git "):
            flush()
            path, new, added, gaps = None, False, [], []
        elif line.startswith("--- "):
            new = _diff_path(line) is None
        elif line.startswith("+++ "):
            path = _diff_path(line)
        elif line.startswith("@@ ") and (m := _HUNK.match(line)) is not None:
            old_count = 1 if m.group(2) is None else int(m.group(2))
            start = int(m.group(3))
            count = 1 if m.group(4) is None else int(m.group(4))
            if count:
                added.append((start, start + count - 1))
            elif old_count:
                gap_at = start
            old_left, new_left = old_count, count
    if gap_at is not None:
        gaps.append((gap_at, ""))
    flush()
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _touched(symbols: list[Symbol], change: FileChange, lines: list[str]) -> list[Symbol]:
    """The innermost symbols holding each changed line or gap of one file."""
    if change.new:
        ranges: Sequence[tuple[int, int]] = [(1, max((s.end_line for s in symbols), default=0))]
    else:
        ranges = change.added
    children: dict[str, list[Symbol]] = {}
    for s in symbols:
        if s.parent_id is not None:
            children.setdefault(s.parent_id, []).append(s)
    hit: set[str] = set()
    for s in symbols:
        own = _own_lines(s, children.get(s.id, []))
        if any(a <= last and first <= b for first, last in ranges for a, b in own):
            hit.add(s.id)
    for line, deleted in change.gaps:
        holders = [s for s in symbols if s.start_line <= line < s.end_line or (
            s.end_line == line and deleted and s.start_line <= len(lines)
            and _indent(deleted) > _indent(lines[s.start_line - 1]))]
        if holders:
            hit.add(min(holders, key=lambda s: (s.end_line - s.start_line, -s.start_line)).id)
    by_id = {s.id: s for s in symbols}

    def inside_another(s: Symbol) -> bool:
        parent = s.parent_id
        while parent is not None:
            if parent in hit:
                return True
            up = by_id.get(parent)
            parent = up.parent_id if up is not None else None
        return False

    return [s for s in symbols if s.id in hit and not inside_another(s)]


def _own_lines(sym: Symbol, kids: list[Symbol]) -> list[tuple[int, int]]:
    """The symbol's line range minus its children's."""
    out: list[tuple[int, int]] = []
    at = sym.start_line
    for kid in sorted(kids, key=lambda k: k.start_line):
        if kid.start_line > at:
            out.append((at, kid.start_line - 1))
        at = max(at, kid.end_line + 1)
    if at <= sym.end_line:
        out.append((at, sym.end_line))
    return out


def changed_symbols(index: Index, changes: Sequence[FileChange]) -> list[Symbol]:
    """The indexed symbols the changes touch, by path and line (files not indexed are skipped)."""
    out: list[Symbol] = []
    for change in changes:
        if index.file(change.path) is None:
            continue
        symbols = sorted(index.file_symbols(change.path), key=lambda s: (s.start_line, -s.end_line))
        lines = index.file_text(change.path).splitlines() if change.gaps else []
        out.extend(_touched(symbols, change, lines))
    return out


def needs_refresh(index: Index, changes: Sequence[FileChange]) -> bool:
    """True when a changed file is stale in the index, or new and in a supported language."""
    for change in changes:
        if index.file(change.path) is not None:
            if not index.file_is_current(change.path):
                return True
        elif language_for_extension(change.path) is not None and os.path.isfile(fs_path(index.root, change.path)):
            return True
    return False


def diff_items(
    index: Index,
    ref: str = "HEAD",
    callers: Callable[[Symbol], Sequence[Reference]] | None = None,
    refresh: bool = True,
) -> list[tuple[Symbol, DiffReason]]:
    """The changed symbols (reason `changed`), then the symbols that call them (`caller`).

    Args:
        index: The repo's index; with `refresh`, it is brought up to date first when
            a changed file is stale or new (line numbers must match the files now).
        ref: What to compare the working tree with.
        callers: Who uses a symbol; default `index.deps.callers`, the graph `symscope refs`
            prints (name-based candidates, minus mentions resolved to other symbols).
        refresh: Update the index when needed (a front end that just did can skip it).

    Raises:
        GitError: see `git_changes`.
    """
    changes = git_changes(index.root, ref)
    if refresh and needs_refresh(index, changes):
        index.update()
    changed = changed_symbols(index, changes)
    find = callers if callers is not None else index.deps.callers
    out: list[tuple[Symbol, DiffReason]] = [(s, "changed") for s in changed]
    seen = {s.id for s in changed}
    spans = [(s.path, s.start_byte, s.end_byte) for s in changed]
    for sym in changed:
        for ref_ in find(sym):
            caller = ref_.symbol
            inside = any(p == caller.path and a <= caller.start_byte and caller.end_byte <= b for p, a, b in spans)
            if caller.id in seen or inside:
                continue  # already in the bundle in full
            seen.add(caller.id)
            out.append((caller, "caller"))
    return out
