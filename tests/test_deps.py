"""Dependencies and callers, resolved the way a reader would, on small real repos in six languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symscope.core import api
from symscope.core.errors import BadQueryError
from symscope.core.index import Index
from tests.conftest import WriteRepo

GO_REPO = {
    "go.mod": "module example.com/web\n",
    "context.go": '''
        package web

        import (
            "net/http"

            "example.com/web/binding"
        )

        // Context carries one request.
        type Context struct {
            Request *http.Request
            Errors  []error
        }

        // Other has a method with the same name as Context's.
        type Other struct{}

        func (o *Other) MustBindWith(obj any, b binding.Binding) error { return nil }

        func (c *Context) BindJSON(obj any) error {
            return c.MustBindWith(obj, binding.JSON)
        }

        func (c *Context) MustBindWith(obj any, b binding.Binding) error {
            if err := c.ShouldBindWith(obj, b); err != nil {
                c.AbortWithError(http.StatusBadRequest, err)
                return err
            }
            return nil
        }

        func (c *Context) ShouldBindWith(obj any, b binding.Binding) error {
            return b.Bind(c.Request, obj)
        }

        func (c *Context) AbortWithError(code int, err error) {
            c.Errors = append(c.Errors, err)
        }
        ''',
    "binding/binding.go": '''
        package binding

        import "net/http"

        // Binding reads a request into a value.
        type Binding interface {
            Bind(req *http.Request, obj any) error
        }

        type jsonBinding struct{}

        func (jsonBinding) Bind(req *http.Request, obj any) error { return nil }

        // JSON is the JSON binding.
        const JSON = "json"
        ''',
}

PY_REPO = {
    "pkg/__init__.py": "",
    "pkg/utils.py": '''
        def get_value_or_default(first, *others):
            """The first value that is not a placeholder."""
            for item in (first, *others):
                if item is not None:
                    return item
            return first
        ''',
    "pkg/datastructures.py": '''
        class DefaultPlaceholder:
            def __init__(self, value):
                self.value = value


        def Default(value):
            """Mark a value as the default."""
            return DefaultPlaceholder(value)
        ''',
    "pkg/routing.py": '''
        from pkg.datastructures import Default
        from pkg.utils import get_value_or_default


        class APIRoute:
            def __init__(self, path, endpoint):
                self.path = path

            def dispatch(self):
                return self.path


        class APIRouter:
            def __init__(self):
                self.routes = []

            def add_api_route(self, path, endpoint, *, status_code=Default(None), route_class=APIRoute):
                code = get_value_or_default(status_code, 200)
                route = route_class(path, endpoint)
                self.routes.append(route)
                self._mark_routes_changed()
                return self.dispatch(code)

            def dispatch(self, code):
                return code

            def _mark_routes_changed(self):
                self.changed = True
        ''',
    "pkg/cycle.py": '''
        def ping(n):
            return pong(n - 1) if n else 0


        def pong(n):
            return ping(n - 1) if n else 1
        ''',
    "one/parse.py": "def parse(text):\n    return text.split()\n",
    "two/parse.py": "def parse(text):\n    return text.splitlines()\n",
    "three/use.py": "def run(text):\n    return parse(text)\n",
}

JS_REPO = {
    "lib/view.js": '''
        'use strict';

        function View(name, options) {
          this.name = name;
        }

        View.prototype.render = function render(options, callback) {
          callback(null, this.name);
        };

        module.exports = View;
        ''',
    "lib/application.js": '''
        'use strict';

        var View = require('./view');

        var app = exports = module.exports = {};

        app.render = function render(name, options, callback) {
          var view = new View(name, options);
          tryRender(view, options, callback);
        };

        function tryRender(view, options, callback) {
          view.render(options, callback);
        }
        ''',
    "lib/response.js": '''
        'use strict';

        var res = module.exports = {};

        res.render = function render(view, options) {
          var app = this.req.app;
          app.render(view, options, function () {});
        };
        ''',
}

TS_REPO = {
    "src/store.ts": '''
        export class Store {
          private items: string[] = [];

          add(item: string): void {
            this.items.push(item);
          }
        }
        ''',
    "src/service.ts": '''
        import { Store } from './store';

        export interface Options {
          name: string;
        }

        export class Service {
          private store = new Store();

          save(item: string, options: Options): void {
            this.normalize(item);
            this.store.add(item);
          }

          normalize(item: string): string {
            return item.trim();
          }
        }
        ''',
}

RUST_REPO = {
    "src/util.rs": '''
        pub fn parse_port(text: &str) -> u16 {
            text.parse().unwrap_or(80)
        }
        ''',
    "src/server.rs": '''
        use crate::util::parse_port;

        pub struct Server {
            port: u16,
        }

        impl Server {
            pub fn new(port: u16) -> Self {
                Server { port }
            }

            pub fn from_text(text: &str) -> Self {
                Self::new(parse_port(text))
            }

            pub fn start(&self) -> u16 {
                self.bind()
            }

            fn bind(&self) -> u16 {
                self.port
            }
        }
        ''',
}

JAVA_REPO = {
    "src/main/java/app/Worker.java": '''
        package app;

        public class Worker {
            public int run() {
                return helper() + Limits.max();
            }

            private int helper() {
                return 1;
            }
        }
        ''',
    "src/main/java/app/Job.java": '''
        package app;

        public class Job {
            public int run() {
                return 2;
            }

            private int helper() {
                return 3;
            }
        }
        ''',
    "src/main/java/app/Limits.java": '''
        package app;

        public class Limits {
            public static int max() {
                return 10;
            }
        }
        ''',
}


def _open(write_repo: WriteRepo, tmp_path: Path, files: dict[str, str | bytes]) -> Index:
    index = Index.open(write_repo(files), tmp_path / "idx")
    index.update(processes=1)
    return index


def _uses(index: Index, symbol_id: str, depth: int = 1) -> dict[str, tuple[int, bool]]:
    data = api.deps(index, symbol_id, depth)
    return {d["qualname"]: (d["distance"], d["ambiguous"]) for d in data["deps"]}


def test_go_receiver_methods_and_imported_package(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, GO_REPO) as index:
        assert _uses(index, "context.go::Context.BindJSON#method") == {
            "Context.MustBindWith": (1, False), "JSON": (1, False),
        }, "c.MustBindWith is Context's (not Other's); binding.JSON is the imported package's"
        must = _uses(index, "context.go::Context.MustBindWith#method")
        assert {"Context.ShouldBindWith", "Context.AbortWithError", "Binding"} <= set(must)
        assert "Other.MustBindWith" not in must
        callers = {r["qualname"] for r in api.refs(index, "context.go::Context.MustBindWith#method")["references"]}
        assert callers == {"Context.BindJSON"}, "Other.MustBindWith's own name is not a call"


def test_python_imports_self_and_same_file(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        uses = _uses(index, "pkg/routing.py::APIRouter.add_api_route#method")
        assert set(uses) == {"Default", "APIRoute", "get_value_or_default", "APIRouter._mark_routes_changed",
                             "APIRouter.dispatch"}
        assert "APIRoute.dispatch" not in uses, "self.dispatch is the router's own method"
        deeper = _uses(index, "pkg/routing.py::APIRouter.add_api_route#method", depth=2)
        assert deeper["DefaultPlaceholder"] == (2, False), "Default's own use, one level further"
        data = api.deps(index, "pkg/routing.py::APIRouter.add_api_route#method", 2)
        assert data["tokens"] == sum(d["tokens"] for d in data["deps"])
        assert [d["distance"] for d in data["deps"]] == sorted(d["distance"] for d in data["deps"])


def test_cycles_end_and_the_root_is_never_listed(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        data = api.deps(index, "pkg/cycle.py::ping#function", 5)
        assert [(d["qualname"], d["distance"]) for d in data["deps"]] == [("pong", 1)]


def test_an_ambiguous_name_lists_every_candidate(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        data = api.deps(index, "three/use.py::run#function", 1)
        assert {(d["path"], d["ambiguous"]) for d in data["deps"]} == {
            ("one/parse.py", True), ("two/parse.py", True),
        }


def test_javascript_require_and_object_methods(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, JS_REPO) as index:
        assert set(_uses(index, "lib/application.js::app.render#method")) == {"View", "tryRender"}
        callers = api.refs(index, "lib/application.js::app.render#method")["references"]
        assert [(r["qualname"], r["line"]) for r in callers] == [("res.render", 7)]


def test_typescript_imported_class_and_this(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, TS_REPO) as index:
        save = next(s for s in index.file_symbols("src/service.ts") if s.qualname == "Service.save")
        assert set(_uses(index, save.id)) == {"Options", "Service.normalize"}
        service = next(s for s in index.file_symbols("src/service.ts") if s.qualname == "Service")
        assert "Store" in _uses(index, service.id), "the class's field initialiser uses Store"


def test_rust_self_and_use_declarations(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, RUST_REPO) as index:
        by_qual = {s.qualname: s for s in index.file_symbols("src/server.rs")}
        assert set(_uses(index, by_qual["Server.from_text"].id)) == {"Server.new", "parse_port"}
        assert set(_uses(index, by_qual["Server.start"].id)) == {"Server.bind"}


def test_java_implicit_this_resolves_to_the_own_class(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, JAVA_REPO) as index:
        worker = {s.qualname: s for s in index.file_symbols("src/main/java/app/Worker.java")}
        assert _uses(index, worker["Worker.run"].id) == {"Worker.helper": (1, False), "Limits.max": (1, False)}


def test_deps_cli_shape_and_errors(write_repo: WriteRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from symscope.core import cli

    root = write_repo(GO_REPO)
    common = ["--repo", str(root), "--index-dir", str(tmp_path / "idx")]
    assert cli.main(["deps", "context.go::Context.BindJSON#method", "--depth", "2", "--json", *common]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["id", "depth", "deps", "tokens"]
    assert list(data["deps"][0]) == ["id", "name", "qualname", "kind", "language", "path", "start_line",
                                     "end_line", "tokens", "distance", "ambiguous"]
    assert data["id"] not in {d["id"] for d in data["deps"]}
    assert cli.main(["deps", "context.go::Context.BindJSON#method", "--depth", "0", *common]) == cli.EXIT_USAGE
    assert "--depth must be between" in capsys.readouterr().err
    assert cli.main(["deps", "nope#function", *common]) == cli.EXIT_ERROR
    assert capsys.readouterr().err.count("\n") == 1
    with Index.open(root, tmp_path / "idx") as index, pytest.raises(BadQueryError):
        api.deps(index, "context.go::Context.BindJSON#method", 9)


def test_importers_of_a_package(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, GO_REPO) as index:
        data = api.importers(index, "binding")
        assert [i["path"] for i in data["importers"]] == ["context.go"]
        assert "context.go::Context.BindJSON#method" in data["importers"][0]["symbols"]
