"""Find a repo's source files, honouring .gitignore, and say why each other file is skipped."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from symscope.core.errors import TooManyFilesError, UnsafeRootError
from symscope.core.files import read_head
from symscope.core.ignore import IgnoreRules, rules_of
from symscope.core.languages import LanguageSpec, language_for_extension, language_for_shebang
from symscope.core.models import SkippedFile
from symscope.core.pathnames import escape_name, fs_parts, unescape_name

#: Default size limit: larger files are generated or data, not code to read.
MAX_FILE_BYTES = 1_000_000
#: More indexable files than this is not one repository (a mistyped root?): stop.
MAX_FILES = 200_000
#: Folders nested deeper than this are skipped (generated or hostile trees).
MAX_DEPTH = 256
#: Bytes of a .gitignore that are read.
MAX_GITIGNORE_BYTES = 1_000_000
#: Seconds at least between two `on_progress` calls while walking (a face's refresh rate).
PROGRESS_SECONDS = 0.2
#: Indexable files between two looks at the clock for `on_progress` (keeps the walk's cost flat).
PROGRESS_EVERY = 64
#: Directories never descended into, with the reason reported for them.
SKIP_DIRS = {
    ".git": "version-control directory",
    ".hg": "version-control directory",
    ".svn": "version-control directory",
    "node_modules": "vendored dependencies",
    "bower_components": "vendored dependencies",
    "vendor": "vendored dependencies",
    "third_party": "vendored dependencies",
    ".venv": "virtual environment",
    "venv": "virtual environment",
    ".tox": "tool cache",
    "__pycache__": "tool cache",
    ".mypy_cache": "tool cache",
    ".pytest_cache": "tool cache",
    ".ruff_cache": "tool cache",
}
_MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js", "-min.js")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file the walker found worth indexing."""

    path: str
    """Repo-relative with `/` separators, each name escaped (`pathnames.escape_name`)."""
    abspath: str
    """The path on disk (names as the filesystem gave them)."""
    size: int
    mtime_ns: int
    language: LanguageSpec


@dataclass(slots=True)
class WalkResult:
    files: list[SourceFile]
    """Every indexable file found; with `walk(known=...)`, only those new or changed."""
    skipped: list[SkippedFile]
    unchanged: list[str] = field(default_factory=list)
    """With `walk(known=...)`: the indexable files whose size and mtime are as known (paths)."""

    @property
    def found(self) -> int:
        """Indexable files found, changed or not."""
        return len(self.files) + len(self.unchanged)


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One .gitignore: its folder (repo-relative) and its rules."""

    base: str
    rules: IgnoreRules


#: The .gitignore files read so far, by folder (None: it has none), for `excluded` to reuse.
IgnoreCache = dict[str, "_Ignore | None"]


def _load_ignore(dirpath: str, rel_dir: str) -> _Ignore | None:
    # Not followed if a symlink (as git does), never blocking on a FIFO, never huge.
    data = read_head(os.path.join(dirpath, ".gitignore"), MAX_GITIGNORE_BYTES)
    if not data:
        return None
    if len(data) == MAX_GITIGNORE_BYTES:
        data = data[: data.rfind(b"\n") + 1]  # no half rule from a cut line
    return _Ignore(rel_dir, rules_of(data))


def _ignored(specs: list[_Ignore], rel: str, is_dir: bool) -> bool:
    """Whether the .gitignore files above `rel` ignore it: the innermost one with a rule
    that matches decides (files as pathspec decides them, folders as git does)."""
    ignored = False
    for ignore in specs:
        sub = rel[len(ignore.base) + 1 :] if ignore.base else rel
        if "\\" in sub:  # rules are written against names as they are on disk
            sub = unescape_name(sub)
        verdict = ignore.rules.folder_verdict(sub) if is_dir else ignore.rules.file_verdict(sub)
        if verdict is not None:
            ignored = verdict
    return ignored


def excluded(root: str, rel: str, is_dir: bool, cache: IgnoreCache | None = None) -> bool:
    """Whether the walk leaves repo-relative `rel` (escaped) out by folder or .gitignore rules:
    a skipped folder on its way (or `rel` itself one), or its own .gitignore verdict. For a file
    watcher, to drop what no index run would look at; `cache` keeps the .gitignore files read."""
    if any(unescape_name(part) in SKIP_DIRS for part in rel.split("/")):
        return True
    parent = rel.rpartition("/")[0]
    specs = ignore_specs(root, parent, cache=cache)
    return specs is None or _ignored(specs, rel, is_dir)


def _is_inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def check_root(root: Path, allow: bool = False) -> None:
    """Refuse to index the filesystem root or the home folder itself, unless `allow`.

    Either is almost always a mistyped `--repo` (`/`, `~`): indexing it walks
    every file the user owns, for minutes, into a gigabyte-sized index.

    Raises:
        UnsafeRootError: `root` is `/` (or a drive root) or the user's home folder.
    """
    if allow:
        return
    real = Path(os.path.realpath(root))
    if real.parent == real:
        raise UnsafeRootError(
            f"refusing to index {root}: it is the filesystem root, not a repository "
            "(pass --allow-any-root to index it anyway)"
        )
    try:
        home = Path(os.path.realpath(Path.home()))
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry
        return
    if real == home:
        raise UnsafeRootError(
            f"refusing to index {root}: it is your home folder, not a repository "
            "(pass --allow-any-root to index it anyway)"
        )


class _Entry(Protocol):
    """What the walk asks of a folder entry: an `os.DirEntry`, or a `_NamedEntry`."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_symlink(self) -> bool: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result: ...


class _NamedEntry:
    """One named path as a folder entry (never followed): `walk(only=...)` visits it alone."""

    def __init__(self, path: str, st: os.stat_result) -> None:
        self.path = path
        self.name = os.path.basename(path)
        self._st = st

    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self._st.st_mode)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return stat.S_ISDIR(self._st.st_mode)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return stat.S_ISREG(self._st.st_mode)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return self._st


@dataclass(slots=True)
class _Folder:
    """One folder being listed: the walk's explicit stack holds these instead of recursing."""

    rel: str
    specs: list[_Ignore]
    entries: Sequence[_Entry]
    depth: int
    next: int = 0


def _folder_skip(name: str, rel: str, specs: list[_Ignore], depth: int, max_depth: int) -> str | None:
    """Why the walk does not descend into folder `rel` (its disk name `name`), or None."""
    if name in SKIP_DIRS:
        return SKIP_DIRS[name]
    if _ignored(specs, rel, True):
        return "ignored by .gitignore"
    if depth >= max_depth:
        return f"nested too deep (over {max_depth} folders)"
    return None


def ignore_specs(root: str, folder: str, max_depth: int = MAX_DEPTH,
                 cache: IgnoreCache | None = None) -> list[_Ignore] | None:
    """The .gitignore rules that apply inside repo-relative `folder` (escaped), as the walk holds
    them there; None when the walk never enters it (a folder on the way is skipped, a symlink,
    or missing). Reads one .gitignore per level (`cache` keeps them between calls)."""
    specs: list[_Ignore] = []
    rel = ""
    parts = [p for p in folder.split("/") if p] if folder else []
    for depth, part in enumerate([None, *parts]):
        if part is not None:
            rel = f"{rel}/{part}" if rel else part
            name = unescape_name(part)
            if _folder_skip(name, rel, specs, depth - 1, max_depth) is not None:
                return None
        dirpath = os.path.join(root, *fs_parts(rel)) if rel else root
        if part is not None:
            try:
                if not stat.S_ISDIR(os.lstat(dirpath).st_mode):
                    return None  # a symlink, a file or gone: not entered
            except OSError:
                return None
        if cache is not None and rel in cache:
            ignore = cache[rel]
        else:
            ignore = _load_ignore(dirpath, rel)
            if cache is not None:
                cache[rel] = ignore
        if ignore is not None:
            specs = [*specs, ignore]
    return specs


def walk(
    root: Path,
    max_bytes: int = MAX_FILE_BYTES,
    on_file: Callable[[SourceFile], None] | None = None,
    max_files: int | None = MAX_FILES,
    max_depth: int = MAX_DEPTH,
    on_progress: Callable[[int, str], None] | None = None,
    only: Sequence[str] | None = None,
    known: Mapping[str, tuple[int, int, str]] | None = None,
) -> WalkResult:
    """List indexable files under `root` and the reason every other file was left out.

    Symlinks are never followed (no loops, nothing outside the repo). Whole
    skipped directories are reported once, as `dir/`. Depth-first in sorted
    name order, with an explicit stack: no nesting depth can overflow Python's.

    Args:
        root: The repository folder.
        max_bytes: Larger files are skipped as too large.
        on_file: Called with each indexable file as it is found (the indexer
            starts its parser processes once there are enough).
        max_files: Stop with `TooManyFilesError` past this many indexable files
            (None: no limit).
        max_depth: Folders nested deeper than this are skipped, with a reason.
        on_progress: Called with the indexable files found so far and the latest one's path,
            at most every `PROGRESS_SECONDS` (a first index of a big repo walks for seconds).
        only: Visit just these repo-relative paths (escaped, as the index names them; a folder
            means everything under it), each judged exactly as the whole walk would judge it:
            the .gitignore files above it apply, and nothing is found below a skipped folder.
            A missing path finds nothing. The cost grows with the paths, not the repo.
        known: Path -> (size, mtime_ns, ...) of the files indexed so far: a file found with
            both as known is listed in `unchanged` by path, not in `files`, and `on_file` is
            not called for it (a refresh of a big repo finds nearly every file so).

    Raises:
        TooManyFilesError: more than `max_files` indexable files.
    """
    real_root = os.path.realpath(root)
    files: list[SourceFile] = []
    skipped: list[SkippedFile] = []
    unchanged: list[str] = []
    stack: list[_Folder] = []
    next_post = time.monotonic() + PROGRESS_SECONDS
    langs: dict[str, LanguageSpec | None] = {}

    def enter(dirpath: str, rel_dir: str, specs: list[_Ignore], depth: int) -> None:
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped.append(SkippedFile(rel_dir + "/" if rel_dir else ".", f"unreadable directory ({exc.strerror})"))
            return
        # only a folder that lists a .gitignore is asked for one: trying to open a missing one in
        # each of a big repo's 10,000 folders was a sixth of the walk that every refresh does
        ignore = _load_ignore(dirpath, rel_dir) if any(e.name == ".gitignore" for e in entries) else None
        if ignore is not None:
            specs = [*specs, ignore]
        stack.append(_Folder(rel_dir, specs, entries, depth))

    if only is None or "" in only:  # the root named: the whole walk
        only = None
        enter(str(root), "", [], 0)
    for rel_path in sorted(set(only or ()), reverse=True):  # popped from the stack in sorted order
        parent, _, _ = rel_path.rpartition("/")
        specs = ignore_specs(str(root), parent, max_depth)
        if specs is None:
            continue  # below a folder the walk skips (reported as that folder), or gone
        disk = os.path.join(str(root), *fs_parts(rel_path))
        try:
            named = _NamedEntry(disk, os.lstat(disk))
        except FileNotFoundError:
            continue
        except OSError as exc:
            skipped.append(SkippedFile(rel_path, f"unreadable ({exc.strerror or exc})"))
            continue
        depth = parent.count("/") + 1 if parent else 0
        stack.append(_Folder(parent, specs, [named], depth))
    while stack:
        folder = stack[-1]
        if folder.next >= len(folder.entries):
            stack.pop()
            continue
        entry = folder.entries[folder.next]
        folder.next += 1
        rel_dir, specs = folder.rel, folder.specs
        name = escape_name(entry.name)  # any bytes: printable, storable, one line (core/pathnames.py)
        rel = f"{rel_dir}/{name}" if rel_dir else name
        try:
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                where = "inside" if _is_inside(target, real_root) else "outside"
                skipped.append(SkippedFile(rel, f"symlink to {where} the repo (not followed)"))
                continue
            if entry.is_dir(follow_symlinks=False):
                why = _folder_skip(entry.name, rel, specs, folder.depth, max_depth)
                if why is not None:
                    skipped.append(SkippedFile(rel + "/", why))
                else:
                    enter(entry.path, rel, specs, folder.depth + 1)
                continue
            if not entry.is_file(follow_symlinks=False):
                skipped.append(SkippedFile(rel, "not a regular file"))
                continue
            if entry.name == ".gitignore":
                continue
            if entry.name in langs:  # file names repeat across a repo's folders: judged once each
                lang = langs[entry.name]
            else:
                lang = langs[entry.name] = language_for_extension(entry.name)
            if lang is None and "." not in entry.name:
                lang = _sniff_shebang(entry.path)
            if lang is None:
                skipped.append(SkippedFile(rel, "unsupported language"))
                continue
            if specs and _ignored(specs, rel, False):
                skipped.append(SkippedFile(rel, "ignored by .gitignore"))
                continue
            st = entry.stat(follow_symlinks=False)
            if entry.name.lower().endswith(_MINIFIED_SUFFIXES):
                skipped.append(SkippedFile(rel, "minified"))
                continue
            if st.st_size > max_bytes:
                skipped.append(
                    SkippedFile(rel, f"too large ({st.st_size:,} bytes > {max_bytes:,} limit)")
                )
                continue
            if known is not None and (old := known.get(rel)) is not None \
                    and old[0] == st.st_size and old[1] == st.st_mtime_ns:
                unchanged.append(rel)
                found = None
            else:
                found = SourceFile(rel, entry.path, st.st_size, st.st_mtime_ns, lang)
                files.append(found)
            total = len(files) + len(unchanged)
            if max_files is not None and total > max_files:
                raise TooManyFilesError(
                    f"more than {max_files:,} indexable files under {root}; "
                    "pass --max-files N to index anyway"
                )
            if on_file is not None and found is not None:
                on_file(found)
            if on_progress is not None and total % PROGRESS_EVERY == 0 and time.monotonic() >= next_post:
                next_post = time.monotonic() + PROGRESS_SECONDS
                on_progress(total, rel)
        except OSError as exc:
            skipped.append(SkippedFile(rel, f"unreadable ({exc.strerror or exc})"))

    return WalkResult(files=files, skipped=skipped, unchanged=unchanged)


def _sniff_shebang(path: str) -> LanguageSpec | None:
    head = read_head(path, 256)  # never blocks, even if a FIFO was swapped in since the listing
    if not head:
        return None
    return language_for_shebang(head.split(b"\n", 1)[0])


def content_problem(data: bytes) -> str | None:
    """Why bytes read from a source file should not be indexed, or None if they are fine."""
    head = data[:8192]
    if b"\x00" in head:
        return "binary (NUL bytes)"
    if len(data) > 20_000:
        lines = data.count(b"\n") + 1
        if len(data) / lines > 400:
            return "minified (average line over 400 characters)"
    return None
