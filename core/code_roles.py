"""Which code is test, example or docs code: a path's and a scope's role, read from its name.

The ranker puts such code below the library's own, and the hybrid search does not embed
it; both ask here, so they cannot disagree (and neither imports the other for it).
"""

from __future__ import annotations

import re

#: Path segments and file names that mark tests, examples, docs, benchmarks, fuzz targets
#: (`cargo fuzz` puts them in `fuzz/`), mocks, and built bundles (`dist/`: a committed
#: copy of the whole library, under names like `mergeConfig$1`).
_AUX_SEGMENT = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|fixtures?|examples?|samples?|demos?|"
    r"docs?|docs_src|documentation|bench|benches|benchmarks?|tutorials?|scripts|"
    r"e2e|fuzz|mocks|__mocks__|playground|dist)(/|$)"
)
_AUX_FILE = re.compile(
    r"(^|/)(test_[^/]*|tests\.\w+|[^/]*_(test|spec)\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py|"
    r"[^/]*(Test|Tests|[a-z]IT|Benchmark|Benchmarks)\.(java|kt|kts|scala|groovy|cs|swift))$"
)
#: Scopes whose contents are tests: `mod tests`, `mod test` (see `in_test_module`).
_TEST_MODULES = frozenset({"test", "tests"})


def is_auxiliary(path: str) -> bool:
    """True for test, example, docs and benchmark files, which rank below library code: by
    folder (`tests/`, `examples/`) or by name (`test_x.py`, `x_test.go`, `x.spec.ts`,
    `x_spec.rb`, Rust's and Django's `tests.rs`/`tests.py`, `FooTest.java`, `FooIT.java`,
    `ParseBenchmark.java`)."""
    return bool(_AUX_SEGMENT.search(path) or _AUX_FILE.search(path))


def in_test_module(qualname: str, kind: str) -> bool:
    """True for an inline test module (Rust's `#[cfg(test)] mod tests` inside a library file)
    and everything in it: test code wherever its file is. Only a lower-case `test`/`tests`
    scope counts, so Elixir's `Plug.Test` helpers and a method named `test` stay library code."""
    if "test" not in qualname:
        return False
    scope = qualname.split(".")
    return not _TEST_MODULES.isdisjoint(scope if kind == "module" else scope[:-1])
