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

from hypothesis import given, settings
from hypothesis import strategies as st

from symscope.core import terms
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
