"""File and folder names of any bytes index (or are skipped with a reason) and print on one line.

Issue 27, points 1 and 7: one name that is not UTF-8 made the whole index fail, and
a newline in a folder name forged result lines. Names are kept in one escaped form
(`core/pathnames.py`); these tests build such names with bytes paths, as a
checkout or an archive would, and read every face's output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from symscope.cli import main as cli
from symscope.core import api
from symscope.core.files import UnsafeFileError, read_repo_file
from symscope.core.index import Index
from symscope.core.pathnames import escape_controls, escape_name, fs_path, unescape_name
from symscope.mcp_server.server import build_server

#: A folder name that would print as a whole search result line if its newline were raw.
FORGED = "evil\n   9.99  function  forged  x.py:1  1 tok"
#: Names as bytes, each with the source written in it.
HOSTILE: dict[bytes, bytes] = {
    b"bad\xff.py": b"def bad_func():\n    return 'bad'\n",
    b"d\xff/inner.py": b"def inner_func():\n    return 'inner'\n",
    b"notes\xff.txt": b"not code\n",
    os.fsencode(FORGED) + b"/m.py": b"def forged_thing():\n    return 'forged'\n",
    b"esc\x1b]0;t\x07\r\tname.py": b"def escaped_name():\n    return 'esc'\n",
    b"rtl\xe2\x80\xaegnp.py": b"def rtl_name():\n    return 'rtl'\n",
    b"good.py": b"def good_func():\n    return 'good'\n",
}
#: A control character, DEL/C1, a lone surrogate, a bidi or zero-width character: never printed raw.
RAW = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _write(root: Path, files: dict[bytes, bytes]) -> None:
    base = os.fsencode(root)
    for name, data in files.items():
        path = os.path.join(base, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    try:
        _write(root, HOSTILE)
    except OSError as exc:  # a filesystem that refuses such names (APFS, some FUSE mounts)
        pytest.skip(f"this filesystem refuses non-UTF-8 names: {exc}")
    os.symlink(b"good.py", os.path.join(os.fsencode(root), b"link\xff.py"))
    return root


@pytest.fixture
def hostile_index(hostile_repo: Path, tmp_path: Path) -> Any:
    index = Index.open(hostile_repo, tmp_path / "idx")
    index.update(processes=1)
    yield index
    index.close()


def _shown(raw: bytes) -> str:
    return escape_name(os.fsdecode(raw))


def test_every_name_indexes_or_is_skipped_with_a_reason(hostile_index: Index) -> None:
    index = hostile_index
    paths = {f.path for f in index.files()}
    assert paths == {"bad\\xff.py", "d\\xff/inner.py", "evil\\x0a   9.99  function  forged  x.py:1  1 tok/m.py",
                     "esc\\x1b]0;t\\x07\\x0d\\x09name.py", "rtl\\u202egnp.py", "good.py"}
    reasons = {s.path: s.reason for s in index.skipped()}
    assert reasons["notes\\xff.txt"] == "unsupported language"
    assert reasons["link\\xff.py"] == "symlink to inside the repo (not followed)"
    for raw, data in HOSTILE.items():
        if not raw.endswith(b".py"):
            continue
        (sym,) = index.file_symbols(_shown(raw))
        assert index.source(sym) == data.decode().rstrip("\n")  # read back from the very file, exactly
        assert api.show_json(api.Workspace(index).show(sym.id))["source"] == index.source(sym)
        assert not RAW.search(sym.id) and not RAW.search(sym.path)
    assert [h.symbol.name for h in index.search("good func", limit=1)] == ["good_func"]


def test_one_odd_name_never_affects_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    files = {f"m{i}.py".encode(): f"def keep_{i}():\n    pass\n".encode() for i in range(60)}
    try:
        _write(root, {**files, b"odd\xfe\xff/x\xff.py": b"def odd_one():\n    pass\n"})
    except OSError as exc:
        pytest.skip(f"this filesystem refuses non-UTF-8 names: {exc}")
    with Index.open(root, tmp_path / "idx") as index:
        report = index.update(processes=2)  # enough files for parser processes: names cross pickling
        assert report.files == 61 and not report.skipped
        odd = index.symbol("odd\\xfe\\xff/x\\xff.py::odd_one#function")
        assert index.source(odd) == "def odd_one():\n    pass"
        report = index.update(processes=1)  # and a second run sees nothing changed
        assert (report.parsed, report.unchanged, report.removed) == (0, 61, 0)


def test_a_shown_path_given_back_finds_the_same_file(hostile_index: Index, hostile_repo: Path) -> None:
    index = hostile_index
    assert api.outline_json(api.Workspace(index).outline("d\\xff/inner.py", cwd=hostile_repo))["path"] == "d\\xff/inner.py"
    assert [f["path"] for f in api.outline_json(api.Workspace(index).outline("d\\xff", cwd=hostile_repo))["files"]] == ["d\\xff/inner.py"]
    # the name as on disk (a shell's `$'d\xff/inner.py'`, argv's surrogates) gives the shown form too
    assert index.relpath(os.fsdecode(b"d\xff/inner.py"), cwd=hostile_repo) == "d\\xff/inner.py"
    assert index.relpath(os.fsdecode(os.fsencode(hostile_repo) + b"/bad\xff.py")) == "bad\\xff.py"
    # and an id pasted with its raw characters finds the symbol
    assert index.symbol(os.fsdecode(b"bad\xff.py::bad_func#function")).path == "bad\\xff.py"
    with pytest.raises(Exception, match="not indexed"):
        api.Workspace(index).outline("notes\\xff.txt", cwd=hostile_repo)


def test_a_real_name_that_looks_escaped_is_another_file(tmp_path: Path) -> None:
    """`bad\\xff.py` spelled with a backslash is not the byte 0xff: both index, each as itself."""
    root = tmp_path / "repo"
    root.mkdir()
    try:
        _write(root, {b"bad\xff.py": b"def from_byte():\n    pass\n",
                      b"bad\\xff.py": b"def from_backslash():\n    pass\n"})
    except OSError as exc:
        pytest.skip(f"this filesystem refuses these names: {exc}")
    with Index.open(root, tmp_path / "idx") as index:
        index.update(processes=1)
        assert sorted(f.path for f in index.files()) == ["bad\\\\xff.py", "bad\\xff.py"]
        assert [s.name for s in index.file_symbols("bad\\xff.py")] == ["from_byte"]
        assert [s.name for s in index.file_symbols("bad\\\\xff.py")] == ["from_backslash"]
        for rel, name in (("bad\\xff.py", "from_byte"), ("bad\\\\xff.py", "from_backslash")):
            (sym,) = index.file_symbols(rel)
            assert index.source(sym) == f"def {name}():\n    pass"
            outline = api.outline_json(api.Workspace(index).outline(rel, cwd=root))
            assert outline["path"] == rel and [s["name"] for s in outline["symbols"]] == [name]


def test_cli_text_prints_one_line_per_result_line(hostile_index: Index, hostile_repo: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--repo", str(hostile_repo), "--index-dir", str(tmp_path / "idx")]
    assert cli.main(["search", "forged thing escaped name bad func inner", "--limit", "20", *common]) == 0
    text = capsys.readouterr().out
    assert cli.main(["search", "forged thing escaped name bad func inner", "--limit", "20", "--json", *common]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert len(results) >= 4
    lines = text.splitlines()
    assert len(lines) == 3 * len(results)  # score line, signature, id: nothing else starts a line
    for n, hit in enumerate(results):
        head, _, id_line = lines[3 * n : 3 * n + 3]
        assert head.startswith(f"{hit['score']:7.2f}  ") and f"{hit['path']}:{hit['start_line']}" in head
        assert id_line == f"         id: {hit['id']}"
    assert "evil\\x0a   9.99  function  forged" in text and not RAW.search(text.replace("\n", ""))
    assert cli.main(["outline", ".", *common]) == 0
    outline = capsys.readouterr().out
    assert not RAW.search(outline.replace("\n", ""))
    assert all(line.startswith(("  ", "bad\\xff.py  (", "d\\xff/", "esc\\x1b", "evil\\x0a", "good.py", "rtl\\u202e"))
               for line in outline.splitlines()), outline
    assert cli.main(["show", "d\\xff/inner.py::inner_func#function", *common]) == 0
    assert capsys.readouterr().out == "def inner_func():\n    return 'inner'\n"
    assert cli.main(["outline", "d\\xff/inner.py", *common]) == 0
    assert capsys.readouterr().out.startswith("d\\xff/inner.py  (python, ")


def test_index_command_prints_every_name_escaped(hostile_repo: Path, tmp_path: Path) -> None:
    """On a real stdout (UTF-8, strict): no traceback, exit 0, skipped names escaped."""
    args = [sys.executable, "-m", "symscope.cli", "index", str(hostile_repo), "--index-dir", str(tmp_path / "i")]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(args, capture_output=True, timeout=120, env=env)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode(errors="replace")
    out = done.stdout.decode("utf-8")
    assert "notes\\xff.txt" in out and "link\\xff.py" in out and "files 6" in out
    done = subprocess.run([*args, "--json"], capture_output=True, timeout=120, env=env)
    data = json.loads(done.stdout)
    assert {s["path"] for s in data["skipped_files"]} == {"notes\\xff.txt", "link\\xff.py"}


def test_a_root_folder_with_odd_bytes_indexes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(os.fsdecode(os.fsencode(tmp_path) + b"/repo\xff\nx"))
    try:
        root.mkdir()
    except OSError as exc:
        pytest.skip(f"this filesystem refuses non-UTF-8 names: {exc}")
    (root / "a.py").write_text("def alpha():\n    pass\n")
    assert cli.main(["index", str(root), "--index-dir", str(tmp_path / "idx")]) == 0
    out = capsys.readouterr().out
    assert "repo\\xff\\x0ax" in out and out.startswith("indexed ")
    assert cli.main(["stats", "--repo", str(root), "--index-dir", str(tmp_path / "idx"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["root"].endswith("repo\\xff\\x0ax")


def _line_shapes(text: str) -> list[str]:
    """The lines of an MCP answer that do not start as one of its own lines would."""
    shapes = re.compile(r"^(\d+\. \S|   \S|--- \S|\S+: \S|  \S|\[)")
    return [line for line in text.splitlines() if line and not shapes.match(line)]


async def test_mcp_answers_name_odd_files_on_one_line_and_take_them_back(hostile_index: Index) -> None:
    index = hostile_index
    async with Client(build_server(index)) as client:
        async def call(tool: str, **args: Any) -> str:
            result = await client.call_tool(tool, args)
            text = "".join(getattr(block, "text", "") for block in result.content)
            assert not result.is_error, text
            assert not RAW.search(text.replace("\n", "")), text
            return text

        found = await call("search_symbols", query="forged thing escaped name bad func inner", limit=20)
        assert "evil\\x0a   9.99  function  forged  x.py:1  1 tok/m.py::forged_thing#function" in found
        assert _line_shapes(found) == []
        assert not any(line.startswith("   9.99") for line in found.splitlines())
        root = await call("get_outline", path=".")
        assert "  evil\\x0a   9.99  function  forged  x.py:1  1 tok/ 1 files" in root
        assert "  d\\xff/ 1 files" in root and "  bad\\xff.py python" in root
        folder = await call("get_outline", path="d\\xff")
        assert "  inner.py python" in folder
        outline = await call("get_outline", path="d\\xff/inner.py")
        assert outline.startswith("d\\xff/inner.py: python, ")
        ids = [s.id for raw in HOSTILE if raw.endswith(b".py") for s in index.file_symbols(_shown(raw))]
        source = await call("get_symbols", ids=ids)
        headers = [line for line in source.splitlines() if line.startswith("--- ")]
        assert headers == [f"--- {i} L1-2" for i in ids]  # one header per symbol, each whole on its line
        for raw, data in HOSTILE.items():
            if raw.endswith(b".py"):
                assert data.decode().rstrip("\n") in source
        status = await call("index_status")
        assert "skipped 2 files" in status
        await call("reindex", paths=["d\\xff"])
    assert index.file("d\\xff/inner.py") is not None


def test_symbol_names_from_source_hold_no_control_characters(write_repo: Any, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = write_repo({"s.sql": 'CREATE TABLE "evil\nline\x1b[2J" (id int);\nCREATE TABLE ok_table (id int);\n',
                       "k.kt": "class `a\u202eb` {\n    fun plain() {}\n}\n",
                       "p.php": "<?php\nnamespace App\\Models;\nclass User {}\n"})
    with Index.open(root, tmp_path / "idx") as index:
        index.update(processes=1)
        symbols = index.all_symbols()
        assert symbols and all(not RAW.search(s.id + s.name + s.qualname) for s in symbols)
        assert any("evil\\x0aline\\x1b[2J" in s.qualname for s in symbols)
        assert any(s.name == "a\\u202eb" for s in symbols)
        sql = next(s for s in symbols if "evil" in s.qualname)
        assert index.source(sql).startswith('CREATE TABLE "evil\nline')  # the source itself is exact
    assert cli.main(["outline", ".", "--repo", str(root), "--index-dir", str(tmp_path / "idx")]) == 0
    out = capsys.readouterr().out
    assert all(line.startswith(("k.kt", "p.php", "s.sql", "  ")) for line in out.splitlines()), out


def test_git_changes_name_odd_files_as_the_index_does(hostile_repo: Path, tmp_path: Path) -> None:
    from symscope.core.gitdiff import changed_symbols, git_changes

    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    try:
        for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
            subprocess.run(["git", *cmd], cwd=hostile_repo, check=True, capture_output=True, env=env)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"git unavailable: {exc}")
    with open(os.path.join(os.fsencode(hostile_repo), b"d\xff/inner.py"), "ab") as fh:
        fh.write(b"\n\ndef added_later():\n    return 2\n")
    with Index.open(hostile_repo, tmp_path / "idx") as index:
        index.update(processes=1)
        changes = git_changes(hostile_repo)
        assert [c.path for c in changes] == ["d\\xff/inner.py"]
        assert [s.name for s in changed_symbols(index, changes)] == ["added_later"]


@pytest.mark.parametrize("name", ["bad\udcff.py", "a\nb", "e\x1b[31m\r\t", "x\\y", "x\\xff", "\u202e", "\U000e0001",
                                  "\x85", "\ud800", "\udc10", "plain.py", "caf\u00e9", "\\x41", "\x00", "\x7f"])
def test_escaping_is_printable_and_one_to_one(name: str) -> None:
    shown = escape_name(name)
    assert unescape_name(shown) == name
    assert shown.isprintable() and "\n" not in shown and "/" not in shown
    shown.encode("utf-8")  # storable and printable, whatever the name held
    assert escape_controls(name).isprintable() or not RAW.search(escape_controls(name))


def test_text_escape_never_writes_is_kept_as_written() -> None:
    assert unescape_name("a\\x41\\x2f..\\u0041\\U0000202e\\q\\") == "a\\x41\\x2f..\\u0041\\U0000202e\\q\\"
    assert unescape_name("\\\\x2f") == "\\x2f"  # never a `/`: a name cannot leave its folder
    assert fs_path("/r", "d\\xff/a\\x0ab") == os.fsdecode(b"/r/d\xff/a\nb")


def test_a_stored_path_that_unescapes_to_nul_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(UnsafeFileError, match="not a plain path"):
        read_repo_file(tmp_path, "a\\x00.py")
    assert read_repo_file(tmp_path, "a.py") == b"x = 1\n"


def test_gitignore_rules_match_names_as_they_are_on_disk(tmp_path: Path) -> None:
    """A rule names a file as written on disk, though the index spells it escaped."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "rtl\u202egnp.py").write_text("def hidden_by_rule():\n    pass\n")
    (root / "tab\there.py").write_text("def also_hidden():\n    pass\n")
    (root / "kept.py").write_text("def kept():\n    pass\n")
    (root / ".gitignore").write_text("rtl\u202e*\ntab\t*\n")
    ix = Index.open(root, tmp_path / "idx")
    try:
        ix.update(processes=1)
        assert {f.path for f in ix.files()} == {"kept.py"}
        reasons = {s.path: s.reason for s in ix.skipped()}
        assert reasons == {"rtl\\u202egnp.py": "ignored by .gitignore", "tab\\x09here.py": "ignored by .gitignore"}
    finally:
        ix.close()
