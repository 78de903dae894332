"""Fixtures for the TUI tests: a real copy of the sample repo, indexed for real."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import GIN_MINI, SAMPLE_REPO, RecordingApp

from symscope.core.index import Index


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of tests/fixtures/sample_repo (tests may edit it)."""
    dest = tmp_path / "sample_repo"
    shutil.copytree(SAMPLE_REPO, dest)
    return dest


@pytest.fixture
def index(repo: Path, tmp_path: Path) -> Iterator[Index]:
    ix = Index.open(repo, index_dir=tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


@pytest.fixture
def app(index: Index, tmp_path: Path) -> RecordingApp:
    return RecordingApp(index, save_dir=tmp_path / "out")


@pytest.fixture
def gin_index(tmp_path: Path) -> Iterator[Index]:
    """A small Go router (gin's names: Context.BindJSON, Engine.ServeHTTP, RouterGroup.Use), indexed."""
    dest = tmp_path / "gin_mini"
    shutil.copytree(GIN_MINI, dest)
    ix = Index.open(dest, index_dir=tmp_path / "gin-idx")
    ix.update(processes=1)
    yield ix
    ix.close()


@pytest.fixture
def gin_app(gin_index: Index, tmp_path: Path) -> RecordingApp:
    return RecordingApp(gin_index, save_dir=tmp_path / "out")
