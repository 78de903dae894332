"""The context bundle model: ordering, persistence, staleness flags and rendering."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core.bundle import (
    BUNDLE_FILE,
    Bundle,
    BundleError,
    BundleItem,
    Entry,
    build_bundle,
    bundle_path,
    file_key,
    lookup_item,
    make_entry,
    pack,
    render,
    render_markdown,
    render_xml,
    resolve,
    resolve_item,
    savings,
    symbol_code,
    symbol_key,
)
from symscope.core.bundle.packer import Detail
from symscope.core.errors import BadArgumentError, StaleSymbolError, UnknownSymbolError
from symscope.core.index import Index
from symscope.core.json_shapes import bundle_json
from symscope.core.private import write_private
from symscope.core.sanitize import for_paste
from symscope.core.tokens import count_tokens

FILES = {
    "pkg/shapes.py": (
        "class Square:\n"
        '    """A square."""\n'
        "\n"
        "    def area(self):\n"
        "        return self.side ** 2\n"
        "\n"
        "\n"
        "def describe(shape):\n"
        '    return f"{shape!r} has area {shape.area()}"\n'
    ),
    "web/fence.js": (
        "function showCode() {\n"
        "  return '```js\\nx\\n```' + ']]>';\n"
        "}\n"
    ),
}


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    ix = Index.open(root, index_dir=tmp_path / "idx")
    ix.update(processes=1)
    yield ix
    ix.close()


def _lines(index: Index, path: str, start: int, end: int) -> str:
    lines = (index.root / path).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[start - 1 : end]) + "\n"


def test_add_toggle_move_remove_keep_order_and_uniqueness(index: Index) -> None:
    area = index.symbol("pkg/shapes.py::Square.area#method")
    describe = index.symbol("pkg/shapes.py::describe#function")
    rec = index.file("web/fence.js")
    assert rec is not None
    b = Bundle()
    assert b.add(BundleItem.for_symbol(area))
    assert not b.add(BundleItem.for_symbol(area))  # no duplicates
    assert b.toggle(BundleItem.for_symbol(describe)) is True
    assert b.add(BundleItem.for_file(rec))
    assert b.keys == [symbol_key(area.id), symbol_key(describe.id), file_key(rec.path)]
    assert b.move(file_key(rec.path), -5) == 0  # clamped to the top
    assert b.move(symbol_key(area.id), 1) == 2
    assert b.keys == [file_key(rec.path), symbol_key(describe.id), symbol_key(area.id)]
    assert b.toggle(BundleItem.for_symbol(describe)) is False
    assert b.remove(file_key(rec.path)) and not b.remove("symbol:nope")
    assert b.keys == [symbol_key(area.id)] and symbol_key(area.id) in b
    assert b.move("symbol:nope", 1) == -1


def test_persistence_round_trip_and_corrupt_file(index: Index, tmp_path: Path) -> None:
    b = Bundle(format="xml")
    b.add(BundleItem.for_symbol(index.symbol("pkg/shapes.py::describe#function")))
    path = bundle_path(index)
    assert path == index.index_dir / BUNDLE_FILE
    b.save(path)
    again = Bundle.load(path)
    assert again == b
    assert json.loads(path.read_text())["version"] == 1
    assert Bundle.load(tmp_path / "missing.json") == Bundle()
    path.write_text("{not json")
    with pytest.raises(BundleError, match="not valid JSON"):
        Bundle.load(path)
    path.write_text(json.dumps({"version": 1, "items": [{"type": "thing"}]}))
    with pytest.raises(BundleError, match="unreadable"):
        Bundle.load(path)


def test_vanished_and_changed_items_are_flagged_not_dropped(index: Index) -> None:
    area = index.symbol("pkg/shapes.py::Square.area#method")
    describe = index.symbol("pkg/shapes.py::describe#function")
    rec = index.file("web/fence.js")
    assert rec is not None
    b = Bundle()
    for item in (BundleItem.for_symbol(area), BundleItem.for_symbol(describe), BundleItem.for_file(rec)):
        b.add(item)
    assert [r.status for r in resolve(b, index)] == ["ok", "ok", "ok"]

    shapes = index.root / "pkg/shapes.py"
    text = shapes.read_text()
    shapes.write_text(text.replace("self.side", "self.length").split("\n\n\ndef describe")[0] + "\n")
    # Before re-indexing, the file on disk no longer matches: the symbols are stale.
    stale = resolve(b, index)
    assert [r.status for r in stale][:2] == ["stale", "stale"]
    assert all(r.code is None for r in stale[:2])
    (index.root / "web/fence.js").write_text("function showCode() { return 1; }\n")
    assert resolve(b, index)[2].status == "stale"

    index.update(processes=1)
    now = resolve(b, index)
    assert [r.status for r in now] == ["changed", "missing", "changed"]
    assert len(b) == 3  # nothing dropped
    assert now[0].code is not None and "self.length" in now[0].code
    assert now[1].code is None and now[1].tokens == describe.tokens  # remembered figure
    rendered = render_markdown(now)
    assert rendered.items == 2 and [r.key for r in rendered.left_out] == [symbol_key(describe.id)]
    # Accepting the change records the new state.
    current = now[0].current_item()
    assert current is not None
    b.replace(now[0].key, current)
    assert resolve(b, index)[0].status == "ok"


def test_symbol_code_keeps_the_first_line_indentation(index: Index) -> None:
    area = index.symbol("pkg/shapes.py::Square.area#method")
    assert index.source(area).startswith("def area")
    assert symbol_code(index, area) == "    def area(self):\n        return self.side ** 2"


def test_markdown_is_exact(index: Index) -> None:
    area = index.symbol("pkg/shapes.py::Square.area#method")
    rec = index.file("web/fence.js")
    assert rec is not None
    b = Bundle()
    b.add(BundleItem.for_symbol(area))
    b.add(BundleItem.for_file(rec))
    rendered = render_markdown(resolve(b, index))
    total = area.tokens + rec.tokens
    js = (index.root / "web/fence.js").read_text()
    assert rendered.tokens == total and rendered.items == 2 and not rendered.left_out
    assert rendered.text == (
        # The header states the text's own exact count (issue 28.3), not the code's sum.
        f"# Code context: 2 items, {count_tokens(rendered.text)} tokens\n"
        "\n"
        f"1. pkg/shapes.py:4-5 (method Square.area, {area.tokens} tokens)\n"
        f"2. web/fence.js:1-3 (file, {rec.tokens} tokens)\n"
        "\n"
        "## pkg/shapes.py:4-5 (method Square.area)\n"
        "\n"
        f"```python\n{_lines(index, 'pkg/shapes.py', 4, 5)}```\n"
        "\n"
        "## web/fence.js:1-3 (file)\n"
        "\n"
        # The code holds a ``` run, so the fence grows to four backticks.
        f"````javascript\n{js}````\n"
    )


def test_xml_escapes_attributes_and_cdata_end(index: Index) -> None:
    rec = index.file("web/fence.js")
    assert rec is not None
    b = Bundle()
    b.add(BundleItem.for_file(rec))
    text = render_xml(resolve(b, index)).text
    js = (index.root / "web/fence.js").read_text()
    cdata = "<![CDATA[" + js.replace("]]>", "]]]]><![CDATA[>") + "]]>"
    assert text == (
        f'<code_context items="1" tokens="{count_tokens(text)}">\n'
        f'<item path="web/fence.js" lines="1-3" kind="file" name="web/fence.js" '
        f'language="javascript" tokens="{rec.tokens}">\n'
        f"{cdata}\n"
        "</item>\n"
        "</code_context>\n"
    )
    import xml.etree.ElementTree as ET

    parsed = ET.fromstring(text)
    assert parsed.find("item") is not None and parsed.find("item").text == "\n" + js + "\n"  # type: ignore[union-attr]


def test_savings_match_the_core_for_symbols_and_count_files_once(index: Index) -> None:
    area = index.symbol("pkg/shapes.py::Square.area#method")
    describe = index.symbol("pkg/shapes.py::describe#function")
    shapes = index.file("pkg/shapes.py")
    fence = index.file("web/fence.js")
    assert shapes is not None and fence is not None
    b = Bundle()
    b.add(BundleItem.for_symbol(area))
    b.add(BundleItem.for_symbol(describe))
    assert savings(resolve(b, index), index) == index.savings([area, describe])
    b.add(BundleItem.for_file(shapes))  # same file as the symbols: counted once on the file side
    b.add(BundleItem.for_file(fence))
    s = savings(resolve(b, index), index)
    assert s.tokens == area.tokens + describe.tokens + shapes.tokens + fence.tokens
    assert s.file_tokens == shapes.tokens + fence.tokens
    assert s.repo_tokens == index.repo_tokens()


# -- detail levels, packing, files written ---------------------------------------------------


def _entries(index: Index, spec: list[tuple[str, Detail]]) -> list[Entry]:
    return [make_entry(index, resolve_item(index, lookup_item(index, ref)), "added", detail)
            for ref, detail in spec]


def test_detail_levels_render_exactly(index: Index) -> None:
    entries = _entries(index, [("pkg/shapes.py::Square#class", "signature"),
                               ("pkg/shapes.py::describe#function", "name"),
                               ("web/fence.js", "signature")])
    result = pack(entries, redact=False)
    square = count_tokens("class Square\n    def area(self)\n") + count_tokens("A square.")
    js = count_tokens("function showCode()\n")
    assert result.text == (
        f"# Code context: 3 items, {count_tokens(result.text)} tokens\n"
        "\n"
        f"1. pkg/shapes.py:1-5 (class Square, signature, {square} tokens)\n"
        "2. pkg/shapes.py:8-9 (function describe, name only)\n"
        f"3. web/fence.js:1-3 (file, signature, {js} tokens)\n"
        "\n"
        "## pkg/shapes.py:1-5 (class Square, signature)\n"
        "\n"
        "A square.\n"
        "\n"
        "```python\nclass Square\n    def area(self)\n```\n"
        "\n"
        "## web/fence.js:1-3 (file, signature)\n"
        "\n"
        "```javascript\nfunction showCode()\n```\n"
    )
    assert result.tokens == count_tokens(result.text)
    assert [(i.detail, i.cap) for i in result.items] == [("signature", "signature"), ("name", "name"),
                                                         ("signature", "signature")]
    xml = pack(entries, "xml", redact=False).text
    assert xml == (
        f'<code_context items="3" tokens="{count_tokens(xml)}">\n'
        '<item path="pkg/shapes.py" lines="1-5" kind="class" name="Square" language="python" '
        f'tokens="{square}" detail="signature" doc="A square.">\n'
        "<![CDATA[class Square\n    def area(self)\n]]>\n</item>\n"
        '<item path="pkg/shapes.py" lines="8-9" kind="function" name="describe" language="python" '
        'detail="name"/>\n'
        '<item path="web/fence.js" lines="1-3" kind="file" name="web/fence.js" language="javascript" '
        f'tokens="{js}" detail="signature">\n'
        "<![CDATA[function showCode()\n]]>\n</item>\n"
        "</code_context>\n"
    )
    import xml.etree.ElementTree as ET

    assert [e.get("detail") for e in ET.fromstring(xml)] == ["signature", "name", "signature"]


def test_an_all_full_bundle_is_the_plain_rendering_made_paste_safe(index: Index) -> None:
    refs = ["pkg/shapes.py::Square.area#method", "web/fence.js", "pkg/shapes.py::describe#function"]
    b = Bundle()
    for ref in refs:
        b.add(lookup_item(index, ref))
    for fmt in ("markdown", "xml"):
        plain = render(resolve(b, index), fmt)  # type: ignore[arg-type]
        result = build_bundle(index, refs, fmt=fmt, redact=False)  # type: ignore[arg-type]
        assert result.text == for_paste(plain.text)[0]
        assert result.tokens == count_tokens(result.text)
        assert result.header_tokens + sum(i.tokens for i in result.items) == result.tokens


def test_build_bundle_json_shape_and_errors(index: Index) -> None:
    result = build_bundle(index, ["pkg/shapes.py::describe#function", ("web/fence.js", "dependency")],
                          details={"web/fence.js": "name"})
    data = bundle_json(result)
    assert set(data) == {"text", "tokens", "budget", "items", "dropped", "redacted"}
    assert data["items"] == [
        {"id": "pkg/shapes.py::describe#function", "detail": "full", "tokens": result.items[0].tokens,
         "reason": "added"},
        {"id": "web/fence.js", "detail": "name", "tokens": result.items[1].tokens, "reason": "dependency"},
    ]
    assert data["budget"] is None and data["dropped"] == [] and data["redacted"] == 0
    with pytest.raises(UnknownSymbolError, match=r"^unknown symbol id: nope$"):
        build_bundle(index, ["nope"])
    with pytest.raises(BundleError, match="format"):
        build_bundle(index, [], fmt="html")  # type: ignore[arg-type]
    with pytest.raises(BundleError, match="detail level"):
        build_bundle(index, ["web/fence.js"], details={"web/fence.js": "tiny"})  # type: ignore[dict-item]
    (index.root / "web/fence.js").write_text("function other() {}\n")
    with pytest.raises(StaleSymbolError, match="changed since indexing"):
        build_bundle(index, ["web/fence.js"])


def test_dependencies_follow_the_added_symbols(tmp_path: Path) -> None:
    root = tmp_path / "calc"
    root.mkdir()
    (root / "calc.py").write_text("def base():\n    return 1\n\n\ndef top():\n    return base() + 1\n")
    with Index.open(root, index_dir=tmp_path / "calc-idx") as ix:
        ix.update(processes=1)
        result = build_bundle(ix, ["calc.py::top#function"], deps=1)
        assert [(i.id, i.reason) for i in result.items] == [
            ("calc.py::top#function", "added"), ("calc.py::base#function", "dependency")]
        for deps in (-1, 6, True):
            with pytest.raises(BadArgumentError, match=r"^deps must be a whole number from 0 to 5, not "):
                build_bundle(ix, ["calc.py::top#function"], deps=deps)


def test_files_symscope_writes_are_private(index: Index, tmp_path: Path) -> None:
    b = Bundle()
    b.add(BundleItem.for_symbol(index.symbol("pkg/shapes.py::describe#function")))
    b.save(bundle_path(index))
    assert stat.S_IMODE(bundle_path(index).stat().st_mode) == 0o600
    out = tmp_path / "out" / "bundle.md"
    write_private(out, "text\n")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text() == "text\n"
    out.chmod(0o644)
    write_private(out, "again\n")  # an existing, wider file is narrowed
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text() == "again\n"
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(OSError):
        write_private(link, "no\n")
    assert not (tmp_path / "elsewhere.md").exists()
