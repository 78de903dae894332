"""Folding only folds copies (issue 28, point 6): same name and near-identical content.

Two definitions of one name are one hit only when their bodies are the same after
whitespace (`identical`) or share most of their terms (`similar`); overloads, accessors,
cfg variants and prototypes inside one file still fold, as `variants`. The shown head is
the primary copy, `also` is capped with a count, and every folded copy stays reachable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symscope.core import api
from symscope.core.index import Index
from symscope.mcp_server.formatting import hit_text
from tests.test_cli import run as run_cli


def _open(root: Path, tmp_path: Path) -> Index:
    ix = Index.open(root, tmp_path / "idx")
    ix.update(processes=1)
    return ix


#: A body long enough (over 20 distinct terms) for the term overlap to mean something.
_VALIDATE = '''
def validate_order(order, catalog, customer):
    """Check an order against the catalog and the customer's account before it is billed."""
    if not order.lines:
        raise EmptyOrder(order.number)
    for line in order.lines:
        item = catalog.lookup(line.sku)
        if item is None or item.discontinued:
            raise UnknownItem(line.sku)
        if line.quantity > item.stock:
            raise OutOfStock(item.sku, item.stock)
    if customer.credit_limit < order.total(catalog):
        raise CreditExceeded(customer.account_id)
    return order.with_status("validated")
'''


def test_same_named_definitions_with_different_bodies_are_separate_hits(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ripgrep's command-line `parse` and its rc-file `parse`; chi's example `main`s;
    fastapi's `FastAPI.add_api_route` and `APIRouter.add_api_route` (same signature)."""
    sig = "def add_api_route(self, path: str, endpoint: Callable, *, methods: list[str] | None = None)"
    root = write_repo({
        "crates/core/flags/parse.py": "def parse(argv):\n    return [a.lstrip('-') for a in argv if a.startswith('-')]\n",
        "crates/core/flags/config.py": "def parse(text):\n    return [l.strip() for l in text.splitlines() if l and l[0] != '#']\n",
        "_examples/hello/main.go": 'package main\n\nfunc main() {\n\tprintln("hello")\n}\n',
        "_examples/rest/main.go": 'package main\n\nfunc main() {\n\tr := NewRouter()\n\tr.Get("/", index)\n\tserve(r)\n}\n',
        "_examples/todos/main.go": 'package main\n\nfunc main() {\n\tlistTodos(load("todos.json"))\n}\n',
        "fastapi/applications.py": f"class FastAPI:\n    {sig}:\n        self.router.add_api_route(path, endpoint, methods=methods)\n",
        "fastapi/routing.py": f"class APIRouter:\n    {sig}:\n        route = APIRoute(self.prefix + path, endpoint, methods=methods)\n"
                              "        self.routes.append(route)\n        return route\n",
    })
    ix = _open(root, tmp_path)
    parse = [h for h in ix.search("parse", limit=10) if h.symbol.name == "parse"]
    assert sorted(h.symbol.path for h in parse) == ["crates/core/flags/config.py", "crates/core/flags/parse.py"]
    assert all(not h.duplicates and h.fold is None for h in parse)
    mains = [h for h in ix.search("main", limit=10) if h.symbol.name == "main"]
    assert len(mains) == 3 and all(not h.duplicates for h in mains)
    routes = [h for h in ix.search("add_api_route", limit=10) if h.symbol.name == "add_api_route"]
    assert {h.symbol.qualname for h in routes} == {"FastAPI.add_api_route", "APIRouter.add_api_route"}
    assert all(not h.duplicates for h in routes)


def test_identical_copies_fold_as_identical_and_near_copies_as_similar(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    near = _VALIDATE.replace('return order.with_status("validated")', 'return order.with_status("checked")')
    root = write_repo({
        "shop/orders.py": _VALIDATE,
        "shop/admin/orders.py": _VALIDATE.replace("    ", "\t"),  # whitespace aside, the same text
        "billing/orders.py": near,
        "util/text.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
        "web/text.py": "def slugify(text):\n    return  text.lower().replace(' ', '-')\n",
    })
    ix = _open(root, tmp_path)
    (slug,) = [h for h in ix.search("slugify", limit=5) if h.symbol.name == "slugify"]
    assert slug.fold == "identical" and len(slug.duplicates) == 1
    assert api.hit_json(slug)["folded"] == "identical"
    (hit,) = [h for h in ix.search("validate_order", limit=5) if h.symbol.name == "validate_order"]
    assert {hit.symbol.path, *(ix.symbol(d).path for d in hit.duplicates)} == {  # type: ignore[union-attr]
        "shop/orders.py", "shop/admin/orders.py", "billing/orders.py"}
    assert hit.fold == "similar", "one of the three differs: the label must not say identical"
    out = api.hit_json(hit)
    assert out["folded"] == "similar" and "similar" in hit_text(1, hit)[0]


def test_also_is_capped_with_a_count_and_the_cli_prints_the_label(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """zod: one hit carried ~40 ids in `also`. The JSON lists a few and counts the rest;
    the typed hit keeps every copy (the app expands them, the benchmarks count them)."""
    files: dict[str, str | bytes] = {f"pkg/m{i}/helpers.py": "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n"
                                     for i in range(8)}
    root = write_repo(files)
    ix = _open(root, tmp_path)
    (hit,) = ix.search("clamp", limit=5)
    assert len(hit.duplicates) == 7 and hit.fold == "identical"
    out = api.hit_json(hit)
    assert out["also"] == list(hit.duplicates[: api.ALSO_SHOWN]) and len(out["also"]) == api.ALSO_SHOWN == 3
    assert out["also_count"] == 7
    assert "(+7 identical)" in hit_text(1, hit)[0]
    done = run_cli("search", "clamp", "--repo", str(root))
    assert done.returncode == 0, done.stderr
    assert "(+7 identical)" in done.stdout
    as_json = json.loads(run_cli("search", "clamp", "--json", "--repo", str(root)).stdout)
    assert as_json["results"][0]["also_count"] == 7


def test_a_hit_with_few_copies_has_no_count(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"a/x.py": "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n",
                       "b/x.py": "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n"})
    out = api.hit_json(_open(root, tmp_path).search("clamp", limit=5)[0])
    assert len(out["also"]) == 1 and "also_count" not in out


def test_the_head_is_the_primary_copy_not_a_legacy_test_example_or_vendored_one(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    body = "def clamp(x, lo, hi):\n    return max(lo, min(hi, x))\n"
    root = write_repo({"a_legacy/legacy/clamp.py": body, "_examples/clamp.py": body, "deps/clamp.py": body,
                       "tests/clamp.py": body, "src/clamp.py": body})
    ix = _open(root, tmp_path)
    for query in ("clamp", "clamp x between lo and hi", "lo hi clamp legacy deps"):
        (hit,) = ix.search(query, limit=5)
        assert hit.symbol.path == "src/clamp.py", query
        assert len(hit.duplicates) == 4 and "src/clamp.py::clamp#function" not in hit.duplicates
        assert hit.fold == "identical"
    # a query that asks for tests may show the test copy; never a legacy or vendored one
    assert ix.search("clamp tests", limit=5)[0].symbol.path in ("tests/clamp.py", "src/clamp.py")
    only_secondary = ix.search("clamp", limit=5, path_glob="a_legacy")[0]
    assert only_secondary.symbol.path == "a_legacy/legacy/clamp.py" and not only_secondary.duplicates


def test_same_file_variants_still_fold_but_say_variants(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({
        "src/parse.c": "int parse_header(char *s);\n\nint parse_header(char *s) {\n  return s[0] == '#';\n}\n",
        "src/over.ts": "export function coerce(v: string): string;\nexport function coerce(v: number): number;\n"
                       "export function coerce(v: any) { return v; }\n",
        "src/cfg.rs": '#[cfg(unix)]\nfn home_dir() -> String {\n    env("HOME")\n}\n\n'
                      '#[cfg(windows)]\nfn home_dir() -> String {\n    env("USERPROFILE")\n}\n',
        "src/shape.py": "class Poly:\n    @property\n    def degree(self):\n        return self._d\n\n"
                        "    @degree.setter\n    def degree(self, value):\n        self._d = value\n",
    })
    ix = _open(root, tmp_path)
    for query, n in (("parse_header", 1), ("coerce", 2), ("home_dir", 1), ("degree", 1)):
        hits = [h for h in ix.search(query, limit=5) if h.symbol.name == query]
        assert len(hits) == 1 and len(hits[0].duplicates) == n, query
        assert hits[0].fold == "variants", query


def test_a_header_prototype_folds_under_its_one_definition(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A prototype in a header declares the definition in a .c file: the same function."""
    root = write_repo({"include/sds.h": "int sdslen(const char *s);\n",
                       "src/sds.c": "int sdslen(const char *s) {\n  return strlen(s);\n}\n",
                       "src/other.c": "static int helper(void) {\n  return 1;\n}\n"})
    hits = [h for h in _open(root, tmp_path).search("sdslen", limit=5) if h.symbol.name == "sdslen"]
    assert len(hits) == 1 and hits[0].symbol.path == "src/sds.c"
    assert [d.split("::")[0] for d in hits[0].duplicates] == ["include/sds.h"]
    assert hits[0].fold == "similar"


def test_every_folded_copy_is_reachable(write_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """By its id, by its qualified name (a renamed copy heads its own search), and by path."""
    renamed = _VALIDATE.replace("def validate_order", "def cli_validate_order")
    root = write_repo({"shop/orders.py": _VALIDATE, "cli/orders.py": renamed,
                       "tests/orders.py": _VALIDATE})
    ix = _open(root, tmp_path)
    (hit,) = [h for h in ix.search("check an order against the catalog", limit=5)
              if "validate_order" in h.symbol.name]
    assert hit.symbol.id == "shop/orders.py::validate_order#function"
    assert set(hit.duplicates) == {"cli/orders.py::cli_validate_order#function", "tests/orders.py::validate_order#function"}
    for copy in hit.duplicates:
        assert ix.symbol(copy) is not None
    assert ix.search("cli_validate_order", limit=3)[0].symbol.id == "cli/orders.py::cli_validate_order#function"
    assert ix.search("validate_order", limit=3, path_glob="tests")[0].symbol.id == \
        "tests/orders.py::validate_order#function"


def test_an_identical_method_in_another_class_heads_the_search_for_its_qualified_name(
    write_repo, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    method = "    def clamp(self, x):\n        return max(self.lo, min(self.hi, x))\n"
    root = write_repo({"a/range.py": "class Range:\n" + method, "b/window.py": "class Window:\n" + method})
    ix = _open(root, tmp_path)
    for qualname in ("Range.clamp", "Window.clamp"):
        hit = ix.search(qualname, limit=3)[0]
        assert hit.symbol.qualname == qualname and hit.fold == "identical" and len(hit.duplicates) == 1


@pytest.mark.parametrize("query", ["slugify"])
def test_fold_kind_is_absent_without_copies(write_repo, tmp_path: Path, query: str) -> None:  # type: ignore[no-untyped-def]
    root = write_repo({"util/text.py": "def slugify(text):\n    return text.lower()\n"})
    (hit,) = _open(root, tmp_path).search(query, limit=5)
    assert hit.fold is None and "folded" not in api.hit_json(hit) and "also" not in api.hit_json(hit)
