"""One ranking settings object keys every derived cache (issue 28, point 5).

An index (stored terms), its ranker (`rank.pickle`) and its vectors built with a lever
off must never answer a later default search; an unknown lever name is an error.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from symscope.core import levers, semantic
from symscope.core.errors import StaleSettingsError
from symscope.core.index import Index
from symscope.core.settings import DEFAULTS, INDEX_LEVERS, RankSettings, UnknownLeverError, current
from tests.test_cli import run as run_cli

FIXTURES = Path(__file__).resolve().parent
SAMPLE = FIXTURES / "fixtures" / "sample_repo"
GIN_MINI = FIXTURES / "tui" / "fixtures" / "gin_mini"
QUERIES = ["bind json body", "abort with error", "set header", "write response status", "get param",
           "static file", "handle request context", "parse the query string"]

#: Build an index (and its persisted ranker) in a process of its own, then print its answers.
_BUILD = """
import json, sys
from symscope.core.index import Index
ix = Index.open(sys.argv[1], sys.argv[2])
ix.update(processes=1)
print(json.dumps({q: [h.symbol.id for h in ix.search(q, limit=5)] for q in json.loads(sys.argv[3])}))
"""


def _build_in_process(repo: Path, index_dir: Path, off: str) -> dict[str, list[str]]:
    env = {**os.environ, "SYMSCOPE_SEARCH_OFF": off}
    out = subprocess.run([sys.executable, "-c", _BUILD, str(repo), str(index_dir), json.dumps(QUERIES)],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    answers: dict[str, list[str]] = json.loads(out.stdout)
    return answers


def _answers(ix: Index) -> dict[str, list[str]]:
    return {q: [h.symbol.id for h in ix.search(q, limit=5)] for q in QUERIES}


@pytest.fixture
def default_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYMSCOPE_SEARCH_OFF", raising=False)
    monkeypatch.setattr(levers, "OFF", frozenset())
    monkeypatch.setattr(levers, "UNKNOWN", frozenset())


@pytest.mark.usefixtures("default_env")
@pytest.mark.parametrize(("repo", "lever"), [
    (GIN_MINI, "members"),  # changes the stored terms
    (GIN_MINI, "callees"),
    (SAMPLE, "literals"),
    (SAMPLE, "public"),  # changes only the persisted ranker
])
def test_a_lever_off_at_build_time_never_changes_later_default_answers(
    repo: Path, lever: str, tmp_path: Path
) -> None:
    with Index.open(repo, tmp_path / "control") as control:
        control.update(processes=1)
        expected = _answers(control)
    built_off = _build_in_process(repo, tmp_path / "off", lever)
    assert built_off != expected  # the lever matters here, so the check below can fail
    with Index.open(repo, tmp_path / "off") as ix:
        if lever in INDEX_LEVERS:  # its stored terms are refused, never reused
            assert not ix.is_built
            with pytest.raises(StaleSettingsError, match="other search settings"):
                ix.search("header")
            report = ix.update(processes=1)
            assert report.parsed == report.files  # every file parsed again
        assert ix.is_built
        assert _answers(ix) == expected


@pytest.mark.usefixtures("default_env")
def test_the_cli_answers_by_default_after_a_lever_off_build(tmp_path: Path) -> None:
    idx = tmp_path / "off"
    assert _build_in_process(GIN_MINI, idx, "members")["set header"]
    with Index.open(GIN_MINI, tmp_path / "control") as control:
        control.update(processes=1)
        expected = [h.symbol.id for h in control.search("set header", limit=5)]
    out = run_cli("search", "set header", "--repo", str(GIN_MINI), "--index-dir", str(idx), "--json",
                  "--limit", "5")
    assert out.returncode == 0, out.stderr
    assert [h["id"] for h in json.loads(out.stdout)["results"]] == expected


def _changed(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "-other"
    if isinstance(value, tuple):
        return (*value[:-1], value[-1] + 1)
    assert isinstance(value, frozenset)
    return value | {"fold"}


def test_the_fingerprint_changes_with_every_field() -> None:
    base = DEFAULTS.fingerprint()
    assert len(base) == 16
    seen = {base}
    for f in dataclasses.fields(RankSettings):
        other = dataclasses.replace(DEFAULTS, **{f.name: _changed(getattr(DEFAULTS, f.name))})
        assert other.fingerprint() not in seen, f.name
        seen.add(other.fingerprint())
        for scope in ("index", "vectors"):  # a field counts where it changes that cache's content
            if scope in f.metadata.get("scopes", ()):
                assert other.fingerprint(scope) != DEFAULTS.fingerprint(scope), (f.name, scope)


def test_only_term_levers_key_the_stored_terms_and_none_the_vectors() -> None:
    for lever in sorted(levers.LEVERS):
        off = RankSettings(off=frozenset({lever}))
        assert (off.fingerprint("index") != DEFAULTS.fingerprint("index")) == (lever in INDEX_LEVERS)
        assert off.fingerprint("vectors") == DEFAULTS.fingerprint("vectors")
    assert RankSettings(k1=2.0).fingerprint("index") == DEFAULTS.fingerprint("index")


def test_the_fingerprint_is_stable_across_processes() -> None:
    code = ("from symscope.core.settings import RankSettings as R; "
            "print(R().fingerprint(), R.from_off('fold,priors,callees').fingerprint(), "
            "R.from_off('callees,fold').fingerprint('index'))")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout.split()
            for seed in ("1", "2")]  # another set order in each
    here = [DEFAULTS.fingerprint(), RankSettings.from_off("priors, callees ,fold").fingerprint(),
            RankSettings(off=frozenset({"callees"})).fingerprint("index")]
    assert outs[0] == outs[1] == here


def test_an_unknown_lever_is_an_error_in_python() -> None:
    with pytest.raises(UnknownLeverError) as caught:
        RankSettings(off=frozenset({"fold", "prior"}))
    message = str(caught.value)
    assert "'prior'" in message and "valid levers:" in message and "priors" in message
    assert "\n" not in message and "'fold'" not in message
    with pytest.raises(UnknownLeverError, match="'nope'"):
        RankSettings.from_off("fold, nope")


def test_an_unknown_lever_in_the_environment_stops_the_api(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(levers, "UNKNOWN", frozenset({"prior"}))
    with pytest.raises(UnknownLeverError, match=r"unknown search lever 'prior' in SYMSCOPE_SEARCH_OFF"):
        current()
    with pytest.raises(UnknownLeverError, match="valid levers: apifirst, auxverbs"):
        Index.open(SAMPLE, tmp_path / "idx")
    assert not (tmp_path / "idx").exists()  # refused before anything is touched


@pytest.mark.parametrize("command", [("search", "header"), ("index",)])
def test_an_unknown_lever_is_one_line_from_the_cli(
    command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SYMSCOPE_SEARCH_OFF", "fold,prior")
    where = ("--repo", str(GIN_MINI)) if command[0] == "search" else (str(GIN_MINI),)
    out = run_cli(*command, *where, "--index-dir", str(tmp_path / "idx"))
    assert out.returncode != 0 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert lines[0].startswith("symscope: error: unknown search lever 'prior'")
    assert "valid levers:" in lines[0] and "priors" in lines[0]


def test_vectors_made_under_other_settings_are_neither_used_nor_reused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / semantic.VECTORS_FILE
    vecs = np.ones((1, 4), dtype=np.float16)
    semantic._save(path, ["a.py::f#function"], ["h1"], vecs)
    loaded = semantic._load(path)
    assert loaded is not None and loaded[0].tolist() == ["a.py::f#function"]
    monkeypatch.setattr(semantic, "current", lambda: RankSettings(doc_chars=DEFAULTS.doc_chars + 1))
    assert semantic._load(path) is None
    assert semantic.DenseIndex(path).ids == []  # vectors made under other settings are not read


def test_index_levers_are_exactly_those_the_parser_processes_read() -> None:
    """A lever read while terms are made, but missing from INDEX_LEVERS, would let an index
    built with it off answer default searches."""
    import re

    from symscope.core import ingest

    source = Path(ingest.__file__).read_text(encoding="utf-8")
    assert set(re.findall(r'levers\.on\("(\w+)"\)', source)) == INDEX_LEVERS
