"""The real-code language samples are well formed, and the script scores them right.

Every `benchmarks/languages/<name>.json` is checked for shape here; the scoring runs
on a small synthetic Python corpus built in tmp_path, so no real repository is needed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `pytest` run without `python -m` does not put the repo on the path
    sys.path.insert(0, str(ROOT))

from benchmarks import languages as bench  # noqa: E402
from symscope.core.languages import all_languages  # noqa: E402
from symscope.core.models import SYMBOL_KINDS  # noqa: E402

SAMPLE_FILES = sorted(bench.SAMPLES_DIR.glob("*.json"))
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_there_are_samples() -> None:
    assert SAMPLE_FILES, "benchmarks/languages/ holds no sample"


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_sample_file_shape(path: Path) -> None:
    sample = bench.load_sample(path)
    assert sample.language == path.stem and sample.language in all_languages()
    assert len(sample.commit) == 40 and int(sample.commit, 16) >= 0
    assert len(sample.sample) >= bench.MIN_SAMPLE
    assert {e.kind for e in sample.sample} <= set(SYMBOL_KINDS)
    assert all(1 <= e.start_line <= e.end_line for e in sample.sample)
    assert len(sample.paths) >= 2
    spec = all_languages()[sample.language]
    for p in sample.paths:  # every sampled file is one the language's extensions claim
        assert any(p.lower().endswith(ext) for ext in spec.extensions), p


# -- a synthetic corpus -----------------------------------------------------------

ROUTES_PY = '''\
"""Routes."""


class Router:
    """Maps paths to handlers."""

    def add(self, path, handler):
        self.routes[path] = handler

    def handle(self, request):
        return self.routes[request.path](request)


def route(path):
    return path


def helper_one():
    return 1


def helper_two():
    return 2
'''

MODELS_PY = "".join(f"def model_{i}(x):\n    return x + {i}\n\n\n" for i in range(20))


def _corpus(tmp_path: Path) -> Path:
    corpora = tmp_path / "corpora"
    repo = corpora / "python"
    (repo / "app").mkdir(parents=True)
    (repo / "app" / "routes.py").write_text(ROUTES_PY)
    (repo / "app" / "models.py").write_text(MODELS_PY)
    (repo / "app" / "broken.py").write_text("def broken(:\n    pass\n")
    (repo / "README.md").write_text("# not code\n")
    return corpora


def _raw_sample() -> dict[str, Any]:
    entries = [
        {"path": "app/routes.py", "qualname": "Router", "kind": "class", "start_line": 4, "end_line": 11},
        {"path": "app/routes.py", "qualname": "Router.add", "kind": "method", "start_line": 7, "end_line": 8},
        {"path": "app/routes.py", "qualname": "Router.handle", "kind": "method", "start_line": 10, "end_line": 11},
        {"path": "app/routes.py", "qualname": "route", "kind": "function", "start_line": 14, "end_line": 15},
        # Wrong on purpose: the range really ends on line 19 (a miss with a near symbol).
        {"path": "app/routes.py", "qualname": "helper_one", "kind": "function", "start_line": 18, "end_line": 20},
        # A file that does not exist in the corpus.
        {"path": "app/gone.py", "qualname": "gone", "kind": "function", "start_line": 1, "end_line": 2},
    ]
    entries += [
        {"path": "app/models.py", "qualname": f"model_{i}", "kind": "function",
         "start_line": 1 + 4 * i, "end_line": 2 + 4 * i}
        for i in range(18)
    ]
    return {
        "language": "python",
        "repo": "example/tiny",
        "commit": COMMIT,
        "sample": entries,
        # helper_two is judged not to be a definition (to test the false-positive count).
        "not_symbols": [{"path": "app/routes.py", "name": "helper_two", "line": 22},
                        {"path": "app/routes.py", "name": "not_extracted", "line": 3}],
    }


def test_scoring_on_a_synthetic_corpus(tmp_path: Path) -> None:
    sample = bench.parse_sample(_raw_sample())
    result = bench.run_language(sample, _corpus(tmp_path), processes=1)
    assert not result.skipped
    assert result.files == 3  # routes, models, broken; README is not python
    assert result.symbols == 6 + 20 + 1
    assert result.error_files == ["app/broken.py"]
    s = result.score
    assert s is not None
    assert (s.matched, s.sample_size) == (22, 24)
    assert s.recall == pytest.approx(22 / 24)
    missed = {m.expected.qualname: m for m in s.misses}
    assert set(missed) == {"helper_one", "gone"}
    assert [(n.start_line, n.end_line) for n in missed["helper_one"].near] == [(18, 19)]
    assert missed["helper_one"].file_indexed and not missed["gone"].file_indexed
    # Precision counts every symbol of the sampled files that exist: routes (6) + models (20).
    assert s.checked == 26
    assert [f.qualname for f in s.false_positives] == ["helper_two"]
    assert s.precision == pytest.approx(25 / 26)
    text = bench.render_text([result])
    assert "app/routes.py:18-20 helper_one (function)" in text and "got app/routes.py:18-19" in text
    assert "[file not indexed]" in text and "false positives" in text and "app/broken.py" in text
    assert "91.7% (22/24)" in bench.render_markdown([result])


def test_not_symbols_hit_the_innermost_symbol() -> None:
    raw = _raw_sample()
    raw["not_symbols"] = [{"path": "app/routes.py", "name": "Router.add", "line": 8}]
    sample = bench.parse_sample(raw)
    from symscope.core.languages import language_by_name
    from symscope.core.parse import extract

    spec = language_by_name("python")
    assert spec is not None
    syms = extract("app/routes.py", ROUTES_PY.encode(), spec).symbols
    s = bench.score(sample, {"app/routes.py": syms})
    assert [f.qualname for f in s.false_positives] == ["Router.add"]
    assert s.checked == 6  # only files present in the mapping are checked
    assert bench.score(sample, {}).precision is None


def test_missing_corpus_is_skipped_with_the_fetch_command(tmp_path: Path) -> None:
    sample = bench.parse_sample(_raw_sample())
    result = bench.run_language(sample, tmp_path / "nowhere")
    assert result.score is None and result.files == 0
    assert "example/tiny" in result.skipped and COMMIT in result.skipped
    assert "skipped" in bench.render_markdown([result])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"language": "klingon"}, "not in core/languages.json"),
        ({"commit": "abc123"}, "40 lowercase hex"),
        ({"commit": COMMIT.upper()}, "40 lowercase hex"),
        ({"repo": "https://github.com/a/b"}, "owner/name"),
        ({"sample": _raw_sample()["sample"][:19]}, "at least 20"),
        ({"not_symbols": [{"path": "a.py", "name": "x", "line": 0}]}, "line 0"),
    ],
)
def test_bad_sample_files_are_rejected(change: dict[str, Any], message: str) -> None:
    raw = _raw_sample() | change
    with pytest.raises(bench.SampleError, match=message):
        bench.parse_sample(raw)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"kind": "variable"}, "kind 'variable'"),
        ({"start_line": 5, "end_line": 4}, "start_line <= end_line"),
        ({"start_line": 0}, "start_line"),
        ({"path": "/abs/a.py"}, "repo-relative"),
        ({"path": "../a.py"}, "repo-relative"),
        ({"qualname": ""}, "qualname"),
    ],
)
def test_bad_sample_entries_are_rejected(entry: dict[str, Any], message: str) -> None:
    raw = _raw_sample()
    raw["sample"][0] = raw["sample"][0] | entry
    with pytest.raises(bench.SampleError, match=message):
        bench.parse_sample(raw)


def test_write_section_keeps_the_rest_and_merges_rows(tmp_path: Path) -> None:
    sample = bench.parse_sample(_raw_sample())
    ran = bench.run_language(sample, _corpus(tmp_path), processes=1)
    doc = "# Results\n\n## 1. Speed\n\nfast\n"
    once = bench.write_section(doc, [ran], "note")
    assert once.startswith(doc) and "## Languages on real code\n\nnote\n\n| language |" in once
    other = "| go | `a/b` | 0123 | 1 | 2 | 0 | 0.1 | 100.0% (20/20) | 100.0% (9/9) |"
    with_go = once.replace("| python |", other + "\n| python |")
    later = with_go + "\n## 9. Later\n\nkept\n"
    skipped = bench.run_language(sample, tmp_path / "nowhere")
    again = bench.write_section(later, [skipped], "note")
    assert again.startswith(doc) and again.endswith("\n## 9. Later\n\nkept\n")
    assert again.count("## Languages on real code") == 1
    assert other in again and "91.7% (22/24)" in again  # a skipped run keeps the old row
    assert bench.write_section(again, [ran], "note") == again


def test_main_prints_and_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "python.json").write_text(json.dumps(_raw_sample()))
    results_md = tmp_path / "results.md"
    results_md.write_text("# symscope benchmarks\n\n## Run\n\nkept\n")
    monkeypatch.setattr(bench, "SAMPLES_DIR", samples)
    monkeypatch.setattr(bench, "RESULTS_MD", results_md)
    corpora = _corpus(tmp_path)
    assert bench.main([str(corpora), "--only", "python", "--markdown", "--write", "--processes", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| language |") and "| python |" in out
    written = results_md.read_text()
    assert written.startswith("# symscope benchmarks\n\n## Run\n\nkept\n\n## Languages on real code")
    assert bench.main([str(corpora), "--only", "cobol"]) == 2
    assert "no sample file for cobol" in capsys.readouterr().err
