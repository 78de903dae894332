"""How the store packs what it keeps per file, so the index stays smaller than the source.

A symbol's term bag (hundreds of words, its name and its file's path repeated in every
one) is written once per file: the bags of a file's symbols, in their order, one per line,
compressed together (zlib, in the standard library). A file's imports are one JSON list.
A symbol's id is derived from its path, qualified name and kind (`dup` numbers a repeat),
so it is a generated column rather than stored text; a lookup by id goes through a 32-bit
digest of it (`id_key`), indexed at a tenth of the size of an index of the ids' text.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

from symscope.core.models import Import, Symbol

#: zlib's level for bags: 6 (its default) is within 2% of 9 on code, at half the time.
BAG_LEVEL = 6
#: Bound parameters per statement (SQLite before 3.32 allows 999).
MAX_PARAMS = 900


def pack_bags(bags: Sequence[str]) -> bytes:
    """One file's term bags, in its symbols' order, as one compressed blob.

    A bag's own line breaks become spaces: every reader splits a bag on whitespace."""
    text = "\n".join(bag.replace("\r", " ").replace("\n", " ") for bag in bags)
    return zlib.compress(text.encode("utf-8", "surrogatepass"), BAG_LEVEL)


def unpack_bags(blob: bytes) -> list[str]:
    """The bags `pack_bags` packed, in order.

    Raises:
        ValueError: the blob is not one `pack_bags` wrote (a damaged index).
    """
    try:
        text = zlib.decompress(blob).decode("utf-8", "surrogatepass")
    except (zlib.error, UnicodeDecodeError, TypeError) as exc:
        raise ValueError(f"a packed term bag is damaged ({exc})") from None
    return text.split("\n")


class BagCache:
    """Files' unpacked bags by file id, the most recently used kept, bounded by characters.

    A file id is never reused (`AUTOINCREMENT`) and a file's rows are only ever replaced
    whole, under a new id: an entry can never be stale. A warm search re-reads the bags of
    the candidates it saw before without unpacking them again. Safe to share between threads."""

    #: Characters of bags kept at most (about 4 MB of text).
    LIMIT = 4_000_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[int, list[str]] = OrderedDict()
        self._size = 0

    def get(self, fid: int) -> list[str] | None:
        with self._lock:
            got = self._items.get(fid)
            if got is not None:
                self._items.move_to_end(fid)
            return got

    def put(self, fid: int, bags: list[str]) -> None:
        size = sum(map(len, bags))
        if size > self.LIMIT // 8:  # one huge file would push out everything else
            return
        with self._lock:
            if fid in self._items:
                return
            self._items[fid] = bags
            self._size += size
            while self._size > self.LIMIT:
                _, old = self._items.popitem(last=False)
                self._size -= sum(map(len, old))


def nth_bag(bags: list[str], ord_: int) -> str:
    """The bag of a file's `ord_`th symbol (empty if the file has no such symbol)."""
    return bags[ord_] if 0 <= ord_ < len(bags) else ""


def pack_imports(imports: Sequence[Import]) -> str:
    """One file's imports, in line order, as a JSON list of [line, module]."""
    ordered = sorted(imports, key=lambda i: i.line)
    return json.dumps([[i.line, i.module] for i in ordered], ensure_ascii=False, separators=(",", ":"))


def unpack_imports(path: str, packed: str) -> list[Import]:
    """The imports `pack_imports` packed for the file at `path`.

    Raises:
        ValueError: the text is not what `pack_imports` wrote (a damaged index).
    """
    try:
        items = json.loads(packed)
        return [Import(path, str(module), int(line)) for line, module in items]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a file's packed imports are damaged ({exc})") from None


def base_id(sym: Symbol) -> str:
    """The id the schema derives for a symbol before its repeat number."""
    return f"{sym.path}::{sym.qualname}#{sym.kind}"


def dup_of(sym: Symbol) -> int | None:
    """The repeat number the extractor put after `~` in a symbol's id (None for the first).

    Raises:
        ValueError: the id is not the one the schema derives (it could not be stored).
    """
    base = base_id(sym)
    if sym.id == base:
        return None
    tail = sym.id[len(base) + 1 :]
    if sym.id.startswith(base + "~") and tail.isdigit() and tail[0] != "0" and int(tail) > 1:
        return int(tail)
    raise ValueError(f"symbol id {sym.id!r} is not derived from its path, name and kind")


def id_key(sym_id: str) -> int:
    """A 32-bit digest of an id: `symbols_by_key` finds an id's row by it (the id is compared too)."""
    return int.from_bytes(hashlib.blake2b(sym_id.encode("utf-8", "surrogatepass"), digest_size=4).digest(),
                          "big", signed=True)


def id_lookups(ids: Sequence[str]) -> Iterator[tuple[str, list[Any]]]:
    """WHERE clauses (with their parameters) that find these ids among the symbols.

    The id column is derived, so it has no index of its own: each clause finds the rows by
    the ids' digests (`id_key`, indexed), then compares the ids themselves."""
    unique = list(dict.fromkeys(ids))
    step = MAX_PARAMS // 2
    for start in range(0, len(unique), step):
        chunk = unique[start : start + step]
        marks = ",".join("?" * len(chunk))
        yield f"idkey IN ({marks}) AND id IN ({marks})", [*map(id_key, chunk), *chunk]
