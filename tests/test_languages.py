"""Every supported language extracts exactly its fixture's expected symbols.

Each language is data: `core/queries/<lang>-tags.scm` plus
`tests/fixtures/languages/<lang>/` holding one sample file and `expected.json`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symscope.core.languages import all_languages, language_for_extension
from symscope.core.parse import check_query, extract

FIXTURES = Path(__file__).parent / "fixtures" / "languages"
REQUIRED = {
    "python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
    "csharp", "ruby", "php", "kotlin", "swift", "scala", "bash",
}


def _sample(lang: str) -> Path:
    samples = [p for p in (FIXTURES / lang).iterdir() if p.name.startswith("sample")]
    assert len(samples) == 1, f"{lang}: expected exactly one sample file"
    return samples[0]


def test_required_languages_are_registered() -> None:
    assert set(all_languages()) >= REQUIRED


@pytest.mark.parametrize("lang", sorted(all_languages()))
def test_every_language_has_query_and_fixture(lang: str) -> None:
    check_query(all_languages()[lang])
    assert (FIXTURES / lang / "expected.json").is_file()
    sample = _sample(lang)
    detected = language_for_extension(sample.name)
    assert detected is not None and detected.name == lang


@pytest.mark.parametrize("lang", sorted(all_languages()))
def test_fixture_symbols(lang: str) -> None:
    sample = _sample(lang)
    expected = json.loads((FIXTURES / lang / "expected.json").read_text())
    result = extract(sample.name, sample.read_bytes(), all_languages()[lang])
    got = {(s.qualname, s.kind): (s.start_line, s.end_line) for s in result.symbols}
    want = {(e["qualname"], e["kind"]): (e["start_line"], e["end_line"]) for e in expected["symbols"]}
    assert set(got) == set(want), (
        f"missing: {sorted(set(want) - set(got))}\nunexpected: {sorted(set(got) - set(want))}"
    )
    assert got == want
    by_qual = {s.qualname: s for s in result.symbols}
    for qual, doc in expected.get("docstrings", {}).items():
        assert by_qual[qual].docstring == doc, qual
    for qual, sig in expected.get("signatures", {}).items():
        assert by_qual[qual].signature == sig, qual
    if "imports" in expected:
        assert [i.module for i in result.imports] == expected["imports"]
    assert not result.has_errors, f"{sample.name} should parse without syntax errors"


@pytest.mark.parametrize("lang", sorted(all_languages()))
def test_ids_are_unique_and_parents_exist(lang: str) -> None:
    sample = _sample(lang)
    result = extract(sample.name, sample.read_bytes(), all_languages()[lang])
    ids = [s.id for s in result.symbols]
    assert len(ids) == len(set(ids))
    for s in result.symbols:
        assert s.parent_id is None or s.parent_id in ids
        assert s.tokens > 0
        assert 1 <= s.start_line <= s.end_line
        assert "\n" not in s.signature and len(s.signature) <= 160
