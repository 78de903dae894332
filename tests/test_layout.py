"""The layout: one engine (symscope.core) with no front-end code, its faces beside it, no import circles.

The graph is read from the source (AST), so a circle is found even when it only
closes inside a function (a lazy import) and whichever module a test imports first.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Libraries only a face may use: the TUI's textual/rich, the MCP SDK and its stack, argparse.
FRONT_END_LIBS = ("textual", "rich", "mcp", "pydantic", "anyio", "argparse")
FACES = ("symscope.tui", "symscope.cli", "symscope.mcp_server")


def _packages() -> dict[str, Path]:
    """Package name -> folder, as pyproject.toml maps them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {name: ROOT / folder for name, folder in config["package-dir"].items()}


def _modules() -> dict[str, Path]:
    """Every symscope module's dotted name -> its source file."""
    found: dict[str, Path] = {}
    for pkg, folder in _packages().items():
        files = folder.glob("*.py") if pkg == "symscope" else folder.rglob("*.py")
        for path in files:
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([pkg, *parts])] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


def _imports(tree: ast.AST, *, in_functions: bool) -> Iterator[str]:
    """Every module name an import statement names: `from a import b` names `a.b` (the caller
    keeps it when it is a module) and `a` (for `b` defined in `a/__init__.py`).

    Imports under `if TYPE_CHECKING:` never run; with `in_functions` False, lazy
    imports inside functions are left out too.
    """
    for node in ast.iter_child_nodes(tree):
        if _is_type_checking(node):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and not in_functions:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield from (f"{node.module}:{alias.name}" for alias in node.names)
        yield from _imports(node, in_functions=in_functions)


def _graph(*, in_functions: bool) -> dict[str, set[str]]:
    """Module -> the symscope modules it imports. Importing a submodule runs its package's
    `__init__` first, always; that is no edge, but taking a name defined there is."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(ast.parse(path.read_text(), str(path)), in_functions=in_functions):
            module, _, attr = imported.partition(":")
            targets.add(f"{module}.{attr}" if f"{module}.{attr}" in modules or not attr else module)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_the_graph_is_read_correctly() -> None:
    """The reader sees real edges: a lazy import, a TYPE_CHECKING import left out, circles found."""
    lazy = _graph(in_functions=True)
    assert "symscope.mcp_server.server" in lazy["symscope.cli.commands"]  # `symscope mcp`: lazily
    assert "symscope.mcp_server.server" not in _graph(in_functions=False)["symscope.cli.commands"]
    assert "symscope.core.index" in lazy["symscope.core.workspace"]  # `Workspace.open`: lazily
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles_at_module_level() -> None:
    assert _circles(_graph(in_functions=False)) == []


def test_faces_and_the_launcher_are_in_no_circle() -> None:
    """Lazy imports included: no circle touches the CLI, the MCP server or `symscope` itself,
    and none spans two packages (the engine never reaches back into a face)."""
    for circle in _circles(_graph(in_functions=True)):
        packages = {".".join(name.split(".")[:2]) for name in circle}
        assert len(packages) == 1, circle
        assert packages <= {"symscope.core", "symscope.tui"}, circle


#: Circles closed by lazy imports: none. (The last, `searcher` <-> `semantic`, ended when the
#: test/example predicates moved to `core/code_roles.py`.) No entry may appear.
KNOWN_LAZY_CIRCLES: list[list[str]] = []


def test_no_import_circles_even_through_lazy_imports() -> None:
    assert _circles(_graph(in_functions=True)) == KNOWN_LAZY_CIRCLES


def test_core_source_never_imports_a_front_end() -> None:
    """Static: no statement in core/, lazy or not, imports a face or a front-end library."""
    offenders = []
    for name, path in _modules().items():
        if not name.startswith("symscope.core"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                targets = [node.module or ""]
            else:
                continue
            offenders += [f"{name}:{node.lineno} {t}" for t in targets
                          if t.split(".")[0] in FRONT_END_LIBS or t.startswith(FACES)
                          or t.split(".")[0] in ("core", "tui", "cli", "mcp_server")]
    assert offenders == []


#: Engine modules a face must not use directly: the graph and the ranker's parts. A face asks
#: `core/related.py` for uses and used-by, and `Index.search` (abbreviations included) for hits.
ENGINE_INTERNALS = ("symscope.core.deps", "symscope.core.search.", "symscope.core.rank")
#: ... except the filter syntax, which the search box edits as the user types.
FACE_MAY_READ = ("symscope.core.search.query",)


def test_faces_leave_dependencies_and_ranking_to_the_engine() -> None:
    """Issue 28.2/28.4: no face computes related symbols or abbreviation matches itself."""
    graph = _graph(in_functions=True)
    offenders = sorted(f"{name} -> {target}" for name, targets in graph.items() if name.startswith(FACES)
                       for target in targets
                       if target.startswith(ENGINE_INTERNALS) and target not in FACE_MAY_READ)
    assert offenders == []
    assert not (ROOT / "tui" / "related_data.py").exists() and not (ROOT / "tui" / "abbrev_search.py").exists()


def test_importing_every_core_module_loads_no_front_end() -> None:
    """At run time too: importing each engine module loads none of textual, rich, the MCP SDK
    (or its pydantic and anyio) or argparse, and no face."""
    code = (
        "import importlib, pkgutil, sys, symscope.core\n"
        "names = [m.name for m in pkgutil.walk_packages(symscope.core.__path__, 'symscope.core.')]\n"
        "for name in names:\n"
        "    importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FRONT_END_LIBS!r}"
        f" or m.startswith({FACES!r}))\n"
        "print(len(names), ','.join(bad) or 'clean')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, verdict = out.stdout.split()
    assert int(count) == sum(1 for n in _modules() if n.startswith("symscope.core."))
    assert verdict == "clean"


def test_python_dash_m_symscope_is_the_symscope_command() -> None:
    runs = [subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                           text=True, cwd="/") for module in ("symscope", "symscope.cli")]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert runs[0].stdout.startswith("symscope ") and runs[0].stdout == runs[1].stdout
    usage = subprocess.run([sys.executable, "-m", "symscope", "search"], capture_output=True,
                           text=True, cwd="/")
    assert usage.returncode == 2 and usage.stderr.startswith("symscope: error:")


def test_only_version_reads_the_installed_metadata() -> None:
    """Every command pays for what it parses: reading the package metadata costs a fresh
    `symscope search` about 20 ms, so only `--version` does it."""
    code = ("import sys\nfrom symscope.cli.args import build_parser\n"
            "build_parser().parse_args(['search', 'x'])\nprint('importlib.metadata' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- the faces speak to the engine through one API --------------------------------------------

#: What a face may import from the engine: the API (which re-exports the value types, the JSON
#: projection, the sanitiser, token counting and the limits), the value types and the errors.
FACE_MAY_IMPORT = frozenset({"symscope.core.api", "symscope.core.models", "symscope.core.errors"})
#: Benchmarks that measure an engine internal on purpose, each with the modules it measures.
BENCHMARK_EXCEPTIONS: dict[str, frozenset[str]] = {
    # times the dependency table (`Dependencies`) on its own, apart from any query
    "deps.py": frozenset({"symscope.core.deps", "symscope.core.index"}),
    # checks folding against the stored normalized-source hashes (the store's own table)
    "folding.py": frozenset({"symscope.core.index"}),
    # the cost of hostile trees in the walker and the ignore rules themselves
    "hostile_cost.py": frozenset({"symscope.core.index", "symscope.core.walk", "symscope.core.ignore"}),
    # ranks with each search lever off (the settings object) and with the engine's vectors
    "intent.py": frozenset({"symscope.core.index", "symscope.core.levers", "symscope.core.settings",
                            "symscope.core.semantic"}),
    # feeds candidate search engines (FTS5, tantivy) the engine's own terms, to compare them (issue 29)
    "engines.py": frozenset({"symscope.core.terms"}),
    # dumps every row a cold index stored (the store's own tables), to compare two versions
    "index_dump.py": frozenset({"symscope.core.store"}),
    # counts symbols per language in the store and reads each language's query spec
    "languages.py": frozenset({"symscope.core.index", "symscope.core.languages", "symscope.core.sanitize"}),
    # the RAG baseline chunks and tokenizes with the engine's own terms and token counter
    "rag.py": frozenset({"symscope.core.index", "symscope.core.terms", "symscope.core.tokens"}),
    # records the ranking model's features per candidate (`Searcher.observe`) and fits its weights
    "fit_rank.py": frozenset({"symscope.core.search.model", "symscope.core.search.rankdata",
                              "symscope.core.settings", "symscope.core.terms"}),
    # scores the auto-labelled pairs with query-time levers off or other model weights, in process
    "rankeval.py": frozenset({"symscope.core.levers", "symscope.core.search", "symscope.core.settings"}),
    # drives the TUI, which still takes an `Index` (it moves to the API with the TUI's conversion)
    "tui_perf.py": frozenset({"symscope.core.index"}),
}


def _engine_imports(path: Path) -> set[str]:
    """Every engine module a file names in an import, lazy and TYPE_CHECKING ones included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            # `from symscope.core import api` names symscope.core.api; `from symscope.core.api
            # import X` names symscope.core.api
            names |= ({f"{node.module}.{alias.name}" for alias in node.names}
                      if node.module == "symscope.core" else {node.module})
    return {n for n in names if n == "symscope.core" or n.startswith("symscope.core.")}


def _offenders(folder: Path, allowed: dict[str, frozenset[str]] | None = None) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        extra = (allowed or {}).get(path.name, frozenset())
        found += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(_engine_imports(path))
                  if name not in FACE_MAY_IMPORT | extra]
    return found


def test_the_rule_sees_engine_imports() -> None:
    """The reader finds lazy, TYPE_CHECKING and `from symscope.core import x` imports."""
    names = _engine_imports(ROOT / "benchmarks" / "intent.py")
    assert {"symscope.core.levers", "symscope.core.semantic", "symscope.core.index"} <= names
    assert "symscope.core.api" in _engine_imports(ROOT / "cli" / "commands.py")


def test_cli_and_mcp_import_only_the_engine_api() -> None:
    """The CLI and the MCP server ask the engine through `symscope.core.api` (and its types) only."""
    assert _offenders(ROOT / "cli") + _offenders(ROOT / "mcp_server") == []


def test_benchmarks_import_only_the_engine_api_but_named_exceptions() -> None:
    """The benchmarks count what the faces print through the same API; the few that measure an
    internal on purpose are named above, and each exception is still needed."""
    assert _offenders(ROOT / "benchmarks", BENCHMARK_EXCEPTIONS) == []
    for name, modules in BENCHMARK_EXCEPTIONS.items():
        assert modules <= _engine_imports(ROOT / "benchmarks" / name), name


def test_the_tui_imports_only_the_engine_api() -> None:
    """The TUI holds a `Workspace` and asks it every question: no tui module names another engine
    module (not the index, the bundle, the graph, the ranker), lazily or for types only."""
    assert _offenders(ROOT / "tui") == []


def test_the_tui_rule_would_catch_an_engine_import(tmp_path: Path) -> None:
    """The rule can fail: a tui module reaching into the bundle or the index is an offender."""
    module = tmp_path / "pane.py"
    module.write_text("from typing import TYPE_CHECKING\n"
                      "from symscope.core import bundle\n"
                      "if TYPE_CHECKING:\n    from symscope.core.index import Index\n"
                      "def f():\n    from symscope.core.api import Workspace\n")
    assert _engine_imports(module) - FACE_MAY_IMPORT == {"symscope.core.bundle", "symscope.core.index"}
