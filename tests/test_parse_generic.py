"""The extractor's generic capabilities, each on real parsed code.

Every capability is switched on by data (a `languages.json` option or a query
capture); these tests pin down what each one does, using real grammars with
small inline queries where no shipped language uses the option yet.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from symscope.core.languages import LanguageSpec, all_languages
from symscope.core.parse import MAX_NESTING, extract


class _InlineSpec(LanguageSpec):
    """A language spec whose tags query is given inline (test-only)."""

    __slots__ = ("_source",)
    _source: str

    def __init__(self, source: str, **fields: object) -> None:
        base: dict[str, object] = {
            "extensions": (),
            "shebangs": (),
            "fence": "",
            "pygments": None,
            "aliases": (),
            "wrappers": frozenset(),
            "attached": frozenset(),
        }
        base.update(fields)
        super().__init__(**base)  # type: ignore[arg-type]
        object.__setattr__(self, "_source", source)

    def query_source(self) -> str:
        return self._source

    def __hash__(self) -> int:
        return hash((self.name, self._source))

    def __eq__(self, other: object) -> bool:
        return self is other


ELIXIR_QUERY = """
(call target: (identifier) @_k (arguments (alias) @name) (#eq? @_k "defmodule")) @definition.module
(call target: (identifier) @_k
  (arguments [(call target: (identifier) @name) (identifier) @name
              (binary_operator left: (call target: (identifier) @name))])
  (#any-of? @_k "def" "defp")) @definition.function
"""

ELIXIR = b"""defmodule Math do
  @moduledoc "Small math."

  @doc "Factorial."
  @spec fact(integer) :: integer
  def fact(0), do: 1
  # the recursive clause
  def fact(n) when n > 0 do
    n * fact(n - 1)
  end

  def zero?(0), do: true
  def zero?(_), do: false

  defp helper(x), do: x
  def fact(:again), do: :separate
end
"""


def _elixir(merge: bool) -> LanguageSpec:
    return _InlineSpec(
        ELIXIR_QUERY,
        name="elixir",
        grammar="elixir",
        query="elixir",
        attached=frozenset({"unary_operator"}),
        merge_clauses=merge,
    )


def _table(source: bytes, spec: LanguageSpec) -> dict[str, tuple[str, int, int]]:
    result = extract("m.ex", source, spec)
    assert not result.has_errors
    return {s.id.split("::", 1)[1]: (s.kind, s.start_line, s.end_line) for s in result.symbols}


def test_merge_clauses_joins_adjacent_elixir_def_heads() -> None:
    got = _table(ELIXIR, _elixir(merge=True))
    assert got == {
        "Math#module": ("module", 1, 17),
        # From the first clause's @doc/@spec to the end of the last clause; the comment between is fine.
        "Math.fact#function": ("function", 4, 10),
        "Math.zero?#function": ("function", 12, 13),
        "Math.helper#function": ("function", 15, 15),
        # Not adjacent (helper is between): a separate definition, as before.
        "Math.fact#function~2": ("function", 16, 16),
    }


def test_merged_symbol_keeps_first_clause_signature_and_doc_and_spans_all_bytes() -> None:
    result = extract("m.ex", ELIXIR, _elixir(merge=True))
    fact = next(s for s in result.symbols if s.id.endswith("Math.fact#function"))
    assert fact.signature == "def fact(0), do: 1"
    text = ELIXIR[fact.start_byte : fact.end_byte].decode()
    assert text.startswith('@doc "Factorial."') and text.endswith("n * fact(n - 1)\n  end")
    assert fact.tokens > 20


def test_without_merge_clauses_every_clause_is_its_own_symbol() -> None:
    got = _table(ELIXIR, _elixir(merge=False))
    assert got["Math.fact#function"] == ("function", 4, 6)
    assert got["Math.fact#function~2"] == ("function", 7, 10)
    assert got["Math.fact#function~3"] == ("function", 16, 16)


HASKELL_QUERY = """
(signature name: (variable) @name) @definition.function
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
"""

HASKELL = b"""module Fact where

fact :: Int -> Int
fact 0 = 1
-- the recursive equation
fact n = n * fact (n - 1)

-- | Doubles.
double :: Int -> Int
double = (* 2)
"""


def test_merge_clauses_joins_haskell_signature_and_equations() -> None:
    spec = _InlineSpec(
        HASKELL_QUERY,
        name="haskell",
        grammar="haskell",
        query="haskell",
        attached=frozenset({"haddock"}),  # its doc comments are not `comment` nodes
        merge_clauses=True,
    )
    result = extract("Fact.hs", HASKELL, spec)
    got = {s.id: (s.start_line, s.end_line, s.signature) for s in result.symbols}
    assert got == {
        "Fact.hs::fact#function": (3, 6, "fact :: Int -> Int"),
        "Fact.hs::double#function": (8, 10, "double :: Int -> Int"),
    }


PYTHON_OVERLOADS = b'''from typing import overload


class Conv:
    @overload
    def to(self, x: int) -> int: ...
    @overload
    def to(self, x: str) -> str: ...
    def to(self, x):
        """Convert."""
        return x

    def other(self): ...

    def to(self, x, y): ...


@overload
def top(x: int) -> int: ...
def top(x): return x
'''


def test_merge_clauses_keeps_parents_and_splits_non_adjacent_definitions() -> None:
    spec = dataclasses.replace(all_languages()["python"], merge_clauses=True)
    got = _table(PYTHON_OVERLOADS, spec)
    assert got == {
        "Conv#class": ("class", 4, 15),
        "Conv.to#method": ("method", 5, 11),
        "Conv.other#method": ("method", 13, 13),
        "Conv.to#method~2": ("method", 15, 15),
        "top#function": ("function", 18, 20),
    }


def test_shipped_languages_without_merge_clauses_are_unchanged() -> None:
    got = _table(PYTHON_OVERLOADS, all_languages()["python"])
    assert got["Conv.to#method"] == ("method", 5, 6)
    assert got["Conv.to#method~2"] == ("method", 7, 8)
    assert got["Conv.to#method~3"] == ("method", 9, 11)


CARD_VUE = """<template>
  <div class="card">{{ title }}</div>
</template>

<script setup lang=ts>
// Card width in pixels.
const WIDTH: number = 320
export function area(h: number): number {
  return WIDTH * h
}
</script>
"""


def test_embedded_script_symbols_keep_the_host_files_lines_and_bytes() -> None:
    source = CARD_VUE.encode()
    result = extract("src/components/Card.vue", source, all_languages()["vue"])
    assert not result.has_errors
    got = {s.id: (s.kind, s.start_line, s.end_line, s.parent_id) for s in result.symbols}
    card = "src/components/Card.vue::Card#class"
    assert got == {
        card: ("class", 1, 11, None),  # the component: the whole file, named after it
        "src/components/Card.vue::WIDTH#constant": ("constant", 6, 7, card),
        "src/components/Card.vue::area#function": ("function", 8, 10, card),
    }
    area = result.symbols[-1]
    assert source[area.start_byte : area.end_byte].decode().startswith("export function area(h: number)")
    assert source[area.start_byte : area.end_byte].decode().endswith("return WIDTH * h\n}")
    assert area.signature == "function area(h: number): number"
    assert result.symbols[1].docstring == "Card width in pixels."
    assert result.symbols[0].tokens == result.tokens


def test_script_lang_attribute_picks_the_language() -> None:
    typed = '<script lang="ts">\nfunction f(x: number): void {}\n</script>\n'
    tsx = '<script lang="tsx">\nconst View = (p: Props) => <div>{p.x}</div>\n</script>\n'
    jsx = '<script lang="jsx">\nconst View = (p) => <div>{p.x}</div>\n</script>\n'
    for source, name in ((typed, "f"), (tsx, "View"), (jsx, "View")):
        result = extract("A.vue", source.encode(), all_languages()["vue"])
        assert not result.has_errors, source
        assert [s.qualname for s in result.symbols] == ["A", name]
    # Without `lang` a block is JavaScript, where type annotations are syntax errors.
    untyped = extract("A.svelte", typed.replace(' lang="ts"', "").encode(), all_languages()["svelte"])
    assert untyped.has_errors


def test_script_in_an_unknown_language_is_skipped() -> None:
    source = b'<script lang="coffee">\nsquare = (x) -> x * x\nclass Foo\n</script>\n'
    result = extract("Sq.vue", source, all_languages()["vue"])
    assert [s.id for s in result.symbols] == ["Sq.vue::Sq#class"]
    assert not result.has_errors


def test_file_symbol_needs_content_and_ignores_markup() -> None:
    assert extract("Empty.vue", b"\n\n", all_languages()["vue"]).symbols == []
    markup = b"<template>\n  <h1>{{ x }}</h1>\n</template>\n<style>\nh1 { color: red }\n</style>\n"
    result = extract("Title.vue", markup, all_languages()["vue"])
    assert [(s.qualname, s.start_line, s.end_line) for s in result.symbols] == [("Title", 1, 6)]


GENERIC = Path(__file__).parent / "fixtures" / "generic"


def _ids(name: str, lang: str, spec: LanguageSpec | None = None) -> dict[str, tuple[int, int, str | None]]:
    source = (GENERIC / name).read_bytes()
    result = extract(name, source, spec or all_languages()[lang])
    return {s.id.split("::", 1)[1]: (s.start_line, s.end_line, s.parent_id) for s in result.symbols}


def test_rust_items_inside_item_position_macros_are_extracted_with_their_parents() -> None:
    struct = "rust_macros.rs::TcpListener#struct"
    assert _ids("rust_macros.rs", "rust") == {
        "cfg_net#function": (3, 5, None),
        "TcpListener#struct": (8, 11, None),  # from its doc comment inside `cfg_net! {`
        "BACKLOG#constant": (14, 14, None),  # a macro inside a macro
        "TcpListener.bind#method": (20, 23, struct),  # a macro inside an impl
        "TcpListener.bind_addr#method": (26, 28, struct),
        "TcpListener.poll_accept#method": (33, 35, struct),  # an impl inside a macro
        "sys#module": (38, 40, None),
        "sys.raw#function": (39, 39, "rust_macros.rs::sys#module"),
        "platform#function": (45, 45, None),  # each `cfg_if!` branch
        "platform#function~2": (47, 47, None),
        "Reader#trait": (51, 56, None),
        "Reader.read_u8#method": (53, 54, "rust_macros.rs::Reader#trait"),
        "GLOBAL#constant": (59, 59, None),  # tree-sitter-rust knows lazy_static's `static ref`
        # bitflags' `struct Flags: u32` is not Rust: nothing in that macro (not even NotReal);
        # `local_items!` in a function body is local.
        "main#function": (70, 73, None),
    }


def test_macro_items_keep_the_files_bytes_and_docs() -> None:
    source = (GENERIC / "rust_macros.rs").read_bytes()
    result = extract("rust_macros.rs", source, all_languages()["rust"])
    assert not result.has_errors
    bind = next(s for s in result.symbols if s.qualname == "TcpListener.bind")
    text = source[bind.start_byte : bind.end_byte].decode()
    assert text.startswith("/// Binds it.\n        pub async fn bind(")
    assert text.endswith("Self::bind_addr(addr)\n        }")
    assert bind.docstring == "Binds it."
    assert bind.signature == "pub async fn bind(addr: &str) -> io::Result<TcpListener>"


def test_without_reparse_captures_macro_items_are_missing() -> None:
    rust = all_languages()["rust"]
    query = rust.query_source().split("; Items inside item-position macro invocations")[0]
    plain = _InlineSpec(query, name="rust", grammar="rust", query="rust", attached=rust.attached)
    got = _ids("rust_macros.rs", "rust", plain)
    assert "TcpListener#struct" not in got and "BACKLOG#constant" not in got
    assert got["TcpListener.bind_addr#method"] == (26, 28, None)  # no struct to belong to


def test_nested_macros_stop_at_the_depth_limit() -> None:
    depth = MAX_NESTING + 3
    source = "".join(f"m{i}! {{\n" for i in range(depth)) + "fn deep() {}\n" + "}\n" * depth
    source = "fn shallow() {}\nm! {\n    fn one() {}\n}\n" + source
    result = extract("deep.rs", source.encode(), all_languages()["rust"])
    assert [s.qualname for s in result.symbols] == ["shallow", "one"]


def test_c_definitions_in_extern_c_and_elifdef_blocks() -> None:
    assert _ids("preproc.h", "c") == {
        "ring#struct": (9, 15, None),
        "ring.ring_stats#struct": (13, 13, "preproc.h::ring#struct"),
        "ring_mode#enum": (17, 17, None),
        "ring_lock_t#type": (20, 20, None),
        "ring_lock#struct": (22, 22, None),
        "ring_lock_stub#struct": (24, 24, None),
        "ring_push#function": (27, 28, None),
    }


def test_cpp_members_and_types_in_every_preprocessor_branch() -> None:
    socket = "preproc.cpp::Socket#class"
    assert _ids("preproc.cpp", "cpp") == {
        "Socket#class": (3, 18, None),
        "Socket.flush#method": (7, 8, socket),
        "Socket.kFlags#constant": (9, 9, socket),
        "Socket.flush#method~2": (11, 11, socket),
        "Socket.flush_posix#method": (13, 13, socket),
        "Socket.Stats#struct": (16, 16, socket),
        "net.Poller#struct": (22, 22, None),
        "net.Poller#struct~2": (24, 24, None),
        "net.Backend#enum": (25, 25, None),
        "net.Event#struct": (27, 27, None),
        "TlsSocket#class": (32, 34, None),
        "TlsSocket.handshake#method": (33, 33, "preproc.cpp::TlsSocket#class"),
    }


HOOK_LOCALS = r"""
(call_expression
  function: [(identifier) (member_expression)] @_hook
  arguments: (arguments [(arrow_function) (function_expression)] @local)
  (#match? @_hook "^([$]effect|onMount|useEffect)$"))
"""

EFFECTS_TS = b"""export const poll = (ms: number) => setInterval(tick, ms);

$effect(() => {
  const tick = () => console.log('tick');
  function again(): void {}
  return () => clearInterval(poll(1000));
});

onMount(function () {
  class Local {}
});

register(() => {
  const notAHook = () => 1;
});
"""


def test_local_captures_make_callback_bodies_local() -> None:
    ts = all_languages()["typescript"]
    # The shipped query has these hook locals; without any `@local` capture the callbacks'
    # definitions are symbols.
    without_locals = ts.query_source().replace("@local", "@_local")
    fields = {"name": "typescript", "grammar": "typescript", "query": "typescript",
              "wrappers": ts.wrappers, "attached": ts.attached}
    spec = _InlineSpec(without_locals + HOOK_LOCALS, **fields)
    with_locals = extract("effects.ts", EFFECTS_TS, spec)
    assert [(s.qualname, s.start_line) for s in with_locals.symbols] == [("poll", 1), ("notAHook", 14)]
    assert [(s.qualname, s.start_line) for s in extract("effects.ts", EFFECTS_TS, ts).symbols] == [
        ("poll", 1), ("notAHook", 14)]
    without = extract("effects.ts", EFFECTS_TS, _InlineSpec(without_locals, **fields))
    assert {s.qualname for s in without.symbols} == {"poll", "tick", "again", "Local", "notAHook"}


def _symbols(lang: str, source: str, path: str = "f") -> list[tuple[str, str, int, int]]:
    result = extract(path, source.encode(), all_languages()[lang])
    return [(s.qualname, s.kind, s.start_line, s.end_line) for s in result.symbols]


def _one(lang: str, source: str, qualname: str) -> tuple[int, int, str, str]:
    result = extract("f", source.encode(), all_languages()[lang])
    sym = next(s for s in result.symbols if s.qualname == qualname)
    return sym.start_line, sym.end_line, sym.signature, sym.docstring


# --- comments above the first definition of a container the grammar nests elsewhere.

def test_comments_above_a_first_definition_outside_its_container_attach() -> None:
    # GraphQL's `document`, HCL's `body`, Nix's `binding_set` start at the first definition;
    # the comments above are their siblings.
    graphql = "# Full fragment for detail views\nfragment GroupData on Group {\n  id\n}\n"
    assert _one("graphql", graphql, "GroupData") == (1, 4, "fragment GroupData on Group",
                                                     "Full fragment for detail views")
    hcl = '# Validates the CIDR.\n# Second line.\nresource "null_resource" "validate" {\n  count = 1\n}\n'
    assert _one("hcl", hcl, "null_resource.validate")[::3] == (1, "Validates the CIDR. Second line.")
    nix = "{\n  # Converts a boolean to yes/no.\n  yesNo = value: if value then \"yes\" else \"no\";\n\n" \
          "  # Unrelated.\n\n  other = x: x;\n}\n"
    assert _symbols("nix", nix) == [("yesNo", "function", 2, 3), ("other", "function", 7, 7)]


def test_comments_nested_at_the_end_of_the_previous_node_attach_to_the_next_definition() -> None:
    # tree-sitter-haskell puts the comment after the imports inside `imports`.
    haskell = "module Fixer where\n\nimport Data.List\n\n-- | Types with a start and an end.\n" \
              "class Ranged a where\n    start :: a -> Int\n"
    assert _one("haskell", haskell, "Ranged") == (5, 7, "class Ranged a where", "Types with a start and an end.")


FSHARP = """module Helpers =
    /// <summary>Default manager.</summary>
    let internal manager = Lazy<int>()

    /// <summary>
    /// Checks if an object is not null.
    /// </summary>
    ///
    /// <returns>True when it is not.</returns>
    let inline isNotNull x = not (isNull x)

    let strOption (str: string) =
        if String.IsNullOrEmpty str then None else Some str

    // ---------------------------
    // Section
    // ---------------------------

    let last = 1
"""


def test_fsharp_doc_comments_leave_the_declaration_above_for_the_one_below() -> None:
    # The grammar nests each `///` block inside the declaration above it (with an invisible `;`
    # between declarations), and reads the bare `///` line as an operator (the query's
    # `@comment`): the block is the next declaration's doc, and the one above ends at its code.
    assert _symbols("fsharp", FSHARP) == [
        ("Helpers", "module", 1, 19),
        ("Helpers.manager", "constant", 2, 3),
        ("Helpers.isNotNull", "function", 5, 10),
        # The section comment at the declarations' own column is not part of `strOption`.
        ("Helpers.strOption", "function", 12, 13),
        ("Helpers.last", "constant", 19, 19),
    ]
    assert _one("fsharp", FSHARP, "Helpers.isNotNull")[2:] == ("let inline isNotNull x",
                                                               "Checks if an object is not null.")
    assert _one("fsharp", FSHARP, "Helpers")[2] == "module Helpers"


def test_comment_captures_mark_what_a_grammar_misreads() -> None:
    fs = all_languages()["fsharp"]
    spec = _InlineSpec(fs.query_source().replace("@comment", "@_comment"), name="fsharp", grammar="fsharp",
                       query="fsharp", attached=fs.attached)
    got = {s.qualname: (s.start_line, s.end_line) for s in extract("f.fs", FSHARP.encode(), spec).symbols}
    assert got["Helpers.isNotNull"] == (9, 10)  # only the comment below the bare `///`
    assert got["Helpers.manager"] == (2, 8)


# --- `@body`: a body the grammar keeps beside the signature.

DART = """class Counter {
  /// Adds one.
  void increment() {
    _count++;
  }

  int get value => _count;
}

/// Top level.
int twice(int x) {
  return 2 * x;
}
"""


def test_body_captures_extend_a_definition_over_its_sibling_body() -> None:
    assert _symbols("dart", DART) == [
        ("Counter", "class", 1, 8),
        ("Counter.increment", "method", 2, 5),
        ("Counter.value", "method", 7, 7),
        ("twice", "function", 10, 13),
    ]
    assert _one("dart", DART, "twice")[2:] == ("int twice(int x)", "Top level.")
    dart = all_languages()["dart"]
    spec = _InlineSpec(dart.query_source().replace("@body", "@_body"), name="dart", grammar="dart",
                       query="dart", attached=dart.attached)
    without = {s.qualname: (s.start_line, s.end_line) for s in extract("a.dart", DART.encode(), spec).symbols}
    assert without["Counter.increment"] == (2, 3) and without["twice"] == (10, 11)


# --- `clause_terminators`: Erlang's `.` ends a function; `;` continues it.

ERLANG = """-module(router).

-spec compile(list()) -> list().
compile(Routes) ->
\tcompile(Routes, []).

compile([], Acc) ->
\tlists:reverse(Acc);
compile([R|Tail], Acc) ->
\tcompile(Tail, [R|Acc]).
"""


def test_clause_terminators_keep_arities_apart() -> None:
    erlang = all_languages()["erlang"]
    got = _table(ERLANG.encode(), erlang)
    assert got == {"router#module": ("module", 1, 1), "compile#function": ("function", 3, 5),
                   "compile#function~2": ("function", 7, 10)}
    merged = _table(ERLANG.encode(), dataclasses.replace(erlang, clause_terminators=frozenset()))
    assert merged["compile#function"] == ("function", 3, 10)


# --- names as written.

def test_verbatim_names_are_not_split() -> None:
    clojure = '(ns ring.core.protocols\n  "Protocols.")\n\n(defn- str->bytes [s] (.getBytes s))\n\n' \
              "(def ^:dynamic *max-size* 1024)\n"
    result = extract("p.clj", clojure.encode(), all_languages()["clojure"])
    assert [(s.name, s.qualname, s.kind) for s in result.symbols] == [
        ("ring.core.protocols", "ring.core.protocols", "module"),
        ("str->bytes", "ring.core.protocols.str->bytes", "function"),
        ("*max-size*", "ring.core.protocols.*max-size*", "constant"),
    ]


def test_name_verbatim_captures_take_one_name_as_written() -> None:
    # R's query: `.onLoad` and backquoted names as written; a dotted name is an S3 method.
    r = ".onLoad <- function(libname, pkgname) {\n  invisible()\n}\n\n" \
        "filter.data.frame <- function(.data, ...) {\n  .data\n}\n\n`[.tbl` <- function(x, i) x\n"
    result = extract("zzz.R", r.encode(), all_languages()["r"])
    assert [(s.name, s.qualname, s.kind) for s in result.symbols] == [
        (".onLoad", ".onLoad", "function"),
        ("frame", "filter.data.frame", "method"),
        ("[.tbl", "[.tbl", "function"),
    ]


def test_quoted_identifiers_lose_their_quotes() -> None:
    sql = 'CREATE TABLE "storage"."buckets" (\n  id text PRIMARY KEY\n);\n\nCREATE TABLE `studios` (\n  id integer\n);\n'
    result = extract("s.sql", sql.encode(), all_languages()["sql"])
    assert [(s.name, s.qualname, s.kind) for s in result.symbols] == [
        ("buckets", "storage.buckets", "struct"), ("studios", "studios", "struct")]
    zig = extract("m.zig", b'/// Runs the env command.\nfn @"zls env"() void {}\n', all_languages()["zig"])
    assert [s.qualname for s in zig.symbols] == ["zls env"]


# --- doc comment markers.

DOCS = [
    ("lua", "--- Registers an extension.\n---\n--- More text.\nlocal function register(ext)\n  return ext\nend\n",
     "register", "Registers an extension."),
    ("fortran", "module m\ncontains\n  !> Saves the working directory.\n  subroutine save_dir()\n"
     "  end subroutine save_dir\nend module m\n", "m.save_dir", "Saves the working directory."),
    ("ocaml", "(** Turns a list of records into a record of lists. *)\nlet unzip l = l\n", "unzip",
     "Turns a list of records into a record of lists."),
    ("haskell", "module M where\n\n-- | Doubles.\ndouble :: Int -> Int\ndouble = (* 2)\n", "double", "Doubles."),
    ("erlang", "%% @doc Chunked hello world handler.\n%% More.\n-module(toppage_h).\n", "toppage_h",
     "Chunked hello world handler. More."),
    ("r", "#' Apply a function across columns\n#'\n#' @export\nacross <- function(x) x\n", "across",
     "Apply a function across columns"),
    ("clojure", "(ns m)\n\n;; Reads the body.\n(defn read-body [b] b)\n", "m.read-body", "Reads the body."),
    ("elm", 'module Api exposing (f)\n\n{-| Many endpoints include an "errors" field.\n-}\nf : Int -> Int\n'
     "f x =\n    x\n", "Api.f", 'Many endpoints include an "errors" field.'),
    ("powershell", "<#\n.SYNOPSIS\n  Copies a folder.\n.DESCRIPTION\n  Long text.\n#>\nfunction Update-Directory {\n"
     "    param ([string] $Source)\n    $Source\n}\n", "Update-Directory", "Copies a folder."),
    ("c", "/** @brief Earth's mean radius. */\nconst double EARTH_RADIUS = 6372797.56;\n", "EARTH_RADIUS",
     "Earth's mean radius."),
]


def test_doc_comment_markers_are_stripped() -> None:
    for lang, source, qualname, doc in DOCS:
        assert _one(lang, source, qualname)[3] == doc, lang


def test_strings_keep_what_comment_markers_would_strip() -> None:
    source = 'def run():\n    """%prog [options] runs it."""\n'
    assert _one("python", source, "run")[3] == "%prog [options] runs it."
    solidity = "contract C {\n    /// @dev Uses {Checker-isValid-bytes-} with {signer}.\n    function f() public {}\n}\n"
    assert _one("solidity", solidity, "C.f")[3] == "@dev Uses {Checker-isValid-bytes-} with {signer}."


# --- signatures.

def test_signatures_stop_where_the_body_opens() -> None:
    ps = "function Update-Directory {\n    [CmdletBinding()]\n    param ([string] $Source)\n    $Source\n}\n\n" \
         "class ShouldAssertion {\n    [object[]] $Buffer = @()\n    [void] Fail() { throw 'x' }\n}\n"
    assert _one("powershell", ps, "Update-Directory")[2] == "function Update-Directory"
    assert _one("powershell", ps, "ShouldAssertion")[2] == "class ShouldAssertion"
    # A definition spanning a file is not cut at its first member's body.
    elm = 'module Api exposing (f)\n\nimport Html\n\nf : Int -> Int\nf x =\n    x\n'
    assert _one("elm", elm, "Api")[2] == "module Api exposing (f)"
    ex = "defmodule Plug.Adapters.Cowboy do\n  def http(plug, opts) do\n    {plug, opts}\n  end\nend\n"
    assert _one("elixir", ex, "Plug.Adapters.Cowboy.http")[2] == "def http(plug, opts)"
    proto = 'syntax = "proto3";\n\nservice Library {\n  rpc GetBook(GetBookRequest) returns (Book) {}\n}\n'
    assert _one("proto", proto, "Library.GetBook")[2] == "rpc GetBook(GetBookRequest) returns (Book)"


PERL = """package Foo 1.0;
sub a {}
package Bar {
  sub b {}
}
package Baz;
# trailing
sub c {}
sub Other::d {}

1;

=head1 NAME

Baz

=cut
"""


def test_open_statements_own_the_siblings_after_them() -> None:
    # `package Foo;` runs to the next package (POD after the code left out); a qualified
    # `sub Other::d` stays absolute; the block form spans its block.
    assert _symbols("perl", PERL) == [
        ("Foo", "module", 1, 2),
        ("Foo.a", "function", 2, 2),
        ("Bar", "module", 3, 5),
        ("Bar.b", "function", 4, 4),
        ("Baz", "module", 6, 11),
        ("Baz.c", "function", 7, 8),
        ("Other.d", "method", 9, 9),
    ]


def test_entry_files_list_the_names_they_re_export() -> None:
    langs = all_languages()
    init = b'''
from .polys import gcd, factor as factorize
from .core import (Symbol,
    Integer)
from . import printing
import os

__all__ = ["gcd", "factorize", "Symbol"]
'''
    exports = extract("pkg/__init__.py", init, langs["python"]).exports
    assert exports == ["Integer", "Symbol", "factor", "factorize", "gcd", "printing"]
    # the same text in an ordinary module imports, it does not publish
    assert extract("pkg/util.py", init, langs["python"]).exports == []

    mod_rs = b'''
pub use tcp::listener::TcpListener;
pub use udp::{UdpSocket, unix::UnixDatagram};
pub use addr::ToSocketAddrs as Addrs;
use private::Hidden;
cfg_net! {
    pub use lookup::lookup_host;
}
'''
    exports = extract("src/net/mod.rs", mod_rs, langs["rust"]).exports
    assert exports == ["TcpListener", "ToSocketAddrs", "UdpSocket", "UnixDatagram", "lookup_host"]

    index_ts = b"export {HTTPError} from './errors/HTTPError.js';\nexport type {Options, Hooks as H} from './types';\n"
    assert extract("source/index.ts", index_ts, langs["typescript"]).exports == ["HTTPError", "Hooks", "Options"]


def test_an_anonymous_default_export_is_named_after_its_file() -> None:
    """`export default () => {}` has no name of its own: its readers call it by its module's
    name (`parseHeaders` for parseHeaders.js), or by the folder's for an `index` file."""
    langs = all_languages()
    js = b'''import utils from './utils.js';

/** Parse the raw header block into an object. */
export default rawHeaders => {
  return utils.split(rawHeaders);
};
'''
    syms = extract("lib/helpers/parseHeaders.js", js, langs["javascript"]).symbols
    assert [(s.qualname, s.kind, s.start_line, s.end_line) for s in syms] == [("parseHeaders", "function", 3, 6)]
    assert syms[0].docstring == "Parse the raw header block into an object."

    ts = b'''export default function (props: { label: string }): string {
  return props.label;
}
'''
    syms = extract("src/Button/index.ts", ts, langs["typescript"]).symbols
    assert [(s.qualname, s.kind) for s in syms] == [("Button", "function")]

    cls = b'''export default class {
  run(): number { return 1; }
}
'''
    syms = extract("lib/Runner.ts", cls, langs["typescript"]).symbols
    assert [(s.qualname, s.kind) for s in syms] == [("Runner", "class"), ("Runner.run", "method")]
    # a named default export keeps its own name
    named = extract("lib/x.js", b"export default function mergeConfig(a, b) { return a; }\n", langs["javascript"])
    assert [s.qualname for s in named.symbols] == ["mergeConfig"]


def test_a_comment_between_the_header_and_the_body_is_no_part_of_the_signature() -> None:
    """`def f():  # noqa`, a comment above the first statement, Ruby's `#:nodoc:`: the
    signature ends where the header does (it is shown, searched and pasted)."""
    langs = all_languages()
    py = (b"def build(self) -> int:  # type: ignore[override]\n"
          b"    # Duplicate of the base class, with a twist\n"
          b"    return 1\n"
          b"\n"
          b"def plain(x):\n"
          b"    return x  # a comment inside the body stays out of it too\n")
    sigs = {s.name: s.signature for s in extract("m.py", py, langs["python"]).symbols}
    assert sigs == {"build": "def build(self) -> int", "plain": "def plain(x)"}
    rb = b"class Option < Argument #:nodoc:\n  def check(input) ## When applicable\n    input\n  end\nend\n"
    sigs = {s.name: s.signature for s in extract("o.rb", rb, langs["ruby"]).symbols}
    assert sigs == {"Option": "class Option < Argument", "check": "def check(input)"}
