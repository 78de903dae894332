"""Per-language dependency facts from languages.json: receivers, member operators, manifests, build
tags."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from symscope.core.deps.values import DEFAULT_MEMBER_OPERATORS


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
