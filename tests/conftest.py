"""Shared fixtures: small real repositories written to tmp dirs, indexed for real."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from symscope.core.index import Index

WriteRepo = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never write indexes into the real user cache during tests."""
    monkeypatch.setenv("SYMSCOPE_INDEX_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def write_repo(tmp_path: Path) -> WriteRepo:
    """Write {relative path: text or bytes} under tmp_path/repo and return the repo root."""

    def write(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "repo"
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        root.mkdir(exist_ok=True)
        return root

    return write


SAMPLE_FILES: dict[str, str | bytes] = {
    "lib/router.py": '''
        """Routing."""

        MAX_ROUTES = 100


        class Router:
            """Maps paths to handlers."""

            def add_route(self, path, handler):
                """Register a handler for a path."""
                self.routes[path] = handler

            def dispatch(self, request):
                return self.routes[request.path](request)
        ''',
    "lib/errors.py": '''
        class HttpError(Exception):
            """An error with an HTTP status code."""

            def __init__(self, status):
                self.status = status


        def handle_error(err, response):
            """Turn an exception into an error response."""
            response.status = getattr(err, "status", 500)
            return response
        ''',
    "web/app.js": '''
        var app = exports = module.exports = {};

        /**
         * Use the given middleware.
         */
        app.use = function use(fn) {
          this.stack.push(fn);
          return this;
        };
        ''',
    "tests/test_router.py": '''
        def test_add_route():
            router = Router()
            router.add_route("/", None)
        ''',
    "README.md": "# sample\n",
}


@pytest.fixture
def sample_repo(write_repo: WriteRepo) -> Path:
    return write_repo(SAMPLE_FILES)


@pytest.fixture
def index(sample_repo: Path, tmp_path: Path) -> Iterator[Index]:
    ix = Index.open(sample_repo, tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()
