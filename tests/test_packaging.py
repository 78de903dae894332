"""Packaging guards: every subpackage and data folder is declared, and core stays UI-free."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_subpackage_is_listed() -> None:
    config = _pyproject()["tool"]["setuptools"]
    mapping = config["package-dir"]
    declared = set(config["packages"])
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found == declared


def test_every_data_file_is_covered() -> None:
    config = _pyproject()["tool"]["setuptools"]
    data = config["package-data"]
    mapping = config["package-dir"]
    for name, folder in mapping.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_dir() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
                continue
            pkg = ".".join([name, *path.parent.relative_to(ROOT / folder).parts])
            patterns = data.get(pkg, [])
            assert any(path.match(p) for p in patterns), f"{path} is not package data of {pkg}"


def test_every_language_has_a_query_file() -> None:
    from symscope.core.languages import all_languages

    used = set()
    for name, spec in all_languages().items():
        assert (ROOT / "core" / "queries" / f"{spec.query}-tags.scm").is_file(), name
        used.add(f"{spec.query}-tags.scm")
    assert {p.name for p in (ROOT / "core" / "queries").glob("*.scm")} == used, "an unused query file"


def test_core_never_imports_textual_or_rich() -> None:
    code = (
        "import sys, symscope.core, symscope.cli.main, symscope.core.index, symscope.core.bundle\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_parser_processes_do_not_load_the_search_stack() -> None:
    """Spawned parser processes import the console script and the workers module:
    neither may pull in numpy (the index and ranker) or the parser before it is needed."""
    code = (
        "import sys, symscope.cli.main, symscope.core.workers\n"
        "heavy = sorted(m for m in ('numpy', 'symscope.core.index', 'tree_sitter', 'tiktoken') if m in sys.modules)\n"
        "from symscope.core import Index\n"
        "print(','.join(heavy) or 'none', Index.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["none", "Index"]


def test_installed_names_are_namespaced() -> None:
    code = (
        "import importlib.util, sys\n"
        "sys.path = [p for p in sys.path if p not in ('', '.')]\n"
        "print(*(importlib.util.find_spec(n) is None for n in ('core', 'tui', 'cli', 'mcp_server')),\n"
        "      *(importlib.util.find_spec(f'symscope.{n}') is not None for n in ('core', 'tui', 'cli', 'mcp_server')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.split() == ["True"] * 8


def test_token_encoding_is_offline(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import socket\n"
        "def deny(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = deny\n"
        "socket.create_connection = deny\n"
        "from symscope.core.tokens import count_tokens\n"
        "print(count_tokens('hello world'))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "TIKTOKEN_CACHE_DIR": "/nonexistent-cache", "HOME": "/nonexistent"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"


def test_no_machine_paths_in_the_project() -> None:
    """Corpus and cache locations come from arguments or environment variables, never this machine."""
    root = Path(__file__).resolve().parents[1]
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
    pattern = re.compile(r"(?<![\w.])/(work|home|root|Users)/\w")
    hits = []
    for rel in tracked.stdout.splitlines():
        path = root / rel
        if rel.startswith("tests/fixtures/") or not path.is_file() or path.suffix in (".svg", ".png"):
            continue
        text = path.read_text("utf-8", "replace")
        hits += [f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1)
                 if pattern.search(line) and "test_no_machine_paths" not in line]
    assert hits == []
