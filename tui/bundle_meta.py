"""What the app remembers about a bundle beyond its items: dependencies, levels and a budget.

`TrackedBundle` is the core's `Bundle` plus three things the app lets people set:

* `dependency_of`: items added as dependencies of another item (the add-with-deps
  key), each with the key and name of the item that uses it, so the pane can mark
  them, remove them together, and the copied text can say so;
* `details`: a detail level chosen by hand per item (`full`, `signature`, `name`);
  absent means full;
* `budget`: the most tokens the copied text may have (None: no limit).

They persist in the same `bundle.json`, under keys the core's reader ignores, so a
bundle saved by this version loads in an older one and an older bundle loads here
(with none of them set). A malformed entry is dropped, never a reason to refuse
the bundle. No Textual here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from symscope.core.bundle import Bundle, BundleItem, Format
from symscope.core.packer import DETAILS, Detail

#: Keys of the extra data in bundle.json.
DEPENDENCY_KEY = "dependency_of"
DETAILS_KEY = "details"
BUDGET_KEY = "budget"


@dataclass(frozen=True, slots=True)
class DependencyOf:
    """The item a dependency was added for."""

    key: str
    """Its bundle key (`symbol:<id>`); it may have been removed since."""
    name: str
    """Its qualified name, for the copied text and the pane."""


@dataclass
class TrackedBundle(Bundle):
    """A `Bundle` that also remembers dependencies, hand-set levels and a budget."""

    dependency_of: dict[str, DependencyOf] = field(default_factory=dict)
    details: dict[str, Detail] = field(default_factory=dict)
    budget: int | None = None

    # -- edits that keep the extra data in step with the items ---------------------------

    def remove(self, key: str) -> bool:
        removed = Bundle.remove(self, key)
        if removed:
            self.dependency_of.pop(key, None)
            self.details.pop(key, None)
        return removed

    def clear(self) -> None:
        Bundle.clear(self)
        self.dependency_of.clear()
        self.details.clear()

    def group(self, key: str) -> list[str]:
        """`key`'s group, in bundle order: the item the dependencies were added for, and them.

        For a dependency, its group is the item it was added for (if still present) and
        every item added for that one; for any other item, itself and its dependencies.
        """
        owner = self.dependency_of[key].key if key in self.dependency_of else key
        return [k for k in self.keys if k == owner or (k in self.dependency_of and
                                                       self.dependency_of[k].key == owner)]

    def add_after_group(self, owner: str, items: Iterable[BundleItem], of: DependencyOf) -> list[str]:
        """Insert `items` (not already present) right after `owner`'s group, as its dependencies.

        Returns:
            The keys added, in order.
        """
        group = self.group(owner)
        at = (self.index_of(group[-1]) + 1) if group else len(self.items)
        added: list[str] = []
        for item in items:
            if item.key in self:
                continue
            self.items.insert(at, item)
            self.dependency_of[item.key] = of
            added.append(item.key)
            at += 1
        return added

    # -- persistence ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data = Bundle.to_json(self)
        keys = set(self.keys)
        deps = {k: {"key": d.key, "name": d.name} for k, d in self.dependency_of.items() if k in keys}
        details = {k: d for k, d in self.details.items() if k in keys and d != "full"}
        if deps:
            data[DEPENDENCY_KEY] = deps
        if details:
            data[DETAILS_KEY] = details
        if self.budget is not None:
            data[BUDGET_KEY] = self.budget
        return data

    @classmethod
    def from_json(cls, raw: Any) -> TrackedBundle:
        base = Bundle.from_json(raw)  # raises BundleError on a broken layout
        out = cls(items=list(base.items), format=base.format)
        out.dependency_of, out.details, out.budget = read_extras(raw, set(out.keys))
        return out

    @classmethod
    def load(cls, path: Path) -> TrackedBundle:
        """Read a saved bundle (the core's reader, with the extras); a missing file is an empty one."""
        loaded = super().load(path)
        assert isinstance(loaded, TrackedBundle)  # Bundle.load builds `cls` through from_json
        return loaded

    @classmethod
    def copy_of(cls, items: Iterable[BundleItem], format_name: Format, dependency_of: Mapping[str, DependencyOf],
                details: Mapping[str, Detail], budget: int | None) -> TrackedBundle:
        """A new bundle with these items and extras (for a snapshot taken to a thread)."""
        return cls(list(items), format_name, dict(dependency_of), dict(details), budget)


def read_extras(raw: Any, keys: set[str]) -> tuple[dict[str, DependencyOf], dict[str, Detail], int | None]:
    """The dependencies, levels and budget saved in a bundle.json object (bad entries dropped)."""
    deps: dict[str, DependencyOf] = {}
    details: dict[str, Detail] = {}
    budget: int | None = None
    if not isinstance(raw, dict):
        return deps, details, budget
    saved_deps = raw.get(DEPENDENCY_KEY)
    for key, entry in saved_deps.items() if isinstance(saved_deps, dict) else ():
        if key in keys and isinstance(entry, dict) and isinstance(entry.get("key"), str):
            deps[key] = DependencyOf(entry["key"], str(entry.get("name") or entry["key"]))
    saved_details = raw.get(DETAILS_KEY)
    for key, level in saved_details.items() if isinstance(saved_details, dict) else ():
        if key in keys and level in DETAILS:
            details[key] = level
    value = raw.get(BUDGET_KEY)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        budget = value
    return deps, details, budget


def next_detail(current: Detail) -> Detail:
    """The level after `current` when cycling: full -> signature -> name -> full."""
    return DETAILS[(DETAILS.index(current) + 1) % len(DETAILS)]
