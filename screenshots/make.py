"""Drive the real app with Pilot and save SVG (and PNG, if cairosvg is importable) screenshots.

    python -m screenshots.make [--repo PATH] [--out DIR]

Defaults to the checked-in sample repo (tests/fixtures/sample_repo), indexed into a
temporary folder, so the pictures are reproducible. Writes:

* main.svg   - search results, the chosen symbol highlighted in the source, counters;
* bundle.svg - a bundle of symbols and a whole file, with the token counters and the
  savings panel (the bundle against its files and the repo);
* related.svg - the Related pane (uses, used by) of a method added with its
  dependencies, under a token budget;
* help.svg   - the key-binding help screen.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from symscope.core.index import Index
from symscope.tui.app import SymscopeApp
from symscope.tui.widgets.search import SearchInput

HERE = Path(__file__).resolve().parent
SAMPLE_REPO = HERE.parent / "tests" / "fixtures" / "sample_repo"

Scene = Callable[[Pilot[Any]], Awaitable[None]]


async def _settle(pilot: Pilot[Any]) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)


async def _type_search(pilot: Pilot[Any], query: str) -> None:
    pilot.app.query_one(SearchInput).cursor_blink = False
    await pilot.press("slash", "ctrl+u", *query)
    await pilot.pause(0.1)
    await _settle(pilot)


async def main_scene(pilot: Pilot[Any]) -> None:
    await _type_search(pilot, "link store resolve")
    await pilot.press("down", "enter")  # open the second hit
    await _settle(pilot)
    await pilot.press("slash")  # back in the box: the results stay open
    await pilot.pause()


async def bundle_scene(pilot: Pilot[Any]) -> None:
    for query, downs in (("cache get", 2), ("link store resolve", 1), ("time ago", 0)):
        await _type_search(pilot, query)
        await pilot.press(*(["down"] * downs), "enter")
        await _settle(pilot)
        await pilot.press("a")
    await pilot.press("1")
    app = pilot.app
    assert isinstance(app, SymscopeApp)
    app.current_symbol = None
    app.current_path = "shortener/codes.py"
    await pilot.pause()
    await pilot.press("A", "b")
    await _settle(pilot)


async def related_scene(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, SymscopeApp)
    await _type_search(pilot, "server servehttp")
    await pilot.press("enter")
    await _settle(pilot)
    await pilot.press("R")  # the Related pane follows the selection
    await _settle(pilot)
    await pilot.press("D")  # add it with its dependencies: the delta first ...
    await _settle(pilot)
    await pilot.press("enter")  # ... then yes
    await _settle(pilot)
    await pilot.press("B", *"250", "enter")  # a token budget: dependencies are reduced first
    await _settle(pilot)
    await pilot.press("b", "6")
    await _settle(pilot)


async def help_scene(pilot: Pilot[Any]) -> None:
    await pilot.press("question_mark")
    await pilot.pause(0.2)


SCENES: list[tuple[str, tuple[int, int], Scene]] = [
    ("main", (150, 42), main_scene),
    ("bundle", (160, 42), bundle_scene),
    ("related", (160, 42), related_scene),
    ("help", (100, 44), help_scene),
]


async def shoot(repo: Path, index_dir: Path, name: str, size: tuple[int, int], scene: Scene,
                out: Path) -> Path:
    index = Index.open(repo, index_dir=index_dir)
    app = SymscopeApp(index, clipboard=lambda text: "none", processes=1, save_dir=index_dir)
    try:
        async with app.run_test(size=size) as pilot:
            await _settle(pilot)
            await scene(pilot)
            app.clear_notifications()
            await pilot.pause(0.1)
            svg = app.export_screenshot(title=f"symscope · {repo.name}")
    finally:
        index.close()
    target = out / f"{name}.svg"
    target.write_text(svg, encoding="utf-8")
    return target


def _to_png(svg: Path) -> Path | None:
    try:
        import cairosvg  # type: ignore[import-not-found]
    except ImportError:
        return None
    png = svg.with_suffix(".png")
    cairosvg.svg2png(url=str(svg), write_to=str(png), output_width=1600)
    return png


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Save symscope TUI screenshots.")
    parser.add_argument("--repo", type=Path, default=SAMPLE_REPO)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="symscope-shots-") as tmp:
        index_dir = Path(tmp) / "index"
        with Index.open(args.repo, index_dir=index_dir) as index:
            index.update(processes=1)
        png_missing = False
        for name, size, scene in SCENES:
            (index_dir / "bundle.json").unlink(missing_ok=True)  # each scene starts empty
            svg = asyncio.run(shoot(args.repo, index_dir, name, size, scene, args.out))
            png = _to_png(svg)
            png_missing = png_missing or png is None
            print(f"wrote {svg}" + (f" and {png.name}" if png else ""))
        if png_missing:
            print("PNG skipped: cairosvg is not installed (pip install cairosvg to get PNGs)",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
