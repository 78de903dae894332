"""Dependencies and callers, resolved the way a reader would, on small real repos in six languages."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
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
    data = api.uses_json(api.Workspace(index).uses(symbol_id, depth))
    return {d["qualname"]: (d["distance"], d["ambiguous"]) for d in data["deps"]}


def test_go_receiver_methods_and_imported_package(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, GO_REPO) as index:
        assert _uses(index, "context.go::Context.BindJSON#method") == {
            "Context.MustBindWith": (1, False), "JSON": (1, False),
        }, "c.MustBindWith is Context's (not Other's); binding.JSON is the imported package's"
        must = _uses(index, "context.go::Context.MustBindWith#method")
        assert {"Context.ShouldBindWith", "Context.AbortWithError", "Binding"} <= set(must)
        assert "Other.MustBindWith" not in must
        callers = {r["qualname"] for r in api.used_by_json(api.Workspace(index).used_by("context.go::Context.MustBindWith#method"))["references"]}
        assert callers == {"Context.BindJSON"}, "Other.MustBindWith's own name is not a call"


def test_python_imports_self_and_same_file(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        uses = _uses(index, "pkg/routing.py::APIRouter.add_api_route#method")
        assert set(uses) == {"Default", "APIRoute", "get_value_or_default", "APIRouter._mark_routes_changed",
                             "APIRouter.dispatch"}
        assert "APIRoute.dispatch" not in uses, "self.dispatch is the router's own method"
        deeper = _uses(index, "pkg/routing.py::APIRouter.add_api_route#method", depth=2)
        assert deeper["DefaultPlaceholder"] == (2, False), "Default's own use, one level further"
        data = api.uses_json(api.Workspace(index).uses("pkg/routing.py::APIRouter.add_api_route#method", 2))
        assert data["tokens"] == sum(d["tokens"] for d in data["deps"])
        assert [d["distance"] for d in data["deps"]] == sorted(d["distance"] for d in data["deps"])


def test_cycles_end_and_the_root_is_never_listed(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        data = api.uses_json(api.Workspace(index).uses("pkg/cycle.py::ping#function", 5))
        assert [(d["qualname"], d["distance"]) for d in data["deps"]] == [("pong", 1)]


def test_an_ambiguous_name_lists_every_candidate(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, PY_REPO) as index:
        data = api.uses_json(api.Workspace(index).uses("three/use.py::run#function", 1))
        assert {(d["path"], d["ambiguous"]) for d in data["deps"]} == {
            ("one/parse.py", True), ("two/parse.py", True),
        }


def test_javascript_require_and_object_methods(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, JS_REPO) as index:
        assert set(_uses(index, "lib/application.js::app.render#method")) == {"View", "tryRender"}
        callers = api.used_by_json(api.Workspace(index).used_by("lib/application.js::app.render#method"))["references"]
        assert [(r["qualname"], r["line"]) for r in callers] == [("res.render", 7)]


def test_typescript_imported_class_and_this(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, TS_REPO) as index:
        save = next(s for s in index.file_symbols("src/service.ts") if s.qualname == "Service.save")
        assert set(_uses(index, save.id)) == {"Options", "Service.normalize", "Store.add"}, (
            "this.store is the field `store = new Store()`, so this.store.add is Store's add"
        )
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
    from symscope.cli import main as cli

    root = write_repo(GO_REPO)
    common = ["--repo", str(root), "--index-dir", str(tmp_path / "idx")]
    assert cli.main(["deps", "context.go::Context.BindJSON#method", "--depth", "2", "--json", *common]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["id", "depth", "deps", "tokens"]
    assert list(data["deps"][0]) == ["id", "name", "qualname", "kind", "language", "path", "start_line",
                                     "end_line", "tokens", "distance", "ambiguous"]
    assert data["id"] not in {d["id"] for d in data["deps"]}
    with pytest.raises(SystemExit) as usage:  # argparse refuses it before the index is opened
        cli.main(["deps", "context.go::Context.BindJSON#method", "--depth", "0", *common])
    assert usage.value.code == cli.EXIT_USAGE
    assert "--depth: must be a whole number from 1 to 5" in capsys.readouterr().err
    assert cli.main(["deps", "nope#function", *common]) == cli.EXIT_ERROR
    assert capsys.readouterr().err.count("\n") == 1
    with Index.open(root, tmp_path / "idx") as index, pytest.raises(BadQueryError):
        api.Workspace(index).uses("context.go::Context.BindJSON#method", 9)


def test_importers_of_a_package(write_repo: WriteRepo, tmp_path: Path) -> None:
    with _open(write_repo, tmp_path, GO_REPO) as index:
        data = api.importers_json(api.Workspace(index).importers("binding"))
        assert [i["path"] for i in data["importers"]] == ["context.go"]
        assert "context.go::Context.BindJSON#method" in data["importers"][0]["symbols"]


# -- reading code as a reader does: one small repo per language, one test per rule ---------------

GO_TYPES_REPO = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "engine.go": '''
        package shop

        // Writer writes responses.
        type Writer interface {
            Status() int
        }

        // HandlersChain is a list of handlers.
        type HandlersChain []func()

        func (c HandlersChain) Last() func() { return nil }

        type methodTrees []int

        func (t methodTrees) get(method string) *node { return nil }

        type node struct{}

        func (n *node) addRoute(path string) {}

        // Router groups routes.
        type Router struct {
            engine *Engine
        }

        func (r *Router) addRoute(method, path string) {
            r.engine.trees.get(method).addRoute(path)
        }

        // Engine embeds Router.
        type Engine struct {
            Router
            Writer   Writer
            trees    methodTrees
            handlers HandlersChain
            root     bool
        }

        // Error is an error with a type.
        type Error struct{}

        func (e *Error) SetType(t int) *Error { return e }

        func (e *Engine) Reset() {}

        func (e *Engine) Fail(code int) *Error { return &Error{} }

        const _ = 1

        // root is a package constant whose name is also a field's.
        const root = 3

        // Grouped exported variables are symbols too.
        var (
            DefaultWriter Writer = nil
            internal           = 2
        )

        func New() *Engine {
            engine := &Engine{root: true}
            engine.Reset()
            engine.addRoute("GET", "/")
            return engine
        }

        func Logger() func(e *Engine) {
            return func(e *Engine) {
                e.Writer.Status()
                e.handlers.Last()
                e.Fail(500).SetType(1)
                root := e.trees.get("GET")
                root.addRoute("/")
                for _, h := range e.handlers {
                    _ = h
                }
                _ = DefaultWriter
            }
        }
        ''',
    "handle.go": '''
        package shop

        type Chain struct{}

        func (c *Chain) Header(v string) {}

        // Context carries a chain.
        type Context struct{}

        func (c *Context) Header(v string) {}

        func Handle(c *Context) {
            // we return 401 and abort handlers chain.
            c.Header("x")
        }
        ''',
    "codec/codec.go": '''
        //go:build !nojson

        package codec

        // Core encodes.
        type Core interface {
            Marshal(v any) ([]byte, error)
        }

        // API is the codec in use.
        var API Core

        func Name() string { return "json" }
        ''',
    "codec/codec_nojson.go": '''
        //go:build nojson

        package codec

        func Name() string { return "none" }
        ''',
    "cmd/run.go": '''
        package main

        import (
            "example.com/shop"
            "example.com/shop/codec"
        )

        func main() {
            shop.New()
            codec.API.Marshal(nil)
            codec.Name()
        }
        ''',
}


PY_READER_REPO = {
    "pkg/__init__.py": "",
    "pkg/models.py": '''
        class HTTPBearer:
            pass


        class Dependant:
            pass


        class ValidationException(Exception):
            def __init__(self, errors):
                self._errors = errors

            def errors(self):
                return self._errors


        class HTTPException(Exception):
            """Also the name of starlette's exception."""
        ''',
    "pkg/utils.py": '''
        def generate_id(route):
            return str(route)


        def callback():
            return None
        ''',
    "pkg/other.py": '''
        class Response:
            """A repo class with the name of an external one."""
        ''',
    "pkg/routing.py": '''
        class Router:
            def routes_version(self):
                return 1


        class APIRoute:
            pass
        ''',
    "pkg/app.py": '''
        from starlette.exceptions import HTTPException
        from starlette.responses import Response

        from pkg.models import Dependant, ValidationException
        from pkg.models import HTTPBearer as HTTPBearerModel
        from pkg.routing import Router
        from pkg.utils import generate_id


        class RequestValidationError(ValidationException):
            def __init__(self, errors, *, body=None):
                super().__init__(errors)
                self.body = body


        def handler(request, exc: RequestValidationError) -> Response:
            if exc.errors():
                raise HTTPException(400)
            return Response()


        def make_model(callback=None):
            model = HTTPBearerModel()
            return register(model, callback=generate_id)


        def register(model, callback):
            return callback(model)


        def get_dependant(*, path: str) -> Dependant:
            return path


        def unique(route: "APIRoute") -> str:
            return route


        class App:
            def __init__(self):
                self.router: Router = Router()

            def openapi(self):
                return self.router.routes_version()
        ''',
}


JS_THIS_REPO = {
    "lib/view.js": '''
        'use strict';

        function View(name) {
          this.lookup(name);
        }

        View.prototype.lookup = function lookup(name) {
          return this.resolve(name);
        };

        View.prototype.resolve = function resolve(name) {
          return name;
        };

        module.exports = View;
        ''',
    "lib/application.js": '''
        'use strict';

        var View = require('./view');

        var app = exports = module.exports = {};

        app.init = function init() {
          this.set('x', 1);
          this.enabled('x');
        };

        app.set = function set(setting, val) {
          return this;
        };

        app.enabled = function enabled(setting) {
          return Boolean(this.set(setting));
        };

        app.defaultConfiguration = function defaultConfiguration() {
          this.set('view', View);
        };

        app.render = function render(name) {
          var View = this.set('view');
          return new View(name);
        };
        ''',
    "lib/response.js": '''
        'use strict';

        var res = module.exports = {};

        res.set =
        res.header = function header(field, val) {
          return this;
        };

        res.location = function location(url) {
          return this.set('Location', url);
        };

        res.get = function (field) {
          return field;
        };

        res.send = function send(body) {
          return this;
        };

        res.redirect = function redirect(url) {
          this.location(url).get('Location');
          var self = this;
          self.send(url);
        };
        ''',
}


TS_PRIVATE_REPO = {
    "src/types/options.ts": '''
        export interface Options {
          retries: number;
        }
        ''',
    "src/legacy/options.ts": '''
        export interface Options {
          retry: boolean;
        }
        ''',
    "src/types/common.ts": '''
        export type Required<T> = T & {};
        ''',
    "src/core/constants.ts": '''
        export function retry(): number {
          return 1;
        }
        ''',
    "src/core/Ky.ts": '''
        import type {Options} from '../types/options.js';
        import {retry} from './constants.js';

        export class Ky {
          static create(input: string, options: Options): Promise<number> {
            const ky = new Ky(input);
            return ky.#fetch();
          }

          #options?: Required<Options>;

          constructor(input: string) {}

          #fetch(): Promise<number> {
            return this.#retry();
          }

          async #retry(): Promise<number> {
            return retry();
          }
        }

        export const kyRetry = {retry};
        ''',
}


RUST_MOD_REPO = {
    "src/lib.rs": '''
        mod dent;
        mod util;

        use crate::dent::DirEntry;

        pub type Result<T> = std::result::Result<T, ()>;

        pub struct Walker {
            opts: Opts,
            root: DirEntry,
        }

        struct Opts {
            depth: usize,
        }

        fn depth(dent: &DirEntry) -> usize {
            0
        }

        impl Walker {
            pub fn new(root: DirEntry) -> Walker {
                Walker { opts: Opts { depth: 0 }, root }
            }

            fn handle(&mut self, dent: &DirEntry) -> Result<()> {
                let depth = depth(dent);
                util::device_num(dent.path());
                self.root.path();
                let w = Walker::new(DirEntry::empty());
                w.finish();
                Ok(())
            }

            fn finish(&self) {}

            fn check(&self, stack: Vec<Ancestor>) -> bool {
                for ancestor in stack.iter() {
                    if ancestor.is_same() {
                        return true;
                    }
                }
                false
            }
        }

        struct Ancestor {
            depth: usize,
        }

        impl Ancestor {
            fn is_same(&self) -> bool {
                true
            }
        }
        ''',
    "src/dent.rs": '''
        pub struct DirEntry {
            path: String,
        }

        impl DirEntry {
            pub fn empty() -> Self {
                DirEntry { path: String::new() }
            }

            pub fn path(&self) -> &str {
                &self.path
            }

            pub fn describe(&self) -> usize {
                self.path.len()
            }
        }
        ''',
    "src/util.rs": '''
        pub fn device_num(path: &str) -> u64 {
            0
        }
        ''',
}


def _indexed(tmp_path_factory: pytest.TempPathFactory, files: dict[str, str]) -> Index:
    root = tmp_path_factory.mktemp("repo")
    for rel, text in files.items():
        path = root / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    index = Index.open(root / "src", root / "idx")
    index.update(processes=1)
    return index


@pytest.fixture(scope="module")
def go_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with _indexed(tmp_path_factory, GO_TYPES_REPO) as index:
        yield index


@pytest.fixture(scope="module")
def py_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with _indexed(tmp_path_factory, PY_READER_REPO) as index:
        yield index


@pytest.fixture(scope="module")
def js_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with _indexed(tmp_path_factory, JS_THIS_REPO) as index:
        yield index


@pytest.fixture(scope="module")
def ts_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with _indexed(tmp_path_factory, TS_PRIVATE_REPO) as index:
        yield index


@pytest.fixture(scope="module")
def rust_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with _indexed(tmp_path_factory, RUST_MOD_REPO) as index:
        yield index


def _names(index: Index, path: str, qualname: str) -> set[str]:
    sym = next(s for s in index.file_symbols(path) if s.qualname == qualname)
    return set(_uses(index, sym.id))


def _paths(index: Index, path: str, qualname: str) -> set[tuple[str, str]]:
    sym = next(s for s in index.file_symbols(path) if s.qualname == qualname)
    return {(d["path"], d["qualname"]) for d in api.uses_json(api.Workspace(index).uses(sym.id, 1))["deps"]}


# Go


def test_go_closure_parameter_types_its_receiver(go_repo: Index) -> None:
    assert "Engine.Fail" in _names(go_repo, "engine.go", "Logger"), "func(e *Engine) { e.Fail() }"


def test_go_field_types_come_from_the_struct(go_repo: Index) -> None:
    assert {"Writer.Status", "HandlersChain.Last"} <= _names(go_repo, "engine.go", "Logger"), (
        "e.Writer is `Writer Writer`, e.handlers is `handlers HandlersChain`"
    )
    assert _names(go_repo, "engine.go", "Router.addRoute") == {"methodTrees.get", "node.addRoute"}, (
        "r.engine.trees: a field of a field"
    )


def test_go_return_types_type_calls_and_locals(go_repo: Index) -> None:
    assert {"Error.SetType", "node.addRoute"} <= _names(go_repo, "engine.go", "Logger"), (
        "Fail returns *Error; `root := e.trees.get()` holds the *node get returns"
    )


def test_go_locals_shadow_and_blank_is_no_use(go_repo: Index) -> None:
    assert not {"root", "_"} & _names(go_repo, "engine.go", "Logger"), (
        "`root :=` shadows the package var root; `_` is never a use"
    )


def test_go_declared_value_types_a_variable(go_repo: Index) -> None:
    assert "Engine.Reset" in _names(go_repo, "engine.go", "New"), "engine := &Engine{}"


def test_go_literal_field_key_is_no_use(go_repo: Index) -> None:
    assert "root" not in _names(go_repo, "engine.go", "New"), "Engine{root: true} names Engine's field"


def test_go_embedded_struct_members(go_repo: Index) -> None:
    assert "Router.addRoute" in _names(go_repo, "engine.go", "New"), "Engine embeds Router"


def test_go_grouped_exported_vars_are_symbols(go_repo: Index) -> None:
    consts = {s.name for s in go_repo.file_symbols("engine.go") if s.kind == "constant"}
    assert "DefaultWriter" in consts and "internal" not in consts
    assert "DefaultWriter" in _names(go_repo, "engine.go", "Logger")


def test_go_module_root_from_go_mod(go_repo: Index) -> None:
    assert ("engine.go", "New") in _paths(go_repo, "cmd/run.go", "main"), "example.com/shop is the repo root"


def test_go_build_constraints_pick_the_default_build(go_repo: Index) -> None:
    got = _paths(go_repo, "cmd/run.go", "main")
    assert ("codec/codec.go", "Name") in got and ("codec/codec_nojson.go", "Name") not in got


def test_go_package_variable_types_its_members(go_repo: Index) -> None:
    assert {("codec/codec.go", "API"), ("codec/codec.go", "Core.Marshal")} <= _paths(go_repo, "cmd/run.go", "main"), (
        "`var API Core`: codec.API.Marshal is Core's"
    )


def test_comments_never_make_a_receiver(go_repo: Index) -> None:
    assert _names(go_repo, "handle.go", "Handle") == {"Context", "Context.Header"}, (
        "`// ... abort handlers chain.` before c.Header does not make `chain` its receiver"
    )


# Python


def test_python_parameter_annotation_types_its_receiver(py_repo: Index) -> None:
    assert "ValidationException.errors" in _names(py_repo, "pkg/app.py", "handler"), (
        "exc: RequestValidationError; errors() is inherited"
    )


def test_python_names_imported_from_outside_are_external(py_repo: Index) -> None:
    assert _names(py_repo, "pkg/app.py", "handler") == {"RequestValidationError", "ValidationException.errors"}, (
        "HTTPException and Response come from starlette: not pkg.models' nor pkg.other's"
    )


def test_python_import_as_alias(py_repo: Index) -> None:
    assert "HTTPBearer" in _names(py_repo, "pkg/app.py", "make_model"), "import HTTPBearer as HTTPBearerModel"


def test_python_function_passed_as_a_value(py_repo: Index) -> None:
    assert "generate_id" in _names(py_repo, "pkg/app.py", "make_model"), "imported by name, passed uncalled"


def test_python_parameters_and_keywords_are_no_uses(py_repo: Index) -> None:
    assert "callback" not in _names(py_repo, "pkg/app.py", "make_model"), "callback= is a keyword"
    assert _names(py_repo, "pkg/app.py", "register") == set(), "callback is a parameter"
    callers = api.used_by_json(api.Workspace(py_repo).used_by("pkg/utils.py::callback#function"))["references"]
    assert callers == [], "mentions of a parameter named callback do not call the function"


def test_python_super_init(py_repo: Index) -> None:
    assert _names(py_repo, "pkg/app.py", "RequestValidationError.__init__") == {"ValidationException.__init__"}


def test_python_return_annotation_is_no_member_access(py_repo: Index) -> None:
    assert _names(py_repo, "pkg/app.py", "get_dependant") == {"Dependant"}, "`-> Dependant`"


def test_python_type_written_as_a_string(py_repo: Index) -> None:
    assert _names(py_repo, "pkg/app.py", "unique") == {"APIRoute"}, 'route: "APIRoute"'


def test_python_self_field_type(py_repo: Index) -> None:
    assert _names(py_repo, "pkg/app.py", "App.openapi") == {"Router.routes_version"}, (
        "self.router: Router = Router() in __init__"
    )


# JavaScript


def test_javascript_this_in_object_methods(js_repo: Index) -> None:
    assert _names(js_repo, "lib/application.js", "app.init") == {"app.set", "app.enabled"}


def test_javascript_this_in_a_constructor_function(js_repo: Index) -> None:
    assert _names(js_repo, "lib/view.js", "View") == {"View.lookup"}, "the prototype's members"


def test_javascript_definition_header_is_no_use(js_repo: Index) -> None:
    assert _names(js_repo, "lib/view.js", "View.lookup") == {"View.resolve"}, "View.prototype.lookup = ..."


def test_javascript_required_value_and_local_shadow(js_repo: Index) -> None:
    assert _names(js_repo, "lib/application.js", "app.defaultConfiguration") == {"app.set", "View"}
    assert _names(js_repo, "lib/application.js", "app.render") == {"app.set", "View"}, (
        "var View = this.get('view'); new View(...): a constructed local named like a repo type uses it"
    )


def test_javascript_chained_alias(js_repo: Index) -> None:
    assert _names(js_repo, "lib/response.js", "res.location") == {"res.header"}, "res.set = res.header = function"


def test_javascript_fluent_return_this_and_self_alias(js_repo: Index) -> None:
    assert _names(js_repo, "lib/response.js", "res.redirect") == {"res.location", "res.get", "res.send"}, (
        "location returns this (through set), so .get is res.get; `var self = this`"
    )


# TypeScript


def test_typescript_private_names(ts_repo: Index) -> None:
    assert "Ky.#fetch" in _names(ts_repo, "src/core/Ky.ts", "Ky.create")
    assert _names(ts_repo, "src/core/Ky.ts", "Ky.#fetch") == {"Ky.#retry"}


def test_typescript_own_class_named_in_the_body(ts_repo: Index) -> None:
    assert "Ky" in _names(ts_repo, "src/core/Ky.ts", "Ky.create"), "new Ky(input)"


def test_typescript_js_extension_names_the_ts_file(ts_repo: Index) -> None:
    got = _paths(ts_repo, "src/core/Ky.ts", "Ky.create")
    assert ("src/types/options.ts", "Options") in got, "from '../types/options.js'"
    assert ("src/legacy/options.ts", "Options") not in got


def test_typescript_unimported_name_is_no_other_files(ts_repo: Index) -> None:
    assert "Required" not in _names(ts_repo, "src/core/Ky.ts", "Ky"), (
        "Required is not imported: TypeScript's own, not src/types/common.ts's"
    )


# Rust


def test_rust_return_type_is_no_member_access(rust_repo: Index) -> None:
    assert "Result" in _names(rust_repo, "src/lib.rs", "Walker.handle"), "-> Result<()>"


def test_rust_mod_declaration_module_path(rust_repo: Index) -> None:
    assert "device_num" in _names(rust_repo, "src/lib.rs", "Walker.handle"), "mod util; util::device_num()"


def test_rust_shadowing_local_still_calls_the_function(rust_repo: Index) -> None:
    assert "depth" in _names(rust_repo, "src/lib.rs", "Walker.handle"), "let depth = depth(dent)"


def test_rust_parameter_field_and_constructor_types(rust_repo: Index) -> None:
    assert {"DirEntry.path", "Walker.finish"} <= _names(rust_repo, "src/lib.rs", "Walker.handle"), (
        "dent: &DirEntry, the field root: DirEntry, and `let w = Walker::new(..)`"
    )


def test_rust_loop_variable_named_after_its_type(rust_repo: Index) -> None:
    assert _names(rust_repo, "src/lib.rs", "Walker.check") == {"Ancestor", "Ancestor.is_same"}, (
        "`for ancestor in stack.iter()`: an undeclared variable named after a repo type is one of those"
    )


def test_rust_own_type_built_by_name(rust_repo: Index) -> None:
    assert _names(rust_repo, "src/lib.rs", "Walker.new") == {"DirEntry", "Walker", "Opts"}


def test_rust_field_read_is_not_the_method(rust_repo: Index) -> None:
    assert _names(rust_repo, "src/dent.rs", "DirEntry.describe") == set(), "self.path reads the field"


def test_a_constructed_local_named_like_a_repo_type_uses_that_type(write_repo: WriteRepo, tmp_path: Path) -> None:
    """express's app.render: `var View = this.get('view'); new View(name)` uses the View class."""
    files = dict(JS_REPO)
    files["lib/application.js"] = '''
        'use strict';

        var View = require('./view');

        var app = exports = module.exports = {};

        app.render = function render(name, options, callback) {
          var View = this.get('view');
          var view = new View(name, options);
          tryRender(view, options, callback);
        };

        function tryRender(view, options, callback) {
          view.render(options, callback);
        }
        '''
    with _open(write_repo, tmp_path, files) as index:
        assert {"View", "tryRender"} <= set(_uses(index, "lib/application.js::app.render#method"))
        data = api.uses_json(api.Workspace(index).uses("lib/application.js::app.render#method"))
        assert all(not d["ambiguous"] for d in data["deps"] if d["qualname"] == "View")
