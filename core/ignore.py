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
from functools import lru_cache
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
    """The rules of one .gitignore, filed by the names they need (see the module docstring).

    A rule's regex is built the first time a path may match it: a list of 10,000 names
    costs a walk the lines it splits, not 10,000 regexes compiled, and most are never asked.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.by_name: dict[str, list[int]] = {}
        self.by_suffix: dict[str, list[int]] = {}
        self._built: dict[int, Rule | None] = {}
        latest = {line: index for index, line in enumerate(lines)}  # a repeated line: its last copy decides
        needs = [(index, _needs(line)) for line, index in latest.items() if line and not line.startswith("#")]
        counts = Counter(key for _, groups in needs for group in groups for key in group)
        wild: list[Rule] = []
        for index, groups in needs:
            if not groups:
                rule = self.rule(index)
                if rule is not None:
                    wild.append(rule)
                continue
            group = min(groups, key=lambda g: sum(counts[k] for k in g))
            for kind, spelling in group:
                table = self.by_suffix if kind == "." else self.by_name
                table.setdefault(spelling, []).append(index)
        self.wild = sorted(wild, key=lambda rule: rule.index)
        self.wild_any = any_of([rule.regex for rule in self.wild])
        """Matches wherever an unfiled rule may; None with unfiled rules: ask them all."""

    def rule(self, index: int) -> Rule | None:
        """Line `index` as a rule, built on first use; None for a comment, a blank or a line
        pathspec cannot read (`!` alone, a trailing `\\`, `[z-a]`): git skips those too."""
        if index in self._built:
            return self._built[index]
        built: Rule | None = None
        try:
            patterns = GitIgnoreSpec.from_lines([self.lines[index]]).patterns
            pattern = patterns[0] if patterns else None
            regex = getattr(pattern, "regex", None)
            if (pattern is not None and pattern.include is not None and isinstance(regex, re.Pattern)
                    and isinstance(regex.pattern, str)):
                at_end = re.compile(f"(?:{regex.pattern})\\Z", regex.flags)
                built = Rule(index, bool(pattern.include), regex, at_end)
        except (ValueError, re.error):  # GitIgnorePatternError is a ValueError
            built = None
        self._built[index] = built
        return built

    def candidates(self, path: str, folder: bool = False) -> list[Rule]:
        """The rules that may match `path`, newest first: those filed under one of its
        components or their extensions, and the unfiled ones if any of them can match."""
        found: set[int] = set()
        for part in path.split("/"):
            found.update(self.by_name.get(part, ()))
            dot = part.find(".")
            while dot != -1:
                found.update(self.by_suffix.get(part[dot:], ()))
                dot = part.find(".", dot + 1)
        if self.wild and (
            self.wild_any is None
            or self.wild_any.search(path) is not None
            or (folder and self.wild_any.search(path + "/") is not None)
        ):
            found.update(rule.index for rule in self.wild)
        rules = (self.rule(index) for index in sorted(found, reverse=True))
        return [rule for rule in rules if rule is not None]

    def file_verdict(self, path: str) -> bool | None:
        """pathspec's `check_file(path).include`: True ignored, False re-included, None no rule.

        As pathspec decides: newest rule first, a rule that matched the file itself ends the
        search; one that matched a folder above it counts only if nothing newer matched."""
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
        for rule in self.candidates(folder, folder=True):
            if rule.matches_folder(folder):
                return rule.include
        return None


@lru_cache(maxsize=32)
def rules_of(data: bytes) -> IgnoreRules:
    """The rules of a .gitignore's bytes, kept for the next walk in this process (the MCP
    server walks the tree before each call): the same file is split and filed once."""
    return IgnoreRules(data.decode("utf-8", "replace").splitlines())


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
