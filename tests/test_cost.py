"""Cost stays linear in hostile input: long identifier-like runs (issue 27, point 4).

Timing is never asserted on its own; where a cost is checked it is the ratio of two
timings taken in the same test, with a wide margin. `python -m benchmarks.hostile_cost`
prints the figures.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symscope.core import repair, terms
from symscope.core.ingest import ingest
from symscope.core.terms import callee_terms

#: The callee pattern before issue 27: it backtracks over a whole run at every letter of it.
_OLD_CALLEE = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")


def _seconds(fn: Callable[[], object]) -> float:
    """Best of three: one slow scheduling hiccup should not decide a ratio."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _words_of(size: int, rng: random.Random) -> bytes:
    """About `size` bytes of short lowercase words: the same letters, split up."""
    out = bytearray()
    while len(out) < size:
        out += bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) + b" "
    return bytes(out[:size])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"Z", b"_", b"7", b"0", b" ", b"\t", b"(", b".", b"\xc3", b"\n", b"x1"]),
                max_size=40))
def test_callee_pattern_finds_what_it_found_before(parts: list[bytes]) -> None:
    body = b"".join(parts)
    assert terms._CALLEE.findall(body) == _OLD_CALLEE.findall(body)


def test_callee_terms_on_a_long_run_cost_what_words_cost() -> None:
    rng = random.Random(27)
    size = 20_000
    run = b"x = '" + bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(size)) + b"'"
    hexrun = b"x = '" + bytes(rng.choice(b"0123456789abcdef") for _ in range(size)) + b"'"
    words = b"x = '" + _words_of(size, rng) + b"'"
    base = _seconds(lambda: callee_terms(words, 60))
    # quadratic before: a 20,000-letter run took several hundred times the words' time
    assert _seconds(lambda: callee_terms(run, 60)) < 5 * base + 0.01
    assert _seconds(lambda: callee_terms(hexrun, 60)) < 5 * base + 0.01
    assert callee_terms(run + b" f (1)", 60) == ["f"]


def test_a_long_line_the_grammar_rejects_is_not_read_once_per_error(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """`a$a$...` in Go is one parse error per `$`: the search for bytes to blank read the whole
    line again for each, a cost quadratic in the line's length."""
    read = [0]
    call_start, balanced_end = repair._call_start, repair._balanced_end

    def counted_start(text: bytes, line_start: int, at: int) -> int:
        read[0] += at - line_start
        return call_start(text, line_start, at)

    def counted_end(text: bytes, start: int, end: int) -> int:
        read[0] += end - start
        return balanced_end(text, start, end)

    monkeypatch.setattr(repair, "_call_start", counted_start)
    monkeypatch.setattr(repair, "_balanced_end", counted_end)
    rng = random.Random(27)
    run = "".join(rng.choice("a$") for _ in range(6_000))
    pad = "".join(f"func h{i}(a int) int {{\n\treturn a + {i}\n}}\n" for i in range(200))
    source = f'package m\nfunc f() string {{ return g("{run}") }}\nfunc g(x string) string {{ y := {run}; _ = y; return x }}\n' + pad
    path = tmp_path / "long.go"
    path.write_text(source)
    result = ingest("long.go", str(path), 0, "go", str(tmp_path))
    assert {"f", "g", "h0", "h199"} <= {s.name for s in result.symbols}
    # a bound whatever the line's length (it was 13.6 million bytes here, 600 million at 40,000)
    assert read[0] < 3 * repair.REPARSE_BUDGET
