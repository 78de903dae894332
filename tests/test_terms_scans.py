"""The body scans for numbers and called names find exactly what their plain definitions find.

`core/terms.py` writes them so they start at a digit / a word start (faster); the reference
here is the straightforward lookbehind form, run over tricky bytes and this repo's own source.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symscope.core import terms

_NUMBER_REF = re.compile(rb"(?<![\w.])[1-9][0-9]{2,5}(?![\w.])")
_CALLEE_REF = re.compile(rb"(?<![A-Za-z0-9_])[0-9]*+([A-Za-z_][A-Za-z0-9_]*+)[ \t]*+\(")

TRICKY = [
    b"204 x204 .204 204. 1.500 a_300 _300 (8080) 16384,65536 1234567 099 100",
    b"f(1) 9go(2) x1y(3) obj.bar (4) a\t(5) __init__() 3d() 12(",
    b"\xff404\xfe baz\xc3\xa9(1) \xe2\x80\x99500 end",
    b"123",
    b"",
]


@pytest.mark.parametrize("data", TRICKY)
def test_scans_match_reference_on_tricky_bytes(data: bytes) -> None:
    assert terms._NUMBER.findall(data) == _NUMBER_REF.findall(data)
    assert terms._CALLEE.findall(data) == _CALLEE_REF.findall(data)


def test_scans_match_reference_on_real_source() -> None:
    root = Path(terms.__file__).resolve().parent
    files = sorted(root.rglob("*.py"))
    assert len(files) > 20
    found = 0
    for path in files:
        data = path.read_bytes()
        assert terms._NUMBER.findall(data) == _NUMBER_REF.findall(data), path
        callees = terms._CALLEE.findall(data)
        assert callees == _CALLEE_REF.findall(data), path
        found += len(callees)
    assert found > 1000
