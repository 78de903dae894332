"""One .gitignore's rules, matched without asking every rule about every path.

pathspec tests each path against each rule in turn, so a .gitignore of thousands of
rules (generated lists of files, `**/name` lines) made every walk cost rules x paths.
Here each rule is filed under a name it needs: a literal component (`build` in
`docs/build/**`, both spellings of `[Dd]ebug`) or an extension (`.pyc` in `*.pyc`),
the rarest one it has. A path looks up its own components and their extensions, and
only the rules found (plus the few with no such name, `*`, `?.txt`, behind one
combined quick test) are asked, newest first, with pathspec's own regexes: the
verdicts are pathspec's (files) and git's (folders), at a cost that does not grow
with the rules a path cannot match.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import product

from pathspec import GitIgnoreSpec

#: pathspec's name for the group that is set when a rule matched a folder of the path.
DIR_MARK = "ps_d"
#: A component with more spellings than this (`[ab][cd][ef][gh][ij]`) files its rule nowhere.
MAX_SPELLINGS = 16
#: What a literal component may not hold: wildcards, classes, escapes, spaces (trimmed by git).
_NOT_LITERAL = re.compile(r"[*?\[\]\\\s]")
_CLASS = re.compile(r"\[([^\]\[\\!^/\s*?-]+)\]")
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: its place in the file, whether it ignores (or, `!`, re-includes), its regex."""

    index: int
    include: bool
    regex: re.Pattern[str]
    at_end: re.Pattern[str]
    """`regex` anchored at the end of the path: a folder-only rule must match the folder itself,
    not one of its parents."""

    def matches_folder(self, folder: str) -> bool:
        """Whether the rule matches `folder` (no trailing `/`) itself, as git decides it.

        pathspec's `check_file("src/")` lets a rule that matches any path (`*`) beat a
        later folder-only rule (`!*/`), so a .gitignore of `*`, `!*.*`, `!*/` (ignore
        extensionless files) would hide every folder. Git applies the last rule that
        matches the folder's own name.
        """
        found = self.regex.search(folder)
        if found is not None and found.groupdict().get(DIR_MARK) is None:
            return True  # as a name (`*`, `*.d`), or as a path inside a folder (`x/**`)
        if self.at_end.search(folder) is not None:
            return True
        found = self.at_end.search(folder + "/")
        return found is not None and found.groupdict().get(DIR_MARK) is not None  # `build/`, `*/`


class IgnoreRules:
    """The rules of one .gitignore, filed by the names they need (see the module docstring)."""

    def __init__(self, spec: GitIgnoreSpec) -> None:
        self.spec = spec
        self.by_name: dict[str, list[Rule]] = {}
        self.by_suffix: dict[str, list[Rule]] = {}
        self.wild: list[Rule] = []
        self.wild_any: re.Pattern[str] | None = None
        self.readable = True
        """False if a rule has no readable regex: then pathspec decides every path."""
        rules = self._rules(spec)
        if rules is None:
            self.readable = False
            return
        needs = [(rule, _needs(line)) for rule, line in rules]
        counts = Counter(key for _, groups in needs for group in groups for key in group)
        for rule, groups in needs:
            if not groups:
                self.wild.append(rule)
                continue
            group = min(groups, key=lambda g: sum(counts[k] for k in g))
            for kind, spelling in group:
                table = self.by_suffix if kind == "." else self.by_name
                table.setdefault(spelling, []).append(rule)
        self.wild_any = any_of([rule.regex for rule in self.wild])

    def _rules(self, spec: GitIgnoreSpec) -> list[tuple[Rule, str]] | None:
        """The rules with their lines; an earlier rule with the same regex as a later one is
        dropped (the later one always decides first). None if a regex cannot be read."""
        latest: dict[str, tuple[Rule, str]] = {}
        for index, pattern in enumerate(spec.patterns):
            if pattern.include is None:
                continue  # a comment or blank line
            regex = getattr(pattern, "regex", None)
            line = getattr(pattern, "pattern", None)
            if not isinstance(regex, re.Pattern) or not isinstance(regex.pattern, str):
                return None
            try:
                at_end = re.compile(f"(?:{regex.pattern})\\Z", regex.flags)
            except re.error:
                return None
            latest.pop(regex.pattern, None)
            rule = Rule(index, bool(pattern.include), regex, at_end)
            latest[regex.pattern] = (rule, line if isinstance(line, str) else "")
        return list(latest.values())

    def candidates(self, path: str, folder: bool = False) -> list[Rule]:
        """The rules that may match `path`, newest first: those filed under one of its
        components or their extensions, and the unfiled ones if any of them can match."""
        found: dict[int, Rule] = {}
        for part in path.split("/"):
            for rule in self.by_name.get(part, ()):
                found[rule.index] = rule
            dot = part.find(".")
            while dot != -1:
                for rule in self.by_suffix.get(part[dot:], ()):
                    found[rule.index] = rule
                dot = part.find(".", dot + 1)
        if self.wild_any is not None and (
            self.wild_any.search(path) is not None or (folder and self.wild_any.search(path + "/") is not None)
        ):
            for rule in self.wild:
                found[rule.index] = rule
        return [found[i] for i in sorted(found, reverse=True)]

    def file_verdict(self, path: str) -> bool | None:
        """pathspec's `check_file(path).include`: True ignored, False re-included, None no rule.

        As pathspec decides: newest rule first, a rule that matched the file itself ends the
        search; one that matched a folder above it counts only if nothing newer matched."""
        if not self.readable:
            return self.spec.check_file(path).include
        verdict: bool | None = None
        rank = 0
        for rule in self.candidates(path):
            found = rule.regex.search(path)
            if found is None:
                continue
            here = 1 if found.groupdict().get(DIR_MARK) else 2
            if here > rank:
                verdict, rank = rule.include, here
            if here == 2:
                break
        return verdict

    def folder_verdict(self, folder: str) -> bool | None:
        """Whether git ignores `folder` (no trailing `/`): the newest rule that matches it decides."""
        if not self.readable:
            return self.spec.check_file(folder + "/").include
        for rule in self.candidates(folder, folder=True):
            if rule.matches_folder(folder):
                return rule.include
        return None


def _needs(line: str) -> list[frozenset[tuple[str, str]]]:
    """For each component of a rule that every match must hold, the spellings it may take:
    ("/", name) for a literal name, (".", ext) for `*.ext`. Empty when no component qualifies."""
    body = line[1:] if line.startswith("!") else line
    body = body[1:] if body.startswith("/") else body
    body = body[:-1] if body.endswith("/") else body
    parts = body.split("/")
    if not body or any(p in ("", ".", "..") for p in parts):
        return []
    groups = []
    for part in parts:
        if part == "**":
            continue
        if part.startswith("*") and part[1:2] == ".":
            spellings = _spellings(part[1:])
            kind = "."
        else:
            spellings = _spellings(part)
            kind = "/"
        if spellings:
            groups.append(frozenset((kind, s) for s in spellings))
    return groups


def _spellings(part: str) -> list[str] | None:
    """Every string `part` can match when its only wildcards are small classes (`[Dd]ebug`)."""
    if not part or _NOT_LITERAL.search(_CLASS.sub("", part)):
        return None
    pieces: list[str] = []
    at = 0
    for found in _CLASS.finditer(part):
        pieces.extend(part[at : found.start()])
        pieces.append("".join(sorted(set(found.group(1)))))
        at = found.end()
    pieces.extend(part[at:])
    total = 1
    for piece in pieces:
        total *= len(piece)
    if total > MAX_SPELLINGS:
        return None
    return ["".join(chars) for chars in product(*pieces)]


def any_of(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One regex that matches wherever any of `patterns` does (None: none, or unreadable)."""
    if not patterns:
        return None
    try:
        return re.compile("|".join(f"(?:{_NAMED_GROUP.sub('(?:', p.pattern)})" for p in patterns))
    except re.error:
        return None
