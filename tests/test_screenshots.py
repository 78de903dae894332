"""`python -m screenshots.make`: the pinned-corpus check, and the scenes run on the real app.

The whole run takes over 20 s (Pilot types every key), so the scenes are run one at a
time through `shoot`: gin's bundle scene on the small Go router with gin's names, and
the help screen on the sample repo.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from screenshots import corpus
from screenshots.make import SAMPLE_REPO, main, shoot
from screenshots.scenes import gin_bundle, help_scene
from symscope.core.index import Index
from symscope.tui.actions import spec

ROOT = Path(__file__).resolve().parents[1]
GIN_MINI = ROOT / "tests" / "tui" / "fixtures" / "gin_mini"


def _one_line_refusal(err: str, folder: Path) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert "Traceback" not in line
    assert f"{folder} is not gin-gonic/gin at {corpus.COMMIT[:12]}" in line
    assert f"archive {corpus.COMMIT} | tar -x -C {folder}" in line  # how to get it, no download
    assert "--sample" in line
    return line


def test_a_different_repo_is_refused_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "gin"
    shutil.copytree(GIN_MINI, other)  # gin's names, but not gin at the pinned commit
    (other / "go.mod").write_text("module github.com/gin-gonic/gin\n\ngo 1.21\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--repo", str(other), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    line = _one_line_refusal(captured.err, other)
    assert "(go.mod differs" in line
    assert not out.exists()  # nothing written, nothing indexed


def test_one_changed_file_is_enough_to_refuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "gin"
    folder.mkdir()
    for rel in corpus.FINGERPRINT:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("package gin\n", encoding="utf-8")
    assert corpus.mismatch(folder) == f"go.mod differs from gin-gonic/gin at {corpus.COMMIT[:12]}"
    (folder / "version.go").unlink()
    assert main(["--repo", str(folder), "--out", str(tmp_path / "out")]) == 2
    assert "(go.mod differs" in _one_line_refusal(capsys.readouterr().err, folder)
    assert not (tmp_path / "out").exists()


def test_a_missing_folder_is_refused_from_the_command_line(tmp_path: Path) -> None:
    missing = tmp_path / "corpora" / "gin"
    proc = subprocess.run([sys.executable, "-m", "screenshots.make", "--repo", str(missing)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "(not found)" in _one_line_refusal(proc.stderr, missing)


def test_the_default_repo_is_the_benchmarks_corpus_folder() -> None:
    from screenshots.make import DEFAULT_REPO

    assert DEFAULT_REPO == ROOT / "benchmarks" / "corpora" / "gin"
    assert corpus.COMMIT == "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9"


@pytest.fixture
def gin_mini_index(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "gin"
    shutil.copytree(GIN_MINI, repo)
    index_dir = tmp_path / "index"
    with Index.open(repo, index_dir=index_dir) as index:
        index.update(processes=1)
    return repo, index_dir


async def test_gins_bundle_scene_pictures_real_symbols_and_prints_their_savings(
        gin_mini_index: tuple[Path, Path], tmp_path: Path) -> None:
    repo, index_dir = gin_mini_index
    svg, shown = await shoot(repo, index_dir, "bundle", (160, 42), gin_bundle, tmp_path)
    text = svg.read_text(encoding="utf-8")
    assert svg == tmp_path / "bundle.svg" and text.startswith("<svg")
    for name in ("Context.BindJSON", "Context.ShouldBindWith", "Savings"):
        assert name in text.replace("&#160;", " ")
    assert "shortener" not in text  # nothing of the sample repo
    with Index.open(repo, index_dir=index_dir) as index:
        repo_tokens = index.repo_tokens()
    assert shown[0].startswith("symbol Context.ShouldBindWith: ")
    assert len(shown) == 2 and shown[1].startswith("bundle ") and "tok (the copied text; code only " in shown[1]
    # The figure printed is the copied text's exact count, the one the picture's counters show.
    copied = shown[1].split(": ", 1)[1].split(" tok", 1)[0]
    assert f"{copied} tok" in text.replace("&#160;", " ")
    # BindJSON, ShouldBindWith and at least one dependency that `D` added.
    assert int(shown[1].split()[1]) >= 3
    assert f"vs repo {repo_tokens:,} tok" in shown[1]

async def test_help_scene_on_the_sample_repo(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with Index.open(SAMPLE_REPO, index_dir=index_dir) as index:
        index.update(processes=1)
    svg, shown = await shoot(SAMPLE_REPO, index_dir, "help", (100, 44), help_scene, tmp_path)
    text = svg.read_text(encoding="utf-8").replace("&#160;", " ")
    for action in ("app.toggle_symbol", "app.add_with_deps", "app.copy"):
        assert (spec(action).help or spec(action).description) in text
    assert shown == []  # nothing picked, nothing bundled: no savings to quote
