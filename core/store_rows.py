"""How the store packs what it keeps per file, so the index stays smaller than the source.

A symbol's term bag (hundreds of words, its name and its file's path repeated in every
one) is written with its neighbours: the bags of a file's symbols, in their order, one per
line, compressed together (zlib, in the standard library) in chunks of a few kilobytes.
A file's imports are one JSON list. A symbol's id is derived from its path, qualified name and kind (`dup` numbers a repeat),
so it is a generated column rather than stored text; a lookup by id goes through a 32-bit
digest of it (`id_key`), whose index is an eighth of the size of one on the ids' text.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from symscope.core.models import Import, Symbol

#: zlib's level for bags: on the 10k-file monorepo 6 (its default) packs 32 MB to 4.37 MB in
#: 0.9 s of a cold index, 9 saves 0.01 MB more for 50% more time, 1 gives 5.1 MB.
BAG_LEVEL = 6
#: Bound parameters per statement (SQLite before 3.32 allows 999).
MAX_PARAMS = 900
#: Characters of bags per compressed chunk: 4 KB chunks took the 10k-file monorepo's bags to
#: 6.3 MB (whole files: 5.5 MB, 2 KB chunks: 7.7 MB); a search reading a few hundred symbols'
#: bags then unpacks about 2.4 KB for each instead of 14 KB (whole large files).
CHUNK_CHARS = 4096

Query = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


def pack_bags(bags: Sequence[str]) -> list[tuple[int, bytes]]:
    """One file's term bags, in its symbols' order, as compressed chunks: (first ord, blob).

    A chunk holds consecutive bags up to `CHUNK_CHARS` (a longer bag is a chunk alone), so
    a reader of a few symbols of a large file unpacks a few kilobytes, not the whole file.
    A bag's own line breaks become spaces: every reader splits a bag on whitespace."""
    chunks: list[tuple[int, bytes]] = []
    lines: list[str] = []
    size = first = 0
    for ord_, bag in enumerate(bags):
        line = bag.replace("\r", " ").replace("\n", " ")
        if lines and size + len(line) > CHUNK_CHARS:
            chunks.append((first, _deflate(lines)))
            lines, size, first = [], 0, ord_
        lines.append(line)
        size += len(line) + 1
    if lines:
        chunks.append((first, _deflate(lines)))
    return chunks


def _deflate(lines: list[str]) -> bytes:
    return zlib.compress("\n".join(lines).encode("utf-8", "surrogatepass"), BAG_LEVEL)


def unpack_bags(blob: bytes) -> list[str]:
    """The bags of one chunk `pack_bags` packed, in order.

    Raises:
        ValueError: the blob is not one `pack_bags` wrote (a damaged index).
    """
    try:
        text = zlib.decompress(blob).decode("utf-8", "surrogatepass")
    except (zlib.error, UnicodeDecodeError, TypeError) as exc:
        raise ValueError(f"a packed term bag is damaged ({exc})") from None
    return text.split("\n")


def read_bags(query: Query, cache: BagCache, rows: Sequence[int]) -> dict[int, str]:
    """Each symbol's bag by store row: only the chunks holding them are read and unpacked.

    Raises:
        ValueError: a chunk is damaged.
    """
    out: dict[int, str] = {}
    for start in range(0, len(rows), MAX_PARAMS):
        chunk = list(rows[start : start + MAX_PARAMS])
        located = query("SELECT s.sid, s.ord, f.fid FROM symbols s JOIN files f ON f.path = s.path "
                        f"WHERE s.sid IN ({_marks(chunk)})", chunk)
        fids = sorted({fid for _, _, fid in located})
        starts: dict[int, list[tuple[int, int]]] = {}
        for at in range(0, len(fids), MAX_PARAMS):  # (first ord, rowid) of every chunk: the index only
            part = fids[at : at + MAX_PARAMS]
            for fid, first, rowid in query(
                    f"SELECT fid, first, rowid FROM bags WHERE fid IN ({_marks(part)}) ORDER BY fid, first", part):
                starts.setdefault(fid, []).append((first, rowid))
        where: dict[int, tuple[int, int]] = {}  # symbol row -> (fid, first ord of its chunk)
        wanted: dict[int, tuple[int, int]] = {}  # bags rowid -> (fid, first), not kept unpacked
        for sid, ord_, fid in located:
            own = starts.get(fid)
            if not own:
                continue
            first, rowid = own[max(bisect.bisect_right(own, (ord_, _AFTER)) - 1, 0)]
            where[sid] = (fid, first)
            if cache.get((fid, first)) is None:
                wanted[rowid] = (fid, first)
        unpacked = {key: got for key in set(where.values()) if (got := cache.get(key)) is not None}
        keys = list(wanted)
        for at in range(0, len(keys), MAX_PARAMS):
            part = keys[at : at + MAX_PARAMS]
            for rowid, blob in query(f"SELECT rowid, terms FROM bags WHERE rowid IN ({_marks(part)})", part):
                unpacked[wanted[rowid]] = got = unpack_bags(blob)
                cache.put(wanted[rowid], got)
        for sid, ord_, _ in located:
            if sid in where:
                fid, first = where[sid]
                out[sid] = nth_bag(unpacked.get((fid, first), []), ord_ - first)
    return out


#: Sorts after any rowid, so `bisect` finds the last chunk starting at or before an ord.
_AFTER = 1 << 63


def _marks(items: Sequence[object]) -> str:
    return ",".join("?" * len(items))


class BagCache:
    """Unpacked chunks of bags by (file id, first ord), the most recently used kept, bounded.

    A file id is never reused (`AUTOINCREMENT`) and a file's rows are only ever replaced
    whole, under a new id: an entry can never be stale. A warm search re-reads the bags of
    the candidates it saw before without unpacking them again. Safe to share between threads."""

    #: Characters of bags kept at most (about 4 MB of text).
    LIMIT = 4_000_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[int, int], list[str]] = OrderedDict()
        self._size = 0

    def get(self, key: tuple[int, int]) -> list[str] | None:
        """The unpacked chunk (file id, first ord), if kept."""
        with self._lock:
            got = self._items.get(key)
            if got is not None:
                self._items.move_to_end(key)
            return got

    def put(self, key: tuple[int, int], bags: list[str]) -> None:
        size = sum(map(len, bags))
        with self._lock:
            if key in self._items:
                return
            self._items[key] = bags
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
